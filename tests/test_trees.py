"""Tests of ``mondrian_core.trees``: structure, distribution, extension."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mondrian_core.errors import InputError
from mondrian_core.trees import nodes_by_depth, sample_mondrian_trees


def _points(n=40, d=3, seed=0):
    return np.random.default_rng(seed).random((n, d))


def _slow_node(trees, t, x, time):
    """Walk tree ``t`` from the root following cuts made at or before ``time``."""
    j = trees.roots[t]
    while trees.left[j] >= 0 and trees.split_time[j] <= time:
        j = trees.left[j] if x[trees.split_dim[j]] <= trees.split_loc[j] else trees.right[j]
    return j


@pytest.fixture(scope="module")
def small():
    X = _points(40, 3, 0)
    X[5] = X[6]  # a duplicate point: its pair can never be separated
    return X, sample_mondrian_trees(X, 30, 4.0, random_state=1)


def test_structure_invariants(small):
    X, T = small
    n = X.shape[0]
    assert T.n_trees == 30 and T.n_features_in == 3
    assert np.array_equal(T.parent[T.roots], np.full(30, -1))
    assert np.all(T.birth_time[T.roots] == 0) and np.all(T.depth[T.roots] == 0)
    for t in range(T.n_trees):
        assert np.array_equal(np.sort(T.order[t]), np.arange(n))
    for j in range(T.n_nodes):
        pts = T.order[T.tree[j], T.start[j]:T.stop[j]]
        assert pts.size == T.n_points[j] > 0
        np.testing.assert_array_equal(T.lower[j], X[pts].min(0))
        np.testing.assert_array_equal(T.upper[j], X[pts].max(0))
        if T.left[j] < 0:
            assert T.right[j] < 0 and T.split_time[j] == np.inf
            assert T.split_dim[j] == -1 and np.isnan(T.split_loc[j])
            assert np.all(T.leaf_of_point[T.tree[j], pts] == j)
            continue
        lc, rc = T.left[j], T.right[j]
        assert T.birth_time[j] < T.split_time[j] < T.lifetime
        d, loc = T.split_dim[j], T.split_loc[j]
        assert T.lower[j, d] <= loc < T.upper[j, d]
        for c in (lc, rc):
            assert T.parent[c] == j and T.tree[c] == T.tree[j] and T.depth[c] == T.depth[j] + 1
            assert T.birth_time[c] == T.split_time[j]
        # children partition the parent's contiguous block, left first, both non-empty
        assert T.start[lc] == T.start[j] and T.stop[lc] == T.start[rc] and T.stop[rc] == T.stop[j]
        assert T.n_points[lc] > 0 and T.n_points[rc] > 0
        lp = T.order[T.tree[j], T.start[lc]:T.stop[lc]]
        rp = T.order[T.tree[j], T.start[rc]:T.stop[rc]]
        assert np.all(X[lp, d] <= loc) and np.all(X[rp, d] > loc)
    # the duplicate pair is always in one leaf
    assert np.array_equal(T.leaf_of_point[:, 5], T.leaf_of_point[:, 6])
    # coinciding points: a leaf of a single repeated point is never cut
    assert np.all(T.is_leaf[T.upper.sum(1) - T.lower.sum(1) == 0])


def test_deterministic_for_seed():
    X = _points(30, 2, 3)
    a = sample_mondrian_trees(X, 5, 3.0, random_state=7)
    b = sample_mondrian_trees(X, 5, 3.0, random_state=7)
    np.testing.assert_array_equal(a.split_time, b.split_time)
    np.testing.assert_array_equal(a.leaf_of_point, b.leaf_of_point)


def test_root_split_time_and_dimension():
    X = _points(6, 3, 2) * np.array([1.0, 2.0, 0.5])
    side = X.max(0) - X.min(0)
    T = sample_mondrian_trees(X, 3000, 50.0, random_state=3)
    tau = T.split_time[T.roots]
    assert np.all(np.isfinite(tau))  # lifetime 50 >> 1 / rate: every root is cut
    p = stats.kstest(tau, "expon", args=(0, 1 / side.sum())).pvalue
    assert p > 1e-3
    counts = np.bincount(T.split_dim[T.roots], minlength=3)
    p = stats.chisquare(counts, side / side.sum() * counts.sum()).pvalue
    assert p > 1e-3
    # location uniform in the extent of the chosen dimension
    d = T.split_dim[T.roots]
    u = (T.split_loc[T.roots] - T.lower[T.roots, d]) / side[d]
    assert stats.kstest(u, "uniform").pvalue > 1e-3


def test_child_split_time_is_exponential_after_birth():
    """Each node's waiting time is Exp(linear dimension of its own points' box)."""
    X = _points(8, 2, 4)
    T = sample_mondrian_trees(X, 2000, 1e3, random_state=5)
    inner = np.flatnonzero((T.depth > 0) & ((T.upper - T.lower).sum(1) > 0))
    wait = (T.split_time[inner] - T.birth_time[inner]) * (T.upper[inner] - T.lower[inner]).sum(1)
    assert stats.kstest(wait, "expon").pvalue > 1e-3


@pytest.mark.parametrize("time", [0.0, 0.3, 1.5, 4.0])
def test_nodes_at_matches_slow_walk(small, time):
    X, T = small
    nodes = T.nodes_at(time)
    slow = np.array([[_slow_node(T, t, x, time) for x in X] for t in range(T.n_trees)])
    np.testing.assert_array_equal(nodes, slow)
    alive = T.alive_at(time)
    assert np.all(alive[nodes])
    # the alive nodes are exactly the cells at `time`, each holding its points
    assert alive.sum() == np.unique(nodes).size
    assert np.array_equal(T.n_cells(time), np.array([np.unique(r).size for r in nodes]))


def test_events_sorted(small):
    _, T = small
    ev = T.events()
    assert ev.size == (T.left >= 0).sum()
    assert np.all(np.diff(T.split_time[ev]) >= 0)


@pytest.mark.parametrize("time", [0.0, 1.0, 4.0])
def test_apply_on_fitted_points_never_branches(small, time):
    X, T = small
    nodes, branched = T.apply(X, time=time, random_state=0)
    assert not branched.any()
    np.testing.assert_array_equal(nodes, T.nodes_at(time))


def test_apply_new_points_slow_walk_and_determinism(small):
    X, T = small
    Xn = _points(15, 3, 9) * 1.4 - 0.2
    nodes, branched = T.apply(Xn, time=2.0, random_state=4)
    n2, b2 = T.apply(Xn, time=2.0, random_state=4)
    np.testing.assert_array_equal(nodes, n2)
    np.testing.assert_array_equal(branched, b2)
    # where the point did not branch it sits in the node a cut-following walk reaches
    for t in range(T.n_trees):
        for i, x in enumerate(Xn):
            if not branched[t, i]:
                assert nodes[t, i] == _slow_node(T, t, x, 2.0)
            else:  # branched above a node on its path, alive at (or before) 2.0
                assert T.birth_time[nodes[t, i]] < 2.0


def test_apply_keeps_laplace_link():
    """P(fitted x' and new x share a cell at t) = exp(-t ||x - x'||_1)."""
    rng = np.random.default_rng(11)
    X = rng.random((25, 2))
    M = 4000
    T = sample_mondrian_trees(X, M, 3.0, random_state=12)
    Xn = np.array([[0.5, 0.5], [1.3, -0.2], [0.1, 0.9], [-0.4, 0.4]])
    for time in (0.8, 3.0):
        nodes, branched = T.apply(Xn, time=time, random_state=13)
        fitted = T.nodes_at(time)
        for i in range(len(Xn)):
            for k in (0, 7, 19):
                share = (~branched[:, i]) & (nodes[:, i] == fitted[:, k])
                p = np.exp(-time * np.abs(Xn[i] - X[k]).sum())
                se = np.sqrt(max(p * (1 - p), 1e-4) / M)
                assert abs(share.mean() - p) < 4.5 * se, (time, i, k, share.mean(), p)


def test_fitted_pairs_follow_laplace_link():
    X = np.array([[0.0, 0.0], [0.2, 0.1], [0.7, 0.3], [0.1, 0.9]])
    M, t = 6000, 2.0
    T = sample_mondrian_trees(X, M, t, random_state=21)
    leaf = T.leaf_of_point
    for a, b in [(0, 1), (0, 2), (1, 3)]:
        p = np.exp(-t * np.abs(X[a] - X[b]).sum())
        frac = (leaf[:, a] == leaf[:, b]).mean()
        assert abs(frac - p) < 4.5 * np.sqrt(p * (1 - p) / M)


def test_bad_input():
    with pytest.raises(InputError):
        sample_mondrian_trees(np.zeros((0, 2)), 3, 1.0)
    with pytest.raises(InputError):
        sample_mondrian_trees(np.ones((3, 2)), 0, 1.0)
    with pytest.raises(InputError):
        sample_mondrian_trees(np.ones((3, 2)), 3, -1.0)
    T = sample_mondrian_trees(np.ones((3, 2)), 3, 1.0, random_state=0)
    assert T.n_nodes == 3  # all points coincide: roots are never cut
    with pytest.raises(InputError):
        T.nodes_at(2.0)
    with pytest.raises(InputError):
        T.apply(np.ones((2, 3)))


def test_apply_placement_independent_of_other_rows(small):
    X, T = small
    Xn = _points(12, 3, 10) * 1.5 - 0.25
    nodes, branched = T.apply(Xn, time=3.0, random_state=2)
    n3, b3 = T.apply(Xn[[7, 2, 5]], time=3.0, random_state=2)
    np.testing.assert_array_equal(n3, nodes[:, [7, 2, 5]])
    np.testing.assert_array_equal(b3, branched[:, [7, 2, 5]])
    # the hashed clocks are Exp(1): one draw per (tree, point) at the roots
    from mondrian_core.trees import hashed_exponential, row_hash
    e = hashed_exponential(np.repeat(row_hash(Xn), 200), np.tile(np.arange(200), 12),
                            np.uint64(5))
    assert stats.kstest(e, "expon").pvalue > 1e-3


def test_every_cut_dimension_and_location_follow_the_box():
    """For all cut nodes: P(dim d) = side_d / sum(side), location uniform in the extent."""
    X = _points(30, 3, 6) * np.array([1.0, 3.0, 0.3])
    T = sample_mondrian_trees(X, 400, 5.0, random_state=8)
    cut = np.flatnonzero(T.left >= 0)
    side = (T.upper - T.lower)[cut]
    p = side / side.sum(1, keepdims=True)
    counts = np.bincount(T.split_dim[cut], minlength=3)
    z = (counts - p.sum(0)) / np.sqrt((p * (1 - p)).sum(0))
    assert np.all(np.abs(z) < 4.5), z
    d = T.split_dim[cut]
    u = (T.split_loc[cut] - T.lower[cut, d]) / side[np.arange(cut.size), d]
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    # waiting times of all cut nodes (not only roots): Exp(linear dimension of their box)
    wait = (T.split_time[cut] - T.birth_time[cut]) * side.sum(1)
    # conditioned on being cut before the lifetime the law is truncated; use the roots'
    # children and deeper nodes born early enough that truncation is negligible
    early = T.birth_time[cut] + 10 / side.sum(1) < T.lifetime
    assert stats.kstest(wait[early], "expon").pvalue > 1e-3


def test_joint_extension_kernel_is_laplace_for_every_kind_of_pair():
    """One joint conditional draw for all new rows: over many trees the fraction of trees
    that put two points together is exp(-lifetime ||x - x'||_1) for new-new pairs (close
    together beyond the data's box, where independent extensions give 0), new-fitted
    pairs and pairs inside the box, at the terminal lifetime and an earlier one.
    Tolerance: 4.5 binomial standard errors per pair (about 1e-5 two-sided each)."""
    rng = np.random.default_rng(0)
    X = rng.random((30, 2))
    Xn = np.array([[1.5, 1.5], [1.7, 1.7],      # new-new, beyond the box (L1 = 0.4)
                   [0.3, 0.4], [0.45, 0.5],     # new-new, inside the box
                   [-0.4, 0.2], [1.2, -0.1]])   # far on two sides
    lam, M = 2.0, 6000
    trees = sample_mondrian_trees(X, M, lam, random_state=3)
    for t in (lam, 0.8):
        nodes, new = trees.extend_jointly(Xn, time=t, random_state=4)
        cell = np.where(new >= 0, -1 - new, nodes)
        fitted = trees.nodes_at(t)
        pairs = [(cell[:, 0], cell[:, 1], Xn[0], Xn[1]), (cell[:, 2], cell[:, 3], Xn[2], Xn[3]),
                 (cell[:, 4], cell[:, 0], Xn[4], Xn[0]), (cell[:, 2], cell[:, 5], Xn[2], Xn[5])]
        pairs += [(cell[:, i], fitted[:, j], Xn[i], X[j]) for i in range(6) for j in (0, 7)]
        for a, b, x, z in pairs:
            k = np.exp(-t * np.abs(x - z).sum())
            se = np.sqrt(k * (1 - k) / M)
            assert abs(np.mean(a == b) - k) <= 4.5 * se + 1e-12, (x, z, t, np.mean(a == b), k)


def test_joint_extension_new_cells_hold_only_new_rows_and_fitted_rows_stay():
    rng = np.random.default_rng(1)
    X = rng.random((25, 3))
    trees = sample_mondrian_trees(X, 40, 4.0, random_state=2)
    Xn = np.vstack([X[:5], rng.random((20, 3)) * 2 - 0.5])
    nodes, new = trees.extend_jointly(Xn, random_state=5)
    # fitted rows reach the node that holds them, never a new cell
    np.testing.assert_array_equal(nodes[:, :5], trees.nodes_at()[:, :5])
    assert (new[:, :5] == -1).all()
    # each row is in exactly one of: a fitted cell alive at the lifetime, a new cell
    assert ((nodes >= 0) != (new >= 0)).all()
    assert trees.alive_at()[nodes[nodes >= 0]].all()
    # new cells are numbered 0..K-1 by first appearance row by row, and never shared
    # across trees
    seen = new.T[new.T >= 0]
    _, first = np.unique(seen, return_index=True)
    np.testing.assert_array_equal(seen[np.sort(first)], np.arange(new.max() + 1))
    tree_of_cell = {c: m for m in range(40) for c in np.unique(new[m][new[m] >= 0])}
    assert len(tree_of_cell) == new.max() + 1
    # the same seed gives the same placement, with or without the fitted rows stacked in
    again = trees.extend_jointly(Xn, random_state=5)
    np.testing.assert_array_equal(again[0], nodes)
    np.testing.assert_array_equal(again[1], new)
    alone = trees.extend_jointly(Xn[5:], random_state=5)
    np.testing.assert_array_equal(alone[0], nodes[:, 5:])
    np.testing.assert_array_equal(alone[1], new[:, 5:])


def _check_structure(t):
    """Every node's points lie on the right sides of its ancestors' cuts; times increase."""
    X = t.X_fit
    inner = np.flatnonzero(t.left >= 0)
    for j in inner:
        left, r = t.left[j], t.right[j]
        d, loc = t.split_dim[j], t.split_loc[j]
        assert t.parent[left] == j and t.parent[r] == j
        assert np.all(X[t.order[t.tree[left], t.start[left]:t.stop[left]], d] <= loc)
        assert np.all(X[t.order[t.tree[r], t.start[r]:t.stop[r]], d] > loc)
        assert t.birth_time[j] < t.split_time[j] == t.birth_time[left] == t.birth_time[r]
        assert t.split_time[j] < t.lifetime
        assert t.stop[left] == t.start[r] and t.start[j] == t.start[left]
    leaves = np.flatnonzero(t.left < 0)
    rows = t.tree[leaves] * t.n_samples + t.start[leaves]
    assert np.all(t.stop[leaves] > t.start[leaves])
    np.testing.assert_array_equal(t.leaf_of_point[t.tree[leaves], t.order[t.tree[leaves],
                                  t.start[leaves]]], leaves)
    assert np.unique(rows).size == leaves.size


def test_extended_trees_are_valid_and_restrict_to_the_old_ones():
    rng = np.random.default_rng(3)
    X1, X2 = rng.random((30, 2)), rng.random((25, 2)) * 1.8 - 0.4
    t1 = sample_mondrian_trees(X1, 6, 3.0, random_state=1)
    t2 = t1.extended(X2, random_state=2)
    t3 = t2.extended(rng.random((10, 2)) * 3 - 1, random_state=3)
    for t in (t2, t3):
        _check_structure(t)
    for time in (0.4, 1.5, 3.0):  # the new trees seen on the old points are the old trees
        a, b = t1.nodes_at(time), t3.nodes_at(time)[:, :30]
        np.testing.assert_array_equal(t3.origin[b], a)
        b2 = t3.nodes_at(time)[:, 30:55]
        np.testing.assert_array_equal(t3.origin[b2], t2.origin[t2.nodes_at(time)[:, 30:]])


def test_extended_is_distributed_as_a_batch_fit_on_all_points():
    """fit(X1) then extended(X2) against fit(X1 + X2), over many trees: the number of
    cells per tree has the same mean (4.5 standard errors of the difference) and the
    kernel of old-old, old-new and new-new pairs is the Laplace kernel (4.5 binomial
    standard errors)."""
    rng = np.random.default_rng(8)
    X1 = rng.random((15, 2))
    X2 = np.vstack([rng.random((5, 2)), [[1.4, 1.3], [1.6, 1.5], [-0.5, 0.4]]])
    X = np.vstack([X1, X2])
    lam, M = 2.5, 6000
    online = sample_mondrian_trees(X1, M, lam, random_state=1).extended(X2, random_state=2)
    batch = sample_mondrian_trees(X, M, lam, random_state=3)
    c_on, c_b = online.n_cells(), batch.n_cells()
    se = np.sqrt(c_on.var() / M + c_b.var() / M)
    assert abs(c_on.mean() - c_b.mean()) <= 4.5 * se, (c_on.mean(), c_b.mean(), se)
    # the deepest cut of each tree's root: same first-cut time law
    first_on = online.split_time[online.roots]
    first_b = batch.split_time[batch.roots]
    assert stats.ks_2samp(np.minimum(first_on, lam), np.minimum(first_b, lam)).pvalue > 1e-4
    cells = online.nodes_at()
    for i, j in [(0, 1), (2, 16), (15, 18), (18, 19), (19, 20), (3, 20)]:
        k = np.exp(-lam * np.abs(X[i] - X[j]).sum())
        se = np.sqrt(k * (1 - k) / M)
        assert abs(np.mean(cells[:, i] == cells[:, j]) - k) <= 4.5 * se + 1e-12, (i, j)


def test_nodes_by_depth_matches_a_scan_per_level():
    trees = sample_mondrian_trees(np.random.default_rng(3).random((200, 3)), 4, 6.0,
                                  random_state=0)
    depth = np.asarray(trees.depth)
    levels = nodes_by_depth(depth)
    assert len(levels) == depth.max() + 1
    for k, nodes in enumerate(levels):
        np.testing.assert_array_equal(nodes, np.flatnonzero(depth == k))
    assert nodes_by_depth(np.zeros(0, dtype=np.int64)) == []
