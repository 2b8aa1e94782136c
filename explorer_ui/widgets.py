"""Streamlit helpers shared by the pages: URL state, chart display, user errors.

Widgets, layout and text only: no math here (that lives in ``mondrian_core``).
"""
from __future__ import annotations

import contextlib
import weakref
from collections.abc import Sequence

import streamlit as st

from explorer_ui.echo import plain
from explorer_ui.handout import handout_button, spoken_js
from explorer_ui.navigation import page_title
from explorer_ui.sources import Source, sources_markdown
from explorer_ui.tour import Tour, leave_tour
from mondrian_core.errors import InputError
from mondrian_core.figures.describe import chart_label, describe_figure, figure_csv
from mondrian_core.figures.export import figure_filename, toolbar_config
from mondrian_core.figures.theme import PALETTES, for_display

# ---------------------------------------------------------------- URL state
# A view's parameters live in ``st.query_params`` so that a link reproduces the
# exact picture. Widgets take their first value from the URL (falling back to
# the default, with a notice, when the value is invalid) and write it back.


def _notice_bad_param(name: str, raw: str, default) -> None:
    shown = raw if len(raw) <= 40 else raw[:40] + "\u2026"
    using = "the default" if default is None else default
    # the name and default are the page's own; the value is the visitor's
    st.toast(f"Ignored the link's value {name}={plain(repr(shown))}; using {using}.")


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


def _leaving_tour(kwargs: dict) -> dict:
    """``kwargs`` with an ``on_change`` that also leaves the tour: a widget the user
    moves no longer shows the tour step's point."""
    theirs, args, more = kwargs.pop("on_change", None), kwargs.pop("args", ()), kwargs.pop("kwargs", {})

    def changed():
        leave_tour()
        if theirs is not None:
            theirs(*args, **more)

    return {**kwargs, "on_change": changed}


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
    kwargs = _leaving_tour(kwargs)
    _init(key, _param(key, default, _number_parser(type(default), min_value, max_value)))
    value = container.slider(label, min_value=min_value, max_value=max_value, step=step,
                             key=key, **kwargs)
    st.query_params[key] = str(value)
    return value


def kept_number(key: str, default, *, min_value, max_value):
    """The value a URL-bound number widget drawn later in this run will show, and whether
    it comes from the link.

    The session's (checked when the widget was last drawn), else the link's when it is a
    number in ``[min_value, max_value]``, else ``default`` (no notice: the widget gives it
    when drawn). For a widget whose range depends on one drawn after it (the sweep pages
    size the data by the model's sliders, which sit below the data's).
    """
    value = st.session_state.get(key)
    if isinstance(value, (int, float)):
        return type(default)(value), False
    try:
        return _number_parser(type(default), min_value, max_value)(
            st.query_params.get(key, "")), True
    except (TypeError, ValueError, OverflowError):
        return default, False


def clamp_state(key: str, top) -> None:
    """Lower a widget's kept value to ``top`` when its range shrank below it (a slider
    whose value is above its maximum is an error)."""
    if key in st.session_state and st.session_state[key] > top:
        st.session_state[key] = top


def url_number(label: str, key: str, *, min_value, max_value, default, step=None,
               container=st, **kwargs):
    """A number input kept in the URL under ``key`` (int or float from ``default``)."""
    kwargs = _leaving_tour(kwargs)
    _init(key, _param(key, default, _number_parser(type(default), min_value, max_value)))
    value = container.number_input(label, min_value=min_value, max_value=max_value,
                                   step=step, key=key, **kwargs)
    st.query_params[key] = str(value)
    return value


def url_choice(label: str, key: str, options: Sequence[str], *, default: str,
               widget: str = "selectbox", container=st, leaves_tour: bool = True, **kwargs):
    """A selectbox / radio / segmented control / select slider over strings, kept in the URL.

    ``leaves_tour=False`` for a way of showing the page (not a setting of the view)."""
    kwargs = _leaving_tour(kwargs) if leaves_tour else kwargs

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


