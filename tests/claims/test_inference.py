"""The inference page's claims, checked at the page's defaults over seeds 0-9.

The defaults come from ``explorer_ui.defaults_inference``, which the page reads too.
Tolerances are binomial or Monte Carlo standard errors (z = 4) of the pooled seeds.
"""
from __future__ import annotations

import numpy as np
import pytest

from explorer_ui import defaults_inference as D
from mondrian_core.experiments.inference import (
    bias_sd_vs_lifetime,
    clt_statistics,
    coverage_repetitions,
    coverage_summary,
    risk_vs_n,
)

SEEDS = range(10)
Z = 4.0
SETTING = dict(d=int(D.DIM), n=D.N, lifetime=D.LIFETIME, n_trees=D.TREES,
               debias_order=int(D.DEBIAS_ORDER), noise=D.NOISE, level=D.LEVEL)


@pytest.fixture(scope="module")
def stacks():
    """The page's first stack (plain and debiased) at each seed."""
    return [coverage_repetitions(0, D.INITIAL_REPETITIONS, seed=s, smoothed=False, **SETTING)
            for s in SEEDS]


def test_plain_intervals_undercover_and_debiased_ones_cover(stacks):
    """Claim 1: pooled over 10 seeds x 40 data sets, the plain forest's coverage is far
    below 95% (near the 69% its bias of 1.5 standard deviations predicts) and the
    debiased forest's is 95% within binomial error; debiased intervals are about 1.45
    times as wide (sqrt of the variance ratio 2.03)."""
    covered = np.vstack([s.covered[:, :2] for s in stacks])
    R = covered.shape[0]
    plain, debiased = covered.mean(axis=0)
    assert abs(plain - 0.69) <= Z * np.sqrt(0.69 * 0.31 / R)
    assert abs(debiased - 0.95) <= Z * np.sqrt(0.95 * 0.05 / R)
    for s in stacks:  # and at every seed the page shows, the plain one covers less
        summary = coverage_summary(s)
        assert summary["coverage"][0] < summary["coverage"][1]
    widths = np.vstack([(s.upper - s.lower)[:, :2] for s in stacks]).mean(axis=0)
    assert widths[1] / widths[0] == pytest.approx(np.sqrt(2.03), rel=0.1)


def test_the_smoothed_forest_covers_with_wide_intervals():
    """Claim 1, the app's own forest: over 10 seeds x 8 data sets its intervals (return_std
    without the noise) cover at least as often as 95% within binomial error, and are
    about 2.3 times the plain ones (between 1.8 and 3: the seeds' spread is small)."""
    stacks = [coverage_repetitions(0, 8, seed=s, **SETTING) for s in SEEDS]
    covered = np.vstack([s.covered for s in stacks])
    assert covered[:, 2].mean() >= 0.95 - Z * np.sqrt(0.95 * 0.05 / covered.shape[0])
    ratio = [np.mean(s.upper[:, 2] - s.lower[:, 2]) / np.mean(s.upper[:, 0] - s.lower[:, 0])
             for s in stacks]
    assert 1.8 < min(ratio) and max(ratio) < 3.0


def test_bias_and_sd_follow_the_theory_lines():
    """Claim 2 (pooled over 10 seeds, 6 data sets per lifetime each): the Monte Carlo
    bias agrees with the exact limit bias within Z standard errors plus the finite-n
    effect of empty cells (mu(x) times their rate, < 0.002 here), and the standard
    deviation with the CLT's within Z standard errors plus 15% (boundary effects at
    small lambda, where a cell often reaches the cube's faces)."""
    curves = [bias_sd_vs_lifetime(D.BIAS_LIFETIMES, d=int(D.DIM), n=D.N, n_trees=D.TREES,
                                  debias_order=int(D.DEBIAS_ORDER), noise=D.NOISE,
                                  repetitions=6, seed=s)
              for s in SEEDS]
    bias = np.mean([c.bias for c in curves], axis=0)
    se = np.sqrt(np.mean([c.bias_se ** 2 for c in curves], axis=0) / len(curves))
    limit = curves[0].limit_bias
    assert np.all(np.abs(bias - limit) <= Z * se + 0.002)
    sd = np.sqrt(np.mean([c.sd ** 2 for c in curves], axis=0))
    R = len(curves) * curves[0].repetitions
    assert np.all(np.abs(sd - curves[0].theory_sd) <= Z * sd / np.sqrt(2 * R)
                  + 0.15 * curves[0].theory_sd)
    # and debiasing removes most of the bias where it is large
    assert np.all(np.abs(limit[1]) < 0.5 * np.abs(limit[0]))


def test_clt_histogram_with_many_trees_and_with_one():
    """Claim 3: at B = 100 the standardised estimate's variance is V = 0.409 plus the
    B-tree term within sampling error and 15% (the trees' bias varying from cell to
    cell); with one tree its standard deviation is more than twice sqrt(V)."""
    many = [clt_statistics(d=int(D.DIM), n=D.N, lifetime=D.LIFETIME, n_trees=D.CLT_TREES,
                           noise=D.NOISE, repetitions=50, seed=s) for s in SEEDS]
    t = np.concatenate([m.statistics for m in many])
    var, R = t.var(ddof=1), t.size
    assert abs(var - many[0].finite_b_variance) <= Z * var * np.sqrt(2 / R) + \
        0.15 * many[0].finite_b_variance
    assert abs(t.mean()) <= Z * np.sqrt(var / R)
    one = np.concatenate([clt_statistics(d=int(D.DIM), n=D.N, lifetime=D.LIFETIME,
                                         n_trees=1, noise=D.NOISE, repetitions=50,
                                         seed=s).statistics for s in SEEDS])
    assert one.std(ddof=1) > 2 * np.sqrt(many[0].variance)


def test_forests_beat_trees_at_every_n():
    """Claim 4, over 10 seeds (5 data sets per n each): pooled, the forest's risk is below
    half of one tree's at every n, and the slopes are near the theory's (within 0.2:
    1.5 decades of n and the constants' pre-asymptotic effects)."""
    runs = [risk_vs_n(D.RATE_NS, d=int(D.DIM), repetitions=5, noise=D.NOISE, seed=s)
            for s in SEEDS]
    ns = runs[0].ns
    pooled = {name: np.mean([r.risk[name] for r in runs], axis=0) for name in runs[0].risk}
    assert np.all(pooled["forest"] < 0.5 * pooled["tree"])
    for name, risk in pooled.items():
        slope = np.polyfit(np.log(ns), np.log(risk), 1)[0]
        assert abs(slope - runs[0].theory[name]) <= 0.2, (name, slope)
