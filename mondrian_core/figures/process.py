"""Figures of the Mondrian process (Balog et al. 2016, Figure 1 and section 2).

Pure functions: core results in, styled plotly figures out.

- :func:`growth_figure`: the partition growing in time (cuts labelled with their
  times, optional Mondrian-colour fills) beside the binary tree with time on the
  vertical axis; plotly frames animate both (play / pause / time slider).
- :func:`first_cut_figure`: the competing-clocks check.
- :func:`projectivity_figure`: a sample restricted to a sub-box and the
  distribution of the number of cells there, restricted vs direct.
- :func:`extension_figure`: a conditional Mondrian: old cuts, their extensions,
  new cuts above old ones and in the new regions; frames grow the box.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mondrian_core.figures._parts import figure_builder, polyline, rectangles
from mondrian_core.figures.theme import (
    BLACK,
    BLUE,
    GREY,
    LIGHT_GREY,
    MIN_FONT,
    RED,
    WHITE,
    YELLOW,
    legend_below,
    styled,
)
from mondrian_core.trees import nodes_by_depth

#: Fill colours of cells (white cells are left unfilled; black is kept for the cuts).
_FILLS = [RED, BLUE, YELLOW, LIGHT_GREY]
#: Share of cells that get a colour; the rest stay white, as in Mondrian's paintings.
_COLOURED = 0.35
#: Above this many cuts by the time shown, labels and tree annotations are left out: on
#: a chart the size of a projected page, 16 cut-time labels (the default sample) overprint.
MAX_LABELLED_CUTS = 12
#: Only the earliest cuts carry clock-rate labels: they sit high in the tree, where the
#: nodes are far apart; later nodes crowd together and their labels would overlap
#: (every node's rates are in its hover text).
CLOCK_LABELS_SHOWN = 4


def _need_2d(sample) -> None:
    if sample.dim != 2:
        raise ValueError(f"This figure draws 2-D samples, got D={sample.dim}.")


# ----------------------------------------------------------------- geometry helpers


def _cut_segments(sample, nodes, lower=None, upper=None):
    """Polyline (x, y with None gaps) of the cuts of ``nodes`` across their boxes.

    ``lower``/``upper`` (n, 2) override the boxes the cuts span (e.g. a sub-box).
    """
    lo = sample.node_lower[nodes] if lower is None else lower
    hi = sample.node_upper[nodes] if upper is None else upper
    d = sample.split_dim[nodes]
    x = sample.split_loc[nodes]
    vertical = d == 0
    x0 = np.where(vertical, x, lo[:, 0])
    x1 = np.where(vertical, x, hi[:, 0])
    y0 = np.where(vertical, lo[:, 1], x)
    y1 = np.where(vertical, hi[:, 1], x)
    return polyline(x0, y0, x1, y1)


def cell_colour_index(node_ids) -> np.ndarray:
    """Give every node id a fixed pseudo-random colour, so a cell keeps it across frames.

    Parameters
    ----------
    node_ids : array-like of int
        Node ids.

    Returns
    -------
    ndarray of int
        -1 (white) or an index into the fill colours, one per id; about 35% coloured.
    """
    h = (np.asarray(node_ids, dtype=np.uint64) * np.uint64(2654435761)) % np.uint64(1000)
    h = h.astype(float) / 1000.0
    return np.where(h < _COLOURED, (h / _COLOURED * len(_FILLS)).astype(int), -1)


def tree_layout(sample) -> np.ndarray:
    """Place every node of a sample's tree horizontally, for drawing.

    Leaves at 0, 1, 2, ... left to right (in-order), an internal node midway
    between its children; vectorised level by level.

    Parameters
    ----------
    sample : MondrianSample
        The sample.

    Returns
    -------
    ndarray of shape (n_nodes,)
        Each node's horizontal position.
    """
    n = sample.n_nodes
    depth = sample.depth()
    leaves = np.zeros(n)
    leaves[sample.is_leaf] = 1
    levels = nodes_by_depth(depth)
    for nodes in reversed(levels[1:]):  # bottom-up: leaf counts
        np.add.at(leaves, sample.parent[nodes], leaves[nodes])
    start = np.zeros(n)
    for nodes in levels:  # top-down: left edge of each subtree
        inner = nodes[~sample.is_leaf[nodes]]
        start[sample.left[inner]] = start[inner]
        start[sample.right[inner]] = start[inner] + leaves[sample.left[inner]]
    x = start.copy()
    for nodes in reversed(levels):  # bottom-up: midpoints
        inner = nodes[~sample.is_leaf[nodes]]
        x[inner] = 0.5 * (x[sample.left[inner]] + x[sample.right[inner]])
    return x


def _node_y(sample) -> np.ndarray:
    """Where a node is drawn on the time axis: at its cut, leaves at the lifetime."""
    return np.where(sample.is_leaf, sample.lifetime, sample.split_time)


def _tree_edges(sample, x, until):
    """Tree drawing clipped to times <= ``until``: each node's vertical stem from its
    birth to its cut (or the lifetime), and a bar joining the children at the cut."""
    y_end = np.minimum(_node_y(sample), until)
    alive = sample.birth_time <= until
    ids = np.flatnonzero(alive)
    sx, sy = polyline(x[ids], sample.birth_time[ids], x[ids], y_end[ids])
    inner = np.flatnonzero(~sample.is_leaf & (sample.split_time <= until))
    bx, by = polyline(x[sample.left[inner]], sample.split_time[inner],
                       x[sample.right[inner]], sample.split_time[inner])
    return np.concatenate([sx, bx]), np.concatenate([sy, by])


def _frame_times(lifetime, time, n_frames):
    times = np.linspace(0.0, lifetime, n_frames)
    times = np.unique(np.append(times, time))
    return times, int(np.searchsorted(times, time))


def _frame_trace(d: dict) -> dict:
    """A frame's scatter data with arrays as plain lists (NaN gaps as None): plotly
    validates lists of floats about 2.5x faster than NumPy arrays, and a figure has
    dozens of frames of ten traces each."""
    out = dict(type="scatter")
    for k, v in d.items():
        out[k] = [None if e != e else e for e in v.tolist()] if isinstance(v, np.ndarray) else v
    return out


def _with_frames(fig: go.Figure, frames: list[dict]) -> go.Figure:
    """Attach animation frames built here from plain data (skips plotly's per-value
    validation, which would dominate the time of a slider move)."""
    return go.Figure(data=fig.data, layout=fig.layout, frames=frames, _validate=False)


def _fmt(t):
    return f"{t:.2f}"


#: Pixels between a plot's bottom edge and its Play buttons / slider: room for the
#: x-axis tick labels and title, so that the controls never sit on them.
_CONTROLS_GAP = 85  # enough for 20 px projector text too
#: Pixels the Play buttons and the slider (with its current-value line) take.
_CONTROLS_HEIGHT = 80


def _below_plot(height: int, top: int, bottom: int, pixels: float) -> float:
    """Paper y of a point ``pixels`` below the plot area (negative: below y = 0)."""
    return -pixels / max(height - top - bottom, 1)


# ----------------------------------------------------------------- growth + tree


def _partition_state(sample, t, fill, labels):
    """Data of the animated partition traces at time ``t``, in trace order."""
    cells = sample.cell_nodes(t)
    data = []
    if fill:
        colour = cell_colour_index(cells)
        for k in range(len(_FILLS)):
            ids = cells[colour == k]
            fx, fy = rectangles(sample.node_lower[ids], sample.node_upper[ids])
            data.append(dict(x=fx, y=fy))
    cut = sample.cut_nodes
    cut = cut[sample.split_time[cut] <= t]
    cx, cy = _cut_segments(sample, cut)
    data.append(dict(x=cx, y=cy))
    if labels:
        mid = 0.5 * (sample.node_lower[cut] + sample.node_upper[cut])
        vertical = sample.split_dim[cut] == 0
        lx = np.where(vertical, sample.split_loc[cut], mid[:, 0])
        ly = np.where(vertical, mid[:, 1], sample.split_loc[cut])
        data.append(dict(x=lx.tolist(), y=ly.tolist(),
                         text=[_fmt(v) for v in sample.split_time[cut]]))
    centre = 0.5 * (sample.node_lower[cells] + sample.node_upper[cells])
    data.append(dict(x=centre[:, 0].tolist(), y=centre[:, 1].tolist(),
                     customdata=cells.tolist()))
    return data


def _tree_state(sample, x, t):
    ex, ey = _tree_edges(sample, x, t)
    cells = sample.cell_nodes(t)
    return [dict(x=ex, y=ey),
            dict(x=x[cells].tolist(), y=[float(t)] * len(cells), customdata=cells.tolist()),
            dict(x=[float(x.min()) - 0.5, float(x.max()) + 0.5], y=[float(t)] * 2)]


def _clock_label(sides, winner):
    parts = []
    for d, s in enumerate(sides):
        txt = f"{s:.2f}"
        parts.append(f"<b><span style='color:{RED}'>{txt}</span></b>" if d == winner else txt)
    return " ".join(parts)


@figure_builder
def growth_figure(sample, time=None, *, fill: bool = False, labels: bool | None = None,
                  selected_node: int | None = None, n_frames: int = 25,
                  frame_ms: int = 200, height: int = 640) -> go.Figure:
    """Draw the partition at ``time`` beside its tree (Balog et al. 2016, Figure 1).

    Left: the box with every cut present at ``time`` as a black line labelled with
    the time it appeared; ``fill`` paints some cells red, blue, yellow or grey.
    Right: the binary tree, time increasing downwards; the earliest internal nodes
    (:data:`CLOCK_LABELS_SHOWN`) show the rates of their two competing clocks (their
    box's width and height), the winner (the dimension that was cut) in red; the cells
    alive at ``time`` are marked where their stems cross the time line. Frames from 0 to
    the lifetime animate both; ``selected_node`` outlines one node's box and circles it
    in the tree.
    Points of the traces named "cells" and "nodes" carry node ids as ``customdata``.

    Parameters
    ----------
    sample : MondrianSample
        A 2-D sample.
    time : float, optional
        The time shown; default the sample's lifetime.
    fill : bool, default=False
        Paint about a third of the cells red, blue, yellow or grey.
    labels : bool, optional
        Label cuts with their times; default when at most ``MAX_LABELLED_CUTS`` cuts
        are made by ``time``.
    selected_node : int, optional
        A node whose box is outlined and which is circled in the tree.
    n_frames : int, default=25
        Animation frames from time 0 to the lifetime.
    frame_ms : int, default=200
        Milliseconds per frame when playing.
    %(builder)s

    Raises
    ------
    ValueError
        If the sample is not 2-D.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, Figure 1 (a) and (b).
    """
    _need_2d(sample)
    t = sample.lifetime if time is None else float(time)
    if labels is None:
        labels = int(np.sum(sample.cut_times <= t)) <= MAX_LABELLED_CUTS
    x = tree_layout(sample)
    # wide spacing: the tree's "time" axis title must clear the partition on narrow screens
    fig = make_subplots(rows=1, cols=2, column_widths=[0.5, 0.5], horizontal_spacing=0.13,
                        # short: each must fit half a narrow chart at 20 px (projector)
                        subplot_titles=("(a) partition at time t", "(b) tree, time ↓"))
    animated = _partition_traces(fig, sample, fill, labels)
    animated += _tree_traces(fig, sample, x, labels)
    if selected_node is not None and 0 <= selected_node < sample.n_nodes:
        _selection_traces(fig, sample, x, int(selected_node))
    # -- initial state and frames
    times, active = _frame_times(sample.lifetime, t, n_frames)

    def state(tt):
        return _partition_state(sample, tt, fill, labels) + _tree_state(sample, x, tt)

    for idx, d in zip(animated, state(t)):
        fig.data[idx].update(**d)
    frames = [dict(name=_fmt(tt), data=[_frame_trace(d) for d in state(tt)],
                   traces=animated) for tt in times]
    _play_controls(fig, times, active, frame_ms, height)
    _growth_axes(fig, sample, x)
    return _with_frames(styled(fig, height=height), frames)


def _partition_traces(fig, sample, fill, labels) -> list[int]:
    """The partition's traces (left); returns the indices of the animated ones."""
    lo, hi = sample.lower, sample.upper
    animated = []
    if fill:
        for c in _FILLS:
            fig.add_trace(go.Scatter(mode="lines", fill="toself", fillcolor=c,
                                     line=dict(width=0), hoverinfo="skip", showlegend=False,
                                     name="fill"), 1, 1)
            animated.append(len(fig.data) - 1)
    fig.add_trace(go.Scatter(mode="lines", line=dict(color=BLACK, width=3), hoverinfo="skip",
                             showlegend=False, name="cuts"), 1, 1)
    animated.append(len(fig.data) - 1)
    if labels:
        fig.add_trace(go.Scatter(mode="text",
                                 textfont=dict(color=BLACK, size=12, weight="bold",
                                               shadow="0 0 3px white, 0 0 3px white"),
                                 textposition="top right", hoverinfo="skip", showlegend=False,
                                 name="cut times"), 1, 1)
        animated.append(len(fig.data) - 1)
    fig.add_trace(go.Scatter(mode="markers", marker=dict(size=9, color=GREY, opacity=0.35),
                             hovertemplate="cell (node %{customdata})<extra></extra>",
                             showlegend=False, name="cells"), 1, 1)
    animated.append(len(fig.data) - 1)
    # static: the box outline
    bx, by = rectangles(lo[None, :], hi[None, :])
    fig.add_trace(go.Scatter(x=bx, y=by, mode="lines", line=dict(color=BLACK, width=5),
                             hoverinfo="skip", showlegend=False, name="box"), 1, 1)
    return animated


def _tree_traces(fig, sample, x, labels) -> list[int]:
    """The tree's traces (right); returns the indices of the animated ones."""
    # -- tree: static full tree in grey, nodes with their clocks
    gx, gy = _tree_edges(sample, x, sample.lifetime)
    fig.add_trace(go.Scatter(x=gx, y=gy, mode="lines", line=dict(color=LIGHT_GREY, width=2),
                             hoverinfo="skip", showlegend=False, name="future"), 1, 2)
    tree_animated = []
    fig.add_trace(go.Scatter(mode="lines", line=dict(color=BLACK, width=2.5), hoverinfo="skip",
                             showlegend=False, name="past"), 1, 2)
    tree_animated.append(len(fig.data) - 1)
    fig.add_trace(go.Scatter(mode="markers",
                             marker=dict(size=11, color=YELLOW, line=dict(color=BLACK, width=1.5)),
                             hovertemplate="cell at the current time (node %{customdata})"
                                           "<extra></extra>",
                             showlegend=False, name="current cells"), 1, 2)
    tree_animated.append(len(fig.data) - 1)
    fig.add_trace(go.Scatter(mode="lines", line=dict(color=RED, width=1.5, dash="dot"),
                             hoverinfo="skip", showlegend=False, name="time line"), 1, 2)
    tree_animated.append(len(fig.data) - 1)
    sides = sample.node_upper - sample.node_lower
    inner = ~sample.is_leaf
    hover = [
        f"node {j}<br>born {sample.birth_time[j]:.3f}<br>"
        + (f"cut at {sample.split_time[j]:.3f} in {'xy'[sample.split_dim[j]]} "
           f"at {sample.split_loc[j]:.3f}" if inner[j] else "leaf (no cut before the lifetime)")
        + f"<br>clock rates: width {sides[j, 0]:.3f}, height {sides[j, 1]:.3f}"
        for j in range(sample.n_nodes)
    ]
    fig.add_trace(go.Scatter(
        x=x, y=_node_y(sample), mode="markers", customdata=np.arange(sample.n_nodes),
        marker=dict(size=np.where(inner, 11, 7), symbol=np.where(inner, "circle", "square"),
                    color=np.where(inner, WHITE, BLACK), line=dict(color=BLACK, width=1.5)),
        hovertext=hover, hovertemplate="%{hovertext}<extra></extra>", showlegend=False,
        name="nodes"), 1, 2)
    if labels and inner.any():
        ids = np.flatnonzero(inner)
        ids = np.sort(ids[np.argsort(sample.split_time[ids], kind="stable")[:CLOCK_LABELS_SHOWN]])
        fig.add_trace(go.Scatter(
            x=x[ids], y=sample.split_time[ids], mode="text",
            text=[_clock_label(sides[j], sample.split_dim[j]) for j in ids],
            textposition="bottom center", textfont=dict(size=MIN_FONT, color=BLACK),
            hoverinfo="skip", showlegend=False, name="clock rates"), 1, 2)
    return tree_animated


def _selection_traces(fig, sample, x, j):
    """Outline node ``j``'s box and circle it in the tree."""
    sx, sy = rectangles(sample.node_lower[[j]], sample.node_upper[[j]])
    # black under yellow: visible on every Mondrian colour
    for colour, width in ((BLACK, 9), (YELLOW, 4)):
        fig.add_trace(go.Scatter(x=sx, y=sy, mode="lines", line=dict(color=colour,
                                                                     width=width),
                                 hoverinfo="skip", showlegend=False,
                                 name="selected cell"), 1, 1)
    fig.add_trace(go.Scatter(x=[x[j]], y=[_node_y(sample)[j]], mode="markers",
                             marker=dict(size=24, color="rgba(0,0,0,0)",
                                         line=dict(color=BLUE, width=4)),
                             hoverinfo="skip", showlegend=False, name="selected node"),
                  1, 2)


def _play_controls(fig, times, active, frame_ms, height):
    """Play and Pause buttons and the time slider, below the plot."""
    # the first Play starts at time 0; after Pause, Play resumes where it stopped
    play = dict(frame=dict(duration=frame_ms, redraw=True), fromcurrent=True,
                transition=dict(duration=0), mode="immediate")
    top, bottom = 60, _CONTROLS_GAP + _CONTROLS_HEIGHT
    controls_y = _below_plot(height, top, bottom, _CONTROLS_GAP)
    fig.update_layout(
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=controls_y, xanchor="left",
                          yanchor="top", pad=dict(t=0, r=10), showactive=False, buttons=[
                              dict(label="\u25B6 Play", method="animate", args=[None, play]),
                              dict(label="\u275A\u275A Pause", method="animate",
                                   args=[[None], dict(frame=dict(duration=0, redraw=False),
                                                      mode="immediate")]),
                          ])],
        sliders=[dict(active=active, x=0.32, len=0.68, y=controls_y, yanchor="top",
                      # at the right end: the Play buttons sit left of the slider
                      currentvalue=dict(prefix="time t = ", xanchor="right",
                                        font=dict(size=13)),
                      pad=dict(t=10, b=0), steps=[
                          dict(label=_fmt(tt), method="animate",
                               args=[[_fmt(tt)], dict(frame=dict(duration=0, redraw=True),
                                                      mode="immediate",
                                                      transition=dict(duration=0))])
                          for tt in times])],
        margin=dict(l=50, r=20, t=top, b=bottom),
    )


