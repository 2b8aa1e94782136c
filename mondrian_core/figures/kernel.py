"""Figures of the kernel-convergence page (pure functions returning plotly figures).

They mirror Balog et al. 2016, *The Mondrian Kernel*: the Laplace link
(Section 3), Figure 5 (kernel error vs non-zero features) and Figure 6 (test
RMSE vs non-zero features).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

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
    "ridge_rmse_figure",
]


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def kernel_heatmaps_figure(K_laplace, K_mondrian, order=None, *, lifetime=None, n_trees=None,
                           height=430) -> go.Figure:
    """Laplace kernel, Mondrian kernel and their difference, rows in ``order``."""
    K_laplace = np.asarray(K_laplace)
    K_mondrian = np.asarray(K_mondrian)
    if order is not None:
        K_laplace = K_laplace[np.ix_(order, order)]
        K_mondrian = K_mondrian[np.ix_(order, order)]
    diff = K_mondrian - K_laplace
    dmax = float(max(np.abs(diff).max(), 1e-12))
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.09, subplot_titles=(
        "Laplace exp(-λ‖x−x′‖₁)", f"Mondrian, M = {n_trees}" if n_trees else "Mondrian",
        "Mondrian − Laplace"))
    common = dict(hovertemplate="row %{y}, column %{x}: %{z:.3f}<extra></extra>")
    fig.add_trace(go.Heatmap(z=K_laplace, zmin=0, zmax=1, colorscale=SEQUENTIAL,
                             colorbar=dict(x=0.62, len=0.9, thickness=12, title="k"),
                             **common), 1, 1)
    fig.add_trace(go.Heatmap(z=K_mondrian, zmin=0, zmax=1, colorscale=SEQUENTIAL,
                             showscale=False, **common), 1, 2)
    fig.add_trace(go.Heatmap(z=diff, zmin=-dmax, zmax=dmax, colorscale=DIVERGING,
                             colorbar=dict(x=1.0, len=0.9, thickness=12, title="diff"),
                             **common), 1, 3)
    for c in (1, 2, 3):
        fig.update_yaxes(autorange="reversed", scaleanchor=f"x{'' if c == 1 else c}",
                         showticklabels=False, ticks="", row=1, col=c)
        fig.update_xaxes(showticklabels=False, ticks="", title_text="points (ordered)",
                         row=1, col=c)
    title = "Kernel matrices"
    if lifetime is not None:
        title += f" (λ = {lifetime:g}; max |difference| = {dmax:.3f})"
    styled(fig, title=title, height=height)
    fig.update_layout(margin=dict(l=20, r=20, t=80, b=40))
    return fig


def kernel_slice_figure(s, laplace, estimates, *, x0=0.5, lifetime=None,
                        height=420) -> go.Figure:
    """1-D slice k(x0, x): Laplace curve and Mondrian step functions, animated over M."""
    ms = sorted(estimates)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=s, y=laplace, mode="lines", name="Laplace exp(-λ|x−x₀|)",
                             line=dict(color=BLACK, width=2, dash="dash")))
    first = ms[-1]
    fig.add_trace(go.Scatter(x=s, y=estimates[first], mode="lines", name="Mondrian kernel",
                             line=dict(color=SERIES[1], width=2, shape="hv")))
    fig.frames = [go.Frame(data=[go.Scatter(x=s, y=laplace),
                                 go.Scatter(x=s, y=estimates[m])],
                           traces=[0, 1], name=str(m),
                           layout=go.Layout(title_text=_slice_title(m, lifetime)))
                  for m in ms]
    steps = [dict(method="animate", label=str(m),
                  args=[[str(m)], dict(mode="immediate", frame=dict(duration=0, redraw=False),
                                       transition=dict(duration=0))]) for m in ms]
    fig.update_layout(
        sliders=[dict(active=len(ms) - 1, steps=steps, currentvalue=dict(prefix="M = "),
                      pad=dict(t=45), x=0.1, len=0.9)],
        updatemenus=[dict(type="buttons", showactive=False, x=0.0, y=-0.22, xanchor="left",
                          buttons=[dict(label="▶ Play", method="animate",
                                        args=[None, dict(frame=dict(duration=500, redraw=False),
                                                         fromcurrent=False,
                                                         transition=dict(duration=0))])])],
        xaxis_title="x (first coordinate; second fixed at x₀)", yaxis_title="k(x₀, x)",
        yaxis_range=[-0.03, 1.05],
        legend=dict(x=0.99, xanchor="right", y=0.99),
    )
    styled(fig, title=_slice_title(first, lifetime), height=height)
    fig.update_layout(margin=dict(b=130))
    return fig


def _slice_title(m, lifetime):
    lt = f", λ = {lifetime:g}" if lifetime is not None else ""
    return f"Slice k(x₀, x) through x₀: Mondrian with M = {m} trees{lt}"


def laplace_link_figure(laplace, fraction, n_trees, *, height=420) -> go.Figure:
    """Fraction of trees sharing a cell vs exp(-λ‖x−x′‖₁), identity and ±2 s.d. band."""
    p = np.linspace(0, 1, 101)
    band = 2 * np.sqrt(p * (1 - p) / n_trees)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=np.r_[p, p[::-1]], y=np.r_[p + band, (p - band)[::-1]],
                             fill="toself", fillcolor=_rgba(GREY, 0.2), line=dict(width=0),
                             name=f"±2 s.d. of a fraction of {n_trees} trees",
                             hoverinfo="skip"))
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


def _curves(fig, counts, mean, std, name, colour, log_y):
    lo = mean - std
    if log_y:
        lo = np.maximum(lo, mean * 0.05)
    fig.add_trace(go.Scatter(x=np.r_[counts, counts[::-1]], y=np.r_[mean + std, lo[::-1]],
                             fill="toself", fillcolor=_rgba(colour, 0.15), line=dict(width=0),
                             showlegend=False, hoverinfo="skip", legendgroup=name))
    fig.add_trace(go.Scatter(x=counts, y=mean, mode="lines+markers", name=name,
                             line=dict(color=colour, width=2), legendgroup=name,
                             marker=dict(size=6)))


def kernel_error_figure(curves, *, height=460) -> go.Figure:
    """The paper's Figure 5: max |error| vs non-zero features per point (log-log)."""
    fig = go.Figure()
    counts = curves.counts.astype(float)
    for i, method in enumerate(curves.errors):
        _curves(fig, counts, curves.mean(method), curves.std(method), method, SERIES[i], True)
    first = next(iter(curves.errors))
    ref = curves.mean(first)[-1] * np.sqrt(counts[-1] / counts)
    fig.add_trace(go.Scatter(x=counts, y=ref, mode="lines", name="∝ 1/√M reference",
                             line=dict(color=GREY, dash="dot")))
    fig.update_xaxes(type="log", title_text="non-zero features per data point (M)")
    fig.update_yaxes(type="log", title_text="max |k̂ − k| over all pairs")
    fig.update_layout(legend=dict(x=0.01, y=0.01, yanchor="bottom"))
    n_rep = curves.errors[first].shape[0]
    return styled(fig, title=(f"Kernel approximation error (N = {curves.n_points}, "
                              f"λ = {curves.lifetime:g}; mean ± s.d. over {n_rep} repetitions)"),
                  height=height)


