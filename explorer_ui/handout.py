"""A page's guided tour as a handout: one self-contained HTML file.

``python -m explorer_ui.handout lifetime_sweep --out sweep.html`` runs the page once per
tour step (``?tour=n``, with Streamlit's AppTest: no server, no browser) and writes every
step's title, narration, charts (interactive: Plotly's script is inline) with their text
descriptions, the step's settings and the link that reopens it, then the page's sources.
The file needs no network and no Python: it opens from a USB stick. The *View* menu of
every page with a tour offers the same file (:func:`handout_button`).
"""
from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
#: Where a handout's links point unless told otherwise: the README's first command.
DEFAULT_BASE_URL = "http://localhost:8501"
_TOUR_HEAD = re.compile(r"^\*\*Tour (\d+)/(\d+) \u00b7 (.+?)\*\*\s*\n(.*)$", re.S)


@dataclass
class StepPage:
    """What one tour step shows: its narrative, its charts and their descriptions."""

    number: int
    total: int
    title: str
    text: str
    query: dict
    charts: list[dict]
    descriptions: list[str]


def page_file(page: str) -> Path:
    """The page's file from its name (``lifetime_sweep``, ``lifetime-sweep`` or
    ``pages/lifetime_sweep.py``); raises SystemExit naming the pages otherwise."""
    stem = Path(page).name.removesuffix(".py").replace("-", "_")
    path = ROOT / "pages" / f"{stem}.py"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in (ROOT / "pages").glob("*.py")))
        raise SystemExit(f"no page {page!r}; the pages are: {known}")
    return path