def url_toggle(label: str, key: str, *, default: bool, container=st, leaves_tour: bool = True,
               **kwargs) -> bool:
    """A toggle kept in the URL as 1/0 (``leaves_tour`` as for :func:`url_choice`)."""
    kwargs = _leaving_tour(kwargs) if leaves_tour else kwargs

    def parse(raw):
        if raw not in ("0", "1"):
            raise ValueError(raw)
        return raw == "1"

    _init(key, _param(key, default, parse))
    value = container.toggle(label, key=key, **kwargs)
    st.query_params[key] = "1" if value else "0"
    return value


def seed_control(key: str = "seed", *, default: int = 0, container=st) -> int:
    """Seed number input plus a "New" button that draws a fresh seed."""
    _init(key, _param(key, default, lambda raw: _nonneg_int(raw)))

    def new_seed():
        leave_tour()
        st.session_state[key] = (st.session_state[key] * 7919 + 104729) % 1_000_000

    cols = container.columns([3, 2], vertical_alignment="bottom")
    seed = cols[0].number_input("Seed", min_value=0, max_value=999_999, step=1, key=key,
                                help="Same seed, same picture, on every machine.",
                                on_change=leave_tour)
    cols[1].button("New", icon=":material/casino:", on_click=new_seed, key=f"{key}__new",
                   width="stretch", help="Draw a new seed: a new sample of everything random.")
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


def share_link(container=st) -> None:
    """A "Copy link" box: the current URL, which holds every parameter and seed of the view."""
    with container:
        st.caption("**Share this view.** The link holds every setting and seed, so it "
                   "opens the same picture for everyone.")
        st.iframe(_SHARE_HTML, height=40)


# ---------------------------------------------------------------- display


#: The session-state key of the app-wide "chart downloads" choice (see chart_format_control).
CHART_FORMAT_KEY = "chart_format"
_CHART_FORMATS = {"PNG (2x)": "png", "SVG": "svg"}
#: Plotly's toolbar buttons a chart leaves out. Each button is a tab stop (eight per chart
#: by default, about forty on a five-chart page); a student needs the camera (saving the
#: picture) and the reset after a drag-to-zoom, which dragging keeps doing without them.
MODEBAR_REMOVED = ("zoom2d", "pan2d", "select2d", "lasso2d", "zoomIn2d", "zoomOut2d",
                   "autoScale2d", "hoverClosestCartesian", "hoverCompareCartesian",
                   "toggleSpikelines", "zoom3d", "pan3d", "orbitRotation", "tableRotation",
                   "resetCameraLastSave3d", "hoverClosest3d")
#: Height of a page's main chart in projector mode: at least 60% of the viewport on
#: projectors up to 1920x1080 (a chart's height is set in pixels, not in viewport units).
PROJECTOR_CHART_HEIGHT = 660
_PALETTE_LABELS = {"mondrian": "Mondrian", "safe": "Colour-blind safe"}


def chart_format_control(container=st) -> str:
    """The app-wide choice of what every chart's toolbar camera saves: PNG at 2x or SVG.

    Plotly's toolbar has one image button and Streamlit passes its config as JSON (no
    callbacks), so the format is one setting for all charts, kept in session state.
    Every page shows it in its *View & share* popover.
    """
    label = container.radio(
        "Chart downloads (camera in each chart's toolbar)", list(_CHART_FORMATS),
        key=CHART_FORMAT_KEY, horizontal=True,
        help="PNG at twice the on-screen size, or SVG (vector, for print). The file name "
             "says the page, the chart, its parameters and the seed. Saved images leave "
             "out Play buttons and sliders. The numbers a chart draws: its Data (CSV) "
             "button, under the same name.")
    return _CHART_FORMATS[label]


