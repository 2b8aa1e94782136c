"""TreeStore's level-wise path walk against the one-point Python walk."""
from __future__ import annotations

import numpy as np

from mondrian_core.forest.tree_store import TreeStore


def grown_store(n_trees=4, n_points=60, seed=0):
    rng = np.random.default_rng(seed)
    store = TreeStore(n_trees, 3, np.inf, 2)
    X = rng.random((n_points, 3))
    stats = np.eye(2)[rng.integers(0, 2, n_points)]
    for i in range(0, n_points, 7):  # a few calls of several rows, one by one inside
        store.extend(X[i:i + 7], stats[i:i + 7], rng, split_pure=False)
    return store


def test_path_matrix_equals_the_python_walk():
    store = grown_store()
    T = np.random.default_rng(1).random((25, 3)) * 1.4 - 0.2  # inside and outside boxes
    P = store.path_matrix(T)
    assert P.shape[0] == 25 * store.n_trees
    for i, x in enumerate(T):
        for m, path in enumerate(store.walk_point(x.tolist())):
            row = P[i * store.n_trees + m]
            assert row[:len(path)].tolist() == path
            assert (row[len(path):] == -1).all()
    assert P.shape[1] > 3  # the trees have grown


def test_path_matrix_of_empty_trees_is_empty():
    store = TreeStore(3, 2, np.inf, 2)
    assert (store.path_matrix(np.zeros((2, 2))) == -1).all()
    store = grown_store(n_trees=3)
    store.roots[1] = -1  # an empty tree among grown ones
    P = store.path_matrix(np.full((4, 3), 0.5))
    assert (P[1::3] == -1).all() and (P[0::3, 0] >= 0).all()


def test_walk_lists_follow_the_arrays_through_every_kind_of_insertion():
    """The Python lists the one-point walks read stay equal to the node arrays: built
    once, extended by one-point insertions, dropped and rebuilt after a joint draw and
    after pickling."""
    import pickle

    rng = np.random.default_rng(4)
    store = TreeStore(3, 2, np.inf, 2)
    X = rng.random((400, 2))
    stats = np.eye(2)[rng.integers(0, 2, 400)]

    def check():
        lists = store.walk_lists()
        for f, values in zip(("left", "right", "split_dim", "split_loc"), lists, strict=True):
            np.testing.assert_array_equal(np.array(values, dtype=float),
                                          getattr(store, f).astype(float))

    i = 0
    for c, pure in ((1, False), (1, False), (5, False), (1, True), (40, False), (250, True),
                    (1, False), (30, True), (1, True)):
        store.extend(X[i:i + c], stats[i:i + c], rng, split_pure=pure)
        i += c
        check()
    store = pickle.loads(pickle.dumps(store))
    assert store.__dict__["_lists"] is None
    check()
    store.extend(X[i:i + 1], stats[i:i + 1], rng, split_pure=False)
    check()
    assert store.n_nodes > 300  # the trees have grown
