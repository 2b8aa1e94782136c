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

The fields of :class:`MondrianTrees` (documented there) are what the kernel, the
lifetime sweep, the partition kernels and the forest rely on.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mondrian_core._docstrings import docfiller, fill_doc, params
from mondrian_core._validation import (
    check_count,
    check_lifetime,
    check_points,
    check_random_state,
    round_down,
)
from mondrian_core.errors import InputError
from mondrian_core.process import expected_cells, max_lifetime
from mondrian_core.tree_extension import (  # noqa: F401 - row_hash, hashed_exponential: re-exported
    TreesBuilder,
    assemble,
    draw_beside_fitted,
    hashed_exponential,
    independent_extension,
    number_new_cells,
    row_hash,
)

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


def nodes_by_depth(depth: np.ndarray) -> list[np.ndarray]:
    """Return the ids of the nodes at each depth, the roots' level first.

    One stable sort by depth (a radix sort on 16-bit keys: 2.4x faster than a scan of
    all nodes per level at 400,000 nodes and depth 35, which costs nodes x depth).

    Parameters
    ----------
    depth : ndarray of int, shape (n_nodes,)
        Each node's depth (0 at a root).

    Returns
    -------
    list of ndarray
        ``levels[k]``: the nodes of depth ``k``, in increasing id order.
    """
    depth = np.asarray(depth)
    if depth.size == 0:
        return []
    key = depth.astype(np.uint16) if depth.max() < 2**16 else depth
    order = np.argsort(key, kind="stable")
    return np.split(order, np.cumsum(np.bincount(depth))[:-1])


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
    for nodes in reversed(nodes_by_depth(depth)):  # deepest level first
        j = nodes[left[nodes] >= 0]
        # np.take: several times faster than fancy indexing of short rows
        out[j] = ufunc(np.take(out, left[j], axis=0), np.take(out, right[j], axis=0))
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

    Made by :func:`sample_mondrian_trees`, which says how the trees are drawn.
    Node ids are global integers (all trees concatenated); a node exists only if
    it holds at least one fitted point.

    Parameters
    ----------
    lifetime : float
        Terminal lifetime the trees were grown to.
    n_trees : int
        Number of trees.
    n_features_in : int
        Dimension D of the fitted points.
    tree : ndarray of int, shape (n_nodes,)
        The tree each node belongs to.
    roots : ndarray of int, shape (n_trees,)
        The root node of each tree.
    parent, left, right : ndarray of int, shape (n_nodes,)
        Tree links, ``-1`` where absent (``left < 0`` marks a leaf).
    depth : ndarray of int, shape (n_nodes,)
        Number of cuts above each node (0 for roots).
    birth_time : ndarray of float, shape (n_nodes,)
        The time the node's cell appeared (its parent's split time; 0 for roots).
    split_time : ndarray of float, shape (n_nodes,)
        The time the node is cut; ``inf`` where it is not cut before ``lifetime``.
    split_dim : ndarray of int, shape (n_nodes,)
        The cut's dimension, ``-1`` for leaves.
    split_loc : ndarray of float, shape (n_nodes,)
        The cut's location (points with ``x[d] <= loc`` go left), ``nan`` for leaves.
    order : ndarray of int, shape (n_trees, N)
        Per tree a permutation of the points making each node's points
        contiguous: ``order[tree[j], start[j]:stop[j]]``.
    start, stop : ndarray of int, shape (n_nodes,)
        Each node's slice of ``order``.
    leaf_of_point : ndarray of int, shape (n_trees, N)
        The leaf holding each fitted point in each tree.
    X_fit : ndarray of shape (N, D)
        The fitted points.
    origin : ndarray of int, shape (n_nodes,), optional
        For trees grown online (:meth:`extended`), the oldest node holding the same
        earlier-seen points as each node; default each node itself.
    n_base_nodes : int, optional
        The number of nodes of the first fit: nodes with ``origin < n_base_nodes``
        hold points of it; default ``n_nodes``.

    Attributes
    ----------
    lower, upper : ndarray of float, shape (n_nodes, D)
        Bounding box of the fitted points in each node (computed on first
        access and cached).
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
    #: ``origin[k]``: the oldest node holding the same earlier-seen points as ``k`` (a node
    #: inserted above ``j`` by :meth:`extended` holds ``j``'s points); ``arange`` for a
    #: fresh sample. Nodes with ``origin < n_base_nodes`` hold points of the first fit.
    origin: np.ndarray = None
    n_base_nodes: int = None

    def __post_init__(self):
        if self.origin is None:
            object.__setattr__(self, "origin", np.arange(self.tree.size))
        if self.n_base_nodes is None:
            object.__setattr__(self, "n_base_nodes", int(self.tree.size))

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
        """The lower corner of the bounding box of each node's points, (n_nodes, D)."""
        return self._boxes[0]

    @property
    def upper(self) -> np.ndarray:
        """The upper corner of the bounding box of each node's points, (n_nodes, D)."""
        return self._boxes[1]

    # ------------------------------------------------------------------ basics
    @property
    def n_nodes(self) -> int:
        """The number of nodes over all trees."""
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
        """The depth of the deepest node over all trees."""
        return int(self.depth.max()) if self.n_nodes else 0

    def _check_time(self, time) -> float:
        if time is None:
            return float(self.lifetime)
        time = check_lifetime(time, "time")
        if time > self.lifetime:
            raise InputError(
                f"time must lie in [0, {self.lifetime:g}] (the terminal lifetime); got {time:g}."
            )
        return time

    def alive_at(self, time=None) -> np.ndarray:
        """Return a boolean mask of the nodes alive at ``time`` (birth <= time < split).

        Parameters
        ----------
        time : float, optional
            A time in ``[0, lifetime]``; default the terminal lifetime, where the
            alive nodes are the leaves.

        Returns
        -------
        ndarray of bool, shape (n_nodes,)
            True for the nodes that are cells of the partition at ``time``.

        Raises
        ------
        InputError
            If ``time`` lies outside ``[0, lifetime]``.
        """
        time = self._check_time(time)
        if time >= self.lifetime:
            return self.is_leaf.copy()
        return (self.birth_time <= time) & (time < self.split_time)

    @docfiller({"time": params(alive_at.__doc__, "time", section=True)})
    def n_cells(self, time=None) -> np.ndarray:
        """Return the number of cells (non-empty nodes) of each tree at ``time``.

        %(time)s

        Returns
        -------
        ndarray of int, shape (n_trees,)
            The number of cells of each tree.
        """
        alive = self.alive_at(time)
        return np.bincount(self.tree[alive], minlength=self.n_trees)

    @docfiller({"time": params(alive_at.__doc__, "time", section=True)})
    def nodes_at(self, time=None) -> np.ndarray:
        """Return, for every fitted point, the node alive at ``time`` in each tree.

        %(time)s

        Returns
        -------
        ndarray of int, shape (n_trees, N)
            Node ids.
        """
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
        """Return the ids of the cut nodes sorted by split time (ties broken by id).

        Returns
        -------
        ndarray of int
            The internal nodes, in the order their cuts happen: the events of the
            lifetime sweep.
        """
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
            The points to place.
        time : float in [0, lifetime], optional
            The time at which to read the partition; default the terminal lifetime.
        random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
            Seeds the exponential clocks (see
            :func:`~mondrian_core.check_random_state`).

        Returns
        -------
        nodes : ndarray of int, shape (n_trees, N_new)
            Node alive at ``time`` reached, or where the point branched off,
            the node above which it branched off.
        branched : ndarray of bool, shape (n_trees, N_new)
            True where the point branched off into a new cell.

        Raises
        ------
        InputError
            If ``X_new`` is invalid or has another dimension, or ``time`` is out of
            range.

        References
        ----------
        Roy and Teh (2009), "The Mondrian Process". Lakshminarayanan, Roy and Teh
        (2014), "Mondrian Forests: Efficient Online Random Forests".

        Examples
        --------
        >>> from mondrian_core import sample_mondrian_trees, two_moons
        >>> trees = sample_mondrian_trees(two_moons(n=50, random_state=0).X, n_trees=5,
        ...                               lifetime=4.0, random_state=0)
        >>> nodes, branched = trees.apply(trees.X_fit[:3], random_state=0)  # fitted: own leaves
        >>> bool((nodes == trees.leaf_of_point[:, :3]).all()), bool(branched.any())
        (True, False)
        >>> nodes, branched = trees.apply([[5.0, 5.0]], random_state=0)  # far away: a cell of its own
        >>> bool(branched.all())
        True
        """
        X_new = check_points(X_new, "X_new", n_features=self.n_features_in)
        time = self._check_time(time)
        seed = np.uint64(check_random_state(random_state).integers(2**63))
        return independent_extension(self, X_new, time, seed)

    def extend_jointly(self, X_new, time=None, random_state=None):
        """Place all rows of ``X_new`` by one conditional Mondrian draw (joint extension).

        The result is distributed as the restriction to ``X_new`` of a Mondrian of the
        fitted points and ``X_new`` together, given that its restriction to the fitted
        points is this tree: so the partition of any two rows, new or fitted, is right in
        distribution (and the Mondrian kernel between two new points is unbiased for the
        Laplace kernel, which :meth:`apply`'s independent extensions are not).

        The rows that reach node ``j`` (fitted box ``B``, alive from ``birth``) are
        handled together. Cuts of the enlarged box ``bbox(B + rows)`` that miss ``B``
        happen at rate equal to the linear dimension of the gap between the two boxes
        (Poisson thinning of the Mondrian's cut proposals); if the first comes before
        ``min(split_time[j], time)`` it is placed in a dimension proportional to the gap's
        side and uniformly in the gap, the rows beyond it leave as a group of their own
        (a fresh Mondrian of those rows from that time on, which cuts its own bounding
        box), and the rest go on at ``j`` from the cut's time (memorylessness). Otherwise
        the rows follow ``j``'s cut to its children, or stay in ``j`` if it is not cut by
        ``time``. This is the conditional Mondrian of Roy and Teh (2009) and the batch
        form of the online update of Lakshminarayanan et al. (2014), run for all trees
        and groups of rows at once, one round per level. Rows equal to fitted points
        take those points' cells and are left out of the draw, so stacking fitted points
        with new ones does not change where the new ones go.

        Parameters
        ----------
        X_new : array-like of shape (N_new, D)
            The points to place.
        time : float in [0, lifetime], default the terminal lifetime
            The lifetime at which to read the partition.
        random_state : None, int, numpy.random.Generator
            Seeds the draw; the same seed and rows give the same placement.

        Returns
        -------
        nodes : ndarray of int, shape (n_trees, N_new)
            The fitted node alive at ``time`` holding the row, or ``-1`` where the row is
            in a new cell (one holding no fitted point).
        new_cell : ndarray of int, shape (n_trees, N_new)
            ``-1`` where the row is in a fitted cell; otherwise the new cell's number,
            ``0 .. n_new_cells - 1`` over all trees, numbered by first appearance in
            row-major order over (row, tree); rows sharing a number share the cell.

        References
        ----------
        D. M. Roy and Y. W. Teh, "The Mondrian Process", NIPS 2009.
        B. Lakshminarayanan, D. M. Roy and Y. W. Teh, "Mondrian Forests: Efficient
        Online Random Forests", NIPS 2014 (the online update, Algorithm 3).
        """
        X_new = self._check_new(X_new)
        time = self._check_time(time)
        m, n = self.n_trees, X_new.shape[0]
        draw = draw_beside_fitted(self, X_new, time, check_random_state(random_state))
        return draw.node.reshape(m, n), number_new_cells(draw.cell, m, n)

    def extended(self, X_new, random_state=None) -> MondrianTrees:
        """These trees grown to hold ``X_new`` too (online training, Supplement C).

        One joint conditional Mondrian draw (see :meth:`extend_jointly`) at the terminal
        lifetime, kept as nodes: a cut in the gap above node ``j`` becomes a new node
        inserted above ``j``, rows that leave form new subtrees. The result is
        distributed as :func:`sample_mondrian_trees` on the fitted points and ``X_new``
        together (the Mondrian's projectivity and the conditional Mondrian). Node ids of
        these trees are kept; new nodes get the next ids.

        Parameters
        ----------
        X_new : array-like of shape (N_new, D)
            The points to add.
        random_state : None, int, numpy.random.Generator
            Seeds the draw.

        Returns
        -------
        MondrianTrees
            New trees over ``vstack([X_fit, X_new])``; ``origin`` maps each node to the
            oldest node holding the same earlier-seen points.

        References
        ----------
        M. Balog, B. Lakshminarayanan, Z. Ghahramani, D. M. Roy and Y. W. Teh,
        "The Mondrian Kernel", UAI 2016, Supplement C (online learning).
        """
        X_new = self._check_new(X_new)
        X_all = np.vstack([self.X_fit, X_new])
        check_tree_budget(X_all, self.n_trees, self.lifetime)
        m, n = self.n_trees, X_new.shape[0]
        b = TreesBuilder(self)
        draw = draw_beside_fitted(self, X_new, self.lifetime, check_random_state(random_state), b)
        leaf_new = np.where(draw.node >= 0, draw.node, draw.leaf).reshape(m, n)
        leaf = np.hstack([self.leaf_of_point, leaf_new])
        return assemble(self, b, leaf, X_all)

    def _check_new(self, X_new) -> np.ndarray:
        X_new = check_points(X_new, "X_new")
        if X_new.shape[1] != self.n_features_in:
            raise InputError(
                f"X_new has {X_new.shape[1]} features but the trees were grown on "
                f"{self.n_features_in}."
            )
        return X_new

@fill_doc
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
        The points (finite).
    n_trees : int >= 1
        Number of independent trees.
    lifetime : float >= 0
        Terminal lifetime, in units of inverse ``X``.
    %(random_state)s

    Returns
    -------
    MondrianTrees
        The trees as flat arrays.

    Raises
    ------
    InputError
        If an argument is invalid, or the trees would exceed ``MAX_TREE_ROWS``
        tree-point pairs or ``MAX_TREE_CELLS`` expected cells; the message says
        which lifetime or number of trees fits.

    References
    ----------
    Roy and Teh (2009), "The Mondrian Process". Balog, Lakshminarayanan, Ghahramani,
    Roy and Teh (2016), "The Mondrian Kernel", sec. 3. Lakshminarayanan, Roy and Teh
    (2014), "Mondrian Forests: Efficient Online Random Forests".

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import sample_mondrian_trees
    >>> X = np.random.default_rng(0).uniform(size=(50, 2))
    >>> trees = sample_mondrian_trees(X, n_trees=5, lifetime=4.0, random_state=0)
    >>> trees.nodes_at(2.0).shape  # each point's cell at lifetime 2, per tree
    (5, 50)
    >>> bool((trees.n_cells(2.0) <= trees.n_cells()).all())
    True
    """
    X = check_points(X)
    n_trees = check_count(n_trees, "n_trees")
    lifetime = check_lifetime(lifetime)
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
    roots = (np.tile(np.arange(n, dtype=itype), m), np.arange(m, dtype=np.int64), np.zeros(m),
             np.repeat(lo0[None], m, 0), np.repeat(hi0[None], m, 0),
             np.full(m, n, dtype=np.int64), lifetime, rng)
    # on a line every tree keeps its points sorted: the same draws, less work per round
    g = _grown(_LineGrowth(X, XT, *roots) if dim == 1 else _Growth(X, XT, *roots))
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
    root per tree born at 0 over all points (new points in fitted trees go through
    :func:`mondrian_core.tree_extension.joint_draw` instead).

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
    return _grown(_Growth(X, XT, pid, root_tree, root_time, root_lo, root_hi, root_len,
                          lifetime, rng))


def _grown(g) -> dict:
    """Run a growth's rounds to the end; its node fields."""
    while g.tick():
        d, loc, v, cut = g.propose()
        if cut.any():
            g.split(d, loc, v, cut)
    return g.result()


class _Working:
    """The active nodes of a growth round, one entry per node in each array: ``node``
    ids, ``tree``, ``depth``, ``clock`` (the time reached), the cell ``lo, hi`` and the
    node's rows ``pid[start : start + count]``."""

    FIELDS = ("node", "tree", "depth", "clock", "lo", "hi", "start", "count")

    def __init__(self, **arrays):
        self.__dict__.update(arrays)

    @property
    def size(self) -> int:
        return self.node.size

    def take(self, idx) -> _Working:
        """The entries ``idx`` (a mask or indices, repeats allowed)."""
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        # np.take: several times faster than fancy indexing of the (k, D) cells
        return _Working(**{f: np.take(getattr(self, f), idx, axis=0) for f in self.FIELDS})


class _Growth:
    """The rounds of :func:`grow_subtrees`: the working set, the nodes made so far (in
    creation order: ids) and the rows' final order."""

    def __init__(self, X, XT, pid, root_tree, root_time, root_lo, root_hi, root_len,
                 lifetime, rng):
        self.XT, self.lifetime, self.rng = XT, lifetime, rng
        self.n, self.dim = X.shape
        self.itype = pid.dtype.type
        self.m = m = root_tree.size
        self.pid = pid
        count = np.asarray(root_len, dtype=np.int64)
        self.w = _Working(node=np.arange(m, dtype=np.int64),
                          tree=np.asarray(root_tree, dtype=np.int64),
                          depth=np.zeros(m, dtype=np.int64),
                          clock=np.asarray(root_time, dtype=float).copy(),
                          lo=np.array(root_lo, dtype=float), hi=np.array(root_hi, dtype=float),
                          start=np.cumsum(count) - count, count=count)
        # node attributes, appended at creation; split records, appended at each cut
        self.made = {f: [] for f in ("tree", "parent", "depth", "birth", "start", "count")}
        self.cuts = {f: [] for f in ("node", "time", "dim", "loc")}
        self._record(self.w, np.full(m, -1, dtype=np.int64))
        self.next_id = m
        total = int(count.sum())
        self.order = np.empty(total, dtype=self.itype)
        self.leaf_at = np.empty(total, dtype=np.int64)

    def _record(self, w, parent):
        for f, v in (("tree", w.tree), ("parent", parent), ("depth", w.depth),
                     ("birth", w.clock.copy()), ("start", w.start), ("count", w.count)):
            self.made[f].append(v)

    def _retire(self, mask):
        """Nodes in ``mask`` are leaves: write their points' order and leaf id."""
        w = self.w
        r = np.repeat(mask, w.count)
        li = np.flatnonzero(mask)
        fpos = _segment_rows(w.start[li], w.count[li])
        self.order[fpos] = self.pid[r]
        self.leaf_at[fpos] = np.repeat(w.node[li], w.count[li])

    def tick(self) -> bool:
        """Advance every active node's clock by its next proposal's waiting time; retire
        the nodes past the lifetime (or of one point). False when none is left."""
        w = self.w
        rate = (w.hi - w.lo).sum(1)
        e = self.rng.standard_exponential(w.size)
        with np.errstate(divide="ignore"):
            w.clock = w.clock + np.where(rate > 0, e / np.where(rate > 0, rate, 1.0), np.inf)
        done = (w.clock >= self.lifetime) | (w.count < 2)  # a single point is never cut
        if done.any():
            self._retire(done)
            keep = ~done
            self._compact(keep)
            self.w = w.take(keep)
        return self.w.size > 0

    def _compact(self, keep):
        """Keep the rows of the nodes ``keep`` only (the active rows stay contiguous)."""
        self.pid = self.pid[np.repeat(keep, self.w.count)]

    def propose(self):
        """One proposed cut per node: dimension proportional to the cell's side, location
        uniform in it. A proposal outside the node's points shrinks the cell (it
        separates nothing). Returns the dimensions, locations, the rows' coordinates in
        their node's dimension and which proposals cut."""
        w, itype = self.w, self.itype
        k = w.size
        side = w.hi - w.lo
        cs = np.cumsum(side, axis=1)
        u = self.rng.random(k) * cs[:, -1]
        d = np.minimum((cs <= u[:, None]).sum(1), self.dim - 1)
        rows_k = np.arange(k)
        bad = side[rows_k, d] <= 0  # rounding at a zero-width side
        if bad.any():
            d[bad] = np.argmax(side[bad], axis=1)
        a, b = w.lo[rows_k, d], w.hi[rows_k, d]
        loc = a + self.rng.random(k) * (b - a)
        # the points' extent in dimension d, per node
        seg_off = np.cumsum(w.count) - w.count
        v = self.XT[np.repeat(d.astype(itype) * itype(self.n), w.count) + self.pid]
        lo = np.minimum.reduceat(v, seg_off)
        hi = np.maximum.reduceat(v, seg_off)
        below, above = loc < lo, loc >= hi
        # misses shrink the cell to the side holding the points
        w.lo[rows_k[below], d[below]] = loc[below]
        w.hi[rows_k[above], d[above]] = loc[above]
        return d, loc, v, ~(below | above)

    def split(self, d, loc, v, cut):
        """Cut the nodes ``cut``: record the splits, order their rows left first, and
        replace each in the working set by its two children."""
        w = self.w
        k = w.size
        ci = np.flatnonzero(cut)
        for f, val in (("node", w.node[ci]), ("time", w.clock[ci]), ("dim", d[ci]),
                       ("loc", loc[ci])):
            self.cuts[f].append(val)
        n_left = self._left_counts(v, loc, cut)
        # the working set: each cut node is replaced by its two children, in place
        nc = ci.size
        reps = np.where(cut, 2, 1)
        pos = np.cumsum(reps) - reps  # first slot of each old node
        is_child = np.zeros(int(reps.sum()), dtype=bool)
        is_child[pos[ci]] = True
        is_child[pos[ci] + 1] = True
        w = self.w = w.take(np.repeat(np.arange(k), reps))
        w.node[is_child] = self.next_id + np.arange(2 * nc)
        self.next_id += 2 * nc
        w.depth = w.depth + is_child
        left_slot, right_slot = pos[ci], pos[ci] + 1
        w.hi[left_slot, d[ci]] = loc[ci]
        w.lo[right_slot, d[ci]] = loc[ci]
        w.count[right_slot] = w.count[right_slot] - n_left[ci]
        w.count[left_slot] = n_left[ci]
        w.start[right_slot] = w.start[right_slot] + n_left[ci]
        new_slots = np.empty(2 * nc, dtype=np.int64)
        new_slots[0::2], new_slots[1::2] = left_slot, right_slot
        self._record(w.take(new_slots), np.repeat(self.cuts["node"][-1], 2))

    def _left_counts(self, v, loc, cut):
        """Each node's number of rows left of its cut (``v <= loc``), its rows moved left
        first (a stable partition); read at the cut nodes only."""
        return self._partition(v, np.where(cut, loc, np.inf))

    def _partition(self, v, loc):
        """Stable partition of every node's rows, left (``v <= loc``) first; return
        each node's number of left rows."""
        w = self.w
        seg_off = np.cumsum(w.count) - w.count
        go_left = v <= np.repeat(loc, w.count)
        seg = np.repeat(np.arange(w.size), w.count)
        cl = np.cumsum(go_left, dtype=np.int64)
        before = np.concatenate(([0], cl))[seg_off]  # lefts before each segment
        n_left = np.concatenate((before[1:], [cl[-1]])) - before
        idx = np.arange(self.pid.size, dtype=np.int64)
        before_row = before[seg]
        newpos = np.where(go_left, seg_off[seg] + cl - 1 - before_row,
                          idx + n_left[seg] - (cl - before_row))
        new_pid = np.empty_like(self.pid)
        new_pid[newpos] = self.pid
        self.pid = new_pid
        return n_left

    def result(self) -> dict:
        """The node fields of :func:`grow_subtrees`."""
        cat, m, n_nodes = np.concatenate, self.m, self.next_id
        split_time = np.full(n_nodes, np.inf)
        split_dim = np.full(n_nodes, -1, dtype=np.int64)
        split_loc = np.full(n_nodes, np.nan)
        left = np.full(n_nodes, -1, dtype=np.int64)
        right = np.full(n_nodes, -1, dtype=np.int64)
        parent = cat(self.made["parent"])
        if self.cuts["node"]:
            sid = cat(self.cuts["node"])
            split_time[sid] = cat(self.cuts["time"])
            split_dim[sid] = cat(self.cuts["dim"])
            split_loc[sid] = cat(self.cuts["loc"])
            kids = np.arange(m, n_nodes)
            is_left = (kids - m) % 2 == 0  # children are created in (left, right) pairs
            left[parent[kids[is_left]]] = kids[is_left]
            right[parent[kids[~is_left]]] = kids[~is_left]
        start = cat(self.made["start"])
        return dict(tree=cat(self.made["tree"]), roots=np.arange(m, dtype=np.int64),
                    parent=parent, left=left, right=right, depth=cat(self.made["depth"]),
                    birth_time=cat(self.made["birth"]), split_time=split_time,
                    split_dim=split_dim, split_loc=split_loc, start=start,
                    stop=start + cat(self.made["count"]), order=self.order,
                    leaf_at=self.leaf_at)


class _LineGrowth(_Growth):
    """:class:`_Growth` of batch trees (every root holds all ``n`` points) on a line.

    In one dimension a tree's cells are intervals laid out left to right, so if each
    tree's rows start sorted by ``x`` (ties by point id) every node's rows stay a sorted
    run at their final positions: a node's extent is its first and last row, a cut's
    left rows are a prefix counted by one binary search, and no row moves. The rounds
    draw exactly what :class:`_Growth`'s draw, node for node; only the order of the
    points inside each leaf differs, and :meth:`result` puts it back (point ids
    increasing, as :class:`_Growth`'s stable partitions leave them), so the trees are
    identical (tested against :class:`_Growth`).
    """

    def __init__(self, X, XT, pid, root_tree, root_time, root_lo, root_hi, root_len,
                 lifetime, rng):
        super().__init__(X, XT, pid, root_tree, root_time, root_lo, root_hi, root_len,
                         lifetime, rng)
        self.sorted_ids = np.argsort(X[:, 0], kind="stable").astype(self.itype)
        self.sorted_x = X[self.sorted_ids, 0]

    def _retire(self, mask):
        w = self.w
        li = np.flatnonzero(mask)
        self.leaf_at[_segment_rows(w.start[li], w.count[li])] = np.repeat(w.node[li],
                                                                          w.count[li])

    def _compact(self, keep):
        pass  # rows never move: positions are final from the start

    def propose(self):
        w = self.w
        k = w.size
        # the draws of _Growth.propose; on a line the dimension is always 0
        self.rng.random(k)
        d = np.zeros(k, dtype=np.int64)
        a, b = w.lo[:, 0], w.hi[:, 0]
        loc = a + self.rng.random(k) * (b - a)
        first = w.start - w.tree * self.n  # within the tree's sorted points
        lo, hi = self.sorted_x[first], self.sorted_x[first + w.count - 1]
        below, above = loc < lo, loc >= hi
        rows_k = np.arange(k)
        w.lo[rows_k[below], 0] = loc[below]
        w.hi[rows_k[above], 0] = loc[above]
        return d, loc, None, ~(below | above)

    def _left_counts(self, v, loc, cut):
        w = self.w
        n_left = np.zeros(w.size, dtype=np.int64)
        ci = np.flatnonzero(cut)
        # every point before the node's run is <= its first point <= loc, every point
        # after it >= its last point > loc
        n_left[ci] = (np.searchsorted(self.sorted_x, loc[ci], side="right")
                      - (w.start[ci] - w.tree[ci] * self.n))
        return n_left

    def result(self) -> dict:
        out = super().result()
        # positions hold sorted_ids per tree; inside each leaf, ids increasing
        n, m = self.n, self.m
        leaf_first = out["start"][self.leaf_at]
        key = leaf_first * n + np.tile(self.sorted_ids.astype(np.int64), m)
        out["order"] = (np.sort(key) % n).astype(self.itype)
        return out
