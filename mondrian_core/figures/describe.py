"""What a chart shows, as text and as a table: its text alternative and its data.

Both read the numbers from the figure's own traces (as drawn: the figure's current data,
not its animation frames), so the words, the table and the picture cannot disagree.

- :func:`chart_series` lists what each trace draws, panel by panel.
- :func:`describe_figure` gives a chart's accessible name and a one- to three-sentence
  description with its key numbers (a sentence per panel when it has several), for a
  screen reader (WCAG 2.1, success criterion 1.1.1). A chart whose name is registered in
  :data:`DESCRIBERS` gets that describer; every other chart the generic one, which
  states each series' extremes or trend.
- :func:`figure_table` and :func:`figure_csv` give the numbers as a tidy table: one row
  per drawn point, columns named after the axes (whose titles carry the units).

Pure functions of a Plotly figure; no Streamlit.
"""
from __future__ import annotations

import base64
import csv
import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go


@dataclass(frozen=True)
class Series:
    """The numbers one trace draws.

    Parameters
    ----------
    panel : str
        The title of the subplot it is in ("" for a chart of one panel).
    name : str
        The trace's name ("" when it has none).
    kind : str
        ``"line"``, ``"points"``, ``"segments"`` (lines broken by gaps: cuts, cell
        outlines), ``"band"`` (a filled area), ``"bars"``, ``"heatmap"`` or
        ``"values"`` (a histogram's samples).
    x, y : numpy.ndarray
        The coordinates, 1-d (for a heatmap, its column and row coordinates).
    z : numpy.ndarray or None
        A heatmap's matrix, else None.
    x_title, y_title, z_title : str
        The axes' titles and the colour bar's (with units), "" when untitled.
    x_shown : tuple (low, high, log) or None
        The x range the chart shows, in axis units (decades on a log axis, ``log``
        True), None when not known.
    y_is_position : bool
        Whether the trace's y is only where it is drawn, not a value: its hover shows x
        alone (a credible interval drawn as a bar above the curves).
    """

    panel: str
    name: str
    kind: str
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray | None
    x_title: str
    y_title: str
    z_title: str
    x_shown: tuple[float, float, bool] | None = None
    y_is_position: bool = False


def _plain(text) -> str:
    """Figure text without HTML tags and runs of spaces."""
    if not text:
        return ""
    text = re.sub(r"<br\s*/?>", " ", str(text))
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", text)).strip()


