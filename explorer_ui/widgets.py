"""Streamlit helpers shared by the pages: URL state, chart display, user errors.

Widgets, layout and text only: no math here (that lives in ``mondrian_core``).
"""
from __future__ import annotations

import contextlib
from collections.abc import Sequence

import streamlit as st

from mondrian_core.errors import InputError
from mondrian_core.figures.export import figure_filename, toolbar_config

# ---------------------------------------------------------------- URL state
# A view's parameters live in ``st.query_params`` so that a link reproduces the
# exact picture. Widgets take their first value from the URL (falling back to
# the default, with a notice, when the value is invalid) and write it back.


def _notice_bad_param(name: str, raw: str, default) -> None:
    shown = raw if len(raw) <= 40 else raw[:40] + "\u2026"
    using = "the default" if default is None else default
    st.toast(f"Ignored the link's value {name}={shown!r}; using {using}.")


def url_positive_float(name: str):
    """The URL's value of ``name`` as a finite positive float, or None (absent or invalid,
    with a notice). For parameters whose default is only known later in the run."""

    def parse(raw):
        value = float(raw)
        if not (0 < value < float("inf")):
            raise ValueError(raw)
        return value

    return _param(name, None, parse)


def _param(name: str, default, parse):
    raw = st.query_params.get(name)
    if raw is None:
        return default
    try:
        return parse(raw)
    except (ValueError, TypeError, OverflowError):  # int(float("inf")) overflows
        _notice_bad_param(name, raw, default)
        return default


def _init(key: str, value) -> None:
    if key not in st.session_state:
        st.session_state[key] = value


def _number_parser(kind, min_value, max_value):
    """Parse a URL value as ``kind`` (int or float) within [min_value, max_value]."""

    def parse(raw):
        value = kind(float(raw)) if kind is int else kind(raw)
        if value != value or not (min_value <= value <= max_value):
            raise ValueError(raw)
        return value

    return parse


def url_slider(label: str, key: str, *, min_value, max_value, default, step=None,
               container=st, **kwargs):
    """A slider (int or float, from ``default``'s type) kept in the URL under ``key``."""
    _init(key, _param(key, default, _number_parser(type(default), min_value, max_value)))
    value = container.slider(label, min_value=min_value, max_value=max_value, step=step,
                             key=key, **kwargs)
    st.query_params[key] = str(value)
    return value


def url_number(label: str, key: str, *, min_value, max_value, default, step=None,
               container=st, **kwargs):
    """A number input kept in the URL under ``key`` (int or float from ``default``)."""
    _init(key, _param(key, default, _number_parser(type(default), min_value, max_value)))
    value = container.number_input(label, min_value=min_value, max_value=max_value,
                                   step=step, key=key, **kwargs)
    st.query_params[key] = str(value)
    return value


def url_choice(label: str, key: str, options: Sequence[str], *, default: str,
               widget: str = "selectbox", container=st, **kwargs):
    """A selectbox / radio / segmented control / select slider over strings, kept in the URL."""

    def parse(raw):
        if raw not in options:
            raise ValueError(raw)
        return raw

    _init(key, _param(key, default, parse))
    make = {"selectbox": container.selectbox, "radio": container.radio,
            "segmented": container.segmented_control,
            "select_slider": container.select_slider}[widget]
    value = make(label, options, key=key, **kwargs)
    if value is None:  # a segmented control can be cleared
        value = default
    st.query_params[key] = value
    return value


def url_toggle(label: str, key: str, *, default: bool, container=st, **kwargs) -> bool:
    """A toggle kept in the URL as 1/0."""

    def parse(raw):
        if raw not in ("0", "1"):
            raise ValueError(raw)
        return raw == "1"

    _init(key, _param(key, default, parse))
    value = container.toggle(label, key=key, **kwargs)
    st.query_params[key] = "1" if value else "0"
    return value


def seed_control(key: str = "seed", *, default: int = 0, container=st) -> int:
    """Seed number input plus a "New sample" button that draws a fresh seed."""
    _init(key, _param(key, default, lambda raw: _nonneg_int(raw)))

    def new_seed():
        st.session_state[key] = (st.session_state[key] * 7919 + 104729) % 1_000_000

    cols = container.columns([3, 2], vertical_alignment="bottom")
    seed = cols[0].number_input("Seed", min_value=0, max_value=999_999, step=1, key=key,
                                help="Same seed, same picture, on every machine.")
    cols[1].button("New sample", on_click=new_seed, key=f"{key}__new", width="stretch")
    st.query_params[key] = str(seed)
    return int(seed)


def _nonneg_int(raw: str) -> int:
    value = int(raw)
    if not 0 <= value <= 999_999:
        raise ValueError(raw)
    return value