def _growth_axes(fig, sample, x):
    """Equal-aspect partition axes on the box; the tree's time axis pointing down."""
    lo, hi = sample.lower, sample.upper
    pad = 0.02 * float(max(hi - lo))
    fig.update_xaxes(range=[lo[0] - pad, hi[0] + pad], title_text="x", row=1, col=1,
                     constrain="domain", showgrid=False)
    fig.update_yaxes(range=[lo[1] - pad, hi[1] + pad], title_text="y", row=1, col=1,
                     scaleanchor="x", scaleratio=1, constrain="domain", showgrid=False)
    span = max(float(x.max()), 1.0)
    fig.update_xaxes(range=[-0.8, span + 0.8], showticklabels=False, ticks="", title_text="",
                     showgrid=False, row=1, col=2)
    fig.update_yaxes(range=[sample.lifetime * 1.04, -0.04 * sample.lifetime - 0.05],
                     title_text="time", row=1, col=2)


# ----------------------------------------------------------------- competing clocks


@figure_builder
def first_cut_figure(check, *, bins: int = 30, height: int = 440) -> go.Figure:
    """Draw the competing-clocks check of the first cut against theory.

    Left: first-cut times against Exp(linear dimension) truncated to the lifetime;
    right: cut dimensions against the side proportions (with +-2 binomial standard
    errors).

    Parameters
    ----------
    check : FirstCutCheck
        From :func:`~mondrian_core.process.first_cut_check`.
    bins : int, default=30
        Histogram bins of the times.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 2.2.
    """
    fig = make_subplots(rows=1, cols=2, column_widths=[0.62, 0.38], horizontal_spacing=0.17,
                        subplot_titles=("Time of the first cut", "Dimension of the first cut"))
    n = check.n_samples
    seen = np.isfinite(check.times)
    rate, L = check.rate, check.lifetime
    edges = np.linspace(0.0, L, bins + 1) if L > 0 else np.array([0.0, 1.0])
    counts, _ = np.histogram(check.times[seen], bins=edges)
    width = np.diff(edges)
    fig.add_trace(go.Bar(x=0.5 * (edges[1:] + edges[:-1]), y=counts / (n * width), width=width,
                         marker=dict(color=BLUE, line=dict(color=WHITE, width=0.5)),
                         name=f"sampled ({n:,} Mondrians)"), 1, 1)
    tt = np.linspace(0.0, edges[-1], 200)
    fig.add_trace(go.Scatter(x=tt, y=rate * np.exp(-rate * tt), mode="lines",
                             line=dict(color=RED, width=3),
                             name=f"Exp({rate:.3g}) density"), 1, 1)
    props = check.side_proportions
    dims = np.bincount(check.dims[seen], minlength=props.size)
    m = max(int(seen.sum()), 1)
    freq = dims / m
    se = np.sqrt(np.clip(props * (1 - props), 0, None) / m)
    names = ["x (width)", "y (height)", "z"][: props.size] if props.size <= 3 else \
        [f"dim {d}" for d in range(props.size)]
    fig.add_trace(go.Bar(x=names, y=freq, marker_color=BLUE, showlegend=False,
                         name="sampled"), 1, 2)
    fig.add_trace(go.Scatter(x=names, y=props, mode="markers",
                             marker=dict(symbol="line-ew-open", size=40, color=RED,
                                         line=dict(width=3)),
                             error_y=dict(array=2 * se, color=RED, thickness=1.2, width=10),
                             name="side / linear dimension (±2 s.e.)"), 1, 2)
    fig.update_xaxes(title_text="first cut time", row=1, col=1)
    fig.update_yaxes(title_text="density", row=1, col=1)
    # a little headroom: the top tick label stays clear of the panel's title
    fig.update_yaxes(title_text="fraction of first cuts", range=[0, 1.08],
                     tickvals=[0, 0.2, 0.4, 0.6, 0.8, 1], row=1, col=2)
    fig.update_layout(bargap=0.05)
    # below the x-axis titles (the legend used to sit on them); room for three rows
    # when a narrow column stacks the entries
    return legend_below(styled(fig, height=height), gap=70, legend_height=65)


