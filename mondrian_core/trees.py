"""Mondrian trees over a finite point set, as flat NumPy arrays.

A Mondrian process restricted to a finite set of points (projectivity, Roy and
Teh 2009; Balog et al. 2016, *The Mondrian Kernel*, Sections 2-3 and
Lakshminarayanan et al. 2014, *Mondrian Forests*) only needs the cuts that
separate points: a node whose points span the bounding box ``[lower, upper]``
is cut after an ``Exp(sum(upper - lower))`` waiting time, in dimension ``d``
with probability proportional to ``upper[d] - lower[d]``, at a location
uniform in ``[lower[d], upper[d]]``.  Every node of every tree is stored in
flat arrays (global node ids, all trees concatenated) and the trees are grown
level by level for all trees at once.

The spec of this module (field names and meanings) is ``TREES_SPEC.md``; the
kernel, the lifetime sweep, the partition kernels and the forest rely on it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mondrian_core._random import check_random_state
from mondrian_core.errors import InputError

__all__ = ["MondrianTrees", "sample_mondrian_trees"]


def _check_points(X, name="X") -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise InputError(f"{name} must be a 2-D array (n_points, n_features); got shape {X.shape}.")
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise InputError(f"{name} needs at least one point and one feature; got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise InputError(f"{name} contains NaN or infinite values; remove or impute them.")
    return X


def _segment_rows(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + l)`` for each (s, l), vectorised."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    idx = np.arange(total, dtype=np.int64)
    idx -= np.repeat(offsets - starts, lengths)
    return idx


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
        Bounding box of the fitted points in each node.
    order : ndarray of int, shape (n_trees, N)
        Per tree a permutation of the points making each node's points
        contiguous: ``order[tree[j], start[j]:stop[j]]``.
    start, stop : ndarray of int, shape (n_nodes,)
    leaf_of_point : ndarray of int, shape (n_trees, N)
    roots : ndarray of int, shape (n_trees,)
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
    lower: np.ndarray
    upper: np.ndarray
    order: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    leaf_of_point: np.ndarray

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
        X_new = _check_points(X_new, "X_new")
        if X_new.shape[1] != self.n_features_in:
            raise InputError(
                f"X_new has {X_new.shape[1]} features but the trees were grown on "
                f"{self.n_features_in}."
            )
        time = self._check_time(time)
        seed = np.uint64(check_random_state(random_state).integers(2**63))
        point_hash = _row_hash(X_new)
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
            e = _hashed_exponential(point_hash[point[active]], j, seed)
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


def _row_hash(X: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row's float64 bit patterns (-0.0 counted as 0.0)."""
    bits = np.ascontiguousarray(X + 0.0).view(np.uint64)
    h = np.zeros(X.shape[0], dtype=np.uint64)
    for d in range(X.shape[1]):  # loop over dimensions, vectorised over points
        h = _splitmix64(h ^ bits[:, d])
    return h


