"""Figures of the kernel-convergence page (pure functions returning plotly figures).

They mirror Balog et al. 2016, *The Mondrian Kernel*: the Laplace link
(Section 3), Proposition 2 (uniform convergence, Section 3.2), Figure 5 (kernel
error vs non-zero features) and Figure 6 (test RMSE vs non-zero features).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mondrian_core.figures._parts import band, figure_builder
from mondrian_core.figures.theme import (
    BLACK,
    DIVERGING,
    GREY,
    SEQUENTIAL,
    SERIES,
    styled,
)

__all__ = [
    "kernel_heatmaps_figure",
    "kernel_slice_figure",
    "laplace_link_figure",
    "kernel_error_figure",
    "uniform_error_figure",
    "ridge_rmse_figure",
]


#: The colour scale of the difference panel, the same for every number of trees.
DIFF_RANGE = 1.0


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


@figure_builder
def kernel_heatmaps_figure(K_laplace, K_mondrian, order=None, *, lifetime=None, n_trees=None,
                           height=430) -> go.Figure:
    """Draw the Laplace kernel, the Mondrian kernel and their difference as heat maps.

    The difference is coloured on the fixed scale [-1, 1] (:data:`DIFF_RANGE`) for every
    number of trees, so that it fades visibly as M grows.

    Parameters
    ----------
    K_laplace, K_mondrian : array-like of shape (N, N)
        The two kernel matrices of the same points.
    order : array-like of int, optional
        The order of the rows and columns (e.g.
        :func:`~mondrian_core.experiments.kernel_convergence.serpentine_order`).
    lifetime : float, optional
        The lifetime, for the title.
    n_trees : int, optional
        The number of trees, for the panel title.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 3.
    """
    K_laplace = np.asarray(K_laplace)
    K_mondrian = np.asarray(K_mondrian)
    if order is not None:
        K_laplace = K_laplace[np.ix_(order, order)]
        K_mondrian = K_mondrian[np.ix_(order, order)]
    diff = K_mondrian - K_laplace
    dmax = float(max(np.abs(diff).max(), 1e-12))
    spacing = 0.04
    panel = (1 - 2 * spacing) / 3
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=spacing, subplot_titles=(
        "Laplace", f"Mondrian, M = {n_trees}" if n_trees else "Mondrian",
        "Mondrian − Laplace"))
    common = dict(hovertemplate="row %{y}, column %{x}: %{z:.3f}<extra></extra>")
    # colour bars lie under the panels, so that on a narrow screen (or in projector mode,
    # with large tick labels) they take no width from the matrices: the kernel's under
    # the first two panels, the difference's under the third
    bar = dict(orientation="h", y=-0.04, yanchor="top", thickness=12, title_side="top")
    fig.add_trace(go.Heatmap(z=K_laplace, zmin=0, zmax=1, colorscale=SEQUENTIAL,
                             colorbar=dict(bar, x=panel + spacing / 2, xanchor="center",
                                           len=2 * panel + spacing, title_text="kernel value k"),
                             **common), 1, 1)
    fig.add_trace(go.Heatmap(z=K_mondrian, zmin=0, zmax=1, colorscale=SEQUENTIAL,
                             showscale=False, **common), 1, 2)
    # one fixed scale for every M (a difference of two kernels lies in [-1, 1]): rescaled
    # to each M's own range, the noise would look equally loud at M = 1 and M = 500
    fig.add_trace(go.Heatmap(z=diff, zmin=-DIFF_RANGE, zmax=DIFF_RANGE, colorscale=DIVERGING,
                             colorbar=dict(bar, x=1 - panel / 2, xanchor="center", len=panel,
                                           title_text="difference"),
                             **common), 1, 3)
    n = K_laplace.shape[0]
    for c in (1, 2, 3):
        # the panels fill their cells (no square aspect): on narrow screens squares would
        # leave most of the chart's height empty
        fig.update_yaxes(range=[n - 0.5, -0.5], showticklabels=False, ticks="",
                         showgrid=False, row=1, col=c)
        fig.update_xaxes(range=[-0.5, n - 0.5], showticklabels=False, ticks="",
                         showgrid=False, row=1, col=c)
    fig.update_annotations(font_size=14, yshift=2)
    # short: it must fit a narrow chart at projector size (20 px text)
    title = "Kernel matrices"
    if lifetime is not None:
        title += f" (λ = {lifetime:g}), max |difference| {dmax:.3f}"
    styled(fig, title=title, height=height)
    fig.update_layout(margin=dict(l=20, r=20, t=80, b=75))
    return fig


@figure_builder
def kernel_slice_figure(s, laplace, estimates, *, x0=0.5, lifetime=None,
                        height=470) -> go.Figure:
    """Draw the slice k(x0, x): Laplace curve and Mondrian step functions, animated over M.

    Parameters
    ----------
    s : ndarray of shape (G,)
        The first coordinate of the grid points.
    laplace : ndarray of shape (G,)
        The Laplace kernel on the grid.
    estimates : dict of int to ndarray
        Number of trees M -> the Mondrian estimate on the grid (one animation frame
        each; the largest M is shown first).
    x0 : float, default=0.5
        The reference point's first coordinate (not drawn; accepted for a uniform
        call).
    lifetime : float, optional
        The lifetime, for the title.
    %(builder)s
    """
    ms = sorted(estimates)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=s, y=laplace, mode="lines", name="Laplace exp(-λ|x−x₀|)",
                             line=dict(color=BLACK, width=2, dash="dash")))
    first = ms[-1]
    fig.add_trace(go.Scatter(x=s, y=estimates[first], mode="lines", name="Mondrian kernel",
                             line=dict(color=SERIES[1], width=2, shape="hv")))
    # frames as dicts: a go.Frame of go.Scatters built first is validated twice (built,
    # then copied into the figure)
    fig.frames = [dict(data=[dict(type="scatter", x=s, y=laplace),
                             dict(type="scatter", x=s, y=estimates[m])],
                       traces=[0, 1], name=str(m),
                       layout=dict(title=dict(text=_slice_title(m, lifetime))))
                  for m in ms]
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
        yaxis_range=[-0.03, 1.05],
        legend=dict(x=0.99, xanchor="right", y=0.99),
    )
    styled(fig, title=_slice_title(first, lifetime), height=height)
    fig.update_layout(margin=dict(b=150))
    return fig


def _slice_title(m, lifetime):
    lt = f", λ = {lifetime:g}" if lifetime is not None else ""
    return f"Slice k(x₀, x) through x₀: Mondrian with M = {m} trees{lt}"


@figure_builder
def laplace_link_figure(laplace, fraction, n_trees, *, height=420) -> go.Figure:
    """Plot the fraction of trees sharing a cell against exp(-λ‖x−x′‖₁).

    With the identity line and a ±2 standard deviation band of a binomial fraction
    of ``n_trees`` trees.

    Parameters
    ----------
    laplace : array-like
        The Laplace kernel of each pair.
    fraction : array-like
        The fraction of trees putting each pair in one cell.
    n_trees : int
        The number of trees M.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 3.
    """
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


def _log_ticks(counts) -> list[int]:
    top = float(np.max(counts))
    return [v for v in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if v <= top * 1.01]


def _curves(fig, counts, mean, std, name, colour, log_y):
    lo = mean - std
    if log_y:
        lo = np.maximum(lo, mean * 0.05)
    fig.add_trace(band(counts, lo, mean + std, _rgba(colour, 0.15), showlegend=False,
                       legendgroup=name))
    fig.add_trace(go.Scatter(x=counts, y=mean, mode="lines+markers", name=name,
                             line=dict(color=colour, width=2), legendgroup=name,
                             marker=dict(size=6)))


def _mean_sd_figure(curves, methods, log_y):
    """A new figure with each method's mean ± s.d. against the non-zero features per
    point (the paper's Figures 5 and 6), and those counts as floats."""
    fig = go.Figure()
    counts = curves.counts.astype(float)
    for i, method in enumerate(methods):
        _curves(fig, counts, curves.mean(method), curves.std(method), method, SERIES[i], log_y)
    return fig, counts


@figure_builder
def kernel_error_figure(curves, *, height=460) -> go.Figure:
    """Draw the paper's Figure 5: max |error| against non-zero features per point.

    Log-log axes, mean ± s.d. over repetitions, and a 1/sqrt(M) reference line.

    Parameters
    ----------
    curves : KernelErrorCurves
        From :func:`~mondrian_core.experiments.kernel_convergence.kernel_error_curves`.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 8.1 and Figure 5.
    """
    fig, counts = _mean_sd_figure(curves, curves.errors, log_y=True)
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


@figure_builder
def uniform_error_figure(curves, *, height=420) -> go.Figure:
    """Draw Proposition 2: the largest error over a grid of the square against ``M``.

    Figure 5's layout (log-log, mean ± s.d. over the draws, a 1/sqrt(M) reference
    through the last mean), plus each draw as a thin line, so the spread between draws
    shows as well as their mean.

    Parameters
    ----------
    curves : KernelErrorCurves
        From :func:`~mondrian_core.experiments.kernel_convergence.uniform_error_curves`.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 3.2, Proposition 2.
    """
    fig = kernel_error_figure(curves, height=height)
    errors = next(iter(curves.errors.values()))
    # the draws as dicts in one call: a go.Scatter built first is validated twice
    fig.add_traces([dict(type="scatter", x=curves.counts, y=row, mode="lines", name="one draw",
                         legendgroup="draws", showlegend=r == 0,
                         line=dict(color=SERIES[0], width=0.6), opacity=0.35,
                         hoverinfo="skip") for r, row in enumerate(errors)])
    side = int(round(np.sqrt(curves.n_points)))
    fig.update_xaxes(title_text="Mondrian trees M")
    fig.update_yaxes(title_text="max |k_M − k| over the grid's pairs")
    return styled(fig, title=(f"Uniform convergence: {side} × {side} grid, "
                              f"λ = {curves.lifetime:g}, {errors.shape[0]} draws"),
                  height=height)


@figure_builder
def ridge_rmse_figure(curves, *, dataset_name="", height=500) -> go.Figure:
    """Draw the paper's Figure 6: test RMSE against non-zero features per point.

    Exact Laplace kernel ridge regression and the training mean are drawn as lines.

    Parameters
    ----------
    curves : RidgeCurves
        From :func:`~mondrian_core.experiments.kernel_convergence.ridge_rmse_curves`.
    dataset_name : str, default=""
        The data set's name, for the title.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 8.1 and Figure 6.
    """
    fig, counts = _mean_sd_figure(curves, curves.rmse, log_y=False)
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
    first = next(iter(curves.rmse))
    n_rep = curves.rmse[first].shape[0]
    name = f"{dataset_name}: " if dataset_name else ""
    return styled(fig, title=(f"{name}ridge regression (λ = {curves.lifetime:g}, ridge "
                              f"{curves.ridge:g}; mean ± s.d. of {n_rep} runs)"), height=height)
