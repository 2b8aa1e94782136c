"""Mondrian forests: batch and online training, smoothing, predictive uncertainty.

A Mondrian tree over data (Lakshminarayanan, Roy and Teh 2014, Section 3; Lakshminarayanan,
"Mondrian Forests", talk slides with Roy and Teh) is a Mondrian process restricted to the
bounding boxes of the points in each node: a node with box ``[lower, upper]`` born at
time ``birth`` is cut at ``birth + Exp(sum(upper - lower))`` (if before the lifetime), in
a dimension chosen proportionally to the side lengths, uniformly within the box.

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
``partial_fit`` inserts the points of one call together, with the same
distribution (``TreeStore.extend``).

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
  This is a variant of the hierarchical Gaussian prior of Lakshminarayanan, Roy
  and Teh (AISTATS 2016), whose increments have variance
  ``variance_coef * (sigmoid(c t_j) - sigmoid(c t_parent))`` (a sigmoid of time,
  so deep nodes barely move) and whose branch-off prediction adds the variance at
  the expected cut time (an approximation they note). Here the increments are
  linear in time, which makes every leaf's prior ``N(m, prior_variance)``, the
  factorised model's, and the branch-off average exact.
* Classification: the hierarchical normalized stable process prior with the
  interpolated Kneser-Ney approximation of the slides: with ``c_jk`` the count
  of label ``k`` in leaf ``j`` (for an internal node, the number of its children
  holding label ``k``), ``tab_jk = min(c_jk, 1)`` and discount
  ``d_j = exp(-gamma * (t_j - t_parent))``,
  ``G_jk = (c_jk - d_j tab_jk) / c_j + d_j tab_j / c_j * G_parent,k``
  (``G_parent = G_j`` if ``c_j = 0``), the root's parent being uniform.
  A point that branches off above node ``j`` sits in a new empty leaf below a new
  node ``P`` inserted above ``j``; ``P``'s counts are those of an internal node,
  the tables of its children, ``tab_j`` (the new leaf is empty). The authors' code
  (balajiln/mondrianforest, ``predict_class``) gives ``P`` the counts of ``j``
  itself, which weighs ``j``'s labels more; both use the expected discount over
  the truncated exponential cut time.

References
----------
Lakshminarayanan, Roy and Teh, "Mondrian forests: efficient online random
forests", NIPS 2014, and "Mondrian forests for large-scale regression when
uncertainty matters", AISTATS 2016; B. Lakshminarayanan, "Mondrian Forests" (talk slides
with D. M. Roy and Y. W. Teh: online training, hierarchical smoothing, uncertainty).
Balog, Lakshminarayanan, Ghahramani, Roy and Teh, "The Mondrian Kernel",
UAI 2016, Section 6 and Proposition 5 (main text and supplementary material).
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from mondrian_core._docstrings import docfiller, fill_doc, params, sections
from mondrian_core._stable import merge_moments
from mondrian_core._validation import (
    check_choice,
    check_count,
    check_is_fitted,
    check_lifetime,
    check_partial_fit_classes,
    check_points,
    check_random_state,
    check_real,
    check_target,
)
from mondrian_core.errors import InputError
from mondrian_core.forest.tree_store import (
    TreeStore,
    expected_discount,
    path_view,
    truncated_exp_moments,
    walk_by_columns,
)
from mondrian_core.trees import nodes_by_depth, sample_mondrian_trees

#: Largest points x trees of one partial_fit call (its working arrays hold one row per pair).
MAX_ONLINE_UPDATES = 2_000_000
#: The most trees a forest takes: each tree holds arrays from the start, and far fewer
#: already average out the trees' randomness (a billion trees asked for 7 GiB).
MAX_ESTIMATORS = 100_000
#: A classifier's first prediction after an update computes the distributions along the
#: points' paths only up to this many (points x trees), else every node's once (kept
#: until the next update).
ALONG_PATHS = 1_000
#: ... and only if the forest has at least this many nodes per (point, tree): a level of
#: the path walk costs a dozen array calls more than the whole forest's table, so on a
#: small forest the table is cheaper (measured, 10 trees: 90 test points after each
#: batch of an online run of 210 points, 59 -> 40 ms a run; along the paths at 1,000
#: points x trees, from about 10,000 nodes).
NODES_PER_PATH = 10


def _kneser_ney(counts, tab, d, GP):
    """One step of interpolated Kneser-Ney down a tree: the nodes' distributions G from
    their counts, tables (``tab``: labels present), discounts ``d`` and parents' G (rows:
    nodes)."""
    c = counts.sum(axis=1, keepdims=True)
    t = tab.sum(axis=1, keepdims=True)
    dn = d[:, None]
    safe = np.where(c > 0, c, 1.0)
    return np.where(c > 0, (counts - dn * tab) / safe + dn * t / safe * GP, GP)


class _MondrianForestBase(BaseEstimator):
    """Shared batch/online machinery (trees in a :class:`TreeStore`)."""

    def _check_params(self) -> None:
        """Check the parameters, once per set of values (a learner fed one point per
        call would otherwise spend a good part of each call re-checking them)."""
        values = tuple([(type(v), v) for v in map(self.__getattribute__, self._checked_names)])
        if self.__dict__.get("_checked_params") == values:
            return
        check_count(self.n_estimators, "n_estimators", maximum=MAX_ESTIMATORS)
        check_lifetime(self.lifetime)
        self._check_more_params()
        self._checked_params = values

    def _check_X(self, X, reset: bool) -> np.ndarray:
        return check_points(X, estimator=self, reset=reset)

    def _point_stats(self, y):  # (N, n_stats)
        raise NotImplementedError

    def _fit_trees(self, X, y):
        self._rng = check_random_state(self.random_state)
        trees = sample_mondrian_trees(X, self.n_estimators, self.lifetime, random_state=self._rng)
        self.trees_ = TreeStore.from_trees(trees, self._point_stats(y))
        self.n_features_in_ = X.shape[1]
        self._memo = {}  # what predictions need, filled by the first one after a change

    def _partial_fit_trees(self, X, y):
        if X.shape[0] * self.n_estimators > MAX_ONLINE_UPDATES:
            raise InputError(
                f"Adding {X.shape[0]:,} points to {self.n_estimators:,} trees in one call is "
                f"{X.shape[0] * self.n_estimators:,} online updates (limit "
                f"{MAX_ONLINE_UPDATES:,} per call); pass fewer points per partial_fit, use fewer "
                "trees, or fit in one batch.")
        if not hasattr(self, "trees_"):
            self._rng = check_random_state(self.random_state)
            self.trees_ = TreeStore(self.n_estimators, X.shape[1], self.lifetime,
                                     self._n_stats())
            self.n_features_in_ = X.shape[1]
        # the whole call at once: distributed as inserting the points one by one
        ops, where = self.trees_.extend(X, self._point_stats(y), self._rng)
        self.last_operations_ = ops
        self.last_operation_nodes_ = where
        self._memo = {}

    # ------------------------------------------------------------ inspection
    def tree_structure(self, tree: int = 0) -> dict:
        """Return arrays describing one tree, for pictures.

        Parameters
        ----------
        tree : int, default=0
            The tree's index, in ``[0, n_estimators)``.

        Returns
        -------
        dict of str to ndarray
            ``ids`` (the tree's node ids) and, aligned with them, ``parent``,
            ``left``, ``right`` (``-1`` where absent), ``split_time``, ``split_dim``,
            ``split_loc``, ``lower``, ``upper`` (the node's box), ``depth``,
            ``is_leaf``, ``birth`` and ``end`` (the node's time interval).
        """
        check_is_fitted(self, "trees_")
        a = self.trees_.arrays()
        ids = np.flatnonzero(a["tree"] == tree)
        out = {k: a[k][ids] for k in ("parent", "left", "right", "split_time", "split_dim",
                                      "split_loc", "lower", "upper", "depth", "is_leaf",
                                      "birth", "end")}
        out["ids"] = ids
        return out

    def tree_summary(self) -> dict:
        """Summarise every tree: number of leaves, maximum leaf depth, split times.

        Returns
        -------
        dict
            ``n_leaves`` and ``max_depth`` (int arrays of shape (n_estimators,)) and
            ``split_times`` (a list of sorted arrays, one per tree).
        """
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
        Number of Mondrian trees M, >= 1.
    lifetime : float, default=1.0
        Lifetime lambda of the Mondrian processes (inverse length scale, units of
        inverse ``X``), finite and >= 0; larger lifetimes give finer trees.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Randomness of the trees and of their online extensions (see
        :func:`~mondrian_core.check_random_state`).
    noise_variance : float or None, default=None
        Observation noise sigma^2 (units of ``y`` squared, > 0); None: 0.1 times
        ``prior_variance``.
    prior_variance : float or None, default=None
        Prior variance of a leaf's mean (> 0); None: the variance of the targets
        seen so far.
    smoothing : {"hierarchical", "none"}, default="hierarchical"
        "none" is the factorised Gaussian prior of Balog et al. (2016, Prop. 5):
        each leaf value is a ridge estimate with ratio noise/prior; "hierarchical"
        is the Brownian-motion prior on the tree (Lakshminarayanan et al. 2016).

    Attributes
    ----------
    trees_ : mondrian_core.forest.tree_store.TreeStore
        The trees' nodes (see :meth:`tree_structure`).
    n_features_in_ : int
        Number of features of the points seen in ``fit`` or the first ``partial_fit``.
    y_mean_ : float
        Mean of the targets seen so far: the prior mean ``m`` of every leaf.
    y_var_ : float
        Variance of the targets seen so far (the default ``prior_variance``).
    last_operations_ : ndarray of int8, shape (n_points, n_estimators)
        The operation each point of the last ``partial_fit`` caused in each tree
        (codes in ``OPERATION_NAMES``: no change, extend, insert above, split leaf).
        The points of one call meet the trees as they were before it; each split
        added is credited to one point (see ``TreeStore.extend``).
    last_operation_nodes_ : ndarray of int64, shape (n_points, n_estimators)
        The node at which each of those operations happened.

    See Also
    --------
    MondrianForestClassifier : The same trees for classification.
    mondrian_core.MondrianFeatures : The Mondrian kernel, which fits all trees jointly.

    References
    ----------
    Lakshminarayanan, Roy and Teh (2014), "Mondrian Forests: Efficient Online Random
    Forests", NIPS; Lakshminarayanan, Roy and Teh (2016), "Mondrian Forests for
    Large-Scale Regression when Uncertainty Matters", AISTATS; Balog,
    Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel", UAI,
    sec. 6 and Proposition 5.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import MondrianForestRegressor, regression_surface_2d
    >>> data = regression_surface_2d(n=200, random_state=0)
    >>> X, y = data.X, data.y
    >>> forest = MondrianForestRegressor(n_estimators=10, lifetime=5.0, random_state=0).fit(X, y)
    >>> mean, std = forest.predict(X[:3], return_std=True)
    >>> mean.shape, bool(np.all(std > 0))
    ((3,), True)
    >>> forest = forest.partial_fit(X[:20] + 0.5, y[:20])  # online: more data, same trees grown
    >>> bool(forest.score(X, y) > 0.8)
    True
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
        stats = np.empty((y.size, 2))
        stats[:, 0] = 1.0
        stats[:, 1] = y
        return stats

    _checked_names = ("n_estimators", "lifetime", "smoothing", "noise_variance",
                      "prior_variance")

    def _check_more_params(self):
        check_choice(self.smoothing, "smoothing", ("hierarchical", "none"))
        # their ratio and the Brownian variance prior / lifetime must stay finite numbers
        for name in ("noise_variance", "prior_variance"):
            check_real(getattr(self, name), name, minimum=1e-100, maximum=1e100,
                       allow_none=True)
        if 0 < self.lifetime < 1e-100:
            raise InputError(f"lifetime {self.lifetime:g} is below 1e-100 (a tree that "
                             "never cuts); use 0 or a lifetime of at least 1e-100.")

    def _check(self, X, y, reset=True):
        self._check_params()
        X = self._check_X(X, reset)
        return X, check_target(y, X, estimator=self)

    def _merged_moments(self, y, reset):
        """The count, mean and sum of squared deviations of every target seen, with ``y``.

        Merged by Chan, Golub and LeVeque's (1983) pairwise update: E[y^2] - mean^2 loses
        every digit when the targets sit far from 0 (y + 1e9 gave a variance of 0), and
        running sums of squares overflow across calls whose targets each pass. Raises
        before anything is changed when the spread itself cannot be held.
        """
        old = (0, 0.0, 0.0) if reset else self._moments
        moments = merge_moments(old, y)
        if not np.isfinite(moments[2]):
            raise InputError("The targets seen so far spread too widely for their variance to "
                             "be a finite number; rescale y (e.g. divide by its standard "
                             "deviation) and fit again.")
        return moments

    def _store_moments(self, moments):
        self._moments = moments
        n, mean, m2 = moments
        self.y_mean_ = mean
        self.y_var_ = m2 / n

    def fit(self, X, y):
        """Sample the trees on ``(X, y)`` in one batch and fit every tree's leaves.

        Parameters
        ----------
        X : array-like of shape (N, D)
            Training points (finite).
        y : array-like of shape (N,)
            Targets (finite).

        Returns
        -------
        MondrianForestRegressor
            The fitted forest.

        Raises
        ------
        InputError
            If the data or a parameter is invalid.
        """
        X, y = self._check(X, y)
        moments = self._merged_moments(y, reset=True)
        self._fit_trees(X, y)
        self._store_moments(moments)
        self._node_posterior()
        return self

    def partial_fit(self, X, y):
        """Add points online (conditional Mondrian): same distribution as a batch fit.

        The points are added one after the other, each extending every tree
        (Lakshminarayanan, Roy and Teh 2014); the first call starts empty trees.

        Parameters
        ----------
        X : array-like of shape (n, D)
            New points.
        y : array-like of shape (n,)
            Their targets.

        Returns
        -------
        MondrianForestRegressor
            The updated forest; ``last_operations_`` says what each point did.

        Raises
        ------
        InputError
            If the data is invalid, or ``n * n_estimators`` exceeds
            ``MAX_ONLINE_UPDATES``.
        """
        fitted = hasattr(self, "trees_")
        X, y = self._check(X, y, reset=not fitted)
        moments = self._merged_moments(y, reset=not fitted)
        self._partial_fit_trees(X, y)
        self._store_moments(moments)
        return self

    # ------------------------------------------------------------ posterior
    def _variances(self):
        prior = self.prior_variance if self.prior_variance is not None else (
            self.y_var_ if self.y_var_ > 0 else 1.0)
        noise = self.noise_variance if self.noise_variance is not None else 0.1 * prior
        return float(noise), float(prior)

    def _node_posterior(self):
        """Posterior mean/variance (centred at m) of every node's mean, and cov with parent.

        ``fit`` computes it; ``partial_fit`` leaves it to the first prediction after it
        (a forest fed point by point pays for it when it is asked, not at every point),
        which keeps it in the memo ``fit`` and ``partial_fit`` empty. A posterior for other
        parameters (changed since by ``set_params``) is computed afresh and not kept, so
        predicting never changes what the fit left.
        """
        a = self.trees_.arrays()
        noise, prior = self._variances()
        key = (noise, prior, self.smoothing, self.y_mean_)
        memo = self.__dict__.get("_memo", {})  # none in a forest assembled by hand
        stored = memo.get("posterior")
        if stored is not None and stored[0] is a and stored[2] == key:
            return stored[1]
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
        if stored is None:
            memo["posterior"] = (a, post, key)
        return post

    def _belief_propagation(self, a, n, s, noise, prior):
        kappa = prior / a["lifetime"] if a["lifetime"] > 0 else 0.0
        q = kappa * (a["end"] - a["birth"])              # Brownian variance to the parent
        parent, depth, leaf = a["parent"], a["depth"], a["is_leaf"]
        pi = np.where(leaf, n / noise, 0.0)                # likelihood precision of data below
        h = np.where(leaf, s / noise, 0.0)
        levels = nodes_by_depth(depth)
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
        """Return the posterior mean of every node's value, in units of ``y``.

        Returns
        -------
        ndarray of shape (n_nodes,)
            One value per node of all trees (for leaves, the fitted leaf values).
        """
        check_is_fitted(self, "trees_")
        return self._node_posterior()["E"] + self.y_mean_

    @fill_doc
    def predict(self, X, return_std=False, include_noise=True):
        """Return the predictive mean (and standard deviation), averaged over extensions.

        The standard deviation is that of the forest's predictive mixture
        (equal-weight mixture of the trees' predictive distributions, each the
        closed-form mixture over where X branches off). Far from the data every
        tree branches off at the root and the prediction tends to the prior,
        ``N(m, prior_variance + noise_variance)``; on the way the mixture's std
        may overshoot that level slightly.

        Parameters
        ----------
        X : array-like of shape (n, D)
            Test points.
        return_std : bool, default=False
            Also return the predictive standard deviation.
        include_noise : bool, default=True
            Include the observation noise (the spread of a new ``y``); False gives
            the standard deviation of the function value (the mean of ``y``).

        %(predict_returns)s
        """
        check_is_fitted(self, "trees_")
        X = self._check_X(X, reset=False)
        a = self.trees_.arrays()
        post = self._node_posterior()
        noise, prior = self._variances()
        M, N = self.n_estimators, X.shape[0]
        mean = np.zeros(M * N)
        second = np.zeros(M * N)
        # the coefficients by column: one gather per column and level, not a row each
        c0, c1, c2, c3, c4 = np.ascontiguousarray(post["branch"].T)
        l0, l1 = np.ascontiguousarray(post["leaf"].T)
        for entry, node, surv, pb, z, leaf in walk_by_columns(a, X, M):
            pos = z > 0            # only points outside a node's box can branch off there
            if pos.any():
                e, n, w = entry[pos], node[pos], surv[pos] * pb[pos]
                eu, eu2 = truncated_exp_moments(z[pos])
                mean[e] += w * (c0.take(n) + c1.take(n) * eu)
                second[e] += w * (c2.take(n) + c3.take(n) * eu + c4.take(n) * eu2)
            if leaf.any():
                e, n, w = entry[leaf], node[leaf], surv[leaf] * (1.0 - pb[leaf])
                mean[e] += w * l0.take(n)
                second[e] += w * l1.take(n)
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


@docfiller({"trees": params(MondrianForestRegressor.__doc__, "n_estimators", "lifetime")})
class MondrianForestClassifier(ClassifierMixin, _MondrianForestBase):
    """Mondrian forest classification, batch or online, with hierarchical smoothing.

    Each tree predicts with the hierarchical normalized stable process prior
    and its interpolated Kneser-Ney approximation (Lakshminarayanan's "Mondrian
    Forests" slides, "Interpolated Kneser-Ney smoothing"; Lakshminarayanan et al. 2014): at a
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
    %(trees)s
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Randomness of the trees and of their online extensions (see
        :func:`~mondrian_core.check_random_state`).
    discount_rate : float or None, default=None
        The rate gamma (>= 0, units of inverse lifetime) in ``d = exp(-gamma * time
        difference)``; None: 10 times the linear dimension (sum of side lengths) of
        the data's bounding box, i.e. the paper's ``10 D`` for data filling the unit
        cube.

    Attributes
    ----------
    classes_ : ndarray
        The labels, sorted, in the order of ``predict_proba``'s columns.
    trees_ : mondrian_core.forest.tree_store.TreeStore
        The trees' nodes (see :meth:`tree_structure`).
    n_features_in_ : int
        Number of features of the points seen in ``fit`` or the first ``partial_fit``.
    last_operations_ : ndarray of int8, shape (n_points, n_estimators)
        The operation each point of the last ``partial_fit`` caused in each tree
        (codes in ``OPERATION_NAMES``).
    last_operation_nodes_ : ndarray of int64, shape (n_points, n_estimators)
        The node at which each of those operations happened.

    See Also
    --------
    MondrianForestRegressor : The same trees for regression.

    References
    ----------
    Lakshminarayanan, Roy and Teh (2014), "Mondrian Forests: Efficient Online Random
    Forests", NIPS.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import MondrianForestClassifier, two_moons
    >>> data = two_moons(n=300, random_state=0)
    >>> clf = MondrianForestClassifier(n_estimators=10, lifetime=5.0, random_state=0)
    >>> clf = clf.fit(data.X, data.y)
    >>> clf.predict_proba(data.X[:2]).shape, bool(clf.score(data.X, data.y) > 0.9)
    ((2, 2), True)
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

    _checked_names = ("n_estimators", "lifetime", "discount_rate")

    def _check_more_params(self):
        check_real(self.discount_rate, "discount_rate", allow_none=True)

    def _check(self, X, y, reset=True):
        self._check_params()
        X = self._check_X(X, reset)
        return X, check_target(y, X, classifier=True, estimator=self,
                               classes=None if reset else getattr(self, "classes_", None))

    def _encode(self, y):
        idx = np.searchsorted(self.classes_, y)
        idx = np.minimum(idx, len(self.classes_) - 1)
        if not np.all(self.classes_[idx] == y):
            unknown = np.setdiff1d(y, self.classes_)
            raise InputError(f"labels {unknown[:5].tolist()} are not among classes "
                             f"{self.classes_.tolist()}; pass all classes to the first partial_fit.")
        return idx

    @docfiller({"X": params(MondrianForestRegressor.fit.__doc__, "X"),
                "raises": sections(MondrianForestRegressor.fit.__doc__, "Raises")})
    def fit(self, X, y):
        """Sample the trees on ``(X, y)`` in one batch.

        Parameters
        ----------
        %(X)s
        y : array-like of shape (N,)
            Class labels.

        Returns
        -------
        MondrianForestClassifier
            The fitted forest.

        %(raises)s
        """
        X, y = self._check(X, y)
        self.classes_ = np.unique(y)
        self._fit_trees(X, self._encode(y))
        return self

    def partial_fit(self, X, y, classes=None):
        """Add points online, one after the other (conditional Mondrian).

        Parameters
        ----------
        X : array-like of shape (n, D)
            New points.
        y : array-like of shape (n,)
            Their labels, all among ``classes``.
        classes : array-like, optional
            Every label the forest will see; required on the first call.

        Returns
        -------
        MondrianForestClassifier
            The updated forest.

        Raises
        ------
        InputError
            If the data is invalid, ``classes`` is missing or empty on the first call or
            differs from it on a later call, or a label is not among the classes.
        """
        fitted = hasattr(self, "trees_")
        given = check_partial_fit_classes(classes, self.classes_ if fitted else None)
        X, y = self._check(X, y, reset=not fitted)
        if not fitted:
            self.classes_ = given
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
        for nodes in nodes_by_depth(depth):
            p = parent[nodes]
            GP = np.where((p >= 0)[:, None], G[np.maximum(p, 0)], 1.0 / K)
            G[nodes] = _kneser_ney(counts[nodes], tab[nodes], d[nodes], GP)
        return G, tab, gamma

    def _distributions(self, a):
        """Per node: G, the parent's G, ``tab_j / tab_j.`` and gamma; computed by the
        first prediction after ``fit``/``partial_fit`` and kept in the memo they empty
        (for another ``discount_rate``, set since, computed afresh and not kept)."""
        memo = self.__dict__.get("_memo", {})  # none in a forest assembled by hand
        stored = memo.get("distributions")
        if stored is not None and stored[0] is a and stored[1] == self.discount_rate:
            return stored[2]
        G, tab, gamma = self._node_distributions(a)
        p = a["parent"]
        GP = np.where((p >= 0)[:, None], G[np.maximum(p, 0)], 1.0 / G.shape[1])  # parent's G
        T = tab / np.maximum(tab.sum(axis=1, keepdims=True), 1.0)               # tab_j / tab_j.
        out = (G, GP, T, gamma)
        if stored is None:
            memo["distributions"] = (a, self.discount_rate, out)
        return out

    def predict_proba(self, X):
        """Return class probabilities, averaged over the trees and the extensions.

        Parameters
        ----------
        X : array-like of shape (n, D)
            Test points.

        Returns
        -------
        ndarray of shape (n, n_classes)
            Probabilities, columns in ``classes_`` order; rows sum to one.
        """
        check_is_fitted(self, "trees_")
        X = self._check_X(X, reset=False)
        M, N, K = self.n_estimators, X.shape[0], len(self.classes_)
        memo = self.__dict__.get("_memo", {})
        if ("distributions" not in memo and N * M <= ALONG_PATHS
                and N * M * NODES_PER_PATH <= self.trees_.n_nodes):
            return self._predict_proba_along_paths(X)
        a = self.trees_.arrays()
        G, GP, T, gamma = self._distributions(a)
        discount = gamma * a["span"]
        out = np.zeros((M * N, K))
        for entry, node, surv, pb, z, leaf in walk_by_columns(a, X, M):
            self._add_terms(out, entry, surv, pb, z, leaf, node, G, GP, T, discount)
        return out.reshape(M, N, K).mean(axis=0)

    @staticmethod
    def _add_terms(out, entry, surv, pb, z, leaf, rows, G, GP, T, discount):
        """Add one level of the walk to the predictive: at each (tree, point) entry, the
        chance of branching off in the node's interval (a new node whose distribution
        interpolates ``tab_j / tab_j.`` and the parent's G) and, at a leaf, of staying in
        it. G, GP, T and ``discount`` (gamma x span) are tables whose rows ``rows`` are the
        entries' nodes'."""
        pos = z > 0            # only points outside a node's box can branch off there
        if pos.any():
            r = rows[pos]
            ed = expected_discount(z[pos], discount[r])[:, None]
            branch = (1.0 - ed) * T[r] + ed * GP[r]
            out[entry[pos]] += (surv[pos] * pb[pos])[:, None] * branch
        if leaf.any():
            out[entry[leaf]] += (surv[leaf] * (1.0 - pb[leaf]))[:, None] * G[rows[leaf]]

    def _predict_proba_along_paths(self, X):
        """:meth:`predict_proba` computing G top-down along the points' paths only.

        The first prediction after an update would otherwise derive every node's
        distribution (the forest's size, per prediction of a test-then-train loop); the
        steps along a path are those of :meth:`_node_distributions`, node for node, so
        the result is the same.
        """
        v = path_view(self.trees_)
        gamma = self._gamma(v)
        M, N, K = self.n_estimators, X.shape[0], len(self.classes_)
        out = np.zeros((M * N, K))
        GP = None
        stats, left, right = v["stats"], v["left"], v["right"]
        for entry, node, surv, pb, z, leaf in walk_by_columns(v, X, M):
            if GP is None or not len(GP):  # at the roots (walk's first level of a group)
                GP = np.full((node.size, K), 1.0 / K)
            raw = stats[node]
            tab = (raw > 0).astype(float)
            counts = raw.copy()  # leaves: their counts; inner nodes: their children's tables
            inner = ~leaf
            counts[inner] = ((stats[left[node[inner]]] > 0).astype(float)
                             + (stats[right[node[inner]]] > 0))
            discount = gamma * v["span"][node]
            G = _kneser_ney(counts, tab, np.exp(-discount), GP)
            T = tab / np.maximum(tab.sum(axis=1, keepdims=True), 1.0)
            self._add_terms(out, entry, surv, pb, z, leaf, np.arange(node.size), G, GP, T,
                            discount)
            # the walk goes on with the entries not at a leaf, in order; when none is
            # left, its next level (if any) starts the next group of trees at their roots
            GP = G[inner]
        return out.reshape(M, N, K).mean(axis=0)

    @docfiller({"X": params(predict_proba.__doc__, "X", section=True)})
    def predict(self, X):
        """Return the most probable class of each point.

        %(X)s

        Returns
        -------
        ndarray of shape (n,)
            Labels from ``classes_``.
        """
        check_is_fitted(self, "trees_")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
