"""Mondrian forests: batch and online training, smoothing, predictive uncertainty.

A Mondrian tree over data (Lakshminarayanan, Roy and Teh, 2014; slides
``papers/002``) is a Mondrian process restricted to the bounding boxes of the
points in each node: a node with box ``[lower, upper]`` born at time ``birth``
is cut at ``birth + Exp(sum(upper - lower))`` (if before the lifetime), in a
dimension chosen proportionally to the side lengths, uniformly within the box.

Online training (the conditional Mondrian ``MTx`` of the slides) adds a point
``x`` by walking from the root.  At node ``j`` the *extension rate* is the
linear dimension of the part of the enlarged box not covered by ``j``'s box,
``r = sum(max(lower - x, 0) + max(x - upper, 0))``; with ``E ~ Exp(r)``:

* if ``birth + E < min(split_time, lifetime)``, a new split is created at that
  time in a dimension ``d`` chosen proportionally to the gap, uniformly in the
  gap, separating ``x`` from all of ``j``'s points: a new node is inserted above
  ``j`` whose children are ``j`` and a new leaf holding ``x`` -- *insert a split
  above an existing split* when ``j`` is internal, *split a leaf further* when
  ``j`` is a leaf;
* otherwise the box of ``j`` grows to hold ``x`` (*extend the existing split to
  the new range*) and ``x`` follows ``j``'s split to a child.

By the projectivity of the Mondrian process (Roy and Teh, 2009), a tree grown
point by point has the same distribution as a batch tree on all the points, in
any order.  The cost of one point is proportional to the depth of the tree.

Prediction extends each tree to the test point in the same way and averages
over every extension in closed form: the point branches off above the ``i``-th
node of its root-to-leaf path with probability
``prod_{k<i} exp(-r_k D_k) * (1 - exp(-r_i D_i))`` (``D`` the node's time
interval ``[birth, min(split_time, lifetime))``), at a time distributed as an
exponential truncated to that interval, and then sits alone in a new leaf.

Smoothing models (per tree, as in the slides; forest = average of the trees):

* Regression, ``smoothing="none"``: leaf means i.i.d. ``N(m, prior_variance)``
  (the factorised prior of Balog et al. 2016, section 6 and Proposition 5):
  a leaf's value is the ridge solution ``m + sum(y - m) / (n + noise/prior)``;
  a branched-off leaf predicts the prior ``N(m, prior_variance)``.
* Regression, ``smoothing="hierarchical"``: node means follow a Brownian motion
  down the tree, ``mu_root ~ N(m, k * t_root)``,
  ``mu_j | mu_parent ~ N(mu_parent, k * (t_j - t_parent))`` with
  ``k = prior_variance / lifetime`` and ``t_j = min(split_time_j, lifetime)``.
  Every leaf (``t = lifetime``) thus has marginal prior ``N(m, prior_variance)``
  as in the factorised model, but leaves that split late are strongly
  correlated.  The model is closed under inserting nodes (a Brownian bridge), so
  a branched-off leaf is handled exactly: its parent's mean is the bridge
  between the path's nodes, its own mean a further Brownian step to the
  lifetime.  The posterior is computed exactly by belief propagation (one
  upward and one downward pass).  Observations ``y ~ N(mu_leaf, noise)``.
* Classification: the hierarchical normalized stable process prior with the
  interpolated Kneser-Ney approximation of the slides: with ``c_jk`` the count
  of label ``k`` in leaf ``j`` (for an internal node, the number of its children
  holding label ``k``), ``tab_jk = min(c_jk, 1)`` and discount
  ``d_j = exp(-gamma * (t_j - t_parent))``,
  ``G_jk = (c_jk - d_j tab_jk) / c_j + d_j tab_j / c_j * G_parent,k``
  (``G_parent = G_j`` if ``c_j = 0``), the root's parent being uniform.

References
----------
Lakshminarayanan, Roy and Teh, "Mondrian forests: efficient online random
forests", NIPS 2014, and "Mondrian forests for large-scale regression when
uncertainty matters", AISTATS 2016; slides in ``papers/002``.
Balog, Lakshminarayanan, Ghahramani, Roy and Teh, "The Mondrian Kernel",
UAI 2016, section 6 and Proposition 5 (``papers/000``, ``papers/001``).
"""
from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from mondrian_core._random import check_random_state
from mondrian_core.errors import InputError
from mondrian_core.trees import _check_points, _finite_squares