def _hashed_exponential(point_hash, node, seed) -> np.ndarray:
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

    All trees are grown together, one level per iteration, in vectorised code
    (Balog et al. 2016, *The Mondrian Kernel*, Section 3; Lakshminarayanan et
    al. 2014, *Mondrian Forests*).

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
    X = _check_points(X)
    n_trees = int(n_trees)
    if n_trees < 1:
        raise InputError(f"n_trees must be at least 1; got {n_trees}.")
    lifetime = float(lifetime)
    if not (np.isfinite(lifetime) and lifetime >= 0):
        raise InputError(f"lifetime must be a finite number >= 0; got {lifetime}.")
    rng = check_random_state(random_state)
    n, dim = X.shape
    m = n_trees

    # Per-level lists of node arrays, concatenated at the end.
    L_tree, L_parent, L_depth, L_birth, L_split, L_dim, L_loc = [], [], [], [], [], [], []
    L_lower, L_upper, L_start, L_len = [], [], [], []
    L_left, L_right = [], []

    order = np.tile(np.arange(n, dtype=np.int64), m)  # flat (m * n,)
    leaf_flat = np.empty(m * n, dtype=np.int64)

    # Current level: nodes with known boxes; rows = their points, contiguous.
    lo0, hi0 = X.min(0), X.max(0)
    cur_tree = np.arange(m, dtype=np.int64)
    cur_parent = np.full(m, -1, dtype=np.int64)
    cur_birth = np.zeros(m)
    cur_lower = np.repeat(lo0[None], m, 0)
    cur_upper = np.repeat(hi0[None], m, 0)
    cur_start = np.zeros(m, dtype=np.int64)  # within tree
    cur_len = np.full(m, n, dtype=np.int64)
    rows_pid = None  # point ids of the rows, in flat order (lazy for the root level)
    rows_fpos = None  # flat positions of the rows
    Xr = None  # X[rows_pid]
    next_id = 0
    depth = 0

    while cur_tree.size:
        k = cur_tree.size
        ids = np.arange(next_id, next_id + k)
        next_id += k
        side = cur_upper - cur_lower
        rate = side.sum(1)
        e = rng.standard_exponential(k)
        with np.errstate(divide="ignore"):
            split = cur_birth + np.where(rate > 0, e / np.where(rate > 0, rate, 1.0), np.inf)
        cut = split < lifetime
        split = np.where(cut, split, np.inf)
        sdim = np.full(k, -1, dtype=np.int64)
        sloc = np.full(k, np.nan)
        ci = np.flatnonzero(cut)
        if ci.size:
            cs = np.cumsum(side[ci], axis=1)
            u = rng.random(ci.size) * cs[:, -1]
            d = (cs <= u[:, None]).sum(1)
            d = np.minimum(d, dim - 1)
            # guard against rounding landing on a zero-width side
            bad = side[ci, d] <= 0
            if bad.any():
                d[bad] = np.argmax(side[ci[bad]], axis=1)
            lo_d = cur_lower[ci, d]
            hi_d = cur_upper[ci, d]
            loc = lo_d + rng.random(ci.size) * (hi_d - lo_d)
            loc = np.minimum(loc, np.nextafter(hi_d, lo_d))  # right child never empty
            sdim[ci] = d
            sloc[ci] = loc

        L_tree.append(cur_tree)
        L_parent.append(cur_parent)
        L_depth.append(np.full(k, depth, dtype=np.int64))
        L_birth.append(cur_birth)
        L_split.append(split)
        L_dim.append(sdim)
        L_loc.append(sloc)
        L_lower.append(cur_lower)
        L_upper.append(cur_upper)
        L_start.append(cur_start)
        L_len.append(cur_len)

        # leaves of this level: record leaf_of_point for their points
        leaf_mask = ~cut
        if leaf_mask.any():
            li = np.flatnonzero(leaf_mask)
            fpos = _segment_rows(cur_tree[li] * n + cur_start[li], cur_len[li])
            # order[fpos] is final for leaf points: index leaf_of_point by point id
            leaf_flat[(fpos // n) * n + order[fpos]] = np.repeat(ids[li], cur_len[li])

        if ci.size == 0:
            L_left.append(np.full(k, -1, dtype=np.int64))
            L_right.append(np.full(k, -1, dtype=np.int64))
            break

        # rows of the cut nodes, in flat order (node segments are contiguous)
        c_len = cur_len[ci]
        c_fstart = cur_tree[ci] * n + cur_start[ci]
        if rows_pid is None:
            fpos = _segment_rows(c_fstart, c_len)
            pid = order[fpos]
            xr = X[pid]
        else:
            # keep rows belonging to cut nodes; rows are grouped by node in level order
            keep = np.repeat(cut, cur_len)
            fpos = rows_fpos[keep]
            pid = rows_pid[keep]
            xr = Xr[keep]
        seg = np.repeat(np.arange(ci.size), c_len)
        go_left = xr[np.arange(pid.size), sdim[ci][seg]] <= sloc[ci][seg]
        # stable partition within each segment: lefts first
        seg_off = np.cumsum(c_len) - c_len
        cl = np.cumsum(go_left)
        n_left_before = np.concatenate(([0], cl))[seg_off]  # lefts before each segment
        n_left = np.add.reduceat(go_left.astype(np.int64), seg_off)
        rank_left = cl - 1 - n_left_before[seg]
        idx_in_seg = np.arange(pid.size) - seg_off[seg]
        rank_right = idx_in_seg - (cl - n_left_before[seg]) + n_left[seg]
        newpos = seg_off[seg] + np.where(go_left, rank_left, rank_right)
        inv = np.empty_like(newpos)
        inv[newpos] = np.arange(newpos.size)
        pid = pid[inv]
        xr = xr[inv]
        order[fpos] = pid

        # children: left then right of each cut node, interleaved
        nc = ci.size
        n_right = c_len - n_left
        ch_len = np.empty(2 * nc, dtype=np.int64)
        ch_len[0::2] = n_left
        ch_len[1::2] = n_right
        ch_start = np.empty(2 * nc, dtype=np.int64)
        ch_start[0::2] = cur_start[ci]
        ch_start[1::2] = cur_start[ci] + n_left
        row_off = np.cumsum(ch_len) - ch_len
        ch_lower = np.minimum.reduceat(xr, row_off, axis=0)
        ch_upper = np.maximum.reduceat(xr, row_off, axis=0)
        child_ids = next_id + np.arange(2 * nc)
        left = np.full(k, -1, dtype=np.int64)
        right = np.full(k, -1, dtype=np.int64)
        left[ci] = child_ids[0::2]
        right[ci] = child_ids[1::2]
        L_left.append(left)
        L_right.append(right)

        cur_tree = np.repeat(cur_tree[ci], 2)
        cur_parent = np.repeat(ids[ci], 2)
        cur_birth = np.repeat(split[ci], 2)
        cur_lower, cur_upper = ch_lower, ch_upper
        cur_start, cur_len = ch_start, ch_len
        rows_pid, rows_fpos, Xr = pid, fpos, xr
        depth += 1

    cat = np.concatenate
    start = cat(L_start)
    stop = start + cat(L_len)
    roots = np.arange(m, dtype=np.int64)
    return MondrianTrees(
        lifetime=lifetime,
        n_trees=m,
        n_features_in=dim,
        tree=cat(L_tree),
        roots=roots,
        parent=cat(L_parent),
        left=cat(L_left),
        right=cat(L_right),
        depth=cat(L_depth),
        birth_time=cat(L_birth),
        split_time=cat(L_split),
        split_dim=cat(L_dim),
        split_loc=cat(L_loc),
        lower=cat(L_lower),
        upper=cat(L_upper),
        order=order.reshape(m, n),
        start=start,
        stop=stop,
        leaf_of_point=leaf_flat.reshape(m, n),
    )

