"""The Kernel convergence page's figures, each written as one dict, against the same
figures built from graph objects trace by trace and update by update (the builders' old
code, kept here as the reference): the same traces, layout and frames."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from mondrian_core import datasets as ds
from mondrian_core.experiments.kernel_convergence import (
    feature_counts,
    kernel_error_curves,
    kernel_matrices,
    kernel_slice,
    laplace_link_pairs,
    ridge_rmse_curves,
    uniform_error_curves,
)
from mondrian_core.figures._parts import band
from mondrian_core.figures.kernel import (
    DIFF_RANGE,
    _rgba,
    _slice_title,
    kernel_error_figure,
    kernel_heatmaps_figure,
    kernel_slice_figure,
    laplace_link_figure,
    ridge_rmse_figure,
    uniform_error_figure,
)
from mondrian_core.figures.theme import BLACK, DIVERGING, GREY, SEQUENTIAL, SERIES, styled


def _heatmaps(K_laplace, K_mondrian, order=None, *, lifetime=None, n_trees=None, height=430):
    if order is not None:
        K_laplace = K_laplace[np.ix_(order, order)]
        K_mondrian = K_mondrian[np.ix_(order, order)]
    diff = K_mondrian - K_laplace
    dmax = float(max(np.abs(diff).max(), 1e-12))
    spacing = 0.04
    panel = (1 - 2 * spacing) / 3
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=spacing, subplot_titles=(
        "Laplace", f"Mondrian, M = {n_trees}" if n_trees else "Mondrian", "Mondrian − Laplace"))
    common = dict(hovertemplate="row %{y}, column %{x}: %{z:.3f}<extra></extra>")
    bar = dict(orientation="h", y=-0.04, yanchor="top", thickness=12, title_side="top")
    fig.add_trace(go.Heatmap(z=K_laplace, zmin=0, zmax=1, colorscale=SEQUENTIAL,
                             colorbar=dict(bar, x=panel + spacing / 2, xanchor="center",
                                           len=2 * panel + spacing, title_text="kernel value k"),
                             **common), 1, 1)
    fig.add_trace(go.Heatmap(z=K_mondrian, zmin=0, zmax=1, colorscale=SEQUENTIAL,
                             showscale=False, **common), 1, 2)
    fig.add_trace(go.Heatmap(z=diff, zmin=-DIFF_RANGE, zmax=DIFF_RANGE, colorscale=DIVERGING,
                             colorbar=dict(bar, x=1 - panel / 2, xanchor="center", len=panel,
                                           title_text="difference"), **common), 1, 3)
    n = K_laplace.shape[0]
    for c in (1, 2, 3):
        fig.update_yaxes(range=[n - 0.5, -0.5], showticklabels=False, ticks="",
                         showgrid=False, row=1, col=c)
        fig.update_xaxes(range=[-0.5, n - 0.5], showticklabels=False, ticks="",
                         showgrid=False, row=1, col=c)
    fig.update_annotations(font_size=14, yshift=2)
    title = "Kernel matrices"
    if lifetime is not None:
        title += f" (λ = {lifetime:g}), max |difference| {dmax:.3f}"
    styled(fig, title=title, height=height)
    fig.update_layout(margin=dict(l=20, r=20, t=80, b=75))
    return fig


def _slice(s, laplace, estimates, *, lifetime=None, height=470):
    ms = sorted(estimates)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=s, y=laplace, mode="lines", name="Laplace exp(-λ|x−x₀|)",
                             line=dict(color=BLACK, width=2, dash="dash")))
    first = ms[-1]
    fig.add_trace(go.Scatter(x=s, y=estimates[first], mode="lines", name="Mondrian kernel",
                             line=dict(color=SERIES[1], width=2, shape="hv")))
    fig.frames = [go.Frame(data=[go.Scatter(x=s, y=laplace), go.Scatter(x=s, y=estimates[m])],
                           traces=[0, 1], name=str(m),
                           layout=go.Layout(title_text=_slice_title(m, lifetime))) for m in ms]
    steps = [dict(method="animate", label=str(m),
                  args=[[str(m)], dict(mode="immediate", frame=dict(duration=0, redraw=False),
                                       transition=dict(duration=0))]) for m in ms]
    fig.update_layout(
        sliders=[dict(active=len(ms) - 1, steps=steps, y=-0.24, yanchor="top", x=0.14,
                      len=0.86, pad=dict(t=0, b=0),
                      currentvalue=dict(prefix="trees M = ", xanchor="right"))],
        updatemenus=[dict(type="buttons", showactive=False, x=0.0, y=-0.3, xanchor="left",
                          yanchor="top",
                          buttons=[dict(label="▶ Play", method="animate",
                                        args=[None, dict(frame=dict(duration=500, redraw=False),
                                                         fromcurrent=False,
                                                         transition=dict(duration=0))])])],
        xaxis_title="x (first coordinate; second fixed at x₀)", yaxis_title="k(x₀, x)",
        yaxis_range=[-0.03, 1.05], legend=dict(x=0.99, xanchor="right", y=0.99))
    styled(fig, title=_slice_title(first, lifetime), height=height)
    fig.update_layout(margin=dict(b=150))
    return fig


def _link(laplace, fraction, n_trees, *, height=420):
    p = np.linspace(0, 1, 101)
    half = 2 * np.sqrt(p * (1 - p) / n_trees)
    fig = go.Figure()
    fig.add_trace(band(p, p - half, p + half, _rgba(GREY, 0.2),
                       name=f"±2 s.d. of a fraction of {n_trees} trees"))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="identity",
                             line=dict(color=BLACK, dash="dash")))
    fig.add_trace(go.Scatter(x=laplace, y=fraction, mode="markers", name="pairs of points",
                             marker=dict(color=SERIES[0], size=6, opacity=0.7),
                             hovertemplate="exp(-λL1) = %{x:.3f}<br>fraction = %{y:.3f}"
                                           "<extra></extra>"))
    fig.update_layout(xaxis_title="Laplace kernel exp(-λ‖x−x′‖₁)",
                      yaxis_title="fraction of trees with x, x′ in one cell",
                      xaxis_range=[-0.02, 1.02], yaxis_range=[-0.02, 1.02],
                      legend=dict(x=0.01, y=0.99))
    return styled(fig, title=f"The Mondrian–Laplace link (M = {n_trees} trees)", height=height)


def _log_ticks(counts):
    top = float(np.max(counts))
    return [v for v in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if v <= top * 1.01]


def _mean_sd(curves, methods, log_y):
    fig = go.Figure()
    counts = curves.counts.astype(float)
    for i, method in enumerate(methods):
        mean, std = curves.mean(method), curves.std(method)
        lo = np.maximum(mean - std, mean * 0.05) if log_y else mean - std
        fig.add_trace(band(counts, lo, mean + std, _rgba(SERIES[i], 0.15), showlegend=False,
                           legendgroup=method))
        fig.add_trace(go.Scatter(x=counts, y=mean, mode="lines+markers", name=method,
                                 line=dict(color=SERIES[i], width=2), legendgroup=method,
                                 marker=dict(size=6)))
    return fig, counts


def _error(curves, *, height=460):
    fig, counts = _mean_sd(curves, curves.errors, log_y=True)
    first = next(iter(curves.errors))
    ref = curves.mean(first)[-1] * np.sqrt(counts[-1] / counts)
    fig.add_trace(go.Scatter(x=counts, y=ref, mode="lines", name="∝ 1/√M reference",
                             line=dict(color=GREY, dash="dot")))
    fig.update_xaxes(type="log", title_text="non-zero features per data point (M)",
                     tickvals=_log_ticks(counts))
    lo = min(float(np.min(curves.mean(m))) for m in curves.errors)
    hi = max(float(np.max(curves.mean(m) + curves.std(m))) for m in curves.errors)
    yt = [v * 10.0**e for e in range(-4, 2) for v in (1, 2, 5) if lo / 2 <= v * 10.0**e <= hi * 2]
    fig.update_yaxes(type="log", title_text="max |k̂ − k| over all pairs", tickvals=yt,
                     ticktext=[f"{v:g}" for v in yt])
    fig.update_layout(legend=dict(x=0.01, y=0.01, yanchor="bottom"))
    n_rep = curves.errors[first].shape[0]
    return styled(fig, title=(f"Kernel error (N = {curves.n_points}, λ = {curves.lifetime:g}; "
                              f"mean ± s.d., {n_rep} repetitions)"), height=height)


def _uniform(curves, *, height=420):
    fig = _error(curves, height=height)
    errors = next(iter(curves.errors.values()))
    for r, row in enumerate(errors):
        fig.add_trace(go.Scatter(x=curves.counts, y=row, mode="lines", name="one draw",
                                 legendgroup="draws", showlegend=r == 0,
                                 line=dict(color=SERIES[0], width=0.6), opacity=0.35,
                                 hoverinfo="skip"))
    side = int(round(np.sqrt(curves.n_points)))
    fig.update_xaxes(title_text="Mondrian trees M")
    fig.update_yaxes(title_text="max |k_M − k| over the grid's pairs")
    return styled(fig, title=(f"Uniform convergence: {side} × {side} grid, "
                              f"λ = {curves.lifetime:g}, {errors.shape[0]} draws"), height=height)


def _ridge(curves, *, dataset_name="", height=500):
    fig, counts = _mean_sd(curves, curves.rmse, log_y=False)
    if curves.exact_rmse is not None:
        fig.add_hline(y=curves.exact_rmse, line=dict(color=BLACK, dash="dash"),
                      annotation_text=f"exact Laplace kernel ridge: {curves.exact_rmse:.3g}",
                      annotation_position="bottom left")
    fig.add_hline(y=curves.baseline_rmse, line=dict(color=GREY, dash="dot"),
                  annotation_text=f"predict the mean: {curves.baseline_rmse:.3g}",
                  annotation_position="bottom right")
    fig.update_xaxes(type="log", title_text="non-zero features per data point (M)",
                     tickvals=_log_ticks(counts))
    fig.update_yaxes(title_text="test RMSE")
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.2, yanchor="top"),
                      margin=dict(b=110))
    n_rep = curves.rmse[next(iter(curves.rmse))].shape[0]
    name = f"{dataset_name}: " if dataset_name else ""
    return styled(fig, title=(f"{name}ridge regression (λ = {curves.lifetime:g}, ridge "
                              f"{curves.ridge:g}; mean ± s.d. of {n_rep} runs)"), height=height)


def _same(fast, slow):
    assert fast.to_plotly_json() == slow.to_plotly_json()


@pytest.mark.parametrize("n_trees, ordered, lifetime", [(10, True, 10.0), (1, False, None),
                                                        (None, True, 3.0)])
def test_heatmaps_are_the_graph_object_figure(n_trees, ordered, lifetime):
    X = ds.uniform_box(30, random_state=2).X
    K_lap, K_mon, order = kernel_matrices(X, 10.0, n_trees or 5, random_state=3)
    order = order if ordered else None
    _same(kernel_heatmaps_figure(K_lap, K_mon, order, lifetime=lifetime, n_trees=n_trees),
          _heatmaps(K_lap, K_mon, order, lifetime=lifetime, n_trees=n_trees))


@pytest.mark.parametrize("lifetime", [10.0, None])
def test_slice_is_the_graph_object_figure(lifetime):
    s, lap, est = kernel_slice(10.0, [1, 5, 20], n_grid=41, random_state=0)
    _same(kernel_slice_figure(s, lap, est, lifetime=lifetime, height=400),
          _slice(s, lap, est, lifetime=lifetime, height=400))


def test_link_is_the_graph_object_figure():
    X = ds.uniform_box(25, random_state=4).X
    lap, frac, _ = laplace_link_pairs(X, 5.0, 7, n_pairs=40, random_state=5)
    _same(laplace_link_figure(lap, frac, 7), _link(lap, frac, 7))


def test_error_and_uniform_figures_are_the_graph_object_figures():
    curves = uniform_error_curves(10.0, feature_counts(20), n_grid=5, n_draws=3, random_state=1)
    _same(uniform_error_figure(curves), _uniform(curves))
    X = ds.uniform_box(20, random_state=6).X
    curves5 = kernel_error_curves(X, 10.0, feature_counts(10), 2, random_state=7)
    _same(kernel_error_figure(curves5, height=300), _error(curves5, height=300))


@pytest.mark.parametrize("exact, name", [(True, "tips"), (False, "")])
def test_ridge_figure_is_the_graph_object_figure(exact, name):
    data = ds.load_bundled("diabetes")
    curves = ridge_rmse_curves(data.X[:60], data.y[:60], data.X[60:80], data.y[60:80], 0.3,
                               feature_counts(5), 2, ridge=1.0, random_state=8)
    if not exact:
        curves = type(curves)(**{**curves.__dict__, "exact_rmse": None})
    _same(ridge_rmse_figure(curves, dataset_name=name), _ridge(curves, dataset_name=name))


def test_chart_series_reads_each_axis_once_with_the_same_result():
    from mondrian_core.figures import describe

    curves = uniform_error_curves(10.0, feature_counts(20), n_grid=5, n_draws=3, random_state=1)
    X = ds.uniform_box(30, random_state=2).X
    for fig in (uniform_error_figure(curves), kernel_heatmaps_figure(*kernel_matrices(X, 10.0, 5))):
        for series, trace in zip(describe.chart_series(fig), fig.data, strict=True):
            xref, yref = trace.xaxis or "x", trace.yaxis or "y"
            assert series.x_shown == describe._x_shown(fig, xref)
            assert (series.x_title, series.y_title) == (describe._axis_title(fig, xref, "x"),
                                                        describe._axis_title(fig, yref, "y"))