def ridge_rmse_figure(curves, *, dataset_name="", height=460) -> go.Figure:
    """The paper's Figure 6: test RMSE vs non-zero features, exact kernel ridge as a line."""
    fig = go.Figure()
    counts = curves.counts.astype(float)
    for i, method in enumerate(curves.rmse):
        _curves(fig, counts, curves.mean(method), curves.std(method), method, SERIES[i], False)
    if curves.exact_rmse is not None:
        fig.add_hline(y=curves.exact_rmse, line=dict(color=BLACK, dash="dash"),
                      annotation_text=f"exact Laplace kernel ridge: {curves.exact_rmse:.3g}",
                      annotation_position="top right")
    fig.add_hline(y=curves.baseline_rmse, line=dict(color=GREY, dash="dot"),
                  annotation_text=f"predict the mean: {curves.baseline_rmse:.3g}",
                  annotation_position="bottom right")
    fig.update_xaxes(type="log", title_text="non-zero features per data point (M)")
    fig.update_yaxes(title_text="test RMSE")
    fig.update_layout(legend=dict(x=0.99, xanchor="right", y=0.75))
    first = next(iter(curves.rmse))
    n_rep = curves.rmse[first].shape[0]
    name = f"{dataset_name}: " if dataset_name else ""
    return styled(fig, title=(f"{name}test error of ridge regression (λ = {curves.lifetime:g}, "
                              f"ridge {curves.ridge:g}; mean ± s.d. over {n_rep} repetitions)"),
                  height=height)
