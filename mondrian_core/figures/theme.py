"""The one look of Mondrian Explorer: Mondrian's red, blue, yellow and black on white.

Figure builders call :func:`styled` on the figures they return (or pass
``template=TEMPLATE``); pages never restyle figures.
"""
from __future__ import annotations

import plotly.graph_objects as go

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
    height = fig.layout.height or 450  # plotly's default height
    top = fig.layout.margin.t if fig.layout.margin.t is not None else TEMPLATE.layout.margin.t
    bottom = gap + legend_height + 10
    fig.update_layout(margin=dict(b=bottom),
                      legend=dict(orientation="h", yanchor="top", xanchor="left", x=0,
                                  y=-gap / max(height - top - bottom, 1)))
    return fig
