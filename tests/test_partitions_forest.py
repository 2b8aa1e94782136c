"""Random Forest partitions: the clusters of all trees at once against tree by tree."""
from __future__ import annotations

import numpy as np
import pytest

from mondrian_core import RandomForestPartitions
from mondrian_core.partitions import ancestors_at_depth, tree_parent_depth


def _tree_by_tree(trees, max_level, rng):
    depths, clusters = [], []
    for t in trees:
        parent, depth = tree_parent_depth(t.children_left, t.children_right)
        h = int(depth.max()) if max_level is None else int(max_level)
        depths.append(rng.integers(0, h + 1))
        clusters.append(ancestors_at_depth(parent, depth, depths[-1]))
    return np.array(depths), clusters


@pytest.mark.parametrize("max_level, n, dim", [(None, 120, 3), (3, 80, 2), (0, 30, 1),
                                               (12, 60, 4)])
def test_forest_clusters_same_as_tree_by_tree(max_level, n, dim):
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, dim))
    y = np.sin(X.sum(1)) + rng.normal(scale=0.1, size=n)
    parts = RandomForestPartitions(n_partitions=15, max_level=max_level, random_state=7).fit(X, y)
    # the depths' generator as fit spawns it
    depth_rng = np.random.default_rng(7)
    depth_rng.integers(2**31 - 1)
    depths, clusters = _tree_by_tree([e.tree_ for e in parts.forest_.estimators_], max_level,
                                     depth_rng.spawn(1)[0])
    np.testing.assert_array_equal(parts.depths_, depths)
    assert len(parts.cluster_of_node_) == len(clusters)
    for got, want in zip(parts.cluster_of_node_, clusters):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
