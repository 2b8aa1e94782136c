"""Mondrian trees over a finite point set, as flat NumPy arrays.

A Mondrian process restricted to a finite set of points (projectivity, Roy and
Teh 2009; Balog et al. 2016, *The Mondrian Kernel*, Sections 2-3 and
Lakshminarayanan et al. 2014, *Mondrian Forests*) only needs the cuts that
separate points: a node whose points span the bounding box ``[lower, upper]``
is cut after an ``Exp(sum(upper - lower))`` waiting time, in dimension ``d``
with probability proportional to ``upper[d] - lower[d]``, at a location
uniform in ``[lower[d], upper[d]]``.  Every node of every tree is stored in
flat arrays (global node ids, all trees concatenated) and the trees are grown
for all trees and nodes at once, one proposed cut per active node per round
(exact thinning of the Mondrian of each node's cell, see
:func:`sample_mondrian_trees`).

The spec of this module (field names and meanings) is ``TREES_SPEC.md``; the
kernel, the lifetime sweep, the partition kernels and the forest rely on it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mondrian_core._validation import (
    as_count,
    as_lifetime,
    check_points,
    check_random_state,
    round_down,
)
from mondrian_core.errors import InputError
from mondrian_core.process import expected_cells, max_lifetime

__all__ = ["MondrianTrees", "sample_mondrian_trees", "MAX_TREE_ROWS", "MAX_TREE_CELLS"]

#: Largest n_trees x n_points (every tree stores each point's leaf and order).
MAX_TREE_ROWS = 20_000_000
#: Largest expected number of cells (leaves) over all trees (about 1 GB of nodes).
MAX_TREE_CELLS = 5_000_000


def check_tree_budget(X: np.ndarray, n_trees: int, lifetime: float) -> None:
    """Refuse, before any sampling, ``n_trees`` Mondrians of ``X`` too large for memory.

    A tree restricted to N points has at most N cells and on average at most
    ``expected_cells`` of the points' bounding box; the message names the largest
    lifetime (or number of trees) that fits.
    """
    n = X.shape[0]
    if n_trees * n > MAX_TREE_ROWS:
        raise InputError(
            f"{n_trees:,} trees on {n:,} points are too many to store (limit {MAX_TREE_ROWS:,} "
            f"tree-point pairs); use at most {max(1, MAX_TREE_ROWS // n):,} trees or fewer points.")
    lo, hi = X.min(0), X.max(0)
    cells = n_trees * min(n, expected_cells(lo, hi, lifetime))
    if cells > MAX_TREE_CELLS:
        per_tree = MAX_TREE_CELLS / n_trees
        if per_tree <= 1:
            raise InputError(f"{n_trees:,} trees are too many (limit {MAX_TREE_CELLS:,} cells in "
                             "all); use fewer trees.")
        best = max_lifetime(lo, hi, per_tree)
        raise InputError(
            f"{n_trees:,} Mondrian trees on {n:,} points with lifetime {lifetime:g} have about "
            f"{cells:,.0f} cells in all, more than the limit of {MAX_TREE_CELLS:,}. Use a lifetime "
            f"of at most {round_down(best):g}, fewer trees or fewer points.")


def _segment_rows(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + l)`` for each (s, l), vectorised."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    idx = np.arange(total, dtype=np.int64)
    idx -= np.repeat(offsets - starts, lengths)
    return idx


def node_reduce(values, start, left, right, depth, ufunc):
    """Per node, the ``ufunc`` reduction (np.minimum, np.maximum, np.add) of its rows of values.

    ``values`` (positions, k) holds one row per position; every node's rows are the
    contiguous positions from ``start[j]`` and the leaves tile the positions. Leaves
    by one segmented reduction, inner nodes from their two children, deepest level
    first (one pass per level).
    """
    out = np.empty((left.size, values.shape[1]))
    leaves = np.flatnonzero(left < 0)
    leaves = leaves[np.argsort(start[leaves], kind="stable")]
    out[leaves] = ufunc.reduceat(values, start[leaves], axis=0)
    inner = np.flatnonzero(left >= 0)
    inner = inner[np.argsort(depth[inner], kind="stable")]
    bounds = np.cumsum(np.bincount(depth[inner])) if inner.size else np.zeros(0, np.int64)
    for level in range(bounds.size - 1, -1, -1):  # loop over depths, deepest first
        j = inner[(bounds[level - 1] if level else 0):bounds[level]]
        out[j] = ufunc(out[left[j]], out[right[j]])
    return out


def node_boxes(X, order, start, left, right, depth):
    """Bounding boxes ``(lower, upper)`` of every node's points, each (n_nodes, D).

    ``order`` lists point ids so that every node's points are the contiguous positions
    ``order[start[j] : ...]`` (see :func:`node_reduce`).
    """
    pts = X[order]
    return (node_reduce(pts, start, left, right, depth, np.minimum),
            node_reduce(pts, start, left, right, depth, np.maximum))


@dataclass(frozen=True, eq=False)
class MondrianTrees:
    """``n_trees`` Mondrian partitions of fitted points, stored as flat arrays.

    Node ids are global integers (all trees concatenated). See
    ``sample_mondrian_trees`` for how they are drawn and ``TREES_SPEC.md`` for
    the meaning of each field.

    Attributes
    ----------
    lifetime : float
        Terminal lifetime the trees were grown to.
    n_trees, n_features_in : int
    tree, parent, left, right, depth : ndarray of int, shape (n_nodes,)
    birth_time, split_time, split_loc : ndarray of float, shape (n_nodes,)
        ``split_time`` is ``inf`` and ``split_loc`` ``nan`` where the node is
        not cut before ``lifetime``.
    split_dim : ndarray of int, shape (n_nodes,)
    lower, upper : ndarray of float, shape (n_nodes, D)
        Bounding box of the fitted points in each node (computed on first
        access and cached).
    order : ndarray of int, shape (n_trees, N)
        Per tree a permutation of the points making each node's points
        contiguous: ``order[tree[j], start[j]:stop[j]]``.
    start, stop : ndarray of int, shape (n_nodes,)
    leaf_of_point : ndarray of int, shape (n_trees, N)
    roots : ndarray of int, shape (n_trees,)
    X_fit : ndarray of shape (N, D)
        The fitted points.
    """

    lifetime: float
    n_trees: int
    n_features_in: int
    tree: np.ndarray
    roots: np.ndarray
    parent: np.ndarray
    left: np.ndarray
    right: np.ndarray
    depth: np.ndarray
    birth_time: np.ndarray
    split_time: np.ndarray
    split_dim: np.ndarray
    split_loc: np.ndarray
    order: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    leaf_of_point: np.ndarray
    X_fit: np.ndarray  # the fitted points (N, D)

    # ------------------------------------------------------------ node boxes
    @cached_property
    def _boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """Bounding boxes of every node's points: leaves by one segmented
        reduction over all trees, inner nodes as the union of their children's
        boxes, deepest level first (computed on first use)."""
        n = self.n_samples
        lower, upper = node_boxes(self.X_fit, self.order.reshape(-1), self.tree * n + self.start,
                                  self.left, self.right, self.depth)
        lower.flags.writeable = False
        upper.flags.writeable = False
        return lower, upper

    @property
    def lower(self) -> np.ndarray:
        """(n_nodes, D) lower corner of the bounding box of each node's points."""
        return self._boxes[0]

    @property
    def upper(self) -> np.ndarray:
        """(n_nodes, D) upper corner of the bounding box of each node's points."""
        return self._boxes[1]

    # ------------------------------------------------------------------ basics
    @property
    def n_nodes(self) -> int:
        return int(self.tree.shape[0])

    @property
    def n_points(self) -> np.ndarray:
        """Number of fitted points in each node."""
        return self.stop - self.start

    @property
    def n_samples(self) -> int:
        """Number of fitted points N."""
        return int(self.order.shape[1])

    @property
    def is_leaf(self) -> np.ndarray:
        """True for nodes not cut before the terminal lifetime."""
        return self.left < 0

    @property
    def max_depth(self) -> int:
        return int(self.depth.max()) if self.n_nodes else 0

    def _check_time(self, time) -> float:
        if time is None:
            return float(self.lifetime)
        time = float(time)
        if not (0.0 <= time <= self.lifetime):
            raise InputError(
                f"time must lie in [0, {self.lifetime:g}] (the terminal lifetime); got {time:g}."
            )
        return time

    def alive_at(self, time=None) -> np.ndarray:
        """Boolean mask of the nodes alive at ``time`` (birth <= time < split).

        At ``time == lifetime`` these are the leaves.
        """
        time = self._check_time(time)
        if time >= self.lifetime:
            return self.is_leaf.copy()
        return (self.birth_time <= time) & (time < self.split_time)

    def n_cells(self, time=None) -> np.ndarray:
        """Number of cells (non-empty nodes) of each tree at ``time``."""
        alive = self.alive_at(time)
        return np.bincount(self.tree[alive], minlength=self.n_trees)

    def nodes_at(self, time=None) -> np.ndarray:
        """For every fitted point, the node alive at ``time``; shape (n_trees, N)."""
        time = self._check_time(time)
        nodes = self.leaf_of_point.copy()
        if time >= self.lifetime:
            return nodes
        flat = nodes.reshape(-1)
        todo = np.flatnonzero(self.birth_time[flat] > time)
        while todo.size:
            flat[todo] = self.parent[flat[todo]]
            todo = todo[self.birth_time[flat[todo]] > time]
        return nodes

    def events(self) -> np.ndarray:
        """Ids of the cut nodes sorted by split time (ties broken by id)."""
        cut = np.flatnonzero(self.left >= 0)
        return cut[np.lexsort((cut, self.split_time[cut]))]

    # --------------------------------------------------------------- extension
    def apply(self, X_new, time=None, random_state=None):
        """Place new points by the conditional Mondrian extension.

        Each new point walks each tree from the root. At node ``j`` with box
        ``[lower, upper]`` the extension rate is the L1 distance from the
        point to the box, ``sum(max(lower - x, 0) + max(x - upper, 0))``;
        with ``E ~ Exp(rate)`` the point branches off (a new cell holding only
        the new point, separated from all of ``j``'s points) if
        ``birth_time[j] + E < min(split_time[j], time)``, otherwise it follows
        the cut (``x[d] <= loc`` goes left) or stops at ``j`` if ``j`` is not
        cut before ``time`` (Roy and Teh 2009; Lakshminarayanan et al. 2014).

        Each new point is extended independently of the other new points: two
        new points that both branch off are in different new cells. The
        distribution of every (fitted point, new point) pair is exact. The
        exponential clock of a point at a node is a hash of (seed, node, the
        point's coordinates), so a point's placement does not depend on the
        other rows of ``X_new`` (stacking arrays gives the same answer). Fitted
        points lie inside every box on their path, so they never branch and
        reach ``nodes_at(time)``.

        Parameters
        ----------
        X_new : array-like of shape (N_new, D)
        time : float in [0, lifetime], default the terminal lifetime
        random_state : None, int or numpy.random.Generator

        Returns
        -------
        nodes : ndarray of int, shape (n_trees, N_new)
            Node alive at ``time`` reached, or where the point branched off,
            the node above which it branched off.
        branched : ndarray of bool, shape (n_trees, N_new)
        """
        X_new = check_points(X_new, "X_new")
        if X_new.shape[1] != self.n_features_in:
            raise InputError(
                f"X_new has {X_new.shape[1]} features but the trees were grown on "
                f"{self.n_features_in}."
            )
        time = self._check_time(time)
        seed = np.uint64(check_random_state(random_state).integers(2**63))
        point_hash = row_hash(X_new)
        m, n = self.n_trees, X_new.shape[0]
        nodes = np.repeat(self.roots[:, None], n, axis=1).reshape(-1)
        branched = np.zeros(m * n, dtype=bool)
        point = np.tile(np.arange(n), m)
        active = np.arange(m * n)
        # Nodes cut at or before `time` are followed; others are terminal here.
        cut_by_time = self.split_time <= time
        while active.size:
            j = nodes[active]
            x = X_new[point[active]]
            rate = (np.maximum(self.lower[j] - x, 0.0) + np.maximum(x - self.upper[j], 0.0)).sum(1)
            e = hashed_exponential(point_hash[point[active]], j, seed)
            with np.errstate(divide="ignore"):
                wait = np.where(rate > 0, e / np.where(rate > 0, rate, 1.0), np.inf)
            horizon = np.minimum(self.split_time[j], time)
            off = self.birth_time[j] + wait < horizon
            branched[active[off]] = True
            go = ~off & cut_by_time[j]
            act = active[go]
            jj = j[go]
            xd = X_new[point[act], self.split_dim[jj]]
            nodes[act] = np.where(xd <= self.split_loc[jj], self.left[jj], self.right[jj])
            active = act
        return nodes.reshape(m, n), branched.reshape(m, n)


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


