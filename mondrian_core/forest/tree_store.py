"""The Mondrian trees of a forest as one store, grown online by the conditional Mondrian.

:class:`TreeStore` keeps every tree's nodes (boxes, birth and split times, splits,
per-node statistics) and extends them point by point (``MTx`` of the Mondrian
forests slides, ``papers/002``); :func:`walk` runs points down all trees at once
for prediction with hierarchical smoothing and the branch-off probabilities.
"""
from __future__ import annotations

import math

import numpy as np

#: Codes of the operation a new point caused in a tree (``last_operations_``).
NO_CHANGE, EXTEND, INSERT_ABOVE, SPLIT_LEAF = 0, 1, 2, 3
OPERATION_NAMES = {
    NO_CHANGE: "no change (inside a leaf)",
    EXTEND: "extend a split's range",
    INSERT_ABOVE: "insert a split above",
    SPLIT_LEAF: "split a leaf",
}


class UniformStream:
    """Uniform [0, 1) draws from a Generator, served one at a time from a buffer.

    Parameters
    ----------
    rng : numpy.random.Generator
        The source of the draws.
    size : int, default=4096
        How many draws to buffer at a time.
    """

    def __init__(self, rng: np.random.Generator, size: int = 4096):
        self._rng, self._size, self._buf = rng, size, []

    def next(self) -> float:
        """Return the next uniform draw.

        Returns
        -------
        float
            A number in [0, 1).
        """
        if not self._buf:
            self._buf = self._rng.random(self._size).tolist()
        return self._buf.pop()


