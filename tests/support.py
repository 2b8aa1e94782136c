"""What the tests share: running a page headlessly (Streamlit's AppTest), driving the
served app in a browser (Playwright), small settings per page, and the malformed inputs.

Test modules import from here, never from one another nor from a ``conftest.py`` (which
holds pytest fixtures only). A new page needs an entry in :data:`SMALL` only if its
defaults are slow to run.
"""
from __future__ import annotations

import pickle
import struct
from pathlib import Path

from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from bench._browser import (  # noqa: F401 (shared with the bench)
    FINGERPRINT_JS,
    IDLE_JS,
    RUNS_JS,
    serve_app,
)
from explorer_ui.navigation import VIEWS
from mondrian_core import datasets as ds
from mondrian_core.errors import InputError
from mondrian_core.figures.export import CHROMIUM, CHROMIUM_ARGS  # noqa: F401 (shared)

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "tests" / "e2e" / "screenshots"

# ================================================================ pages without a browser

#: every page of the app (``app.py`` is the home page, not listed), in navigation order
PAGES = [view.path for view in VIEWS]


def run_page(relative_path: str, *, query: dict | None = None, timeout: float = 60) -> AppTest:
    """Run ``pages/<file>.py`` (or ``app.py``) as Streamlit would, and return the AppTest."""
    at = AppTest.from_file(str(ROOT / relative_path), default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def assert_clean(at: AppTest) -> None:
    """The run raised nothing and showed no error box."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def chart_specs(at: AppTest) -> list[str]:
    """The Plotly charts the run shows, in page order, as their JSON specs: two runs
    showing the same pictures give equal lists."""
    return [chart.proto.spec for chart in at.get("plotly_chart")]


#: page -> link values that keep its AppTest runs small (its defaults, where they are fast).
SMALL: dict[str, dict[str, str]] = {
    "pages/mondrian_process.py": {},
    "pages/kernel_convergence.py": {"n": "40", "m": "10", "m5": "10", "r5": "2", "m6": "5",
                                    "r6": "1", "d6": "tips"},
    "pages/lifetime_sweep.py": {"data_gp1d_n": "200", "data_gp2d_n": "300", "trees": "10"},
    "pages/lifetime_posterior.py": {"data_gp1d_n": "200", "data_gp2d_n": "300", "trees": "10"},
    "pages/partition_gp.py": {},
    "pages/kernel_vs_forest.py": {"trees": "5", "nlam": "5", "terminal": "1.0"},
    "pages/online_forest.py": {"data_moons_n": "140", "batch": "25", "trees": "3"},
    "pages/inference.py": {"n": "300", "trees": "10", "bias_reps": "10", "clt_reps": "50",
                           "rate_reps": "5"},
    "pages/amf.py": {"n": "200", "trees": "3"},
}


def small(page: str) -> dict[str, str]:
    """A copy of the page's small link values ({} for a page not listed: its defaults)."""
    return dict(SMALL.get(page, {}))


#: Figure 8 at scale takes minutes on a shared machine: the app tests give the Lifetime
#: sweep page a tiny configuration of the same experiment (the claim test runs the real one).
TINY_FIGURE8 = dict(n_points=300, n_dims=5, noise_std=0.1, n_trees=5, n_cells=10,
                    noise_variance=0.01, prior_variance=1.0, max_evals=4, random_state=0)


def use_tiny_figure8(monkeypatch) -> None:
    """Point the Lifetime sweep page at :data:`TINY_FIGURE8` and compute it first, so a
    page run shows the finished table instead of polling the background job."""
    import explorer_ui.defaults_lifetime_sweep as defaults
    from explorer_ui.compute import start_in_background
    from explorer_ui.sweep_page import figure8_task

    monkeypatch.setattr(defaults, "FIGURE8", TINY_FIGURE8)
    job = start_in_background(*figure8_task(TINY_FIGURE8))
    assert job.done.wait(120), "the tiny Figure 8 did not finish"
    assert job.error is None, job.error


def lifetime_sweep_default_path(seed=None):
    """The Lifetime sweep page's sweep at its defaults, computed with ``mondrian_core``
    alone (the claim test checks it; the page's AppTest checks the page shows it): a 1-D
    Laplace-GP draw (synthetic sets are not standardised by the page), its seeded
    60/20/20 split, the rounded terminal lifetime. The page's one seed draws the data,
    the split and the Mondrians; ``seed=None`` is the page's default seed."""
    from explorer_ui import defaults_lifetime_sweep as D
    from explorer_ui.data import SPLITS
    from mondrian_core import laplace_gp, lifetime_path
    from mondrian_core.sweep import lifetime_for_cells

    seed = D.SEED if seed is None else seed
    data_seed = D.DATA_SEED if seed == D.SEED else seed
    data = laplace_gp(D.DATA_POINTS, 1, D.TRUE_LIFETIME, D.DATA_NOISE_STD,
                      random_state=data_seed)
    train, val, _ = ds.train_val_test_split(data, SPLITS["validate"], random_state=seed)
    terminal = float(f"{lifetime_for_cells(train.X, D.CELLS):.3g}")
    return lifetime_path(train.X, train.y, val.X, val.y, terminal_lifetime=terminal,
                         n_trees=D.N_TREES, noise_variance=D.NOISE_VARIANCE,
                         prior_variance=D.PRIOR_VARIANCE, random_state=seed)


# ================================================================ the app in a browser


def wait_for_app(page, timeout: float = 30_000) -> None:
    """Wait until a script run has finished since the page loaded and the app is idle.

    Right after ``page.goto`` this is the page's first run. After an action that reruns
    the script the page can look idle before the server announces the rerun: read
    :func:`finished_runs` before the action and call :func:`wait_for_rerun` after it.
    """
    page.wait_for_function(f"() => {IDLE_JS}", timeout=timeout)


def wait_for_charts(page, n: int = 1, timeout: float = 120_000) -> None:
    """Wait until the page shows at least ``n`` charts, every one drawn by Plotly (its
    ``.main-svg``), and the app is idle."""
    page.wait_for_function(
        "(n) => { const c = [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')];"
        f" return c.length >= n && c.every(e => e.querySelector('.main-svg')) && {IDLE_JS}; }}",
        arg=n, timeout=timeout)


def finished_runs(page) -> int:
    """How many script runs have finished since the page loaded (see :data:`RUNS_JS`)."""
    return page.evaluate(f"() => {RUNS_JS}")


def wait_for_rerun(page, before: int, timeout: float = 60_000) -> None:
    """Wait until a run has finished since :func:`finished_runs` returned ``before``, and
    the app is idle again."""
    page.wait_for_function(f"(before) => ({RUNS_JS}) > before && {IDLE_JS}",
                           arg=before, timeout=timeout)


def wait_for_change(page, read_js: str, before, timeout: float = 30_000) -> None:
    """Wait until ``read_js`` (a JavaScript function of no arguments, e.g. reading what a
    chart draws) returns something other than ``before``: after the run that changed the
    data, Plotly redraws the chart a moment later."""
    page.wait_for_function(
        f"(b) => JSON.stringify(({read_js})()) !== JSON.stringify(b)", arg=before,
        timeout=timeout)


def wait_for_link_value(page, key: str, slider, timeout: float = 60_000) -> None:
    """After key presses on a slider faster than the app reruns: wait until the link's
    ``key`` holds the slider's current value (the run of the last press has written it),
    then until the app is idle."""
    page.wait_for_function(
        """([key, el]) => {
          const v = new URLSearchParams(location.search).get(key);
          // a select slider's value is an index; its aria-valuetext is the value shown
          const want = parseFloat(el.getAttribute('aria-valuetext') ?? el.value);
          return v !== null && Math.abs(parseFloat(v) - want) <= 1e-9 * Math.max(1, Math.abs(want));
        }""", arg=[key, slider.element_handle()], timeout=timeout)
    wait_for_app(page, timeout=timeout)


def step_slider(page, slider, steps: int, key: str = "ArrowRight") -> None:
    """Move a Streamlit slider ``steps`` notches with the keyboard (``key``: ArrowRight or
    ArrowLeft), letting each rerun finish (a real user's arrow-key presses)."""
    for _ in range(steps):
        before = finished_runs(page)
        slider.focus()
        page.keyboard.press(key)
        wait_for_rerun(page, before)


def assert_no_exception(page) -> None:
    """No Streamlit exception box and no error-level message on the page."""
    assert page.locator('[data-testid="stException"]').count() == 0


def screenshot(page, name: str, *, full: bool = True) -> Path:
    """Save a PNG of the page; ``full`` grows the viewport to the whole app first.

    Streamlit scrolls inside its own container, so Playwright's ``full_page`` sees
    only the window: the viewport is stretched to the content's height instead.
    """
    SHOTS.mkdir(exist_ok=True)
    path = SHOTS / f"{name}.png"
    size = page.viewport_size
    if full and size:
        height = page.evaluate(
            "() => Math.max(...Array.from(document.querySelectorAll("
            "'[data-testid=\"stMain\"], [data-testid=\"stAppViewContainer\"], section.main'),"
            " e => e.scrollHeight), document.body.scrollHeight)"
        )
        page.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, 12000)})
        # two painted frames: the charts have laid out at the new size
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.screenshot(path=str(path), full_page=True)
    if full and size:
        page.set_viewport_size(size)
    return path


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) in pixels of a PNG file's bytes, after checking it is a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    return struct.unpack(">II", data[16:24])


