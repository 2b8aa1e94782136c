"""The online update of a lifetime path: new training points, old path reused.

:meth:`LifetimePath.partial_fit <mondrian_core.sweep.LifetimePath.partial_fit>` extends
the trees by the conditional Mondrian (:meth:`MondrianTrees.extended
<mondrian_core.trees.MondrianTrees.extended>`) and keeps the old event order (new cuts
merged in). From the state at which every new point sits only in cells holding no old
point, the system is block diagonal and each state is the old path's plus an ``n x n``
term (updated, never refactorised); before it the states are recomputed by the event
walk (:mod:`mondrian_core._sweep_walk`) on the extended trees, since no per-event
factorisation is kept (Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The
Mondrian Kernel", Supplement C).
"""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lapack

from mondrian_core._sweep_kernels import (
    LOG_2PI,
    Clock,
    ValCursor,
    as_rows,
    cholesky,
    indicator,
    node_points,
    singular_error,
    val_block,
)
from mondrian_core._sweep_walk import EventWalk, Solutions
from mondrian_core._validation import check_random_state, check_target
from mondrian_core.errors import InputError
from mondrian_core.tree_extension import place_points


def merged_events(old_events, trees, n_old):
    """The event order of extended trees from the old one: the new cut nodes (ids from
    ``n_old``; old nodes keep their ids and cut times) merged in by time, ties by id as
    :meth:`MondrianTrees.events` (an old id is smaller than every new one)."""
    fresh = np.flatnonzero(trees.left[n_old:] >= 0) + n_old
    fresh = fresh[np.lexsort((fresh, trees.split_time[fresh]))]
    at = np.searchsorted(trees.split_time[old_events], trees.split_time[fresh], side="right")
    return np.insert(np.asarray(old_events, dtype=np.int64), at, fresh)


def rows_per_node(trees, rows):
    """Number of the rows flagged in ``rows`` (bool, N) held by each node."""
    cum = np.zeros((trees.n_trees, trees.n_samples + 1))
    np.cumsum(rows[trees.order], axis=1, out=cum[:, 1:])
    return np.rint(cum[trees.tree, trees.stop] - cum[trees.tree, trees.start]).astype(np.int64)


def first_detached_state(trees, events, old_count, new_count):
    """The first state from which no new row shares a cell with an old row (E+1: none).

    A new row leaves the old rows of a tree when the lowest node on its path holding old
    rows is cut; if that node is its leaf, it never does.
    """
    E = events.size
    leaves = trees.left < 0
    if np.any(leaves & (old_count > 0) & (new_count > 0)):
        return E + 1
    par = trees.parent
    top = (old_count == 0) & (par >= 0)
    top[top] = old_count[par[top]] > 0  # new-only nodes whose parent holds old rows
    pos = np.full(trees.n_nodes, -1, dtype=np.int64)
    pos[events] = np.arange(E)
    return int(pos[par[top]].max()) + 1