# ----------------------------------------------------------------- projectivity


@figure_builder
def projectivity_figure(sample, restricted, check, *, height: int = 420) -> go.Figure:
    """Draw a sample restricted to a sub-box and the sub-box's cell counts.

    Left: the sample (grey) and its restriction to the sub-box (black, blue frame).
    Right: how often the sub-box has k cells, restricted vs sampled directly.

    Parameters
    ----------
    sample : MondrianSample
        A 2-D sample on the big box.
    restricted : MondrianSample
        Its restriction to the sub-box (:meth:`MondrianSample.restrict`).
    check : ProjectivityCheck
        From :func:`~mondrian_core.process.projectivity_check`.
    %(builder)s

    Raises
    ------
    ValueError
        If the sample is not 2-D.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 2.3.
    """
    _need_2d(sample)
    fig = make_subplots(rows=1, cols=2, column_widths=[0.45, 0.55], horizontal_spacing=0.14,
                        subplot_titles=("Sample restricted to the sub-box",
                                        "Cells in the sub-box over many samples"))
    cx, cy = _cut_segments(sample, sample.cut_nodes)
    fig.add_trace(go.Scatter(x=cx, y=cy, mode="lines", line=dict(color=GREY, width=1.5),
                             hoverinfo="skip", name="cuts on the whole box"), 1, 1)
    rx, ry = _cut_segments(restricted, restricted.cut_nodes)
    fig.add_trace(go.Scatter(x=rx, y=ry, mode="lines", line=dict(color=BLACK, width=3),
                             hoverinfo="skip", name="cuts of the restriction"), 1, 1)
    bx, by = rectangles(sample.lower[None], sample.upper[None])
    fig.add_trace(go.Scatter(x=bx, y=by, mode="lines", line=dict(color=BLACK, width=4),
                             hoverinfo="skip", showlegend=False), 1, 1)
    sx, sy = rectangles(restricted.lower[None], restricted.upper[None])
    fig.add_trace(go.Scatter(x=sx, y=sy, mode="lines", line=dict(color=BLUE, width=4),
                             fill="toself", fillcolor="rgba(19,86,162,0.08)",
                             hoverinfo="skip", name="sub-box"), 1, 1)
    top = int(max(check.restricted.max(), check.direct.max()))
    k = np.arange(1, top + 1)
    for counts, name, colour in ((check.restricted, "restricted from the box", BLUE),
                                 (check.direct, "sampled on the sub-box", RED)):
        freq = np.bincount(counts, minlength=top + 1)[1:] / counts.size
        fig.add_trace(go.Bar(x=k, y=freq, name=name, marker_color=colour, opacity=0.8), 1, 2)
    fig.add_vline(x=check.expected, line=dict(color=BLACK, dash="dash", width=2), row=1, col=2)
    fig.add_annotation(x=check.expected, y=1, yref="y2 domain", xref="x2",
                       text=f"mean prod(1 + L s_d) = {check.expected:.2f}", showarrow=False,
                       xanchor="left", yanchor="top", xshift=4)
    pad = 0.02 * float(max(sample.upper - sample.lower))
    fig.update_xaxes(range=[sample.lower[0] - pad, sample.upper[0] + pad], title_text="x",
                     showgrid=False, constrain="domain", row=1, col=1)
    fig.update_yaxes(range=[sample.lower[1] - pad, sample.upper[1] + pad], title_text="y",
                     scaleanchor="x", constrain="domain", showgrid=False, row=1, col=1)
    fig.update_xaxes(title_text="number of cells in the sub-box", row=1, col=2)
    fig.update_yaxes(title_text="fraction of samples", row=1, col=2)
    fig.update_layout(barmode="group", bargap=0.15)
    return legend_below(styled(fig, height=height), gap=70, legend_height=40)


