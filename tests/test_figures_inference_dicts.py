"""The inference page's dict-built figures against their graph-object builds."""
from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from mondrian_core.experiments.inference import (
    clt_statistics,
    coverage_repetitions,
    coverage_summary,
    risk_vs_n,
)
from mondrian_core.figures._parts import polyline, subplots
from mondrian_core.figures.inference import clt_figure, coverage_stack_figure, rates_figure
from mondrian_core.figures.theme import BLACK, BLUE, GREY, RED, legend_below, styled

_COVERED, _MISSED = BLUE, RED
_SERIES = {"tree": GREY, "forest": BLUE, "debiased forest": RED}


def _reference_coverage_stack_figure(stack, summary, *, names, level=0.95, height=450) -> go.Figure:
    shown = [j for j in range(len(names)) if not np.isnan(summary["coverage"][j])]
    R = stack.lower.shape[0]
    # short lines: three panels share a laptop's main column (and projector fonts)
    titles = [f"{names[j]}<br>covers {summary['coverage'][j]:.0%}<br>"
              f"width {summary['width'][j]:.2f}" for j in shown]
    fig = subplots(rows=1, cols=len(shown), shared_yaxes=True,
                        horizontal_spacing=0.03, subplot_titles=titles)
    covered = stack.covered
    runs = np.arange(1, R + 1)
    for col, j in enumerate(shown, start=1):
        for hit, colour, label in ((True, _COVERED, "covers \u03bc(x)"),
                                   (False, _MISSED, "misses \u03bc(x)")):
            rows = covered[:, j] == hit
            xs, ys = polyline(runs[rows], stack.lower[rows, j], runs[rows], stack.upper[rows, j])
            fig.add_trace(go.Scatter(
                x=xs, y=ys, mode="lines", line=dict(color=colour, width=2 if hit else 3),
                name=label, legendgroup=label, showlegend=col == 1,
                hoverinfo="skip"), row=1, col=col)
        fig.add_trace(go.Scatter(
            x=[0.5, R + 0.5], y=[stack.truth] * 2, mode="lines",
            line=dict(color=BLACK, dash="dash", width=2), name="true \u03bc(x)",
            legendgroup="truth", showlegend=col == 1, hoverinfo="skip"), row=1, col=col)
        fig.update_xaxes(title_text="data set", range=[0.5, max(R, 1) + 0.5], row=1, col=col)
    fig.update_yaxes(title_text=f"{level:.0%} interval at x", row=1, col=1)
    fig.update_annotations(font_size=13)
    styled(fig, height=height)
    fig.update_layout(margin=dict(t=70))
    return legend_below(fig, gap=60)


def _reference_clt_figure(draws, *, bins=30, height=440) -> go.Figure:
    t = draws.statistics
    sd = float(np.sqrt(draws.variance))
    reach = max(4 * sd, float(np.max(np.abs(t))))
    grid = np.linspace(-reach, reach, 300)
    fig = go.Figure()
    fig.add_trace(go.Histogram(
        x=t, histnorm="probability density", nbinsx=bins, marker_color=BLUE, opacity=0.6,
        name=f"{t.size} data sets, B = {draws.n_trees} (sd {np.std(t, ddof=1):.2f})"))
    for variance, label, dash in (
            (draws.variance, f"N(0, V), V = {draws.variance:.3f} (B \u2192 \u221e)", "solid"),
            (draws.finite_b_variance, f"N(0, V + B-term), {draws.finite_b_variance:.3f}",
             "dot")):
        density = np.exp(-grid ** 2 / (2 * variance)) / np.sqrt(2 * np.pi * variance)
        fig.add_trace(go.Scatter(x=grid, y=density, mode="lines",
                                 line=dict(color=RED if dash == "solid" else BLACK,
                                           width=3 if dash == "solid" else 2, dash=dash),
                                 name=label))
    fig.update_xaxes(title_text="\u221a(n/\u03bb^d) (\u03bc\u0302(x) \u2212 \u03bc(x) \u2212 bias) / \u03c3",
                     range=[-reach, reach])
    fig.update_yaxes(title_text="density")
    styled(fig, height=height)
    return legend_below(fig, legend_height=70)


def _reference_rates_figure(risk, *, height=480) -> go.Figure:
    fig = go.Figure()
    ns = risk.ns
    for name, colour in _SERIES.items():
        r = risk.risk[name]
        fig.add_trace(go.Scatter(
            x=ns, y=r, mode="markers",
            marker=dict(color=colour, size=9,
                        symbol={"tree": "square", "forest": "circle"}.get(name, "diamond")),
            error_y=dict(type="data", array=2 * risk.risk_se[name], color=colour),
            name=f"{name}: slope {risk.slope[name]:.2f}", legendgroup=name))
        anchor = np.exp(np.mean(np.log(r)) - risk.theory[name] * np.mean(np.log(ns)))
        fig.add_trace(go.Scatter(
            x=ns, y=anchor * ns ** risk.theory[name], mode="lines",
            line=dict(color=colour, width=2, dash="dash"),
            name=f"theory n^{risk.theory[name]:.2f}", legendgroup=name))
    fig.update_xaxes(title_text="training points n", type="log")
    fig.update_yaxes(title_text="mean squared error at x", type="log")
    styled(fig, height=height)
    return legend_below(fig, legend_height=75)


def _spec(fig):
    """The figure as the browser gets it (arrays as their bytes), key order aside."""
    return json.loads(fig.to_json())


@pytest.mark.parametrize("smoothed", [True, False])
def test_coverage_stack_same_as_graph_objects(smoothed):
    stack = coverage_repetitions(0, 5, n=200, lifetime=5.0, n_trees=10, seed=3,
                                 smoothed=smoothed)
    summary = coverage_summary(stack)
    names = ["plain", "debiased", "smoothed"]
    got = coverage_stack_figure(stack, summary, names=names, level=0.9)
    want = _reference_coverage_stack_figure(stack, summary, names=names, level=0.9)
    assert _spec(got) == _spec(want)


def test_clt_and_rates_same_as_graph_objects():
    draws = clt_statistics(n=200, lifetime=5.0, n_trees=5, repetitions=12, seed=2)
    assert _spec(clt_figure(draws, bins=12)) == _spec(_reference_clt_figure(draws, bins=12))
    risk = risk_vs_n([50, 100, 200], repetitions=3, seed=2)
    assert _spec(rates_figure(risk)) == _spec(_reference_rates_figure(risk))