#: Codes of the operation a new point caused in a tree (``last_operations_``).
NO_CHANGE, EXTEND, INSERT_ABOVE, SPLIT_LEAF = 0, 1, 2, 3
OPERATION_NAMES = {
    NO_CHANGE: "no change (inside a leaf)",
    EXTEND: "extend a split's range",
    INSERT_ABOVE: "insert a split above",
    SPLIT_LEAF: "split a leaf",
}


class _Uniforms:
    """Uniform(0, 1) draws from a Generator, served one at a time from a buffer."""

    def __init__(self, rng: np.random.Generator, size: int = 4096):
        self._rng, self._size, self._buf = rng, size, []

    def next(self) -> float:
        if not self._buf:
            self._buf = self._rng.random(self._size).tolist()
        return self._buf.pop()


class _TreeStore:
    """The nodes of all trees of a forest, in growable per-node Python lists.

    Node ids are global (all trees concatenated), like :class:`MondrianTrees`.
    The online path touches one node at a time, so plain lists (no NumPy
    scalars) keep it fast; :meth:`arrays` freezes them for vectorised prediction.
    ``stats[j]`` is ``[count, sum_y]`` (regression) or the label counts
    (classification) of all points below node ``j``.
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
    def from_trees(cls, trees, stats_of_points: np.ndarray) -> "_TreeStore":
        """Adopt batch trees (a :class:`MondrianTrees`) with per-point statistics.

        ``stats_of_points`` (N, n_stats): each fitted point's contribution to its
        nodes' statistics; node sums are taken over ``order[tree, start:stop]``.
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

    def extend(self, m: int, x: list[float], point_stats: list[float], uniforms: _Uniforms):
        """Add one point to tree ``m`` by the conditional Mondrian; return (operation, node).

        ``node`` is the node above which a split was inserted (or the leaf that
        received the point).  Cost proportional to the depth of the tree.
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
        """The nodes as NumPy arrays (cached until the next change), with depth and times."""
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


def _walk(a: dict, X: np.ndarray, n_trees: int):
    """Extend every tree to every row of X; yield one record per path level.

    Yields ``(entry, node, surv, p_branch, z, is_leaf)`` for the active
    (tree, point) entries (``entry = tree * N + point``): the survival
    probability of reaching ``node`` without branching off, the probability of
    branching off in ``node``'s interval given that, and ``z = rate * length``.
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


def _truncated_exp_moments(z: np.ndarray):
    """E[u], E[u^2] for u on [0, 1] with density proportional to z exp(-z u)."""
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


