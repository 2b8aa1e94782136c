"""The column-wise walk used by the forests' predictions against the row-wise
ones they replace (same records and numbers to the bit), and the predictions against
the row-gathering loop that used them."""
from __future__ import annotations

import numpy as np
import pytest

from mondrian_core.forest import MondrianForestClassifier, MondrianForestRegressor
from mondrian_core.forest.tree_store import (
    path_view,
    truncated_exp_moments,
    walk,
    walk_by_columns,
)


def _points(rng, n, D):
    # inside the data, well outside it, and one point far enough for z to overflow
    X = np.vstack([rng.uniform(-3, 3, (n, D)), rng.uniform(-30, 30, (n // 4, D))])
    X[0] = 1e307
    return X


def _assert_same_records(a, X, n_trees):
    slow = list(walk(a, X, n_trees))
    fast = list(walk_by_columns(a, X, n_trees))
    assert len(fast) == len(slow) > 1
    for r_fast, r_slow in zip(fast, slow):
        for f, s in zip(r_fast, r_slow):
            np.testing.assert_array_equal(f, s, strict=True)


# D = 7: the widest summed column by column; 8 and 9: handed over to walk
@pytest.mark.parametrize("D", [1, 2, 3, 7, 8, 9])
def test_walk_by_columns_yields_the_records_of_walk(D):
    rng = np.random.default_rng(D)
    X = rng.uniform(-1, 1, (80, D))
    y = X.sum(axis=1) + 0.1 * rng.normal(size=80)
    forest = MondrianForestRegressor(6, 4.0, random_state=D).fit(X[:50], y[:50])
    forest.partial_fit(X[50:], y[50:])  # online growth: inserted and split nodes too
    T = _points(rng, 120, D)
    _assert_same_records(forest.trees_.arrays(), T, 6)
    _assert_same_records(path_view(forest.trees_), T, 6)


def test_walk_by_columns_splits_trees_into_the_groups_of_walk(monkeypatch):
    from mondrian_core.forest import tree_store
    monkeypatch.setattr(tree_store, "_WALK_ENTRIES", 80)  # two trees a group
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (40, 2))
    forest = MondrianForestClassifier(5, 3.0, random_state=3).fit(X, (X[:, 0] > 0).astype(int))
    _assert_same_records(forest.trees_.arrays(), _points(rng, 25, 2), 5)


def _predict_by_rows(forest, X):
    """The regressor's prediction loop as it read the coefficients: a row per entry."""
    a, post = forest.trees_.arrays(), forest._node_posterior()
    M, N = forest.n_estimators, X.shape[0]
    mean, second = np.zeros(M * N), np.zeros(M * N)
    for entry, node, surv, pb, z, leaf in walk(a, X, M):
        pos = z > 0
        if pos.any():
            e, c, w = entry[pos], post["branch"][node[pos]], surv[pos] * pb[pos]
            eu, eu2 = truncated_exp_moments(z[pos])
            mean[e] += w * (c[:, 0] + c[:, 1] * eu)
            second[e] += w * (c[:, 2] + c[:, 3] * eu + c[:, 4] * eu2)
        if leaf.any():
            e, c, w = entry[leaf], post["leaf"][node[leaf]], surv[leaf] * (1.0 - pb[leaf])
            mean[e] += w * c[:, 0]
            second[e] += w * c[:, 1]
    mu = mean.reshape(M, N).mean(axis=0)
    sd = np.sqrt(np.maximum(second.reshape(M, N).mean(axis=0) - mu**2, 0.0))
    return mu + forest.y_mean_, sd


@pytest.mark.parametrize("smoothing", ["hierarchical", "none"])
def test_regressor_predicts_the_numbers_of_the_row_loop(smoothing):
    rng = np.random.default_rng(7)
    X = rng.uniform(0, 1, (150, 2))
    y = np.sin(6 * X[:, 0]) + 0.1 * rng.normal(size=150)
    forest = MondrianForestRegressor(8, 5.0, random_state=7, smoothing=smoothing)
    forest.fit(X[:100], y[:100]).partial_fit(X[100:], y[100:])
    T = _points(rng, 400, 2)
    mean, std = forest.predict(T, return_std=True, include_noise=False)
    ref_mean, ref_std = _predict_by_rows(forest, T)
    np.testing.assert_array_equal(mean, ref_mean)
    np.testing.assert_array_equal(std, ref_std)


def test_classifier_takes_the_whole_forest_table_unless_the_forest_is_large():
    from mondrian_core.forest import estimators
    rng = np.random.default_rng(11)
    X = rng.uniform(-1, 1, (300, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    clf = MondrianForestClassifier(10, 4.0, random_state=11).partial_fit(X, y, classes=[0, 1])
    few, many = X[:3], rng.uniform(-1, 1, (90, 2))
    assert 3 * 10 * estimators.NODES_PER_PATH <= clf.trees_.n_nodes < 900 * estimators.NODES_PER_PATH
    clf.predict_proba(few)
    assert "distributions" not in clf._memo       # along the few points' paths
    clf.predict_proba(many)
    assert "distributions" in clf._memo           # every node's, kept until the next update
