"""The Kernel convergence page's fast paths (issue 25, item 6: server CPU per new link)
against the slow obvious computations they replace: the same trees, counts and errors."""
from __future__ import annotations

import numpy as np
import pytest

from mondrian_core.experiments import kernel_convergence as kc
from mondrian_core.experiments.grids import plane_grid
from mondrian_core.kernel import MondrianFeatures, block_one_hot_columns


def _grid_index(sizes):
    """Each grid point's index per axis (rows: points, first axis fastest)."""
    return np.stack(np.unravel_index(np.arange(int(np.prod(sizes))), sizes, order="F"), 1)


def _cells_point_by_point(sizes, leaves, n_trees):
    """Each grid point's leaf in each tree, by testing every point against every box."""
    tree_of, first, last = leaves
    index = _grid_index(sizes)
    cells = np.full((index.shape[0], n_trees), -1)
    for leaf, (t, lo, hi) in enumerate(zip(tree_of, first, last)):
        inside = np.all((index >= lo) & (index <= hi), axis=1)
        assert np.all(cells[inside, t] == -1)  # every point in one leaf per tree
        cells[inside, t] = leaf
    assert np.all(cells >= 0)
    return cells


def _same_partitions(a, b):
    for t in range(a.shape[1]):
        assert np.array_equal(a[:, t][:, None] == a[:, t], b[:, t][:, None] == b[:, t])


@pytest.mark.parametrize("lifetime, n_grid", [(10.0, 16), (0.7, 5), (60.0, 9)])
def test_grid_leaves_are_the_fitted_trees_partitions(lifetime, n_grid):
    gx, gy, grid = plane_grid([0.0, 0.0], [1.0, 1.0], n_grid)
    fast_rng, slow_rng = np.random.default_rng(8), np.random.default_rng(8)
    leaves = kc._grid_mondrian_leaves((gx, gy), lifetime, 60, fast_rng)
    fitted = MondrianFeatures(lifetime, 60, slow_rng).fit(grid)
    _same_partitions(_cells_point_by_point([n_grid, n_grid], leaves, 60),
                     block_one_hot_columns(fitted.transform(grid)))
    assert fast_rng.random() == slow_rng.random()  # the generator left where fit leaves it


def test_grid_leaves_in_three_dimensions_are_the_fitted_trees_partitions():
    axes = [np.linspace(0, 1, 4), np.linspace(0, 2, 5), np.linspace(0, 1, 3)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).transpose(2, 1, 0, 3).reshape(-1, 3)
    fast_rng, slow_rng = np.random.default_rng(9), np.random.default_rng(9)
    leaves = kc._grid_mondrian_leaves(axes, 2.0, 40, fast_rng)
    fitted = MondrianFeatures(2.0, 40, slow_rng).fit(grid)
    _same_partitions(_cells_point_by_point([4, 5, 3], leaves, 40),
                     block_one_hot_columns(fitted.transform(grid)))
    assert fast_rng.random() == slow_rng.random()


@pytest.mark.parametrize("sizes, lifetime", [([16, 16], 10.0), ([5, 5], 0.7), ([9, 9], 60.0),
                                             ([4, 5, 3], 2.0), ([6, 4], 3.0)])
def test_grid_shared_counts_are_the_block_by_block_counts(sizes, lifetime):
    axes = [np.linspace(0.0, 1.0, s) for s in sizes]
    counts = np.array(kc.feature_counts(60))
    leaves = kc._grid_mondrian_leaves(axes, lifetime, 60, np.random.default_rng(3))
    cells = _cells_point_by_point(sizes, leaves, 60)
    iu = np.triu_indices(cells.shape[0], k=1)
    boxes, box_of_pair, _ = kc._grid_pair_boxes(sizes, iu)
    fast = kc._grid_shared_counts(sizes, leaves, counts, boxes)
    for c, (m, Km) in enumerate(kc._block_cumulative(cells, cells, counts)):
        assert m == counts[c]
        # the same integers: the same fractions to the last bit
        assert np.array_equal(fast[c][box_of_pair] / m, Km[iu])


def test_pairs_in_one_box_lie_at_one_laplace_kernel_value():
    gx, gy, grid = plane_grid([0.0, 0.0], [1.0, 1.0], 16)
    iu = np.triu_indices(grid.shape[0], k=1)
    _, box_of_pair, first_pair = kc._grid_pair_boxes([16, 16], iu)
    K = kc.laplace_kernel(grid, lifetime=10.0)[iu]
    assert np.array_equal(K[first_pair][box_of_pair], K)


@pytest.mark.parametrize("lifetime, n_grid, top", [(10.0, 16, 200), (3.0, 7, 40), (30.0, 5, 30)])
def test_uniform_error_curves_are_the_pairwise_maximum_of_each_counts_kernel(lifetime, n_grid,
                                                                           top):
    counts = np.array(kc.feature_counts(top))
    fast = kc.uniform_error_curves(lifetime, counts, n_grid=n_grid, n_draws=2, random_state=5)
    gx, gy, grid = plane_grid([0.0, 0.0], [1.0, 1.0], n_grid)
    K = kc.laplace_kernel(grid, lifetime=lifetime)
    iu = np.triu_indices(grid.shape[0], k=1)
    rng = np.random.default_rng(5)
    for r in range(2):
        cells = block_one_hot_columns(MondrianFeatures(lifetime, top, rng).fit(grid).transform(grid))
        for c, (_, Km) in enumerate(kc._block_cumulative(cells, cells, counts)):
            assert fast.errors[kc.METHODS[0]][r, c] == np.abs(Km[iu] - K[iu]).max()


@pytest.mark.parametrize("n_train, counts", [(20, [2, 9, 30]), (12, [3, 260])])
def test_nested_ridge_dual_counts_are_each_counts_own_solve(n_train, counts):
    # few training rows: every map's Grams are in the dual from a small count on (Fourier
    # features too), and 260 members count past one byte
    rng = np.random.default_rng(21)
    X, Xt, y = rng.random((n_train, 3)), rng.random((9, 3)) * 1.2, rng.standard_normal(n_train)
    counts = np.array(counts)
    for method in kc.METHODS:
        fast = list(kc._nested_ridge_predictions(method, X, Xt, y, 2.0, counts, 0.05,
                                                 np.random.default_rng(4)))
        slow = [kc._ridge_predict(Z, Zt, y, 0.05) for Z, Zt in
                kc._nested_features(method, X, Xt, 2.0, counts, np.random.default_rng(4))]
        for a, b in zip(fast, slow, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)
