"""The coverage-study recipe (small): intervals and coverage are what the posteriors say."""
from __future__ import annotations

import numpy as np
from scipy import stats

from mondrian_core import laplace_gp, laplace_lifetime_posterior, lifetime_path, lifetime_posterior
from mondrian_core.experiments.coverage import lifetime_coverage


def test_recipe_matches_the_posteriors_it_composes():
    prior = stats.loguniform(0.2, 20.0)
    st = lifetime_coverage(true_lifetimes=(3.0,), n_trees=(5,), seeds=(0, 1), n_points=40,
                           prior=prior)
    assert st.mondrian_interval.shape == (1, 1, 2, 2) and st.exact_interval.shape == (1, 2, 2)
    data = laplace_gp(40, 1, lifetime=3.0, noise_std=0.1, random_state=1)
    path = lifetime_path(data.X, data.y, terminal_lifetime=20.0, n_trees=5,
                         noise_variance=0.01, prior_variance=1.0, random_state=1 + 1_000_003)
    np.testing.assert_allclose(st.mondrian_interval[0, 0, 1],
                               lifetime_posterior(path, prior).credible_interval(0.9))
    exact = laplace_lifetime_posterior(data.X, data.y, prior, noise_variance=0.01)
    np.testing.assert_allclose(st.exact_interval[0, 1], exact.credible_interval(0.9))
    lo, hi = st.exact_interval[0, :, 0], st.exact_interval[0, :, 1]
    np.testing.assert_allclose(st.exact_coverage, [np.mean((lo <= 3.0) & (3.0 <= hi))])
    assert st.table()[0]["true lifetime"] == 3.0
