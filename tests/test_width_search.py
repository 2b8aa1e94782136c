"""The retraining width search (Figure 8 baseline) on known answers."""
import numpy as np
import scipy.sparse as sp

from mondrian_core.experiments.width_search import doubling_bisection_search, ridge_validation_rmse


def test_search_brackets_then_bisects_towards_the_minimum():
    target = 7.3
    lams, errs = doubling_bisection_search(lambda lam: (np.log(lam) - np.log(target)) ** 2,
                                           start=1.0, max_evals=14)
    assert lams[0] == 1.0 and 2.0 in lams and 8.0 in lams and 16.0 in lams  # doubling
    assert 0.25 not in lams  # after one look each way, only the promising side grows
    best = lams[np.argmin(errs)]
    assert abs(np.log(best / target)) < abs(np.log(8.0 / target))  # bisection improved


def test_search_halves_when_smaller_is_better():
    lams, _ = doubling_bisection_search(lambda lam: abs(np.log(lam) - np.log(0.1)), start=1.0,
                                        max_evals=8)
    assert 0.125 in lams


def test_ridge_primal_dual_agree_and_extra_validation_columns_get_zero_weight():
    rng = np.random.default_rng(0)
    Phi = rng.standard_normal((30, 5))
    y = rng.standard_normal(30)
    Pv = rng.standard_normal((10, 5))
    yv = rng.standard_normal(10)
    w = np.linalg.solve(Phi.T @ Phi + 0.5 * np.eye(5), Phi.T @ y)
    expected = np.sqrt(np.mean((Pv @ w - yv) ** 2))
    assert np.isclose(ridge_validation_rmse(Phi, y, Pv, yv, 0.5, 1.0), expected)
    wide = np.hstack([Phi, np.zeros((30, 40))])  # C > N: the dual path
    extra = np.hstack([Pv, rng.standard_normal((10, 40)), rng.standard_normal((10, 3))])
    assert np.isclose(ridge_validation_rmse(sp.csr_matrix(wide), y, sp.csr_matrix(extra), yv,
                                            0.5, 1.0),
                      np.sqrt(np.mean((extra[:, :45] @ np.concatenate([w, np.zeros(40)]) - yv) ** 2)))


def test_fits_are_counted_per_refit_and_once_for_the_sweep():
    from mondrian_core.experiments.width_search import SearchTrace, figure8_at_scale

    trace = SearchTrace("t", np.array([1.0, 2.0, 4.0]), np.array([0.5, 0.3, 0.4]),
                        np.array([0.1, 0.2, 0.3]))
    assert trace.fits_to_reach(0.3) == 2 and trace.time_to_reach(0.3) == 0.2
    assert trace.fits_to_reach(0.1) == float("inf")
    assert trace.best_index == 1  # the lifetime 2.0, error 0.3
    tie = SearchTrace("t", np.array([1.0, 2.0]), np.array([0.2, 0.2]), np.array([0.1, 0.2]))
    assert tie.best_index == 0  # the first on ties: the one known sooner
    result = figure8_at_scale(n_points=300, n_dims=5, n_trees=5, n_cells=10, max_evals=4)
    sweep, fourier, binning = result.traces
    assert np.all(sweep.fits == 1)  # one pass answers every lifetime
    for tr in (fourier, binning):
        assert np.array_equal(tr.fits, np.arange(1, tr.lifetimes.size + 1))
    assert result.n_train == 180 and result.n_val == 60  # the 60/20/20 split


def test_friedman1_is_seeded_and_its_function_standardised():
    from mondrian_core.datasets import friedman1

    a, b = friedman1(500, random_state=3), friedman1(500, random_state=3)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert a.X.shape == (500, 8) and a.X.min() >= 0 and a.X.max() <= 1
    assert np.isclose(a.f.mean(), 0) and np.isclose(a.f.std(), 1)
    # the noise is what was asked for: its sample std is within a few standard errors
    assert abs(np.std(a.y - a.f) - 0.1) < 4 * 0.1 / np.sqrt(2 * 500)
