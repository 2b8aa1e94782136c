"""The Mondrian trees of a forest as one store, grown online by the conditional Mondrian.

:class:`TreeStore` keeps every tree's nodes (boxes, birth and split times, splits,
per-node statistics) in flat NumPy arrays and extends them by the conditional Mondrian
(``MTx`` of Lakshminarayanan's "Mondrian Forests" slides; Lakshminarayanan, Roy and Teh
2014, Section 3 and Algorithm 3): a few points one by one, larger batches all at once,
level by level over all trees; :func:`walk` runs
points down all trees at once for prediction with hierarchical smoothing and the
branch-off probabilities.
"""
from __future__ import annotations

import math

import numpy as np

from mondrian_core._docstrings import docfiller, params
from mondrian_core.tree_extension import Builder, joint_draw
from mondrian_core.trees import node_boxes, node_reduce

#: Codes of the operation a new point caused in a tree (``last_operations_``).
NO_CHANGE, EXTEND, INSERT_ABOVE, SPLIT_LEAF = 0, 1, 2, 3
OPERATION_NAMES = {
    NO_CHANGE: "no change (inside a leaf)",
    EXTEND: "extend a split's range",
    INSERT_ABOVE: "insert a split above",
    SPLIT_LEAF: "split a leaf",
}


#: Calls with at most this many (points x trees) insert the points one by one
#: (``TreeStore.extend``): a Python walk per point and tree against a fixed cost per
#: tree level of the batch's array calls. Measured at 10 trees, D = 8, lifetime 10: one
#: by one is faster up to about 50 points per call (7,400 against 5,300 points/s at 30
#: points, even at 50).
SEQUENTIAL_UPDATES = 500
#: Calls inserting at least this many rows one by one walk their paths all at once
#: first (``TreeStore._extend_points``).
_PREWALK_ROWS = 8

_INT_FIELDS = ("tree", "parent", "left", "right", "split_dim")
_FLOAT_FIELDS = ("split_time", "split_loc")
_ROW_FIELDS = ("lower", "upper", "stats")
_WALK_FIELDS = ("left", "right", "split_dim", "split_loc")


