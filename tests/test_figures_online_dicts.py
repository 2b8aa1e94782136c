"""The online page's dict-built figures against their graph-object builds (kept here as
the slow, obvious reference): the same figure, key for key."""
from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from mondrian_core import datasets
from mondrian_core.experiments.grids import padded_box
from mondrian_core.experiments.online import (
    online_kernel_forest,
    online_run,
    uncertainty_maps_in_region,
)
from mondrian_core.figures._parts import band, polyline, rectangles, subplots
from mondrian_core.figures.forest import (
    OPERATION_COLOURS,
    online_scores,
    operation_counts,
    tree_partition,
    uncertainty_maps_figure,
)
from mondrian_core.figures.online import stream_fits_figure
from mondrian_core.figures.theme import (
    BLACK,
    BLUE,
    GREY,
    RED,
    SEQUENTIAL,
    SERIES,
    YELLOW,
    legend_below,
    styled,
)
from mondrian_core.forest import EXTEND, INSERT_ABOVE, NO_CHANGE, OPERATION_NAMES, SPLIT_LEAF

_SHORT_OPERATION_NAMES = {NO_CHANGE: "no change", EXTEND: "extend", INSERT_ABOVE: "insert above",
                          SPLIT_LEAF: "split leaf"}
_BANDS = {BLUE: "rgba(19,86,162,0.18)", RED: "rgba(212,9,32,0.15)"}


def _reference_tree_partition(snapshot, X_seen, y_seen, *, task="classification", box=None,
                              height=540) -> go.Figure:
    fig = go.Figure()
    # the cells as one trace of closed outlines (one shape per cell cost quadratic time
    # in the number of cells: 52 s for a large tree)
    boxes = np.asarray(snapshot.leaf_boxes, dtype=float).reshape(-1, 2, 2)
    if boxes.size:
        xs, ys = rectangles(boxes[:, 0], boxes[:, 1])
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", fill="toself",
                                 fillcolor="rgba(247,216,66,0.22)", hoverinfo="skip",
                                 line=dict(color=GREY, width=1.5), showlegend=False,
                                 name="cell (leaf)"))
    for new in (False, True):
        seg = snapshot.segments[snapshot.new_segment == new]
        if seg.size == 0:
            continue
        xs, ys = polyline(seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3])
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", hoverinfo="skip",
                                 name="new split" if new else "split", showlegend=new,
                                 line=dict(color=RED if new else BLACK, width=5 if new else 2)))
    # only the batch's marks in the legend (the counts are in the page's caption): a legend
    # of every mark took as much height as the plot in projector mode
    if task == "classification":
        for k, label in enumerate(np.unique(y_seen)):
            sel = y_seen == label
            fig.add_trace(go.Scatter(x=X_seen[sel, 0], y=X_seen[sel, 1], mode="markers",
                                     name=f"class {label}", showlegend=False,
                                     marker=dict(size=8, color=SERIES[(k + 3) % len(SERIES)],
                                                 opacity=0.55)))
    else:
        fig.add_trace(go.Scatter(x=X_seen[:, 0], y=X_seen[:, 1], mode="markers", name="seen",
                                 showlegend=False, marker=dict(size=8, color=y_seen, colorscale=SEQUENTIAL,
                                             opacity=0.6, showscale=False)))
    for op in OPERATION_NAMES:
        sel = snapshot.operations == op
        if not np.any(sel):
            continue
        fig.add_trace(go.Scatter(
            x=snapshot.new_points[sel, 0], y=snapshot.new_points[sel, 1], mode="markers",
            name=_SHORT_OPERATION_NAMES[op],
            marker=dict(size=14, color=OPERATION_COLOURS[op], symbol="diamond",
                        line=dict(color=BLACK, width=1.5))))
    if box is not None:
        fig.update_xaxes(range=[box[0][0], box[1][0]])
        fig.update_yaxes(range=[box[0][1], box[1][1]])
    fig.update_xaxes(title="x1")
    fig.update_yaxes(title="x2")
    fig.update_layout(margin=dict(t=40))
    styled(fig, title="Tree 1 of the forest: its cells and splits", height=height)
    # below the plot, not beside it: beside, the legend takes a third of a narrow column
    return legend_below(fig, gap=80, legend_height=40)


