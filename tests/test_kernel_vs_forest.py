"""Kernel (joint) vs forest (independent) fits: each minimises its objective (Prop. 5)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from mondrian_core.errors import InputError
from mondrian_core.experiments.kernel_vs_forest import (
    disagreement,
    fit_forest_weights,
    fit_kernel_weights,
    kernel_forest_weights,
    kernel_vs_forest_path,
    objectives,
    paper_sgd_path,
    sgd_epoch,
    spread_verdict,
    tree_predictions,
)
from mondrian_core.kernel import MondrianFeatures


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


@pytest.mark.parametrize("seed", range(4))
def test_forest_objective_is_kernel_objective_plus_disagreement(seed):
    """F(w) = K(w) + D(w) at any weights (the ambiguity decomposition), checked against the
    disagreement written out as a double loop over rows and trees."""
    M = 3 + seed
    Phi, y, per_tree = _features(N=40, M=M, seed=seed)
    w = np.random.default_rng(seed + 10).standard_normal(Phi.shape[1])
    ratio = 0.3
    kernel, forest = objectives(Phi, y, w, ratio, M)
    dense = Phi.toarray()
    slow = 0.0
    for n in range(dense.shape[0]):
        preds = [np.sqrt(M) * w[c] for c in np.flatnonzero(dense[n])]
        slow += sum((p - np.mean(preds)) ** 2 for p in preds) / M
    assert disagreement(Phi, w, M) == pytest.approx(slow, rel=1e-12)
    assert forest == pytest.approx(kernel + slow, rel=1e-12)


def test_spread_verdict_follows_the_stated_rule():
    base = np.array([-1.0, 1.0])
    assert spread_verdict(base * 1.25, base) == "same"       # within 25%: the same
    assert spread_verdict(base, base * 1.25) == "same"
    assert spread_verdict(base * 1.26, base) == "kernel"
    assert spread_verdict(base, base * 1.26) == "forest"
    with pytest.raises(InputError):
        spread_verdict(base, base, tolerance=-0.1)


def test_sgd_epoch_warm_start_and_seed():
    Phi, y, _ = _features(N=60, M=4, seed=1)
    w0 = np.zeros(Phi.shape[1])
    a = sgd_epoch(Phi, y, w0, 1e-3, random_state=5)
    b = sgd_epoch(Phi, y, w0, 1e-3, random_state=5)
    np.testing.assert_array_equal(a, b)
    assert not w0.any()   # the start is not overwritten (scikit-learn writes into coef_init)
    # epochs chained from the previous weights minimise the exact kernel's ridge objective
    # (sklearn's alpha = ratio / N): the excess over its minimum shrinks towards 0, while
    # one epoch from 0 (the paper's step sizes) removes little of it
    ratio, w = 1.0, w0
    exact = fit_kernel_weights(Phi, y, ratio)

    def excess(v):
        return objectives(Phi, y, v, ratio, 4)[0] - objectives(Phi, y, exact, ratio, 4)[0]

    for epoch in range(300):
        w = sgd_epoch(Phi, y, w, ratio / Phi.shape[0], random_state=epoch)
    assert excess(a) > 0.5 * excess(w0)
    assert 0 <= excess(w) < 0.01 * excess(w0)


@pytest.fixture(scope="module")
def small_data():
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(70, 2))
    y = np.sin(4 * X[:, 0]) + 0.1 * rng.standard_normal(70)
    return X[:50], y[:50], X[50:], y[50:]


def test_paper_sgd_path_runs_on_the_exact_paths_trees(small_data):
    X, y, Xt, yt = small_data
    grid = np.array([0.5, 2.0, 6.0])
    sgd = paper_sgd_path(X, y, Xt, yt, grid, n_trees=4, noise_variance=0.5, random_state=2)
    feats = MondrianFeatures(lifetime=6.0, n_trees=4, random_state=2).fit(X)
    assert sgd.n_epochs[-1] == feats.trees_.events().size   # one epoch per cut
    assert np.all(np.diff(sgd.n_epochs) >= 0)
    assert sgd.alpha == pytest.approx(0.5 / 50)
    for lam, w, train in zip(grid, sgd.weights, sgd.train_rmse):
        # the weights are in transform's columns: they give the recorded train error
        Phi = feats.transform(X, lifetime=lam)
        assert w.size == Phi.shape[1]
        rmse = np.sqrt(np.mean((Phi @ w + y.mean() - y) ** 2))
        assert rmse == pytest.approx(train, rel=1e-10)
    np.testing.assert_array_equal(sgd.weights_at(2.1), sgd.weights[1])
    exact = kernel_vs_forest_path(X, y, Xt, yt, grid, n_trees=4, noise_variance=0.5,
                                  random_state=2)
    assert np.all(np.isfinite(sgd.test_rmse)) and exact.lifetimes.size == 3


def test_paper_sgd_path_rejects_bad_input(small_data):
    X, y, Xt, yt = small_data
    with pytest.raises(InputError):
        paper_sgd_path(X, y, Xt, yt, [], n_trees=2)
    with pytest.raises(InputError):
        paper_sgd_path(X, y, Xt, yt, [1.0], n_trees=2, alpha=-1.0)
    with pytest.raises(InputError):
        paper_sgd_path(X, y[:-1], Xt, yt, [1.0], n_trees=2)


def test_weights_report_their_scale_and_cells(small_data):
    X, y, Xt, yt = small_data
    w = kernel_forest_weights(X, y, Xt, yt, 3.0, n_trees=4, noise_variance=0.5, random_state=0)
    np.testing.assert_allclose(w.forest_leaf_values, 2.0 * w.forest_weights)
    assert w.points_per_cell == pytest.approx(50 * 4 / w.kernel_weights.size)
    assert w.spread_ratio >= 1
    assert w.wider() == spread_verdict(w.kernel_weights, w.forest_weights)
    # the recorded disagreement is the forest objective minus the kernel objective
    for fit in ("kernel", "forest"):
        ov = w.objective_values[fit]
        assert w.disagreements[fit] == pytest.approx(ov["forest"] - ov["kernel"], rel=1e-9)
