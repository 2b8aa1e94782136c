"""Figures out of the app: file names, the chart toolbar's image options, static export.

- :func:`figure_filename` names an exported chart after what it shows (page, chart,
  parameters, seed); the pages' toolbars and the paper-figure command both use it.
- :func:`toolbar_config` is the plotly ``config`` that makes a chart's camera button
  save a PNG at 2x (or an SVG) under that name.
- :func:`render_figures` writes figures to PNG and SVG files with plotly.js in
  headless Chromium (through Playwright, imported only when called, so the core
  imports without it; no kaleido).
"""
from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from urllib.parse import unquote

import plotly.graph_objects as go

#: Formats the camera button can save, with the scale each uses.
FORMATS = {"png": 2, "svg": 1}
#: Size of an exported figure whose layout does not set one (pixels at scale 1).
DEFAULT_WIDTH, DEFAULT_HEIGHT = 900, 500
#: Longest file name (without the extension) :func:`figure_filename` makes.
MAX_NAME = 180
#: Debian's Chromium (``$CHROMIUM_PATH`` to use another) and its headless flags; the
#: browser tests and benchmarks launch it the same way (tests/e2e/conftest.py).
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def _value(v) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def slug(text: str) -> str:
    """Replace runs of characters other than letters, digits and ``.=-`` by ``_``.

    Parameters
    ----------
    text : str
        Any text.

    Returns
    -------
    str
        The text, safe in file names, without leading or trailing ``_``.
    """
    return re.sub(r"[^A-Za-z0-9.=-]+", "_", text).strip("_")


def figure_filename(name: str, params: Mapping | None = None, *, page: str | None = None) -> str:
    """Name a chart's file (no extension) after what it shows.

    For example ``kernel-convergence_kernel-slice_seed=0_lam=10_m=50``: ``page``
    and ``name`` are made lower-case words joined by ``-``; each parameter becomes
    ``key=value`` (floats to 4 significant digits, booleans 1/0), the seed first.
    Characters that file systems or browsers dislike become ``_``; the name is cut
    at :data:`MAX_NAME` characters.

    Parameters
    ----------
    name : str
        The chart's name.
    params : mapping, optional
        The parameters the chart depends on.
    page : str, optional
        The page the chart is on.

    Returns
    -------
    str
        The file name, without extension.
    """
    head = [slug(p.lower().replace(" ", "-")) for p in (page, name) if p]
    # the seed first, so that cutting a long name never loses it
    items = sorted((params or {}).items(), key=lambda kv: kv[0] != "seed")
    tail = [slug(f"{k}={_value(v)}") for k, v in items]
    return "_".join(p for p in head + tail if p)[:MAX_NAME].rstrip("_")


def toolbar_config(filename: str, fmt: str = "png") -> dict:
    """Return the plotly ``config`` whose camera button saves ``filename.<fmt>``.

    Parameters
    ----------
    filename : str
        The file name without extension (see :func:`figure_filename`).
    fmt : {"png", "svg"}, default="png"
        The format; PNGs are saved at 2x.

    Returns
    -------
    dict
        The config for ``st.plotly_chart`` or ``plotly.io.show``.

    Raises
    ------
    ValueError
        If the format is not one of :data:`FORMATS`.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {sorted(FORMATS)}, not {fmt!r}")
    return {"displaylogo": False,
            "toImageButtonOptions": {"format": fmt, "scale": FORMATS[fmt], "filename": filename}}


def static_figure(fig: go.Figure) -> go.Figure:
    """Copy ``fig`` without what only works on screen, for a still image.

    Animation frames, play buttons and sliders are dropped.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.

    Returns
    -------
    plotly.graph_objects.Figure
        The still copy; ``fig`` is unchanged.
    """
    out = go.Figure(fig)
    if fig.layout.updatemenus or fig.layout.sliders:
        # the builder's bottom margin made room for the controls: back to the template's
        # (axis titles and legends still push the margin as they need)
        out.layout.margin.b = None
    out.frames = ()
    out.layout.updatemenus = ()
    out.layout.sliders = ()
    return out


def figure_size(fig: go.Figure) -> tuple[int, int]:
    """Return the size in CSS pixels that a figure is exported at.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.

    Returns
    -------
    tuple of (int, int)
        Width and height: its layout's, or :data:`DEFAULT_WIDTH` x
        :data:`DEFAULT_HEIGHT`.
    """
    return (int(fig.layout.width or DEFAULT_WIDTH), int(fig.layout.height or DEFAULT_HEIGHT))


_RENDER_JS = """async ([spec, fmt, width, height, scale]) => {
  const fig = JSON.parse(spec);
  return await Plotly.toImage({data: fig.data, layout: fig.layout, config: {}},
                              {format: fmt, width: width, height: height, scale: scale});
}"""


def render_figures(figures: Iterable[tuple[str, go.Figure]], out_dir, *,
                   formats: Iterable[str] = ("png", "svg"), scale: float = 2.0,
                   progress: Callable[[int, str], None] | None = None) -> list[Path]:
    """Write each ``(stem, figure)`` as ``out_dir/stem.<format>``.

    Figures are drawn by plotly.js (the copy inside the plotly package, loaded
    offline) in headless Chromium, at their layout's size (:func:`figure_size`);
    PNGs at ``scale`` times that many pixels. ``progress(i, stem)`` is called after
    each figure. Needs Playwright (requirements-dev.txt) and Chromium at
    ``$CHROMIUM_PATH`` (default ``/usr/bin/chromium``); ``figures`` may be a
    generator, so figures can be computed while the browser is open.

    Parameters
    ----------
    figures : iterable of (str, plotly.graph_objects.Figure)
        File stems and figures.
    out_dir : str or path
        The folder, created if missing.
    formats : iterable of str, default=("png", "svg")
        The formats to write.
    scale : float, default=2.0
        PNG pixels per CSS pixel.
    progress : callable, optional
        Called as ``progress(i, stem)`` after each figure.

    Returns
    -------
    list of pathlib.Path
        The files written.

    Raises
    ------
    FileNotFoundError
        If Chromium is not found.
    """
    from playwright.sync_api import sync_playwright  # lazy: the core runs without it
    from plotly.offline import get_plotlyjs

    formats = list(formats)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if not Path(CHROMIUM).exists():
        raise FileNotFoundError(f"Chromium not found at {CHROMIUM}: apt-get install chromium "
                                "(or set CHROMIUM_PATH).")
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.set_content("<html><head><meta charset='utf-8'></head><body></body></html>")
            page.add_script_tag(content=get_plotlyjs())
            for i, (stem, fig) in enumerate(figures):
                fig = static_figure(fig)
                width, height = figure_size(fig)
                for fmt in formats:
                    url = page.evaluate(_RENDER_JS, [fig.to_json(), fmt, width, height,
                                                     scale if fmt == "png" else 1])
                    path = out / f"{stem}.{fmt}"
                    path.write_bytes(_decode_data_url(url))
                    written.append(path)
                if progress is not None:
                    progress(i + 1, stem)
        finally:
            browser.close()
    return written


def _decode_data_url(url: str) -> bytes:
    """The bytes of a ``data:`` URL as plotly.js returns them (base64 PNG, escaped SVG)."""
    head, _, body = url.partition(",")
    if head.endswith(";base64"):
        return base64.b64decode(body)
    return unquote(body).encode("utf-8")


__all__ = ["FORMATS", "figure_filename", "toolbar_config", "static_figure", "figure_size",
           "render_figures", "slug"]
