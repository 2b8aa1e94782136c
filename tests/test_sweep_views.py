"""The pages' views of a stored lifetime path (mondrian_core.experiments.sweep_views) and
the kernel-convergence page's kernel matrices, against the obvious computations."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import root_mean_squared_error

from mondrian_core import lifetime_path
from mondrian_core.experiments.kernel_convergence import kernel_matrices
from mondrian_core.experiments.sweep_views import fit_on_line, fit_on_plane, held_out_rmse
from mondrian_core.kernel import MondrianFeatures, laplace_kernel


def _path(d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((60, d))
    y = np.sin(4 * X.sum(axis=1)) + 0.1 * rng.standard_normal(60)
    return X, y, lifetime_path(X, y, terminal_lifetime=8.0, n_trees=5, random_state=seed)


def test_fit_on_line_is_the_path_prediction_over_the_data_range():
    X, _, path = _path(1)
    grid, mean = fit_on_line(path, 3.0, X, n_grid=50)
    assert grid.shape == (50, 1) and mean.shape == (50,)
    assert grid[0, 0] == X.min() and grid[-1, 0] == X.max()
    np.testing.assert_array_equal(mean, path.predict(grid, 3.0))


def test_fit_on_plane_lays_predictions_out_as_a_heat_map():
    X, _, path = _path(2)
    plane = fit_on_plane(path, 3.0, X, n_grid=7)
    np.testing.assert_array_equal(plane.lower, X.min(axis=0))
    np.testing.assert_array_equal(plane.upper, X.max(axis=0))
    assert plane.z.shape == (7, 7)
    for i, j in [(0, 0), (2, 5), (6, 1)]:  # z[i, j] is the prediction at (gx[j], gy[i])
        point = np.array([[plane.gx[j], plane.gy[i]]])
        assert plane.z[i, j] == pytest.approx(path.predict(point, 3.0)[0], rel=1e-12)


def test_held_out_rmse_matches_scikit_learn():
    X, y, path = _path(1, seed=3)
    expected = root_mean_squared_error(y, path.predict(X, 2.0))
    assert held_out_rmse(path, 2.0, X, y) == pytest.approx(expected, rel=1e-12)


def test_kernel_matrices_are_the_laplace_and_mondrian_kernels_and_an_order():
    X = np.random.default_rng(0).random((30, 2))
    laplace, mondrian, order = kernel_matrices(X, 4.0, 7, random_state=5)
    np.testing.assert_array_equal(laplace, laplace_kernel(X, lifetime=4.0))
    np.testing.assert_array_equal(
        mondrian, MondrianFeatures(4.0, 7, random_state=5).fit(X).kernel(X))
    assert sorted(order) == list(range(30))
    # a Mondrian kernel of 7 trees takes the values k / 7, with 1 on the diagonal
    np.testing.assert_allclose(mondrian * 7, np.round(mondrian * 7), atol=1e-12)
    np.testing.assert_allclose(np.diag(mondrian), 1.0)


def test_predictive_on_line_is_the_posterior_mixture_over_the_data_range():
    from scipy import stats

    from mondrian_core import lifetime_posterior
    from mondrian_core.experiments.sweep_views import predictive_on_line

    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 2, size=(40, 1))
    y = np.sin(3 * X[:, 0]) + 0.1 * rng.standard_normal(40)
    post = lifetime_posterior(lifetime_path(X, y, terminal_lifetime=8.0, n_trees=5,
                                            random_state=0), stats.expon(scale=2.0))
    grid, mean, std = predictive_on_line(post, X, n_grid=50, max_components=4)
    assert grid.shape == (50, 1) and grid[0, 0] == X.min() and grid[-1, 0] == X.max()
    m, s = post.predict(grid, return_std=True, include_noise=False, tol=1e-6,
                        max_components=4)
    np.testing.assert_array_equal(mean, m)
    np.testing.assert_array_equal(std, s)


def test_exact_posterior_on_sweep_is_the_laplace_posterior_on_the_truncated_grid():
    from mondrian_core.errors import InputError
    from mondrian_core.experiments.sweep_views import (
        exact_posterior_on_sweep,
        lowest_exact_lifetime,
    )
    from mondrian_core.laplace_posterior import laplace_lifetime_posterior, truncated_grid
    from mondrian_core.posterior import make_prior

    X, y, _ = _path(1)
    prior = make_prior("log-uniform", low=0.05, high=20.0)
    exact = exact_posterior_on_sweep(X, y, prior, 12.0, noise_variance=0.05,
                                     prior_variance=1.0)
    # 60 points: the grid's full size (it thins only from N = 600 on)
    slow = laplace_lifetime_posterior(X, y, prior, noise_variance=0.05, prior_variance=1.0,
                                      grid=truncated_grid(prior, 12.0, n_grid=160))
    np.testing.assert_array_equal(exact.lifetimes, slow.lifetimes)
    np.testing.assert_allclose(exact.density, slow.density, rtol=1e-12)
    assert lowest_exact_lifetime(prior, 12.0) == exact.lifetimes[0]
    with pytest.raises(InputError):
        exact_posterior_on_sweep([[np.nan]], [1.0], prior, 12.0, noise_variance=0.05,
                                 prior_variance=1.0)