def view_settings(container) -> None:
    """Projector mode, palette, download format and the share link, in one place. The
    first two are ways of showing the page: they stay through tour steps."""
    url_toggle("Projector mode", "projector", default=False, container=container,
               leaves_tour=False,
               help="Figure text of at least 20 px, thicker lines, a taller main chart.")
    url_choice("Palette", "palette", PALETTES, default="mondrian", widget="segmented",
               container=container, leaves_tour=False, format_func=_PALETTE_LABELS.get,
               help="Mondrian's red, blue and yellow, or Okabe and Ito's colours, which stay "
                    "distinct for every kind of colour vision.")
    chart_format_control(container)
    share_link(container)


def projector_mode() -> bool:
    """Whether the session shows pages in projector mode."""
    return bool(st.session_state.get("projector"))


def show_figure(fig, name: str, *, params: dict | None = None, key: str | None = None,
                main: bool = False, **kwargs):
    """Show a plotly figure with its text alternative and a download of its data.

    ``name`` says what the chart is and ``params`` the values it depends on (the seed
    among them); with the page's title they make the file name, e.g.
    ``mondrian-process_partition_lifetime=3_seed=0.png``. The toolbar camera saves the
    picture in the app-wide format (PNG at 2x or SVG, :func:`chart_format_control`);
    the *Data (CSV)* button beside the chart's description saves the numbers it draws
    under the same name (:func:`~mondrian_core.figures.describe.figure_csv`). The
    description (:func:`~mondrian_core.figures.describe.describe_figure`, read from the
    figure's own traces) is shown under the chart and is the chart's accessible
    description for screen readers. The figure is shown in the session's projector mode
    and palette (:func:`~mondrian_core.figures.theme.for_display`); ``main`` marks the
    page's main chart, which projector mode makes taller.
    """
    fmt = _CHART_FORMATS.get(st.session_state.get(CHART_FORMAT_KEY), "png")
    filename = figure_filename(name, params, page=page_title())
    label, text = chart_text(fig, name)
    projector = projector_mode()
    shown = for_display(fig, projector=projector,
                        palette=st.session_state.get("palette") or "mondrian")
    if projector and main:
        shown.update_layout(height=max(shown.layout.height or 450, PROJECTOR_CHART_HEIGHT))
    # theme=None: the figure keeps the app's own template (Streamlit's chart theme
    # would restyle it and drop the right-hand frame line).
    kwargs.setdefault("theme", None)
    config = {**toolbar_config(filename, fmt), "modeBarButtonsToRemove": list(MODEBAR_REMOVED)}
    # one container per chart: the page's script (_CHART_NAMES_JS) names the chart and
    # points it at the description beside it
    with st.container(gap="small"):
        if main:  # marked for the layout tests (tests/e2e/test_lecture.py)
            with st.container(key="main_chart"):
                event = st.plotly_chart(shown, config=config, key=key, **kwargs)
        else:
            event = st.plotly_chart(shown, config=config, key=key, **kwargs)
        said, button = st.columns([5, 1], gap="small")
        said.caption(f"**{label}.** {text}")
        button.download_button(
            "Data (CSV)", data=lambda: figure_csv(fig), file_name=f"{filename}.csv",
            mime="text/csv", on_click="ignore", icon=":material/download:", type="tertiary",
            key=f"csv__{key or filename}",
            help="The numbers this chart draws: one row per point, columns named after "
                 "the axes (with their units).")
    return event


def chart_text(fig, name: str) -> tuple[str, str]:
    """The chart's accessible name and description (see :mod:`mondrian_core.figures.describe`),
    computed once per figure object: the shared cached figures are described once."""
    memo = _DESCRIBED.get(id(fig))
    if memo is not None and memo[0]() is fig and memo[1] == name:
        return memo[2]
    out = chart_label(fig, name), describe_figure(fig, name)
    try:
        _DESCRIBED[id(fig)] = (weakref.ref(fig), name, out)
    except TypeError:  # an object that cannot be weakly referenced: not memoised
        pass
    if len(_DESCRIBED) > 2000:
        for k in [k for k, v in list(_DESCRIBED.items()) if v[0]() is None]:
            _DESCRIBED.pop(k, None)
    return out