def run_step(path: Path, n: int | None, timeout: float = 600):
    """Run the page's file at tour step ``n`` (None: at its defaults); return the AppTest."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(path), default_timeout=timeout)
    if n is not None:
        at.query_params["tour"] = str(n)
    at.run()
    if at.exception:
        raise RuntimeError(f"{path.name} at tour={n}: {at.exception[0].value}")
    return at


def _step(at, n: int) -> StepPage | None:
    heads = [m.value for m in at.markdown if m.value.startswith(f"**Tour {n}/")]
    match = _TOUR_HEAD.match(heads[0]) if heads else None
    if match is None:
        return None
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    descriptions = [c.value for c in at.caption if c.value.startswith("**Chart:")]
    query = {k: at.query_params[k] for k in at.query_params}
    return StepPage(n, int(match[2]), match[3], match[4].strip(), query, charts, descriptions)


def _sources(at) -> str:
    for expander in at.expander:
        if expander.label == "Sources":
            return "\n".join(m.value for m in expander.markdown)
    return ""


def collect(page: str) -> tuple[str, list[StepPage], str]:
    """Run every step of ``page``'s tour: its title, the steps and its sources (markdown).

    Parameters
    ----------
    page : str
        The page's name (see :func:`page_file`).

    Returns
    -------
    tuple of (str, list of StepPage, str)
    """
    path = page_file(page)
    first = run_step(path, 1)
    title = next((t.value for t in first.title), path.stem.replace("_", " ").capitalize())
    step = _step(first, 1)
    if step is None:
        raise SystemExit(f"{path.stem} has no guided tour")
    steps = [step]
    for n in range(2, step.total + 1):
        later = _step(run_step(path, n), n)
        if later is None:
            raise RuntimeError(f"{path.stem}: tour step {n} did not show its narrative")
        steps.append(later)
    return title, steps, _sources(first)


# ---------------------------------------------------------------- text to HTML

# The narration's KaTeX as plain text: a handout has no KaTeX (no network), and a few
# symbols carry the meaning.
_TEX = {r"\lambda": "λ", r"\Lambda": "Λ", r"\approx": "≈", r"\cdot": "·", r"\times": "×",
        r"\infty": "∞", r"\le": "≤", r"\ge": "≥", r"\leq": "≤", r"\geq": "≥", r"\to": "→",
        r"\sqrt": "√", r"\sigma": "σ", r"\mu": "μ", r"\alpha": "α", r"\beta": "β",
        r"\theta": "θ", r"\ell": "ℓ", r"\pm": "±", r"\sum": "Σ", r"\in": "∈", r"\ne": "≠",
        r"\neq": "≠", r"\log": "log", r"\exp": "exp", r"\mid": "|", r"\,": " ", r"\;": " ",
        r"\quad": " ", r"\left": "", r"\right": "", r"\mathbb{E}": "E", r"\|": "‖"}


_SUP = dict(zip("0123456789+-=()nik*", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵏ*"))
_SUB = dict(zip("0123456789+-=()aeijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))


def _scripts(math: str) -> str:
    """``x^2``, ``\\sigma_n^{2}`` with Unicode super- and subscripts where they exist."""
    def swap(match, table):
        body = match[1] or match[2]
        return "".join(table[c] for c in body) if all(c in table for c in body) else match[0]
    math = re.sub(r"\^(?:\{([^{}]*)\}|([^{\s]))", lambda m: swap(m, _SUP), math)
    return re.sub(r"_(?:\{([^{}]*)\}|([^{\s]))", lambda m: swap(m, _SUB), math)


def tex_text(math: str) -> str:
    """A KaTeX formula as plain text: Greek letters and common symbols as characters,
    super- and subscripts in Unicode where it has them.

    Parameters
    ----------
    math : str
        The formula, without its ``$`` signs.

    Returns
    -------
    str
        E.g. ``λ*`` for ``\\lambda^*``, ``σₙ²`` for ``\\sigma_n^2``.
    """
    for command in sorted(_TEX, key=len, reverse=True):
        math = re.sub(re.escape(command) + r"(?![A-Za-z])", _TEX[command], math)
    math = re.sub(r"\\(?:text|mathrm|mathbf|operatorname|mathcal)\{([^}]*)\}", r"\1", math)
    math = re.sub(r"\\frac\{([^}]*)\}\{([^}]*)\}", r"(\1)/(\2)", math)
    math = _scripts(math)
    math = re.sub(r"\\([A-Za-z]+)", r"\1", math)
    return math.replace("{", "").replace("}", "")


def spoken_js() -> str:
    """A JavaScript function ``(text) => text`` that writes the ``$...$`` formulas of a
    label as :func:`tex_text` does, for accessible names in the browser (a sub- or
    superscript Unicode lacks is written on the line); a formula it cannot read stays
    as it is.

    Returns
    -------
    str
        The function's source.
    """
    table = json.dumps(sorted(_TEX.items(), key=lambda kv: -len(kv[0])))
    return ("((T, SUP, SUB) => (text) => text.replace(/\\$([^$]+)\\$/g, (whole, m) => {\n"
            "  for (const [cmd, ch] of T) m = m.split(cmd).join(ch);\n"
            "  const swap = (t) => (s, a, b) => { const body = a !== undefined ? a : b;\n"
            "    return [...body].map((c) => (c in t ? t[c] : c)).join(''); };\n"
            "  m = m.replace(/\\\\frac\\{([^}]*)\\}\\{([^}]*)\\}/g, '($1)/($2)');\n"
            "  m = m.replace(/\\^(?:\\{([^{}]*)\\}|([^{\\s]))/g, swap(SUP))\n"
            "       .replace(/_(?:\\{([^{}]*)\\}|([^{\\s]))/g, swap(SUB));\n"
            "  m = m.replace(/\\\\([A-Za-z]+)/g, '$1').replace(/[{}]/g, '');\n"
            "  return /[\\\\^_]/.test(m) ? whole : m;\n"
            f"}}))({table}, {json.dumps(_SUP, ensure_ascii=False)}, "
            f"{json.dumps(_SUB, ensure_ascii=False)})")


def markdown_html(text: str) -> str:
    """The small markdown the app's narration uses (bold, italic, code, links, line
    breaks, bullet lists, ``$...$`` maths as plain symbols) as escaped HTML.

    Parameters
    ----------
    text : str
        Markdown.

    Returns
    -------
    str
        HTML with every character of the text escaped.
    """
    text = re.sub(r"\$\$?([^$]+)\$\$?", lambda m: f"\x00{tex_text(m[1])}\x01", text)
    text = re.sub(r":material/[a-z_]+:", "", text)
    text = re.sub(r":(?:red|green|blue|orange|violet|gray|grey|rainbow)\[([^\]]*)\]", r"\1", text)
    out, items = [], []
    for line in text.split("\n"):
        body = _inline(html.escape(line.strip()))
        if line.lstrip().startswith("- "):
            items.append(f"<li>{body[2:].strip()}</li>")
            continue
        if items:
            out.append("<ul>" + "".join(items) + "</ul>")
            items = []
        if body:
            out.append(body + ("<br>" if line.endswith("  ") else ""))
    if items:
        out.append("<ul>" + "".join(items) + "</ul>")
    return "\n".join(out).replace("\x00", "<i>").replace("\x01", "</i>")


def _inline(escaped: str) -> str:
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", escaped)
    escaped = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", escaped)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return re.sub(r"\[([^\]]+)\]\((https?://[^)\s]+)\)", r'<a href="\2">\1</a>', escaped)


# ---------------------------------------------------------------- the file

_CSS = """body{font:16px/1.5 system-ui,'Source Sans Pro',sans-serif;color:#121212;max-width:1000px;
margin:2rem auto;padding:0 1rem}h1{font-size:1.9rem}h2{font-size:1.35rem;border-top:3px solid #121212;
padding-top:1rem;margin-top:2.5rem}.chart{margin:1rem 0}.description{color:#333;font-size:.95rem}
.settings{font-size:.9rem;color:#333}code{background:#f3f3f3;padding:0 .2em}a{color:#1a4fa0}
a:focus,button:focus{outline:3px solid #D40920;outline-offset:2px}@media print{.chart{break-inside:avoid}}"""


def render(title: str, steps: list[StepPage], sources: str, *, page: str,
           base_url: str = DEFAULT_BASE_URL) -> str:
    """The handout's HTML: one section per step, then the sources; Plotly inline.

    Parameters
    ----------
    title : str
        The page's title.
    steps : list of StepPage
        The tour's steps (:func:`collect`).
    sources : str
        The page's sources as markdown ("" when the page lists none).
    page : str
        The page's URL path (e.g. ``lifetime_sweep``).
    base_url : str, default=DEFAULT_BASE_URL
        Where the app is served, for the links that reopen each step.

    Returns
    -------
    str
        A complete HTML document that loads nothing from the network.
    """
    from plotly.offline import get_plotlyjs

    e = html.escape
    body = [f"<h1>{e(title)}: guided tour</h1>",
            f"<p>{len(steps)} steps. Each chart is interactive (hover, zoom); its description "
            "says what it shows in words. The link under each step reopens it in the app "
            "(the same picture for everyone).</p>"]
    figures = []
    for step in steps:
        link = f"{base_url.rstrip('/')}/{page}?{urlencode({'tour': step.number})}"
        settings = {k: v for k, v in step.query.items() if k != "tour"}
        body.append(f'<section aria-labelledby="step{step.number}">'
                    f'<h2 id="step{step.number}">Step {step.number} of {step.total}: '
                    f"{e(step.title)}</h2><div>{markdown_html(step.text)}</div>")
        for i, spec in enumerate(step.charts):
            said = step.descriptions[i] if i < len(step.descriptions) else ""
            label, _, text = said.partition(".** ")
            label = label.removeprefix("**") or f"Chart {i + 1}"
            div = f"chart-{step.number}-{i + 1}"
            body.append(f'<figure class="chart"><div id="{div}" role="img" '
                        f'aria-label="{e(label)}" aria-describedby="{div}-text"></div>'
                        f'<figcaption id="{div}-text" class="description"><strong>'
                        f"{e(label)}.</strong> {e(text)}</figcaption></figure>")
            figures.append((div, spec))
        rows = "".join(f"<li><code>{e(k)}</code> = {e(str(v))}</li>" for k, v in settings.items())
        body.append(f'<div class="settings"><p>Settings of this step:</p><ul>{rows}</ul>'
                    f'<p>Reopen it: <a href="{e(link)}">{e(link)}</a> (the full view: '
                    f'<code>{e(page)}?{e(urlencode(step.query))}</code>)</p></div></section>')
    body.append('<section aria-labelledby="sources"><h2 id="sources">Sources</h2>'
                + (markdown_html(sources) if sources.strip() else "<p>none</p>") + "</section>")
    # JSON inside a script element: "</" would end the element early
    data = json.dumps([[d, s] for d, s in figures]).replace("</", "<\\/")
    draw = ("const FIGURES = " + data + ";\nfor (const [id, fig] of FIGURES) {\n"
            "  const layout = Object.assign({}, fig.layout || {}, {autosize: true});\n"
            "  Plotly.newPlot(id, fig.data, layout, {displaylogo: false, responsive: true})\n"
            "    .then((gd) => { if (fig.frames) Plotly.addFrames(gd, fig.frames); });\n}")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}: guided tour (Mondrian Explorer)</title><style>{_CSS}</style>"
            f"<script>{get_plotlyjs()}</script></head><body><main>"
            + "\n".join(body) + f"</main><script>{draw}</script></body></html>\n")


def build(page: str, out, *, base_url: str = DEFAULT_BASE_URL) -> Path:
    """Write ``page``'s tour handout to ``out``.

    Parameters
    ----------
    page : str
        The page's name (e.g. ``lifetime_sweep``).
    out : str or path
        The HTML file to write.
    base_url : str, default=DEFAULT_BASE_URL
        Where the app is served, for the links that reopen each step.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    title, steps, sources = collect(page)
    out = Path(out)
    out.write_text(render(title, steps, sources, page=page_file(page).stem, base_url=base_url),
                   encoding="utf-8")
    return out


# ---------------------------------------------------------------- from the app

_BUILT: dict[str, bytes] = {}
_LOCK = threading.Lock()


def handout_bytes(page: str, base_url: str = DEFAULT_BASE_URL) -> bytes:
    """The handout of ``page``, built once per server in a separate process (AppTest
    must not run inside the serving process's Streamlit runtime)."""
    with _LOCK:
        key = f"{page}|{base_url}"
        if key not in _BUILT:
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "handout.html"
                subprocess.run([sys.executable, "-m", "explorer_ui.handout", page, "--out",
                                str(out), "--base-url", base_url], cwd=ROOT, check=True,
                               capture_output=True, timeout=900)
                _BUILT[key] = out.read_bytes()
        return _BUILT[key]


def handout_button(container, page_title: str) -> None:
    """The *Tour handout (HTML)* download, for the View popover of a page with a tour."""
    import streamlit as st

    from explorer_ui.navigation import VIEWS
    from mondrian_core.figures.export import slug

    view = next((v for v in VIEWS if v.title == page_title), None)
    if view is None:
        return
    stem = view.path.removeprefix("pages/").removesuffix(".py")
    host = st.context.headers.get("Host") if st.context.headers else None
    base = f"{'https' if st.context.headers.get('X-Forwarded-Proto') == 'https' else 'http'}://{host}" \
        if host else DEFAULT_BASE_URL
    container.download_button(
        "Tour handout (HTML)", data=lambda: handout_bytes(stem, base),
        file_name=f"{slug(page_title.lower().replace(' ', '-'))}_tour.html", mime="text/html",
        on_click="ignore", icon=":material/description:", key="handout__download",
        help="Every step of this page's tour in one HTML file: narration, interactive "
             "charts, their descriptions, settings and links. Opens offline, without Python. "
             "The first download of a page takes a minute.")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explorer_ui.handout",
                                     description="Write a page's guided tour as one "
                                                 "self-contained HTML file.")
    parser.add_argument("page", help="the page, e.g. lifetime_sweep")
    parser.add_argument("--out", required=True, help="the HTML file to write")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL,
                        help=f"where the app is served, for the step links ({DEFAULT_BASE_URL})")
    args = parser.parse_args(argv)
    out = build(args.page, args.out, base_url=args.base_url)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
