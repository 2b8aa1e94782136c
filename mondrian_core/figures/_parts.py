"""Pieces the figure builders share: their documented ``height`` and return value,
line segments and box outlines as one trace's coordinates, an uncertainty band, and a
labelled vertical line on a log x axis.

Private to ``mondrian_core.figures`` (its names are public for its modules).
"""
from __future__ import annotations

import inspect
import re

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mondrian_core._docstrings import docfiller
from mondrian_core.figures.theme import BLACK

__all__ = ["figure_builder", "polyline", "rectangles", "band", "band_dict", "log_x_marker",
           "log_x_marker_dicts", "subplots", "subplots_layout", "axis_key", "validated_once"]

#: The text of a builder's ``%(builder)s`` line: its height entry (the default from its
#: signature) and its Returns section.
_BUILDER = """\
height : int, default={height}
    The figure's height in pixels.

Returns
-------
plotly.graph_objects.Figure
    The styled figure."""


def figure_builder(builder):
    """Fill a figure builder's ``%(builder)s`` docstring line: its height and Returns.

    Every builder takes ``height`` (the figure's height in pixels) as its last parameter
    and returns a figure styled with the theme. Its docstring ends its Parameters with a
    line holding only ``%(builder)s``, which becomes the ``height`` entry, with the
    default the signature gives (so that the two cannot disagree), and the Returns
    section (:func:`mondrian_core._docstrings.docfiller`).

    Parameters
    ----------
    builder : callable
        The builder.

    Returns
    -------
    callable
        ``builder``, its docstring filled.

    Raises
    ------
    TypeError
        If ``height`` is not the last parameter or the docstring has no ``%(builder)s``
        line.
    """
    params = list(inspect.signature(builder).parameters.values())
    if not params or params[-1].name != "height":
        raise TypeError(f"{builder.__qualname__}: height must be its last parameter")
    if builder.__doc__ is None:  # python -OO strips docstrings: nothing to fill
        return builder
    if not re.search(r"^[ \t]*%\(builder\)s[ \t]*$", builder.__doc__, re.MULTILINE):
        raise TypeError(f"{builder.__qualname__}: its docstring needs a %(builder)s line")
    return docfiller({"builder": _BUILDER.format(height=params[-1].default)})(builder)


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
    x, lower, upper, fillcolor, **trace
        As for :func:`band_dict`.

    Returns
    -------
    plotly.graph_objects.Scatter
        The trace, not hoverable (the curve it surrounds carries the numbers).
    """
    spec = band_dict(x, lower, upper, fillcolor, **trace)
    del spec["type"]
    return go.Scatter(**spec)


def band_dict(x, lower, upper, fillcolor: str, **trace) -> dict:
    """:func:`band` as a trace dict, for builders that validate a figure once.

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
    dict
        The scatter trace's attributes, ``type`` included; not hoverable (the curve
        it surrounds carries the numbers).
    """
    x, lower, upper = (np.asarray(a) for a in (x, lower, upper))
    return dict(type="scatter", x=np.concatenate([x, x[::-1]]),
                y=np.concatenate([upper, lower[::-1]]), fill="toself", fillcolor=fillcolor,
                line=dict(width=0), hoverinfo="skip", **trace)


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
    shape, note = log_x_marker_dicts(x, label, color=color, dash=dash, width=width,
                                     size=size, y=y, yanchor=yanchor, xanchor=xanchor)
    fig.add_shape(**shape)
    fig.add_annotation(**note)


def log_x_marker_dicts(x: float, label: str, *, color: str = BLACK, dash: str = "dash",
                       width: float = 1.5, size: int = 12, y: float = 1.0,
                       yanchor: str = "bottom", xanchor: str = "center") -> tuple[dict, dict]:
    """:func:`log_x_marker` as a layout shape and annotation, for builders that validate
    a figure once.

    Parameters
    ----------
    x, label, color, dash, width, size, y, yanchor, xanchor
        As for :func:`log_x_marker`.

    Returns
    -------
    shape : dict
        The vertical line (the shape ``add_vline`` makes on a single plot, without its
        ~9 ms of axis lookups).
    annotation : dict
        The label.
    """
    return (dict(type="line", x0=x, x1=x, xref="x", y0=0, y1=1, yref="y domain",
                 line=dict(color=color, dash=dash, width=width)),
            dict(x=float(np.log10(x)), xref="x", y=y, yref="paper", text=label,
                 showarrow=False, yanchor=yanchor, xanchor=xanchor,
                 font=dict(color=color, size=size)))


#: make_subplots' figures by their arguments (the layout only: never drawn into).
_SKELETONS: dict = {}


def _skeleton(kwargs: dict):
    """make_subplots' figure for ``kwargs`` (kept per arguments) and the titles to swap in."""
    titles = kwargs.get("subplot_titles")
    swap = (titles is not None and len(titles) > 0
            and all(isinstance(t, str) and t for t in titles))
    if swap:  # the grid with stand-in titles, each replaced by its own below
        kwargs = {**kwargs, "subplot_titles": [f"\x00{i}" for i in range(len(titles))]}
    key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in kwargs.items()))
    try:
        skeleton = _SKELETONS.get(key)
    except TypeError:  # unhashable arguments (specs): no reuse
        skeleton = None
        key = None
    if skeleton is None:
        skeleton = make_subplots(**kwargs)
        if key is not None:
            if len(_SKELETONS) >= 256:
                _SKELETONS.clear()
            _SKELETONS[key] = skeleton
    return skeleton, (titles if swap else None)


