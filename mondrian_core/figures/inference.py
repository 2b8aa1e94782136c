"""Figures for the *Inference with Mondrian forests* page: the coverage lab's stack of
intervals, bias and standard deviation against the lifetime, the CLT histogram and the
rates of trees and forests.

Pure functions of the results of :mod:`mondrian_core.experiments.inference`, returning
plotly figures styled with the theme.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from mondrian_core.figures._parts import (
    axis_key,
    figure_builder,
    polyline,
    subplots,
    subplots_layout,
    validated_once,
)
from mondrian_core.figures.theme import BLACK, BLUE, GREY, RED, TEMPLATE, legend_below, styled

__all__ = ["coverage_stack_figure", "bias_sd_figure", "clt_figure", "rates_figure"]

_COVERED, _MISSED = BLUE, RED
_SERIES = {"tree": GREY, "forest": BLUE, "debiased forest": RED}


@validated_once
@figure_builder
def coverage_stack_figure(stack, summary, *, names, level=0.95, height=450) -> go.Figure:
    """Draw each repetition's interval at ``x`` as a vertical bar, covered or missed.

    One panel per method (the columns of the stack that were run), the true ``mu(x)`` as
    a dashed line, the running coverage and mean width in the panel titles.

    Parameters
    ----------
    stack : CoverageStack
        From :func:`~mondrian_core.experiments.inference.coverage_repetitions`.
    summary : dict
        From :func:`~mondrian_core.experiments.inference.coverage_summary`.
    names : sequence of str
        The methods' names, one per column of the stack.
    level : float, default=0.95
        The intervals' nominal level.
    %(builder)s

    References
    ----------
    Cattaneo, Klusowski and Underwood, "Inference with Mondrian Random Forests" (2023/2026),
    sec. 5.
    """
    shown = [j for j in range(len(names)) if not np.isnan(summary["coverage"][j])]
    R = stack.lower.shape[0]
    # short lines: three panels share a laptop's main column (and projector fonts)
    titles = [f"{names[j]}<br>covers {summary['coverage'][j]:.0%}<br>"
              f"width {summary['width'][j]:.2f}" for j in shown]
    layout, cells = subplots_layout(rows=1, cols=len(shown), shared_yaxes=True,
                                    horizontal_spacing=0.03, subplot_titles=titles)
    covered = stack.covered
    runs = np.arange(1, R + 1)
    # dicts, validated once in one go.Figure (graph objects validate at every step)
    traces = []
    for col, j in enumerate(shown, start=1):
        axes = cells[0][col - 1]
        for hit, colour, label in ((True, _COVERED, "covers \u03bc(x)"),
                                   (False, _MISSED, "misses \u03bc(x)")):
            rows = covered[:, j] == hit
            xs, ys = polyline(runs[rows], stack.lower[rows, j], runs[rows], stack.upper[rows, j])
            traces.append(dict(type="scatter", x=xs, y=ys, mode="lines",
                               line=dict(color=colour, width=2 if hit else 3), name=label,
                               legendgroup=label, showlegend=col == 1, hoverinfo="skip", **axes))
        traces.append(dict(type="scatter", x=[0.5, R + 0.5], y=[stack.truth] * 2, mode="lines",
                           line=dict(color=BLACK, dash="dash", width=2), name="true \u03bc(x)",
                           legendgroup="truth", showlegend=col == 1, hoverinfo="skip", **axes))
        layout[axis_key(axes["xaxis"])].update(title=dict(text="data set"),
                                               range=[0.5, max(R, 1) + 0.5])
    layout[axis_key(cells[0][0]["yaxis"])]["title"] = dict(text=f"{level:.0%} interval at x")
    for a in layout.get("annotations", ()):
        a.setdefault("font", {})["size"] = 13
    layout.update(template=TEMPLATE, height=height)
    layout.setdefault("margin", {})["t"] = 70
    fig = go.Figure(data=traces, layout=layout)
    return legend_below(fig, gap=60)


@figure_builder
def bias_sd_figure(curves, *, height=400) -> go.Figure:
    """Draw Monte Carlo bias and standard deviation against the lifetime, with theory.

    Left: the bias of the plain and debiased forests (points with two standard errors)
    and the exact limit (lines); right: their standard deviations and the CLT's.

    Parameters
    ----------
    curves : BiasSdCurves
        From :func:`~mondrian_core.experiments.inference.bias_sd_vs_lifetime`.
    %(builder)s

    References
    ----------
    Cattaneo, Klusowski and Underwood (2023/2026), Theorems 3.1, 3.2 and 4.1.
    """
    fig = subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=["bias at x = centre", "standard deviation"])
    labels = ["plain forest", f"debiased (J = {curves.debias_order})"]
    for row, (label, colour) in enumerate(zip(labels, (BLUE, RED))):
        fig.add_trace(go.Scatter(
            x=curves.lifetimes, y=curves.bias[row], mode="markers",
            marker=dict(color=colour, size=8, symbol="circle" if row == 0 else "diamond"),
            error_y=dict(type="data", array=2 * curves.bias_se[row], color=colour),
            name=f"{label}: Monte Carlo", legendgroup=label), row=1, col=1)
        fig.add_trace(go.Scatter(
            x=curves.grid, y=curves.grid_bias[row], mode="lines",
            line=dict(color=colour, width=2), name=f"{label}: theory",
            legendgroup=label), row=1, col=1)
        fig.add_trace(go.Scatter(
            x=curves.lifetimes, y=curves.sd[row], mode="markers",
            marker=dict(color=colour, size=8, symbol="circle" if row == 0 else "diamond"),
            showlegend=False, legendgroup=label), row=1, col=2)
        fig.add_trace(go.Scatter(
            x=curves.grid, y=curves.grid_sd[row], mode="lines",
            line=dict(color=colour, width=2), showlegend=False, legendgroup=label),
            row=1, col=2)
    fig.add_hline(y=0, line=dict(color=GREY, width=1), row=1, col=1)
    for col in (1, 2):
        fig.update_xaxes(title_text="lifetime \u03bb", type="log", row=1, col=col)
    fig.update_yaxes(type="log", row=1, col=2)
    fig.update_annotations(font_size=13)
    styled(fig, height=height)
    return legend_below(fig, gap=70)


@validated_once
@figure_builder
def clt_figure(draws, *, bins=30, height=440) -> go.Figure:
    """Draw the histogram of standardised estimates against the CLT's normal density.

    Parameters
    ----------
    draws : CltDraws
        From :func:`~mondrian_core.experiments.inference.clt_statistics`.
    bins : int, default=30
        Histogram bins.
    %(builder)s

    References
    ----------
    Cattaneo, Klusowski and Underwood (2023/2026), Theorem 3.1.
    """
    t = draws.statistics
    sd = float(np.sqrt(draws.variance))
    reach = max(4 * sd, float(np.max(np.abs(t))))
    grid = np.linspace(-reach, reach, 300)
    traces = [dict(type="histogram", x=t, histnorm="probability density", nbinsx=bins,
                   marker=dict(color=BLUE), opacity=0.6,
                   name=f"{t.size} data sets, B = {draws.n_trees} "
                        f"(sd {np.std(t, ddof=1):.2f})")]
    for variance, label, dash in (
            (draws.variance, f"N(0, V), V = {draws.variance:.3f} (B \u2192 \u221e)", "solid"),
            (draws.finite_b_variance, f"N(0, V + B-term), {draws.finite_b_variance:.3f}",
             "dot")):
        density = np.exp(-grid ** 2 / (2 * variance)) / np.sqrt(2 * np.pi * variance)
        traces.append(dict(type="scatter", x=grid, y=density, mode="lines",
                           line=dict(color=RED if dash == "solid" else BLACK,
                                     width=3 if dash == "solid" else 2, dash=dash),
                           name=label))
    fig = go.Figure(data=traces, layout=dict(
        xaxis=dict(title=dict(text="\u221a(n/\u03bb^d) (\u03bc\u0302(x) \u2212 \u03bc(x) "
                                   "\u2212 bias) / \u03c3"), range=[-reach, reach]),
        yaxis=dict(title=dict(text="density")), template=TEMPLATE, height=height))
    return legend_below(fig, legend_height=70)


@validated_once
@figure_builder
def rates_figure(risk, *, height=480) -> go.Figure:
    """Draw the risk against n on log-log axes with each learner's theoretical slope.

    The theory lines have the theoretical slopes and pass through the geometric mean of
    their learner's points.

    Parameters
    ----------
    risk : RiskCurves
        From :func:`~mondrian_core.experiments.inference.risk_vs_n`.
    %(builder)s

    References
    ----------
    Mourtada, Gaiffas and Scornet, "Minimax optimal rates for Mondrian trees and
    forests", Annals of Statistics (2020); Cattaneo, Klusowski and Underwood
    (2023/2026), sec. 4.
    """
    ns = risk.ns
    traces = []
    for name, colour in _SERIES.items():
        r = risk.risk[name]
        traces.append(dict(
            type="scatter", x=ns, y=r, mode="markers",
            marker=dict(color=colour, size=9,
                        symbol={"tree": "square", "forest": "circle"}.get(name, "diamond")),
            error_y=dict(type="data", array=2 * risk.risk_se[name], color=colour),
            name=f"{name}: slope {risk.slope[name]:.2f}", legendgroup=name))
        anchor = np.exp(np.mean(np.log(r)) - risk.theory[name] * np.mean(np.log(ns)))
        traces.append(dict(
            type="scatter", x=ns, y=anchor * ns ** risk.theory[name], mode="lines",
            line=dict(color=colour, width=2, dash="dash"),
            name=f"theory n^{risk.theory[name]:.2f}", legendgroup=name))
    fig = go.Figure(data=traces, layout=dict(
        xaxis=dict(title=dict(text="training points n"), type="log"),
        yaxis=dict(title=dict(text="mean squared error at x"), type="log"),
        template=TEMPLATE, height=height))
    return legend_below(fig, legend_height=75)