class TreeStore:
    """The nodes of all trees of a forest, as flat NumPy arrays grown in place.

    Node ids are global (all trees concatenated), like :class:`MondrianTrees`; new
    nodes get the next ids. Per node: ``tree, parent, left, right`` (-1: none),
    ``split_time`` (inf for a leaf), ``split_dim``, ``split_loc``, the bounding box
    ``lower, upper`` (n_nodes, D) of the points below it, and ``stats`` (n_nodes,
    n_stats): ``[count, sum_y]`` (regression) or the label counts (classification) of
    those points. The arrays have spare capacity (doubled when full) so online growth
    costs amortised O(1) per node; memory is proportional to the nodes held.
    :meth:`arrays` adds depth, birth and end times for prediction.

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
        self.roots = np.full(n_trees, -1, dtype=np.int64)
        self._n = 0
        self._cols = {"lower": n_features, "upper": n_features, "stats": n_stats}
        self._data = {}
        self._allocate(0)
        self._frozen = None
        self._depth = None
        self._lists = None

    def _allocate(self, capacity):
        old, n = self._data, self._n
        data = {}
        for f in _INT_FIELDS:
            data[f] = np.empty(capacity, dtype=np.int64)
        for f in _FLOAT_FIELDS:
            data[f] = np.empty(capacity)
        for f in _ROW_FIELDS:
            data[f] = np.empty((capacity, self._cols[f]))
        for f, arr in old.items():
            data[f][:n] = arr[:n]
        self._data = data

    def reserve(self, k: int) -> None:
        """Make room for ``k`` more nodes without moving the arrays again.

        Parameters
        ----------
        k : int
            How many nodes will be added.
        """
        if self._n + k > self._data["tree"].shape[0]:
            self._allocate(max(2 * (self._n + k), 16))

    def _append(self, **fields) -> np.ndarray:
        """Append nodes (scalars broadcast); returns their ids."""
        k = max(np.shape(v)[0] for f, v in fields.items()
                if np.ndim(v) >= (2 if f in _ROW_FIELDS else 1))
        n = self._n
        if n + k > self._data["tree"].shape[0]:
            self._allocate(max(2 * (n + k), 16))
        for f, arr in self._data.items():
            arr[n:n + k] = fields[f]
        self._n = n + k
        self._lists = None
        return np.arange(n, n + k)

    def _append_blank(self, k, tree, parent) -> np.ndarray:
        """Append ``k`` leaves of the given trees and parents with empty boxes and
        statistics (filled in later); returns their ids."""
        n = self._n
        if n + k > self._data["tree"].shape[0]:
            self._allocate(max(2 * (n + k), 16))
        d, new = self._data, slice(n, n + k)
        d["tree"][new], d["parent"][new] = tree, parent
        d["left"][new] = d["right"][new] = d["split_dim"][new] = -1
        d["split_time"][new], d["split_loc"][new] = np.inf, np.nan
        d["lower"][new], d["upper"][new], d["stats"][new] = np.inf, -np.inf, 0.0
        self._n = n + k
        self._lists = None
        return np.arange(n, n + k)

    def __getattr__(self, name):
        # node fields read as views of the filled part (``store.tree``, ``store.lower`` ...)
        data = self.__dict__.get("_data")
        if data is not None and name in data:
            return data[name][:self.__dict__["_n"]]
        raise AttributeError(name)

    @property
    def n_nodes(self) -> int:
        """Number of nodes held, over all trees."""
        return self._n

    def nbytes(self) -> int:
        """Return the bytes held by the node arrays (capacity included).

        Returns
        -------
        int
            Bytes of all node arrays.
        """
        return sum(a.nbytes for a in self._data.values()) + self.roots.nbytes

    # ------------------------------------------------------------ building
    @classmethod
    def from_nodes(cls, lifetime, roots, tree, parent, left, right, split_time, split_dim,
                   split_loc, lower, upper, stats) -> TreeStore:
        """Build a store holding the given nodes (one row per node; -1 for no node).

        Parameters
        ----------
        lifetime : float
            The trees' lifetime.
        roots : array-like of int, shape (n_trees,)
            Each tree's root node.
        tree, parent, left, right : array-like of int, shape (n_nodes,)
            Each node's tree, parent and children (-1: none).
        split_time, split_dim, split_loc : array-like, shape (n_nodes,)
            Each node's cut (``inf``, -1 and ``nan`` for a leaf).
        lower, upper : ndarray of shape (n_nodes, D)
            The bounding box of the points below each node.
        stats : ndarray of shape (n_nodes, n_stats)
            The statistics of the points below each node.

        Returns
        -------
        TreeStore
            The store, adopting the arrays.
        """
        fields = dict(tree=tree, parent=parent, left=left, right=right, split_time=split_time,
                      split_dim=split_dim, split_loc=split_loc, lower=lower, upper=upper,
                      stats=stats)
        for f, v in fields.items():  # adopted as they are when already owned arrays
            v = np.asarray(v, dtype=np.int64 if f in _INT_FIELDS else float)
            fields[f] = v if v.flags.writeable and v.flags.c_contiguous else v.copy()
        store = cls(len(roots), fields["lower"].shape[1], lifetime, fields["stats"].shape[1])
        store._data = fields
        store._n = fields["tree"].shape[0]
        store.roots = np.array(roots, dtype=np.int64)
        return store

    @classmethod
    def from_trees(cls, trees, stats_of_points: np.ndarray) -> TreeStore:
        """Adopt batch trees (a :class:`MondrianTrees`) with per-point statistics.

        The per-point arrays of ``trees`` (order, leaves) are not kept.

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
        tree = np.asarray(trees.tree)
        flat_order = np.asarray(trees.order).reshape(-1)
        start = tree * trees.n_samples + trees.start  # positions in the flat order
        sums = node_reduce(stats_of_points[flat_order], start, trees.left, trees.right,
                           trees.depth, np.add)
        lower, upper = node_boxes(trees.X_fit, flat_order, start, trees.left, trees.right,
                                  trees.depth)  # fresh arrays, adopted
        store = cls.from_nodes(trees.lifetime, trees.roots, tree, trees.parent.copy(),
                               trees.left.copy(), trees.right.copy(), trees.split_time.copy(),
                               trees.split_dim.copy(), trees.split_loc.copy(), lower, upper,
                               sums)
        store._depth = np.asarray(trees.depth, dtype=np.int64)
        return store

    # ------------------------------------------------------------ online growth
    def extend(self, X: np.ndarray, point_stats: np.ndarray, rng: np.random.Generator,
               split_pure: bool = True):
        """Add the rows of X to every tree by the conditional Mondrian, all at once.

        Larger calls run the one joint conditional Mondrian draw of
        :func:`mondrian_core.tree_extension.joint_draw` (the draw behind
        :meth:`MondrianTrees.extended <mondrian_core.trees.MondrianTrees.extended>`) at
        the lifetime, the store recording the nodes it adds: at node ``j`` the rows
        outside its box ``B`` open a gap whose cuts compete with ``j``'s own; a cut in the
        gap is inserted above ``j`` and the rows beyond it form a fresh Mondrian of their
        own, the others go on with ``j``. The result is distributed as a batch tree on
        all points seen (projectivity); for one point this is the conditional Mondrian
        ``MTx`` of Lakshminarayanan's slides. Then every row's statistics and box are
        added to the nodes above its cell. Calls of at most ``SEQUENTIAL_UPDATES``
        (points x trees), and every call with ``split_pure=False``, insert the points one
        by one (:meth:`_extend_points`, the same law, faster for a few points). An empty
        tree starts from a leaf holding the first row.

        Parameters
        ----------
        X : ndarray of shape (N, D)
            The new points.
        point_stats : ndarray of shape (N, n_stats)
            Each point's contribution to the statistics of the nodes above it.
        rng : numpy.random.Generator
            The source of randomness.
        split_pure : bool, default=True
            If False, no split is inserted above a node whose statistics are zero
            wherever the point's are (a classifier's node all of whose points share the
            new point's label: the ``split_pure=False`` of Mourtada, Gaïffas and Scornet
            2021); the points then go in one by one, in order.

        Returns
        -------
        operations : int8 array (N, n_trees)
            Per point and tree: ``SPLIT_LEAF`` / ``INSERT_ABOVE`` for the point
            credited with a new split (the split that separated a group of new points
            from old ones is credited to one of them, by the kind of node it was
            inserted above; each further split among the group to one point of each
            new leaf, as ``SPLIT_LEAF``), so the number of such labels equals the
            number of splits added; ``EXTEND`` for the other points outside a box on
            their way; ``NO_CHANGE`` otherwise.
        nodes : int array (N, n_trees)
            The node above which the point's group was split off, else its leaf.
        """
        X = np.asarray(X, dtype=float)
        point_stats = np.asarray(point_stats, dtype=float)
        N, M = X.shape[0], self.n_trees
        ops = np.zeros((N, M), dtype=np.int8)
        where = np.full((N, M), -1, dtype=np.int64)
        if N == 0:
            return ops, where
        self._frozen = None
        self._depth = None
        if N * M <= SEQUENTIAL_UPDATES or not split_pure:  # one at a time beats the batch's array calls
            self._extend_points(X, point_stats, rng, ops, where, split_pure)
            return ops, where
        entries = np.arange(M * N)
        empty = self._start_empty_trees(X[0], point_stats[0])  # the first row starts them
        if empty.size:
            where[0, empty] = self.roots[empty]
            entries = np.setdiff1d(entries, empty * N)  # (tree, row 0) is placed
        builder = _StoreBuilder(self, X, point_stats)
        draw = joint_draw(self, X, self.lifetime, rng, builder, entries)
        self._lists = None  # the draw rewrote children through the builder
        self._credit(X, draw, entries, builder.outside, ops, where)
        return ops, where

    def _credit(self, X, draw, entries, outside, ops, where):
        """Write ``extend``'s operation codes and nodes from a joint draw (``outside``:
        the entries that lay outside a fitted box on their way)."""
        N = X.shape[0]
        d = self._data
        row, tree = entries % N, entries // N
        node = draw.node[entries]
        kept = node >= 0  # in a fitted cell
        r, t = row[kept], tree[kept]
        where[r, t] = node[kept]
        out = outside[entries[kept]]
        ops[r[out], t[out]] = EXTEND
        r, t, e = row[~kept], tree[~kept], entries[~kept]
        where[r, t] = draw.left_at[e]
        ops[r, t] = EXTEND
        # entries run tree by tree, rows ascending: np.unique's first index is a cell's or
        # a cut's first row
        _, first = np.unique(draw.leaf[e], return_index=True)
        ops[r[first], t[first]] = SPLIT_LEAF  # one per new leaf ...
        _, first = np.unique(draw.new_root[e], return_index=True)
        above = draw.left_at[e[first]]  # ... but the cut that left the fitted points
        ops[r[first], t[first]] = np.where(d["left"][above] < 0, SPLIT_LEAF, INSERT_ABOVE)

    def _start_empty_trees(self, x, point_stats) -> np.ndarray:
        """Start every empty tree as a root leaf holding the point ``x``; return them."""
        empty = np.flatnonzero(self.roots < 0)
        if empty.size:
            self.roots[empty] = self._append(
                tree=empty, parent=-1, left=-1, right=-1, split_time=np.inf, split_dim=-1,
                split_loc=np.nan, lower=x, upper=x, stats=point_stats)
        return empty

    def _extend_points(self, X, point_stats, rng, ops, where, split_pure):
        """Insert the rows of X one by one (:meth:`_extend_point`), writing ``ops`` and
        ``where``.

        A point's path depends only on the splits, so the paths of all rows are walked
        at once, level by level, on the trees as they are (:meth:`path_matrix`); a row
        then walks a tree again in Python only if an earlier row of the call inserted a
        split above a node of its path there (else its path is unchanged).
        """
        N, M = X.shape[0], self.n_trees
        pre = inside = None
        if N >= _PREWALK_ROWS and self.roots.min() >= 0:
            P = self.path_matrix(X)
            lengths = (P >= 0).sum(axis=1)
            pre = P[P >= 0].tolist()  # row by row; row r's path at ends[r - 1]:ends[r]
            ends = [0] + np.cumsum(lengths).tolist()
            # inside its leaf's box now, a row stays inside (boxes only grow) while the
            # leaf stays a leaf (else the tree is walked again)
            leaf = P[np.arange(N * M), lengths - 1]
            x = np.repeat(X, M, axis=0)
            inside = ((self.lower[leaf] <= x) & (x <= self.upper[leaf])).all(axis=1).tolist()
        changed = [set() for _ in range(M)]  # old nodes with a split inserted above
        touched = []  # the trees with such nodes
        rows = X.tolist()
        ops_rows, where_rows = [], []
        for i in range(N):
            paths = held = None
            if pre is not None:
                # sliced per row: a call's paths made at once would live long enough
                # to set off the garbage collector's full passes
                e = ends[i * M:i * M + M + 1]
                paths = [pre[a:b] for a, b in zip(e, e[1:])]
                held = inside[i * M:i * M + M]
                for m in touched:
                    p = paths[m]
                    if not changed[m].isdisjoint(p):  # walk again below the first change
                        c = changed[m]
                        k = next(k for k, j in enumerate(p) if j in c)
                        top = p[k - 1] if k else int(self.roots[m])
                        paths[m] = p[:max(k - 1, 0)] + self.walk_point(rows[i], starts=[top])[0]
                        # a row inside its leaf's box lies inside the boxes above, so the
                        # splits inserted there leave it on the leaf's side: still inside
                        held[m] = held[m] and paths[m][-1] == p[-1]
            o, w = [0] * M, [-1] * M
            self._extend_point(X[i], point_stats[i], rng, o, w, split_pure, paths, held)
            ops_rows.append(o)
            where_rows.append(w)
            for m in range(M):
                if o[m] >= INSERT_ABOVE:
                    if not changed[m]:
                        touched.append(m)
                    changed[m].add(w[m])
        ops[:], where[:] = ops_rows, where_rows

    def path_matrix(self, X) -> np.ndarray:
        """Return the root-to-leaf path of every (row of X, tree) as an int matrix.

        The pairs are walked a level at a time, all at once.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The points.

        Returns
        -------
        ndarray of int64, shape (N * n_trees, depth + 1)
            Row ``point * n_trees + tree`` holds the path's nodes, root first (column =
            depth), padded with -1 (all -1 for an empty tree).
        """
        X = np.asarray(X, dtype=float)
        N, M = X.shape[0], self.n_trees
        d = self._data
        left, right, sdim, sloc = d["left"], d["right"], d["split_dim"], d["split_loc"]
        flat = np.ascontiguousarray(X).reshape(-1)  # a 1-D gather beats a 2-D one
        entry = np.arange(N * M)
        base = entry // M * X.shape[1]  # the entry's point's first coordinate in flat
        node = np.tile(self.roots, N)
        if self.roots.min() < 0:  # empty trees: no path
            grown = np.flatnonzero(node >= 0)
            entry, base, node = entry[grown], base[grown], node[grown]
        columns = []
        while entry.size:
            col = np.full(N * M, -1, dtype=np.int64)
            col[entry] = node
            columns.append(col)
            lc = left[node]
            inner = np.flatnonzero(lc >= 0)
            if inner.size < node.size:
                entry, base, node, lc = entry[inner], base[inner], node[inner], lc[inner]
            node = np.where(flat[base + sdim[node]] > sloc[node], right[node], lc)
        return np.column_stack(columns) if columns else np.full((N * M, 1), -1, np.int64)

    def _extend_point(self, x, point_stats, rng, ops, where, split_pure=True, paths=None,
                      inside=None):
        """Insert one point into every tree (the conditional Mondrian ``MTx``); write
        the (operation, node) of each tree into ``ops`` and ``where`` (rows of
        :meth:`extend`'s results, NO_CHANGE and -1 on entry); return the point's path in
        each tree after the insertion (a list of node ids per tree, root first).

        Boxes only grow, so the point's path down a tree is fixed by the splits: each
        path is walked first (Python scalars: a few steps per tree; ``paths``, from
        :meth:`walk_point` on the same trees, skips the walk; ``inside[m]`` True: the point
        is known to lie in the box of its leaf in tree ``m``). Boxes nest along a path,
        so the point lies outside the boxes of a suffix of it (found from the leaf up);
        only the nodes of that suffix have a clock (an exponential at rate the point's
        distance beyond the box), read top-down. The first whose clock rings before its
        split time gets a split inserted above it (dimension proportional to the gap,
        location uniform within it); the nodes above it grow their boxes and statistics.
        This is the sequential walk of ``MTx``, with Python numbers where the work per
        node is a few operations (the draws come from :meth:`_draws`' buffers).
        """
        M = self.n_trees
        self._frozen = self._depth = None  # the arrays derived from the nodes change
        started = ()
        if min(self.roots.tolist()) < 0:
            started = self._start_empty_trees(x, point_stats).tolist()
            for m in started:
                where[m] = int(self.roots[m])
            if len(started) == M:
                return [[j] for j in self.roots.tolist()]
        n = self._n
        if n + 2 * M > self._data["tree"].shape[0]:  # a split and a leaf per tree
            self._allocate(max(2 * (n + 2 * M), 16))
        d = self._data
        xs = x.tolist()
        if paths is None:
            paths = self.walk_point(xs)
        elif None in paths:  # trees to walk again
            again = [m for m, p in enumerate(paths) if p is None]
            for m, p in zip(again, self.walk_point(xs, again)):
                paths[m] = p
        D, K = self.n_features, self.n_stats
        v = self.views()
        lower, upper, stats, stime = v["lower"], v["upper"], v["stats"], v["split_time"]
        lifetime = self.lifetime
        exponential, uniform = self._draws(rng)
        ps = point_stats.tolist()
        # with split_pure False a node rings only if it holds statistics the point has not
        # (a classifier's node with points of another label)
        other = None if split_pure else [c for c in range(K) if ps[c] == 0.0]
        joins, splits = [], []  # nodes gaining the point; splits
        for m, path in enumerate(paths):
            if started and m in started:  # started by this point
                continue
            if inside is not None and inside[m]:  # inside every box of the path
                joins.extend(path)
                where[m] = path[-1]
                continue
            o = path[-1] * D
            for dd in range(D):  # inside the leaf's box, the point is inside all: no clock
                if not lower[o + dd] <= xs[dd] <= upper[o + dd]:
                    break
            else:
                joins.extend(path)
                where[m] = path[-1]
                continue
            L = len(path)
            k, gaps = _outside_suffix(path, xs, lower, upper, D)
            f = L
            for i in range(k, L):
                j = path[i]
                if other is not None:
                    for c in other:
                        if stats[j * K + c]:
                            break
                    else:
                        continue  # a pure node stays whole
                g, r = gaps[i - k]
                birth = stime[path[i - 1]] if i else 0.0
                wait = exponential()
                if wait < r * (min(stime[j], lifetime) - birth):
                    f = i
                    splits.append((m, j, g, r, birth + wait / r))
                    break
            joins.extend(path[:f])
            for j in path[k:f]:  # boxes the point lies outside grow to it
                for dd in range(D):
                    xd = xs[dd]
                    if xd < lower[j * D + dd]:
                        lower[j * D + dd] = xd
                    elif xd > upper[j * D + dd]:
                        upper[j * D + dd] = xd
            if f == L:  # no ring: the point joins the leaf
                where[m] = path[-1]
                ops[m] = EXTEND if k < L else NO_CHANGE
        if joins:  # a column at a time: flat 1-D indexing beats 2-D rows
            flat = np.array(joins, dtype=np.int64) * K
            for c in range(K):
                if ps[c] != 0.0:
                    d["stats"].reshape(-1)[flat + c] += ps[c]
        k = len(splits)
        if k:
            # the new splits get ids n .. n+k-1 (the box and statistics of the node
            # they go above, grown by the point), their new leaves n+k .. n+2k-1 (the
            # point alone)
            for i, (_, j, *_) in enumerate(splits):
                _write_split(j, n + i, n + k + i, xs, ps, lower, upper, stats, D, K)
            self._n = n + 2 * k
            self._link_splits(xs, splits, n, uniform, ops, where)
            for i, (m, j, *_) in enumerate(splits):
                path = paths[m]
                paths[m] = path[:path.index(j)] + [n + i, n + k + i]
        for m in started:
            paths[m] = [int(self.roots[m])]
        return paths

    def views(self) -> dict:
        """Return the node arrays as memoryviews, for reading a few nodes in Python.

        Their items read and write as Python numbers, faster than NumPy's for a few at
        a time. Cached until the arrays move (the store grows past its capacity).

        Returns
        -------
        dict of str to memoryview
            One per node field, over the whole capacity; ``lower``, ``upper`` and
            ``stats`` flat, row-major (node ``j``'s column ``c`` at ``j * width + c``).
        """
        cache = self.__dict__.get("_views")
        if cache is None or cache[0] is not self._data:
            views = {f: memoryview(a) for f, a in self._data.items()}
            for f in _ROW_FIELDS:
                views[f] = views[f].cast("B").cast("d")
            cache = self._views = (self._data, views)
        return cache[1]

    def walk_lists(self) -> tuple:
        """Return ``left``, ``right``, ``split_dim`` and ``split_loc`` as Python lists.

        A walk down a tree reads three or four of these per node: an item of a list
        reads in ~10 ns, of a memoryview in ~35 ns (int64: ~40), of a NumPy array in
        ~100. The lists are built from the arrays on first use and kept current by the
        one-point insertion (:meth:`_extend_point` appends its splits); any other change
        to the nodes (a joint draw, new roots) drops them, to be built again.

        Returns
        -------
        tuple of list
            ``(left, right, split_dim, split_loc)``, one item per node; read only.
        """
        lists = self.__dict__.get("_lists")
        if lists is None:
            n, d = self._n, self._data
            lists = self._lists = tuple(d[f][:n].tolist() for f in _WALK_FIELDS)
        return lists

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_views", None)  # memoryviews do not pickle; rebuilt on demand
        state["_lists"] = None  # rebuilt on demand too
        return state

    def _draws(self, rng):
        """Return the store's :class:`_Draws` from ``rng``."""
        draws = self.__dict__.get("_buffers")
        if draws is None or draws.rng is not rng:
            draws = self._buffers = _Draws(rng)
        return draws.exponential, draws.uniform

    def walk_point(self, xs, trees=None, starts=None) -> list:
        """Return the path of one point down each tree, walked in Python numbers.

        Parameters
        ----------
        xs : list of float
            The point's D coordinates.
        trees : list of int, optional
            Only these trees, in this order (default: all).
        starts : list of int, optional
            Walk from these nodes instead of the trees' roots (the paths then start
            there).

        Returns
        -------
        list of list of int
            Each tree's path, node ids from the root to the leaf (empty for an empty
            tree).
        """
        left, right, sdim, sloc = self.walk_lists()
        roots = self.roots.tolist()
        paths = []
        if starts is None:
            starts = roots if trees is None else [roots[m] for m in trees]
        for j in starts:
            path = []
            step = path.append
            while j >= 0:
                step(j)
                child = left[j]
                if child < 0:
                    break
                j = child if xs[sdim[j]] <= sloc[j] else right[j]
            paths.append(path)
        return paths

    def _link_splits(self, xs, splits, n, uniform, ops, where):
        """Link in the splits of one point: for the ``i``-th ``(tree, j, gaps, rate,
        time)`` of ``splits``, a split (node ``n + i``) above node ``j`` at ``time``,
        its new leaf ``n + k + i`` holding the point; dimension proportional to the gap,
        location uniform within it (``uniform()`` draws the uniforms)."""
        v = self.views()
        tree, parent, left, right, sdim, stime, sloc = (v[f] for f in (
            "tree", "parent", "left", "right", "split_dim", "split_time", "split_loc"))
        lower, upper = v["lower"], v["upper"]
        k, D = len(splits), self.n_features
        for i, (m, j, g, rate, time) in enumerate(splits):
            target, acc = uniform() * rate, 0.0
            for dd in range(D):
                acc += g[dd]
                if acc > target:
                    break
            else:  # rounding at the end of the sum: the last dimension with a gap
                dd = max(c for c in range(D) if g[c] > 0.0)
            below = xs[dd] < lower[j * D + dd]  # the point lies below j's box there
            node, leaf = n + i, n + k + i
            where[m] = j
            ops[m] = SPLIT_LEAF if left[j] < 0 else INSERT_ABOVE
            tree[node] = tree[leaf] = m
            p = parent[j]
            parent[node], parent[leaf], parent[j] = p, node, node
            left[node], right[node] = (leaf, j) if below else (j, leaf)
            left[leaf] = right[leaf] = sdim[leaf] = -1
            sdim[node] = dd
            stime[node], stime[leaf] = time, math.inf
            # uniform in the gap, from its lower end: [x, lower) or [upper, x), so that
            # even u = 0 leaves the point on its new leaf's side
            sloc[node] = (xs[dd] if below else upper[j * D + dd]) + g[dd] * uniform()
            sloc[leaf] = math.nan
            if p < 0:
                self.roots[m] = node
            elif left[p] == j:
                left[p] = node
            else:
                right[p] = node
        lists = self.__dict__.get("_lists")
        if lists is not None and len(lists[0]) != n:
            lists = self._lists = None
        if lists is not None:  # the walk's lists follow: the new nodes, the changed children
            for f, values in zip(_WALK_FIELDS, lists, strict=True):
                values.extend(self._data[f][n:n + 2 * k].tolist())
            left_list, right_list = lists[0], lists[1]
            for p in parent[n:n + k].tolist():
                if p >= 0:
                    left_list[p], right_list[p] = left[p], right[p]

    # ------------------------------------------------------------ frozen arrays
    def arrays(self) -> dict:
        """Return the nodes as NumPy arrays (cached until the next change), with depth and times.

        Returns
        -------
        dict
            Per-node arrays (``tree``, ``parent``, ``left``, ``right``, ``split_time``,
            ``split_dim``, ``split_loc``, ``lower``, ``upper``, ``stats``), plus ``roots``,
            ``depth``, ``birth`` and ``end`` times, ``span``, ``box`` and ``is_leaf``.
        """
        if self._frozen is not None:
            return self._frozen
        a = {f: getattr(self, f) for f in (*_INT_FIELDS, *_FLOAT_FIELDS, *_ROW_FIELDS)}
        a["roots"] = self.roots
        n = self._n
        parent, left, right = a["parent"], a["left"], a["right"]
        depth = getattr(self, "_depth", None)
        if depth is None or depth.size != n:
            depth = np.zeros(n, dtype=np.int64)
            frontier, level = self.roots[self.roots >= 0], 0
            while frontier.size:  # top-down, one pass per level
                depth[frontier] = level
                inner = frontier[left[frontier] >= 0]
                frontier = np.concatenate((left[inner], right[inner]))
                level += 1
            self._depth = depth
        end = np.minimum(a["split_time"], self.lifetime)
        a["end"] = end
        a["birth"] = np.where(parent >= 0, end[np.maximum(parent, 0)], 0.0)
        a["depth"] = depth
        a["is_leaf"] = left < 0
        a["lifetime"] = self.lifetime
        a["span"] = end - a["birth"]
        a["box"] = np.hstack([a["lower"], a["upper"]])
        self._frozen = a
        return a