def update_path(path, X_new, y_new, random_state, block_size, progress, timings, *,
                check_fits, val_chunk):
    """:meth:`LifetimePath.partial_fit` (see there for the algorithm).

    ``check_fits(N, M, times)`` refuses a path over the limits and ``val_chunk`` bounds
    the validation blocks: both are the path module's, read at the call.
    """
    if not isinstance(path.alphas, Solutions):
        raise InputError("partial_fit needs a path made by lifetime_path, "
                         "lifetime_path_on_trees or partial_fit (it reads their stored "
                         "solutions).")
    clock = Clock(timings)
    t_start = time.perf_counter()
    X_new = as_rows(X_new, path.X_train.shape[1], "X_new")
    y_new = check_target(y_new, X_new, "y_new")
    rng = check_random_state(random_state)
    old_trees = path.trees
    trees = old_trees.extended(X_new, random_state=rng)
    clock("extend trees")
    N0 = path.y_train.size
    y = np.concatenate([path.y_train, y_new])
    M, N = trees.n_trees, y.size
    events = merged_events(path.event_nodes, trees, old_trees.n_nodes)
    E = events.size
    lifetimes = np.concatenate([[0.0], trees.split_time[events]])
    check_fits(N, M, lifetimes[1:])
    s2n, s2p = path.noise_variance, path.prior_variance
    placement = (place_points(trees, path.X_val, path.extension_seed)
                 if path.X_val is not None else None)
    clock("place validation")
    is_old = np.arange(N) < N0
    old_count = rows_per_node(trees, is_old)
    new_count = (trees.stop - trees.start) - old_count
    first = first_detached_state(trees, events, old_count, new_count)
    # states 0 .. first-1: the block walk on the extended trees (no stored factor to update)
    scaled = None if progress is None else (lambda f: progress(f * (first - 1) / max(E, 1)))
    sweep = EventWalk(trees, events[:first - 1], y, s2n, s2p, placement, path.y_val, block_size,
                      clock, t_start, val_chunk)
    sweep.run(scaled)
    died = np.full(trees.n_nodes, E, dtype=np.int64)
    died[events] = np.arange(E)
    born = np.zeros(trees.n_nodes, dtype=np.int64)
    kids = trees.parent >= 0
    born[kids] = died[trees.parent[kids]] + 1
    n_primal = int(min(max(N - M, 0), E + 1))
    offsets = np.concatenate([[0], np.cumsum(M + np.arange(n_primal))])
    v_flat = np.empty(int(offsets[-1]))
    v_flat[:sweep.v_flat.size] = sweep.v_flat
    alpha_dual = np.empty((E + 1 - n_primal, N))
    if first > n_primal:
        alpha_dual[:first - n_primal] = sweep.alpha_dual
    out = dict(lml=np.empty(E + 1), train_rmse=np.empty(E + 1),
               val_rmse=np.full(E + 1, np.nan), seconds=np.empty(E + 1))
    out["lml"][:first] = sweep.log_marginal_likelihood()
    out["train_rmse"][:first] = sweep.train_rmse()
    out["val_rmse"][:first] = sweep.val_rmse
    out["seconds"][:first] = sweep.seconds
    if first <= E:
        Detached(path, trees, events, lifetimes, y_new, new_count, born, died, n_primal,
                  offsets, v_flat, alpha_dual, placement, out, t_start, val_chunk).run(first, progress)
        clock("update detached")
    return type(path)(
        lifetimes=lifetimes, n_features=M + np.arange(E + 1), train_rmse=out["train_rmse"],
        val_rmse=out["val_rmse"], log_marginal_likelihood=out["lml"], trees=trees,
        alphas=Solutions(trees, y, s2n, s2p, lifetimes, born, died, n_primal, offsets,
                          v_flat, alpha_dual),
        X_train=trees.X_fit, y_train=y, noise_variance=s2n, prior_variance=s2p,
        terminal_lifetime=path.terminal_lifetime, extension_seed=path.extension_seed,
        event_nodes=events, seconds=out["seconds"], X_val=path.X_val, y_val=path.y_val)