def _titled(layout: dict, titles) -> dict:
    layout["annotations"] = [
        {**a, "text": titles[int(a["text"][1:])]}
        if isinstance(a.get("text"), str) and a["text"].startswith("\x00") else a
        for a in layout.get("annotations", ())]
    return layout


def subplots(**kwargs) -> go.Figure:
    """``plotly.subplots.make_subplots(**kwargs)``, the grid's layout built once.

    make_subplots validates its whole layout through a fresh figure (~50 ms for a
    2 x 2 grid with titles, a tenth of a page's visit); a copy of the same layout costs
    a third of that. Titles that change with the data (a fitted length scale) reuse the
    grid: they are written into the copy's title annotations. The figure returned is
    new and equal to make_subplots' (tested).
    """
    skeleton, titles = _skeleton(kwargs)
    layout = skeleton.layout
    if titles is not None:
        layout = _titled(layout.to_plotly_json(), titles)
    fig = go.Figure(layout=layout)
    fig.__dict__["_grid_ref"] = skeleton._grid_ref  # read only, as add_trace(row, col) does
    fig.__dict__["_grid_str"] = skeleton._grid_str
    return fig


def subplots_layout(**kwargs) -> tuple[dict, list]:
    """The layout of ``make_subplots(**kwargs)`` as a new dict, and its grid of axes.

    For builders that assemble a whole figure as dicts and validate it once (a figure
    built through graph objects is validated at every step). The grid's ``[row][col]``
    entry is the axis names a trace in that cell takes, e.g. ``{"xaxis": "x2",
    "yaxis": "y2"}``.

    Parameters
    ----------
    **kwargs
        The arguments of ``plotly.subplots.make_subplots``.

    Returns
    -------
    layout : dict
        The layout (a copy, free to change).
    grid : list of list of dict
        Per row and column, the trace's axis references.
    """
    skeleton, titles = _skeleton(kwargs)
    layout = skeleton.layout.to_plotly_json()  # a deep copy
    if titles is not None:
        layout = _titled(layout, titles)
    grid = [[dict(cell[0].trace_kwargs) if cell else None for cell in row]
            for row in skeleton._grid_ref]
    return layout, grid


def axis_key(ref: str) -> str:
    """The layout key of a trace's axis reference: ``"x2"`` -> ``"xaxis2"``.

    Parameters
    ----------
    ref : str
        A trace's ``xaxis`` or ``yaxis`` value (``"x"``, ``"y3"``...).

    Returns
    -------
    str
        The layout's key for that axis.
    """
    return ref[0] + "axis" + ref[1:]


def validated_once(builder):
    """Mark a builder that assembles its figure as dicts and validates it in one go.

    Its figure's float32 copy for the wire (``explorer_ui.figure_cache.slim``) is then
    not validated by Plotly a second time: the same chart, its description and its CSV
    (tested per marked builder).

    Parameters
    ----------
    builder : callable
        The figure builder.

    Returns
    -------
    callable
        ``builder``, with ``validated_once = True``.
    """
    builder.validated_once = True
    return builder
