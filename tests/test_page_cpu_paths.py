"""The fast paths behind the pages' CPU per new link (issue 25, item 6) against the slow
obvious computations they replace: the same numbers (to rounding) from the same draws."""
from __future__ import annotations

import numpy as np
import pytest

from mondrian_core.experiments import inference as inf
from mondrian_core.forest.debiased import (
    debias_weights,
    default_lifetime_ratios,
    forest_at_point,
    sample_cells_at,
)


def _risk_errors_one_call_per_forest(ns, d, R, noise, where, scale, seed):
    """risk_vs_n's errors as one forest_at_point call per tree and forest."""
    ns = np.asarray(ns)
    x = inf.query_point(d, where)
    truth = inf.regression_function(x[None])[0]
    ratios = default_lifetime_ratios(1)
    omega = debias_weights(ratios)
    err = {k: np.empty((ns.size, R)) for k in inf.RATE_EXPONENTS}
    life = {"tree": scale * ns ** (1 / (d + 2)), "forest": scale * ns ** (1 / (d + 4)),
            "debiased forest": scale * ns ** (1 / (d + 8))}
    for i, n in enumerate(ns):
        rng = np.random.default_rng([seed, int(n)])
        B = int(np.ceil(n ** (2 / 3)))
        for k in range(R):
            X, y = inf._draw(rng, int(n), d, noise)
            sq = [(forest_at_point(X, y, [sample_cells_at(x, life["tree"][i], 1, rng)],
                                   [1.0]).estimate - truth) ** 2
                  for _ in range(inf.TREE_DRAWS)]
            err["tree"][i, k] = np.sqrt(np.mean(sq))
            plain = sample_cells_at(x, life["forest"][i], B, rng)
            err["forest"][i, k] = forest_at_point(X, y, [plain], [1.0]).estimate - truth
            deb = [sample_cells_at(x, life["debiased forest"][i] * a, B, rng) for a in ratios]
            err["debiased forest"][i, k] = forest_at_point(X, y, deb, omega).estimate - truth
    return err


@pytest.mark.parametrize("d", [1, 2])
def test_risk_vs_n_batched_cells_match_one_call_per_forest(d):
    ns, R = [30, 200, 700], 4
    slow = _risk_errors_one_call_per_forest(ns, d, R, 1.0, 1 / 3, 3.0, 7)
    fast = inf.risk_vs_n(ns, d=d, repetitions=R, seed=7)
    for key, errors in slow.items():
        np.testing.assert_allclose(fast.risk[key], np.mean(errors ** 2, axis=1),
                                   rtol=1e-12, atol=0)
        np.testing.assert_allclose(fast.risk_se[key],
                                   np.std(errors ** 2, axis=1, ddof=1) / np.sqrt(R),
                                   rtol=1e-10, atol=0)


def test_forest_means_match_forest_at_point_with_empty_cells():
    rng = np.random.default_rng(3)
    for d, lifetime in ((1, 300.0), (3, 8.0)):  # cells this small: some are empty
        X, y = rng.random((60, d)), rng.standard_normal(60)
        lower, upper = sample_cells_at(np.full(d, 0.2), lifetime, 25, rng)
        trees = [(lower[b:b + 1], upper[b:b + 1]) for b in range(25)]
        means = inf._forest_means(X, y, trees + [(lower, upper)])
        slow = [forest_at_point(X, y, [tree], [1.0]).estimate for tree in trees]
        slow.append(forest_at_point(X, y, [(lower, upper)], [1.0]).estimate)
        assert np.any(means[:25] == 0.0) and np.any(means[:25] != 0.0)
        np.testing.assert_allclose(means, slow, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("d", [1, 2])
def test_forest_estimates_match_forest_at_point_on_the_same_stream(d):
    x, ratios = inf.query_point(d), default_lifetime_ratios(2)
    fast_rng, slow_rng = np.random.default_rng(11), np.random.default_rng(11)
    X, y = inf._draw(fast_rng, 300, d, 1.0)
    inf._draw(slow_rng, 300, d, 1.0)
    fast = inf._forest_estimates(x, X, y, 40, 6.0 * ratios, fast_rng)
    cells = [sample_cells_at(x, 6.0 * a, 40, slow_rng) for a in ratios]
    slow = forest_at_point(X, y, cells, debias_weights(ratios)).forest_estimates
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-15)
    assert fast_rng.random() == slow_rng.random()  # the stream is left where it was


def test_clt_statistics_match_one_forest_at_point_call_per_data_set():
    kw = dict(d=1, n=200, lifetime=5.0, n_trees=30, repetitions=6, seed=3)
    fast = inf.clt_statistics(**kw)
    ratios = default_lifetime_ratios(0)
    x = inf.query_point(1)
    rng = np.random.default_rng([3, 30])
    slow = []
    for _ in range(6):
        X, y = inf._draw(rng, 200, 1, 1.0)
        cells = [sample_cells_at(x, 5.0 * a, 30, rng) for a in ratios]
        slow.append(forest_at_point(X, y, cells, debias_weights(ratios)).estimate)
    centre = inf.regression_function(x[None])[0] + inf.limit_bias(5.0, 1)
    np.testing.assert_allclose(fast.statistics, np.sqrt(200 / 5.0) * (np.array(slow) - centre),
                               rtol=1e-11, atol=1e-13)


def test_uniform_error_curves_match_the_generic_kernel_error_curves():
    from mondrian_core.experiments import kernel_convergence as kc

    counts = kc.feature_counts(40)
    _, _, grid = kc.plane_grid([0.0, 0.0], [1.0, 1.0], 8)
    fast = kc.uniform_error_curves(10.0, counts, n_grid=8, n_draws=3, random_state=4)
    slow = kc.kernel_error_curves(grid, 10.0, counts, 3, methods=kc.METHODS[:1],
                                  random_state=4)
    assert np.array_equal(fast.errors[kc.METHODS[0]], slow.errors[kc.METHODS[0]])
