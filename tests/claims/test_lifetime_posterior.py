"""The Lifetime posterior page's claims, at its defaults (explorer_ui/defaults_lifetime_posterior.py),
computed with mondrian_core directly: the same data, split, seed and settings as the page.

1. Both 90% credible intervals (Mondrian, M = 300, and the exact Laplace-GP posterior)
   hold the true lifetime.
2. The finite-M bias: with M = 10 trees the Mondrian posterior sits far above the exact
   one and its interval misses the truth; the bias shrinks with M.
"""
from __future__ import annotations

import pytest

from explorer_ui import defaults_lifetime_posterior as D
from explorer_ui.sweep import TRAIN_FRACTION, terminal_lifetime
from mondrian_core import datasets as ds
from mondrian_core import laplace_lifetime_posterior, lifetime_path, lifetime_posterior
from mondrian_core.laplace_posterior import truncated_grid
from mondrian_core.posterior import make_prior


@pytest.fixture(scope="module")
def setup():
    data = ds.laplace_gp(D.DATA_N, 1, D.TRUE_LIFETIME, D.DATA_NOISE_STD, random_state=D.SEED)
    train, val, _ = ds.train_val_test_split(data, (TRAIN_FRACTION, 0.2, 0.2),
                                            random_state=D.SEED)
    T = terminal_lifetime(train.X, D.CELLS)
    low, high = D.prior_range(T)
    prior = make_prior(D.PRIOR, low=low, high=high)
    exact = laplace_lifetime_posterior(train.X, train.y, prior, noise_variance=D.NOISE_VARIANCE,
                                       prior_variance=D.PRIOR_VARIANCE,
                                       grid=truncated_grid(prior, T, n_grid=160))

    def mondrian(n_trees):
        path = lifetime_path(train.X, train.y, val.X, val.y, random_state=D.SEED,
                             n_trees=n_trees, terminal_lifetime=T,
                             noise_variance=D.NOISE_VARIANCE, prior_variance=D.PRIOR_VARIANCE)
        return lifetime_posterior(path, prior)

    return data, exact, mondrian


def test_both_intervals_hold_the_true_lifetime_at_the_defaults(setup):
    data, exact, mondrian = setup
    assert data.true_lifetime == D.TRUE_LIFETIME
    post = mondrian(D.TREES)
    lo, hi = post.credible_interval(D.LEVEL)
    e_lo, e_hi = exact.credible_interval(D.LEVEL)
    assert lo <= D.TRUE_LIFETIME <= hi, (lo, hi)
    assert e_lo <= D.TRUE_LIFETIME <= e_hi, (e_lo, e_hi)
    # the page's sentence: the two means within 25% of each other at the default M
    assert abs(post.mean / exact.mean - 1) < 0.25, (post.mean, exact.mean)
    # and no pile-up warning at the defaults (the sweep reaches far enough)
    assert post.mass_near_terminal() < 0.05


def test_few_trees_bias_the_posterior_upwards(setup):
    _, exact, mondrian = setup
    few, many = mondrian(10), mondrian(D.TREES)
    lo, _ = few.credible_interval(D.LEVEL)
    assert lo > D.TRUE_LIFETIME  # the M = 10 interval misses the truth, above it
    assert few.mean > 3 * exact.mean  # "several times the exact posterior's"
    assert abs(many.mean - exact.mean) < abs(few.mean - exact.mean) / 5