def _short(title: str) -> str:
    """An axis title without its parenthesis: ``lifetime λ (log scale)`` -> ``lifetime λ``."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", title).strip() or title


def array(value) -> np.ndarray | None:
    """A trace field as a NumPy array, or None when absent.

    Reads plain lists, arrays and Plotly's base64 typed-array form
    ``{"dtype", "bdata", "shape"}``.

    Parameters
    ----------
    value : object
        The field's value.

    Returns
    -------
    numpy.ndarray or None
        Float values (None and non-numbers as NaN); an array of strings for
        categories.
    """
    if value is None:
        return None
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            dims = [int(s) for s in str(shape).split(",")] if isinstance(shape, str) else list(shape)
            out = out.reshape(dims)
        return out.astype(float)
    out = np.asarray(value, dtype=object)
    if out.dtype == object and out.size:
        try:
            return np.array([[np.nan if v is None else float(v) for v in row] for row in out]
                            if out.ndim == 2 else
                            [np.nan if v is None else float(v) for v in out.ravel()],
                            dtype=float)
        except (TypeError, ValueError):
            return out.astype(str)
    return out.astype(float) if out.size else np.array([], dtype=float)


def _panel_titles(fig: go.Figure) -> dict[str, str]:
    """Each subplot's title (make_subplots writes them as paper annotations above the
    subplot), keyed by its x axis name ``x``, ``x2``..."""
    layout = fig.layout
    titles = {}
    notes = [a for a in (layout.annotations or ()) if a.xref == "paper" and a.yref == "paper"
             and a.text and a.x is not None and a.y is not None]
    axes = [k for k in layout if k.startswith("xaxis") and layout[k] is not None]
    for key in sorted(axes, key=lambda k: int(k[5:] or 1)):
        axis = layout[key]
        anchor = axis.anchor if axis.anchor and axis.anchor != "free" else "y" + key[5:]
        yaxis = layout["yaxis" + anchor[1:]] if ("yaxis" + anchor[1:]) in layout else None
        if axis.domain is None or yaxis is None or yaxis.domain is None:
            continue
        (x0, x1), top = axis.domain, yaxis.domain[1]
        above = [a for a in notes if x0 - 1e-6 <= a.x <= x1 + 1e-6 and top - 0.02 <= a.y <= top + 0.12]
        if above:
            best = min(above, key=lambda a: abs(a.x - (x0 + x1) / 2) + abs(a.y - top))
            titles["x" + key[5:]] = _plain(best.text)
    return titles


def _axis(fig: go.Figure, ref: str | None, letter: str):
    key = f"{letter}axis{(ref or letter)[1:]}"
    return fig.layout[key] if key in fig.layout else None


def _axis_title(fig: go.Figure, ref: str | None, letter: str) -> str:
    axis = _axis(fig, ref, letter)
    return _plain(axis.title.text) if axis is not None and axis.title is not None else ""


def _kind(trace) -> str:
    kind = trace.type
    if kind == "bar":
        return "bars"
    if kind == "histogram":
        return "values"
    if kind in ("heatmap", "contour"):
        return "heatmap"
    if getattr(trace, "fill", None) not in (None, "none"):
        return "band"
    mode = getattr(trace, "mode", None) or "lines"
    y = array(getattr(trace, "y", None))
    gaps = y is not None and y.dtype.kind == "f" and np.isnan(y).any()
    if "lines" in mode:
        return "segments" if gaps else "line"
    return "points"


def _x_shown(fig: go.Figure, xref: str) -> tuple[float, float, bool] | None:
    """The x range an axis shows, in its own units (decades on a log axis), and whether
    it is logarithmic: its set range, else the extent of the numbers its traces draw."""
    axis = _axis(fig, xref, "x")
    log = axis is not None and axis.type == "log"
    shown = axis.range if axis is not None else None
    if shown is not None and None not in shown:
        return float(shown[0]), float(shown[1]), log
    xs = [a[np.isfinite(a)] for t in fig.data if (getattr(t, "xaxis", None) or "x") == xref
          for a in [array(getattr(t, "x", None))] if _numeric(a)]
    xs = [a[a > 0] if log else a for a in xs]
    xs = [np.log10(a) if log else a for a in xs if a.size]
    return (float(min(a.min() for a in xs)), float(max(a.max() for a in xs)), log) if xs else None


def _hover_shows_x_only(trace) -> bool:
    template = getattr(trace, "hovertemplate", None) or ""
    return "%{x" in template and "%{y" not in template


def chart_series(fig: go.Figure) -> list[Series]:
    """What each trace of ``fig`` draws (visible traces with numbers), in drawing order.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.

    Returns
    -------
    list of Series
        One per trace.
    """
    fig = fig if isinstance(fig, go.Figure) else go.Figure(fig)
    panels = _panel_titles(fig)
    out = []
    # per axis, not per trace: each reads the layout (and _x_shown every trace) through
    # plotly's validated objects, several milliseconds a chart of a dozen traces
    titles, shown = {}, {}
    for trace in fig.data:
        if getattr(trace, "visible", None) is False:
            continue
        xref, yref = getattr(trace, "xaxis", None) or "x", getattr(trace, "yaxis", None) or "y"
        panel = panels.get(xref, "")
        name = _plain(getattr(trace, "name", None))
        kind = _kind(trace)
        x, y = array(getattr(trace, "x", None)), array(getattr(trace, "y", None))
        z = array(getattr(trace, "z", None)) if kind == "heatmap" else None
        for ref, letter in ((xref, "x"), (yref, "y")):
            if (ref, letter) not in titles:
                titles[ref, letter] = _axis_title(fig, ref, letter)
        x_title, y_title = titles[xref, "x"], titles[yref, "y"]
        z_title = ""
        if kind == "heatmap":
            if z is None or z.ndim != 2:
                continue
            bar = getattr(trace, "colorbar", None)
            z_title = _plain(bar.title.text) if bar is not None and bar.title is not None else ""
            x = np.arange(z.shape[1], dtype=float) if x is None or len(x) != z.shape[1] else x
            y = np.arange(z.shape[0], dtype=float) if y is None or len(y) != z.shape[0] else y
        elif kind == "values":
            values = x if x is not None else y
            if values is None:
                continue
            x, y = values, None
        else:
            if getattr(trace, "orientation", None) == "h":
                x, y, x_title, y_title = y, x, y_title, x_title
            if y is None:
                continue
            if x is None:
                x = np.arange(len(y), dtype=float)
        out.append(Series(panel, name, kind, x,
                          y if y is not None else np.array([]), z, x_title, y_title, z_title,
                          x_shown=shown[xref] if xref in shown else
                          shown.setdefault(xref, _x_shown(fig, xref)),
                          y_is_position=_hover_shows_x_only(trace)))
    return out


# ---------------------------------------------------------------- description


def number(value: float, scale: float = 0.0) -> str:
    """A number as descriptions show it: 3 significant digits, no exponent when avoidable.

    Parameters
    ----------
    value : float
        The number.
    scale : float, default=0.0
        The largest magnitude among the numbers it is shown with. A value within
        ``1e-12 * scale`` of zero is rounding around a zero (a standard deviation of
        ``5.55e-17`` beside ones of 0.8) and shows as ``0``.

    Returns
    -------
    str
        E.g. ``0.168``, ``26.9``, ``1.2e-05``.
    """
    value = float(value)
    if abs(value) <= 1e-12 * abs(float(scale)):
        return "0"
    text = f"{value:.3g}"
    if "e" in text and 1e-4 <= abs(value) < 1e6:
        text = f"{value:.{max(0, 2 - math.floor(math.log10(abs(value))))}f}"
    return text


def _span(v: np.ndarray) -> str:
    """``from <min> to <max>`` of finite values, rounding noise around zero as 0."""
    scale = np.abs(v).max()
    return f"from {number(v.min(), scale)} to {number(v.max(), scale)}"


def _numeric(a: np.ndarray | None) -> bool:
    return a is not None and a.dtype.kind == "f" and a.size > 0


def _at(s: Series, value_index: int) -> str:
    where = s.x[value_index]
    xname = _short(s.x_title) or "x"
    return f"{xname} {number(where)}" if _numeric(s.x) else f"{where}"


def _runs(y: np.ndarray) -> int:
    """How many unbroken pieces a NaN-separated trace draws."""
    ok = ~np.isnan(y)
    return int(ok[0]) + int(np.count_nonzero(ok[1:] & ~ok[:-1])) if y.size else 0


def _line_clause(s: Series) -> str:
    ok = ~np.isnan(s.y)
    y, idx = s.y[ok], np.flatnonzero(ok)
    if y.size == 0:
        return ""
    if y.size == 1:
        return f"{s.name} {number(y[0])} at {_at(s, idx[0])}"
    lo, hi = int(np.argmin(y)), int(np.argmax(y))
    if y[lo] == y[hi] and _numeric(s.x):  # a level line: an interval, a flat prior
        return _level_clause(s, s.x[idx], y[0])
    if y[-1] == y[lo] and y[0] == y[hi]:
        return f"{s.name} falls from {number(y[0])} to {number(y[-1])}"
    if y[-1] == y[hi] and y[0] == y[lo]:
        return f"{s.name} rises from {number(y[0])} to {number(y[-1])}"
    scale = max(abs(y[lo]), abs(y[hi]))
    return (f"{s.name} is lowest, {number(y[lo], scale)}, at {_at(s, idx[lo])} and highest, "
            f"{number(y[hi], scale)}, at {_at(s, idx[hi])}")


def _level_clause(s: Series, xs: np.ndarray, level: float) -> str:
    """A horizontal line. An interval drawn as a bar says its ends: its height is only
    where it is drawn. A level (a truth, a flat density) says its value, and its ends
    only where they fall inside the chart: an end at the chart's edge is not the line's
    end (a prior cut by the chart's range)."""
    xname = _short(s.x_title) or "x"
    low, high = number(xs.min()), number(xs.max())
    if s.y_is_position:
        return f"{s.name}: {xname} {low} to {high}"
    from_left = to_right = False
    if s.x_shown is not None:
        first, last, log = s.x_shown
        ends = np.log10(np.maximum([xs.min(), xs.max()], 1e-300)) if log else [xs.min(), xs.max()]
        # an end within 2% of the range of an edge is at it (plotly pads a range by more)
        near = 0.02 * (last - first)
        from_left, to_right = ends[0] - first <= near, last - ends[1] <= near
    where = ("across the chart" if from_left and to_right else
             f"from the chart's left edge to {xname} {high}" if from_left else
             f"from {xname} {low} to the chart's right edge" if to_right else
             f"from {xname} {low} to {high}")
    return f"{s.name} constant at {number(level)} {where}"


def _clause(s: Series, count: int = 1) -> str:
    """One series in a few words with its key numbers (``count`` traces of one name)."""
    if s.kind == "heatmap":
        z = s.z[np.isfinite(s.z)]
        what = s.z_title or "values"
        if z.size == 0:
            return ""
        return f"a {s.z.shape[0]} by {s.z.shape[1]} matrix of {what} {_span(z)}"
    if s.kind == "values":
        v = s.x[np.isfinite(s.x)] if _numeric(s.x) else s.x
        if not _numeric(v):
            return f"{s.name}: {len(v)} values"
        return f"{s.name}: {v.size} values {_span(v)}"
    if not _numeric(s.y):
        return ""
    if s.kind == "segments":
        pieces = _runs(s.y)
        return f"{s.name}: {pieces} line piece{'s' if pieces != 1 else ''}"
    if s.kind == "band":
        return ""  # an uncertainty band: its series says the numbers; its data is in the CSV
    if count > 1:
        return f"{count} curves of {s.name}"
    if s.kind == "bars":
        y = np.nan_to_num(s.y)
        if y.size == 1:  # a bar whose name may already give its height
            return s.name if number(y[0]) in s.name else f"{s.name} {number(y[0])}"
        top = int(np.argmax(y))
        return (f"{s.name}: {y.size} bars totalling {number(y.sum())}, tallest "
                f"{number(y[top])} at {_at(s, top)}")
    if s.kind == "points":
        y = s.y[np.isfinite(s.y)]
        if y.size == 1:
            i = int(np.flatnonzero(np.isfinite(s.y))[0])
            return f"{s.name} at {_at(s, i)}, {_short(s.y_title) or 'y'} {number(y[0])}"
        if y.size == 0:
            return ""
        return (f"{s.name + ': ' if s.name else ''}{y.size} points, "
                f"{_short(s.y_title) or 'y'} {_span(y)}")
    return _line_clause(s)


def _panel_clauses(series: list[Series]) -> list[str]:
    clauses, seen = [], {}
    for s in series:
        seen[s.name] = seen.get(s.name, 0) + 1
    done = set()
    for s in series:
        if s.name in done:
            continue
        done.add(s.name)
        clause = _clause(s, seen[s.name] if s.kind == "line" else 1)
        if clause:
            clauses.append(clause)
    return clauses


def _axes_phrase(series: list[Series]) -> str:
    first = series[0]
    if first.kind == "heatmap" or not first.y_title:
        return ""
    if first.x_title:
        return f"{first.y_title} against {first.x_title}"
    return first.y_title



def generic_description(fig: go.Figure) -> str:
    """The description of a chart that has no describer of its own.

    What is plotted against what, then per panel each series' extremes or trend.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.

    Returns
    -------
    str
        What is plotted against what, then a sentence per panel, e.g. ``Plots RMSE
        against lifetime λ. train RMSE falls from 0.9 to 0.05; validation RMSE is
        lowest, 0.168, at lifetime λ 26.9 and highest, 0.9, at lifetime λ 0.1.``.
    """
    series = chart_series(fig)
    if not series:
        return "The chart has no data at these settings."
    panels: dict[str, list[Series]] = {}
    for s in series:
        panels.setdefault(s.panel, []).append(s)
    clauses = {panel: _panel_clauses(members) for panel, members in panels.items()}
    if len(panels) == 1:
        axes = _axes_phrase(series)
        head = f"Plots {axes}. " if axes else ""
        return head + "; ".join(next(iter(clauses.values()))) + "."
    # what every panel shows alike (the data, the true function) is said once
    shared = [c for c in next(iter(clauses.values())) if all(c in cs for cs in clauses.values())]
    sentences = [f"{len(panels)} panels" + (f", each showing {'; '.join(shared)}." if shared else ".")]
    for panel, members in panels.items():
        own = [c for c in clauses[panel] if c not in shared]
        axes = _axes_phrase(members)
        head = (panel or "another panel") + (f" ({axes})" if axes else "")
        sentences.append(f"{head}: {'; '.join(own)}." if own else f"{head}.")
    return " ".join(sentences)


#: Describers for particular charts, by the name a page shows them under
#: (``show_figure(fig, name)``): each takes the figure and returns its description.
#: A chart not listed gets :func:`generic_description`.
DESCRIBERS: dict[str, Callable[[go.Figure], str]] = {}


def describer(name: str):
    """Register the decorated function as the describer of charts called ``name``.

    Parameters
    ----------
    name : str
        The chart's name on its page (``show_figure(fig, name)``).

    Returns
    -------
    callable
        The decorator, which returns the function unchanged.
    """
    def register(func):
        DESCRIBERS[name] = func
        return func
    return register


@describer("partition-and-tree")
def _partition_and_tree(fig: go.Figure) -> str:
    """The Mondrian process page's growth chart: a partition beside its tree."""
    by_name = {s.name: s for s in chart_series(fig)}
    cells, cuts, nodes = by_name.get("cells"), by_name.get("cuts"), by_name.get("nodes")
    line = by_name.get("time line")
    if cells is None or cuts is None or line is None or not line.y.size:
        return generic_description(fig)
    t, n_cells, n_cuts = number(line.y[0]), len(cells.y), _runs(cuts.y)
    text = (f"(a) The partition at time {t}: {n_cuts} cut{'s' * (n_cuts != 1)} divide the box "
            f"into {n_cells} cell{'s' * (n_cells != 1)}.")
    if nodes is not None and nodes.y.size:
        text += (f" (b) Its tree, time running down: {nodes.y.size} nodes so far, the first cut "
                 f"at time {number(np.nanmin(nodes.y))}; the {n_cells} cells alive at time {t} "
                 "are its leaves.")
    return text


def chart_label(fig: go.Figure, name: str) -> str:
    """A chart's accessible name: its title, else its name in words.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.
    name : str
        The chart's name on its page (e.g. ``"kernel-slice"``).

    Returns
    -------
    str
        E.g. ``Chart: Error along the lifetime sweep``.
    """
    fig = fig if isinstance(fig, go.Figure) else go.Figure(fig)
    title = _plain(fig.layout.title.text) if fig.layout.title is not None else ""
    if not title:
        panels = list(dict.fromkeys(_panel_titles(fig).values()))
        title = ", ".join(panels) if panels else name.replace("-", " ").replace("_", " ")
    return f"Chart: {title}"


def describe_figure(fig: go.Figure, name: str = "") -> str:
    """A chart's text alternative: what it shows at its current data, with key numbers.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure (its current traces; animation frames are not read).
    name : str, default=""
        The chart's name on its page; a name in :data:`DESCRIBERS` picks that
        describer.

    Returns
    -------
    str
        One to three sentences (one more per panel for several panels).
    """
    fig = fig if isinstance(fig, go.Figure) else go.Figure(fig)
    special = DESCRIBERS.get(name)
    return special(fig) if special is not None else generic_description(fig)


# ---------------------------------------------------------------- data


def _column(title: str, fallback: str) -> str:
    return title or fallback


def figure_table(fig: go.Figure) -> tuple[list[str], list[list]]:
    """The numbers ``fig`` draws as a tidy table.

    One row per point (per cell of a heatmap), with the panel and series it belongs to.
    Columns are ``panel`` (charts with several panels only), ``series``, then one per
    distinct axis title (which carries the units; ``x``/``y`` when untitled) and, for
    heatmaps, ``value`` (or the colour bar's title). Gaps between line pieces are left
    out.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.

    Returns
    -------
    tuple of (list of str, list of list)
        The header and the rows.
    """
    series = chart_series(fig)
    several = len({s.panel for s in series}) > 1
    columns: list[str] = []

    def col(name):
        if name not in columns:
            columns.append(name)
        return name

    rows_by: list[tuple[Series, list[dict]]] = []
    for s in series:
        xc, yc = col(_column(s.x_title, "x")), col(_column(s.y_title, "y"))
        rows = []
        if s.kind == "heatmap":
            zc = col(_column(s.z_title, "value"))
            for r in range(s.z.shape[0]):
                for c in range(s.z.shape[1]):
                    rows.append({xc: s.x[c], yc: s.y[r], zc: s.z[r, c]})
        elif s.kind == "values":
            rows = [{xc: v} for v in s.x]
        else:
            for xv, yv in zip(s.x, s.y):
                if isinstance(yv, float) and math.isnan(yv):
                    continue
                rows.append({xc: xv, yc: yv})
        rows_by.append((s, rows))
    head = (["panel"] if several else []) + ["series"] + columns
    table = []
    for s, rows in rows_by:
        for row in rows:
            table.append(([s.panel] if several else []) + [s.name]
                         + [_cell(row.get(c)) for c in columns])
    return head, table


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return ""
        return str(int(v)) if float(v) == int(v) and abs(v) < 1e15 else repr(float(v))
    return str(v)


def figure_csv(fig: go.Figure) -> str:
    """:func:`figure_table` as CSV text (comma-separated, header first).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.

    Returns
    -------
    str
        The CSV.
    """
    head, rows = figure_table(fig)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(head)
    writer.writerows(rows)
    return buffer.getvalue()


__all__ = ["Series", "array", "chart_series", "number", "generic_description", "DESCRIBERS",
           "describer", "chart_label", "describe_figure", "figure_table", "figure_csv"]