_DESCRIBED: dict[int, tuple] = {}


#: A focus ring on whatever the keyboard reaches (WCAG 2.1, 2.4.7): Streamlit marks a
#: focused sidebar link or text field only by a faint background or border colour.
#: app.py adds it to every page, the home page included.
FOCUS_CSS = """<style>
:focus-visible {outline: 3px solid #D40920 !important; outline-offset: 2px;}
[data-testid="stSidebarNav"] a:focus-visible {outline-offset: -3px;}
[data-testid="stNumberInputContainer"]:focus-within, [data-testid="stTextInputRootElement"]:focus-within,
div:has(> div > input[role="combobox"]:focus) {outline: 3px solid #D40920; outline-offset: 1px;}
[data-testid="stNumberInputContainer"] input:focus-visible,
[data-testid="stTextInputRootElement"] input:focus-visible,
input[role="combobox"]:focus-visible {outline: none !important;}
</style>"""


# Compact page chrome, so that a page's main chart starts high enough on a 720 px
# projector; and, for the charts' camera buttons, saving stills: plotly.js copies the
# chart's layout when the camera is clicked, so for that moment the layout goes without
# its Play buttons and sliders (and the bottom margin they needed), as
# ``mondrian_core.figures.export.static_figure`` does for the paper's figures.
_PAGE_CSS = """<style>
.stMainBlockContainer {padding-top: 2.6rem; padding-bottom: 2rem;}
.stMainBlockContainer h1 {font-size: 1.9rem; padding: 0.2rem 0 0 0;}
.stMainBlockContainer h3 {font-size: 1.3rem; padding: 0.4rem 0 0.1rem 0;}
[data-testid="stMetricValue"] {font-size: 1.5rem; white-space: normal; overflow: visible;}
[data-testid="stMetricValue"] > div {overflow: visible; text-overflow: clip; white-space: normal;}
</style>"""
_STILL_EXPORT_JS = """<script>
if (!window.__mondrianStillExport) {
  window.__mondrianStillExport = true;
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest('.modebar-btn[data-title^="Download plot"]');
    const graph = button && button.closest(".js-plotly-plot");
    const layout = graph && graph.layout;
    if (!layout || !((layout.updatemenus || []).length || (layout.sliders || []).length)) return;
    const saved = {updatemenus: layout.updatemenus, sliders: layout.sliders,
                   margin: layout.margin};
    layout.updatemenus = []; layout.sliders = [];
    if (layout.margin) { layout.margin = Object.assign({}, layout.margin); delete layout.margin.b; }
    setTimeout(() => Object.assign(layout, saved), 0);
  }, true);
}
</script>"""

# A screen reader meets a Plotly chart as an SVG full of tick labels. Each chart gets a
# name and a description instead (WCAG 2.1, 1.1.1): the caption show_figure puts beside
# it, which starts with "Chart:". Plotly redraws its SVG, so this runs on every change.
_CHART_NAMES_JS = """<script>
if (!window.__mondrianChartNames) {
  window.__mondrianChartNames = true;
  let counter = 0;
  const name = () => document.querySelectorAll('[data-testid="stPlotlyChart"]').forEach((chart) => {
    let block = chart.parentElement && chart.parentElement.closest('[data-testid="stVerticalBlock"]');
    if (block && block.className.includes('st-key-main_chart'))
      block = block.parentElement.closest('[data-testid="stVerticalBlock"]');
    const text = block && Array.from(block.querySelectorAll('[data-testid="stCaptionContainer"]'))
      .find((c) => c.textContent.startsWith('Chart:'));
    if (!text) return;
    if (!text.id) text.id = 'chart-description-' + (++counter);
    const label = (text.querySelector('strong') || text).textContent.replace(/\\.$/, '');
    if (chart.getAttribute('aria-label') !== label) chart.setAttribute('aria-label', label);
    if (chart.getAttribute('role') !== 'figure') chart.setAttribute('role', 'figure');
    if (chart.getAttribute('aria-describedby') !== text.id) chart.setAttribute('aria-describedby', text.id);
    chart.querySelectorAll('svg.main-svg:not([aria-hidden])')
      .forEach((svg) => svg.setAttribute('aria-hidden', 'true'));
  });
  let pending = false;
  new MutationObserver(() => {
    if (pending) return;
    pending = true;
    setTimeout(() => { pending = false; name(); }, 250);
  }).observe(document.body, {childList: true, subtree: true});
  name();
}
</script>"""

