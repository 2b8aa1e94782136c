"""Kernel (joint) vs forest (independent) fits: each minimises its objective (Prop. 5)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from mondrian_core.experiments.kernel_vs_forest import (
    fit_forest_weights,
    fit_kernel_weights,
    objectives,
    tree_predictions,
)


def _features(N=50, M=4, seed=0):
    """Normalised one-hot cell features of M random partitions (cells per tree in column blocks)."""
    rng = np.random.default_rng(seed)
    cols, offset, per_tree = [], 0, []
    for _ in range(M):
        k = rng.integers(3, 9)
        labels = rng.integers(0, k, N)
        _, labels = np.unique(labels, return_inverse=True)   # non-empty cells only
        cols.append(labels + offset)
        per_tree.append(labels)
        offset += labels.max() + 1
    rows = np.repeat(np.arange(N), M)
    Phi = sp.csr_matrix((np.full(N * M, 1 / np.sqrt(M)), (rows, np.column_stack(cols).ravel())),
                        shape=(N, offset))
    y = rng.standard_normal(N)
    return Phi, y, per_tree


def _gradients(Phi, y, w, ratio, M):
    Phi = Phi.toarray()
    g_kernel = -2 * Phi.T @ (y - Phi @ w) + 2 * ratio * w
    # forest objective: (1/M) sum_m sum_n (y_n - sqrt(M) w_c(n,m))^2 + ratio ||w||^2
    g_forest = 2 * ratio * w
    for n in range(Phi.shape[0]):
        for c in np.flatnonzero(Phi[n]):
            g_forest[c] += -2 / M * np.sqrt(M) * (y[n] - np.sqrt(M) * w[c])
    return g_kernel, g_forest


@pytest.mark.parametrize("shape", [(50, 4), (12, 6)])  # primal and dual kernel solves
def test_each_fit_minimises_its_objective(shape):
    N, M = shape
    Phi, y, _ = _features(N, M)
    ratio = 0.3
    wk = fit_kernel_weights(Phi, y, ratio)
    wf = fit_forest_weights(Phi, y, ratio, M)
    gk, _ = _gradients(Phi, y, wk, ratio, M)
    _, gf = _gradients(Phi, y, wf, ratio, M)
    np.testing.assert_allclose(gk, 0, atol=1e-9)
    np.testing.assert_allclose(gf, 0, atol=1e-9)
    # and each is worse on the other's objective (strictly convex objectives)
    k_of_k, f_of_k = objectives(Phi, y, wk, ratio, M)
    k_of_f, f_of_f = objectives(Phi, y, wf, ratio, M)
    assert k_of_k < k_of_f and f_of_f < f_of_k


def test_kernel_weights_equal_a_direct_solve():
    Phi, y, _ = _features(40, 5, seed=1)
    ratio = 0.7
    A = Phi.toarray()
    direct = np.linalg.solve(A.T @ A + ratio * np.eye(A.shape[1]), A.T @ y)
    np.testing.assert_allclose(fit_kernel_weights(Phi, y, ratio), direct, rtol=1e-9, atol=1e-12)


def test_forest_weights_are_per_tree_ridge_leaf_values():
    """Tree m's prediction is its own ridge fit: leaf value sum(y) / (n + ratio)."""
    M = 3
    Phi, y, per_tree = _features(30, M, seed=2)
    ratio = 0.5
    trees = tree_predictions(Phi, fit_forest_weights(Phi, y, ratio, M), M)
    for m, labels in enumerate(per_tree):
        k = labels.max() + 1
        onehot = np.eye(k)[labels]
        leaf = np.linalg.solve(onehot.T @ onehot + ratio * np.eye(k), onehot.T @ y)
        np.testing.assert_allclose(trees[:, m], leaf[labels], rtol=1e-12)
    # the forest predicts the average of its trees
    np.testing.assert_allclose(Phi @ fit_forest_weights(Phi, y, ratio, M), trees.mean(axis=1))


def test_objectives_are_loss_of_average_and_average_of_losses():
    M = 4
    Phi, y, _ = _features(20, M, seed=3)
    w = np.random.default_rng(0).standard_normal(Phi.shape[1])
    k, f = objectives(Phi, y, w, 0.0, M)
    trees = tree_predictions(Phi, w, M)
    assert k == pytest.approx(np.sum((y - trees.mean(axis=1)) ** 2))
    assert f == pytest.approx(np.mean([np.sum((y - trees[:, m]) ** 2) for m in range(M)]))
    assert k <= f  # Jensen: the loss of the average is at most the average loss


def test_forest_fit_on_mondrian_features_is_the_mondrian_forest():
    """Same seed, same trees: the forest weights on MondrianFeatures reproduce the estimator."""
    from mondrian_core import MondrianFeatures, MondrianForestRegressor

    rng = np.random.default_rng(4)
    X = rng.random((80, 3))
    y = np.sin(4 * X[:, 0]) + X[:, 2]
    M, lam, noise = 6, 2.5, 0.2
    Phi = MondrianFeatures(lifetime=lam, n_trees=M, random_state=7).fit(X).transform(X)
    w = fit_forest_weights(Phi, y - y.mean(), noise / 1.0, M)
    forest = MondrianForestRegressor(M, lam, random_state=7, smoothing="none",
                                     noise_variance=noise, prior_variance=1.0).fit(X, y)
    np.testing.assert_allclose(Phi @ w + y.mean(), forest.predict(X), rtol=1e-10, atol=1e-12)


def test_path_and_weights_use_the_same_samples():
    from mondrian_core.experiments.kernel_vs_forest import (
        kernel_forest_weights,
        kernel_vs_forest_path,
    )

    rng = np.random.default_rng(5)
    X, Xt = rng.random((60, 2)), rng.random((30, 2))
    f = lambda Z: np.sin(5 * Z[:, 0]) * Z[:, 1]  # noqa: E731
    lifetimes = [0.5, 2.0, 6.0]
    path = kernel_vs_forest_path(X, f(X), Xt, f(Xt), lifetimes, n_trees=5, random_state=3)
    w = kernel_forest_weights(X, f(X), Xt, f(Xt), 2.0, n_trees=5, random_state=3,
                              terminal_lifetime=6.0)
    assert w.kernel_test_rmse == pytest.approx(path.kernel_test_rmse[1], rel=1e-12)
    assert w.forest_test_rmse == pytest.approx(path.forest_test_rmse[1], rel=1e-12)