def _reference_online_scores(run, step=None, *, height=420) -> go.Figure:
    fig = go.Figure()
    colours = [RED, BLUE, "#E0A800"]
    for (name, values), colour in zip(run.scores.items(), colours):
        fig.add_trace(go.Scatter(x=run.n_seen, y=values, mode="lines+markers", name=name,
                                 line=dict(color=colour, width=2.5 if "Mondrian" in name else 1.8),
                                 marker=dict(size=5)))
    if step is not None:
        fig.add_vline(x=int(run.n_seen[step]), line=dict(color=BLACK, width=1, dash="dash"))
    fig.update_xaxes(title="training points seen")
    fig.update_yaxes(title=run.score_name)
    # below, one name per row: inside the plot the legend hid the first batches' scores
    styled(fig, title="Online forest vs retrained forests", height=height)
    return legend_below(fig, gap=62, legend_height=66)


def _reference_operation_counts(run, step, *, height=420) -> go.Figure:
    fig = go.Figure()
    for op, name in OPERATION_NAMES.items():
        fig.add_trace(go.Bar(x=run.n_seen[:step + 1], y=run.operation_counts[:step + 1, op],
                             name=name, marker=dict(color=OPERATION_COLOURS[op])))
    fig.update_layout(barmode="stack")
    fig.update_xaxes(title="training points seen")
    fig.update_yaxes(title="(point, tree) pairs")
    styled(fig, title="Operations per batch, all trees", height=height)
    # below the axis title, one operation per row (the column is narrow)
    return legend_below(fig, gap=62, legend_height=80)


def _reference_stream_fits_figure(stream, step, *, height=470) -> go.Figure:
    seen = int(stream.n_seen[step])
    first = int(stream.n_seen[step - 1]) if step > 0 else 0
    x, y, g = stream.X[:, 0], stream.y, stream.grid
    # short panel titles: two of them share the width of a laptop's main column
    panels = ((f"Kernel: ridge on {stream.n_features[step]} cells", BLUE,
               stream.kernel_mean[step], stream.kernel_std[step]),
              ("Forest: trees alone", RED,
               stream.forest_mean[step], stream.forest_std[step]))
    fig = subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=[p[0] for p in panels])
    values = np.concatenate([y, *(p[2] for p in panels)])
    lo, hi = float(values.min()), float(values.max())
    pad = 0.15 * (hi - lo)
    for col, (name, colour, mean, std) in enumerate(panels, start=1):
        legend = col == 1
        fig.add_trace(band(g, mean - 2 * std, mean + 2 * std, _BANDS[colour],
                           name="mean ± 2 std", legendgroup="band", showlegend=legend,
                           marker=dict(color=GREY)), row=1, col=col)
        if stream.f is not None:
            fig.add_trace(go.Scatter(x=g, y=stream.f, mode="lines", name="true function",
                                     line=dict(color=BLACK, width=1.5, dash="dash"),
                                     legendgroup="f", showlegend=legend), row=1, col=col)
        fig.add_trace(go.Scatter(x=x[:first], y=y[:first], mode="markers", name="seen earlier",
                                 marker=dict(size=6, color=GREY, opacity=0.7),
                                 legendgroup="seen", showlegend=legend), row=1, col=col)
        fig.add_trace(go.Scatter(x=x[first:seen], y=y[first:seen], mode="markers",
                                 name="latest batch",
                                 marker=dict(size=10, color=YELLOW, symbol="diamond",
                                             line=dict(color=BLACK, width=1.2)),
                                 legendgroup="new", showlegend=legend), row=1, col=col)
        fig.add_trace(go.Scatter(x=g, y=mean, mode="lines", name=name.split(":")[0] + " mean",
                                 line=dict(color=colour, width=3)), row=1, col=col)
        # no axis title: in projector mode it ran into the legend below
        fig.update_xaxes(range=[g[0], g[-1]], row=1, col=col)
    fig.update_yaxes(title="y", range=[lo - pad, hi + pad], row=1, col=1)
    fig.update_annotations(yshift=6, font=dict(size=14))  # subplot titles clear of the frame
    styled(fig, title=f"The same stream, after {seen} of {len(x)} points", height=height)
    fig.update_layout(margin=dict(t=85))  # the title above the two panel titles
    return legend_below(fig, gap=45, legend_height=50)