class _Draws:
    """Standard exponentials and uniforms from ``rng``, drawn 256 at a time: a call of
    NumPy's per number costs microseconds, a list's pop a few dozen nanoseconds (the
    numbers are i.i.d. either way)."""

    def __init__(self, rng):
        self.rng, self._exps, self._unis = rng, [], []

    def exponential(self) -> float:
        if not self._exps:
            self._exps = self.rng.standard_exponential(256).tolist()
        return self._exps.pop()

    def uniform(self) -> float:
        if not self._unis:
            self._unis = self.rng.random(256).tolist()
        return self._unis.pop()


class _StoreBuilder(Builder):
    """The :class:`~mondrian_core.tree_extension.Builder` of a :class:`TreeStore`: new
    nodes are appended to the store, and every node the draw reports adds its rows'
    statistics and bounding box (a node inserted above ``j`` starts from ``j``'s).
    ``outside`` marks the entries that lay outside a fitted node's box on their way."""

    def __init__(self, store: TreeStore, X, point_stats):
        self.store, self.X, self.point_stats = store, X, point_stats
        self.outside = np.zeros(store.n_trees * X.shape[0], dtype=bool)

    # the store's node arrays, read anew at each use (they move when the store grows)
    tree = property(lambda self: self.store.tree)
    parent = property(lambda self: self.store.parent)
    left = property(lambda self: self.store.left)
    right = property(lambda self: self.store.right)
    split_time = property(lambda self: self.store.split_time)
    split_dim = property(lambda self: self.store.split_dim)
    split_loc = property(lambda self: self.store.split_loc)
    roots = property(lambda self: self.store.roots)

    def _new(self, count, tree, parent, birth):
        return self.store._append_blank(count, tree, parent)

    def _inserted(self, P, j, tau):
        d = self.store._data
        for f in ("lower", "upper", "stats"):
            d[f][P] = d[f][j]

    def visited(self, nodes, fitted, entries, starts, lower, upper):
        d = self.store._data
        rows = entries % self.X.shape[0]
        lo, up = d["lower"][nodes], d["upper"][nodes]
        sizes = np.diff(starts, append=entries.size)
        f_rows = np.repeat(fitted, sizes)
        x = self.X[rows[f_rows]]
        self.outside[entries[f_rows]] |= ((x < np.repeat(lo[fitted], sizes[fitted], axis=0))
                                          | (x > np.repeat(up[fitted], sizes[fitted], axis=0))
                                          ).any(axis=1)
        d["stats"][nodes] += np.add.reduceat(self.point_stats[rows], starts, axis=0)
        d["lower"][nodes] = np.minimum(lo, lower)
        d["upper"][nodes] = np.maximum(up, upper)