# ----------------------------------------------------------------- extension


def extension_parts(old, new) -> dict:
    """Classify the cuts of ``new`` (an extension of ``old``) for drawing.

    Parameters
    ----------
    old : MondrianSample
        The original 2-D sample.
    new : MondrianSample
        An extension of it (:func:`~mondrian_core.process.extend_mondrian`).

    Returns
    -------
    dict
        Polylines (x, y lists, ``None`` between pieces) for ``"old"`` (old cuts
        inside the old box), ``"extended"`` (their continuation into the new
        region), ``"above"`` (new cuts inserted above an old node: ancestors of
        extended nodes) and ``"fresh"`` (cuts in the new regions, below an inserted
        cut).
    """
    cut = new.cut_nodes
    src = new.source_node
    kept = cut[src[cut] >= 0]
    lo_old = old.node_lower[src[kept]]
    hi_old = old.node_upper[src[kept]]
    parts = {"old": _cut_segments(new, kept, lo_old, hi_old)}
    # continuation: the new span minus the old span, as up to two pieces per cut
    lo_new, hi_new = new.node_lower[kept], new.node_upper[kept]
    other = 1 - new.split_dim[kept]
    r = np.arange(kept.size)
    lo_a, hi_a = lo_new.copy(), hi_new.copy()
    hi_a[r, other] = lo_old[r, other]
    lo_b, hi_b = lo_new.copy(), hi_new.copy()
    lo_b[r, other] = hi_old[r, other]
    ex1 = _cut_segments(new, kept, lo_a, hi_a)
    ex2 = _cut_segments(new, kept, lo_b, hi_b)
    parts["extended"] = (np.concatenate([ex1[0], ex2[0]]), np.concatenate([ex1[1], ex2[1]]))
    # new cuts: above an old node iff some kept node descends from them
    ancestor = np.zeros(new.n_nodes, bool)
    cur = new.parent[src >= 0]
    while cur.size:
        cur = cur[cur >= 0]
        ancestor[cur] = True
        cur = new.parent[cur]
    fresh_cut = cut[src[cut] < 0]
    parts["above"] = _cut_segments(new, fresh_cut[ancestor[fresh_cut]])
    parts["fresh"] = _cut_segments(new, fresh_cut[~ancestor[fresh_cut]])
    return parts