def _reference_uncertainty_maps_figure(maps, X_train=None, *, height=430) -> go.Figure:
    names = list(maps.std)
    zmax = float(max(v.max() for v in maps.std.values()))
    fig = make_subplots(rows=1, cols=len(names), shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=names)
    for col, name in enumerate(names, start=1):
        fig.add_trace(go.Heatmap(
            x=maps.grid_x, y=maps.grid_y, z=maps.std[name], zmin=0, zmax=zmax,
            colorscale=SEQUENTIAL, showscale=col == len(names),
            colorbar=dict(title="std"),
            hovertemplate="x1 %{x:.2f}<br>x2 %{y:.2f}<br>std %{z:.3f}<extra></extra>"),
            row=1, col=col)
        lo, up = maps.train_box
        fig.add_shape(type="rect", x0=lo[0], y0=lo[1], x1=up[0], y1=up[1],
                      line=dict(color=YELLOW, width=2.5, dash="dash"), row=1, col=col)
        if X_train is not None:
            fig.add_trace(go.Scatter(x=X_train[:, 0], y=X_train[:, 1], mode="markers",
                                     marker=dict(size=3, color=YELLOW), showlegend=False,
                                     hoverinfo="skip"), row=1, col=col)
        fig.update_xaxes(title="x1", row=1, col=col, range=[maps.grid_x[0], maps.grid_x[-1]])
    fig.update_yaxes(title="x2", row=1, col=1, range=[maps.grid_y[0], maps.grid_y[-1]])
    fig.update_annotations(yshift=6, font=dict(size=13))  # subplot titles clear of the frame
    return styled(fig, title="Standard deviation of the prediction (training region dashed)",
                  height=height)


def _same(built, reference):
    assert json.loads(built.to_json()) == json.loads(reference.to_json())


@pytest.fixture(scope="module", params=["classification", "regression"])
def run_and_data(request):
    if request.param == "classification":
        data = datasets.two_moons(120, noise=0.2, random_state=3)
    else:
        data = datasets.regression_surface_2d(120, random_state=3)
    run = online_run(data.X[:100], data.y[:100], data.task, X_test=data.X[100:],
                     y_test=data.y[100:], batch_size=20, n_estimators=5, lifetime=3.0,
                     random_state=1)
    return run, data


@pytest.mark.parametrize("step", [0, 3])
def test_the_tree_scores_and_operations_as_before(run_and_data, step):
    run, data = run_and_data
    seen = run.n_seen[step]
    X, y = data.X[:seen], data.y[:seen]
    for box in (padded_box(data.X[:100]), None):
        _same(tree_partition(run.snapshots[step], X, y, task=run.task, box=box),
              _reference_tree_partition(run.snapshots[step], X, y, task=run.task, box=box))
    _same(online_scores(run, step), _reference_online_scores(run, step))
    _same(operation_counts(run, step), _reference_operation_counts(run, step))
    if step == 0:
        _same(online_scores(run), _reference_online_scores(run))


@pytest.mark.parametrize("with_truth", [True, False])
def test_the_stream_as_before(with_truth):
    stream = datasets.toy_jumps_1d(80, 0.1, random_state=2, width=0.05)
    grid = np.linspace(0, 1, 41)
    fits = online_kernel_forest(stream.X, stream.y, grid=grid, batch_size=20, n_trees=4,
                                lifetime=5.0, noise_variance=0.01, prior_variance=1.0,
                                f=np.sin(grid) if with_truth else None, left_to_right=True,
                                random_state=0)
    for step in (0, 2):
        _same(stream_fits_figure(fits, step), _reference_stream_fits_figure(fits, step))


def test_the_uncertainty_maps_as_before():
    data = datasets.regression_surface_2d(80, random_state=4)
    maps, inside = uncertainty_maps_in_region(data.X, data.y, ((0.0, 0.0), (0.5, 1.0)),
                                              resolution=12, n_estimators=3, lifetime=3.0,
                                              random_state=5)
    for X_train in (data.X[inside], None):
        _same(uncertainty_maps_figure(maps, X_train),
              _reference_uncertainty_maps_figure(maps, X_train))


@pytest.mark.parametrize("layout", [
    {"height": 470, "margin": {"t": 85}, "legend": {"font": {"size": 11}}},
    {"height": 300},                        # the template's top margin
    {"margin": {"t": None, "l": 5}},       # plotly's default height
])
def test_legend_below_as_a_layout_dict_is_legend_below(layout):
    from mondrian_core.figures.theme import legend_below_layout, styled_layout
    layout = styled_layout(layout, title="t")
    trace = dict(type="scatter", x=[0, 1], y=[1, 0], name="a")
    _same(go.Figure(data=[trace], layout=legend_below_layout(layout, gap=45, legend_height=50)),
          legend_below(go.Figure(data=[trace], layout=layout), gap=45, legend_height=50))
