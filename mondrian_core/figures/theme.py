"""The one look of Mondrian Explorer: Mondrian's red, blue, yellow and black on white.

Figure builders call :func:`styled` on the figures they return (or pass
``template=TEMPLATE``); pages never restyle figures.
"""
from __future__ import annotations

import plotly.graph_objects as go

from mondrian_core._docstrings import docfiller, params

RED = "#D40920"
BLUE = "#1356A2"
YELLOW = "#F7D842"
BLACK = "#121212"
GREY = "#8A8A8A"
LIGHT_GREY = "#E6E6E6"
WHITE = "#FFFFFF"

#: Colours in the order series take them (kernel/method comparisons).
SERIES = [BLUE, RED, "#E0A800", BLACK, "#2A9D8F", "#7B3294", GREY]
#: Cell fills for partitions (white dominates, as in Mondrian's paintings).
CELL_FILLS = [WHITE, WHITE, RED, WHITE, BLUE, WHITE, YELLOW, WHITE, WHITE, LIGHT_GREY]
#: Sequential scale for kernel matrices and surfaces (white -> blue -> black).
SEQUENTIAL = [[0.0, WHITE], [0.5, BLUE], [1.0, BLACK]]
#: Diverging scale for differences (blue -> white -> red).
DIVERGING = [[0.0, BLUE], [0.5, WHITE], [1.0, RED]]

FONT_FAMILY = "Helvetica Neue, Helvetica, Arial, sans-serif"

TEMPLATE = go.layout.Template(
    layout=go.Layout(
        font=dict(family=FONT_FAMILY, size=14, color=BLACK),
        title=dict(font=dict(size=16)),
        paper_bgcolor=WHITE,
        plot_bgcolor=WHITE,
        colorway=SERIES,
        margin=dict(l=60, r=40, t=50, b=55),
        xaxis=dict(showline=True, linecolor=BLACK, linewidth=1.5, mirror=True, ticks="outside",
                   gridcolor=LIGHT_GREY, zeroline=False, automargin=True),
        yaxis=dict(showline=True, linecolor=BLACK, linewidth=1.5, mirror=True, ticks="outside",
                   gridcolor=LIGHT_GREY, zeroline=False, automargin=True),
        legend=dict(bgcolor="rgba(255,255,255,0.85)", bordercolor=LIGHT_GREY, borderwidth=1),
        hoverlabel=dict(font=dict(family=FONT_FAMILY)),
        coloraxis=dict(colorscale=SEQUENTIAL),
    )
)


def styled(fig: go.Figure, *, title: str | None = None, height: int | None = None) -> go.Figure:
    """Apply the app's template (and optionally a title and height) to ``fig``.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, changed in place.
    title : str, optional
        A title, left-aligned.
    height : int, optional
        The height in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``.
    """
    fig.update_layout(template=TEMPLATE)
    if title is not None:
        fig.update_layout(title=dict(text=title, x=0.01, xanchor="left"))
    if height is not None:
        fig.update_layout(height=height)
    return fig


def styled_layout(layout: dict, *, title: str | None = None,
                  height: int | None = None) -> dict:
    """Return what :func:`styled` sets, written into a layout dict.

    For builders that assemble a figure as dicts and validate it once.

    Parameters
    ----------
    layout : dict
        The layout (not changed).
    title : str, optional
        A title, left-aligned (merged into ``layout``'s own title settings).
    height : int, optional
        The height in pixels.

    Returns
    -------
    dict
        A new layout: ``layout`` with the app's template, the title and the height.
    """
    styled_ = {**layout, "template": TEMPLATE}
    if title is not None:
        styled_["title"] = {**layout.get("title", {}), "text": title, "x": 0.01,
                            "xanchor": "left"}
    if height is not None:
        styled_["height"] = height
    return styled_