class TreeStore:
    """The nodes of all trees of a forest, in growable per-node Python lists.

    Node ids are global (all trees concatenated), like :class:`MondrianTrees`.
    The online path touches one node at a time, so plain lists (no NumPy
    scalars) keep it fast; :meth:`arrays` freezes them for vectorised prediction.
    ``stats[j]`` is ``[count, sum_y]`` (regression) or the label counts
    (classification) of all points below node ``j``.

    Parameters
    ----------
    n_trees : int
        Number of trees.
    n_features : int
        Dimension D of the points.
    lifetime : float
        The trees' lifetime.
    n_stats : int
        Length of each node's statistics.

    References
    ----------
    Lakshminarayanan, Roy and Teh (2014), "Mondrian Forests: Efficient Online Random
    Forests", NIPS.
    """

    def __init__(self, n_trees: int, n_features: int, lifetime: float, n_stats: int):
        self.n_trees, self.n_features, self.lifetime = n_trees, n_features, float(lifetime)
        self.n_stats = n_stats
        self.roots = [-1] * n_trees
        self.tree: list[int] = []
        self.parent: list[int] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.split_time: list[float] = []
        self.split_dim: list[int] = []
        self.split_loc: list[float] = []
        self.lower: list[list[float]] = []
        self.upper: list[list[float]] = []
        self.stats: list[list[float]] = []
        self._frozen = None

    # ------------------------------------------------------------ building
    @classmethod
    def from_trees(cls, trees, stats_of_points: np.ndarray) -> TreeStore:
        """Adopt batch trees (a :class:`MondrianTrees`) with per-point statistics.

        Parameters
        ----------
        trees : MondrianTrees
            Trees from :func:`~mondrian_core.trees.sample_mondrian_trees`.
        stats_of_points : ndarray of shape (N, n_stats)
            Each fitted point's contribution to its nodes' statistics; node sums are
            taken over ``order[tree, start:stop]``.

        Returns
        -------
        TreeStore
            A store holding the same nodes.
        """
        store = cls(trees.n_trees, trees.n_features_in, trees.lifetime, stats_of_points.shape[1])
        store.roots = np.asarray(trees.roots).tolist()
        store.tree = np.asarray(trees.tree).tolist()
        store.parent = np.asarray(trees.parent).tolist()
        store.left = np.asarray(trees.left).tolist()
        store.right = np.asarray(trees.right).tolist()
        store.split_time = np.asarray(trees.split_time, dtype=float).tolist()
        store.split_dim = np.asarray(trees.split_dim).tolist()
        store.split_loc = np.asarray(trees.split_loc, dtype=float).tolist()
        store.lower = np.asarray(trees.lower, dtype=float).tolist()
        store.upper = np.asarray(trees.upper, dtype=float).tolist()
        # Node sums through cumulative sums over each tree's point order.
        tree = np.asarray(trees.tree)
        ordered = stats_of_points[np.asarray(trees.order)]          # (M, N, S)
        cum = np.concatenate([np.zeros((trees.n_trees, 1, ordered.shape[2])),
                              np.cumsum(ordered, axis=1)], axis=1)
        sums = cum[tree, np.asarray(trees.stop)] - cum[tree, np.asarray(trees.start)]
        store.stats = sums.tolist()
        return store

    def _new_node(self, m, parent, left, right, split_time, dim, loc, lower, upper, stats):
        self.tree.append(m)
        self.parent.append(parent)
        self.left.append(left)
        self.right.append(right)
        self.split_time.append(split_time)
        self.split_dim.append(dim)
        self.split_loc.append(loc)
        self.lower.append(lower)
        self.upper.append(upper)
        self.stats.append(stats)
        return len(self.tree) - 1

    def extend(self, m: int, x: list[float], point_stats: list[float], uniforms: UniformStream):
        """Add one point to tree ``m`` by the conditional Mondrian.

        Cost proportional to the depth of the tree.

        Parameters
        ----------
        m : int
            The tree.
        x : list of float
            The point, length D.
        point_stats : list of float
            The point's statistics, added to every node on its path.
        uniforms : UniformStream
            The source of randomness.

        Returns
        -------
        operation : int
            One of ``NO_CHANGE``, ``EXTEND``, ``INSERT_ABOVE``, ``SPLIT_LEAF``.
        node : int
            The node above which a split was inserted, or the leaf that received
            the point.
        """
        self._frozen = None
        lifetime = self.lifetime
        j = self.roots[m]
        if j < 0:  # first point: a root leaf with an empty box
            self.roots[m] = self._new_node(m, -1, -1, -1, math.inf, -1, math.nan,
                                           list(x), list(x), list(point_stats))
            return NO_CHANGE, self.roots[m]
        birth = 0.0
        operation = NO_CHANGE
        D = self.n_features
        while True:
            lo, up = self.lower[j], self.upper[j]
            gaps = [0.0] * D
            rate = 0.0
            for d in range(D):
                g = lo[d] - x[d] if x[d] < lo[d] else (x[d] - up[d] if x[d] > up[d] else 0.0)
                gaps[d] = g
                rate += g
            split_time = self.split_time[j]
            end = split_time if split_time < lifetime else lifetime
            if rate > 0.0:
                e = -math.log(1.0 - uniforms.next()) / rate
                if birth + e < end:
                    return self._insert_above(m, j, x, point_stats, birth + e, gaps, rate,
                                              uniforms)
                # no new split: the node's range grows to hold x
                for d in range(D):
                    if x[d] < lo[d]:
                        lo[d] = x[d]
                    elif x[d] > up[d]:
                        up[d] = x[d]
                operation = EXTEND
            st = self.stats[j]
            for s, v in enumerate(point_stats):
                st[s] += v
            if self.left[j] < 0:
                return operation, j
            birth = split_time
            j = self.left[j] if x[self.split_dim[j]] <= self.split_loc[j] else self.right[j]

    def _insert_above(self, m, j, x, point_stats, time, gaps, rate, uniforms):
        # dimension with probability proportional to the gap, location uniform in it
        target = uniforms.next() * rate
        d, acc = 0, gaps[0]
        while acc <= target and d < self.n_features - 1:
            d += 1
            acc += gaps[d]
        while gaps[d] == 0.0:  # guard against rounding at the end of the cumulative sum
            d -= 1
        lo, up = self.lower[j], self.upper[j]
        u = uniforms.next()
        if x[d] > up[d]:
            loc = up[d] + u * (x[d] - up[d])
        else:
            loc = x[d] + u * (lo[d] - x[d])
        leaf = self._new_node(m, -1, -1, -1, math.inf, -1, math.nan, list(x), list(x),
                              list(point_stats))
        left, right = (j, leaf) if x[d] > loc else (leaf, j)
        stats = [a + b for a, b in zip(self.stats[j], point_stats)]
        new_lo = [min(a, b) for a, b in zip(lo, x)]
        new_up = [max(a, b) for a, b in zip(up, x)]
        par = self.parent[j]
        node = self._new_node(m, par, left, right, time, d, loc, new_lo, new_up, stats)
        self.parent[leaf] = node
        self.parent[j] = node
        if par < 0:
            self.roots[m] = node
        elif self.left[par] == j:
            self.left[par] = node
        else:
            self.right[par] = node
        return (SPLIT_LEAF if self.left[j] < 0 else INSERT_ABOVE), j

    # ------------------------------------------------------------ frozen arrays
    def arrays(self) -> dict:
        """Return the nodes as NumPy arrays, cached until the next change.

        Returns
        -------
        dict
            The stored fields as arrays, plus ``end`` (``min(split_time, lifetime)``),
            ``birth``, ``span`` (``end - birth``), ``depth``, ``is_leaf``, ``box``
            (lower and upper corners side by side) and ``lifetime``.
        """
        if self._frozen is not None:
            return self._frozen
        a = {
            "tree": np.asarray(self.tree, dtype=np.int64),
            "parent": np.asarray(self.parent, dtype=np.int64),
            "left": np.asarray(self.left, dtype=np.int64),
            "right": np.asarray(self.right, dtype=np.int64),
            "split_time": np.asarray(self.split_time, dtype=float),
            "split_dim": np.asarray(self.split_dim, dtype=np.int64),
            "split_loc": np.asarray(self.split_loc, dtype=float),
            "lower": np.asarray(self.lower, dtype=float).reshape(-1, self.n_features),
            "upper": np.asarray(self.upper, dtype=float).reshape(-1, self.n_features),
            "stats": np.asarray(self.stats, dtype=float).reshape(-1, self.n_stats),
            "roots": np.asarray(self.roots, dtype=np.int64),
        }
        n = len(self.tree)
        parent = a["parent"]
        has_parent = parent >= 0
        end = np.minimum(a["split_time"], self.lifetime)
        a["end"] = end
        a["birth"] = np.where(has_parent, end[np.maximum(parent, 0)], 0.0)
        depth = np.zeros(n, dtype=np.int64)
        cur = parent.copy()
        while np.any(cur >= 0):
            alive = cur >= 0
            depth += alive
            cur[alive] = parent[cur[alive]]
        a["depth"] = depth
        a["is_leaf"] = a["left"] < 0
        a["lifetime"] = self.lifetime
        a["span"] = end - a["birth"]
        a["box"] = np.hstack([a["lower"], a["upper"]])
        self._frozen = a
        return a