def chart_fingerprints(page) -> list[str]:
    """One fingerprint per Plotly chart on the page, in page order (see
    :data:`bench._browser.FINGERPRINT_JS`): two charts showing the same data, shapes
    and title have the same fingerprint."""
    return page.evaluate(FINGERPRINT_JS)


# ================================================================ bad input

#: Words that tell the user what to do (or what a value must be).
ACTIONS = ("use ", "upload", "choose", "remove", "rename", "check", "save", "export", "rescale",
           "clean", "give", "add ", "raise", "pass ", "widen", "separate", "must", "need",
           "at least", "at most", "impute", "quote", "fewer", "smaller")


def assert_actionable(err: InputError) -> None:
    """A short message, no traceback or internals, that says what to change."""
    text = str(err)
    assert 10 < len(text) < 600, text
    assert "Traceback" not in text and "File \"" not in text, text
    assert any(word in text.lower() for word in ACTIONS), text


NAMES = ["a", "b", "y", "x 1", "Größe", "a", "", "名前", "=SUM(A1)"]
CELLS = ["1", "-2.5", "3e2", "1e300", "-1e300", "1e999", "nan", "inf", "-inf", "", "NA", "x",
         "\"4,5\"", "'6'", "7;8", "True", "0x1F", "1,5", " 9 ", "__import__('os')",
         "=cmd|' /C calc'!A0"]


