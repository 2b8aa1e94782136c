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
  trees, optionally recording the new nodes (:meth:`MondrianTrees.extend_jointly
  <mondrian_core.trees.MondrianTrees.extend_jointly>` and :meth:`MondrianTrees.extended
  <mondrian_core.trees.MondrianTrees.extended>`).

The functions read the fields of a :class:`~mondrian_core.trees.MondrianTrees` and do not
import that module (it imports them).
"""
from __future__ import annotations

from dataclasses import dataclass

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


def joint_draw(trees, X_new, time, rng, build=False):
    """The rounds of :meth:`MondrianTrees.extend_jointly` (arguments checked).

    Returns ``(nodes, groups, builder)``, flat over (tree, row): the fitted node
    holding each row (or -1), the label of the new cell holding it (or -1), and with
    ``build`` the :class:`Builder` that recorded every node the draw creates.
    """
    m, n = trees.n_trees, X_new.shape[0]
    lower, upper = trees.lower, trees.upper
    node_out = np.full(m * n, -1, dtype=np.int64)
    fresh_out = np.full(m * n, -1, dtype=np.int64)  # group label of a new cell
    # Rows equal to fitted points are already placed (they lie in every box on their
    # path and never open a gap); leaving them out of the draw also makes the other
    # rows' placement the same whether or not fitted points are stacked with them.
    fitted_row = fitted_index(trees, X_new)
    is_fit = fitted_row >= 0
    if is_fit.any():
        node_out.reshape(m, n)[:, is_fit] = trees.nodes_at(time)[:, fitted_row[is_fit]]
    # entries: one per (tree, new row); groups: rows reaching one node together
    ent = np.flatnonzero(np.tile(~is_fit, m))
    ent_group = ent // n
    g_node = trees.roots.astype(np.int64).copy()
    g_birth = np.zeros(m)
    builder = Builder(trees) if build else None
    if builder is not None:
        builder.leaf_of = np.full(m * n, -1, dtype=np.int64)
    g_cur = g_node.copy()  # with build: the group's node in the grown tree
    while ent.size:
        order = np.argsort(ent_group, kind="stable")
        ent, ent_group = ent[order], ent_group[order]
        x = X_new[ent % n]
        starts = np.flatnonzero(np.r_[True, ent_group[1:] != ent_group[:-1]])
        gid = ent_group[starts]  # the live groups, in order
        node, birth = g_node[gid], g_birth[gid]
        nlo = np.minimum.reduceat(x, starts, axis=0)
        nhi = np.maximum.reduceat(x, starts, axis=0)
        fitted = node >= 0
        safe = np.where(fitted, node, 0)
        flo = np.where(fitted[:, None], lower[safe], nlo)
        fhi = np.where(fitted[:, None], upper[safe], nhi)
        # fitted groups: the gap between the node's box and the enlarged box;
        # fresh groups: their own bounding box (nothing to stay attached to)
        # (capped at 1e300: a point ~1e308 away would make the sums overflow; such a
        # gap is cut at once either way, and a cut inside the capped part still
        # separates the far rows)
        with np.errstate(over="ignore"):
            gap_lo = np.minimum(np.where(fitted[:, None], flo - np.minimum(flo, nlo), 0.0),
                                1e300)
            gap_hi = np.minimum(np.where(fitted[:, None], np.maximum(fhi, nhi) - fhi,
                                         nhi - nlo), 1e300)
        gap = gap_lo + gap_hi
        rate = gap.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            wait = np.where(rate > 0, rng.standard_exponential(gid.size) / rate, np.inf)
        horizon = np.where(fitted, np.minimum(trees.split_time[safe], time), time)
        cut_new = birth + wait < horizon

        g_of_ent = np.repeat(np.arange(gid.size), np.diff(np.r_[starts, ent.size]))
        # 1. a new cut: dimension proportional to the gap's side, uniform in the gap
        k = np.flatnonzero(cut_new)
        side = np.zeros(ent.size, dtype=np.int8)  # 0 stays, 1 leaves as a fresh group
        if k.size:
            cs = np.cumsum(gap[k], axis=1)
            u = rng.random(k.size) * cs[:, -1]
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
            leave = np.where(fitted[k][j], np.where(below[j], xd <= loc[j], xd > loc[j]),
                             xd > loc[j])
            side[np.flatnonzero(sel)[leave]] = 1
            g_birth[gid[k]] = birth[k] + wait[k]
            if builder is not None:
                far, stay = builder.cut(g_cur[gid[k]], fit_k, birth[k], birth[k] + wait[k],
                                        d, loc, below)
                g_cur[gid[k]] = stay
        # 2. no new cut, node cut by `time`: follow its cut to the children
        follow = ~cut_new & fitted & (trees.split_time[safe] <= time)
        # 3. no new cut, otherwise: the rows' cell at `time` is final
        final = ~cut_new & ~follow
        ge = g_of_ent
        done = final[ge]
        fin_f = done & fitted[ge]
        node_out[ent[fin_f]] = node[ge[fin_f]]
        fin_n = done & ~fitted[ge]
        fresh_out[ent[fin_n]] = gid[ge[fin_n]]
        if builder is not None:
            builder.leaf_of[ent[fin_n]] = g_cur[gid[ge[fin_n]]]
        # new groups: rows that left (one fresh group per cut group), children
        new_ids = []
        leave_e = side == 1
        if leave_e.any():
            parents = np.unique(ge[leave_e])
            ids = np.arange(g_node.size, g_node.size + parents.size)
            pos = np.full(gid.size, -1)
            pos[parents] = ids
            ent_group[leave_e] = pos[ge[leave_e]]
            new_ids.append((ids, np.full(parents.size, -1), g_birth[gid[parents]]))
            # with build, the far side's new node (from builder.cut)
            g_cur = np.concatenate([g_cur, far[kk[parents]] if builder is not None
                                    else np.full(parents.size, -1)])
        fol_e = follow[ge]
        if fol_e.any():
            j = node[ge[fol_e]]
            xd = x[fol_e, trees.split_dim[j]]
            child = np.where(xd <= trees.split_loc[j], trees.left[j], trees.right[j])
            base = g_node.size + sum(a[0].size for a in new_ids)
            keys, inv = np.unique(ge[fol_e] * 2 + (xd > trees.split_loc[j]),
                                  return_inverse=True)
            ent_group[fol_e] = base + inv
            first = np.zeros(keys.size, dtype=np.int64)
            first[inv] = child
            new_ids.append((base + np.arange(keys.size), first,
                            trees.birth_time[first]))
            g_cur = np.concatenate([g_cur, first])
        for _, nd, br in new_ids:
            g_node = np.concatenate([g_node, nd])
            g_birth = np.concatenate([g_birth, br])
        keep = ~done
        ent, ent_group = ent[keep], ent_group[keep]
    return node_out, fresh_out, builder



class Builder:
    """Records the nodes a joint draw adds to a tree (for :meth:`MondrianTrees.extended`).

    Starts from copies of the fitted tree's node arrays; node ids of the fitted tree are
    kept, new nodes get the next ids. ``origin[k]`` is the oldest node holding the same
    previously seen points as ``k`` (a node inserted above ``j`` holds ``j``'s points).
    """

    _FIELDS = ("tree", "parent", "left", "right", "birth_time", "split_time", "split_dim",
               "split_loc", "origin")

    def __init__(self, trees):
        self.trees = trees
        for name in self._FIELDS:
            setattr(self, name, np.array(getattr(trees, name), copy=True))
        self.roots = np.array(trees.roots, copy=True)
        self.leaf_of = np.empty(0, dtype=np.int64)  # set by the draw: flat (tree, row)

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
            self.origin[P] = self.origin[j]
            par = self.parent[j]
            top = par < 0
            self.roots[self.tree[j[top]]] = P[top]
            pl = ~top & (self.left[np.maximum(par, 0)] == j)
            self.left[par[pl]] = P[pl]
            pr = ~top & ~pl
            self.right[par[pr]] = P[pr]
            self.parent[j] = P
            self.birth_time[j] = tau[f]
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


def assemble(trees, b: Builder, leaf: np.ndarray, X_all: np.ndarray):
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
