"""Random partition samplers and the matrix-free partition-kernel algebra."""
import numpy as np
import pytest
from scipy import stats
from sklearn.tree import DecisionTreeRegressor

from mondrian_core import (
    FastClusterPartitions,
    InputError,
    PartitionAlgebra,
    RandomForestPartitions,
)
from mondrian_core.partitions import MondrianPartitions, ancestors_at_depth, tree_parent_depth


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.random((60, 3))
    y = np.sin(4 * X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(60)
    return X, y


def _samplers():
    return [FastClusterPartitions(n_partitions=25, max_level=4, random_state=0),
            RandomForestPartitions(n_partitions=25, random_state=0),
            MondrianPartitions(n_partitions=25, lifetime=3.0, random_state=0)]


IDS = ["fast-cluster", "random-forest", "mondrian"]


@pytest.mark.parametrize("sampler", _samplers(), ids=IDS)
def test_kernel_is_a_valid_partition_kernel(sampler, data):
    X, y = data
    K = sampler.fit(X, y).kernel(X)
    assert np.array_equal(K, K.T)
    assert np.all(np.diag(K) == 1.0)
    assert K.min() >= 0.0 and K.max() <= 1.0
    assert np.linalg.eigvalsh(K).min() > -1e-10
    # values are multiples of 1/m
    assert np.allclose(K * 25, np.rint(K * 25))


@pytest.mark.parametrize("sampler", _samplers(), ids=IDS)
def test_kernel_is_fraction_of_agreeing_labels(sampler, data):
    X, y = data
    sampler.fit(X, y)
    Xnew = np.random.default_rng(9).random((17, 3))
    # kernel(X, Y) labels X and Y in one call (Mondrian partitions place new points jointly)
    L = sampler.labels(np.vstack([X, Xnew]))
    LX, LY = L[:, :60], L[:, 60:]
    assert LX.shape == (25, 60) and LX.dtype.kind == "i"
    np.testing.assert_array_equal(LX, sampler.labels(X))  # fitted points keep their cells
    slow = np.array([[np.mean(LX[:, i] == LY[:, j]) for j in range(17)] for i in range(60)])
    assert np.array_equal(sampler.kernel(X, Xnew), slow)
    assert np.array_equal(sampler.labels(Xnew), sampler.labels(Xnew))  # deterministic


def test_same_seed_same_partitions(data):
    X, y = data
    a = FastClusterPartitions(10, 4, random_state=5).fit(X).labels(X)
    b = FastClusterPartitions(10, 4, random_state=5).fit(X).labels(X)
    c = FastClusterPartitions(20, 4, random_state=5).fit(X).labels(X)
    assert np.array_equal(a, b)
    assert np.array_equal(a, c[:10])  # the first m partitions do not depend on m


def test_fast_cluster_assigns_nearest_chosen_centre(data):
    X, _ = data
    fc = FastClusterPartitions(n_partitions=30, max_level=4, random_state=1).fit(X)
    Xnew = np.random.default_rng(2).random((40, 3))
    L = fc.labels(Xnew)
    for r in range(30):
        C = X[fc.centre_index_[r]][:, fc.dims_[r]]
        d = ((Xnew[:, None, fc.dims_[r]] - C[None]) ** 2).sum(-1)
        assert np.array_equal(L[r], np.argmin(d, axis=1))
        # fitted centres are their own cluster
        assert np.array_equal(fc.labels(X[fc.centre_index_[r]])[r], np.arange(len(C)))


def test_fast_cluster_levels_and_dimensions_follow_algorithm_2():
    X = np.random.default_rng(0).random((300, 3))
    m, h = 3000, 4
    fc = FastClusterPartitions(n_partitions=m, max_level=h, random_state=7).fit(X)
    # s ~ DiscreteUniform{0..h}: chi-square goodness of fit
    counts = np.bincount(fc.levels_, minlength=h + 1)
    assert stats.chisquare(counts).pvalue > 1e-3
    assert np.array_equal(fc.n_labels_, 2 ** fc.levels_)
    # subsets are Bernoulli(1/2)^D given non-empty: P(keep d) = (1/2) / (1 - 2^-D)
    keep = np.zeros((m, 3), bool)
    for r, dims in enumerate(fc.dims_):
        keep[r, dims] = True
    assert keep.any(axis=1).all()
    p = 0.5 / (1 - 2.0**-3)
    se = np.sqrt(p * (1 - p) / m)
    assert np.all(np.abs(keep.mean(axis=0) - p) < 4 * se)


def test_tree_ancestors_on_a_hand_made_tree():
    #        0
    #      1   2
    #     3 4
    #    5 6
    left = np.array([1, 3, -1, 5, -1, -1, -1])
    right = np.array([2, 4, -1, 6, -1, -1, -1])
    parent, depth = tree_parent_depth(left, right)
    assert parent.tolist() == [-1, 0, 0, 1, 1, 3, 3]
    assert depth.tolist() == [0, 1, 1, 2, 2, 3, 3]
    assert ancestors_at_depth(parent, depth, 0).tolist() == [0] * 7
    assert ancestors_at_depth(parent, depth, 1).tolist() == [0, 1, 2, 1, 1, 1, 1]
    assert ancestors_at_depth(parent, depth, 2).tolist() == [0, 1, 2, 3, 4, 3, 3]
    assert ancestors_at_depth(parent, depth, 3).tolist() == list(range(7))


def test_tree_ancestors_match_a_slow_walk_on_sklearn_trees(data):
    X, y = data
    t = DecisionTreeRegressor(random_state=0).fit(X, y).tree_
    parent, depth = tree_parent_depth(t.children_left, t.children_right)

    def slow(node, level):  # walk up one parent at a time, from the root down for depth
        path = [0]
        while path[-1] != node:
            cur = path[-1]
            nxt = t.children_left[cur] if X_reach[node][cur] else t.children_right[cur]
            path.append(nxt)
        return path[min(level, len(path) - 1)]

    # X_reach[node][cur]: whether node lies in cur's left subtree
    def subtree(n):
        out = {n}
        if t.children_left[n] >= 0:
            out |= subtree(t.children_left[n]) | subtree(t.children_right[n])
        return out
    X_reach = {v: {c: v in subtree(t.children_left[c]) for c in range(t.node_count)
                   if t.children_left[c] >= 0} for v in range(t.node_count)}
    for level in range(int(depth.max()) + 1):
        fast = ancestors_at_depth(parent, depth, level)
        assert fast.tolist() == [slow(v, level) for v in range(t.node_count)]


def test_random_forest_clusters_are_ancestors_at_the_drawn_depth(data):
    X, y = data
    rf = RandomForestPartitions(n_partitions=15, random_state=3).fit(X, y)
    L = rf.labels(X)
    for r, est in enumerate(rf.forest_.estimators_):
        t = est.tree_
        parent, depth = tree_parent_depth(t.children_left, t.children_right)
        leaves = est.apply(X - rf.offset_)  # the forest is fitted about the data's midpoint
        d = rf.depths_[r]
        assert 0 <= d <= depth.max()
        # the cluster is an ancestor of the leaf (or the leaf), at depth min(d, depth(leaf))
        assert np.array_equal(depth[L[r]], np.minimum(d, depth[leaves]))
        node = leaves.copy()
        for _ in range(int(depth.max())):
            node = np.where(depth[node] > depth[L[r]], parent[node], node)
        assert np.array_equal(node, L[r])


def test_random_forest_needs_y(data):
    with pytest.raises(InputError, match="supervised"):
        RandomForestPartitions(5).fit(data[0], None)


def test_bad_parameters_raise_input_errors(data):
    with pytest.raises(InputError, match="n_partitions"):
        FastClusterPartitions(n_partitions=0).fit(data[0])
    with pytest.raises(InputError, match="features"):
        FastClusterPartitions(5, random_state=0).fit(data[0]).labels(np.zeros((3, 2)))


# ------------------------------------------------------------------ algebra


@pytest.fixture(scope="module")
def algebra(data):
    X, y = data
    fc = FastClusterPartitions(n_partitions=20, max_level=3, random_state=4).fit(X)
    L = fc.labels(X)
    Ks = [(L[r][:, None] == L[r][None, :]).astype(float) for r in range(20)]
    return PartitionAlgebra(L), Ks, L


def test_matrix_free_product_equals_dense(algebra):
    alg, Ks, L = algebra
    K = np.mean(Ks, axis=0)
    v = np.random.default_rng(0).standard_normal((alg.n, 3))
    assert np.allclose(alg.kernel_matvec(v[:, 0]), K @ v[:, 0], rtol=1e-12, atol=1e-12)
    assert np.allclose(alg.kernel_matvec_bincount(v[:, 0]), K @ v[:, 0], rtol=1e-12, atol=1e-12)
    assert np.allclose(alg.kernel_matmat(v), K @ v, rtol=1e-12, atol=1e-12)
    assert np.allclose(alg.system_operator(0.3).matvec(v[:, 1]), (K + 0.3 * np.eye(alg.n)) @ v[:, 1])
    assert np.allclose((alg.indicators() @ alg.indicators().T).toarray() / alg.m, K)


def test_closed_form_block_inverse_and_preconditioner(algebra):
    alg, Ks, L = algebra
    s = 0.2
    v = np.random.default_rng(1).standard_normal(alg.n)
    invs = [np.linalg.inv(K + s * np.eye(alg.n)) for K in Ks]
    for r in (0, 7, 19):
        assert np.allclose(alg.block_inverse_matvec(v, s, r), invs[r] @ v, rtol=1e-10, atol=1e-10)
    B = np.mean(invs, axis=0)
    assert np.allclose(alg.preconditioner(s).matvec(v), B @ v, rtol=1e-10, atol=1e-10)
    # B >= A^{-1}: every eigenvalue of B A is >= 1 (operator convexity of the inverse)
    A = np.mean(Ks, axis=0) + s * np.eye(alg.n)
    ev = np.linalg.eigvals(B @ A).real
    assert ev.min() > 1 - 1e-9


def test_lookup_places_new_labels(algebra):
    alg, Ks, L = algebra
    # the fitted labels map back to their own ids; an unknown label maps to -1
    ids = alg.lookup(L)
    assert np.array_equal(ids, alg.ids)
    assert np.all(ids >= 0)
    for r in range(alg.m):
        same = ids[r][:, None] == ids[r][None, :]
        assert np.array_equal(same, Ks[r] == 1)
    assert np.all(alg.lookup(np.full((alg.m, 2), 10**6)) == -1)


def test_mondrian_partitions_converge_to_the_laplace_kernel():
    """Each entry is a mean of m independent indicators with mean exp(-lambda ||x - x'||_1):
    within 4 binomial standard errors (a few pairs, fitted-fitted and fitted-new)."""
    rng = np.random.default_rng(11)
    X = rng.random((40, 2))
    Xnew = np.array([[0.5, 0.5], [0.1, 0.9], [1.2, 0.3]])  # the last outside the data
    lam, m = 2.0, 3000
    P = MondrianPartitions(n_partitions=m, lifetime=lam, random_state=4).fit(X)
    for A, B in ((X[:5], X[5:10]), (X[:5], Xnew)):
        K = P.kernel(A, B)
        p = np.exp(-lam * np.abs(A[:, None, :] - B[None, :, :]).sum(-1))
        se = np.sqrt(p * (1 - p) / m)
        assert np.all(np.abs(K - p) < 4 * se + 1e-12)
    # fitted points: labels are the nodes alive at the lifetime
    assert np.array_equal(P.labels(X), P.trees_.nodes_at())


@pytest.mark.parametrize("sampler", [FastClusterPartitions(n_partitions=20, max_level=3,
                                                           random_state=4),
                                     MondrianPartitions(n_partitions=12, lifetime=2.0,
                                                        random_state=4)],
                         ids=["compact-labels", "scattered-labels"])
def test_cluster_gram_and_woodbury_inverse_equal_dense(data, sampler):
    X, y = data
    L = sampler.fit(X, y).labels(X)
    alg = PartitionAlgebra(L)
    Phi = alg.indicators().toarray()
    G = alg.cluster_gram()
    iu = np.triu_indices(alg.n_clusters)
    np.testing.assert_array_equal(G[iu], (Phi.T @ Phi)[iu])  # counts: exact
    # clusters are numbered partition by partition
    for r in range(alg.m):
        assert np.all((alg.ids[r] >= alg.part_start[r]) & (alg.ids[r] < alg.part_start[r + 1]))
    s = 0.07
    A = Phi @ Phi.T / alg.m + s * np.eye(alg.n)
    V = np.random.default_rng(5).standard_normal((alg.n, 2))
    for v in V.T:
        np.testing.assert_allclose(alg.exact_preconditioner(s).matvec(v), np.linalg.solve(A, v),
                                   rtol=0, atol=1e-10)


def test_fast_cluster_nearest_centre_over_many_blocks():
    """Enough points for several cache-sized blocks per partition; brute force per point."""
    rng = np.random.default_rng(6)
    X = rng.standard_normal((3000, 4))
    fc = FastClusterPartitions(n_partitions=12, max_level=8, random_state=7).fit(X)
    Xnew = rng.standard_normal((2500, 4))
    L = fc.labels(Xnew)
    assert max(len(c) for c in fc.centres_) == 256
    for r in range(12):
        C = fc.centres_[r]
        d = ((Xnew[:, None, fc.dims_[r]] - C[None]) ** 2).sum(-1)
        assert np.array_equal(L[r], np.argmin(d, axis=1))


@pytest.mark.parametrize("n_jobs", [2, -1])
def test_fast_cluster_labels_do_not_depend_on_threads(n_jobs):
    rng = np.random.default_rng(8)
    X = rng.standard_normal((5000, 6))
    one = FastClusterPartitions(n_partitions=20, max_level=8, random_state=3).fit(X)
    many = FastClusterPartitions(n_partitions=20, max_level=8, random_state=3,
                                 n_jobs=n_jobs).fit(X)
    assert np.array_equal(one.labels(X), many.labels(X))


@pytest.mark.parametrize("n_jobs", [0, 1.5, "2", True])
def test_fast_cluster_refuses_a_bad_thread_count(n_jobs):
    X = np.random.default_rng(0).standard_normal((20, 2))
    with pytest.raises(InputError, match="n_jobs"):
        FastClusterPartitions(n_partitions=2, n_jobs=n_jobs).fit(X)


def test_partition_algebra_products_by_blocks_of_points_match_one_block(monkeypatch):
    """n_jobs > 1 splits the cluster indicators into blocks of points; every product
    (K v, K V, the preconditioner, the exact solve) is the one-block product up to the
    rounding of sums taken in another order (entries are O(1): atol 1e-12)."""
    import mondrian_core.partition_algebra as pa

    monkeypatch.setattr(pa, "_MIN_BLOCK_ROWS", 30)
    X = np.random.default_rng(9).standard_normal((200, 3))
    L = FastClusterPartitions(n_partitions=15, max_level=4, random_state=2).fit(X).labels(X)
    one, many = PartitionAlgebra(L), PartitionAlgebra(L, n_jobs=4)
    assert len(one._blocks()) == 1 and len(many._blocks()) == 4
    rng = np.random.default_rng(3)
    v, V = rng.standard_normal(200), rng.standard_normal((200, 3))
    np.testing.assert_allclose(many.kernel_matvec(v), one.kernel_matvec(v), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(many.kernel_matmat(V), one.kernel_matmat(V), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(many.preconditioner(0.1).matvec(v),
                               one.preconditioner(0.1).matvec(v), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(many.exact_preconditioner(0.1).matvec(v),
                               one.exact_preconditioner(0.1).matvec(v), rtol=1e-10, atol=1e-12)