@st.composite
def malformed_csv(draw) -> bytes:
    """Table-shaped text with any of the usual mistakes, encoded in some way."""
    n_cols = draw(st.integers(1, 5))
    header = draw(st.lists(st.sampled_from(NAMES), min_size=n_cols, max_size=n_cols))
    n_rows = draw(st.integers(0, 25))
    rows = draw(st.lists(st.lists(st.sampled_from(CELLS), min_size=max(1, n_cols - 1),
                                  max_size=n_cols + 1), min_size=n_rows, max_size=n_rows))
    sep = draw(st.sampled_from([",", ";", "\t", "|", " ", ":"]))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = newline.join(sep.join(r) for r in [header, *rows])
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "latin-1", "utf-16", "cp1252"]))
    return text.encode(encoding, errors="replace")


def table_bytes(n=15, cols=("a", "b", "y"), sep=","):
    rows = [sep.join(str((i * (j + 3)) % 7 + j) for j in range(len(cols))) for i in range(n)]
    return (sep.join(cols) + "\n" + "\n".join(rows) + "\n").encode()


GOOD = table_bytes()

#: (what, bytes, words the message must contain): one row per way a CSV can be malformed.
BAD_CSVS = [
    ("empty file", b"", "empty"),
    ("only white space", b" \n\r\n\t", "empty"),
    ("header only", b"a,b,y\n", "no data rows"),
    ("one row", b"a,b,y\n1,2,3\n", "at least 10"),
    ("one column", b"a\n" + b"1\n" * 20, "Separate the columns"),
    ("space-delimited", table_bytes(sep=" "), "Separate the columns"),
    ("colon-delimited", table_bytes(sep=":"), "Separate the columns"),
    ("decimal comma, ; delimiter", b"a;b;y\n" + b"1,5;2,5;3\n" * 15, "decimal point"),
    ("decimal comma, , delimiter", b"a,b,y\n" + b"1,5,2,5,3\n" * 15, "more fields"),
    ("all text columns", b"a,b\n" + b"x,y\n" * 15, "no numeric column"),
    ("duplicated header", b"a,a,y\n" + b"1,2,3\n" * 15, "Rename the duplicates"),
    ("duplicated header up to spaces", b"a, a ,y\n" + b"1,2,3\n" * 15, "Rename"),
    ("ragged: long rows", GOOD + b"1,2,3,4,5\n", "as many fields as the header"),
    ("ragged: short rows", b"a,b,y\n" + b"1,2\n" * 15, "'y' have no numeric values"),
    ("unclosed quote", b'a,b,y\n"1,2,3\n' + GOOD[6:], "as many fields"),
    ("non-UTF-8 (latin-1)", b"a,b,y\n" + "é,1,2\n".encode("latin-1") + GOOD[6:],
     "CSV UTF-8"),
    ("UTF-16 with BOM", GOOD.decode().encode("utf-16"), "CSV UTF-8"),
    ("binary (NUL bytes)", b"a,b\n1,\x002\n" * 15, "export the table as CSV"),
    ("numbers beyond 1.8e308 (inf)", b"a,b,y\n" + b"1e400,1,2\n" * 15 + b"1,2,3\n",
     "infinite values"),
    ("too few complete rows (NaN)", b"a,b\n" + b"1,2\n" * 8 + b"nan,1\n" * 5,
     "8 complete rows"),
    ("HTML page", b"<html><body><table><tr><td>1</td></tr></table></body></html>",
     "Separate the columns"),
    ("JSON", b'{"a": [1, 2, 3], "b": [4, 5, 6]}', "no data rows"),
    ("a pickle", pickle.dumps({"a": [1, 2, 3]}), "export the table as CSV"),
    ("more than CSV_MAX_ROWS rows", b"a,b\n" + b"1,2\n" * (ds.CSV_MAX_ROWS + 1), "rows"),
]
