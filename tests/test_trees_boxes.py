"""Fast gathers in the tree code against the slow obvious ones: node boxes against each
node's points read directly, and the growth with ``np.take`` against the growth with
fancy indexing (the same draws, so the same trees bit for bit)."""
import numpy as np
import pytest

import mondrian_core.trees as trees_module
from mondrian_core import sample_mondrian_trees

_FIELDS = ("tree", "parent", "left", "right", "depth", "birth_time", "split_time",
           "split_dim", "split_loc", "start", "stop", "order", "leaf_of_point")
_CASES = [
    (1, 40, 5, 3.0, 0),     # trees on a line (the sorted-rows growth)
    (2, 200, 7, 8.0, 1),
    (10, 354, 12, 0.3, 2),  # the Kernel convergence page's Figure 6 shape
    (3, 300, 4, 200.0, 3),  # deep trees: many one-point leaves
]


def _points(dim, n, seed):
    X = np.random.default_rng(seed).uniform(size=(n, dim))
    k = n // 4
    X[:k] = X[k:2 * k]  # repeated rows: ties inside nodes
    return X


@pytest.mark.parametrize("dim, n, n_trees, lifetime, seed", _CASES)
def test_node_boxes_equal_points_read_node_by_node(dim, n, n_trees, lifetime, seed):
    X = _points(dim, n, seed)
    T = sample_mondrian_trees(X, n_trees, lifetime, random_state=seed)
    assert T.depth.max() >= 2  # inner nodes from their children, over several levels
    for j in range(T.tree.size):
        pts = X[T.order[T.tree[j], T.start[j]:T.stop[j]]]
        np.testing.assert_array_equal(T.lower[j], pts.min(0))
        np.testing.assert_array_equal(T.upper[j], pts.max(0))


@pytest.mark.parametrize("dim, n, n_trees, lifetime, seed", _CASES)
def test_growth_take_equals_fancy_indexing(dim, n, n_trees, lifetime, seed, monkeypatch):
    X = _points(dim, n, seed)
    fast = sample_mondrian_trees(X, n_trees, lifetime, random_state=seed)

    def fancy_take(self, idx):
        return trees_module._Working(**{f: getattr(self, f)[idx] for f in self.FIELDS})

    monkeypatch.setattr(trees_module._Working, "take", fancy_take)
    slow = sample_mondrian_trees(X, n_trees, lifetime, random_state=seed)
    for f in _FIELDS:
        np.testing.assert_array_equal(getattr(fast, f), getattr(slow, f), err_msg=f)


@pytest.mark.parametrize("bound, size", [(1, 5), (2, 1), (10, 30), (5000, 300), (64, 0)])
def test_unique_below_is_numpys_unique(bound, size):
    from mondrian_core.tree_extension import _unique_below

    keys = np.random.default_rng(bound + size).integers(0, bound, size)
    values, inverse = _unique_below(keys, bound)
    expected, expected_inverse = np.unique(keys, return_inverse=True)
    assert np.array_equal(values, expected)
    assert np.array_equal(inverse, expected_inverse)