# Streamlit names a control by its label's source, so a screen reader read "True lifetime
# dollar backslash lambda caret star dollar". The labels stay typeset on screen; their
# accessible names get the formulas as plain text (explorer_ui.handout.tex_text).
_SPOKEN_LABELS_JS = """<script>
if (!window.__mondrianSpokenLabels) {
  window.__mondrianSpokenLabels = true;
  const spoken = """ + spoken_js() + """;
  const fix = () => {
    document.querySelectorAll('[aria-label*="$"]').forEach((e) => {
      const label = e.getAttribute('aria-label'), plain = spoken(label);
      if (plain !== label) e.setAttribute('aria-label', plain);
    });
    // a slider is labelled by itself and by its label again ("Points N Points N")
    document.querySelectorAll('input[type="range"][aria-label][aria-labelledby]')
      .forEach((e) => e.removeAttribute('aria-labelledby'));
  };
  new MutationObserver(fix).observe(document.body, {
    childList: true, subtree: true, attributes: true,
    attributeFilter: ['aria-label', 'aria-labelledby']});
  fix();
}
</script>"""


def page_header(title: str, intro: str, *, tour: Tour | None = None,
                sources: Sequence[Source] = ()) -> None:
    """The page's compact header: title, guided-tour button, *View & share* popover,
    the tour's narrative (on a tour), the page's explanation and its sources (both
    folded; see :mod:`explorer_ui.sources`).

    Call it before the page's widgets: it applies the tour step in the URL.
    """
    if tour is not None:
        tour.start()
    st.html(_PAGE_CSS)
    st.html(_STILL_EXPORT_JS + _CHART_NAMES_JS + _SPOKEN_LABELS_JS, unsafe_allow_javascript=True)
    # one row: the title takes what the buttons leave, so it wraps only on narrow screens
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    row.title(title, width="stretch", anchor=False)
    if tour is not None:
        tour.start_button(row)
    view = row.popover("View", icon=":material/tune:",
                       help="Projector mode, palette, chart downloads, share link, tour handout.")
    view_settings(view)
    if tour is not None:
        handout_button(view, title)
    if tour is not None:
        tour.panel()
    with st.expander("About this page", expanded=False):
        st.markdown(intro)
    if sources:
        with st.expander("Sources", expanded=False, icon=":material/menu_book:"):
            st.markdown(sources_markdown(sources))


@contextlib.contextmanager
def user_errors():
    """Show an :class:`InputError` raised inside as a short ``st.error``, then stop.

    The message says what to change; the session keeps working afterwards.
    """
    try:
        yield
    except InputError as err:
        st.error(plain(err))
        st.stop()


def url_range(label: str, key: str, *, min_value: float, max_value: float,
              default: tuple[float, float], step=None, container=st, **kwargs):
    """A two-handle range slider (floats) kept in the URL as ``lo~hi`` under ``key``.

    A stored range outside ``[min_value, max_value]`` (e.g. after the box shrank) is
    clipped into it.
    """
    kwargs = _leaving_tour(kwargs)

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
        st.error(plain(err))
