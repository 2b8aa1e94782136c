"""The one-dimensional tree growth (sorted rows) against the general one, draw for draw."""
from __future__ import annotations

import numpy as np
import pytest

from mondrian_core import sample_mondrian_trees
from mondrian_core.trees import _grown, _Growth, _LineGrowth


def _roots(X, m, lifetime, seed):
    n = X.shape[0]
    return (X, np.ascontiguousarray(X.T).reshape(-1), np.tile(np.arange(n, dtype=np.int32), m),
            np.arange(m, dtype=np.int64), np.zeros(m), np.repeat(X.min(0)[None], m, 0),
            np.repeat(X.max(0)[None], m, 0), np.full(m, n, dtype=np.int64), lifetime,
            np.random.default_rng(seed))


def _points(kind, n, rng):
    if kind == "ties":  # repeated values: the stable order of equal points matters
        return rng.integers(0, 7, size=(n, 1)).astype(float)
    if kind == "coincident":
        return np.full((n, 1), 0.3)
    return rng.uniform(-2, 5, size=(n, 1))


@pytest.mark.parametrize("kind", ["uniform", "ties", "coincident"])
@pytest.mark.parametrize("n, m, lifetime", [(1, 3, 5.0), (2, 4, 50.0), (60, 7, 3.0),
                                            (300, 5, 40.0), (200, 3, 0.0)])
def test_line_growth_same_trees_as_general(kind, n, m, lifetime):
    X = _points(kind, n, np.random.default_rng(n))
    general, line = _Growth(*_roots(X, m, lifetime, 3)), _LineGrowth(*_roots(X, m, lifetime, 3))
    want, got = _grown(general), _grown(line)
    assert set(got) == set(want)
    for key in want:
        assert got[key].dtype == want[key].dtype, key
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)
    # the generators are left in the same state: later draws are the same too
    assert general.rng.random() == line.rng.random()


def test_sample_mondrian_trees_on_a_line_uses_the_same_draws():
    X = np.random.default_rng(1).uniform(size=(150, 1))
    trees = sample_mondrian_trees(X, 20, 20.0, random_state=4)
    want = _grown(_Growth(*_roots(X, 20, 20.0, 4)))
    for key in ("split_time", "split_loc", "left", "right", "depth"):
        np.testing.assert_array_equal(getattr(trees, key), want[key], err_msg=key)
    np.testing.assert_array_equal(trees.order.ravel(), want["order"])
