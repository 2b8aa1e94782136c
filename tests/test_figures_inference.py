"""The inference page's figure builders, built from small results."""
from __future__ import annotations

import numpy as np

from mondrian_core.experiments.inference import (
    bias_sd_vs_lifetime,
    clt_statistics,
    coverage_repetitions,
    coverage_summary,
    risk_vs_n,
)
from mondrian_core.figures.inference import (
    bias_sd_figure,
    clt_figure,
    coverage_stack_figure,
    rates_figure,
)


def test_coverage_stack_figure_colours_each_interval_by_coverage():
    stack = coverage_repetitions(0, 6, n=200, lifetime=5.0, n_trees=10, seed=0)
    summary = coverage_summary(stack)
    fig = coverage_stack_figure(stack, summary, names=["a", "b", "c"])
    # per panel: covered, missed, truth; the bars drawn are the stack's intervals
    assert len(fig.data) == 9
    drawn = sum(np.count_nonzero(~np.isnan(np.asarray(t.y, float))) // 2
                for t in fig.data if t.name != "true \u03bc(x)")
    assert drawn == 3 * 6
    assert f"covers {summary['coverage'][0]:.0%}" in fig.layout.annotations[0].text


def test_plain_only_stack_draws_two_panels():
    stack = coverage_repetitions(0, 3, n=200, lifetime=5.0, n_trees=10, seed=0,
                                 smoothed=False)
    fig = coverage_stack_figure(stack, coverage_summary(stack), names=["a", "b", "c"])
    assert len(fig.layout.annotations) == 2


def test_bias_clt_and_rates_figures_build():
    curves = bias_sd_vs_lifetime([3.0, 6.0], n=200, n_trees=10, repetitions=3)
    assert len(bias_sd_figure(curves).data) == 8
    draws = clt_statistics(n=200, lifetime=5.0, n_trees=5, repetitions=10)
    fig = clt_figure(draws)
    assert fig.data[0].type == "histogram" and len(fig.data) == 3
    risk = risk_vs_n([50, 100], repetitions=2)
    fig = rates_figure(risk)
    assert fig.layout.xaxis.type == "log" and len(fig.data) == 6