def _expected_discount(z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """E[exp(-w u)] for u on [0, 1] with density proportional to z exp(-z u)."""
    s = z + w
    a = np.where(s > 1e-12, -np.expm1(-s) / np.where(s > 1e-12, s, 1.0), 1.0)
    b = np.where(z > 1e-12, z / np.where(z > 1e-12, -np.expm1(-z), 1.0), 1.0)
    return a * b


#: Largest points x trees of one partial_fit call (a Python step per point and tree).
MAX_ONLINE_UPDATES = 2_000_000


def _validate_X(X, n_features=None, name="X"):
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as err:
        raise InputError(f"{name} must be numeric: {err}") from None
    X = _check_points(X, name)
    if n_features is not None and X.shape[1] != n_features:
        raise InputError(f"{name} has {X.shape[1]} features but the forest was fitted on "
                         f"{n_features}.")
    return X


def _check_params(est):
    if not isinstance(est.n_estimators, numbers.Integral) or est.n_estimators < 1:
        raise InputError(f"n_estimators must be a positive integer, got {est.n_estimators!r}.")
    if not (isinstance(est.lifetime, numbers.Real) and 0 <= est.lifetime < np.inf):
        raise InputError(f"lifetime must be a finite number >= 0, got {est.lifetime!r}.")


class _MondrianForestBase(BaseEstimator):
    """Shared batch/online machinery (trees in a :class:`_TreeStore`)."""

    def _point_stats(self, y):  # (N, n_stats)
        raise NotImplementedError

    def _fit_trees(self, X, y):
        from mondrian_core.trees import sample_mondrian_trees

        self._rng = check_random_state(self.random_state)
        trees = sample_mondrian_trees(X, self.n_estimators, self.lifetime, random_state=self._rng)
        self.trees_ = _TreeStore.from_trees(trees, self._point_stats(y))
        self._uniforms = _Uniforms(self._rng)
        self.n_features_in_ = X.shape[1]

    def _partial_fit_trees(self, X, y):
        if X.shape[0] * self.n_estimators > MAX_ONLINE_UPDATES:
            raise InputError(
                f"Adding {X.shape[0]:,} points to {self.n_estimators:,} trees one by one is "
                f"{X.shape[0] * self.n_estimators:,} online updates (limit "
                f"{MAX_ONLINE_UPDATES:,} per call); pass fewer points per partial_fit, use fewer "
                "trees, or fit in one batch.")
        if not hasattr(self, "trees_"):
            self._rng = check_random_state(self.random_state)
            self._uniforms = _Uniforms(self._rng)
            self.trees_ = _TreeStore(self.n_estimators, X.shape[1], self.lifetime,
                                     self._n_stats())
            self.n_features_in_ = X.shape[1]
        store, uniforms = self.trees_, self._uniforms
        stats = self._point_stats(y).tolist()
        ops = np.zeros((X.shape[0], self.n_estimators), dtype=np.int8)
        where = np.zeros((X.shape[0], self.n_estimators), dtype=np.int64)
        for i, x in enumerate(X.tolist()):     # online: one point after the other
            for m in range(self.n_estimators):
                ops[i, m], where[i, m] = store.extend(m, x, stats[i], uniforms)
        self.last_operations_ = ops
        self.last_operation_nodes_ = where

    # ------------------------------------------------------------ inspection
    def tree_structure(self, tree: int = 0) -> dict:
        """Arrays describing one tree (for pictures): its node ids and their fields."""
        check_is_fitted(self, "trees_")
        a = self.trees_.arrays()
        ids = np.flatnonzero(a["tree"] == tree)
        out = {k: a[k][ids] for k in ("parent", "left", "right", "split_time", "split_dim",
                                      "split_loc", "lower", "upper", "depth", "is_leaf",
                                      "birth", "end")}
        out["ids"] = ids
        return out

    def tree_summary(self) -> dict:
        """Per tree: number of leaves, maximum leaf depth, sorted split times."""
        check_is_fitted(self, "trees_")
        a = self.trees_.arrays()
        M = self.n_estimators
        leaf = a["is_leaf"]
        n_leaves = np.bincount(a["tree"][leaf], minlength=M)
        max_depth = np.zeros(M, dtype=np.int64)
        np.maximum.at(max_depth, a["tree"][leaf], a["depth"][leaf])
        return {"n_leaves": n_leaves, "max_depth": max_depth,
                "split_times": [np.sort(a["split_time"][(a["tree"] == m) & ~leaf])
                                for m in range(M)]}


class MondrianForestRegressor(RegressorMixin, _MondrianForestBase):
    """Mondrian forest regression, batch or online, with predictive uncertainty.

    Each of ``n_estimators`` Mondrian trees (restricted to the data's extent) is
    fitted independently; the forest predicts the average of the trees (model
    combination, not Bayesian model averaging). See the module docstring for the
    exact smoothing models and the closed-form average over extensions.

    Parameters
    ----------
    n_estimators : int, default=10
        Number of Mondrian trees M.
    lifetime : float, default=1.0
        Lifetime lambda of the Mondrian processes (inverse length scale).
    random_state : None, int or numpy.random.Generator
        Randomness of the trees and of their online extensions.
    noise_variance : float or None, default=None
        Observation noise sigma^2; None: 0.1 times ``prior_variance``.
    prior_variance : float or None, default=None
        Prior variance of a leaf's mean; None: the variance of the targets seen so far.
    smoothing : {"hierarchical", "none"}, default="hierarchical"
        "none" is the factorised Gaussian prior of Balog et al. (2016, Prop. 5):
        each leaf value is a ridge estimate with ratio noise/prior; "hierarchical"
        is the Brownian-motion prior on the tree (Lakshminarayanan et al. 2016).

    Attributes
    ----------
    trees_ : the trees' nodes (per-node lists, see ``tree_structure``).
    y_mean_, y_var_ : mean and variance of the targets seen so far (prior mean m).
    last_operations_ : (n_points, n_estimators) int8, the operation each point of the
        last ``partial_fit`` caused in each tree (codes in ``OPERATION_NAMES``).

    References
    ----------
    Lakshminarayanan, Roy and Teh (2014, 2016); Balog et al., "The Mondrian
    Kernel" (UAI 2016), section 6; slides ``papers/002``.
    """

    def __init__(self, n_estimators=10, lifetime=1.0, random_state=None, *,
                 noise_variance=None, prior_variance=None, smoothing="hierarchical"):
        self.n_estimators = n_estimators
        self.lifetime = lifetime
        self.random_state = random_state
        self.noise_variance = noise_variance
        self.prior_variance = prior_variance
        self.smoothing = smoothing

    def _n_stats(self):
        return 2

    def _point_stats(self, y):
        return np.column_stack([np.ones_like(y), y])

    def _check(self, X, y, n_features=None):
        _check_params(self)
        if self.smoothing not in ("hierarchical", "none"):
            raise InputError(f"smoothing must be 'hierarchical' or 'none', got {self.smoothing!r}.")
        for name in ("noise_variance", "prior_variance"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, numbers.Real) and v > 0):
                raise InputError(f"{name} must be a positive number or None, got {v!r}.")
        X = _validate_X(X, n_features)
        y = np.asarray(y, dtype=float).ravel()
        if y.shape[0] != X.shape[0]:
            raise InputError(f"X has {X.shape[0]} rows but y has {y.shape[0]} values; give one "
                             "target value per row.")
        if not _finite_squares(y):
            raise InputError("y contains NaN or infinite values, or values too large to square "
                             "(|y| > 1e150); remove those rows or rescale y.")
        return X, y

    def _update_moments(self, y, reset):
        n0, s0, q0 = (0, 0.0, 0.0) if reset else (self._n_seen, self._sum_y, self._sum_y2)
        self._n_seen, self._sum_y, self._sum_y2 = n0 + y.size, s0 + y.sum(), q0 + (y**2).sum()
        self.y_mean_ = self._sum_y / self._n_seen
        self.y_var_ = max(self._sum_y2 / self._n_seen - self.y_mean_**2, 0.0)
        self._posterior = None

    def fit(self, X, y):
        """Sample the trees on (X, y) in one batch and fit every tree's leaves."""
        X, y = self._check(X, y)
        self._fit_trees(X, y)
        self._update_moments(y, reset=True)
        return self

    def partial_fit(self, X, y):
        """Add points online (conditional Mondrian): same distribution as a batch fit."""
        fitted = hasattr(self, "trees_")
        X, y = self._check(X, y, self.n_features_in_ if fitted else None)
        self._partial_fit_trees(X, y)
        self._update_moments(y, reset=not fitted)
        return self

    # ------------------------------------------------------------ posterior
    def _variances(self):
        prior = self.prior_variance if self.prior_variance is not None else (
            self.y_var_ if self.y_var_ > 0 else 1.0)
        noise = self.noise_variance if self.noise_variance is not None else 0.1 * prior
        return float(noise), float(prior)

    def _node_posterior(self):
        """Posterior mean/variance (centred at m) of every node's mean, and cov with parent."""
        a = self.trees_.arrays()
        noise, prior = self._variances()
        key = (noise, prior, self.smoothing, self.y_mean_)
        if self._posterior is not None and self._posterior[0] is a and self._posterior[2] == key:
            return self._posterior[1]
        n, s = a["stats"][:, 0], a["stats"][:, 1] - a["stats"][:, 0] * self.y_mean_
        leaf = a["is_leaf"]
        if self.smoothing == "none":
            E = np.where(leaf, s / (n + noise / prior), 0.0)
            V = np.where(leaf, noise / (n + noise / prior), prior)
            post = {"E": E, "V": V}
        else:
            post = self._belief_propagation(a, n, s, noise, prior)
        post["branch"], post["leaf"] = self._prediction_coefficients(a, post, prior,
                                                                     self.smoothing)
        self._posterior = (a, post, key)
        return post

    def _belief_propagation(self, a, n, s, noise, prior):
        kappa = prior / a["lifetime"] if a["lifetime"] > 0 else 0.0
        q = kappa * (a["end"] - a["birth"])              # Brownian variance to the parent
        parent, depth, leaf = a["parent"], a["depth"], a["is_leaf"]
        pi = np.where(leaf, n / noise, 0.0)                # likelihood precision of data below
        h = np.where(leaf, s / noise, 0.0)
        levels = [np.flatnonzero(depth == k) for k in range(int(depth.max()) + 1)]
        for nodes in reversed(levels[1:]):                 # upward pass
            shrink = 1.0 / (1.0 + q[nodes] * pi[nodes])
            np.add.at(pi, parent[nodes], pi[nodes] * shrink)
            np.add.at(h, parent[nodes], h[nodes] * shrink)
        E, V, C = np.zeros_like(q), np.zeros_like(q), np.zeros_like(q)
        for nodes in levels:                               # downward pass
            p = parent[nodes]
            has = p >= 0
            EP = np.where(has, E[np.maximum(p, 0)], 0.0)
            VP = np.where(has, V[np.maximum(p, 0)], 0.0)
            g = 1.0 / (1.0 + q[nodes] * pi[nodes])
            E[nodes] = g * EP + q[nodes] * h[nodes] * g
            V[nodes] = g * g * VP + q[nodes] * g
            C[nodes] = g * VP
        return {"E": E, "V": V, "C": C, "kappa": kappa}

    def leaf_values(self) -> np.ndarray:
        """Posterior mean of every node's value (leaves: the fitted leaf values), in y units."""
        check_is_fitted(self, "trees_")
        return self._node_posterior()["E"] + self.y_mean_

    def predict(self, X, return_std=False, include_noise=True):
        """Predictive mean (and standard deviation) at X, averaged over extensions.

        ``include_noise=False`` gives the standard deviation of the function
        value (the mean of y) instead of that of a new observation y.

        The standard deviation is that of the forest's predictive mixture
        (equal-weight mixture of the trees' predictive distributions, each the
        closed-form mixture over where X branches off), including the noise.
        Far from the data every tree branches off at the root and the prediction
        tends to the prior, ``N(m, prior_variance + noise_variance)``; on the way
        the mixture's std may overshoot that level slightly.
        """
        check_is_fitted(self, "trees_")
        X = _validate_X(X, self.n_features_in_)
        a = self.trees_.arrays()
        post = self._node_posterior()
        noise, prior = self._variances()
        M, N = self.n_estimators, X.shape[0]
        mean = np.zeros(M * N)
        second = np.zeros(M * N)
        branch, leaf_coef = post["branch"], post["leaf"]
        for entry, node, surv, pb, z, leaf in _walk(a, X, M):
            pos = z > 0            # only points outside a node's box can branch off there
            if pos.any():
                e, c, w = entry[pos], branch[node[pos]], surv[pos] * pb[pos]
                eu, eu2 = _truncated_exp_moments(z[pos])
                mean[e] += w * (c[:, 0] + c[:, 1] * eu)
                second[e] += w * (c[:, 2] + c[:, 3] * eu + c[:, 4] * eu2)
            if leaf.any():
                e, c, w = entry[leaf], leaf_coef[node[leaf]], surv[leaf] * (1.0 - pb[leaf])
                mean[e] += w * c[:, 0]
                second[e] += w * c[:, 1]
        mean, second = mean.reshape(M, N), second.reshape(M, N)
        mu = mean.mean(axis=0)
        if not return_std:
            return mu + self.y_mean_
        var = np.maximum(second.mean(axis=0) - mu**2, 0.0)
        if include_noise:
            var = var + noise
        return mu + self.y_mean_, np.sqrt(var)

    @staticmethod
    def _prediction_coefficients(a, post, prior, smoothing):
        """Per node, the moments of a new leaf branched off above it, as polynomials in u.

        The new split's time is ``s0 + u * (s1 - s0)`` with ``u`` a truncated
        exponential (``E[u]``, ``E[u^2]`` applied per test point). Hierarchical
        model: the new parent's mean is the Brownian bridge between the path's
        parent P (time s0) and the node j (time s1), the new leaf a further
        Brownian step to the lifetime, so with ``B = E_j - E_P``::

            mean   = E_P + B u
            second = k (lifetime - s0) + V_P + E_P^2
                     + (2 C - 2 V_P + 2 E_P B) u
                     + (V_P + V_j - 2 C - k (s1 - s0) + B^2) u^2

        Factorised model: the prior, ``mean = 0``, ``second = prior``.
        Returns ``branch`` (n_nodes, 5): E_P, B, c0, c1, c2; ``leaf``
        (n_nodes, 2): posterior mean and second moment of each node.
        """
        E, V = post["E"], post["V"]
        leaf = np.column_stack([E, V + E**2])
        if smoothing == "none":
            branch = np.zeros((E.size, 5))
            branch[:, 2] = prior
            return branch, leaf
        C, kappa = post["C"], post["kappa"]
        p = a["parent"]
        has = p >= 0
        EP = np.where(has, E[np.maximum(p, 0)], 0.0)
        VP = np.where(has, V[np.maximum(p, 0)], 0.0)
        B = E - EP
        c0 = kappa * (a["lifetime"] - a["birth"]) + VP + EP**2
        c1 = 2 * C - 2 * VP + 2 * EP * B
        c2 = VP + V - 2 * C - kappa * a["span"] + B**2
        return np.column_stack([EP, B, c0, c1, c2]), leaf


