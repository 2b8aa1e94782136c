"""Random partitions of data points and the random partition kernels they induce.

Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for
big data from random partitions": a distribution over partitions P defines the
kernel k_P(a, b) = E[ I[rho(a) = rho(b)] ], and m independent partitions give
the m-approximate kernel (1/m) sum_rho I[rho(a) = rho(b)] (their Definition 2).

Every sampler here has one interface:

- ``fit(X, y=None)`` draws ``n_partitions`` partitions of the points;
- ``labels(X)`` -> int array (n_partitions, N): the cluster of each point in each
  partition (``labels(X)[r]`` lies in ``[0, n_labels_[r])``); new points are
  assigned as the paper describes (down the same tree, to the nearest chosen centre);
- ``features(X)`` -> CSR (N, sum(n_labels_)): cluster indicators scaled by
  1/sqrt(n_partitions), so ``features(X) @ features(Y).T`` is the m-approximate kernel;
- ``kernel(X, Y=None)`` -> dense m-approximate kernel matrix.
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.ensemble import RandomForestRegressor
from sklearn.utils.validation import check_array, check_is_fitted

from mondrian_core._blas import single_blas_thread
from mondrian_core._validation import as_lifetime, check_random_state
from mondrian_core.errors import InputError
from mondrian_core.kernel import check_dense_size, points_message
from mondrian_core.trees import MAX_TREE_ROWS

__all__ = ["FastClusterPartitions", "RandomForestPartitions", "MondrianPartitions",
           "partition_features"]


def _check_positive_int(value, name: str, minimum: int = 1) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


#: Largest |x| of input points (float32's range, which scikit-learn's trees use).
MAX_ABS_X = 1e38


def check_partition_points(X, *, min_samples: int = 1, n_partitions: int | None = None) -> np.ndarray:
    """Finite 2-D points; with ``n_partitions``, refuse more labels than fit in memory."""
    try:
        X = check_array(X, dtype=np.float64, ensure_min_samples=min_samples)
    except ValueError as err:
        raise InputError(f"Bad input points: {points_message(err)}") from None
    if X.size and np.abs(X).max() > MAX_ABS_X:
        raise InputError(f"Bad input points: values above {MAX_ABS_X:g} in absolute value (the "
                         "Random Forest works in single precision, squared distances overflow); "
                         "rescale the columns, e.g. standardise them.")
    if n_partitions is not None and n_partitions * X.shape[0] > MAX_TREE_ROWS:
        raise InputError(
            f"{n_partitions:,} partitions of {X.shape[0]:,} points are too many (limit "
            f"{MAX_TREE_ROWS:,} labels); use at most {max(1, MAX_TREE_ROWS // X.shape[0]):,} "
            "partitions or fewer points.")
    return X


def partition_features(labels: np.ndarray, n_labels: np.ndarray) -> sp.csr_matrix:
    """Scaled cluster-indicator feature map of labels (m, N): CSR (N, sum(n_labels)).

    Row i has one entry 1/sqrt(m) per partition, in the column ``offset[r] + labels[r, i]``,
    so the Gram matrix of the rows is the m-approximate random partition kernel.
    Labels at or beyond ``n_labels[r]`` (cells of their own, see MondrianPartitions)
    widen that partition's block of columns.
    """
    labels = np.asarray(labels)
    m, n = labels.shape
    n_labels = np.maximum(np.asarray(n_labels), labels.max(axis=1, initial=-1) + 1)
    offsets = np.concatenate(([0], np.cumsum(n_labels)[:-1]))
    cols = (labels + offsets[:, None]).T.ravel()  # row-major by point
    data = np.full(cols.size, 1.0 / np.sqrt(m))
    indptr = np.arange(0, n * m + 1, m)
    return sp.csr_matrix((data, cols, indptr), shape=(n, int(np.sum(n_labels))))


class _PartitionsMixin:
    """Kernel and feature map shared by all partition samplers (needs ``labels``)."""

    def _labels_after(self, X, n_before: int) -> np.ndarray:
        """Labels of X when ``n_before`` other new points were labelled before in the
        same comparison (only samplers with cells of their own need the offset)."""
        return self.labels(X)

    def features(self, X) -> sp.csr_matrix:
        """Cluster indicators / sqrt(m): ``features(X) @ features(X).T`` is the kernel."""
        return partition_features(self.labels(X), self.n_labels_)

    def kernel(self, X, Y=None) -> np.ndarray:
        """Dense m-approximate kernel: the fraction of partitions that put the points together.

        Parameters
        ----------
        X : array (N, D)
        Y : array (M, D), optional (default ``X``)

        Returns
        -------
        K : array (N, M), values in {0, 1/m, ..., 1}; the diagonal of ``kernel(X)`` is 1.
        """
        check_dense_size(np.shape(X)[0], np.shape(X if Y is None else Y)[0])
        LX = self.labels(X)
        if Y is None:
            F = partition_features(LX, self.n_labels_)
            K = (F @ F.T).toarray()
        else:
            LY = self._labels_after(Y, LX.shape[1])
            F = partition_features(np.hstack([LX, LY]), self.n_labels_)
            n = LX.shape[1]
            K = (F[:n] @ F[n:].T).toarray()
        # entries are counts / m up to rounding of (1/sqrt(m))^2: snap them to k / m
        m = LX.shape[0]
        return np.rint(K * m) / m


class FastClusterPartitions(_PartitionsMixin, BaseEstimator):
    """Fast Cluster random partitions (Davies and Ghahramani 2014, Algorithm 2).

    Each partition draws a random subset of the dimensions, each kept with
    probability 1/2, a level s ~ DiscreteUniform{0, ..., max_level}, and
    2**s distinct centres among the fitted points (all of them if there are
    fewer than 2**s points); every point joins its nearest centre, the
    Euclidean distance measured on the kept dimensions only. A dimension subset
    that comes out empty (probability 2**-D) is redrawn until it is not, i.e.
    the subset is drawn from Bernoulli(1/2)**D conditioned on being non-empty
    (the paper does not say; an empty subset would put every point at distance
    0 of every centre). Ties go to the centre drawn first.

    Parameters
    ----------
    n_partitions : int, default 200
        m, the number of independent partitions.
    max_level : int, default 8
        h: at most 2**h clusters per partition.
    random_state : None, int or numpy.random.Generator

    Attributes
    ----------
    dims_ : list of int arrays, the kept dimensions of each partition.
    levels_ : int array (m,), the drawn s.
    centres_ : list of arrays (n_r, |dims_r|), the chosen centres (kept dims only).
    centre_index_ : list of int arrays, indices of the centres among the fitted points.
    n_labels_ : int array (m,), number of clusters (centres) of each partition.

    References
    ----------
    A. Davies and Z. Ghahramani, "The Random Forest Kernel and other kernels for
    big data from random partitions", arXiv:1402.4293, 2014.
    """

    def __init__(self, n_partitions=200, max_level=8, random_state=None):
        self.n_partitions = n_partitions
        self.max_level = max_level
        self.random_state = random_state

    def fit(self, X, y=None):
        """Draw the partitions (dimension subsets, levels and centres) from X."""
        m = _check_positive_int(self.n_partitions, "n_partitions")
        h = _check_positive_int(self.max_level, "max_level", minimum=0)
        if h > 20:
            raise InputError(f"max_level must be at most 20 (2**20 centres), got {h}.")
        X = check_partition_points(X, n_partitions=m)
        n, d = X.shape
        rng = check_random_state(self.random_state)
        dims, levels, centres, index = [], np.empty(m, dtype=np.intp), [], []
        # one child stream per partition: the first m partitions do not depend on m
        for r, child in enumerate(rng.spawn(m)):
            keep = child.random(d) < 0.5
            while not keep.any():  # empty subset: redraw (see the class docstring)
                keep = child.random(d) < 0.5
            s = int(child.integers(0, h + 1))
            idx = child.choice(n, size=min(2**s, n), replace=False)
            dims.append(np.flatnonzero(keep))
            levels[r] = s
            index.append(idx)
            centres.append(X[np.ix_(idx, dims[-1])])
        self.dims_, self.levels_, self.centres_, self.centre_index_ = dims, levels, centres, index
        self.n_labels_ = np.array([len(i) for i in index], dtype=np.intp)
        self.n_features_in_ = d
        return self

    def labels(self, X, chunk_size: int = 16384) -> np.ndarray:
        """Nearest chosen centre (on the kept dimensions) of each point: (m, N) ints."""
        check_is_fitted(self, "centres_")
        X = check_partition_points(X)
        if X.shape[1] != self.n_features_in_:
            raise InputError(f"X has {X.shape[1]} features; the partitions were fit on "
                             f"{self.n_features_in_}.")
        out = np.empty((len(self.centres_), X.shape[0]), dtype=np.intp)
        with single_blas_thread():  # thin products: threads only contend
            self._nearest(X, out, chunk_size)
        return out

    def _nearest(self, X, out, chunk_size):
        for r, (dims, C) in enumerate(zip(self.dims_, self.centres_)):
            if len(C) == 1:
                out[r] = 0
                continue
            half_sq = 0.5 * np.einsum("ij,ij->i", C, C)
            Xd = np.ascontiguousarray(X[:, dims])
            CT = np.ascontiguousarray(C.T)
            # blocks of about 1 MB of distances stay in cache through the three passes
            rows = min(chunk_size, max(256, 2**17 // len(C)))
            buf = np.empty((rows, len(C)))
            for a in range(0, X.shape[0], rows):
                Xa = Xd[a:a + rows]
                G = buf[:Xa.shape[0]]
                # argmin ||x - c||^2 = argmin (|c|^2 / 2 - x . c)
                np.matmul(Xa, CT, out=G)
                np.subtract(half_sq, G, out=G)
                out[r, a:a + rows] = np.argmin(G, axis=1)


def ancestors_at_depth(parent: np.ndarray, depth: np.ndarray, level: int) -> np.ndarray:
    """For every node of a tree, its ancestor at depth ``level`` (itself if not deeper).

    ``parent[root] = -1``; vectorised over nodes (at most max-depth passes).
    """
    anc = np.arange(len(parent))
    while True:
        deep = depth[anc] > level
        if not deep.any():
            return anc
        anc[deep] = parent[anc[deep]]


def tree_parent_depth(children_left: np.ndarray, children_right: np.ndarray):
    """Parent and depth arrays of a binary tree given by its children arrays (-1 = leaf).

    Nodes are numbered so that a parent precedes its children (scikit-learn's order),
    which lets the depths be filled level by level without recursion.
    """
    n = len(children_left)
    parent = np.full(n, -1, dtype=np.intp)
    internal = np.flatnonzero(children_left >= 0)
    parent[children_left[internal]] = internal
    parent[children_right[internal]] = internal
    depth = np.zeros(n, dtype=np.intp)
    frontier = np.array([0])
    level = 0
    while frontier.size:
        depth[frontier] = level
        inner = frontier[children_left[frontier] >= 0]
        frontier = np.concatenate((children_left[inner], children_right[inner]))
        level += 1
    return parent, depth


class RandomForestPartitions(_PartitionsMixin, BaseEstimator):
    """Random Forest random partitions (Davies and Ghahramani 2014, Algorithm 1).

    Partition r takes tree r of a scikit-learn ``RandomForestRegressor`` fit on
    (X, y) (bootstrap samples, a random subset of features at each split) and a
    depth d_r ~ DiscreteUniform{0, ..., h}; a point's cluster is the ancestor
    at depth d_r of the leaf it falls in, or that leaf itself where the leaf is
    shallower than d_r. New points go down the same tree. The kernel is
    supervised (it depends on y) and has no hyper-parameters besides the forest's.

    Parameters
    ----------
    n_partitions : int, default 200
        m, the number of trees (one partition per tree).
    max_level : int or None, default None
        h. None: each tree's own depth (so d_r ~ U{0..depth of tree r}, as in the
        paper's "binary tree with 2**h nodes").
    max_features : float, int or str, default 1/3
        Features tried at each split (Breiman's regression default: a third).
    min_samples_leaf : int, default 1
    random_state : None, int or numpy.random.Generator

    Attributes
    ----------
    forest_ : the fitted RandomForestRegressor.
    depths_ : int array (m,), the drawn d_r.
    cluster_of_node_ : list of int arrays, per tree the cluster (node id of the
        ancestor at depth d_r) of every node.
    n_labels_ : int array (m,), number of nodes of each tree (labels are node ids).
    """

    def __init__(self, n_partitions=200, max_level=None, max_features=1 / 3,
                 min_samples_leaf=1, random_state=None):
        self.n_partitions = n_partitions
        self.max_level = max_level
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the forest on (X, y) and draw one depth per tree."""
        m = _check_positive_int(self.n_partitions, "n_partitions")
        if y is None:
            raise InputError("The Random Forest kernel is supervised: fit needs targets y.")
        X = check_partition_points(X, min_samples=2, n_partitions=m)
        y = np.asarray(y, dtype=np.float64).ravel()
        if y.shape[0] != X.shape[0]:
            raise InputError(f"y has {y.shape[0]} values for {X.shape[0]} points; give one "
                             "target value per point.")
        if not np.all(np.isfinite(y)):
            raise InputError("y contains NaN or infinite values; remove those rows.")
        if self.max_level is not None:
            _check_positive_int(self.max_level, "max_level", minimum=0)
        rng = check_random_state(self.random_state)
        try:
            forest = RandomForestRegressor(
                n_estimators=m, max_features=self.max_features,
                min_samples_leaf=self.min_samples_leaf,
                random_state=int(rng.integers(2**31 - 1)), n_jobs=1,
            ).fit(X, y)
        except ValueError as err:  # sklearn's checks of max_features, min_samples_leaf
            raise InputError(f"Bad Random Forest setting: {err}") from None
        depth_rng = rng.spawn(1)[0]
        self.depths_ = np.empty(m, dtype=np.intp)
        self.cluster_of_node_ = []
        for r, est in enumerate(forest.estimators_):
            t = est.tree_
            parent, depth = tree_parent_depth(t.children_left, t.children_right)
            h = int(depth.max()) if self.max_level is None else int(self.max_level)
            self.depths_[r] = depth_rng.integers(0, h + 1)
            self.cluster_of_node_.append(ancestors_at_depth(parent, depth, self.depths_[r]))
        self.forest_ = forest
        self.n_labels_ = np.array([e.tree_.node_count for e in forest.estimators_], dtype=np.intp)
        self.n_features_in_ = X.shape[1]
        return self

    def labels(self, X) -> np.ndarray:
        """Node id of the ancestor at depth d_r of each point's leaf, per tree: (m, N)."""
        check_is_fitted(self, "forest_")
        X = check_partition_points(X)
        if X.shape[1] != self.n_features_in_:
            raise InputError(f"X has {X.shape[1]} features; the forest was fit on "
                             f"{self.n_features_in_}.")
        X32 = np.ascontiguousarray(X, dtype=np.float32)
        out = np.empty((len(self.cluster_of_node_), X.shape[0]), dtype=np.intp)
        for r, (est, cluster) in enumerate(zip(self.forest_.estimators_, self.cluster_of_node_)):
            out[r] = cluster[est.tree_.apply(X32)]
        return out


class MondrianPartitions(_PartitionsMixin, BaseEstimator):
    """Mondrian random partitions: the cells of Mondrian trees at a lifetime.

    Each partition is an independent Mondrian process of lifetime ``lifetime``
    restricted to the fitted points' extent (``mondrian_core.trees``); a point's
    cluster is the node alive at ``lifetime`` that holds it (``nodes_at``). The
    random partition kernel is then the Mondrian kernel, whose limit is the
    Laplace kernel exp(-lifetime * ||x - x'||_1) (Balog et al. 2016).

    New points are placed by the conditional Mondrian extension (``apply``), with
    draws seeded at ``fit`` so that ``labels`` of the same points agree between
    calls. A new point that branches off sits in a cell of its own: its label is
    ``n_nodes + i`` (i its row in the call, shifted past earlier points when two
    sets are compared in ``kernel``), so it shares that partition's cell with no
    other point.

    Parameters
    ----------
    n_partitions : int, default 200
    lifetime : float, default 1.0
    random_state : None, int or numpy.random.Generator

    Attributes
    ----------
    trees_ : MondrianTrees
    n_labels_ : int array (m,), number of nodes (labels are global node ids).
    """

    def __init__(self, n_partitions=200, lifetime=1.0, random_state=None):
        self.n_partitions = n_partitions
        self.lifetime = lifetime
        self.random_state = random_state

    def fit(self, X, y=None):
        from mondrian_core.trees import sample_mondrian_trees

        m = _check_positive_int(self.n_partitions, "n_partitions")
        lifetime = as_lifetime(self.lifetime)
        X = check_partition_points(X)
        rng = check_random_state(self.random_state)
        self.trees_ = sample_mondrian_trees(X, m, lifetime, random_state=rng)
        self._apply_seed = int(rng.integers(2**31 - 1))
        self.n_labels_ = np.full(m, self.trees_.n_nodes, dtype=np.intp)
        self.n_features_in_ = X.shape[1]
        return self

    def labels(self, X) -> np.ndarray:
        """Node alive at the lifetime holding each point, per tree: (m, N)."""
        return self._labels_after(X, 0)

    def _labels_after(self, X, n_before: int) -> np.ndarray:
        check_is_fitted(self, "trees_")
        X = check_partition_points(X)
        nodes, branched = self.trees_.apply(X, random_state=self._apply_seed)
        own = self.trees_.n_nodes + n_before + np.arange(X.shape[0])
        return np.where(branched, own[None, :], nodes).astype(np.intp)
