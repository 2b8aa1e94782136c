"""Aggregated Mondrian forests: online forests that need no lifetime.

Mourtada, Gaïffas and Scornet (2021) grow each Mondrian tree online with an infinite
lifetime (every point that lands outside its leaf's box splits it off: the tree keeps
refining) and predict with an exact Bayesian mixture over all prunings of the tree
instead of choosing a depth. This module builds them on the flat
:class:`~mondrian_core.forest.tree_store.TreeStore` and its conditional-Mondrian
insertion.

Per node ``v`` the trees keep (section 3 of the paper; context-tree weighting, Willems,
Shtarkov and Tjalkens 1995):

* a node prediction ``ŷ_v`` from the points below it: for classification the
  Krichevsky-Trofimov / Jeffreys estimate ``(n_v(k) + a) / (n_v + a K)`` (``a`` the
  ``dirichlet`` parameter), for regression their mean;
* a log-weight ``log w_v = -step * sum of loss(ŷ_v before x_s, y_s)`` over the points
  ``s`` that reached ``v`` while it held at least one point (a node is charged with
  every point that finds it non-empty; a leaf is not charged with the point that
  created it, and a split inserted above ``j`` inherits ``j``'s history, as the paper's
  algorithm, onelearn and River do). The loss is the log-loss ``-log ŷ_v(y)``, or
  ``(ŷ_v - y)^2 / 2`` for regression (River's and onelearn's scaling; the paper's
  analysis takes the square loss with ``step <= 1 / (8 B^2)`` for ``|y| <= B``);
* ``log w̄_v``: ``log w_v`` at a leaf, else ``log(w_v / 2 + w̄_left w̄_right / 2)``.

With the prior ``π(T) = 2^-(number of nodes of T that are not leaves of the full
tree)`` over prunings ``T``, ``w̄_root`` is the sum of ``π(T)`` times the product of
``w`` over ``T``'s leaves, and the prediction at ``x``, the posterior mixture of the
prunings' predictions, is computed along ``x``'s path, from the root down:
``ŷ(x) = sum_v c_v ŷ_v`` with ``c_v = a_v prod_{u above v} (1 - a_u)``,
``a_v = w_v / (2 w̄_v)`` (``a = 1`` at the leaf). The forest averages its trees.

Where the paper is silent this follows onelearn and River: the default ``step = 1``
and ``dirichlet = 0.5``, ``split_pure`` (a node whose points all carry the new point's
label is not split, which stops trees growing inside pure regions), and predictions
at points outside the trees' boxes read the leaf their splits lead to. Unlike River's
and onelearn's node score, whose denominator already counts the point being scored
(``(n(k) + a) / (n + 1 + a K)`` at the update, not a probability), ``ŷ_v`` here is the
paper's estimate from the points before.

Updates are exact for any batch. With numba installed (``pip install
mondrian-explorer[fast]``; ``MONDRIAN_CORE_JIT=0`` turns it off) every call learns its
points one by one in compiled code (:mod:`mondrian_core.forest._amf_jit`), which takes
the Python path's steps and random numbers in the same order. Without it, the points of
one ``partial_fit`` call are inserted together (distributed as one by one,
``TreeStore.extend``) and each point's losses are then read, in the stream's order,
from the statistics of the points before it in each node of its path, all at once
across points, trees and path levels.

References
----------
Mourtada, Gaïffas and Scornet (2021), "AMF: Aggregated Mondrian forests for online
learning", JRSS-B 83(3), sections 2-3. Willems, Shtarkov and Tjalkens (1995), "The
context-tree weighting method: basic properties", IEEE Trans. Inf. Theory 41(3).
Lakshminarayanan, Roy and Teh (2014), "Mondrian Forests: Efficient Online Random
Forests", NIPS.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from mondrian_core._validation import (
    check_choice,
    check_count,
    check_is_fitted,
    check_partial_fit_classes,
    check_points,
    check_random_state,
    check_real,
    check_target,
)
from mondrian_core.errors import InputError
from mondrian_core.forest import _amf_jit, tree_store
from mondrian_core.forest.estimators import (
    MAX_ESTIMATORS,
    MAX_ONLINE_UPDATES,
    MondrianForestClassifier,
)
from mondrian_core.forest.tree_store import TreeStore

_LOG2 = math.log(2.0)
#: Calls with at most this many (points x trees) walk the trees in Python and learn
#: their points one at a time (see ``_AMFBase._learn_point``); larger ones walk all
#: (point, tree) pairs a level at a time and charge all points at once.
_SCALAR_WALKS = 64


def _padded(paths: list) -> np.ndarray:
    """Paths (lists of node ids) as the rows of an int matrix padded with -1."""
    width = max(map(len, paths))
    return np.array([p + [-1] * (width - len(p)) for p in paths], dtype=np.int64)


def _charge_paths_up(paths, charge, left, right, lw, lwt):
    """Charge one point's disjoint paths (one per tree) and update ``w̄`` up them, from
    the leaf: ``log w_v -= charge`` (``charge`` aligned with the paths, concatenated),
    then ``w̄_v = log(w_v / 2 + w̄_sibling w̄_child / 2)``; the siblings off the paths
    keep theirs. Python numbers on lists: a few operations per node, where a round of
    array calls per depth level costs more."""
    log1p, exp, log2 = math.log1p, math.exp, _LOG2
    end = 0
    for path in paths:
        start, end = end, end + len(path)
        child = path[-1]
        cur = lwt[child] = lw[child] = lw[child] - charge[end - 1]
        for j, c in zip(path[-2::-1], reversed(charge[start:end - 1])):
            a = lw[j] = lw[j] - c
            b = lwt[left[j] + right[j] - child] + cur
            cur = (a + log1p(exp(b - a)) if a > b else b + log1p(exp(a - b))) - log2
            lwt[j] = cur
            child = j


def _charges_on_new_paths(charge, lengths, paths, n0):
    """Move the charges of a point's paths before its insertion (``charge``, the paths
    of ``lengths`` concatenated) to its paths after it (``paths``): where a split was
    inserted above the path's node at depth ``k``, the new path is the old one to depth
    ``k - 1``, the split (it holds that node's points: its charge) and the new leaf
    (no points before this one: charge 0)."""
    out, start = [], 0
    for path, length in zip(paths, lengths, strict=True):
        if path[-1] >= n0:  # a new leaf
            out += charge[start:start + len(path) - 1]
            out.append(0.0)
        else:
            out += charge[start:start + length]
        start += length
    return out


class _AMFBase(BaseEstimator):
    """The trees, the log-weights and the exact update and prediction."""

    # ------------------------------------------------------------ checks
    def _check_params(self):
        values = [(type(v), v) for v in map(self.__getattribute__, self._checked_names)]
        if self.__dict__.get("_checked_params") == values:
            return
        check_count(self.n_estimators, "n_estimators", maximum=MAX_ESTIMATORS)
        check_real(self.step, "step", strict=True)
        self._check_more_params()
        self._checked_params = values

    def _start(self, D):
        self._rng = check_random_state(self.random_state)
        self.trees_ = TreeStore(self.n_estimators, D, math.inf, self._n_stats())
        self.n_features_in_ = D
        self._log_weight = np.zeros(0)
        self._log_weight_tree = np.zeros(0)
        self.n_seen_ = 0
        self._memo = None
        self._draws = _amf_jit.Draws()

    # log w and log w-bar per node are kept either as arrays with spare capacity
    # (doubled when full, so that new nodes cost O(1)) for the batch paths, or as Python
    # lists for the one-point paths, which read and write them node by node (an item of
    # a list in ~10 ns, of an array in ~100); a switch copies them once
    @property
    def log_weight_(self) -> np.ndarray:
        """``log w_v`` per node, shape (n_nodes,).

        Minus the step times the losses charged to the node (see
        :mod:`mondrian_core.forest.amf`).
        """
        return self._weights_read(0)

    @property
    def log_weight_tree_(self) -> np.ndarray:
        """``log w̄_v`` per node, shape (n_nodes,).

        The weight of the prunings of the subtree below the node (see
        :mod:`mondrian_core.forest.amf`).
        """
        return self._weights_read(1)

    def _weights_read(self, which):
        """``log w`` (0) or ``log w̄`` (1) as an array of n_nodes, without switching:
        a view of the arrays, or a copy of the lists."""
        n = self.trees_.n_nodes
        lists = self.__dict__.get("_weight_lists")
        if lists is not None:
            return np.array(lists[which][:n], dtype=float)
        return (self._log_weight, self._log_weight_tree)[which][:n]

    def _grow_weights(self, n):
        """Hold the weights as arrays with room for ``n`` nodes (new nodes: weight 1,
        log 0)."""
        lists = self.__dict__.get("_weight_lists")
        filled = len(lists[0]) if lists is not None else self._log_weight.size
        size = self._log_weight.size
        if max(n, filled) > size:
            size = max(n, filled, 2 * size, 64)
            for name in ("_log_weight", "_log_weight_tree"):
                grown = np.zeros(size)
                old = getattr(self, name)
                grown[:old.size] = old
                setattr(self, name, grown)
        if lists is not None:
            self._log_weight[:filled] = lists[0]
            self._log_weight_tree[:filled] = lists[1]
            self._log_weight[filled:] = self._log_weight_tree[filled:] = 0.0
            self._weight_lists = None

    def _weight_lists_for(self, n):
        """Hold the weights as Python lists of ``n`` items (new nodes: log 0); return
        them."""
        lists = self.__dict__.get("_weight_lists")
        if lists is None:
            m = min(n, self._log_weight.size)
            lists = self._weight_lists = (self._log_weight[:m].tolist(),
                                          self._log_weight_tree[:m].tolist())
        if len(lists[0]) < n:
            pad = [0.0] * (n - len(lists[0]))
            lists[0].extend(pad)
            lists[1].extend(pad)
        return lists

    # ------------------------------------------------------------ learning
    def _learn(self, X, y_code):
        N, M = X.shape[0], self.n_estimators
        if N * M > MAX_ONLINE_UPDATES:
            raise InputError(
                f"Adding {N:,} points to {M:,} trees in one call is {N * M:,} online updates "
                f"(limit {MAX_ONLINE_UPDATES:,} per call); pass fewer points per partial_fit "
                "or use fewer trees.")
        ps = self._point_stats(y_code)
        kernels = _amf_jit.kernels()
        if kernels is not None:  # compiled: one by one beats the joint draw at any size
            start = 0
            if self.trees_.n_nodes == 0:  # the first point starts the trees: no draw
                self._learn_point(X[0], ps[0], y_code[:1])
                start = 1
            self._learn_compiled(kernels, X[start:], ps[start:], y_code[start:])
        elif N * M <= _SCALAR_WALKS:
            for i in range(N):
                self._learn_point(X[i], ps[i], y_code[i:i + 1])
        else:
            self._learn_batch(X, ps, y_code)
        self.n_seen_ += N
        self._memo = None

    def _learn_point(self, x, ps, y_code):
        """Learn one point: walk each tree once (or take the walk of the prediction just
        made at ``x``), insert the point, and charge the nodes of its new paths."""
        store = self.trees_
        n0 = store.n_nodes
        memo, self._memo = self._memo, None
        walked = charge = None
        if memo is not None and memo[0] == x.tobytes():
            walked = memo[1]
            if n0 and len(memo) > 2:  # the prediction's node estimates give the losses
                charge = self._charges_from_prediction(memo[2], y_code[0])
                lengths = [len(p) for p in walked]  # before the insertion changes them
        M = self.n_estimators
        paths = store._extend_point(x, ps, self._rng, [0] * M, [-1] * M,
                                    getattr(self, "split_pure", True), walked)
        n = store.n_nodes
        lw, lwt = self._weight_lists_for(n)
        left, right = store.walk_lists()[:2]
        if n0:  # each new split holds the points of the old node below it
            for s in range(n0, n0 + (n - n0) // 2):  # the store numbers them first
                lc = left[s]
                lw[s] = lw[lc if lc < n0 else right[s]]
        if charge is None:
            v = np.fromiter(itertools.chain.from_iterable(paths), np.int64)
            loss, charged = self._node_loss(store.stats[v] - ps, y_code[0])
            charge = np.where(charged, self.step * loss, 0.0).tolist()
        else:
            charge = _charges_on_new_paths(charge, lengths, paths, n0)
        _charge_paths_up(paths, charge, left, right, lw, lwt)

    def _learn_compiled(self, kernels, X, ps, y):
        """Learn the rows one by one in compiled code (:mod:`._amf_jit`): the draws,
        trees and weights of :meth:`_learn_point` row after row."""
        N, M = X.shape[0], self.n_estimators
        if N == 0:
            return
        store = self.trees_
        store.reserve(2 * M * N)  # at most a split and a leaf per tree and row
        self._grow_weights(store.n_nodes + 2 * M * N)
        d = store._data
        draws = self.__dict__.get("_draws") or _amf_jit.Draws()
        self._draws = draws
        classify = hasattr(self, "classes_")
        Y = np.ascontiguousarray(y, dtype=float)
        X = np.ascontiguousarray(X, dtype=float)
        ps = np.ascontiguousarray(ps, dtype=float)
        done, width = 0, self.__dict__.get("_path_width", 64)
        while done < N:
            n, rows = kernels.learn_rows(
                X[done:], ps[done:], Y[done:], classify, float(self.step),
                float(getattr(self, "dirichlet", 0.0)), bool(getattr(self, "split_pure", True)),
                store.lifetime, store.roots, d["tree"], d["parent"], d["left"], d["right"],
                d["split_dim"], d["split_time"], d["split_loc"], d["lower"], d["upper"],
                d["stats"], store.n_nodes, self._log_weight, self._log_weight_tree,
                self._rng, draws.exps, draws.unis, draws.left,
                np.empty((M, width), dtype=np.int64))
            store._n = n
            done += rows
            if done < N:  # a path longer than the buffer: a wider one, then go on
                width = self._path_width = 2 * width
        store._lists = store._frozen = store._depth = None

    def _charges_from_prediction(self, pred, y_code):
        """The step times each node's loss at label ``y_code``, from the node estimates
        of a prediction made on the same trees (rows ``pred``), or None where they do
        not give the losses bit for bit (see the subclasses)."""
        return None

    def _learn_batch(self, X, ps, y_code):
        """Learn a batch: the store inserts it, then every point's charges are read
        from the final trees at once."""
        N, M = X.shape[0], self.n_estimators
        store = self.trees_
        n0 = store.n_nodes
        # for the joint draw, rows repeating an earlier row of the call are inserted
        # with it (they never split: they fall inside its leaf's box), so that it sees
        # distinct points only; rows inserted in order stay apart, as one by one (with
        # split_pure False a repeat with another label makes the leaf impure only from
        # its turn on)
        Xi, psi = X, ps
        pure = getattr(self, "split_pure", True)
        if pure and N * M > tree_store.SEQUENTIAL_UPDATES and N > 1:
            uniq, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
            if uniq.shape[0] < N:
                inverse = inverse.reshape(-1)
                psi = np.zeros((first.size, ps.shape[1]))
                np.add.at(psi, inverse, ps)
                order = np.argsort(first)  # first occurrences, in the stream's order
                Xi, psi = X[first[order]], psi[order]
        store.extend(Xi, psi, self._rng, split_pure=pure)
        self._grow_weights(store.n_nodes)
        self._inherit(n0)
        self._charge(ps, y_code, self._paths(X))

    def _inherit(self, n0):
        """New inner nodes above an old node take its log-weight: they hold the same old
        points, so their predictions on them were the same (section 3 of the paper)."""
        store = self.trees_
        n = store.n_nodes
        if n == n0 or n0 == 0:
            return
        left, right = store.left, store.right
        lw = self._log_weight
        new = np.arange(n0, n)
        # src: the old node whose points a node holds (itself if old), -2 if it holds
        # new points only, -1 while unknown; resolved from the new leaves up
        src = np.full(n, -1, dtype=np.int64)
        src[:n0] = np.arange(n0)
        src[new[left[new] < 0]] = -2
        need = new[left[new] >= 0]
        while need.size:
            lc, rc = left[need], right[need]
            ready = (src[lc] != -1) & (src[rc] != -1)
            v = need[ready]
            src[v] = np.maximum(src[lc[ready]], src[rc[ready]])
            has = src[v] >= 0
            lw[v[has]] = lw[src[v[has]]]
            need = need[~ready]

    def _paths(self, X):
        """The root-to-leaf path of every (point, tree), row ``point * M + tree`` of an
        int matrix padded with -1 (column = depth)."""
        store = self.trees_
        M, N = self.n_estimators, X.shape[0]
        if N * M <= _SCALAR_WALKS:  # a walk of Python numbers beats array calls per level
            return _padded([p for x in X.tolist() for p in store.walk_point(x)])
        return store.path_matrix(X)

    def _charge(self, ps, y_code, P):
        """Add each point's losses to the log-weights of its path's nodes (``P``, as
        :meth:`_paths` gives them), then update the subtree weights ``w̄`` bottom-up."""
        M = self.n_estimators
        row, col = np.nonzero(P >= 0)  # row-major: the call's points in stream order
        E = row.size
        # grouped by node, in stream order within a node: one sort of keys that carry
        # the entry's position (np.sort of int64 beats an argsort several times)
        key = np.sort(P[row, col] * E + np.arange(E))
        order = key % E
        vs, i = key // E, row[order] // M
        start = np.flatnonzero(np.r_[True, vs[1:] != vs[:-1]])
        end = np.repeat(np.r_[start[1:], E], np.diff(np.r_[start, E]))
        # a node's statistics before point i: its final ones minus those of the call's
        # points from i on that passed it (a suffix sum within the node's group), a
        # column at a time (contiguous sums)
        stats = self.trees_.stats
        before = np.empty((E, ps.shape[1]), order="F")
        tail = np.zeros(E + 1)
        for c in range(ps.shape[1]):
            np.cumsum(ps[:, c][i][::-1], out=tail[E - 1::-1])  # tail[p]: from p on
            np.subtract(stats[vs, c], tail[:E] - tail[end], out=before[:, c])
        loss, charged = self._node_loss(before, y_code[i])
        lw = self.log_weight_
        lw[vs[start]] -= self.step * np.add.reduceat(np.where(charged, loss, 0.0), start)
        self._tree_weights_up(P, col[order][start], vs[start])

    def _tree_weights_up(self, P, depth, nodes):
        """``w̄`` bottom-up over ``nodes`` (the distinct nodes of the paths ``P``, at
        ``depth``), one depth level at a time: the deeper ones are final first."""
        store = self.trees_
        lw, lwt = self.log_weight_, self.log_weight_tree_
        left, right = store.left, store.right
        by_depth = np.argsort(depth, kind="stable")
        bounds = np.searchsorted(depth[by_depth], np.arange(P.shape[1] + 1))
        for k in range(P.shape[1] - 1, -1, -1):
            level = nodes[by_depth[bounds[k]:bounds[k + 1]]]
            lc = left[level]
            value = lw[level]
            inner = lc >= 0
            if inner.any():
                ni = level[inner]
                value[inner] = np.logaddexp(value[inner], lwt[lc[inner]] + lwt[right[ni]]) - _LOG2
            lwt[level] = value

    # ------------------------------------------------------------ prediction
    def _path_coefficients(self, X):
        """The paths of :meth:`_paths` and the mixture's weight on each of their nodes:
        ``c_v = a_v prod_{u above v} (1 - a_u)``, ``a_v = w_v / (2 w̄_v)``, 1 at the leaf
        (0 in the padding)."""
        P = self._paths(X)
        valid = P >= 0
        node = np.where(valid, P, 0)
        inner = self.trees_.left[node] >= 0
        with np.errstate(over="ignore"):
            a = np.where(inner & valid,
                         0.5 * np.exp(self.log_weight_[node] - self.log_weight_tree_[node]),
                         valid.astype(float))
        keep = np.ones_like(a)
        np.cumprod(1.0 - a[:, :-1], axis=1, out=keep[:, 1:])
        return node, keep * a

    def _average(self, X):
        """The forest's prediction: the trees' aggregated predictions averaged,
        (N, n_outputs)."""
        M, N = self.n_estimators, X.shape[0]
        kernels = _amf_jit.kernels()
        if kernels is not None:
            out = np.empty((N, self._n_outputs()))
            s, d = self.trees_, self.trees_._data
            # read only (fitted models are shared between threads): no switch of the
            # weights' lists to arrays here
            kernels.predict_rows(
                np.ascontiguousarray(X, dtype=float), hasattr(self, "classes_"),
                float(getattr(self, "dirichlet", 0.0)), s.roots, d["left"], d["right"],
                d["split_dim"], d["split_loc"], d["stats"], self.log_weight_,
                self.log_weight_tree_, out)
            return out
        if N * M > _SCALAR_WALKS:
            node, coef = self._path_coefficients(X)
            pred = self._node_prediction(self.trees_.stats[node.reshape(-1)])
            out = np.einsum("rl,rlk->rk", coef, pred.reshape(*node.shape, -1))
            return out.reshape(N, M, -1).mean(axis=1)
        stats, out = self.trees_.stats, np.empty((N, self._n_outputs()))
        for i, x in enumerate(X):
            nodes, coef = self._point_coefficients(x)
            pred = self._node_prediction(np.take(stats, nodes, axis=0))
            np.divide(coef @ pred, M, out=out[i])
            self._memo += (pred,)  # for the partial_fit at x that may come next
        return out

    def _point_coefficients(self, x):
        """The nodes of one point's paths (all trees) and the mixture's weight on each
        (:meth:`_path_coefficients`), from walks in Python numbers that take the
        coefficients on the way down. The walk is kept for a ``partial_fit`` on the same
        point (what test-then-train does next)."""
        store = self.trees_
        left, right, sdim, sloc = store.walk_lists()
        lists = self.__dict__.get("_weight_lists")
        lw, lwt = lists if lists is not None else (memoryview(self._log_weight),
                                                   memoryview(self._log_weight_tree))
        exp = math.exp
        xs = x.tolist()
        paths, coef = [], []
        weigh = coef.append
        for j in store.roots.tolist():
            path, keep = [], 1.0
            step = path.append
            while True:
                step(j)
                child = left[j]
                if child < 0:
                    weigh(keep)
                    break
                a = 0.5 * exp(lw[j] - lwt[j])  # w / 2 w-bar <= 1
                weigh(keep * a)
                keep *= 1.0 - a
                j = child if xs[sdim[j]] <= sloc[j] else right[j]
            paths.append(path)
        self._memo = (x.tobytes(), paths)
        L = len(coef)
        return (np.fromiter(itertools.chain.from_iterable(paths), np.int64, L),
                np.fromiter(coef, float, L))

    # ------------------------------------------------------------ inspection
    def tree_weights(self, tree: int = 0) -> dict:
        """Return one tree's nodes with their aggregation weights, for pictures.

        Parameters
        ----------
        tree : int, default=0
            The tree's index, in ``[0, n_estimators)``.

        Returns
        -------
        dict of str to ndarray
            ``ids`` (the tree's node ids) and, aligned with them, ``parent``,
            ``left``, ``right``, ``depth``, ``split_dim``, ``split_loc``,
            ``split_time``, ``lower``, ``upper``, ``count`` (points below),
            ``log_weight`` (``log w_v``), ``log_weight_tree`` (``log w̄_v``) and
            ``posterior`` (the posterior probability that the pruning has ``v`` as a
            leaf: the mixture's weight on ``v``'s own prediction for points in its
            box).
        """
        check_is_fitted(self, "trees_")
        check_count(tree, "tree", minimum=0, maximum=self.n_estimators - 1)
        a = self.trees_.arrays()
        ids = np.flatnonzero(a["tree"] == tree)
        lw, lwt = self.log_weight_, self.log_weight_tree_
        inner = a["left"] >= 0
        coef = np.where(inner, 0.5 * np.exp(lw[:inner.size] - lwt[:inner.size]), 1.0)
        reach = np.zeros(inner.size)  # prod of (1 - a) above each node
        root = self.trees_.roots[tree]
        reach[root] = 1.0
        from mondrian_core.trees import nodes_by_depth
        for nodes in nodes_by_depth(a["depth"]):
            p = a["parent"][nodes]
            has = p >= 0
            reach[nodes[has]] = reach[p[has]] * (1.0 - coef[p[has]])
        out = {k: a[k][ids] for k in ("parent", "left", "right", "depth", "split_dim",
                                      "split_loc", "split_time", "lower", "upper")}
        out.update(ids=ids, count=self._counts(a["stats"][ids]), log_weight=lw[ids],
                   log_weight_tree=lwt[ids], posterior=(reach * coef)[ids])
        return out

    def weighted_depth(self, X, return_leaf_depth=False):
        """Return the posterior mean depth of the pruning's leaf at each point.

        The mixture puts weight ``c_v`` on each node ``v`` of a point's path (see the
        module docstring); this is ``sum_v c_v depth(v)``, averaged over the trees: how
        deep the aggregation effectively cuts around the point.

        Parameters
        ----------
        X : array-like of shape (n, D)
            Points.
        return_leaf_depth : bool, default=False
            Also return the depth of the leaf each point falls in (the full tree's,
            averaged over the trees).

        Returns
        -------
        depth : ndarray of shape (n,)
            The weighted depths.
        leaf_depth : ndarray of shape (n,)
            The leaves' depths; only with ``return_leaf_depth=True``.
        """
        check_is_fitted(self, "trees_")
        X = check_points(X, estimator=self, reset=False)
        shape = (X.shape[0], self.n_estimators)
        node, coef = self._path_coefficients(X)
        depth = (coef @ np.arange(coef.shape[1], dtype=float)).reshape(shape).mean(axis=1)
        if not return_leaf_depth:
            return depth
        leaf = (self._paths(X) >= 0).sum(axis=1) - 1.0
        return depth, leaf.reshape(shape).mean(axis=1)


class AMFClassifier(ClassifierMixin, _AMFBase):
    """Aggregated Mondrian forest classification, online, with no lifetime to choose.

    Each tree grows online with an infinite lifetime and predicts with the exact
    posterior mixture, over all its prunings, of its nodes' Krichevsky-Trofimov
    estimates, weighted by their past log-losses (context-tree weighting); the forest
    averages the trees' probabilities. See :mod:`mondrian_core.forest.amf`.

    Parameters
    ----------
    n_estimators : int, default=10
        Number of trees, >= 1.
    step : float, default=1.0
        Learning rate of the exponential weights (> 0); 1 is the Bayesian mixture for
        the log-loss.
    dirichlet : float, default=0.5
        The ``a`` of the node estimates ``(n(k) + a) / (n + a K)`` (> 0); 0.5 is the
        Krichevsky-Trofimov (Jeffreys) estimate.
    split_pure : bool, default=False
        Whether a node all of whose points carry the new point's label is split; False
        (the paper's and River's default) keeps pure regions whole.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Randomness of the trees (see :func:`~mondrian_core.check_random_state`).

    Attributes
    ----------
    classes_ : ndarray
        The labels, sorted, in the order of ``predict_proba``'s columns.
    trees_ : mondrian_core.forest.tree_store.TreeStore
        The trees' nodes; ``stats`` holds each node's label counts.
    log_weight_, log_weight_tree_ : ndarray of shape (n_nodes,)
        ``log w_v`` and ``log w̄_v`` per node (module docstring).
    n_features_in_ : int
        Number of features seen in ``fit`` or the first ``partial_fit``.
    n_seen_ : int
        Number of points learnt.

    See Also
    --------
    AMFRegressor : The same trees for regression.
    MondrianForestClassifier : Mondrian forests at a fixed lifetime.

    Notes
    -----
    With ``split_pure=True`` every point with its own position gets its own leaf, and
    a tree grown online has the distribution of a batch Mondrian tree (infinite
    lifetime) of the same points, whatever their order. With ``split_pure=False`` the
    tree depends on the order: a point arriving in a region whose points all share
    its label extends the boxes without splitting, so a stream sorted by label grows
    fewer leaves than the same points shuffled.

    References
    ----------
    Mourtada, Gaïffas and Scornet (2021), "AMF: Aggregated Mondrian forests for online
    learning", JRSS-B 83(3).

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import AMFClassifier, two_moons
    >>> data = two_moons(400, noise=0.2, random_state=0)
    >>> clf = AMFClassifier(n_estimators=5, random_state=0)
    >>> clf = clf.partial_fit(data.X[:300], data.y[:300], classes=[0, 1])
    >>> bool(clf.score(data.X[300:], data.y[300:]) > 0.85)
    True
    """

    def __init__(self, n_estimators=10, step=1.0, dirichlet=0.5, split_pure=False,
                 random_state=None):
        self.n_estimators = n_estimators
        self.step = step
        self.dirichlet = dirichlet
        self.split_pure = split_pure
        self.random_state = random_state

    _checked_names = ("n_estimators", "step", "dirichlet", "split_pure")

    def _check_more_params(self):
        check_real(self.dirichlet, "dirichlet", strict=True)
        check_choice(self.split_pure, "split_pure", (True, False))

    def _n_stats(self):
        return len(self.classes_)

    _n_outputs = _n_stats

    def _point_stats(self, y_code):
        K = len(self.classes_)
        if y_code.size == 1:  # one point: an item set beats the comparison's array calls
            ps = np.zeros((1, K))
            ps[0, y_code[0]] = 1.0
            return ps
        return (y_code[:, None] == np.arange(K)[None, :]).astype(float)

    @staticmethod
    def _counts(stats):
        return stats.sum(axis=1)

    def _node_prediction(self, stats):
        K, a = stats.shape[1], self.dirichlet
        return (stats + a) / (stats.sum(axis=1, keepdims=True) + a * K)

    def _charges_from_prediction(self, pred, y_code):
        # the estimates (n(k) + a) / (n + a K) of the nodes on the point's paths, each
        # holding points: _node_loss's numbers on the same counts
        return (self.step * -np.log(pred[:, y_code])).tolist()

    def _node_loss(self, before, y_code):
        n = before.sum(axis=1)
        K, a = before.shape[1], self.dirichlet
        # one label for all rows (one point's nodes), or a label per row
        count = before[:, y_code] if np.ndim(y_code) == 0 else before[np.arange(y_code.size),
                                                                       y_code]
        return -np.log((count + a) / (n + a * K)), n > 0

    def _encode(self, y):
        if y.size == 1:  # one label: a dict lookup, where searchsorted costs microseconds
            codes = self.__dict__.get("_codes")
            if codes is None or codes[0] is not self.classes_:
                codes = self._codes = (self.classes_, {c: i for i, c in enumerate(
                    self.classes_.tolist())})
            code = codes[1].get(y.tolist()[0])
            if code is not None:
                return np.array([code])
        return MondrianForestClassifier._encode(self, y)

    def _partial_fit_classes(self, classes, fitted):
        """:func:`check_partial_fit_classes`, answered at once for the fitted classes
        passed again as the same kind of array (what a stream fed one point per call
        does): they are sorted and distinct, so the full check would return them."""
        known = self.classes_ if fitted else None
        if (fitted and type(classes) is np.ndarray and classes.dtype == known.dtype
                and classes.shape == known.shape and classes.tolist() == known.tolist()):
            return known
        return check_partial_fit_classes(classes, known)

    def fit(self, X, y):
        """Learn ``(X, y)`` as a stream, in row order, from scratch.

        Parameters
        ----------
        X : array-like of shape (N, D)
            Training points (finite).
        y : array-like of shape (N,)
            Class labels.

        Returns
        -------
        AMFClassifier
            The fitted forest.

        Raises
        ------
        InputError
            If the data or a parameter is invalid.
        """
        self._check_params()
        X = check_points(X, estimator=self, reset=True)
        y = check_target(y, X, classifier=True, estimator=self)
        self.classes_ = np.unique(y)
        self._start(X.shape[1])
        self._learn(X, self._encode(y))
        return self

    def partial_fit(self, X, y, classes=None):
        """Learn more points, in row order (one point or a batch).

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
        AMFClassifier
            The updated forest.

        Raises
        ------
        InputError
            If the data is invalid, ``classes`` is missing on the first call, or a
            label is not among the classes.
        """
        self._check_params()
        fitted = hasattr(self, "trees_")
        given = self._partial_fit_classes(classes, fitted)
        X = check_points(X, estimator=self, reset=not fitted)
        y = check_target(y, X, classifier=True, estimator=self, classes=given)
        if not fitted:
            self.classes_ = given
            self._start(X.shape[1])
        self._learn(X, self._encode(y))
        return self

    def predict_proba(self, X):
        """Return the class probabilities: the trees' aggregated estimates, averaged.

        Parameters
        ----------
        X : array-like of shape (n, D)
            Points.

        Returns
        -------
        ndarray of shape (n, n_classes)
            Probabilities, columns in ``classes_`` order; rows sum to one.
        """
        if "trees_" not in self.__dict__:  # scikit-learn's check costs microseconds
            check_is_fitted(self, "trees_")
        X = check_points(X, estimator=self, reset=False)
        return self._average(X)

    def predict(self, X):
        """Return the most probable class of each point.

        Parameters
        ----------
        X : array-like of shape (n, D)
            Points.

        Returns
        -------
        ndarray of shape (n,)
            Labels from ``classes_``.
        """
        proba = self.predict_proba(X)  # first: it checks that the forest is fitted
        return self.classes_[np.argmax(proba, axis=1)]


class AMFRegressor(RegressorMixin, _AMFBase):
    """Aggregated Mondrian forest regression, online, with no lifetime to choose.

    Each tree grows online with an infinite lifetime (every distinct point gets its own
    leaf) and predicts with the exact mixture, over all its prunings, of its nodes'
    means, weighted by ``exp(-step * their past squared errors / 2)``; the forest
    averages the trees. See :mod:`mondrian_core.forest.amf`.

    Parameters
    ----------
    n_estimators : int, default=10
        Number of trees, >= 1.
    step : float, default=1.0
        Learning rate of the exponential weights (> 0), on the loss
        ``(prediction - y)^2 / 2``: scale ``y`` (or the step) so that the step times
        the squared range of ``y`` is of order 1.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Randomness of the trees (see :func:`~mondrian_core.check_random_state`).

    Attributes
    ----------
    trees_ : mondrian_core.forest.tree_store.TreeStore
        The trees' nodes; ``stats`` holds each node's count and sum of targets.
    log_weight_, log_weight_tree_ : ndarray of shape (n_nodes,)
        ``log w_v`` and ``log w̄_v`` per node (module docstring).
    n_features_in_ : int
        Number of features seen in ``fit`` or the first ``partial_fit``.
    n_seen_ : int
        Number of points learnt.

    See Also
    --------
    AMFClassifier : The same trees for classification.
    MondrianForestRegressor : Mondrian forests at a fixed lifetime.

    Notes
    -----
    A tree grown online has the distribution of a batch Mondrian tree (infinite
    lifetime) of the same points, whatever their order.

    References
    ----------
    Mourtada, Gaïffas and Scornet (2021), "AMF: Aggregated Mondrian forests for online
    learning", JRSS-B 83(3).

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import AMFRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((500, 1))
    >>> y = np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(500)
    >>> reg = AMFRegressor(n_estimators=5, random_state=0).partial_fit(X, y)
    >>> bool(np.abs(reg.predict([[0.25]])[0] - np.sin(1.5)) < 0.2)
    True
    """

    def __init__(self, n_estimators=10, step=1.0, random_state=None):
        self.n_estimators = n_estimators
        self.step = step
        self.random_state = random_state

    _checked_names = ("n_estimators", "step")

    def _check_more_params(self):
        pass

    def _n_stats(self):
        return 2

    def _n_outputs(self):
        return 1

    @staticmethod
    def _point_stats(y):
        stats = np.empty((y.size, 2))
        stats[:, 0] = 1.0
        stats[:, 1] = y
        return stats

    @staticmethod
    def _counts(stats):
        return stats[:, 0]

    @staticmethod
    def _node_prediction(stats):
        return (stats[:, 1] / np.maximum(stats[:, 0], 1.0))[:, None]

    @staticmethod
    def _node_loss(before, y):
        n = before[:, 0]
        r = before[:, 1] / np.maximum(n, 1.0) - y
        return 0.5 * r * r, n > 0

    def fit(self, X, y):
        """Learn ``(X, y)`` as a stream, in row order, from scratch.

        Parameters
        ----------
        X : array-like of shape (N, D)
            Training points (finite).
        y : array-like of shape (N,)
            Targets.

        Returns
        -------
        AMFRegressor
            The fitted forest.

        Raises
        ------
        InputError
            If the data or a parameter is invalid.
        """
        self._check_params()
        X = check_points(X, estimator=self, reset=True)
        y = check_target(y, X, estimator=self)
        self._start(X.shape[1])
        self._learn(X, y)
        return self

    def partial_fit(self, X, y):
        """Learn more points, in row order (one point or a batch).

        Parameters
        ----------
        X : array-like of shape (n, D)
            New points.
        y : array-like of shape (n,)
            Their targets.

        Returns
        -------
        AMFRegressor
            The updated forest.

        Raises
        ------
        InputError
            If the data is invalid.
        """
        self._check_params()
        fitted = hasattr(self, "trees_")
        X = check_points(X, estimator=self, reset=not fitted)
        y = check_target(y, X, estimator=self)
        if not fitted:
            self._start(X.shape[1])
        self._learn(X, y)
        return self

    def predict(self, X):
        """Return the trees' aggregated predictions, averaged.

        Parameters
        ----------
        X : array-like of shape (n, D)
            Points.

        Returns
        -------
        ndarray of shape (n,)
            Predictions.
        """
        if "trees_" not in self.__dict__:  # scikit-learn's check costs microseconds
            check_is_fitted(self, "trees_")
        X = check_points(X, estimator=self, reset=False)
        return self._average(X)[:, 0]
