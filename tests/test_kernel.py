"""Tests of ``mondrian_core.kernel`` and ``mondrian_core.experiments.kernel_convergence``.

Tolerances come from the estimators' exact variances per tree / grid / frequency:
* Mondrian kernel and random binning: each member is a Bernoulli(k) indicator,
  variance k (1 - k);
* random Fourier features: 2 cos(w.x + b) cos(w.y + b) = cos(w.(x - y)) +
  cos(w.(x + y) + 2b) has variance (1 + k(2 delta)) / 2 + 1/2 - k^2 = 1 - k^2 / 2
  for the Laplace kernel (k(2 delta) = k(delta)^2).
Averages over S independent draws of M members are within 4.5 standard errors.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from mondrian_core import (
    MondrianFeatures,
    RandomBinningFeatures,
    RandomFourierFeatures,
    laplace_kernel,
)
from mondrian_core.errors import InputError
from mondrian_core.experiments.kernel_convergence import (
    METHODS,
    kernel_error_curves,
    kernel_slice,
    laplace_link_pairs,
    ridge_rmse_curves,
    serpentine_order,
)
from mondrian_core.figures.kernel import (
    kernel_error_figure,
    kernel_heatmaps_figure,
    kernel_slice_figure,
    laplace_link_figure,
    ridge_rmse_figure,
)
from mondrian_core.kernel import block_one_hot_columns

LIFETIME = 2.0
X4 = np.array([[0.1, 0.2], [0.3, 0.25], [0.8, 0.6], [0.15, 0.9]])
IU = np.triu_indices(4, k=1)
K4 = laplace_kernel(X4, lifetime=LIFETIME)[IU]


def _gram(Z, W=None):
    W = Z if W is None else W
    G = Z @ W.T
    return G.toarray() if sp.issparse(G) else G


def _make(kind, m, seed):
    cls = {"mondrian": MondrianFeatures, "binning": RandomBinningFeatures,
           "fourier": RandomFourierFeatures}[kind]
    return cls(LIFETIME, m, random_state=seed)


def _member_variance(kind, k):
    return 1 - k**2 / 2 if kind == "fourier" else k * (1 - k)


def test_laplace_kernel():
    K = laplace_kernel(X4, lifetime=LIFETIME)
    assert K[0, 1] == pytest.approx(np.exp(-LIFETIME * (0.2 + 0.05)))
    np.testing.assert_allclose(np.diag(K), 1.0)
    np.testing.assert_allclose(laplace_kernel(X4, X4[:2], lifetime=LIFETIME), K[:, :2])
    with pytest.raises(InputError):
        laplace_kernel(X4, np.ones((2, 3)))


@pytest.mark.parametrize("kind", ["mondrian", "binning", "fourier"])
@pytest.mark.parametrize("m", [4, 64])
def test_unbiased_with_error_shrinking_like_one_over_sqrt_m(kind, m):
    """Mean over seeds = Laplace kernel; mean squared error = member variance / M."""
    S = 300
    est = np.array([_gram(_make(kind, m, s).fit_transform(X4))[IU] for s in range(S)])
    var = _member_variance(kind, K4)
    # unbiased: the seed average is within 4.5 standard errors of k
    assert np.all(np.abs(est.mean(0) - K4) < 4.5 * np.sqrt(var / (m * S)))
    # error ~ 1/sqrt(M): the mean squared error over seeds estimates var / M
    sq = (est - K4) ** 2
    se = sq.std(0, ddof=1) / np.sqrt(S)
    assert np.all(np.abs(sq.mean(0) - var / m) < 4.5 * se + 1e-12)


@pytest.mark.parametrize("kind", ["mondrian", "binning"])
def test_one_nonzero_per_member_per_row(kind):
    X = np.random.default_rng(0).random((50, 3))
    Xn = np.random.default_rng(1).random((20, 3)) * 2 - 0.5
    f = _make(kind, 17, 0).fit(X)
    for Z in (f.transform(X), f.transform(Xn)):
        assert sp.isspmatrix_csr(Z) or isinstance(Z, sp.csr_array)
        assert np.all(np.diff(Z.indptr) == 17)
        np.testing.assert_allclose(Z.data, 1 / np.sqrt(17))
        cols = block_one_hot_columns(Z)
        assert cols.shape == (Z.shape[0], 17)
    if kind == "mondrian":
        for t in (0.0, 0.7, LIFETIME):
            Z = f.transform(Xn, lifetime=t)
            assert np.all(np.diff(Z.indptr) == 17)
            assert Z.shape[1] >= f.n_cells(t)


def _slow_partition(trees, X, t):
    """Node reached by each point when only cuts made at or before t are followed."""
    out = np.empty((trees.n_trees, len(X)), dtype=int)
    for m in range(trees.n_trees):
        for i, x in enumerate(X):
            j = trees.roots[m]
            while trees.left[j] >= 0 and trees.split_time[j] <= t:
                j = trees.left[j] if x[trees.split_dim[j]] <= trees.split_loc[j] \
                    else trees.right[j]
            out[m, i] = j
    return out


@pytest.mark.parametrize("t", [0.0, 0.5, 1.3, LIFETIME])
def test_transform_at_lifetime_equals_trees_cut_off_at_t(t):
    X = np.random.default_rng(2).random((30, 2))
    f = MondrianFeatures(LIFETIME, 12, random_state=3).fit(X)
    slow = _slow_partition(f.trees_, X, t)
    cols = block_one_hot_columns(f.transform(X, lifetime=t))
    # same partition in every tree: columns equal iff slow nodes equal
    for m in range(12):
        same_cols = cols[:, m, None] == cols[None, :, m]
        same_nodes = slow[m, :, None] == slow[m, None, :]
        np.testing.assert_array_equal(same_cols, same_nodes)
    # columns are exactly the non-empty cells at t, and distinct across trees
    assert f.n_cells(t) == sum(np.unique(slow[m]).size for m in range(12))
    assert np.unique(cols).size == f.n_cells(t)
    # kernel = fraction of trees that put the pair together
    K_slow = (slow[:, :, None] == slow[:, None, :]).mean(0)
    np.testing.assert_allclose(_gram(f.transform(X, lifetime=t)), K_slow)


def test_new_points_columns_and_determinism():
    X = np.random.default_rng(4).random((40, 2))
    Xn = np.random.default_rng(5).random((25, 2)) * 1.6 - 0.3
    f = MondrianFeatures(3.0, 30, random_state=6).fit(X)
    Z1, Z2 = f.transform(Xn), f.transform(Xn)
    assert (Z1 != Z2).nnz == 0 and Z1.shape == Z2.shape
    C = f.n_cells()
    nodes, new_cell = f.trees_.extend_jointly(Xn, random_state=f.extension_seed_)
    cols = block_one_hot_columns(Z1)
    branched = new_cell.T >= 0
    # new cells get columns after the fitted cells, one per new cell; others a fitted cell
    assert np.all(cols[branched] >= C) and np.all(cols[~branched] < C)
    assert np.unique(cols[branched]).size == new_cell.max() + 1 == Z1.shape[1] - C
    col_of_node, _ = f._column_of_node(f.trees_.lifetime)
    np.testing.assert_array_equal(cols[~branched], col_of_node[nodes.T[~branched]])
    # rows sharing a new cell share its column, and only they
    np.testing.assert_array_equal(cols[branched] - C, new_cell.T[branched])
    # fitted points given again (among new ones) land in their own fitted cells
    Zs = f.transform(np.vstack([X, Xn]))
    assert (Zs[:40, :C] != f.transform(X)).nnz == 0 and Zs[:40, C:].nnz == 0
    np.testing.assert_allclose(f.kernel(X, Xn), _gram(Zs[:40], Zs[40:]))
    np.testing.assert_array_equal(f.transform(X.copy() + 0.0).toarray(), f.transform(X).toarray())


def test_extension_keeps_laplace_link():
    """Kernel between a fitted and a new point (placed by extension) is unbiased."""
    X = np.array([[0.2, 0.3], [0.6, 0.5], [0.4, 0.9]])
    Xn = np.array([[0.5, 0.5], [1.1, 0.2], [-0.2, 0.7]])  # inside and outside the extent
    K = laplace_kernel(X, Xn, lifetime=LIFETIME)
    S, M = 250, 20
    est = np.zeros((S, 3, 3))
    for s in range(S):
        f = MondrianFeatures(LIFETIME, M, random_state=s).fit(X)
        est[s] = f.kernel(X, Xn)
    se = np.sqrt(K * (1 - K) / (S * M))
    assert np.all(np.abs(est.mean(0) - K) < 4.5 * se)


def test_sklearn_api_and_errors():
    f = MondrianFeatures(lifetime=1.5, n_trees=7, random_state=0)
    assert f.get_params() == {"lifetime": 1.5, "n_trees": 7, "random_state": 0}
    assert clone(f).get_params() == f.get_params()
    with pytest.raises(NotFittedError):
        f.transform(X4)
    f.fit(X4)
    assert np.all(np.diff(f.cut_times_) >= 0) and np.all(f.cut_times_ < 1.5)
    assert f.cut_times_.size == (f.trees_.left >= 0).sum()
    with pytest.raises(InputError):
        f.transform(np.ones((2, 3)))
    with pytest.raises(InputError):
        f.transform(X4, lifetime=2.0)
    with pytest.raises(InputError):
        MondrianFeatures(lifetime=-1).fit(X4)
    with pytest.raises(InputError):
        RandomBinningFeatures(n_grids=0).fit(X4)
    with pytest.raises(InputError):
        RandomFourierFeatures().fit(np.array([[np.nan, 1.0]]))
    a = RandomFourierFeatures(2.0, 5, random_state=1).fit_transform(X4)
    b = RandomFourierFeatures(2.0, 5, random_state=1).fit_transform(X4)
    np.testing.assert_array_equal(a, b)


def test_binning_new_points_get_new_columns():
    X = np.random.default_rng(7).random((30, 2))
    f = RandomBinningFeatures(3.0, 10, random_state=8).fit(X)
    Zn = f.transform(X + 5.0)  # far away: all bins new
    assert np.all(Zn.indices >= f.n_bins_)
    np.testing.assert_array_equal(f.transform(X).toarray(), f.fit_transform(X).toarray())


def test_kernel_error_curves_fig5_shape():
    """Per non-zero feature the Mondrian kernel beats Fourier features.

    At M members the squared error of a pair is about var/M with var <= 1/4 for
    the Mondrian kernel and 1 - k^2/2 >= 1/2 for Fourier features.
    """
    X = np.random.default_rng(9).random((60, 2))
    seen = []
    c = kernel_error_curves(X, 10.0, [1, 5, 20, 50], n_repeats=3, random_state=0,
                            progress=lambda f, t: seen.append(f))
    assert seen[-1] == pytest.approx(1.0) and len(seen) == 9
    for m in METHODS:
        assert c.errors[m].shape == (3, 4)
        assert c.mean(m)[-1] < c.mean(m)[0]
    assert c.mean(METHODS[0])[-1] < c.mean(METHODS[2])[-1]
    assert len(kernel_error_figure(c).data) == 7


def test_ridge_curves_and_exact_reference():
    rng = np.random.default_rng(10)
    X = rng.random((80, 2))
    y = np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(80)
    r = ridge_rmse_curves(X[:60], y[:60], X[60:], y[60:], 3.0, [2, 30], n_repeats=2,
                          ridge=0.1, random_state=0)
    assert r.exact_rmse < r.baseline_rmse
    for m in METHODS:
        assert r.rmse[m].shape == (2, 2) and np.all(np.isfinite(r.rmse[m]))
    # many features approach the exact kernel: closer at M = 30 than a constant predictor
    assert all(abs(r.mean(m)[-1] - r.exact_rmse) < abs(r.baseline_rmse - r.exact_rmse)
               for m in METHODS)
    fig = ridge_rmse_figure(r, dataset_name="toy")
    assert len(fig.data) == 6 and len(fig.layout.shapes) == 2


def test_slice_link_order_and_figures():
    s, lap, est = kernel_slice(4.0, [1, 10], n_grid=101, random_state=0)
    assert set(est) == {1, 10}
    # a step function: with one tree the values are 0 or 1 and 1 only on an interval
    ones = np.flatnonzero(est[1] == 1)
    assert set(np.unique(est[1])) <= {0.0, 1.0} and np.all(np.diff(ones) == 1)
    fig = kernel_slice_figure(s, lap, est, lifetime=4.0)
    assert len(fig.frames) == 2
    X = np.random.default_rng(11).random((50, 2))
    lap_v, frac, dist = laplace_link_pairs(X, 4.0, 40, n_pairs=100, random_state=0)
    assert lap_v.shape == frac.shape == (100,) and np.all((frac >= 0) & (frac <= 1))
    np.testing.assert_allclose(lap_v, np.exp(-4.0 * dist))
    assert len(laplace_link_figure(lap_v, frac, 40).data) == 3
    order = serpentine_order(X)
    assert np.array_equal(np.sort(order), np.arange(50))
    K = laplace_kernel(X, lifetime=4.0)
    # the snake order puts near points next to each other: the first off-diagonal grows
    assert np.diag(K[np.ix_(order, order)], 1).mean() > np.diag(K, 1).mean()
    f = MondrianFeatures(4.0, 10, random_state=0).fit(X)
    assert len(kernel_heatmaps_figure(K, f.kernel(X), order, n_trees=10).data) == 3


def _ridge_toy(seed):
    """40 training points in the square, 15 test points partly outside, noise targets."""
    rng = np.random.default_rng(seed)
    X, Xt = rng.random((40, 2)), rng.random((15, 2)) * 1.2
    return X, Xt, rng.standard_normal(40)


def test_nested_features_and_primal_equals_dual():
    from mondrian_core.experiments.kernel_convergence import (
        _krr_predict,
        _nested_features,
        _ridge_predict,
    )

    X, Xt, y = _ridge_toy(12)
    counts = np.array([1, 3, 8])
    for method in METHODS:
        gen = _nested_features(method, X, Xt, 3.0, counts, np.random.default_rng(0))
        for m, (Z, Zt) in zip(counts, gen):
            if method != METHODS[2]:
                # the prefix holds exactly m members: one non-zero 1/sqrt(m) per member per row
                assert np.all(np.diff(sp.csr_matrix(Z).indptr) == m)
                np.testing.assert_allclose(sp.csr_matrix(Z).data, 1 / np.sqrt(m))
            else:
                assert Z.shape[1] == m
            dense = [a.toarray() if sp.issparse(a) else a for a in (Z, Zt)]
            K, Kt = dense[0] @ dense[0].T, dense[1] @ dense[0].T
            np.testing.assert_allclose(_ridge_predict(Z, Zt, y, 0.3), _krr_predict(K, Kt, y, 0.3),
                                       atol=1e-9)
    # nested Mondrian prefix = the kernel of the first m trees
    gen = _nested_features(METHODS[0], X, Xt, 3.0, counts, np.random.default_rng(0))
    f = MondrianFeatures(3.0, 8, random_state=np.random.default_rng(0)).fit(X)
    leaf = f.trees_.leaf_of_point
    for m, (Z, _) in zip(counts, gen):
        np.testing.assert_allclose(_gram(Z), (leaf[:m, :, None] == leaf[:m, None, :]).mean(0))


def test_partial_fit_keeps_old_columns_and_appends_new_cells():
    rng = np.random.default_rng(2)
    X1, X2 = rng.random((40, 2)), rng.random((15, 2)) * 2 - 0.5
    f = MondrianFeatures(3.0, 20, random_state=0).fit(X1)
    before = {t: f.transform(X1, lifetime=t) for t in (0.5, 1.7, 3.0)}
    cells = {t: f.n_cells(t) for t in before}
    f.partial_fit(X2)
    assert f.X_fit_.shape == (55, 2)
    for t, Z in before.items():
        after = f.transform(X1, lifetime=t)
        assert f.n_cells(t) >= cells[t]
        # the old points keep their columns; their columns hold only the same cells
        assert (after[:, :cells[t]] != Z).nnz == 0 and after[:, cells[t]:].nnz == 0
    # the kernel on all points is that of the extended trees
    K = f.kernel(f.X_fit_)
    leaf = f.trees_.nodes_at()
    np.testing.assert_allclose(K, (leaf[:, :, None] == leaf[:, None, :]).mean(0))
    # the first partial_fit fits
    g = MondrianFeatures(3.0, 20, random_state=0).partial_fit(X1)
    assert (g.transform(X1) != MondrianFeatures(3.0, 20, random_state=0).fit(X1)
            .transform(X1)).nnz == 0


@pytest.mark.parametrize("method", METHODS[:2])
@pytest.mark.parametrize("lifetime", [0.5, 10.0])
def test_cumulative_kernels_equal_the_block_by_block_count(method, lifetime):
    """The sparse product counts exactly what comparing every block's cells pair by pair
    counts (the slow obvious way), on the fitted points and on new ones."""
    from mondrian_core.experiments.kernel_convergence import cumulative_kernels
    from mondrian_core.kernel import RandomBinningFeatures, block_one_hot_columns

    rng = np.random.default_rng(3)
    X, Y = rng.random((30, 2)), rng.random((12, 2)) * 1.3
    counts = [1, 4, 9]
    for other in (None, Y):
        fast = list(cumulative_kernels(method, X, other, lifetime, counts, random_state=5))
        cls = MondrianFeatures if method == METHODS[0] else RandomBinningFeatures
        est = cls(lifetime, counts[-1], np.random.default_rng(5)).fit(X)
        ca = block_one_hot_columns(est.transform(X))
        cb = ca if other is None else block_one_hot_columns(
            est.transform(np.vstack([X, Y])))[X.shape[0]:]
        for m, K in fast:
            slow = sum((ca[:, b, None] == cb[None, :, b]).astype(float) for b in range(m)) / m
            np.testing.assert_array_equal(K, slow)


def test_curves_read_the_mean_at_a_count_and_its_fall():
    from mondrian_core.experiments.kernel_convergence import KernelErrorCurves

    errors = np.array([[0.5, 0.3, 0.1, 0.05], [0.7, 0.5, 0.3, 0.15]])
    c = KernelErrorCurves(counts=np.array([1, 10, 40, 90]), errors={METHODS[0]: errors})
    assert c.mean_at(METHODS[0], 10) == 0.4 and c.mean_at(METHODS[0], 7) is None
    start, end, ratio, rate = c.fall_from(METHODS[0], 10)
    assert (start, end) == (0.4, 0.1)
    assert ratio == 0.4 / 0.1 and rate == 3.0
    # a count between the grid's: the next count's mean, and the rate from that count too
    assert c.fall_from(METHODS[0], 5) == (0.4, 0.1, 0.4 / 0.1, 3.0)


@pytest.mark.parametrize("ridge", [0.3, 0.01])
def test_nested_ridge_predictions_are_each_counts_own_solve(ridge):
    from mondrian_core.experiments.kernel_convergence import (
        _nested_features,
        _nested_ridge_predictions,
        _ridge_predict,
    )

    X, Xt, y = _ridge_toy(13)
    counts = np.array([1, 3, 8, 20, 30])
    for method in METHODS:
        fast = list(_nested_ridge_predictions(method, X, Xt, y, 3.0, counts, ridge,
                                              np.random.default_rng(1)))
        slow = [_ridge_predict(Z, Zt, y, ridge) for Z, Zt in
                _nested_features(method, X, Xt, 3.0, counts, np.random.default_rng(1))]
        assert len(fast) == len(slow) == counts.size
        for a, b in zip(fast, slow):  # the same solve up to rounding
            np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)
    # the dual's shared Grams are used: the Mondrian prefix outgrows the 40 rows
    Z, _ = list(_nested_features(METHODS[0], X, Xt, 3.0, counts, np.random.default_rng(1)))[-1]
    assert Z.shape[1] > X.shape[0]
