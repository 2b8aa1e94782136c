"""The conditional Mondrian: fitted Mondrian trees extended to new points.

A Mondrian of the fitted points and new points together, given its restriction to the
fitted points (the fitted trees), is drawn node by node from the root: at a node whose
box is ``B`` (alive from ``birth``), cuts of the enlarged box that miss ``B`` come at a
rate equal to the linear dimension of the gap, competing with the node's own cut (Roy
and Teh (2009), "The Mondrian Process"; Lakshminarayanan, Roy and Teh (2014), "Mondrian
Forests: Efficient Online Random Forests", Section 3 and Algorithm 3).

Three readings of it, each used by one caller:

* :func:`independent_extension` places each new point on its own, its exponential
  clocks hashed from (seed, node, point) so that a point's placement does not depend on
  the other rows (:meth:`MondrianTrees.apply <mondrian_core.trees.MondrianTrees.apply>`);
* :func:`place_points` records each point's whole path and branch-off time, for every
  lifetime at once (the lifetime sweep's validation and predictions);
* :func:`joint_draw` extends all new rows by one joint draw, level by level over all
  trees, optionally recording the new nodes through a :class:`Builder`: the one
  conditional Mondrian on a batch, behind :meth:`MondrianTrees.extend_jointly
  <mondrian_core.trees.MondrianTrees.extend_jointly>`, :meth:`MondrianTrees.extended
  <mondrian_core.trees.MondrianTrees.extended>` (the kernel's and the sweep's online
  trees, :class:`TreesBuilder`) and the online forest's
  :meth:`TreeStore.extend <mondrian_core.forest.tree_store.TreeStore.extend>` (its own
  builder).

The functions read the node fields of a :class:`~mondrian_core.trees.MondrianTrees` (or a
store with the same fields) and do not import that module (it imports them).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from mondrian_core._validation import check_random_state

__all__ = ["Placement", "place_points"]


def independent_extension(trees, X_new, time, seed):
    """:meth:`MondrianTrees.apply` on checked arguments (``seed`` a ``numpy.uint64``)."""
    point_hash = row_hash(X_new)
    m, n = trees.n_trees, X_new.shape[0]
    nodes = np.repeat(trees.roots[:, None], n, axis=1).reshape(-1)
    branched = np.zeros(m * n, dtype=bool)
    point = np.tile(np.arange(n), m)
    active = np.arange(m * n)
    # Nodes cut at or before `time` are followed; others are terminal here.
    cut_by_time = trees.split_time <= time
    while active.size:
        j = nodes[active]
        x = X_new[point[active]]
        rate = (np.maximum(trees.lower[j] - x, 0.0) + np.maximum(x - trees.upper[j], 0.0)).sum(1)
        e = hashed_exponential(point_hash[point[active]], j, seed)
        with np.errstate(divide="ignore"):
            wait = np.where(rate > 0, e / np.where(rate > 0, rate, 1.0), np.inf)
        horizon = np.minimum(trees.split_time[j], time)
        off = trees.birth_time[j] + wait < horizon
        branched[active[off]] = True
        go = ~off & cut_by_time[j]
        act = active[go]
        jj = j[go]
        xd = X_new[point[act], trees.split_dim[jj]]
        nodes[act] = np.where(xd <= trees.split_loc[jj], trees.left[jj], trees.right[jj])
        active = act
    return nodes.reshape(m, n), branched.reshape(m, n)


def fitted_index(trees, X_new: np.ndarray) -> np.ndarray:
    """For each row of ``X_new``, the index of an equal fitted point, or -1."""
    fit_hash = row_hash(trees.X_fit)
    order = np.argsort(fit_hash, kind="stable")
    sorted_hash = fit_hash[order]
    new_hash = row_hash(X_new)
    pos = np.minimum(np.searchsorted(sorted_hash, new_hash), sorted_hash.size - 1)
    cand = order[pos]
    same = (sorted_hash[pos] == new_hash) & np.all(trees.X_fit[cand] == X_new, axis=1)
    return np.where(same, cand, -1)


class JointDraw(NamedTuple):
    """What one joint conditional Mondrian draw did to each (tree, row), flat over
    ``tree * n + row`` (rows left out of the draw keep ``-1`` everywhere).

    ``node``: the fitted node holding the row at the horizon, or -1 (in a new cell);
    ``cell``: the label of its new cell, or -1; ``leaf``: with a builder, the recorded
    node of that new cell; ``left_at``: the fitted node above which the row's group was
    cut off from the fitted points, or -1; ``new_root``: with a builder, the new node
    that cut made for the leaving rows (one per cut), or -1.
    """

    node: np.ndarray
    cell: np.ndarray
    leaf: np.ndarray
    left_at: np.ndarray
    new_root: np.ndarray


def joint_draw(nodes, X_new, time, rng, builder=None, entries=None) -> JointDraw:
    """One joint conditional Mondrian draw of the rows of ``X_new`` in fitted trees.

    The conditional Mondrian on a batch, shared by :meth:`MondrianTrees.extend_jointly
    <mondrian_core.trees.MondrianTrees.extend_jointly>` (read at ``time``),
    :meth:`MondrianTrees.extended <mondrian_core.trees.MondrianTrees.extended>` and the
    online forest's :meth:`TreeStore.extend <mondrian_core.forest.tree_store.TreeStore.extend>`
    (both at the terminal lifetime, recording the new nodes through ``builder``).

    The rows that reach node ``j`` (fitted box ``B``, alive from ``birth``) are handled
    together. Cuts of the enlarged box ``bbox(B + rows)`` that miss ``B`` happen at rate
    equal to the linear dimension of the gap between the two boxes (Poisson thinning of
    the Mondrian's cut proposals); if the first comes before ``min(split_time[j], time)``
    it is placed in a dimension proportional to the gap's side and uniformly in the gap,
    the rows beyond it leave as a group of their own (a fresh Mondrian of those rows
    from that time on, which cuts its own bounding box), and the rest go on at ``j``
    from the cut's time (memorylessness). Otherwise the rows follow ``j``'s cut to its
    children, or stay in ``j`` if it is not cut by ``time``. All trees and groups
    advance together, one round per level (Roy and Teh 2009; Lakshminarayanan, Roy and
    Teh 2014, Algorithm 3, in batch form).

    Parameters
    ----------
    nodes : MondrianTrees or TreeStore
        The fitted nodes: ``n_trees``, ``roots`` and per node ``lower``, ``upper`` (the
        box of its fitted points), ``split_time``, ``split_dim``, ``split_loc``,
        ``left``, ``right``. They are only read (a builder writes its own arrays).
    X_new : ndarray of shape (n, D)
        The rows.
    time : float
        The horizon: fitted nodes cut after it are final, new cuts come before it.
    rng : numpy.random.Generator
        The randomness (one exponential per group and round, one uniform per new cut).
    builder : Builder, optional
        Records every node the draw creates (see :class:`Builder`).
    entries : ndarray of int, optional
        The flat ``tree * n + row`` entries to draw; default all.

    Returns
    -------
    JointDraw
        Where each (tree, row) ended up.
    """
    draw = _JointRounds(nodes, X_new, time, rng, builder, entries)
    while draw.ent.size:
        draw.round()
    return JointDraw(draw.node_out, draw.fresh_out, draw.leaf_out, draw.left_at, draw.new_root)


class _JointRounds:
    """The state of :func:`joint_draw` between rounds.

    ``ent`` are the live (tree, row) entries and ``ent_group`` their groups; a group
    ``g`` is at fitted node ``g_node[g]`` (-1: a fresh group, in a new cell) since
    ``g_birth[g]``, and with a builder at recorded node ``g_cur[g]``.
    """

    def __init__(self, nodes, X_new, time, rng, builder, entries):
        self.nodes, self.X, self.time, self.rng, self.builder = nodes, X_new, time, rng, builder
        m, n = nodes.n_trees, X_new.shape[0]
        self.n = n
        self.lower, self.upper = nodes.lower, nodes.upper
        self.node_out, self.fresh_out, self.leaf_out, self.left_at, self.new_root = (
            np.full(m * n, -1, dtype=np.int64) for _ in range(5))
        self.ent = np.arange(m * n) if entries is None else np.asarray(entries, dtype=np.int64)
        self.ent_group = self.ent // n
        self.g_node = np.asarray(nodes.roots).astype(np.int64).copy()
        self.g_birth = np.zeros(m)
        self.g_cur = self.g_node.copy()

    def round(self):
        """Advance every live group by one level (or one new cut)."""
        order = np.argsort(self.ent_group, kind="stable")
        self.ent, self.ent_group = self.ent[order], self.ent_group[order]
        # np.take: several times faster than fancy indexing of (k, D) rows
        x = np.take(self.X, self.ent % self.n, axis=0)
        starts = run_starts(self.ent_group)
        gid = self.ent_group[starts]  # the live groups, in order
        node, birth = self.g_node[gid], self.g_birth[gid]
        nlo = np.minimum.reduceat(x, starts, axis=0)
        nhi = np.maximum.reduceat(x, starts, axis=0)
        fitted = node >= 0
        safe = np.where(fitted, node, 0)
        gap_lo, gap_hi, flo, fhi = self._gaps(fitted, safe, nlo, nhi)
        gap = gap_lo + gap_hi
        rate = gap.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            wait = np.where(rate > 0, self.rng.standard_exponential(gid.size) / rate, np.inf)
        split_time = self.nodes.split_time[safe]
        cut_new = birth + wait < np.where(fitted, np.minimum(split_time, self.time), self.time)
        g_of_ent = np.repeat(np.arange(gid.size), np.diff(starts, append=self.ent.size))
        # 1. a new cut: which rows leave (and, with a builder, the new nodes)
        at = self.g_cur[gid]  # with a builder: the recorded node of each group
        leave, far = self._new_cuts(x, gid, node, fitted, birth, wait, cut_new, g_of_ent,
                                    gap, gap_lo, flo, fhi, nlo)
        if self.builder is not None:  # each group's rows pass below its node, or the
            holds = at.copy()         # node inserted above it
            inserted = cut_new & fitted
            holds[inserted] = self.builder.parent[at[inserted]]
            self.builder.visited(holds, ~inserted & fitted, self.ent, starts, nlo, nhi)
        # 2. no new cut, node cut by `time`: follow its cut to the children
        follow = ~cut_new & fitted & (split_time <= self.time)
        # 3. no new cut, otherwise: the rows' cell at `time` is final
        done = (~cut_new & ~follow)[g_of_ent]
        self._finish(done, fitted, node, gid, g_of_ent)
        self._regroup(x, node, gid, g_of_ent, leave, far, follow[g_of_ent])
        self.ent, self.ent_group = self.ent[~done], self.ent_group[~done]

    def _gaps(self, fitted, safe, nlo, nhi):
        """Per group: the gap below and above the fitted box (a fresh group: its own
        bounding box as the gap above) and the fitted box."""
        flo = np.where(fitted[:, None], np.take(self.lower, safe, axis=0), nlo)
        fhi = np.where(fitted[:, None], np.take(self.upper, safe, axis=0), nhi)
        # (capped at 1e300: a point ~1e308 away would make the sums overflow; such a
        # gap is cut at once either way, and a cut inside the capped part still
        # separates the far rows)
        with np.errstate(over="ignore"):
            gap_lo = np.minimum(np.where(fitted[:, None], flo - np.minimum(flo, nlo), 0.0),
                                1e300)
            gap_hi = np.minimum(np.where(fitted[:, None], np.maximum(fhi, nhi) - fhi,
                                         nhi - nlo), 1e300)
        return gap_lo, gap_hi, flo, fhi

    def _new_cuts(self, x, gid, node, fitted, birth, wait, cut_new, g_of_ent, gap, gap_lo,
                  flo, fhi, nlo):
        """Place the new cuts (dimension proportional to the gap's side, uniform in the
        gap); return the entries that leave and, with a builder, each group's far node."""
        leave = np.zeros(self.ent.size, dtype=bool)
        k = np.flatnonzero(cut_new)
        if not k.size:
            return leave, None
        cs = np.cumsum(gap[k], axis=1)
        u = self.rng.random(k.size) * cs[:, -1]
        d = np.minimum((cs <= u[:, None]).sum(axis=1), gap.shape[1] - 1)
        u = u - np.where(d > 0, cs[np.arange(k.size), d - 1], 0.0)
        glo = gap_lo[k, d]
        fit_k = fitted[k]
        # fitted: lower gap [nlo, flo) if u < glo, else upper gap (fhi, nhi];
        # fresh: anywhere in the box [nlo, nhi]
        below = fit_k & (u < glo)
        loc = np.where(fit_k, np.where(below, flo[k, d] - glo + u, fhi[k, d] + u - glo),
                       nlo[k, d] + u)
        kk = np.full(gid.size, -1)
        kk[k] = np.arange(k.size)
        sel = cut_new[g_of_ent]
        j = kk[g_of_ent[sel]]
        xd = x[sel, d[j]]
        leave[np.flatnonzero(sel)] = np.where(
            fit_k[j], np.where(below[j], xd <= loc[j], xd > loc[j]), xd > loc[j])
        tau = birth[k] + wait[k]
        self.g_birth[gid[k]] = tau
        far = None
        if self.builder is not None:
            far_k, stay = self.builder.cut(self.g_cur[gid[k]], fit_k, birth[k], tau, d, loc,
                                           below)
            self.g_cur[gid[k]] = stay
            far = np.full(gid.size, -1)
            far[k] = far_k
        # rows cut off from the fitted points: where, and into which new node
        off = leave & fitted[g_of_ent]
        self.left_at[self.ent[off]] = node[g_of_ent[off]]
        if far is not None:
            self.new_root[self.ent[off]] = far[g_of_ent[off]]
        return leave, far

    def _finish(self, done, fitted, node, gid, g_of_ent):
        """Record the cells of the entries whose groups are final."""
        ent, ge = self.ent, g_of_ent
        fin_f = done & fitted[ge]
        self.node_out[ent[fin_f]] = node[ge[fin_f]]
        fin_n = done & ~fitted[ge]
        self.fresh_out[ent[fin_n]] = gid[ge[fin_n]]
        if self.builder is not None:
            self.leaf_out[ent[fin_n]] = self.g_cur[gid[ge[fin_n]]]

    def _regroup(self, x, node, gid, g_of_ent, leave, far, fol_e):
        """New groups: the rows that left (one fresh group per cut group) and the rows
        that follow a cut (one group per child)."""
        nodes, ge = self.nodes, g_of_ent
        new = []  # (fitted node, birth, builder node) of each new group, in id order
        if leave.any():
            parents = ge[leave]  # sorted: entries run group by group
            parents = parents[run_starts(parents)]
            pos = np.full(gid.size, -1)
            pos[parents] = self.g_node.size + np.arange(parents.size)
            self.ent_group[leave] = pos[ge[leave]]
            new.append((np.full(parents.size, -1), self.g_birth[gid[parents]],
                        far[parents] if far is not None else np.full(parents.size, -1)))
        if fol_e.any():
            j = node[ge[fol_e]]
            # x is C-contiguous (a take): each row's value on its node's cut dimension
            xd = np.take(x, np.flatnonzero(fol_e) * x.shape[1] + nodes.split_dim[j])
            right = xd > nodes.split_loc[j]
            child = np.where(right, nodes.right[j], nodes.left[j])
            keys, inv = _unique_below(ge[fol_e] * 2 + right, 2 * gid.size)
            base = self.g_node.size + sum(a[0].size for a in new)
            self.ent_group[fol_e] = base + inv
            first = np.zeros(keys.size, dtype=np.int64)
            first[inv] = child
            born = np.zeros(keys.size)
            born[inv] = nodes.split_time[j]  # a child is born at its parent's cut
            new.append((first, born, first))
        for nd, br, cur in new:
            self.g_node = np.concatenate([self.g_node, nd])
            self.g_birth = np.concatenate([self.g_birth, br])
            self.g_cur = np.concatenate([self.g_cur, cur])


def _unique_below(keys, bound):
    """``np.unique(keys, return_inverse=True)`` for integers in ``[0, bound)``, by
    marking them in a table of ``bound`` flags instead of sorting: the same sorted values
    and positions."""
    present = np.zeros(bound, dtype=bool)
    present[keys] = True
    return np.flatnonzero(present), (np.cumsum(present) - 1)[keys]


def run_starts(sorted_ids):
    """Positions where a new value starts in a sorted array."""
    first = np.ones(sorted_ids.size, dtype=bool)
    np.not_equal(sorted_ids[1:], sorted_ids[:-1], out=first[1:])
    return np.flatnonzero(first)


class Builder:
    """Records the nodes a :func:`joint_draw` adds to fitted trees.

    Node ids of the fitted trees are kept, new nodes get the next ids. A subclass holds
    the node arrays ``tree, parent, left, right, split_time, split_dim, split_loc`` and
    ``roots`` and makes nodes with :meth:`_new`; :meth:`_inserted` lets it fill what it
    keeps beyond them for a node inserted above another.
    """

    def _new(self, count: int, tree, parent, birth) -> np.ndarray:
        raise NotImplementedError

    def _inserted(self, P, j, tau):
        """Hook: ``P`` was inserted above ``j``, which is reborn at ``tau``."""

    def visited(self, nodes, fitted, entries, starts, lower, upper):
        """Hook, once per round: the entries of group ``g`` (``entries[starts[g]:
        starts[g + 1]]``, bounding box ``lower[g], upper[g]``) lie below node
        ``nodes[g]``, which holds them all from now on (each node is reported once for
        its final set of rows); ``fitted[g]``: the node is a fitted one, reached by
        the group and not left by a new cut."""

    def cut(self, cur, fitted, birth, tau, dim, loc, below):
        """New cuts at time ``tau`` of the groups at nodes ``cur``; returns the nodes of
        the rows that leave and of the rows that stay."""
        far = np.empty(cur.size, dtype=np.int64)
        stay = cur.copy()
        f = np.flatnonzero(fitted)
        if f.size:  # insert P above j: one child j (from tau on), the other a new leaf F
            j = cur[f]
            P = self._new(f.size, self.tree[j], self.parent[j], birth[f])
            F = self._new(f.size, self.tree[j], P, tau[f])
            self.split_time[P], self.split_dim[P], self.split_loc[P] = tau[f], dim[f], loc[f]
            b = below[f]
            self.left[P] = np.where(b, F, j)
            self.right[P] = np.where(b, j, F)
            par = self.parent[j]
            top = par < 0
            self.roots[self.tree[j[top]]] = P[top]
            pl = ~top & (self.left[np.maximum(par, 0)] == j)
            self.left[par[pl]] = P[pl]
            pr = ~top & ~pl
            self.right[par[pr]] = P[pr]
            self.parent[j] = P
            self._inserted(P, j, tau[f])
            far[f] = F
        g = np.flatnonzero(~fitted)
        if g.size:  # a new node's own cut: two new children
            node = cur[g]
            L = self._new(g.size, self.tree[node], node, tau[g])
            R = self._new(g.size, self.tree[node], node, tau[g])
            self.split_time[node], self.split_dim[node], self.split_loc[node] = (
                tau[g], dim[g], loc[g])
            self.left[node], self.right[node] = L, R
            stay[g], far[g] = L, R
        return far, stay


class TreesBuilder(Builder):
    """A :class:`Builder` on copies of a :class:`MondrianTrees`' node arrays (for
    :meth:`MondrianTrees.extended`). ``origin[k]`` is the oldest node holding the same
    previously seen points as ``k`` (a node inserted above ``j`` holds ``j``'s points).
    """

    _FIELDS = ("tree", "parent", "left", "right", "birth_time", "split_time", "split_dim",
               "split_loc", "origin")

    def __init__(self, trees):
        self.trees = trees
        for name in self._FIELDS:
            setattr(self, name, np.array(getattr(trees, name), copy=True))
        self.roots = np.array(trees.roots, copy=True)

    def _new(self, count: int, tree, parent, birth) -> np.ndarray:
        ids = np.arange(self.tree.size, self.tree.size + count)
        grow = {"tree": tree, "parent": parent, "left": np.full(count, -1),
                "right": np.full(count, -1), "birth_time": birth,
                "split_time": np.full(count, np.inf), "split_dim": np.full(count, -1),
                "split_loc": np.full(count, np.nan), "origin": ids}
        for name, values in grow.items():
            old = getattr(self, name)
            setattr(self, name, np.concatenate([old, np.asarray(values, dtype=old.dtype)]))
        return ids

    def _inserted(self, P, j, tau):
        self.origin[P] = self.origin[j]
        self.birth_time[j] = tau


def assemble(trees, b: TreesBuilder, leaf: np.ndarray, X_all: np.ndarray):
    """A :class:`MondrianTrees` from a builder's node arrays and every point's leaf:
    depths from the roots down, each node's range of points in ``order``."""
    n_nodes, m = b.tree.size, leaf.shape[0]
    depth = np.full(n_nodes, -1, dtype=np.int64)
    levels, frontier = [], b.roots.astype(np.int64)
    while frontier.size:  # one pass per depth
        depth[frontier] = len(levels)
        levels.append(frontier)
        kids = np.concatenate([b.left[frontier], b.right[frontier]])
        frontier = kids[kids >= 0]
    size = np.bincount(leaf.ravel(), minlength=n_nodes).astype(np.int64)
    for nodes in levels[:0:-1]:  # deepest first: a node holds its children's points
        np.add.at(size, b.parent[nodes], size[nodes])
    start = np.zeros(n_nodes, dtype=np.int64)
    for nodes in levels:
        inner = nodes[b.left[nodes] >= 0]
        start[b.left[inner]] = start[inner]
        start[b.right[inner]] = start[inner] + size[b.left[inner]]
    order = np.argsort(start[leaf], axis=1, kind="stable").astype(np.int64)
    return type(trees)(lifetime=trees.lifetime, n_trees=m, n_features_in=trees.n_features_in,
                         tree=b.tree, roots=b.roots, parent=b.parent, left=b.left,
                         right=b.right, depth=depth, birth_time=b.birth_time,
                         split_time=b.split_time, split_dim=b.split_dim,
                         split_loc=b.split_loc, order=order, start=start, stop=start + size,
                         leaf_of_point=leaf, X_fit=X_all, origin=b.origin,
                         n_base_nodes=trees.n_base_nodes)



_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _splitmix64(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser (a bijective 64-bit mixer), vectorised."""
    with np.errstate(over="ignore"):
        z = z + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def row_hash(X: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row's float64 bit patterns (-0.0 counted as 0.0)."""
    bits = np.ascontiguousarray(X + 0.0).view(np.uint64)
    h = np.zeros(X.shape[0], dtype=np.uint64)
    for d in range(X.shape[1]):  # loop over dimensions, vectorised over points
        h = _splitmix64(h ^ bits[:, d])
    return h


def hashed_exponential(point_hash, node, seed) -> np.ndarray:
    """Exp(1) variates determined by (seed, node, point): counter-based randomness."""
    z = _splitmix64(point_hash ^ _splitmix64(node.astype(np.uint64) ^ seed))
    u = (z >> np.uint64(11)).astype(np.float64) * 2.0**-53 + 2.0**-54  # in (0, 1)
    return -np.log(u)



@dataclass(frozen=True)
class Placement:
    """Where new points sit in each tree, for every lifetime at once.

    At lifetime ``t`` point ``i`` is, in tree ``m``, in the deepest node of its path with
    ``births[m, i, d] <= t``, unless ``branch[m, i] <= t`` (then in a cell of its own).
    Made by :func:`place_points`.

    Parameters
    ----------
    nodes : ndarray of int, shape (M, n, depth)
        ``nodes[m, i, d]``: the ``d``-th node on point ``i``'s path in tree ``m``
        (``-1`` padding).
    births : ndarray of float, shape (M, n, depth)
        The times those nodes appear (``inf`` padding).
    branch : ndarray of float, shape (M, n)
        The time the point branches off into a cell of its own (``inf`` if never).
    """

    nodes: np.ndarray
    births: np.ndarray
    branch: np.ndarray

    def at(self, time: float):
        """Return each point's node and whether it is still in it at lifetime ``time``.

        Parameters
        ----------
        time : float
            The lifetime.

        Returns
        -------
        nodes : ndarray of int, shape (M, n)
            The deepest node of each path born by ``time``.
        alive : ndarray of bool, shape (M, n)
            False where the point has branched off by ``time``.
        """
        depth = (self.births <= time).sum(axis=-1) - 1
        nodes = np.take_along_axis(self.nodes, depth[..., None], axis=-1)[..., 0]
        return nodes, self.branch > time


def place_points(trees, X, random_state=None) -> Placement:
    """Walk every tree with the conditional Mondrian extension for all lifetimes.

    Uses the same counter-based exponential clocks as
    :meth:`MondrianTrees.apply <mondrian_core.trees.MondrianTrees.apply>` (a hash of
    the seed, the node and the point), so ``place_points(trees, X, s).at(t)`` agrees
    with ``trees.apply(X, time=t, random_state=s)`` at every ``t`` at once. Each
    point is placed on its own, which is exact for the kernel between it and the
    training points, all that a ridge prediction needs. Vectorised over points and
    trees (one loop over depth).

    Parameters
    ----------
    trees : MondrianTrees
        The fitted trees.
    X : array-like of shape (n, D)
        The new points.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Seeds the exponential clocks (see :func:`~mondrian_core.check_random_state`).

    Returns
    -------
    Placement
        Each point's path through each tree and the time it branches off.

    References
    ----------
    Roy and Teh (2009), "The Mondrian Process". Lakshminarayanan, Roy and Teh (2014),
    "Mondrian Forests: Efficient Online Random Forests".
    """
    X = np.asarray(X, dtype=float)
    seed = np.uint64(check_random_state(random_state).integers(2**63))
    point_hash = row_hash(X)
    M, n = trees.n_trees, X.shape[0]
    n_levels = int(trees.depth.max()) + 1
    node = np.repeat(np.asarray(trees.roots)[:, None], n, axis=1)
    active = np.ones((M, n), dtype=bool)
    nodes = np.full((M, n, n_levels), -1, dtype=np.int64)
    births = np.full((M, n, n_levels), np.inf)
    branch = np.full((M, n), np.inf)
    for d in range(n_levels):
        exp = hashed_exponential(np.broadcast_to(point_hash, (M, n)), node, seed)
        nodes[..., d] = np.where(active, node, -1)
        births[..., d] = np.where(active, trees.birth_time[node], np.inf)
        gap = (np.maximum(trees.lower[node] - X, 0.0) + np.maximum(X - trees.upper[node], 0.0))
        rate = gap.sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_branch = trees.birth_time[node] + np.where(rate > 0, exp / rate, np.inf)
        leaves = active & (t_branch < trees.split_time[node])
        branch[leaves] = t_branch[leaves]
        active &= ~leaves
        cut = trees.left[node] >= 0
        dim = np.maximum(trees.split_dim[node], 0)
        x_d = np.take_along_axis(np.broadcast_to(X, (M, n, X.shape[1])), dim[..., None], -1)[..., 0]
        child = np.where(x_d <= trees.split_loc[node], trees.left[node], trees.right[node])
        active &= cut
        node = np.where(active, child, node)
        if not active.any():
            break
    return Placement(nodes=nodes, births=births, branch=branch)


def number_new_cells(fresh_out, m, n):
    """New-cell labels of a joint draw renumbered ``0, 1, ...`` by first appearance in
    row-major (row, tree) order; ``-1`` stays (a fitted cell). Shape ``(m, n)``."""
    new_cell = np.full(m * n, -1, dtype=np.int64)
    is_new = fresh_out >= 0
    if is_new.any():
        flat_rm = np.flatnonzero(is_new.reshape(m, n).T.reshape(-1))  # (row, tree) order
        tree_of, row_of = flat_rm % m, flat_rm // m
        labels = fresh_out[tree_of * n + row_of]
        _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
        rank = np.empty(first.size, dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(first.size)
        new_cell[tree_of * n + row_of] = rank[inv]
    return new_cell.reshape(m, n)


def draw_beside_fitted(trees, X_new, time, rng, builder=None) -> JointDraw:
    """:func:`joint_draw` of the rows of ``X_new`` that are not fitted points.

    Rows equal to fitted points are already placed (they lie in every box on their path
    and never open a gap): they get the fitted node alive at ``time``. Leaving them out of
    the draw also makes the other rows' placement the same whether or not fitted points
    are stacked with them.
    """
    m, n = trees.n_trees, X_new.shape[0]
    fitted_row = fitted_index(trees, X_new)
    is_fit = fitted_row >= 0
    draw = joint_draw(trees, X_new, time, rng, builder,
                      entries=np.flatnonzero(np.tile(~is_fit, m)))
    if is_fit.any():
        draw.node.reshape(m, n)[:, is_fit] = trees.nodes_at(time)[:, fitted_row[is_fit]]
    return draw