class Detached:
    """The states from which every new row sits in cells of new rows only.

    The system is then block diagonal (old rows x old cells, new rows x new cells): each
    state is the old path's state at the same lifetime plus the ``n x n`` system of the
    new rows, ``S_new = prior_variance K_new + noise_variance I``, which changes only when
    a cell of new rows is cut (by ``-(prior_variance / M)`` between the rows of its two
    children, then one ``n x n`` Cholesky). States are handled in chunks: the old cell
    values of a chunk come from the old path's stored solutions by one sparse product.
    """

    CHUNK = 64

    def __init__(self, path, trees, events, lifetimes, y_new, new_count, born, died, n_primal,
                 offsets, v_flat, alpha_dual, placement, out, t_start, val_chunk):
        self.path, self.trees, self.events, self.lifetimes = path, trees, events, lifetimes
        self.y_new, self.new_count, self.born, self.died = y_new, new_count, born, died
        self.n_primal, self.offsets, self.v_flat = n_primal, offsets, v_flat
        self.alpha_dual, self.placement, self.out = alpha_dual, placement, out
        self.t_start, self.val_chunk = t_start, val_chunk
        self.N0 = path.y_train.size
        old = path.trees
        # (old nodes x old points) membership: a node's value in a dual state is the sum of
        # alpha over its points, a point's fit the sum of its alive cells' values
        pts, indptr = node_points(old, np.arange(old.n_nodes))
        self.member = sp.csr_matrix((np.ones(pts.size), pts, indptr),
                                    shape=(old.n_nodes, self.N0))

    def _new_system(self, S):
        """``S_new^{-1} y_new``, its log-density term and residual sum of squares."""
        path = self.path
        chol, info = cholesky(S)
        if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
            raise singular_error(path.noise_variance, path.prior_variance)
        alpha = lapack.dtrtrs(chol, lapack.dtrtrs(chol, self.y_new, lower=1)[0], lower=1,
                              trans=1)[0]
        lml = (-0.5 * float(self.y_new @ alpha) - np.log(np.diag(chol)).sum()
               - 0.5 * self.y_new.size * LOG_2PI)
        return alpha, lml, path.noise_variance ** 2 * float(alpha @ alpha)

    def _new_values(self, nodes, alpha):
        """Cell values of the new rows' cells (array over all nodes, 0 elsewhere)."""
        M, n = nodes.shape
        return np.bincount(nodes.ravel(), weights=np.broadcast_to(alpha, (M, n)).ravel(),
                           minlength=self.trees.n_nodes) * (self.path.prior_variance / M)

    def _old_values(self, ks):
        """Old cell values (old nodes x len(ks)) of old states ``ks`` (0 where not alive)."""
        path, sol = self.path, self.path.alphas
        n_old = path.trees.n_nodes
        vals = np.zeros((n_old, ks.size))
        alive = (sol.born[:, None] <= ks) & (ks <= sol.died[:, None])
        prim = np.flatnonzero(ks < sol.n_primal)
        for c in prim:  # stored cell values, ascending node id
            k = ks[c]
            vals[alive[:, c], c] = sol.v_flat[sol.offsets[k]:sol.offsets[k + 1]]
        dual = np.flatnonzero(ks >= sol.n_primal)
        if dual.size:
            A = sol.alpha_dual[ks[dual] - sol.n_primal].T
            scale = path.prior_variance / path.trees.n_trees
            vals[:, dual] = (self.member @ A) * scale * alive[:, dual]
        return vals

    def run(self, first, progress):
        path, trees, events, out = self.path, self.trees, self.events, self.out
        E, N0, M = events.size, self.N0, trees.n_trees
        N = N0 + self.y_new.size
        s2n, s2p = path.noise_variance, path.prior_variance
        sol = path.alphas
        n_old = path.trees.n_nodes
        nodes = trees.nodes_at(float(self.lifetimes[first]))[:, N0:]
        P = indicator(nodes, np.ones_like(nodes, dtype=bool), trees.n_nodes)
        S = (P @ P.T).toarray() * (s2p / M)
        S[np.diag_indices_from(S)] += s2n
        alpha_n, lml_n, rss_n = self._new_system(S)
        new_vals = self._new_values(nodes, alpha_n)
        old_rss = N0 * path.train_rmse ** 2
        if self.placement is not None:
            cursor = ValCursor(self.placement)
            row_of = np.arange(trees.n_nodes)
        for c0 in range(first, E + 1, self.CHUNK):
            states = np.arange(c0, min(c0 + self.CHUNK, E + 1))
            ks = np.searchsorted(path.lifetimes, self.lifetimes[states], side="right") - 1
            uk, inv = np.unique(ks, return_inverse=True)
            old_vals = self._old_values(uk)
            full = np.zeros((trees.n_nodes, states.size))
            full[:n_old] = old_vals[:, inv]  # the old cells hold no new row
            alpha_new = np.empty((states.size, self.y_new.size))
            for i, s in enumerate(states):
                if s > first and self.new_count[events[s - 1]] > 0:
                    # a cut of a cell of new rows: its children's rows part
                    j = events[s - 1]
                    pts, indptr = node_points(trees, np.array([trees.left[j], trees.right[j]]))
                    ra, rb = pts[:indptr[1]] - N0, pts[indptr[1]:] - N0
                    S[np.ix_(ra, rb)] -= s2p / M
                    S[np.ix_(rb, ra)] -= s2p / M
                    nodes[trees.tree[j], ra] = trees.left[j]
                    nodes[trees.tree[j], rb] = trees.right[j]
                    alpha_n, lml_n, rss_n = self._new_system(S)
                    new_vals = self._new_values(nodes, alpha_n)
                k = ks[i]
                out["lml"][s] = path.log_marginal_likelihood[k] + lml_n
                out["train_rmse"][s] = np.sqrt(max(old_rss[k] + rss_n, 0.0) / N)
                full[:, i] += new_vals
                alpha_new[i] = alpha_n
            prim = states < self.n_primal
            if prim.any():
                sp_ = states[prim]
                alive = (self.born[:, None] <= sp_) & (sp_ <= self.died[:, None])
                self.v_flat[self.offsets[sp_[0]]:self.offsets[sp_[-1] + 1]] = (
                    full[:, prim].T[alive.T])
            if not prim.all():
                dual = np.flatnonzero(~prim)
                rows = self.alpha_dual[states[dual] - self.n_primal]
                kd = ks[dual]
                old_dual = kd >= sol.n_primal
                rows[old_dual, :N0] = sol.alpha_dual[kd[old_dual] - sol.n_primal]
                if not old_dual.all():  # alpha = (y - fit) / s2n from stored cell values
                    cols = dual[~old_dual]
                    fit = (self.member.T @ full[:n_old, cols]).T
                    rows[~old_dual, :N0] = (path.y_train - fit) / s2n
                rows[:, N0:] = alpha_new[dual]
                self.alpha_dual[states[dual] - self.n_primal] = rows
            if self.placement is not None:
                pred = np.empty((states.size, path.y_val.size))
                val_block(self.placement, cursor, full, row_of, self.lifetimes[states], pred,
                          self.val_chunk)
                out["val_rmse"][states] = np.sqrt(np.mean((pred - path.y_val) ** 2, axis=1))
            out["seconds"][states] = time.perf_counter() - self.t_start
            if progress is not None:
                progress(states[-1] / max(E, 1))
