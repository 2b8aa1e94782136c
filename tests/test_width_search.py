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