def walk(a: dict, X: np.ndarray, n_trees: int):
    """Extend every tree to every row of X; yield one record per path level.

    Parameters
    ----------
    a : dict
        The trees, from :meth:`TreeStore.arrays`.
    X : ndarray of shape (N, D)
        The points.
    n_trees : int
        Number of trees.

    Yields
    ------
    entry : ndarray of int
        The active (tree, point) entries, ``tree * N + point``.
    node : ndarray of int
        The node each entry has reached.
    surv : ndarray
        The probability of reaching ``node`` without branching off.
    p_branch : ndarray
        The probability of branching off in ``node``'s time interval, given that.
    z : ndarray
        ``rate * length``: the extension rate times the interval's length.
    is_leaf : ndarray of bool
        Whether ``node`` is a leaf (the entry's walk ends there).
    """
    N, D = X.shape
    box, span, is_leaf = a["box"], a["span"], a["is_leaf"]
    split_dim, split_loc, left_child, right_child = (a["split_dim"], a["split_loc"], a["left"],
                                                     a["right"])
    for m, root in enumerate(a["roots"]):  # tree by tree: the gathers stay in cache
        if root < 0:
            continue
        point = np.arange(N)
        entry = point + m * N
        node = np.full(N, root)
        surv = np.ones(N)
        x = X
        while entry.size:
            b = box[node]
            with np.errstate(over="ignore"):  # a point ~1e308 away: z = inf gave NaN moments
                rate = (np.maximum(b[:, :D] - x, 0.0) + np.maximum(x - b[:, D:], 0.0)).sum(axis=1)
                z = np.minimum(rate * span[node], 1e300)
            p_branch = -np.expm1(-z)
            leaf = is_leaf[node]
            yield entry, node, surv, p_branch, z, leaf
            go = ~leaf
            surv = surv[go] * (1.0 - p_branch[go])
            entry, point, node, x = entry[go], point[go], node[go], x[go]
            goes_left = x[np.arange(node.size), split_dim[node]] <= split_loc[node]
            node = np.where(goes_left, left_child[node], right_child[node])


def truncated_exp_moments(z: np.ndarray):
    """Return E[u] and E[u^2] for u on [0, 1] with density proportional to z exp(-z u).

    Parameters
    ----------
    z : array-like
        The rates (>= 0); series expansions below 1e-4.

    Returns
    -------
    eu : ndarray
        E[u].
    eu2 : ndarray
        E[u^2].
    """
    z = np.asarray(z, dtype=float)
    small = z < 1e-4
    zs = np.where(small, 1.0, z)
    em = -np.expm1(-zs)                       # 1 - exp(-z)
    eu = 1.0 / zs - np.exp(-zs) / em
    with np.errstate(over="ignore"):  # zs up to 1e300: zs**2 = inf, the term is 0
        eu2 = (2.0 * (em - zs * np.exp(-zs)) / zs**2 - np.exp(-zs)) / em
    eu = np.where(small, 0.5 - z / 12.0, eu)
    eu2 = np.where(small, 1.0 / 3.0 - z / 12.0, eu2)
    return eu, eu2


def expected_discount(z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Return E[exp(-w u)] for u on [0, 1] with density proportional to z exp(-z u).

    Parameters
    ----------
    z : array-like
        The rates (>= 0).
    w : array-like
        The discount's rate times the interval's length (>= 0).

    Returns
    -------
    ndarray
        The expected discount, in (0, 1].
    """
    s = z + w
    a = np.where(s > 1e-12, -np.expm1(-s) / np.where(s > 1e-12, s, 1.0), 1.0)
    b = np.where(z > 1e-12, z / np.where(z > 1e-12, -np.expm1(-z), 1.0), 1.0)
    return a * b