class _Gather:
    """A derived node field computed only for the nodes asked: ``view[key][ids]``."""

    def __init__(self, fn):
        self._fn = fn

    def __getitem__(self, ids):
        return self._fn(ids)


def path_view(store: TreeStore) -> dict:
    """Return the node fields :func:`walk` reads, derived only for the nodes it visits.

    :meth:`TreeStore.arrays` derives boxes, spans and leaf flags for every node, once per
    change: for a few points predicted after each update (test-then-train) that costs
    the forest's size per prediction, where their paths need a few nodes per tree.

    Parameters
    ----------
    store : TreeStore
        The trees.

    Returns
    -------
    dict
        ``box``, ``span`` and ``is_leaf`` (indexed by node ids, computed on access, as
        :meth:`TreeStore.arrays` computes them), and the stored ``split_dim``,
        ``split_loc``, ``left``, ``right``, ``parent``, ``lower``, ``upper``, ``stats``
        and ``roots``. The stored arrays are the store's own, spare capacity included:
        index them by node ids only.
    """
    d, lifetime = store._data, store.lifetime

    def end(ids):
        return np.minimum(d["split_time"][ids], lifetime)

    def span(ids):
        parent = d["parent"][ids]
        return end(ids) - np.where(parent >= 0, end(np.maximum(parent, 0)), 0.0)

    view = {f: d[f] for f in ("split_dim", "split_loc", "left", "right", "parent", "lower",
                              "upper", "stats")}
    view.update(box=_Gather(lambda ids: np.hstack([d["lower"][ids], d["upper"][ids]])),
                span=_Gather(span), is_leaf=_Gather(lambda ids: d["left"][ids] < 0),
                roots=store.roots)
    return view