def legend_below(fig: go.Figure, *, gap: int = 80, legend_height: int = 30) -> go.Figure:
    """Put a horizontal legend below the plot area and make the bottom margin hold it.

    The legend sits ``gap`` pixels below the plot area (clear of the x-axis tick
    labels and title), at the figure's height. Call after :func:`styled` (it reads
    the figure's height and top margin).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, changed in place.
    gap : int, default=80
        Pixels between the plot area and the legend.
    legend_height : int, default=30
        Pixels the legend takes.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``.
    """
    bottom, legend = _legend_placement(fig.layout.height, fig.layout.margin.t, gap,
                                       legend_height)
    fig.update_layout(margin=dict(b=bottom), legend=legend)
    return fig


def _legend_placement(height, top, gap, legend_height):
    """The bottom margin and the legend's placement of :func:`legend_below`, for a figure
    of ``height`` (None: plotly's default) and top margin ``top`` (None: the template's)."""
    height = height or 450  # plotly's default height
    top = top if top is not None else TEMPLATE.layout.margin.t
    bottom = gap + legend_height + 10
    return bottom, dict(orientation="h", yanchor="top", xanchor="left", x=0,
                        y=-gap / max(height - top - bottom, 1))


@docfiller({"legend": params(legend_below.__doc__, "gap", "legend_height")})
def legend_below_layout(layout: dict, *, gap: int = 80, legend_height: int = 30) -> dict:
    """Return what :func:`legend_below` sets, written into a layout dict.

    For builders that assemble a figure as dicts and validate it once (``legend_below``
    on the figure validates its layout again, ~3 ms). Call on the styled layout (it
    reads the height and the top margin).

    Parameters
    ----------
    layout : dict
        The layout (not changed).
    %(legend)s

    Returns
    -------
    dict
        A new layout: ``layout`` with the legend below the plot and the bottom margin.
    """
    margin = layout.get("margin", {})
    bottom, legend = _legend_placement(layout.get("height"), margin.get("t"), gap,
                                       legend_height)
    return {**layout, "margin": {**margin, "b": bottom},
            "legend": {**layout.get("legend", {}), **legend}}


# ---------------------------------------------------------------- display variants

#: Smallest figure text, in CSS pixels, at normal size and in projector mode.
MIN_FONT = 12
PROJECTOR_FONT = 20
#: Okabe and Ito's colour-blind-safe colours for each colour of the app's own palette
#: (black, grey and white stay: they differ in lightness for every kind of colour vision).
SAFE_COLOURS = {RED: "#D55E00", BLUE: "#0072B2", YELLOW: "#F0E442", "#E0A800": "#E69F00",
                "#2A9D8F": "#009E73", "#7B3294": "#CC79A7"}
PALETTES = ("mondrian", "safe")
_FONT_KEYS = ("font", "tickfont", "textfont", "insidetextfont", "outsidetextfont")


def _rgb(colour: str) -> tuple[int, int, int] | None:
    text = colour.strip().lower()
    if text.startswith("#") and len(text) == 7:
        return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))
    if text.startswith(("rgb(", "rgba(")):
        parts = text[text.index("(") + 1:text.rindex(")")].split(",")
        try:
            return tuple(int(float(p)) for p in parts[:3])
        except ValueError:
            return None
    return None


def _recolour(value: str, table: dict) -> str:
    rgb = _rgb(value)
    if rgb is None or rgb not in table:
        return value
    new = table[rgb]
    if value.strip().lower().startswith("rgba("):
        alpha = value[value.rindex(",") + 1:value.rindex(")")].strip()
        return f"rgba({new[0]}, {new[1]}, {new[2]}, {alpha})"
    return "#" + "".join(f"{c:02X}" for c in new)


