"""Pieces the figure builders share: their documented ``height`` and return value,
line segments and box outlines as one trace's coordinates, an uncertainty band, and a
labelled vertical line on a log x axis.

Private to ``mondrian_core.figures`` (its names are public for its modules).
"""
from __future__ import annotations

import inspect

import numpy as np
import plotly.graph_objects as go

from mondrian_core.figures.theme import BLACK

__all__ = ["figure_builder", "polyline", "rectangles", "band", "log_x_marker"]

#: The Returns section of every builder (:func:`figure_builder`), one line a list item.
_RETURNS = ["Returns", "-------", "plotly.graph_objects.Figure", "    The styled figure."]


def _is_header(lines: list[str], i: int, indent: str) -> bool:
    """Whether ``lines[i]`` is a numpydoc section title (underlined by dashes)."""
    return (i + 1 < len(lines) and lines[i].startswith(indent) and lines[i].strip() != ""
            and not lines[i][len(indent)].isspace() and lines[i + 1].strip() != ""
            and set(lines[i + 1].strip()) == {"-"})


def figure_builder(builder):
    """Write a figure builder's ``height`` entry and Returns section into its docstring.

    Every builder takes ``height`` (the figure's height in pixels) as its last parameter
    and returns a figure styled with the theme. Its docstring leaves both out; this adds
    the ``height`` entry at the end of Parameters, with the default its signature gives
    (so that the two cannot disagree), and the Returns section right after.

    Parameters
    ----------
    builder : callable
        The builder; its docstring has a Parameters section and no ``height`` entry or
        Returns section of its own.

    Returns
    -------
    callable
        ``builder``, its docstring completed.

    Raises
    ------
    TypeError
        If ``height`` is not the last parameter, or the docstring has no Parameters
        section or already has a Returns section.
    """
    params = list(inspect.signature(builder).parameters.values())
    if not params or params[-1].name != "height":
        raise TypeError(f"{builder.__qualname__}: height must be its last parameter")
    lines = (builder.__doc__ or "").split("\n")
    starts = [i for i, line in enumerate(lines) if line.strip() == "Parameters"]
    if not starts or any(line.strip() == "Returns" or line.strip().startswith("height :")
                         for line in lines):
        raise TypeError(f"{builder.__qualname__}: needs a Parameters section, no height "
                        "entry and no Returns section")
    start = starts[0]
    indent = lines[start][:len(lines[start]) - len(lines[start].lstrip())]
    end = next((i for i in range(start + 2, len(lines)) if _is_header(lines, i, indent)),
               len(lines) - 1)  # the last line holds the closing quotes' indentation
    body = lines[start:end]
    while not body[-1].strip():
        body.pop()
    added = [f"height : int, default={params[-1].default}",
             "    The figure's height in pixels.", "", *_RETURNS]
    rest = lines[end:] if end == len(lines) - 1 else ["", *lines[end:]]
    builder.__doc__ = "\n".join(lines[:start] + body
                                + [indent + a if a else "" for a in added] + rest)
    return builder


def polyline(x0, y0, x1, y1) -> tuple[np.ndarray, np.ndarray]:
    """Segments from ``(x0, y0)`` to ``(x1, y1)`` as one trace's coordinates.

    NaN separates the pieces (plotly draws a gap there and serialises it as null):
    one trace of many segments draws far faster than one shape per segment.

    Parameters
    ----------
    x0, y0, x1, y1 : array-like of shape (n,)
        The segments' ends.

    Returns
    -------
    tuple of ndarray of shape (3 n,)
        x and y.
    """
    n = len(x0)
    xs = np.full(3 * n, np.nan)
    ys = np.full(3 * n, np.nan)
    xs[0::3], xs[1::3] = x0, x1
    ys[0::3], ys[1::3] = y0, y1
    return xs, ys


def rectangles(lower, upper) -> tuple[np.ndarray, np.ndarray]:
    """Closed outlines of 2-D boxes as one trace's coordinates (NaN between boxes).

    Parameters
    ----------
    lower, upper : array-like of shape (n, 2)
        The boxes' corners.

    Returns
    -------
    tuple of ndarray of shape (6 n,)
        x and y, for outlines or ``fill="toself"``.
    """
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    n = len(lower)
    xs = np.full((n, 6), np.nan)
    ys = np.full((n, 6), np.nan)
    xs[:, :5] = np.stack([lower[:, 0], upper[:, 0], upper[:, 0], lower[:, 0], lower[:, 0]], 1)
    ys[:, :5] = np.stack([lower[:, 1], lower[:, 1], upper[:, 1], upper[:, 1], lower[:, 1]], 1)
    return xs.ravel(), ys.ravel()


def band(x, lower, upper, fillcolor: str, **trace) -> go.Scatter:
    """The area between ``lower`` and ``upper`` over ``x``, filled, without an outline.

    Parameters
    ----------
    x, lower, upper : array-like of shape (n,)
        Where, and the band's edges.
    fillcolor : str
        The fill (with its transparency).
    **trace
        More attributes of the trace (``name``, ``legendgroup``, ``showlegend``...).

    Returns
    -------
    plotly.graph_objects.Scatter
        The trace, not hoverable (the curve it surrounds carries the numbers).
    """
    x, lower, upper = (np.asarray(a) for a in (x, lower, upper))
    return go.Scatter(x=np.concatenate([x, x[::-1]]), y=np.concatenate([upper, lower[::-1]]),
                      fill="toself", fillcolor=fillcolor, line=dict(width=0),
                      hoverinfo="skip", **trace)


def log_x_marker(fig: go.Figure, x: float, label: str, *, color: str = BLACK,
                 dash: str = "dash", width: float = 1.5, size: int = 12, y: float = 1.0,
                 yanchor: str = "bottom", xanchor: str = "center") -> None:
    """Mark ``x`` on a log x axis by a vertical line with a label at height ``y``.

    Plotly places annotations on a log axis in log10 units, so the label goes at
    ``log10(x)``; the line itself takes data units.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, changed in place.
    x : float
        Where, in data units (positive).
    label : str
        The text.
    color, dash : str, default=BLACK and "dash"
        The line's and the label's colour, the line's dash.
    width : float, default=1.5
        The line's width.
    size : int, default=12
        The label's font size.
    y : float, default=1.0
        The label's height, as a fraction of the plot area's (1 is its top edge).
    yanchor, xanchor : str, default="bottom" and "center"
        Which side of the label sits at ``(x, y)``.
    """
    fig.add_vline(x=x, line=dict(color=color, dash=dash, width=width))
    fig.add_annotation(x=float(np.log10(x)), xref="x", y=y, yref="paper", text=label,
                       showarrow=False, yanchor=yanchor, xanchor=xanchor,
                       font=dict(color=color, size=size))