def walk(a: dict, X: np.ndarray, n_trees: int):
    """Extend every tree to every row of X; yield one record per path level.

    Yields ``(entry, node, surv, p_branch, z, is_leaf)`` for the active
    (tree, point) entries (``entry = tree * N + point``): the survival
    probability of reaching ``node`` without branching off, the probability of
    branching off in ``node``'s interval given that, and ``z = rate * length``.

    Parameters
    ----------
    a : dict
        The store's :meth:`TreeStore.arrays` (or its :func:`path_view`).
    X : ndarray of shape (N, D)
        The points.
    n_trees : int
        Number of trees.

    Yields
    ------
    tuple of ndarray
        ``(entry, node, surv, p_branch, z, is_leaf)``, one record per path level.
    """
    N, D = X.shape
    box, span, is_leaf = a["box"], a["span"], a["is_leaf"]
    split_dim, split_loc, left_child, right_child = (a["split_dim"], a["split_loc"], a["left"],
                                                     a["right"])
    roots = np.asarray(a["roots"])[:n_trees]
    grown = np.flatnonzero(roots >= 0)
    # groups of trees whose (tree, point) entries stay cache-sized advance together,
    # one level per step
    per_group = max(1, _WALK_ENTRIES // max(N, 1))
    for g in range(0, grown.size, per_group):
        yield from _walk_group(X, roots, grown[g:g + per_group], box, span, is_leaf, split_dim,
                               split_loc, left_child, right_child)


_WALK_ENTRIES = 1 << 16


def _walk_group(X, roots, trees, box, span, is_leaf, split_dim, split_loc, left_child,
                right_child):
    N, D = X.shape
    entry = (trees[:, None] * N + np.arange(N)[None, :]).reshape(-1)
    point = entry % N
    node = np.repeat(roots[trees], N)
    surv = np.ones(entry.size)
    while entry.size:
        b = box[node]
        x = X[point]
        with np.errstate(over="ignore"):  # a point ~1e308 away: z = inf gave NaN moments
            rate = (np.maximum(b[:, :D] - x, 0.0) + np.maximum(x - b[:, D:], 0.0)).sum(axis=1)
            z = np.minimum(rate * span[node], 1e300)
        p_branch = -np.expm1(-z)
        leaf = is_leaf[node]
        yield entry, node, surv, p_branch, z, leaf
        go = np.flatnonzero(~leaf)
        surv = surv[go] * (1.0 - p_branch[go])
        entry, point, node = entry[go], point[go], node[go]
        goes_left = X[point, split_dim[node]] <= split_loc[node]
        node = np.where(goes_left, left_child[node], right_child[node])


def truncated_exp_moments(z: np.ndarray):
    """Return E[u] and E[u^2] for u on [0, 1] with density proportional to z exp(-z u).

    Parameters
    ----------
    z : ndarray
        The rate of the truncated exponential (>= 0).

    Returns
    -------
    eu : ndarray
        The first moment E[u].
    eu2 : ndarray
        The second moment E[u^2].
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
    z : ndarray
        The rate of the truncated exponential (>= 0).
    w : ndarray
        The discount rate, broadcast with ``z``.

    Returns
    -------
    ndarray
        The expected discount.
    """
    s = z + w
    a = np.where(s > 1e-12, -np.expm1(-s) / np.where(s > 1e-12, s, 1.0), 1.0)
    b = np.where(z > 1e-12, z / np.where(z > 1e-12, -np.expm1(-z), 1.0), 1.0)
    return a * b


def _outside_suffix(path, xs, lower, upper, D):
    """Return ``(k, gaps)`` for a point ``xs`` outside the box of the path's leaf (the
    caller checks): it lies outside the boxes of ``path[k:]`` and inside those above
    (boxes nest along a path, so these form a suffix, found from the leaf up), and
    ``gaps[i]`` is ``(g, sum(g))`` for ``path[k + i]``, ``g`` the point's distance
    beyond the box in each dimension. ``lower`` and ``upper`` are the store's flat
    views (:meth:`TreeStore.views`)."""
    k, gaps = len(path), []
    while k:
        j = path[k - 1]
        g, r = [], 0.0
        for dd in range(D):
            xd, lo = xs[dd], lower[j * D + dd]
            if xd < lo:
                v = lo - xd
            else:
                v = xd - upper[j * D + dd]
                if v < 0.0:
                    v = 0.0
            g.append(v)
            r += v
        if r == 0.0:
            break
        gaps.append((g, r))
        k -= 1
    gaps.reverse()
    return k, gaps


def _write_split(j, node, leaf, xs, ps, lower, upper, stats, D, K):
    """Fill a split inserted above node ``j`` by the point ``xs``: the new ``node`` gets
    ``j``'s box and statistics grown by the point, the new ``leaf`` the point alone
    (``ps``, its statistics), in the store's flat views."""
    for dd in range(D):
        xd, lo, up = xs[dd], lower[j * D + dd], upper[j * D + dd]
        lower[node * D + dd] = xd if xd < lo else lo
        upper[node * D + dd] = xd if xd > up else up
        lower[leaf * D + dd] = upper[leaf * D + dd] = xd
    for c in range(K):
        stats[node * K + c] = stats[j * K + c] + ps[c]
        stats[leaf * K + c] = ps[c]


#: Below this many features :func:`walk_by_columns` adds the per-dimension gaps one
#: column after the other, as NumPy's row sum of ``walk`` does; from 8 on NumPy sums a
#: row pairwise, and :func:`walk_by_columns` hands over to :func:`walk` for the same
#: numbers.
_SEQUENTIAL_ROW_SUM = 8


@docfiller({"walk": params(walk.__doc__, "a", "X", "n_trees", section=True)})
def walk_by_columns(a: dict, X: np.ndarray, n_trees: int):
    """:func:`walk` reading the nodes one column at a time: the same records, faster.

    ``walk`` gathers each entry's box (``box[node]``, four values a row in 2-D) and
    point, then sums the gaps over a short row: on many points (a map's grid) these
    gathers and the row sum are most of a prediction. Here the point's coordinates
    and the box's bounds are taken one dimension at a time from flat arrays, and the
    gaps added in the order of NumPy's row sum, so every record is the same to the bit.

    %(walk)s

    Yields
    ------
    tuple of ndarray
        ``(entry, node, surv, p_branch, z, is_leaf)``, as :func:`walk` yields them.
    """
    N, D = X.shape
    if D >= _SEQUENTIAL_ROW_SUM:
        yield from walk(a, X, n_trees)
        return
    X = np.ascontiguousarray(X, dtype=float)
    columns = np.ascontiguousarray(X.T)
    flat = {f: np.ravel(a[f]) for f in ("lower", "upper")}  # views of the store's rows
    take = {f: (a[f].take if isinstance(a[f], np.ndarray) else a[f].__getitem__)
            for f in ("span", "is_leaf", "split_dim", "split_loc", "left", "right")}
    roots = np.asarray(a["roots"])[:n_trees]
    grown = np.flatnonzero(roots >= 0)
    per_group = max(1, _WALK_ENTRIES // max(N, 1))  # the groups of walk, in its order
    for g in range(0, grown.size, per_group):
        trees = grown[g:g + per_group]
        entry = (trees[:, None] * N + np.arange(N)[None, :]).reshape(-1)
        point = entry % N
        node = np.repeat(roots[trees], N)
        surv = np.ones(entry.size)
        while entry.size:
            row = node * D
            rate = None
            with np.errstate(over="ignore"):  # as in walk: z is capped at 1e300 below
                for d in range(D):
                    x = columns[d].take(point)
                    gap = (np.maximum(flat["lower"].take(row + d) - x, 0.0)
                           + np.maximum(x - flat["upper"].take(row + d), 0.0))
                    rate = gap if rate is None else rate + gap
                z = np.minimum(rate * take["span"](node), 1e300)
            p_branch = -np.expm1(-z)
            leaf = take["is_leaf"](node)
            yield entry, node, surv, p_branch, z, leaf
            go = np.flatnonzero(~leaf)
            surv = surv[go] * (1.0 - p_branch[go])
            entry, point, node = entry[go], point[go], node[go]
            goes_left = X.take(point * D + take["split_dim"](node)) <= take["split_loc"](node)
            node = np.where(goes_left, take["left"](node), take["right"](node))