def sample_mondrian_trees(X, n_trees, lifetime, random_state=None) -> MondrianTrees:
    """Sample ``n_trees`` independent Mondrian partitions of the points ``X``.

    Each tree is a Mondrian process of lifetime ``lifetime`` restricted to the
    extent of the data (projectivity): a node's clock rate is the linear
    dimension of the bounding box of its points, its split time is its birth
    time plus ``Exp(rate)``; if that is before ``lifetime`` the node is cut in
    dimension ``d`` with probability proportional to the box's side ``d``, at a
    location uniform in the box's extent in ``d``; a point goes left iff
    ``x[d] <= loc``. Nodes whose points coincide (rate 0) are never cut.

    Sampling (exact, by thinning). Each active node carries a *cell* box that
    contains its points' bounding box (the root's cell is the data's bounding
    box) and runs the Mondrian process of that cell: a proposal comes after
    ``Exp(linear dimension of the cell)``, in dimension ``d`` proportional to
    the cell's side, uniform in the cell. If it falls outside the extent of
    the node's points in ``d`` it separates nothing and only shrinks the cell
    (the Mondrian restricted to the part holding the points); otherwise it is
    the node's cut and the children inherit the two sub-cells. By
    projectivity the first proposal that separates the points has exactly the
    law above (Roy and Teh 2009; Balog et al. 2016, Section 3), and each round
    needs the points' extent in one dimension only (not all D). All trees and
    nodes advance together, one proposal per active node per round, in
    vectorised code; the nodes' bounding boxes (``lower``/``upper``) are
    computed afterwards, on first use.

    Parameters
    ----------
    X : array-like of shape (N, D)
    n_trees : int >= 1
    lifetime : float >= 0
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    MondrianTrees
    """
    X = check_points(X)
    n_trees = as_count(n_trees, "n_trees")
    lifetime = as_lifetime(lifetime)
    check_tree_budget(X, n_trees, lifetime)
    rng = check_random_state(random_state)
    n, dim = X.shape
    XT = np.ascontiguousarray(X.T).reshape(-1)  # XT[d * n + i] = X[i, d]
    # Grow the trees in chunks whose working arrays stay cache-sized (memory
    # bandwidth, not arithmetic, bounds this loop); results do not depend on N
    # through anything but this fixed chunking.
    per_chunk = max(1, _CHUNK_ROWS // n)
    parts = [_grow_chunk(X, XT, min(per_chunk, n_trees - t0), lifetime, rng)
             for t0 in range(0, n_trees, per_chunk)]
    if len(parts) == 1:
        fields = parts[0]
    else:
        node_off = np.cumsum([0] + [p["tree"].size for p in parts[:-1]])
        tree_off = np.cumsum([0] + [p["order"].shape[0] for p in parts[:-1]])
        fields = {}
        for key in parts[0]:
            arrs = [p[key] for p in parts]
            if key in ("parent", "left", "right", "leaf_of_point", "roots"):
                arrs = [np.where(a >= 0, a + o, a) for a, o in zip(arrs, node_off)]
            elif key == "tree":
                arrs = [a + o for a, o in zip(arrs, tree_off)]
            fields[key] = np.concatenate(arrs)
    return MondrianTrees(lifetime=lifetime, n_trees=n_trees, n_features_in=dim, X_fit=X,
                         **fields)


_CHUNK_ROWS = 1 << 22  # (trees x points) rows per chunk of trees (bounds peak memory)


def _grow_chunk(X, XT, m, lifetime, rng) -> dict:
    """Grow ``m`` trees over ``X``; node ids local to the chunk (see caller)."""
    n, dim = X.shape
    itype = np.int32 if m * n < 2**31 and n * dim < 2**31 else np.int64
    lo0, hi0 = X.min(0), X.max(0)
    g = grow_subtrees(X, XT, np.tile(np.arange(n, dtype=itype), m),
                      np.arange(m, dtype=np.int64), np.zeros(m), np.repeat(lo0[None], m, 0),
                      np.repeat(hi0[None], m, 0), np.full(m, n, dtype=np.int64), lifetime, rng)
    # positions are tree-major (tree t holds rows [t n, (t + 1) n)): back to per-tree fields
    order = g.pop("order")
    leaf_at = g.pop("leaf_at")
    tree = g["tree"]
    g["start"] -= tree * n
    g["stop"] -= tree * n
    pos = np.arange(m * n, dtype=np.int64)
    leaf_flat = np.empty(m * n, dtype=np.int64)
    leaf_flat[(pos // n) * n + order] = leaf_at
    g["order"] = order.astype(np.int64).reshape(m, n)
    g["leaf_of_point"] = leaf_flat.reshape(m, n)
    return g


def grow_subtrees(X, XT, pid, root_tree, root_time, root_lo, root_hi, root_len, lifetime,
                  rng) -> dict:
    """Grow independent Mondrian subtrees, one per root, over groups of points of ``X``.

    Root ``g`` holds the points ``pid[off_g : off_g + root_len[g]]`` (consecutive groups),
    belongs to tree ``root_tree[g]``, is born at ``root_time[g]`` and its cell starts as
    ``[root_lo[g], root_hi[g]]`` (the points' bounding box, or any box holding them). Each
    subtree runs the Mondrian of its cell from its birth time to ``lifetime``, restricted
    to its points, by the thinning of :func:`sample_mondrian_trees` (all subtrees advance
    together, one proposal per active node per round). Batch trees are the case of one
    root per tree born at 0 over all points; the online forest grows the subtrees of
    points separated from the old ones with it.

    Parameters
    ----------
    X : ndarray (N, D)
    XT : ndarray (D * N,), ``X.T`` flattened (``XT[d * N + i] = X[i, d]``)
    pid : int ndarray, point ids of all groups, concatenated
    root_tree : int ndarray (G,)
    root_time : ndarray (G,)
    root_lo, root_hi : ndarray (G, D)
    root_len : int ndarray (G,), group sizes (at least 1)
    lifetime : float
    rng : numpy.random.Generator

    Returns
    -------
    dict
        Node fields (ids local: the roots are nodes ``0 .. G-1`` in order, their
        ``parent`` is -1) ``tree, parent, left, right, depth`` (from the roots),
        ``birth_time, split_time, split_dim, split_loc, start, stop`` (positions in
        ``order``), ``roots``; ``order`` (point id at every position, each node's points
        contiguous) and ``leaf_at`` (leaf node id at every position).
    """
    n, dim = X.shape
    itype = pid.dtype.type
    m = root_tree.size

    # node attributes, appended at creation (ids are creation order)
    C_tree, C_parent, C_depth, C_birth, C_start, C_len = [], [], [], [], [], []
    # split records, appended when a node is cut
    S_id, S_time, S_dim, S_loc = [], [], [], []

    # working set of active nodes (all arrays of length k) and their rows
    w_id = np.arange(m, dtype=np.int64)
    w_tree = np.asarray(root_tree, dtype=np.int64)
    w_depth = np.zeros(m, dtype=np.int64)
    w_clock = np.asarray(root_time, dtype=float).copy()
    w_lo = np.array(root_lo, dtype=float)
    w_hi = np.array(root_hi, dtype=float)
    w_len = np.asarray(root_len, dtype=np.int64)
    w_start = np.cumsum(w_len) - w_len
    C_tree.append(w_tree)
    C_parent.append(np.full(m, -1, dtype=np.int64))
    C_depth.append(w_depth)
    C_birth.append(w_clock.copy())
    C_start.append(w_start)
    C_len.append(w_len)
    next_id = m
    total = int(w_len.sum())
    order = np.empty(total, dtype=itype)
    leaf_at = np.empty(total, dtype=np.int64)

    def retire(mask):
        """Nodes in ``mask`` are leaves: write their points' order and leaf id."""
        if not mask.any():
            return
        r = np.repeat(mask, w_len)
        li = np.flatnonzero(mask)
        fpos = _segment_rows(w_start[li], w_len[li])
        order[fpos] = pid[r]
        leaf_at[fpos] = np.repeat(w_id[li], w_len[li])

    while w_id.size:
        k = w_id.size
        side = w_hi - w_lo
        rate = side.sum(1)
        e = rng.standard_exponential(k)
        with np.errstate(divide="ignore"):
            w_clock = w_clock + np.where(rate > 0, e / np.where(rate > 0, rate, 1.0), np.inf)
        done = (w_clock >= lifetime) | (w_len < 2)  # a single point is never cut
        if done.any():
            retire(done)
            keep = ~done
            pid = pid[np.repeat(keep, w_len)]
            w_id, w_tree, w_depth, w_clock = w_id[keep], w_tree[keep], w_depth[keep], w_clock[keep]
            w_lo, w_hi, side = w_lo[keep], w_hi[keep], side[keep]
            w_start, w_len = w_start[keep], w_len[keep]
            k = w_id.size
            if k == 0:
                break
        # proposal: dimension proportional to the cell's side, location uniform in it
        cs = np.cumsum(side, axis=1)
        u = rng.random(k) * cs[:, -1]
        d = np.minimum((cs <= u[:, None]).sum(1), dim - 1)
        rows_k = np.arange(k)
        bad = side[rows_k, d] <= 0  # rounding at a zero-width side
        if bad.any():
            d[bad] = np.argmax(side[bad], axis=1)
        a, b = w_lo[rows_k, d], w_hi[rows_k, d]
        loc = a + rng.random(k) * (b - a)
        # the points' extent in dimension d, per node
        seg_off = np.cumsum(w_len) - w_len
        v = XT[np.repeat(d.astype(itype) * itype(n), w_len) + pid]
        lo = np.minimum.reduceat(v, seg_off)
        hi = np.maximum.reduceat(v, seg_off)
        below, above = loc < lo, loc >= hi
        cut = ~(below | above)
        # misses shrink the cell to the side holding the points
        w_lo[rows_k[below], d[below]] = loc[below]
        w_hi[rows_k[above], d[above]] = loc[above]
        if not cut.any():
            continue
        ci = np.flatnonzero(cut)
        S_id.append(w_id[ci])
        S_time.append(w_clock[ci])
        S_dim.append(d[ci])
        S_loc.append(loc[ci])
        # stable partition of the rows of cut nodes: left (x[d] <= loc) first
        go_left = (v <= np.repeat(np.where(cut, loc, np.inf), w_len))
        seg = np.repeat(np.arange(k), w_len)
        cl = np.cumsum(go_left, dtype=np.int64)
        before = np.concatenate(([0], cl))[seg_off]  # lefts before each segment
        n_left = np.concatenate((before[1:], [cl[-1]])) - before
        idx = np.arange(pid.size, dtype=np.int64)
        n_left_row = n_left[seg]
        before_row = before[seg]
        newpos = np.where(go_left, seg_off[seg] + cl - 1 - before_row,
                          idx + n_left_row - (cl - before_row))
        new_pid = np.empty_like(pid)
        new_pid[newpos] = pid
        pid = new_pid
        # the working set: each cut node is replaced by its two children, in place
        nc = ci.size
        reps = np.where(cut, 2, 1)
        child_ids = next_id + np.arange(2 * nc)
        next_id += 2 * nc
        pos = np.cumsum(reps) - reps  # first slot of each old node
        is_child = np.zeros(int(reps.sum()), dtype=bool)
        is_child[pos[ci]] = True
        is_child[pos[ci] + 1] = True
        old = np.repeat(np.arange(k), reps)
        w_id = w_id[old]
        w_id[is_child] = child_ids
        w_tree, w_depth, w_clock = w_tree[old], w_depth[old], w_clock[old]
        w_depth = w_depth + is_child
        w_lo, w_hi = w_lo[old], w_hi[old]
        left_slot, right_slot = pos[ci], pos[ci] + 1
        w_hi[left_slot, d[ci]] = loc[ci]
        w_lo[right_slot, d[ci]] = loc[ci]
        w_start, w_len = w_start[old], w_len[old]
        w_len[right_slot] = w_len[right_slot] - n_left[ci]
        w_len[left_slot] = n_left[ci]
        w_start[right_slot] = w_start[right_slot] + n_left[ci]
        new_slots = np.empty(2 * nc, dtype=np.int64)
        new_slots[0::2], new_slots[1::2] = left_slot, right_slot
        C_tree.append(w_tree[new_slots])
        C_parent.append(np.repeat(S_id[-1], 2))
        C_depth.append(w_depth[new_slots])
        C_birth.append(w_clock[new_slots])
        C_start.append(w_start[new_slots])
        C_len.append(w_len[new_slots])

    cat = np.concatenate
    n_nodes = next_id
    split_time = np.full(n_nodes, np.inf)
    split_dim = np.full(n_nodes, -1, dtype=np.int64)
    split_loc = np.full(n_nodes, np.nan)
    left = np.full(n_nodes, -1, dtype=np.int64)
    right = np.full(n_nodes, -1, dtype=np.int64)
    parent = cat(C_parent)
    if S_id:
        sid = cat(S_id)
        split_time[sid] = cat(S_time)
        split_dim[sid] = cat(S_dim)
        split_loc[sid] = cat(S_loc)
        kids = np.arange(m, n_nodes)
        is_left = (kids - m) % 2 == 0  # children are created in (left, right) pairs
        left[parent[kids[is_left]]] = kids[is_left]
        right[parent[kids[~is_left]]] = kids[~is_left]
    start = cat(C_start)
    return dict(
        tree=cat(C_tree),
        roots=np.arange(m, dtype=np.int64),
        parent=parent,
        left=left,
        right=right,
        depth=cat(C_depth),
        birth_time=cat(C_birth),
        split_time=split_time,
        split_dim=split_dim,
        split_loc=split_loc,
        start=start,
        stop=start + cat(C_len),
        order=order,
        leaf_at=leaf_at,
    )