_EXT_STYLES = {
    "old": dict(color=BLACK, width=3),
    "extended": dict(color=BLACK, width=2, dash="dot"),
    "above": dict(color=RED, width=3),
    "fresh": dict(color=BLUE, width=2),
}
_EXT_NAMES = {"old": "old cuts", "extended": "old cuts, extended",
              "above": "new cuts above old ones", "fresh": "new cuts in new regions"}


@figure_builder
def extension_figure(old, chain, *, frame_ms: int = 600, height: int = 520) -> go.Figure:
    """Draw a conditional Mondrian growing a box step by step.

    ``chain`` is a list of extensions of ``old`` to growing boxes (each extending
    the previous); the figure shows the last one, frames step through them all.
    Old cuts black, their extensions dotted, new cuts above old nodes red, new cuts
    in new regions blue; the old box is framed in yellow, each current box in black.

    Parameters
    ----------
    old : MondrianSample
        The original 2-D sample.
    chain : list of MondrianSample
        Its extensions (:func:`~mondrian_core.process.extension_chain`).
    frame_ms : int, default=600
        Milliseconds per frame when playing.
    %(builder)s

    Raises
    ------
    ValueError
        If the sample is not 2-D.

    References
    ----------
    Roy and Teh (2009), "The Mondrian Process". Lakshminarayanan, Roy and Teh (2014),
    "Mondrian Forests: Efficient Online Random Forests".
    """
    _need_2d(old)
    fig = go.Figure()
    order = list(_EXT_STYLES)
    for key in order:
        fig.add_trace(go.Scatter(mode="lines", line=_EXT_STYLES[key], name=_EXT_NAMES[key],
                                 hoverinfo="skip"))
    fig.add_trace(go.Scatter(mode="lines", line=dict(color=BLACK, width=4), name="box",
                             showlegend=False, hoverinfo="skip"))
    ox, oy = rectangles(old.lower[None], old.upper[None])
    fig.add_trace(go.Scatter(x=ox, y=oy, mode="lines", line=dict(color=YELLOW, width=4),
                             name="old box", hoverinfo="skip"))

    def state(sample):
        parts = extension_parts(old, sample)
        bx, by = rectangles(sample.lower[None], sample.upper[None])
        return [dict(x=parts[k][0], y=parts[k][1]) for k in order] + [dict(x=bx, y=by)]

    steps = [old] + list(chain)
    for idx, d in enumerate(state(steps[-1])):
        fig.data[idx].update(**d)
    names = [f"box {k}" for k in range(len(steps))]
    frames = [dict(name=nm, data=[_frame_trace(d) for d in state(s)],
                   traces=list(range(len(order) + 1))) for nm, s in zip(names, steps)]
    play = dict(frame=dict(duration=frame_ms, redraw=True), fromcurrent=False,
                transition=dict(duration=0), mode="immediate")
    top, bottom = 90, _CONTROLS_GAP + 50
    controls_y = _below_plot(height, top, bottom, _CONTROLS_GAP)
    fig.update_layout(
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=controls_y, xanchor="left",
                          yanchor="top", showactive=False, buttons=[
                              dict(label="\u25B6 Grow", method="animate", args=[None, play]),
                              dict(label="\u275A\u275A Pause", method="animate",
                                   args=[[None], dict(frame=dict(duration=0, redraw=False),
                                                      mode="immediate")])])],
        sliders=[dict(active=len(steps) - 1, x=0.25, len=0.75, y=controls_y, yanchor="top",
                      currentvalue=dict(visible=False), steps=[
                          dict(label=nm, method="animate",
                               args=[[nm], dict(frame=dict(duration=0, redraw=True),
                                                mode="immediate")]) for nm in names])],
        # above the plot, in the top margin kept for it (two rows at most)
        legend=dict(orientation="h", y=1.02, x=0, yanchor="bottom"),
        margin=dict(l=50, r=20, t=top, b=bottom),
    )
    big = steps[-1]
    pad = 0.02 * float(max(big.upper - big.lower))
    fig.update_xaxes(range=[big.lower[0] - pad, big.upper[0] + pad], title_text="x",
                     showgrid=False, constrain="domain")
    fig.update_yaxes(range=[big.lower[1] - pad, big.upper[1] + pad], title_text="y",
                     scaleanchor="x", constrain="domain", showgrid=False)
    return _with_frames(styled(fig, height=height), frames)


