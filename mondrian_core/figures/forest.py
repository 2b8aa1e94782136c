"""Figures for the forest pages: kernel vs forest (paper's Figures 9, 10), online forest.

Pure functions of core results returning plotly figures styled with the theme.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mondrian_core.figures._parts import (
    axis_key,
    figure_builder,
    polyline,
    rectangles,
    subplots_layout,
    validated_once,
)
from mondrian_core.figures.theme import (
    BLACK,
    BLUE,
    GREY,
    RED,
    SEQUENTIAL,
    SERIES,
    YELLOW,
    legend_below,
    legend_below_layout,
    styled,
    styled_layout,
)
from mondrian_core.forest import EXTEND, INSERT_ABOVE, NO_CHANGE, OPERATION_NAMES, SPLIT_LEAF

KERNEL_COLOUR, FOREST_COLOUR, SGD_COLOUR = BLUE, RED, SERIES[4]  # teal
# Mondrian's yellow for "extend": the darker #E0A800 and red both turn orange in the
# colour-blind safe palette (#E69F00 next to #D55E00)
OPERATION_COLOURS = {NO_CHANGE: GREY, EXTEND: YELLOW, INSERT_ABOVE: BLUE, SPLIT_LEAF: RED}
#: Legend names of the batch's points in the one-tree plot (short: the legend sits below it).
_SHORT_OPERATION_NAMES = {NO_CHANGE: "no change", EXTEND: "extend", INSERT_ABOVE: "insert above",
                          SPLIT_LEAF: "split leaf"}


@figure_builder
def kernel_vs_forest_rmse(path, lifetime=None, *, sgd=None, height=420) -> go.Figure:
    """Plot test (solid) and train (dotted) RMSE against lifetime for both fits.

    The paper's Figure 9.

    Parameters
    ----------
    path : KernelForestPath
        From :func:`~mondrian_core.experiments.kernel_vs_forest.kernel_vs_forest_path`.
    lifetime : float, optional
        The slider's lifetime, marked by a dashed line.
    sgd : PaperSGDPath, optional
        The kernel fitted by the paper's SGD
        (:func:`~mondrian_core.experiments.kernel_vs_forest.paper_sgd_path`): its test
        and train RMSE drawn dashed.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 8.3 and Figure 9.
    """
    fig = go.Figure()
    x = np.maximum(path.lifetimes, 1e-12)
    for name, colour, test, train in (
            ("kernel", KERNEL_COLOUR, path.kernel_test_rmse,
             path.kernel_train_rmse),
            ("forest", FOREST_COLOUR, path.forest_test_rmse,
             path.forest_train_rmse)):
        fig.add_trace(go.Scatter(x=x, y=test, mode="lines+markers", name=f"{name}, test",
                                 line=dict(color=colour, width=2.5), marker=dict(size=6)))
        fig.add_trace(go.Scatter(x=x, y=train, mode="lines", name=f"{name}, train",
                                 line=dict(color=colour, width=1.5, dash="dot")))
    if sgd is not None:
        xs = np.maximum(sgd.lifetimes, 1e-12)
        fig.add_trace(go.Scatter(x=xs, y=sgd.test_rmse, mode="lines+markers",
                                 name="kernel by SGD (paper), test",
                                 line=dict(color=SGD_COLOUR, width=2.5, dash="dash"),
                                 marker=dict(size=6, symbol="diamond")))
        fig.add_trace(go.Scatter(x=xs, y=sgd.train_rmse, mode="lines",
                                 name="kernel by SGD (paper), train",
                                 line=dict(color=SGD_COLOUR, width=1.5, dash="dot")))
    if lifetime is not None:
        fig.add_vline(x=max(lifetime, 1e-12), line=dict(color=BLACK, width=1, dash="dash"))
    fig.update_xaxes(title="lifetime λ (log scale)", type="log")
    fig.update_yaxes(title="RMSE (units of the target)")
    styled(fig, title="Mondrian kernel vs forest on the same trees", height=height)
    legend_below(fig, gap=80, legend_height=45)
    # two entries per row (test and train of one model side by side): two rows, not four
    fig.update_layout(legend=dict(entrywidth=0.5, entrywidthmode="fraction"))
    return fig


@figure_builder
def weight_histograms(weights, *, sgd_weights=None, paper_scale=False, bins=40,
                      height=460) -> go.Figure:
    """Draw histograms of the kernel's and the forest's weights on the same bins and axes.

    The paper's Figure 10.

    Parameters
    ----------
    weights : KernelForestWeights
        From :func:`~mondrian_core.experiments.kernel_vs_forest.kernel_forest_weights`.
    sgd_weights : array-like, optional
        The kernel's weights fitted by the paper's SGD at the same lifetime
        (:meth:`PaperSGDPath.weights_at
        <mondrian_core.experiments.kernel_vs_forest.PaperSGDPath.weights_at>`): a middle
        row.
    paper_scale : bool, default False
        Draw the forest's weights as the paper's code stores them, as leaf values
        (``sqrt(M)`` times the normalised weights), instead of normalised like the
        kernel's.
    bins : int, default=40
        Number of bins, symmetric about 0.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 8.3 and Figure 10.
    """
    wk, wf = np.asarray(weights.kernel_weights), np.asarray(weights.forest_weights)
    n_trees = weights.n_trees
    forest_name = "forest (each tree alone)"
    if paper_scale:
        wf = np.asarray(weights.forest_leaf_values)
        forest_name = f"forest, as leaf values (× √M = {np.sqrt(n_trees):.3g}, the paper's code)"
    rows = [(f"kernel, exact ridge (joint fit), std {wk.std():.3g}", wk, KERNEL_COLOUR)]
    if sgd_weights is not None:
        ws = np.asarray(sgd_weights)
        rows.append((f"kernel by SGD (the paper's training), std {ws.std():.3g}", ws,
                     SGD_COLOUR))
    rows.append((f"{forest_name}, std {wf.std():.3g}", wf, FOREST_COLOUR))
    lim = float(max(max(np.abs(w).max(initial=0) for _, w, _ in rows), 1e-12))
    edges = np.linspace(-lim, lim, bins + 1)
    fig = make_subplots(rows=len(rows), cols=1, shared_xaxes=True, shared_yaxes=True,
                        vertical_spacing=0.12 if len(rows) == 2 else 0.09,
                        subplot_titles=[title for title, _, _ in rows])
    centres = (edges[:-1] + edges[1:]) / 2
    for row, (_, w, colour) in enumerate(rows, start=1):
        counts, _ = np.histogram(w, bins=edges)
        fig.add_trace(go.Bar(x=centres, y=counts, width=edges[1] - edges[0],
                             marker=dict(color=colour, line=dict(color=BLACK, width=0.5)),
                             showlegend=False,
                             hovertemplate="weight %{x:.3g}<br>%{y} weights<extra></extra>"),
                      row=row, col=1)
        fig.update_yaxes(title="number of weights" if row == 1 else None, row=row, col=1)
    fig.update_annotations(yshift=6, font=dict(size=13))  # subplot titles clear of the frame
    fig.update_xaxes(range=[-lim, lim])
    fig.update_xaxes(title="weight (normalised: w = [w⁽¹⁾ … w⁽ᴹ⁾] / √M)", row=len(rows), col=1)
    return styled(fig, title=f"Weights learned at lifetime {weights.lifetime:.3g}", height=height)


@validated_once
@figure_builder
def tree_partition(snapshot, X_seen, y_seen, *, task="classification", box=None,
                   height=540) -> go.Figure:
    """Draw one online tree: leaf boxes, splits (new ones thick), the batch by operation.

    Leaf boxes are the extents of the data in each leaf. Drawn to be read on a projector
    in a narrow column: thick outlines, large markers, the legend below the plot.

    Parameters
    ----------
    snapshot : TreeSnapshot
        The tree after a batch (:func:`~mondrian_core.experiments.online.online_run`).
    X_seen : ndarray of shape (n, 2)
        The points seen so far.
    y_seen : ndarray of shape (n,)
        Their labels or targets.
    task : {"classification", "regression"}, default="classification"
        How to colour the points seen.
    box : array-like of shape (2, 2), optional
        The axes' range (lower row, upper row).
    %(builder)s

    References
    ----------
    Lakshminarayanan, Roy and Teh (2014), "Mondrian Forests: Efficient Online Random
    Forests", NIPS.
    """
    # dicts, validated once in one go.Figure (graph objects validate at every step)
    traces = []
    # the cells as one trace of closed outlines (one shape per cell cost quadratic time
    # in the number of cells: 52 s for a large tree)
    boxes = np.asarray(snapshot.leaf_boxes, dtype=float).reshape(-1, 2, 2)
    if boxes.size:
        xs, ys = rectangles(boxes[:, 0], boxes[:, 1])
        traces.append(dict(type="scatter", x=xs, y=ys, mode="lines", fill="toself",
                           fillcolor="rgba(247,216,66,0.22)", hoverinfo="skip",
                           line=dict(color=GREY, width=1.5), showlegend=False,
                           name="cell (leaf)"))
    for new in (False, True):
        seg = snapshot.segments[snapshot.new_segment == new]
        if seg.size == 0:
            continue
        xs, ys = polyline(seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3])
        traces.append(dict(type="scatter", x=xs, y=ys, mode="lines", hoverinfo="skip",
                           name="new split" if new else "split", showlegend=new,
                           line=dict(color=RED if new else BLACK, width=5 if new else 2)))
    # only the batch's marks in the legend (the counts are in the page's caption): a legend
    # of every mark took as much height as the plot in projector mode
    if task == "classification":
        for k, label in enumerate(np.unique(y_seen)):
            sel = y_seen == label
            traces.append(dict(type="scatter", x=X_seen[sel, 0], y=X_seen[sel, 1],
                               mode="markers", name=f"class {label}", showlegend=False,
                               marker=dict(size=8, color=SERIES[(k + 3) % len(SERIES)],
                                           opacity=0.55)))
    else:
        traces.append(dict(type="scatter", x=X_seen[:, 0], y=X_seen[:, 1], mode="markers",
                           name="seen", showlegend=False,
                           marker=dict(size=8, color=y_seen, colorscale=SEQUENTIAL,
                                       opacity=0.6, showscale=False)))
    for op in OPERATION_NAMES:
        sel = snapshot.operations == op
        if not np.any(sel):
            continue
        traces.append(dict(
            type="scatter", x=snapshot.new_points[sel, 0], y=snapshot.new_points[sel, 1],
            mode="markers", name=_SHORT_OPERATION_NAMES[op],
            marker=dict(size=14, color=OPERATION_COLOURS[op], symbol="diamond",
                        line=dict(color=BLACK, width=1.5))))
    xaxis, yaxis = dict(title=dict(text="x1")), dict(title=dict(text="x2"))
    if box is not None:
        xaxis["range"] = [box[0][0], box[1][0]]
        yaxis["range"] = [box[0][1], box[1][1]]
    layout = styled_layout(dict(xaxis=xaxis, yaxis=yaxis, margin=dict(t=40)),
                           title="Tree 1 of the forest: its cells and splits", height=height)
    # below the plot, not beside it: beside, the legend takes a third of a narrow column
    return go.Figure(data=traces,
                     layout=legend_below_layout(layout, gap=80, legend_height=40))


@validated_once
@figure_builder
def online_scores(run, step=None, *, height=420) -> go.Figure:
    """Plot the test score of the online forest and retrained batch forests.

    Against the number of points seen.

    Parameters
    ----------
    run : OnlineRun
        From :func:`~mondrian_core.experiments.online.online_run`.
    step : int, optional
        The batch shown elsewhere, marked by a dashed line.
    %(builder)s
    """
    colours = [RED, BLUE, "#E0A800"]
    traces = [dict(type="scatter", x=run.n_seen, y=values, mode="lines+markers", name=name,
                   line=dict(color=colour, width=2.5 if "Mondrian" in name else 1.8),
                   marker=dict(size=5))
              for (name, values), colour in zip(run.scores.items(), colours)]
    # the line ``add_vline`` draws on a single plot, without its axis lookups
    shapes = [] if step is None else [
        dict(type="line", x0=int(run.n_seen[step]), x1=int(run.n_seen[step]), xref="x",
             y0=0, y1=1, yref="y domain", line=dict(color=BLACK, width=1, dash="dash"))]
    layout = styled_layout(dict(shapes=shapes, xaxis=dict(title=dict(text="training points seen")),
                                yaxis=dict(title=dict(text=run.score_name))),
                           title="Online forest vs retrained forests", height=height)
    # below, one name per row: inside the plot the legend hid the first batches' scores
    return go.Figure(data=traces,
                     layout=legend_below_layout(layout, gap=62, legend_height=66))


@validated_once
@figure_builder
def uncertainty_maps_figure(maps, X_train=None, *, height=430) -> go.Figure:
    """Map each method's predictive standard deviation over the grid.

    The training region is outlined.

    Parameters
    ----------
    maps : UncertaintyMaps
        From :func:`~mondrian_core.experiments.online.uncertainty_maps`.
    X_train : ndarray of shape (n, 2), optional
        Training points to overlay.
    %(builder)s

    References
    ----------
    Lakshminarayanan, Roy and Teh (2016), "Mondrian Forests for Large-Scale
    Regression when Uncertainty Matters", AISTATS.
    """
    names = list(maps.std)
    zmax = float(max(v.max() for v in maps.std.values()))
    layout, cells = subplots_layout(rows=1, cols=len(names), shared_yaxes=True,
                                    horizontal_spacing=0.03, subplot_titles=names)
    lo, up = maps.train_box
    # dicts, validated once in one go.Figure (graph objects validate at every step: the
    # three 90 x 90 heat maps were most of a new link's figure time)
    traces, shapes = [], []
    for col, name in enumerate(names, start=1):
        axes = cells[0][col - 1]
        traces.append(dict(
            type="heatmap", x=maps.grid_x, y=maps.grid_y, z=maps.std[name], zmin=0, zmax=zmax,
            colorscale=SEQUENTIAL, showscale=col == len(names), colorbar=dict(title="std"),
            hovertemplate="x1 %{x:.2f}<br>x2 %{y:.2f}<br>std %{z:.3f}<extra></extra>", **axes))
        shapes.append(dict(type="rect", x0=lo[0], y0=lo[1], x1=up[0], y1=up[1],
                           line=dict(color=YELLOW, width=2.5, dash="dash"),
                           xref=axes["xaxis"], yref=axes["yaxis"]))
        if X_train is not None:
            traces.append(dict(type="scatter", x=X_train[:, 0], y=X_train[:, 1], mode="markers",
                               marker=dict(size=3, color=YELLOW), showlegend=False,
                               hoverinfo="skip", **axes))
        layout[axis_key(axes["xaxis"])].update(title=dict(text="x1"),
                                               range=[maps.grid_x[0], maps.grid_x[-1]])
    layout[axis_key(cells[0][0]["yaxis"])].update(title=dict(text="x2"),
                                                  range=[maps.grid_y[0], maps.grid_y[-1]])
    layout["shapes"] = shapes
    for a in layout.get("annotations", ()):  # subplot titles clear of the frame
        a["yshift"] = 6
        a.setdefault("font", {})["size"] = 13
    layout = styled_layout(layout, title="Standard deviation of the prediction (training "
                           "region dashed)", height=height)
    return go.Figure(data=traces, layout=layout)


@validated_once
@figure_builder
def operation_counts(run, step, *, height=420) -> go.Figure:
    """Count the (point, tree) insertions that caused each operation, per batch.

    Up to and including batch ``step``, stacked by operation.

    Parameters
    ----------
    run : OnlineRun
        From :func:`~mondrian_core.experiments.online.online_run`.
    step : int
        The last batch shown.
    %(builder)s

    References
    ----------
    Lakshminarayanan, Roy and Teh (2014), "Mondrian Forests: Efficient Online Random
    Forests", NIPS.
    """
    traces = [dict(type="bar", x=run.n_seen[:step + 1], y=run.operation_counts[:step + 1, op],
                   name=name, marker=dict(color=OPERATION_COLOURS[op]))
              for op, name in OPERATION_NAMES.items()]
    layout = styled_layout(dict(barmode="stack",
                                xaxis=dict(title=dict(text="training points seen")),
                                yaxis=dict(title=dict(text="(point, tree) pairs"))),
                           title="Operations per batch, all trees", height=height)
    # below the axis title, one operation per row (the column is narrow)
    return go.Figure(data=traces,
                     layout=legend_below_layout(layout, gap=62, legend_height=80))

