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

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.ensemble import RandomForestRegressor

from mondrian_core._blas import single_blas_thread
from mondrian_core._forest_fit import fit_forest
from mondrian_core._linalg import one_hot_csr
from mondrian_core._threads import thread_map
from mondrian_core._validation import (
    check_count,
    check_dense_size,
    check_is_fitted,
    check_lifetime,
    check_n_jobs,
    check_points,
    check_random_state,
    check_target,
)
from mondrian_core.errors import InputError
from mondrian_core.trees import MAX_TREE_ROWS

__all__ = ["FastClusterPartitions", "RandomForestPartitions", "MondrianPartitions",
           "partition_features"]


#: Distances per block of the nearest-centre search (float64: 256 KB, cache-sized;
#: of 2**13..2**18, 2**15 labelled the kernel PCA bench's 100 partitions of 200,000
#: points in D = 8 fastest, by about 10%).
_DISTANCE_BLOCK = 2**15

#: Largest |x| of input points (float32's range, which scikit-learn's trees use).
MAX_ABS_X = 1e38


def _range_midpoint(X: np.ndarray) -> np.ndarray:
    """The middle of each column's range: the origin the partitions compute about."""
    return X.min(axis=0) / 2.0 + X.max(axis=0) / 2.0


def check_partition_points(X, estimator, *, reset: bool = False, min_samples: int = 1,
                           n_partitions: int | None = None) -> np.ndarray:
    """Points for a partition sampler (or a learner on one) by the one validation layer:
    finite 2-D float64, ``|x| <= MAX_ABS_X``; with ``n_partitions``, refuse more labels
    than fit in memory."""
    X = check_points(X, estimator=estimator, reset=reset, min_samples=min_samples,
                     max_abs=MAX_ABS_X)
    if n_partitions is not None and n_partitions * X.shape[0] > MAX_TREE_ROWS:
        raise InputError(
            f"{n_partitions:,} partitions of {X.shape[0]:,} points are too many (limit "
            f"{MAX_TREE_ROWS:,} labels); use at most {max(1, MAX_TREE_ROWS // X.shape[0]):,} "
            "partitions or fewer points.")
    return X


def partition_features(labels: np.ndarray, n_labels: np.ndarray) -> sp.csr_matrix:
    """Build the scaled cluster-indicator feature map of partition labels.

    Row i has one entry 1/sqrt(m) per partition, in the column ``offset[r] + labels[r, i]``,
    so the Gram matrix of the rows is the m-approximate random partition kernel.
    Labels at or beyond ``n_labels[r]`` (cells of their own, see MondrianPartitions)
    widen that partition's block of columns.

    Parameters
    ----------
    labels : ndarray of int, shape (m, N)
        The cluster of each point in each partition.
    n_labels : ndarray of int, shape (m,)
        The number of clusters of each partition.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (N, sum(n_labels))
        The features.

    References
    ----------
    Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for big
    data from random partitions", Definition 2.
    """
    labels = np.asarray(labels)
    m, n = labels.shape
    n_labels = np.maximum(np.asarray(n_labels), labels.max(axis=1, initial=-1) + 1)
    offsets = np.concatenate(([0], np.cumsum(n_labels)[:-1]))
    cols = (labels + offsets[:, None]).T  # (N, m): one column per partition per point
    return one_hot_csr(cols, int(np.sum(n_labels)), 1.0 / np.sqrt(m))