def _walk(node, *, scale: float, floor: float, table: dict, thicken: bool, parent: str = ""):
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in ("x", "y", "z", "customdata", "ids", "bdata", "hovertemplate"):
                out[key] = value  # data, never styling: skip it (fast on big traces)
                continue
            out[key] = _walk(value, scale=scale, floor=floor, table=table, thicken=thicken,
                             parent=key)
        if parent in _FONT_KEYS or parent == "title_font":
            size = out.get("size")
            if isinstance(size, (int, float)):
                out["size"] = max(size * scale, floor)
        if thicken and parent == "line" and isinstance(out.get("width"), (int, float)):
            out["width"] = out["width"] * 2
        if thicken and parent == "marker" and isinstance(out.get("size"), (int, float)):
            out["size"] = out["size"] * 1.5
        return out
    if isinstance(node, list):
        return [_walk(v, scale=scale, floor=floor, table=table, thicken=thicken, parent=parent)
                for v in node]
    if isinstance(node, str) and table and ("#" in node or "rgb" in node):
        return _recolour(node, table)
    return node


def for_display(fig: go.Figure, *, projector: bool = False, palette: str = "mondrian") -> go.Figure:
    """``fig`` as a page shows it: in projector mode and/or the colour-blind-safe palette.

    Projector mode scales every font so that none is smaller than
    :data:`PROJECTOR_FONT` pixels, doubles line widths and makes markers 1.5 times as
    large. The ``"safe"`` palette swaps each of the app's colours (in traces, shapes,
    annotations and colour scales) for its Okabe-Ito counterpart (:data:`SAFE_COLOURS`).
    At normal size in the app's palette the figure is returned as it is.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure (not changed).
    projector : bool, default=False
        Large text, thick lines.
    palette : {"mondrian", "safe"}, default="mondrian"
        The colours.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig`` itself if nothing changes, else a new figure.

    Raises
    ------
    ValueError
        If ``palette`` is not one of :data:`PALETTES`.
    """
    if palette not in PALETTES:
        raise ValueError(f"palette must be one of {PALETTES}, not {palette!r}")
    if not projector and palette == "mondrian":
        return fig
    table = ({_rgb(k): _rgb(v) for k, v in SAFE_COLOURS.items()} if palette == "safe" else {})
    spec = fig.to_plotly_json()
    base = (spec.get("layout", {}).get("font") or {}).get("size") or TEMPLATE.layout.font.size
    scale = PROJECTOR_FONT / min(base, MIN_FONT + 2) if projector else 1.0
    floor = PROJECTOR_FONT if projector else 0.0
    spec = _walk(spec, scale=scale, floor=floor, table=table, thicken=projector)
    if projector:
        layout = spec.setdefault("layout", {})
        font = dict(layout.get("font") or {})
        font["size"] = max(font.get("size") or base, PROJECTOR_FONT)
        layout["font"] = font
        for trace in spec.get("data", []):
            if trace.get("type", "scatter") == "scatter" and "width" not in trace.get("line", {}):
                trace["line"] = {**trace.get("line", {}), "width": 4}  # plotly's default is 2
    return go.Figure(spec, skip_invalid=True)


def font_sizes(fig: go.Figure) -> list[float]:
    """Every font size a figure sets or inherits for the text it draws.

    The sizes set anywhere in the figure (layout, axes, legend, annotations, traces,
    colour bars, controls and the template), and the layout's base size, which text
    without a size of its own inherits.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.

    Returns
    -------
    list of float
        The sizes in pixels.
    """
    spec = fig.to_plotly_json()
    sizes = []

    def visit(node, parent=""):
        if isinstance(node, dict):
            if parent in _FONT_KEYS and isinstance(node.get("size"), (int, float)):
                sizes.append(float(node["size"]))
            for key, value in node.items():
                if key not in ("x", "y", "z", "customdata", "bdata"):
                    visit(value, key)
        elif isinstance(node, list):
            for value in node:
                visit(value, parent)

    visit(spec)
    base = (spec.get("layout", {}).get("font") or {}).get("size")
    sizes.append(float(base) if base else float(TEMPLATE.layout.font.size))
    return sizes
