"""Node boxes by the sparse table (``range_boxes``) against the level-by-level reduction
(``node_boxes``) and against each node's points read directly: min and max are exact, so
the boxes must be equal bit for bit."""
import numpy as np
import pytest

from mondrian_core import sample_mondrian_trees
from mondrian_core.trees import node_boxes, range_boxes


def _slow(T):
    n = T.n_samples
    return node_boxes(T.X_fit, T.order.reshape(-1), T.tree * n + T.start, T.left, T.right,
                      T.depth)


@pytest.mark.parametrize("dim, n, n_trees, lifetime, seed", [
    (1, 40, 5, 3.0, 0),     # trees on a line (the sorted-rows growth)
    (2, 200, 7, 8.0, 1),
    (10, 354, 12, 0.3, 2),  # the Kernel convergence page's Figure 6 shape
    (3, 300, 4, 200.0, 3),  # deep trees: many one-point leaves, nodes of 2^k points
])
def test_range_boxes_equal_level_reduction(dim, n, n_trees, lifetime, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, dim))
    k = n // 4
    X[:k] = X[k:2 * k]  # repeated rows: ties inside nodes
    T = sample_mondrian_trees(X, n_trees, lifetime, random_state=seed)
    slow_lo, slow_hi = _slow(T)
    fast_lo, fast_hi = T.lower, T.upper  # range_boxes: every sampled node holds a point
    np.testing.assert_array_equal(fast_lo, slow_lo)
    np.testing.assert_array_equal(fast_hi, slow_hi)
    assert T.depth.max() >= 2  # the levels were exercised
    # and against the points read node by node
    for j in rng.choice(T.tree.size, size=min(60, T.tree.size), replace=False):
        pts = X[T.order[T.tree[j], T.start[j]:T.stop[j]]]
        np.testing.assert_array_equal(fast_lo[j], pts.min(0))
        np.testing.assert_array_equal(fast_hi[j], pts.max(0))


def test_range_boxes_every_count():
    # positions 0..P-1 split into runs of every length 1..33 and nested ranges
    rng = np.random.default_rng(5)
    X = rng.normal(size=(600, 3))
    order = rng.permutation(600)
    start = rng.integers(0, 560, size=400)
    stop = np.minimum(start + rng.integers(1, 40, size=400), 600)
    lo, hi = range_boxes(X, order, start, stop)
    for j in range(400):
        pts = X[order[start[j]:stop[j]]]
        np.testing.assert_array_equal(lo[j], pts.min(0))
        np.testing.assert_array_equal(hi[j], pts.max(0))


def test_boxes_of_extended_trees():
    # trees grown online mix the sampled nodes with the new points' nodes
    rng = np.random.default_rng(7)
    X = rng.uniform(size=(80, 2))
    T = sample_mondrian_trees(X, 6, 5.0, random_state=7)
    E = T.extended(rng.uniform(size=(30, 2)), random_state=8)
    slow_lo, slow_hi = _slow(E)
    np.testing.assert_array_equal(E.lower, slow_lo)
    np.testing.assert_array_equal(E.upper, slow_hi)
