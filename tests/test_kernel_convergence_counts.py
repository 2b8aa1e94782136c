"""Fast paths of the Kernel convergence page against the slow obvious ones.

The uniform chart's shared-cell counts in the narrowest integer type: the running sums
wrap around modulo 2^bits, the final counts (at most a bucket's trees) are exact. Checked
against the block-by-block counts of each grid point's leaf, with buckets narrow enough
for uint8 (the page's defaults) and too wide for it. Its grid trees' cut index from the
spacing against the binary search. The slice's kernel row against the row of the full
cumulative kernels. Random binning's fit_transform against fit, then transform."""
from __future__ import annotations

import numpy as np
import pytest

from mondrian_core.experiments import kernel_convergence as kc


def _cells(sizes, leaves, n_trees):
    """Each grid point's leaf in each tree (first axis fastest), box by box."""
    tree_of, first, last = leaves
    cells = np.full((*reversed(sizes), n_trees), -1)  # (..., axis 1, axis 0, tree)
    for leaf, (t, lo, hi) in enumerate(zip(tree_of, first, last)):
        box = tuple(slice(a, b + 1) for a, b in zip(lo[::-1], hi[::-1]))
        assert np.all(cells[box + (t,)] == -1)  # the leaves of a tree are disjoint
        cells[box + (t,)] = leaf
    assert np.all(cells >= 0)  # and cover the grid
    return cells.reshape(-1, n_trees)


@pytest.mark.parametrize("sizes, lifetime, counts", [
    ([16, 16], 10.0, kc.feature_counts(500)),  # the page's defaults: uint8, buckets <= 200
    # buckets of 298 trees, some pairs together in more than 255 of them: int16
    ([6, 5], 0.2, [1, 299, 300]),
    ([3, 4, 2], 0.2, [2, 300]),
])
def test_counts_in_the_narrowest_type_are_the_block_by_block_counts(sizes, lifetime, counts):
    counts = np.array(counts)
    n_trees = int(counts[-1])
    axes = [np.linspace(0.0, 1.0, s) for s in sizes]
    leaves = kc._grid_mondrian_leaves(axes, lifetime, n_trees, np.random.default_rng(5))
    largest = np.diff(counts, prepend=0).max()
    if largest < 256:
        # partial sums count leaves of a bucket meeting some of the box's conditions:
        # more of them than uint8 holds, so the sums do wrap around
        bucket = np.searchsorted(counts, leaves[0], side="right")
        assert np.bincount(bucket).max() > 255
    cells = _cells(sizes, leaves, n_trees)
    iu = np.triu_indices(cells.shape[0], k=1)
    boxes, box_of_pair, _ = kc._grid_pair_boxes(sizes, iu)
    fast = kc._grid_shared_counts(sizes, leaves, counts, boxes)
    if largest >= 256:  # some box lies in one leaf of more of a bucket's trees than uint8 holds
        assert np.diff(fast, axis=0, prepend=0).max() > 255
    for c, (m, Km) in enumerate(kc._block_cumulative(cells, cells, counts)):
        assert m == counts[c]
        assert np.array_equal(fast[c][box_of_pair] / m, Km[iu])  # the same integers


@pytest.mark.parametrize("axis", [np.linspace(0.0, 1.0, 16), np.linspace(-3.0, 7.5, 101),
                                  np.linspace(0.2, 0.9, 2), np.array([0.0, 0.1, 0.5, 1.0])])
def test_last_index_at_or_below_is_the_binary_search(axis):
    rng = np.random.default_rng(4)
    # uniform locations, every grid point itself, its float neighbours and the ends
    loc = np.concatenate([rng.uniform(axis[0], axis[-1], 5000), axis,
                          np.nextafter(axis, -np.inf), np.nextafter(axis, np.inf),
                          [axis[0] - 1.0, axis[-1] + 1.0]])
    find = kc._last_at_or_below_finder(axis)
    assert np.array_equal(find(loc), np.searchsorted(axis, loc, side="right") - 1)


@pytest.mark.parametrize("lifetime, counts, n_grid, x0", [
    (10.0, kc.feature_counts(50), 301, (0.5, 0.5)),  # the page's slice
    (3.0, [1, 4, 9], 41, (0.23, 0.8)),
    (30.0, [2, 3, 300], 25, (1.0, 0.0)),  # more than 255 trees
])
def test_the_slice_is_its_row_of_the_cumulative_kernels(lifetime, counts, n_grid, x0):
    s, laplace, est = kc.kernel_slice(lifetime, counts, x0=x0, n_grid=n_grid, random_state=7)
    line = np.repeat(np.array([x0], dtype=float), n_grid, axis=0)
    line[:, 0] = s
    i0 = int(np.argmin(np.abs(s - x0[0])))
    line[i0, 0] = x0[0]
    slow = {m: Km[i0] for m, Km in kc.cumulative_kernels(kc.METHODS[0], line, None, lifetime,
                                                          counts, random_state=7)}
    assert list(est) == list(slow) == list(counts)
    for m in counts:
        assert np.array_equal(est[m], slow[m])  # the same fractions to the last bit
    assert np.array_equal(laplace, np.exp(-lifetime * np.abs(s - x0[0])))


@pytest.mark.parametrize("lifetime, n_grids", [(0.3, 50), (5.0, 7)])
def test_binning_fit_transform_is_fit_then_transform(lifetime, n_grids):
    from mondrian_core.kernel import RandomBinningFeatures

    X = np.random.default_rng(2).normal(size=(60, 4))
    fast = RandomBinningFeatures(lifetime, n_grids, random_state=3).fit_transform(X)
    slow = RandomBinningFeatures(lifetime, n_grids, random_state=3).fit(X).transform(X)
    assert fast.shape == slow.shape and fast.shape[1] > n_grids
    assert (fast != slow).nnz == 0  # the same columns and values, bit for bit