# The browser's address bar is the one place that always holds the current view (a
# fragment's rerun updates it without running the rest of the page), so the link is read
# there, in the browser, when the button is pressed. Static HTML: nothing from the user.
_SHARE_HTML = """<div style="display:flex;gap:6px;font:14px 'Source Sans Pro',sans-serif">
<input id="link" readonly aria-label="Link to this view" title="Link to this view"
 style="flex:1;min-width:0;padding:4px 6px;border:1px solid #ccc;border-radius:6px;color:#444">
<button id="copy" style="padding:4px 10px;border:1px solid #121212;border-radius:6px;
 background:#fff;cursor:pointer;white-space:nowrap">Copy link</button></div>
<script>
const box = document.getElementById("link"), button = document.getElementById("copy");
const href = () => { try { return window.parent.location.href; } catch (e) { return ""; } };
const refresh = () => { if (document.activeElement !== box) box.value = href(); };
refresh(); setInterval(refresh, 500);
button.onclick = async () => {
  box.value = href(); box.select();
  let copied = false;
  try { await navigator.clipboard.writeText(box.value); copied = true; }
  catch (e) { copied = document.execCommand("copy"); }
  button.textContent = copied ? "Copied \u2713" : "Press Ctrl+C";
  setTimeout(() => { button.textContent = "Copy link"; }, 2000);
};
</script>"""


def share_link(container=st.sidebar) -> None:
    """A "Copy link" box: the current URL, which holds every parameter and seed of the view."""
    with container:
        st.caption("**Share this view.** The link holds every setting and seed, so it "
                   "opens the same picture for everyone.")
        st.iframe(_SHARE_HTML, height=40)


# ---------------------------------------------------------------- display


#: The session-state key of the app-wide "chart downloads" choice (see chart_format_control).
CHART_FORMAT_KEY = "chart_format"
_CHART_FORMATS = {"PNG (2x)": "png", "SVG": "svg"}
_PAGE_KEY = "_chart_page"


def chart_format_control(container=st.sidebar) -> str:
    """The app-wide choice of what every chart's toolbar camera saves: PNG at 2x or SVG.

    Plotly's toolbar has one image button and Streamlit passes its config as JSON (no
    callbacks), so the format is one setting for all charts, kept in session state.
    ``app.py`` shows it in the sidebar of every page.
    """
    label = container.radio(
        "Chart downloads (camera in each chart's toolbar)", list(_CHART_FORMATS),
        key=CHART_FORMAT_KEY, horizontal=True,
        help="PNG at twice the on-screen size, or SVG (vector, for print). The file name "
             "says the page, the chart, its parameters and the seed.")
    return _CHART_FORMATS[label]


def show_figure(fig, name: str, *, params: dict | None = None, key: str | None = None,
                **kwargs):
    """Show a plotly figure whose toolbar camera saves it named after what it shows.

    ``name`` says what the chart is and ``params`` the values it depends on (the seed
    among them); with the page's title they make the file name, e.g.
    ``mondrian-process_partition_lifetime=3_seed=0.png``. The format (PNG at 2x or
    SVG) is the sidebar's app-wide choice (:func:`chart_format_control`).
    """
    fmt = _CHART_FORMATS.get(st.session_state.get(CHART_FORMAT_KEY), "png")
    filename = figure_filename(name, params, page=st.session_state.get(_PAGE_KEY))
    # theme=None: the figure keeps the app's own template (Streamlit's chart theme
    # would restyle it and drop the right-hand frame line).
    kwargs.setdefault("theme", None)
    return st.plotly_chart(fig, config=toolbar_config(filename, fmt), key=key, **kwargs)


def page_header(title: str, intro: str) -> None:
    """The page title and a short explanation of what the page shows."""
    st.session_state[_PAGE_KEY] = title  # names the page's exported charts
    st.title(title)
    st.markdown(intro)


@contextlib.contextmanager
def user_errors():
    """Show an :class:`InputError` raised inside as a short ``st.error``, then stop.

    The message says what to change; the session keeps working afterwards.
    """
    try:
        yield
    except InputError as err:
        st.error(str(err))
        st.stop()


def url_range(label: str, key: str, *, min_value: float, max_value: float,
              default: tuple[float, float], step=None, container=st, **kwargs):
    """A two-handle range slider (floats) kept in the URL as ``lo~hi`` under ``key``.

    A stored range outside ``[min_value, max_value]`` (e.g. after the box shrank) is
    clipped into it.
    """

    def parse(raw):
        lo, hi = (float(v) for v in raw.split("~"))
        if not (lo == lo and hi == hi and lo <= hi):
            raise ValueError(raw)
        return lo, hi

    _init(key, _param(key, default, parse))
    lo, hi = st.session_state[key]
    lo, hi = min(max(lo, min_value), max_value), min(max(hi, min_value), max_value)
    st.session_state[key] = (lo, hi)
    value = container.slider(label, min_value=min_value, max_value=max_value, step=step,
                             key=key, **kwargs)
    st.query_params[key] = f"{value[0]:g}~{value[1]:g}"
    return value


@contextlib.contextmanager
def section_errors():
    """Like :func:`user_errors`, but only the current section stops: the message is
    shown and the rest of the page still runs."""
    try:
        yield
    except InputError as err:
        st.error(str(err))