class _PartitionsMixin:
    """Kernel and feature map shared by all partition samplers (needs ``labels``)."""

    def features(self, X) -> sp.csr_matrix:
        """Return the cluster indicators scaled by ``1/sqrt(m)``.

        ``features(X) @ features(X).T`` is the m-approximate kernel.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The points.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (N, sum(n_labels_))
            One non-zero per partition per row.
        """
        return partition_features(self.labels(X), self.n_labels_)

    def kernel(self, X, Y=None) -> np.ndarray:
        """Return the dense m-approximate kernel matrix.

        The fraction of partitions that put the two points in one cluster.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The first points.
        Y : array-like of shape (N2, D), optional
            The second points; default ``X``.

        Returns
        -------
        ndarray of shape (N, N2)
            Values in ``{0, 1/m, ..., 1}``; the diagonal of ``kernel(X)`` is 1.

        Raises
        ------
        InputError
            If the points are invalid or the matrix would be too large.
        """
        LX = self.labels(X)
        LY_rows = LX.shape[1] if Y is None else np.shape(Y)[0]
        check_dense_size(LX.shape[1], LY_rows)
        if Y is None:
            F = partition_features(LX, self.n_labels_)
            K = (F @ F.T).toarray()
        else:
            # one call for both, so that new points of X and Y are placed together
            # (Mondrian partitions extend new points jointly; the others label pointwise)
            X = check_partition_points(X, self)
            Y = check_partition_points(Y, self)
            n = X.shape[0]
            F = partition_features(self.labels(np.vstack([X, Y])), self.n_labels_)
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
    n_partitions : int, default=200
        The number m of independent partitions (>= 1).
    max_level : int, default=8
        The largest level h, in ``[0, 20]``: at most 2**h clusters per partition.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`).
    n_jobs : int or None, default=None
        Threads for :meth:`labels` (partitions are labelled in parallel): None is one,
        -1 every core. The labels do not depend on it.

    Attributes
    ----------
    dims_ : list of ndarray of int
        The kept dimensions of each partition.
    levels_ : ndarray of int, shape (m,)
        The drawn levels s.
    centres_ : list of ndarray of shape (n_r, len(dims_[r]))
        The chosen centres (kept dimensions only).
    centre_index_ : list of ndarray of int
        Indices of the centres among the fitted points.
    offset_ : ndarray of shape (D,)
        The middle of the fitted points' box: distances are computed about it.
    n_labels_ : ndarray of int, shape (m,)
        Number of clusters (centres) of each partition.
    n_features_in_ : int
        Number of features of the points seen in ``fit``.

    References
    ----------
    A. Davies and Z. Ghahramani, "The Random Forest Kernel and other kernels for
    big data from random partitions", arXiv:1402.4293, 2014.

    Examples
    --------
    >>> from mondrian_core import FastClusterPartitions, two_spirals
    >>> X = two_spirals(n=100, random_state=0).X
    >>> parts = FastClusterPartitions(n_partitions=20, max_level=4, random_state=0).fit(X)
    >>> labels = parts.labels(X)
    >>> labels.shape, int(labels.max()) < 2 ** 4
    ((20, 100), True)
    """

    def __init__(self, n_partitions=200, max_level=8, random_state=None, n_jobs=None):
        self.n_partitions = n_partitions
        self.max_level = max_level
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Draw the partitions (dimension subsets, levels and centres) from ``X``.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The points; centres are chosen among them.
        y : None
            Ignored (the Fast Cluster kernel is unsupervised).

        Returns
        -------
        FastClusterPartitions
            The fitted sampler.

        Raises
        ------
        InputError
            If ``X`` or a parameter is invalid, or the labels would not fit in memory.
        """
        m = check_count(self.n_partitions, "n_partitions")
        h = check_count(self.max_level, "max_level", minimum=0, maximum=20)  # 2**20 centres
        check_n_jobs(self.n_jobs)
        X = check_partition_points(X, self, reset=True, n_partitions=m)
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
        self.offset_ = _range_midpoint(X)
        self.n_labels_ = np.array([len(i) for i in index], dtype=np.intp)
        return self

    def labels(self, X) -> np.ndarray:
        """Return the nearest chosen centre (on the kept dimensions) of each point.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The points.

        Returns
        -------
        ndarray of int, shape (m, N)
            The centre's index in each partition.

        Raises
        ------
        InputError
            If ``X`` is invalid or has another number of features.
        """
        check_is_fitted(self, "centres_")
        X = check_partition_points(X, self)
        n_jobs = check_n_jobs(self.n_jobs)
        n, d = X.shape
        # |c|^2 / 2 - x . c subtracts two numbers of size |x|^2: about the fitted data's
        # midpoint they are of the size of the spread, so an offset of 1e6 or 1e8 loses no
        # digits (points and centres shift alike: the nearest centre is the same)
        offset = getattr(self, "offset_", np.zeros(d))
        # [x, 1] . [-c, |c|^2 / 2] = |c|^2 / 2 - x . c, whose argmin over the centres is
        # the nearest: one product per block, no subtraction pass; the dropped
        # dimensions are zero rows of the weights, so no copy of X per partition
        X1 = np.empty((n, d + 1))
        np.subtract(X, offset, out=X1[:, :d])
        X1[:, d] = 1.0
        out = np.empty((len(self.centres_), n), dtype=np.intp)
        # largest partitions first, so that threads finish together
        order = np.argsort(-self.n_labels_, kind="stable")
        with single_blas_thread():  # thin products: BLAS threads only contend
            thread_map(lambda r: self._nearest(X1, r, out[r], offset), order, n_jobs)
        return out

    def _nearest(self, X1, r, out, offset):
        C = self.centres_[r] - offset[self.dims_[r]]
        if len(C) == 1:
            out[:] = 0
            return
        d = X1.shape[1] - 1
        W = np.zeros((d + 1, len(C)))
        W[self.dims_[r]] = -C.T
        W[d] = 0.5 * np.einsum("ij,ij->i", C, C)
        # blocks of about 256 KB of distances stay in cache between product and argmin
        rows = max(256, _DISTANCE_BLOCK // len(C))
        buf = np.empty((rows, len(C)))
        for a in range(0, X1.shape[0], rows):
            Xa = X1[a:a + rows]
            G = buf[:Xa.shape[0]]
            np.matmul(Xa, W, out=G)
            G.argmin(axis=1, out=out[a:a + rows])


def ancestors_at_depth(parent: np.ndarray, depth: np.ndarray, level) -> np.ndarray:
    """For every node of a tree, its ancestor at depth ``level`` (itself if not deeper).

    ``parent[root] = -1``; vectorised over nodes (at most max-depth passes). ``level``
    may also be an array, one level per node (several trees, each with its own).
    """
    anc = np.arange(len(parent))
    while True:
        deep = depth[anc] > level
        if not deep.any():
            return anc
        anc[deep] = parent[anc[deep]]


def tree_parent_depth(children_left: np.ndarray, children_right: np.ndarray, roots=(0,)):
    """Parent and depth arrays of a binary tree given by its children arrays (-1 = leaf).

    Nodes are numbered so that a parent precedes its children (scikit-learn's order),
    which lets the depths be filled level by level without recursion. ``roots`` lists
    the roots when the arrays hold several trees (a forest, node ids shifted per tree).
    """
    n = len(children_left)
    parent = np.full(n, -1, dtype=np.intp)
    internal = np.flatnonzero(children_left >= 0)
    parent[children_left[internal]] = internal
    parent[children_right[internal]] = internal
    depth = np.zeros(n, dtype=np.intp)
    frontier = np.asarray(roots, dtype=np.intp)
    level = 0
    while frontier.size:
        depth[frontier] = level
        inner = frontier[children_left[frontier] >= 0]
        frontier = np.concatenate((children_left[inner], children_right[inner]))
        level += 1
    return parent, depth


def forest_clusters(trees, max_level, rng) -> tuple[np.ndarray, list]:
    """Each tree's depth ``d_r ~ U{0..h}`` and every node's ancestor at that depth.

    All trees at once: their nodes laid end to end, one pass per level of the deepest
    tree instead of per level of every tree (the same integers as
    :func:`tree_parent_depth` and :func:`ancestors_at_depth` tree by tree, tested).

    Parameters
    ----------
    trees : sequence of sklearn.tree._tree.Tree
        The fitted trees (``children_left``, ``children_right``).
    max_level : int or None
        ``h``; None: each tree's own depth.
    rng : numpy.random.Generator
        Draws the depths, one per tree in order.

    Returns
    -------
    depths : ndarray of int, shape (m,)
        The drawn depths.
    clusters : list of ndarray of int
        Per tree, the cluster (node id of the ancestor at its depth) of every node.
    """
    sizes = np.array([t.node_count for t in trees], dtype=np.intp)
    first = np.cumsum(sizes) - sizes
    shift = np.repeat(first, sizes)
    left = np.concatenate([t.children_left for t in trees]).astype(np.intp)
    right = np.concatenate([t.children_right for t in trees]).astype(np.intp)
    inner = left >= 0
    left[inner] += shift[inner]
    right[inner] += shift[inner]
    parent, depth = tree_parent_depth(left, right, roots=first)
    if max_level is None:
        tops = np.maximum.reduceat(depth, first)
    else:
        tops = np.full(len(trees), int(max_level))
    depths = np.empty(len(trees), dtype=np.intp)
    for r, h in enumerate(tops):  # one draw per tree, in order, as they always were
        depths[r] = rng.integers(0, h + 1)
    anc = ancestors_at_depth(parent, depth, np.repeat(depths, sizes)) - shift
    return depths, np.split(anc, first[1:])


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
    n_partitions : int, default=200
        The number m of trees (one partition per tree), >= 1.
    max_level : int or None, default=None
        The largest depth h (>= 0). None: each tree's own depth (so d_r ~ U{0..depth of tree r}, as in
        the paper's "binary tree with 2**h nodes").
    max_features : float, int or str, default=1/3
        Features tried at each split, as in scikit-learn's ``RandomForestRegressor``
        (Breiman's regression default: a third).
    min_samples_leaf : int, default=1
        Fewest training points in a leaf, as in ``RandomForestRegressor``.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`).

    Attributes
    ----------
    forest_ : sklearn.ensemble.RandomForestRegressor
        The forest, fitted on ``X - offset_``.
    offset_ : ndarray of shape (D,)
        The middle of the fitted points' box (float32 thresholds keep their digits
        about it).
    depths_ : ndarray of int, shape (m,)
        The drawn depths d_r.
    cluster_of_node_ : list of ndarray of int
        Per tree the cluster (node id of the ancestor at depth d_r) of every node.
    n_labels_ : ndarray of int, shape (m,)
        Number of nodes of each tree (labels are node ids).
    n_features_in_ : int
        Number of features of the points seen in ``fit``.

    References
    ----------
    A. Davies and Z. Ghahramani, "The Random Forest Kernel and other kernels for
    big data from random partitions", arXiv:1402.4293, 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import RandomForestPartitions
    >>> X = np.random.default_rng(0).uniform(size=(100, 3))
    >>> y = X[:, 0] + X[:, 1] ** 2  # the partitions are supervised
    >>> parts = RandomForestPartitions(n_partitions=20, random_state=0).fit(X, y)
    >>> parts.labels(X).shape
    (20, 100)
    """

    def __init__(self, n_partitions=200, max_level=None, max_features=1 / 3,
                 min_samples_leaf=1, random_state=None):
        self.n_partitions = n_partitions
        self.max_level = max_level
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True  # the Random Forest kernel is supervised
        return tags

    def fit(self, X, y):
        """Fit the forest on ``(X, y)`` and draw one depth per tree.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The points (at least 2).
        y : array-like of shape (N,)
            Targets (finite): the kernel is supervised.

        Returns
        -------
        RandomForestPartitions
            The fitted sampler.

        Raises
        ------
        InputError
            If ``y`` is missing, the data or a forest setting is invalid.
        """
        m = check_count(self.n_partitions, "n_partitions")
        if y is None:
            raise InputError("RandomForestPartitions requires y to be passed, but the target y "
                             "is None: the Random Forest kernel is supervised; give targets y.")
        X = check_partition_points(X, self, reset=True, min_samples=2, n_partitions=m)
        y = check_target(y, X, squares=False)  # a forest's splits need no y @ y
        if self.max_level is not None:
            check_count(self.max_level, "max_level", minimum=0, maximum=10_000)
        rng = check_random_state(self.random_state)
        # scikit-learn's trees compare float32 thresholds: about the midpoint of the data's
        # box the points keep their digits (shifted by 1e6 they would be rounded to 0.06)
        self.offset_ = _range_midpoint(X)
        try:
            forest = fit_forest(RandomForestRegressor(
                n_estimators=m, max_features=self.max_features,
                min_samples_leaf=self.min_samples_leaf,
                random_state=int(rng.integers(2**31 - 1)), n_jobs=1,
            ), X - self.offset_, y)
        except (ValueError, OverflowError) as err:  # sklearn's max_features, min_samples_leaf
            raise InputError(f"Bad Random Forest setting: {err}") from None
        self.depths_, self.cluster_of_node_ = forest_clusters(
            [est.tree_ for est in forest.estimators_], self.max_level, rng.spawn(1)[0])
        self.forest_ = forest
        self.n_labels_ = np.array([e.tree_.node_count for e in forest.estimators_], dtype=np.intp)
        return self

    def labels(self, X) -> np.ndarray:
        """Return the node id of the ancestor at depth d_r of each point's leaf, per tree.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The points; they go down the fitted trees.

        Returns
        -------
        ndarray of int, shape (m, N)
            The cluster of each point in each partition.

        Raises
        ------
        InputError
            If ``X`` is invalid or has another number of features.
        """
        check_is_fitted(self, "forest_")
        X = check_partition_points(X, self)
        X32 = np.ascontiguousarray(X - getattr(self, "offset_", 0.0), dtype=np.float32)
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

    New points are placed by one joint conditional Mondrian draw for all the rows of
    a call (``MondrianTrees.extend_jointly``), seeded at ``fit`` so that ``labels``
    of the same points agree between calls. New cells hold no fitted point: the
    ``k``-th gets the label ``n_nodes + k``, shared by the new rows in it, and
    ``kernel(X, Y)`` labels ``X`` and ``Y`` in one call so their new rows are placed
    together.

    Parameters
    ----------
    n_partitions : int, default=200
        The number m of independent Mondrian trees (>= 1).
    lifetime : float, default=1.0
        The lifetime (>= 0, units of inverse ``X``) at which the cells are read.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`).

    Attributes
    ----------
    trees_ : mondrian_core.trees.MondrianTrees
        The sampled trees.
    n_labels_ : ndarray of int, shape (m,)
        Number of nodes (labels are global node ids).
    n_features_in_ : int
        Number of features of the points seen in ``fit``.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI. Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for
    big data from random partitions".

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import MondrianPartitions, PartitionAlgebra, laplace_kernel
    >>> X = np.random.default_rng(0).uniform(size=(60, 2))
    >>> parts = MondrianPartitions(n_partitions=2000, lifetime=2.0, random_state=0).fit(X)
    >>> algebra = PartitionAlgebra(parts.labels(X))
    >>> K = algebra.kernel_matmat(np.eye(60))  # the fraction of partitions two points share
    >>> bool(np.abs(K - laplace_kernel(X, lifetime=2.0)).max() < 0.1)
    True
    """

    def __init__(self, n_partitions=200, lifetime=1.0, random_state=None):
        self.n_partitions = n_partitions
        self.lifetime = lifetime
        self.random_state = random_state

    def fit(self, X, y=None):
        """Sample the Mondrian trees of ``X`` up to ``lifetime``.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The points.
        y : None
            Ignored (the Mondrian kernel is unsupervised).

        Returns
        -------
        MondrianPartitions
            The fitted sampler.

        Raises
        ------
        InputError
            If ``X`` or a parameter is invalid, or the trees would not fit in memory.
        """
        from mondrian_core.trees import sample_mondrian_trees

        m = check_count(self.n_partitions, "n_partitions")
        lifetime = check_lifetime(self.lifetime)
        X = check_partition_points(X, self, reset=True)
        rng = check_random_state(self.random_state)
        self.trees_ = sample_mondrian_trees(X, m, lifetime, random_state=rng)
        self._apply_seed = int(rng.integers(2**31 - 1))
        self.n_labels_ = np.full(m, self.trees_.n_nodes, dtype=np.intp)
        return self

    def labels(self, X) -> np.ndarray:
        """Return the node alive at the lifetime holding each point, per tree.

        Points not seen in ``fit`` are placed by one joint conditional Mondrian draw
        (:meth:`~mondrian_core.trees.MondrianTrees.extend_jointly`), so new rows that
        share a new cell share a label.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The points.

        Returns
        -------
        ndarray of int, shape (m, N)
            Node ids; ``n_nodes + k`` for a point in new cell ``k`` (holding no fitted
            point).
        """
        check_is_fitted(self, "trees_")
        X = check_partition_points(X, self)
        # one joint conditional Mondrian draw for all rows: new rows that share a new
        # cell share a label, so the kernel between new rows is right too
        nodes, new_cell = self.trees_.extend_jointly(X, random_state=self._apply_seed)
        own = self.trees_.n_nodes + new_cell
        return np.where(new_cell >= 0, own, nodes).astype(np.intp)