# ----------------------------------------------------------------- cell counts


@figure_builder
def cell_count_figure(counts, expected, *, height: int = 380) -> go.Figure:
    """Draw how many cells Mondrians on one box have, at two or more lifetimes.

    One histogram per lifetime (the share of samples with k cells), the sample mean
    as a solid line and the expectation prod_d (1 + lifetime a_d) as a dashed one.

    Parameters
    ----------
    counts : dict of float to array-like of int
        Lifetime -> the cell counts of independent Mondrians at that lifetime
        (e.g. :func:`~mondrian_core.process.forest_cell_counts`).
    expected : dict of float to float
        Lifetime -> the expected number of cells
        (:func:`~mondrian_core.expected_cells`), same keys as ``counts``.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 2 (the expected number of cells).
    """
    fig = go.Figure()
    colours = [BLUE, RED, YELLOW, GREY]
    top = 0.0
    for i, lifetime in enumerate(sorted(counts)):
        c = np.asarray(counts[lifetime])
        colour = colours[i % len(colours)]
        # about 30 bins whatever the spread, so both histograms stay readable
        step = max(1, int(np.ceil((c.max() - c.min() + 1) / 30)))
        edges = np.arange(c.min(), c.max() + step + 1, step) - 0.5
        freq, _ = np.histogram(c, bins=edges)
        share = freq / c.size / step
        top = max(top, float(share.max()))
        fig.add_trace(go.Bar(x=0.5 * (edges[1:] + edges[:-1]), y=share, width=step * 0.9,
                             marker_color=colour, opacity=0.75,
                             name=f"λ = {lifetime:g}: mean {c.mean():.1f} cells"))
        fig.add_vline(x=float(expected[lifetime]), line=dict(color=colour, dash="dash",
                                                             width=2.5))
        fig.add_annotation(x=float(expected[lifetime]), y=1, yref="paper", xanchor="left",
                           yanchor="top", xshift=4, showarrow=False,
                           text=f"expected {expected[lifetime]:.1f}",
                           font=dict(color=colour))
    n = len(next(iter(counts.values())))
    fig.update_xaxes(title_text="number of cells", rangemode="tozero")
    fig.update_yaxes(title_text="share of samples", range=[0, top * 1.25])
    fig.update_layout(barmode="overlay", bargap=0)
    styled(fig, title=f"Cells of {n:,} Mondrians on this box (dashed: ∏(1 + λ a_d))",
           height=height)
    return legend_below(fig, gap=62)
