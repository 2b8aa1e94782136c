"""Figures of the kernel-convergence page (pure functions returning plotly figures).

They mirror Balog et al. 2016, *The Mondrian Kernel*: the Laplace link
(Section 3), Proposition 2 (uniform convergence, Section 3.2), Figure 5 (kernel
error vs non-zero features) and Figure 6 (test RMSE vs non-zero features).

Each figure is written as one dict (its traces, layout and frames) and handed to
``go.Figure`` once: plotly validates every property once, where building a figure
trace by trace and update by update validates each again (a page of new links spent a
fifth of its time there). Each builder is marked ``validated_once``, so the page's float32
copy for the wire (``explorer_ui.figure_cache.slim``) is not validated a second time.
"""
from __future__ import annotations

import copy
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mondrian_core.figures._parts import band_dict, figure_builder, validated_once
from mondrian_core.figures.theme import (
    BLACK,
    DIVERGING,
    GREY,
    SEQUENTIAL,
    SERIES,
    styled_layout,
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


def _figure(data, layout, *, title, height, frames=None) -> go.Figure:
    """The figure of ``data`` and ``layout`` styled as :func:`~mondrian_core.figures.theme.styled`
    styles it (the template, a left-aligned title, the height), validated once."""
    spec = {"data": data, "layout": styled_layout(layout, title=title, height=height)}
    if frames is not None:
        spec["frames"] = frames
    return go.Figure(spec)


@lru_cache(maxsize=8)
def _row_grid(cols: int, spacing: float) -> dict:
    """make_subplots' one-row grid (each panel's axes and its title annotation, the
    titles stand-ins), built once; callers copy it."""
    grid = make_subplots(rows=1, cols=cols, horizontal_spacing=spacing,
                         subplot_titles=[f"\x00{i}" for i in range(cols)])
    return grid.layout.to_plotly_json()


@validated_once
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
    layout = copy.deepcopy(_row_grid(3, spacing))
    titles = ("Laplace", f"Mondrian, M = {n_trees}" if n_trees else "Mondrian",
              "Mondrian − Laplace")
    for note in layout["annotations"]:
        note.update(text=titles[int(note["text"][1:])], yshift=2)
        note["font"] = {**note.get("font", {}), "size": 14}
    common = dict(type="heatmap", hovertemplate="row %{y}, column %{x}: %{z:.3f}<extra></extra>")
    # colour bars lie under the panels, so that on a narrow screen (or in projector mode,
    # with large tick labels) they take no width from the matrices: the kernel's under
    # the first two panels, the difference's under the third
    bar = dict(orientation="h", y=-0.04, yanchor="top", thickness=12)
    data = [
        dict(common, z=K_laplace, zmin=0, zmax=1, colorscale=SEQUENTIAL, xaxis="x", yaxis="y",
             colorbar=dict(bar, x=panel + spacing / 2, xanchor="center",
                           len=2 * panel + spacing,
                           title=dict(text="kernel value k", side="top"))),
        dict(common, z=K_mondrian, zmin=0, zmax=1, colorscale=SEQUENTIAL, showscale=False,
             xaxis="x2", yaxis="y2"),
        # one fixed scale for every M (a difference of two kernels lies in [-1, 1]):
        # rescaled to each M's own range, the noise would look equally loud at M = 1 and
        # M = 500
        dict(common, z=diff, zmin=-DIFF_RANGE, zmax=DIFF_RANGE, colorscale=DIVERGING,
             xaxis="x3", yaxis="y3",
             colorbar=dict(bar, x=1 - panel / 2, xanchor="center", len=panel,
                           title=dict(text="difference", side="top"))),
    ]
    n = K_laplace.shape[0]
    for c in ("", "2", "3"):
        # the panels fill their cells (no square aspect): on narrow screens squares would
        # leave most of the chart's height empty
        hidden = dict(showticklabels=False, ticks="", showgrid=False)
        layout["yaxis" + c].update(hidden, range=[n - 0.5, -0.5])
        layout["xaxis" + c].update(hidden, range=[-0.5, n - 0.5])
    # short: it must fit a narrow chart at projector size (20 px text)
    title = "Kernel matrices"
    if lifetime is not None:
        title += f" (λ = {lifetime:g}), max |difference| {dmax:.3f}"
    layout["margin"] = dict(l=20, r=20, t=80, b=75)
    return _figure(data, layout, title=title, height=height)


@validated_once
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
    first = ms[-1]
    data = [dict(type="scatter", x=s, y=laplace, mode="lines", name="Laplace exp(-λ|x−x₀|)",
                 line=dict(color=BLACK, width=2, dash="dash")),
            dict(type="scatter", x=s, y=estimates[first], mode="lines", name="Mondrian kernel",
                 line=dict(color=SERIES[1], width=2, shape="hv"))]
    frames = [dict(data=[dict(type="scatter", x=s, y=laplace),
                         dict(type="scatter", x=s, y=estimates[m])],
                   traces=[0, 1], name=str(m),
                   layout=dict(title=dict(text=_slice_title(m, lifetime))))
              for m in ms]
    steps = [dict(method="animate", label=str(m),
                  args=[[str(m)], dict(mode="immediate", frame=dict(duration=0, redraw=False),
                                       transition=dict(duration=0))]) for m in ms]
    layout = dict(
        sliders=[dict(active=len(ms) - 1, steps=steps, y=-0.24, yanchor="top", x=0.14,
                      len=0.86, pad=dict(t=0, b=0),
                      currentvalue=dict(prefix="trees M = ", xanchor="right"))],
        updatemenus=[dict(type="buttons", showactive=False, x=0.0, y=-0.3, xanchor="left",
                          yanchor="top",
                          buttons=[dict(label="▶ Play", method="animate",
                                        args=[None, dict(frame=dict(duration=500, redraw=False),
                                                         fromcurrent=False,
                                                         transition=dict(duration=0))])])],
        xaxis=dict(title=dict(text="x (first coordinate; second fixed at x₀)")),
        yaxis=dict(title=dict(text="k(x₀, x)"), range=[-0.03, 1.05]),
        legend=dict(x=0.99, xanchor="right", y=0.99),
        margin=dict(b=150),
    )
    return _figure(data, layout, title=_slice_title(first, lifetime), height=height,
                   frames=frames)


def _slice_title(m, lifetime):
    lt = f", λ = {lifetime:g}" if lifetime is not None else ""
    return f"Slice k(x₀, x) through x₀: Mondrian with M = {m} trees{lt}"


@validated_once
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
    data = [band_dict(p, p - half, p + half, _rgba(GREY, 0.2),
                       name=f"±2 s.d. of a fraction of {n_trees} trees"),
            dict(type="scatter", x=[0, 1], y=[0, 1], mode="lines", name="identity",
                 line=dict(color=BLACK, dash="dash")),
            dict(type="scatter", x=laplace, y=fraction, mode="markers", name="pairs of points",
                 marker=dict(color=SERIES[0], size=6, opacity=0.7),
                 hovertemplate="exp(-λL1) = %{x:.3f}<br>fraction = %{y:.3f}<extra></extra>")]
    layout = dict(xaxis=dict(title=dict(text="Laplace kernel exp(-λ‖x−x′‖₁)"),
                             range=[-0.02, 1.02]),
                  yaxis=dict(title=dict(text="fraction of trees with x, x′ in one cell"),
                             range=[-0.02, 1.02]),
                  legend=dict(x=0.01, y=0.99))
    return _figure(data, layout, title=f"The Mondrian–Laplace link (M = {n_trees} trees)",
                   height=height)


def _log_ticks(counts) -> list[int]:
    top = float(np.max(counts))
    return [v for v in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if v <= top * 1.01]


def _mean_sd_traces(curves, methods, log_y):
    """Each method's mean ± s.d. against the non-zero features per point (the paper's
    Figures 5 and 6) as traces, and those counts as floats."""
    counts = curves.counts.astype(float)
    data = []
    for method, colour in zip(methods, SERIES):
        mean, std = curves.mean(method), curves.std(method)
        lo = mean - std
        if log_y:
            lo = np.maximum(lo, mean * 0.05)
        data.append(band_dict(counts, lo, mean + std, _rgba(colour, 0.15), showlegend=False,
                               legendgroup=method))
        data.append(dict(type="scatter", x=counts, y=mean, mode="lines+markers", name=method,
                         line=dict(color=colour, width=2), legendgroup=method,
                         marker=dict(size=6)))
    return data, counts


def _error_traces_layout(curves):
    """Figure 5's traces and layout (:func:`kernel_error_figure`, without its title)."""
    data, counts = _mean_sd_traces(curves, curves.errors, log_y=True)
    first = next(iter(curves.errors))
    ref = curves.mean(first)[-1] * np.sqrt(counts[-1] / counts)
    data.append(dict(type="scatter", x=counts, y=ref, mode="lines", name="∝ 1/√M reference",
                     line=dict(color=GREY, dash="dot")))
    lo = min(float(np.min(curves.mean(m))) for m in curves.errors)
    hi = max(float(np.max(curves.mean(m) + curves.std(m))) for m in curves.errors)
    yt = [v * 10.0**e for e in range(-4, 2) for v in (1, 2, 5) if lo / 2 <= v * 10.0**e <= hi * 2]
    layout = dict(xaxis=dict(type="log", title=dict(text="non-zero features per data point (M)"),
                             tickvals=_log_ticks(counts)),
                  yaxis=dict(type="log", title=dict(text="max |k̂ − k| over all pairs"),
                             tickvals=yt, ticktext=[f"{v:g}" for v in yt]),
                  legend=dict(x=0.01, y=0.01, yanchor="bottom"))
    return data, layout


@validated_once
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
    data, layout = _error_traces_layout(curves)
    n_rep = curves.errors[next(iter(curves.errors))].shape[0]
    return _figure(data, layout, height=height,
                   title=(f"Kernel error (N = {curves.n_points}, λ = {curves.lifetime:g}; "
                          f"mean ± s.d., {n_rep} repetitions)"))


@validated_once
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
    data, layout = _error_traces_layout(curves)
    errors = next(iter(curves.errors.values()))
    data += [dict(type="scatter", x=curves.counts, y=row, mode="lines", name="one draw",
                  legendgroup="draws", showlegend=r == 0,
                  line=dict(color=SERIES[0], width=0.6), opacity=0.35,
                  hoverinfo="skip") for r, row in enumerate(errors)]
    side = int(round(np.sqrt(curves.n_points)))
    layout["xaxis"]["title"] = dict(text="Mondrian trees M")
    layout["yaxis"]["title"] = dict(text="max |k_M − k| over the grid's pairs")
    return _figure(data, layout, height=height,
                   title=(f"Uniform convergence: {side} × {side} grid, "
                          f"λ = {curves.lifetime:g}, {errors.shape[0]} draws"))


@validated_once
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
    data, counts = _mean_sd_traces(curves, curves.rmse, log_y=False)
    # horizontal lines across the plot, labelled under their left and right ends (what
    # fig.add_hline(annotation_position="bottom left" / "bottom right") writes)
    shapes, notes = [], []
    lines = [(curves.baseline_rmse, dict(color=GREY, dash="dot"),
              f"predict the mean: {curves.baseline_rmse:.3g}", "right")]
    if curves.exact_rmse is not None:
        lines.insert(0, (curves.exact_rmse, dict(color=BLACK, dash="dash"),
                         f"exact Laplace kernel ridge: {curves.exact_rmse:.3g}", "left"))
    for y, line, text, side in lines:
        shapes.append(dict(type="line", x0=0, x1=1, xref="x domain", y0=y, y1=y, yref="y",
                           line=line))
        notes.append(dict(showarrow=False, text=text, x=int(side == "right"), xanchor=side,
                          xref="x domain", y=y, yanchor="top", yref="y"))
    layout = dict(shapes=shapes, annotations=notes,
                  xaxis=dict(type="log", title=dict(text="non-zero features per data point (M)"),
                             tickvals=_log_ticks(counts)),
                  yaxis=dict(title=dict(text="test RMSE")),
                  legend=dict(orientation="h", x=0, y=-0.2, yanchor="top"),
                  margin=dict(b=110))
    n_rep = curves.rmse[next(iter(curves.rmse))].shape[0]
    name = f"{dataset_name}: " if dataset_name else ""
    return _figure(data, layout, height=height,
                   title=(f"{name}ridge regression (λ = {curves.lifetime:g}, ridge "
                          f"{curves.ridge:g}; mean ± s.d. of {n_rep} runs)"))