class MondrianForestClassifier(ClassifierMixin, _MondrianForestBase):
    """Mondrian forest classification, batch or online, with hierarchical smoothing.

    Each tree predicts with the hierarchical normalized stable process prior
    and its interpolated Kneser-Ney approximation (slides ``papers/002``,
    "Interpolated Kneser-Ney smoothing"; Lakshminarayanan et al. 2014): at a
    node ``j`` with label counts ``c_j`` (leaf: points; internal node: number of
    children holding each label), ``tab_jk = min(c_jk, 1)`` and discount
    ``d_j = exp(-discount_rate * (t_j - t_parent(j)))``,
    ``G_jk = (c_jk - d_j tab_jk) / c_j. + d_j tab_j. / c_j. * G_parent(j),k``,
    the root's parent being the uniform distribution. A test point that
    branches off above node ``j`` at time ``t`` sits in a new empty leaf whose
    parent has counts ``tab_j`` and discount ``exp(-gamma (t - t_parent(j)))``;
    the prediction is linear in that discount, whose expectation over the
    truncated exponential branch time is closed form.

    Parameters
    ----------
    n_estimators : int, default=10
    lifetime : float, default=1.0
    random_state : None, int or numpy.random.Generator
    discount_rate : float or None, default=None
        gamma in ``d = exp(-gamma * time difference)``; None: 10 times the linear
        dimension (sum of side lengths) of the data's bounding box, i.e. the
        paper's ``10 D`` for data filling the unit cube.

    Attributes
    ----------
    classes_ : labels, in the order of ``predict_proba``'s columns.
    trees_, last_operations_ : as for :class:`MondrianForestRegressor`.
    """

    def __init__(self, n_estimators=10, lifetime=1.0, random_state=None, *,
                 discount_rate=None):
        self.n_estimators = n_estimators
        self.lifetime = lifetime
        self.random_state = random_state
        self.discount_rate = discount_rate

    def _n_stats(self):
        return len(self.classes_)

    def _point_stats(self, y):
        return (y[:, None] == np.arange(len(self.classes_))[None, :]).astype(float)

    def _check(self, X, y, n_features=None):
        _check_params(self)
        g = self.discount_rate
        if g is not None and not (isinstance(g, numbers.Real) and g >= 0):
            raise InputError(f"discount_rate must be a number >= 0 or None, got {g!r}.")
        X = _validate_X(X, n_features)
        y = np.asarray(y).ravel()
        if y.shape[0] != X.shape[0]:
            raise InputError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels; give one "
                             "label per row.")
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise InputError("y contains NaN or infinite labels; remove those rows.")
        return X, y

    def _encode(self, y):
        idx = np.searchsorted(self.classes_, y)
        idx = np.minimum(idx, len(self.classes_) - 1)
        if not np.all(self.classes_[idx] == y):
            unknown = np.setdiff1d(y, self.classes_)
            raise InputError(f"labels {unknown[:5].tolist()} are not among classes "
                             f"{self.classes_.tolist()}; pass all classes to the first partial_fit.")
        return idx

    def fit(self, X, y):
        """Sample the trees on (X, y) in one batch."""
        X, y = self._check(X, y)
        self.classes_ = np.unique(y)
        self._fit_trees(X, self._encode(y))
        return self

    def partial_fit(self, X, y, classes=None):
        """Add points online; ``classes`` (all labels) is required on the first call."""
        fitted = hasattr(self, "trees_")
        X, y = self._check(X, y, self.n_features_in_ if fitted else None)
        if not fitted:
            if classes is None:
                raise InputError("pass classes=... (all labels) to the first partial_fit.")
            self.classes_ = np.unique(np.asarray(classes))
        self._partial_fit_trees(X, self._encode(y))
        return self

    def _gamma(self, a):
        if self.discount_rate is not None:
            return float(self.discount_rate)
        roots = a["roots"][a["roots"] >= 0]
        return 10.0 * float(np.mean((a["upper"][roots] - a["lower"][roots]).sum(axis=1)))

    def _node_distributions(self, a):
        """G (n_nodes, K) by interpolated Kneser-Ney, top-down; and tab, d per node."""
        raw = a["stats"]
        tab = (raw > 0).astype(float)
        parent, leaf, depth = a["parent"], a["is_leaf"], a["depth"]
        counts = np.where(leaf[:, None], raw, 0.0)
        inner = ~leaf
        counts[inner] = tab[a["left"][inner]] + tab[a["right"][inner]]
        gamma = self._gamma(a)
        d = np.exp(-gamma * (a["end"] - a["birth"]))
        K = raw.shape[1]
        G = np.zeros_like(raw)
        for k in range(int(depth.max()) + 1):
            nodes = np.flatnonzero(depth == k)
            p = parent[nodes]
            GP = np.where((p >= 0)[:, None], G[np.maximum(p, 0)], 1.0 / K)
            c = counts[nodes].sum(axis=1, keepdims=True)
            t = tab[nodes].sum(axis=1, keepdims=True)
            dn = d[nodes][:, None]
            safe = np.where(c > 0, c, 1.0)
            G[nodes] = np.where(c > 0, (counts[nodes] - dn * tab[nodes]) / safe
                                + dn * t / safe * GP, GP)
        return G, tab, gamma

    def predict_proba(self, X):
        """Class probabilities (columns in ``classes_`` order), averaged over trees and extensions."""
        check_is_fitted(self, "trees_")
        X = _validate_X(X, self.n_features_in_)
        a = self.trees_.arrays()
        G, tab, gamma = self._node_distributions(a)
        M, N, K = self.n_estimators, X.shape[0], len(self.classes_)
        out = np.zeros((M * N, K))
        p = a["parent"]
        GP = np.where((p >= 0)[:, None], G[np.maximum(p, 0)], 1.0 / K)     # parent's G
        T = tab / np.maximum(tab.sum(axis=1, keepdims=True), 1.0)          # tab_j / tab_j.
        for entry, node, surv, pb, z, leaf in _walk(a, X, M):
            pos = z > 0            # only points outside a node's box can branch off there
            if pos.any():
                nd = node[pos]
                ed = _expected_discount(z[pos], gamma * a["span"][nd])[:, None]
                branch = (1.0 - ed) * T[nd] + ed * GP[nd]
                out[entry[pos]] += (surv[pos] * pb[pos])[:, None] * branch
            if leaf.any():
                w = surv[leaf] * (1.0 - pb[leaf])
                out[entry[leaf]] += w[:, None] * G[node[leaf]]
        return out.reshape(M, N, K).mean(axis=0)

    def predict(self, X):
        """Most probable class."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
