"""The Mondrian process on an axis-aligned box, as competing exponential clocks.

Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
sections 2.1-2.4; Roy and Teh (2009), "The Mondrian Process" (the conditional
Mondrian used by :func:`extend_mondrian`).

A box ``[l_1, u_1] x ... x [l_D, u_D]`` has one exponential clock per dimension,
with rate equal to that side's length. The first clock to ring (after
``Exp(linear dimension)``, the sum of the sides) cuts the box in its dimension at
a uniform location; the two halves restart the process with the time that is
left until the lifetime. We sample this level by level: every box of the current
level draws its clocks in one NumPy call, so the number of Python iterations is
the depth of the tree, not the number of cells.

A sample is kept as a binary tree in flat arrays (one entry per node):
``parent``, ``left``, ``right`` (``-1`` where absent), ``birth_time`` (the time the
node's box appeared), ``split_time`` (``inf`` for leaves), ``split_dim`` (``-1`` for
leaves), ``split_loc`` (``nan`` for leaves), ``node_lower`` and ``node_upper`` (the
node's box). Node 0 is the root.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from mondrian_core._docstrings import docfiller, fill_doc, params, sections
from mondrian_core._validation import (
    check_box,
    check_count,
    check_instance,
    check_lifetime,
    check_random_state,
    check_real,
    round_down,
)
from mondrian_core.errors import InputError

#: Largest expected number of cells a single sample may have before we refuse.
MAX_CELLS = 200_000


# ----------------------------------------------------------------- validation


def expected_cells(lower, upper, lifetime) -> float:
    """Return the expected number of cells of a Mondrian with ``lifetime`` on a box.

    ``prod_d (1 + lifetime * a_d)`` for sides ``a_d`` (for the unit cube
    ``(1 + lifetime)^D``, Mourtada, Gaiffas and Scornet 2020).

    Parameters
    ----------
    lower, upper : sequence of float, length D
        The box ``[lower, upper]``; ``lower <= upper`` in every dimension.
    lifetime : float
        The lifetime (>= 0), in units of inverse length.

    Returns
    -------
    float
        The expected number of cells (``inf`` when it overflows).

    Raises
    ------
    InputError
        If the box or the lifetime is invalid.

    References
    ----------
    Mourtada, Gaiffas and Scornet (2020), "Minimax optimal rates for Mondrian trees and
    forests", Annals of Statistics. Roy and Teh (2009), "The Mondrian Process".
    """
    lo, hi = check_box(lower, upper)
    return cell_count(lo, hi, check_lifetime(lifetime))


def cell_count(lo, hi, lifetime: float) -> float:
    """Return ``prod_d (1 + lifetime * (hi_d - lo_d))`` for a validated box.

    Parameters
    ----------
    lo, hi : ndarray of shape (D,)
        The box's corners, already validated.
    lifetime : float
        The lifetime (>= 0).

    Returns
    -------
    float
        The expected number of cells; ``inf`` when the product overflows.
    """
    with np.errstate(over="ignore"):  # inf: more than any limit
        return float(np.prod(1.0 + lifetime * (hi - lo)))


def max_lifetime(lower, upper, max_cells: float = MAX_CELLS) -> float:
    """Return the largest lifetime whose expected number of cells is ``max_cells``.

    Solves ``prod_d (1 + L a_d) = max_cells`` for ``L`` by Brent's method on the log.

    Parameters
    ----------
    lower, upper : sequence of float, length D
        The box ``[lower, upper]``.
    max_cells : float >= 1, default=MAX_CELLS
        The expected number of cells allowed.

    Returns
    -------
    float
        The lifetime ``L``: ``inf`` for a box of zero linear dimension (or when ``L``
        exceeds the largest float), ``0.0`` when ``max_cells`` is 1.

    Raises
    ------
    InputError
        If the box is invalid or ``max_cells`` is not a finite number >= 1.
    """
    lo, hi = check_box(lower, upper)
    # every Mondrian has a cell: a limit below 1 could never be met
    max_cells = check_real(max_cells, "max_cells", minimum=1.0)
    sides = hi - lo
    sides = sides[sides > 0]
    if not sides.size:
        return math.inf
    if max_cells == 1:
        return 0.0
    target = math.log(max_cells)
    log_sides = np.log(sides)

    def excess(u):  # in u = log L: no overflow of L * a_d, and few steps for any max_cells
        return float(np.sum(np.logaddexp(0.0, u + log_sides))) - target

    # the cells are at most (1 + L max a)^D and at least 1 + L max a: so the root lies
    # between these two lifetimes
    top = math.log(sides.max())
    u_lo = math.log(math.expm1(target / sides.size)) - top
    u_hi = math.log(max_cells - 1) - top
    if excess(u_lo) >= 0:  # one positive side: both bounds are the root
        u = u_lo
    elif excess(u_hi) <= 0:
        u = u_hi
    else:
        u = optimize.brentq(excess, u_lo, u_hi, xtol=1e-12, rtol=1e-12)
    with np.errstate(over="ignore"):  # inf: a lifetime beyond the largest float fits
        return float(np.exp(u))


@docfiller({"box": params(cell_count.__doc__, "lo", "lifetime")})
def guard_cells(lo, hi, lifetime: float, max_cells: float, what: str = "") -> None:
    """Refuse a lifetime whose expected number of cells on the box exceeds a limit.

    Parameters
    ----------
    %(box)s
    max_cells : float >= 1
        The largest expected number of cells allowed.
    what : str, default=""
        Words naming the box in the message, e.g. ``" (the extended box)"``.

    Raises
    ------
    InputError
        If ``max_cells`` is not a finite number >= 1, or the expected number of cells
        exceeds it; the message gives the largest lifetime that fits.
    """
    max_cells = check_real(max_cells, "max_cells", minimum=1.0)
    n = cell_count(lo, hi, lifetime)
    if n > max_cells:
        best = round_down(max_lifetime(lo, hi, max_cells))
        raise InputError(
            f"A Mondrian with lifetime {lifetime:g} on this box{what} has about {n:,.0f} "
            f"cells on average, more than the limit of {max_cells:,.0f}. Use a lifetime of "
            f"at most {best:g} (or a smaller box)."
        )


# ----------------------------------------------------------------- tree building


class NodeBuilder:
    """Collect the nodes of a Mondrian tree in batches, numbered in order of addition.

    Parameters
    ----------
    dim : int
        The dimension D of the boxes.
    """

    def __init__(self, dim: int):
        self.dim = dim
        self.n = 0
        self.chunks: list[dict] = []

    def add(self, *, parent, side, lower, upper, birth, split_time, split_dim, split_loc,
            root, source=None) -> np.ndarray:
        """Append a batch of nodes (one per row of every argument).

        Parameters
        ----------
        parent, side : ndarray of int, shape (k,)
            Each node's parent id (``-1`` for a root) and side (0 left, 1 right).
        lower, upper : ndarray of shape (k, D)
            Each node's box.
        birth, split_time : ndarray of shape (k,)
            When each box appeared and when it is cut (``inf`` for leaves).
        split_dim, split_loc : ndarray of shape (k,)
            The cut's dimension (``-1`` for leaves) and location (``nan`` for leaves).
        root : ndarray of int, shape (k,)
            The index of the tree each node belongs to.
        source : ndarray of int, shape (k,), optional
            The node of an original sample each node extends (default ``-1``).

        Returns
        -------
        ndarray of int, shape (k,)
            The ids given to the new nodes.
        """
        k = len(birth)
        ids = np.arange(self.n, self.n + k)
        if k:
            self.chunks.append(dict(
                parent=parent, side=side, node_lower=lower, node_upper=upper,
                birth_time=birth, split_time=split_time, split_dim=split_dim,
                split_loc=split_loc, root=root,
                source_node=np.full(k, -1) if source is None else source,
            ))
            self.n += k
        return ids

    def arrays(self) -> dict:
        """Return the nodes as flat arrays, with ``left`` and ``right`` child links.

        Returns
        -------
        dict of str to ndarray
            One array per node field (see :class:`MondrianSample`), ``n_nodes`` long.
        """
        D = self.dim
        empty = dict(parent=np.empty(0, int), side=np.empty(0, int),
                     node_lower=np.empty((0, D)), node_upper=np.empty((0, D)),
                     birth_time=np.empty(0), split_time=np.empty(0),
                     split_dim=np.empty(0, int), split_loc=np.empty(0), root=np.empty(0, int),
                     source_node=np.empty(0, int))
        if not self.chunks:
            return empty
        out = {k: np.concatenate([c[k] for c in self.chunks]) for k in empty}
        n = self.n
        left = np.full(n, -1)
        right = np.full(n, -1)
        has_parent = out["parent"] >= 0
        ids = np.arange(n)
        is_left = has_parent & (out["side"] == 0)
        is_right = has_parent & (out["side"] == 1)
        left[out["parent"][is_left]] = ids[is_left]
        right[out["parent"][is_right]] = ids[is_right]
        out["left"] = left
        out["right"] = right
        for k in ("parent", "side", "split_dim", "root", "source_node"):
            out[k] = out[k].astype(np.intp)
        return out


def _draw_first_cuts(lower, upper, birth, rng):
    """One step of competing clocks for each box (rows of ``lower``/``upper``).

    Returns the time of the first cut (``birth + Exp(sum of sides)``, ``inf`` for a
    box of zero linear dimension), its dimension (chosen with probability
    proportional to the side) and its location (uniform on that side).
    """
    sides = upper - lower
    return _draw_from_rates(sides, birth, rng)


def _draw_from_rates(rates, birth, rng):
    """Competing clocks with the given rates (n, K): time, winning clock, offset.

    A single uniform ``u * total`` picks the winning clock ``k`` (the segment of the
    cumulative rates it falls in, so ``P(k) = rate_k / total``); conditionally on
    ``k`` the offset ``u * total - cum_{k-1}`` is uniform on ``[0, rate_k)``, which is
    the uniform cut location along side ``k`` measured from its start.
    """
    n = rates.shape[0]
    total = rates.sum(axis=1)
    with np.errstate(divide="ignore"):
        time = birth + rng.standard_exponential(n) / total
    cum = np.cumsum(rates, axis=1)
    u = rng.random(n) * total
    k = np.argmax(u[:, None] < cum, axis=1)
    start = np.take_along_axis(cum, k[:, None], axis=1)[:, 0] - rates[np.arange(n), k]
    offset = np.clip(u - start, 0.0, rates[np.arange(n), k])
    return time, k, offset


def grow(builder: NodeBuilder, lower, upper, birth, parent, side, root, lifetime, rng,
          max_depth: int | None = None) -> None:
    """Grow independent Mondrians from the given boxes (one per row), level by level.

    Parameters
    ----------
    builder : NodeBuilder
        Receives the nodes.
    lower, upper : ndarray of shape (n, D)
        The starting boxes.
    birth : ndarray of shape (n,)
        The time each box appeared (its clocks start then).
    parent, side, root : ndarray of int, shape (n,)
        Each box's parent id in ``builder`` (``-1`` for roots), side and tree index.
    lifetime : float
        Cuts at or after this time are not made.
    rng : numpy.random.Generator
        The source of randomness.
    max_depth : int, optional
        Stop adding children below this depth (for Monte Carlo checks of the first
        cut); nodes there keep their drawn split but get no children.
    """
    depth = 0
    while len(birth):
        time, dim, offset = _draw_first_cuts(lower, upper, birth, rng)
        split = time < lifetime
        n = len(birth)
        loc = lower[np.arange(n), dim] + offset
        ids = builder.add(
            parent=parent, side=side, lower=lower, upper=upper, birth=birth,
            split_time=np.where(split, time, np.inf), split_dim=np.where(split, dim, -1),
            split_loc=np.where(split, loc, np.nan), root=root,
        )
        if max_depth is not None and depth >= max_depth:
            break
        s = np.flatnonzero(split)
        d, x = dim[s], loc[s]
        lo, hi = lower[s], upper[s]
        left_hi = hi.copy()
        left_hi[np.arange(len(s)), d] = x
        right_lo = lo.copy()
        right_lo[np.arange(len(s)), d] = x
        lower = np.concatenate([lo, right_lo])
        upper = np.concatenate([left_hi, hi])
        birth = np.concatenate([time[s], time[s]])
        parent = np.concatenate([ids[s], ids[s]])
        side = np.concatenate([np.zeros(len(s), np.intp), np.ones(len(s), np.intp)])
        root = np.concatenate([root[s], root[s]])
        depth += 1


def _root_frontier(lo, hi):
    """The walk's first frontier: one new root on ``[lo, hi]``, born at 0, no parent.

    Returns ``(lower, upper, birth, parent, side)``, one row each.
    """
    return lo[None, :].copy(), hi[None, :].copy(), np.zeros(1), np.array([-1]), np.array([0])


# ----------------------------------------------------------------- the sample


@dataclass(frozen=True, eq=False)
class MondrianSample:
    """A Mondrian process sample on the box ``[lower, upper]`` up to ``lifetime``.

    Made by :func:`sample_mondrian_process`, :func:`extend_mondrian` or
    :meth:`restrict`; the fields are the tree's nodes as flat arrays.

    Parameters
    ----------
    lower, upper : ndarray of shape (D,)
        The box.
    lifetime : float
        The time at which the process was stopped.
    parent, left, right : ndarray of int, shape (n_nodes,)
        Tree links (``-1`` where absent); node 0 is the root.
    birth_time, split_time : ndarray of shape (n_nodes,)
        When the node's box appeared and when it was cut (``inf`` for leaves).
    split_dim, split_loc : ndarray of shape (n_nodes,)
        The cut's dimension (``-1`` for leaves) and location (``nan`` for leaves).
    node_lower, node_upper : ndarray of shape (n_nodes, D)
        Each node's box.
    source_node : ndarray of int, shape (n_nodes,)
        For a sample made by :func:`extend_mondrian`, the node of the original
        sample that this node extends (``-1`` for new nodes); ``-1`` otherwise.

    See Also
    --------
    sample_mondrian_process : Sample a Mondrian process on a box.
    extend_mondrian : Extend a sample to a larger box.
    """

    lower: np.ndarray
    upper: np.ndarray
    lifetime: float
    parent: np.ndarray
    left: np.ndarray
    right: np.ndarray
    birth_time: np.ndarray
    split_time: np.ndarray
    split_dim: np.ndarray
    split_loc: np.ndarray
    node_lower: np.ndarray
    node_upper: np.ndarray
    source_node: np.ndarray = field(default=None)

    @classmethod
    def _from_builder(cls, builder: NodeBuilder, lower, upper, lifetime) -> MondrianSample:
        a = builder.arrays()
        return cls(lower=lower, upper=upper, lifetime=lifetime, parent=a["parent"],
                   left=a["left"], right=a["right"], birth_time=a["birth_time"],
                   split_time=a["split_time"], split_dim=a["split_dim"],
                   split_loc=a["split_loc"], node_lower=a["node_lower"],
                   node_upper=a["node_upper"], source_node=a["source_node"])

    # -- sizes
    @property
    def dim(self) -> int:
        """The dimension D of the box."""
        return int(self.lower.size)

    @property
    def n_nodes(self) -> int:
        """The number of nodes of the tree (cells and cuts)."""
        return int(self.parent.size)

    @property
    def is_leaf(self) -> np.ndarray:
        """Boolean mask of the leaves (the cells at the lifetime), shape (n_nodes,)."""
        return self.split_dim < 0

    @property
    def n_cells(self) -> int:
        """The number of cells at the lifetime."""
        return int(np.count_nonzero(self.is_leaf))

    # -- cuts, sorted by time
    @property
    def cut_nodes(self) -> np.ndarray:
        """Ids of the internal nodes, in the order their cuts appeared."""
        internal = np.flatnonzero(~self.is_leaf)
        return internal[np.argsort(self.split_time[internal], kind="stable")]

    @property
    def cut_times(self) -> np.ndarray:
        """The times of the cuts, sorted (all below the lifetime)."""
        return self.split_time[self.cut_nodes]

    @property
    def cut_dims(self) -> np.ndarray:
        """The dimension of each cut, aligned with :attr:`cut_times`."""
        return self.split_dim[self.cut_nodes]

    @property
    def cut_locations(self) -> np.ndarray:
        """The location of each cut along its dimension, aligned with :attr:`cut_times`."""
        return self.split_loc[self.cut_nodes]

    def _check_time(self, time) -> float:
        if time is None:
            return self.lifetime
        t = check_lifetime(time)
        if t > self.lifetime:
            raise InputError(f"The time must be in [0, {self.lifetime:g}] (the sample's "
                             f"lifetime), got {time!r}.")
        return t

    def cell_nodes(self, time=None) -> np.ndarray:
        """Return the ids of the nodes whose boxes are the cells at ``time``.

        Parameters
        ----------
        time : float, optional
            A time in ``[0, lifetime]``; default the lifetime.

        Returns
        -------
        ndarray of int
            Node ids, in node order.

        Raises
        ------
        InputError
            If ``time`` is negative or beyond the sample's lifetime.
        """
        t = self._check_time(time)
        return np.flatnonzero((self.birth_time <= t) & (self.split_time > t))

    @docfiller({"time": params(cell_nodes.__doc__, "time", section=True),
                "raises": sections(cell_nodes.__doc__, "Raises")})
    def cells(self, time=None) -> np.ndarray:
        """Return the cells of the partition at ``time``.

        %(time)s

        Returns
        -------
        ndarray of shape (n_cells, 2, D)
            Each cell's box: lower corner in row 0, upper corner in row 1.

        %(raises)s
        """
        ids = self.cell_nodes(time)
        return np.stack([self.node_lower[ids], self.node_upper[ids]], axis=1)

    def depth(self) -> np.ndarray:
        """Return the depth of every node.

        Returns
        -------
        ndarray of int, shape (n_nodes,)
            The number of cuts above each node (0 for the root).
        """
        depth = np.zeros(self.n_nodes, np.intp)
        frontier = np.array([0]) if self.n_nodes else np.empty(0, np.intp)
        level = 0
        while frontier.size:
            depth[frontier] = level
            kids = np.concatenate([self.left[frontier], self.right[frontier]])
            frontier = kids[kids >= 0]
            level += 1
        return depth

    def restrict(self, lower, upper) -> MondrianSample:
        """Return the sample seen on the sub-box ``[lower, upper]`` (projectivity).

        Cuts that cross the sub-box are kept (with their times); cuts that miss it
        are skipped, the sub-box staying on one side. The result is distributed as a
        Mondrian process on the sub-box with the same lifetime.

        Parameters
        ----------
        lower, upper : sequence of float, length D
            The sub-box; it must lie inside the sample's box.

        Returns
        -------
        MondrianSample
            The restriction, with the same lifetime.

        Raises
        ------
        InputError
            If the sub-box has another dimension or does not lie inside the box.

        References
        ----------
        Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
        sec. 2.3.
        """
        lo, hi = check_box(lower, upper, "sub-box")
        if lo.size != self.dim:
            raise InputError(f"The sub-box must have {self.dim} dimensions, got {lo.size}.")
        if np.any(lo < self.lower) or np.any(hi > self.upper):
            raise InputError("The sub-box must lie inside the sample's box "
                             f"[{self.lower.tolist()}, {self.upper.tolist()}].")
        builder = NodeBuilder(self.dim)
        # frontier: a node of the restriction waiting for the original node `orig`
        orig = np.array([0])
        f_lo, f_hi, birth, parent, side = _root_frontier(lo, hi)
        while orig.size:
            d = self.split_dim[orig]
            leaf = d < 0
            dd = np.where(leaf, 0, d)
            rows = np.arange(orig.size)
            x = self.split_loc[orig]
            inside = ~leaf & (f_lo[rows, dd] < x) & (x < f_hi[rows, dd])
            miss = ~leaf & ~inside
            done = ~miss
            ids = builder.add(
                parent=parent[done], side=side[done], lower=f_lo[done], upper=f_hi[done],
                birth=birth[done], split_time=np.where(inside, self.split_time[orig],
                                                       np.inf)[done],
                split_dim=np.where(inside, d, -1)[done],
                split_loc=np.where(inside, x, np.nan)[done], root=np.zeros(done.sum(), np.intp),
            )
            # nodes whose cut crosses the sub-box: both children follow
            ins_pos = np.flatnonzero(inside[done])
            s = np.flatnonzero(inside)
            sd, sx = d[s], x[s]
            l_hi = f_hi[s].copy()
            l_hi[np.arange(s.size), sd] = sx
            r_lo = f_lo[s].copy()
            r_lo[np.arange(s.size), sd] = sx
            t_s = self.split_time[orig[s]]
            # nodes whose cut misses: move to the child on the sub-box's side
            m = np.flatnonzero(miss)
            go_right = x[m] <= f_lo[m, d[m]]
            nxt = np.where(go_right, self.right[orig[m]], self.left[orig[m]])
            orig = np.concatenate([self.left[orig[s]], self.right[orig[s]], nxt])
            f_lo = np.concatenate([f_lo[s], r_lo, f_lo[m]])
            f_hi = np.concatenate([l_hi, f_hi[s], f_hi[m]])
            birth = np.concatenate([t_s, t_s, birth[m]])
            parent = np.concatenate([ids[ins_pos], ids[ins_pos], parent[m]])
            side = np.concatenate([np.zeros(s.size, np.intp), np.ones(s.size, np.intp), side[m]])
        return MondrianSample._from_builder(builder, lo, hi, self.lifetime)

    def extend(self, lower, upper, random_state=None, *, max_cells: float = MAX_CELLS
               ) -> MondrianSample:
        """Extend the sample to the larger box ``[lower, upper]``.

        The same as ``extend_mondrian(self, lower, upper, random_state)``.

        Parameters
        ----------
        lower, upper : sequence of float, length D
            The new box; it must contain the sample's box.
        random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
            A seed or generator (see :func:`~mondrian_core.check_random_state`).
        max_cells : float >= 1, default=MAX_CELLS
            Refuse when the expected number of cells on the new box exceeds this.

        Returns
        -------
        MondrianSample
            A Mondrian on the new box whose restriction to this box is this sample.
        """
        return extend_mondrian(self, lower, upper, random_state, max_cells=max_cells)


# ----------------------------------------------------------------- samplers


def sample_mondrian_process(lower, upper, lifetime, random_state=None, *,
                            max_cells: float = MAX_CELLS) -> MondrianSample:
    """Sample a Mondrian process on the box ``[lower, upper]`` up to ``lifetime``.

    Competing exponential clocks (Balog et al. 2016, sec. 2.2): a box's first cut
    comes after ``Exp(sum of its sides)``, in dimension ``d`` with probability
    proportional to side ``d``, at a uniform location; both halves restart with
    the remaining time. Sampled level by level (vectorised over each level).

    Parameters
    ----------
    lower, upper : sequence of float, length D
        The box; ``lower <= upper`` in every dimension.
    lifetime : float >= 0
        Cuts that would appear at or after this time are ignored (units of inverse
        length: the first cut comes after ``Exp(sum of the sides)``).
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`); the same
        seed gives the same sample.
    max_cells : float >= 1, default=MAX_CELLS
        Refuse (with :class:`InputError`, before any work) when the expected number
        of cells ``prod_d (1 + lifetime * a_d)`` exceeds this; the message gives the
        largest lifetime that fits.

    Returns
    -------
    MondrianSample
        The sample, its nodes in the order they were drawn (level by level).

    Raises
    ------
    InputError
        If the box, lifetime or ``max_cells`` is invalid or the expected number of cells
        is too large.

    References
    ----------
    Roy and Teh (2009), "The Mondrian Process". Balog, Lakshminarayanan, Ghahramani,
    Roy and Teh (2016), "The Mondrian Kernel", sec. 2.

    Examples
    --------
    >>> from mondrian_core import expected_cells, sample_mondrian_process
    >>> sample = sample_mondrian_process([0, 0], [1, 1], lifetime=3.0, random_state=0)
    >>> cells = sample.cells()
    >>> cells.shape[1:], len(cells) == len(sample.cut_times) + 1
    ((2, 2), True)
    >>> bool((sample.cut_times < 3.0).all())
    True
    >>> expected_cells([0, 0], [1, 1], 3.0)  # (1 + 3 * 1) ** 2
    16.0
    """
    lo, hi = check_box(lower, upper)
    lifetime = check_lifetime(lifetime)
    guard_cells(lo, hi, lifetime, max_cells)
    rng = check_random_state(random_state)
    builder = NodeBuilder(lo.size)
    grow(builder, lo[None, :].copy(), hi[None, :].copy(), np.zeros(1), np.array([-1]),
          np.array([0]), np.array([0]), lifetime, rng)
    return MondrianSample._from_builder(builder, lo, hi, lifetime)


def _containing_box(sample: MondrianSample, lower, upper):
    check_instance(sample, MondrianSample, "sample", "sample_mondrian_process")
    lo, hi = check_box(lower, upper, "new box")
    if lo.size != sample.dim:
        raise InputError(f"The new box must have {sample.dim} dimensions, got {lo.size}.")
    if np.any(lo > sample.lower) or np.any(hi < sample.upper):
        raise InputError("The new box must contain the sample's box "
                         f"[{sample.lower.tolist()}, {sample.upper.tolist()}].")
    return lo, hi


@docfiller({"extension": params(MondrianSample.extend.__doc__, "lower", "random_state",
                                 "max_cells")})
def extend_mondrian(sample: MondrianSample, lower, upper, random_state=None, *,
                    max_cells: float = MAX_CELLS) -> MondrianSample:
    """Extend a Mondrian sample to a larger box by the conditional Mondrian.

    The result is a Mondrian process on ``[lower, upper]`` (which must contain the
    sample's box) whose restriction to the sample's box is exactly ``sample``
    (Roy and Teh 2009; Lakshminarayanan, Roy and Teh 2014, "extend a Mondrian
    block"). At each node, the clocks of the extension region (the part of the new
    box outside the node's old box, total rate = the sum over dimensions of how far
    the new box sticks out) compete with the node's own cut time: if one rings
    first, a new cut is inserted above the node in the extension region (the side
    away from the old box gets a fresh Mondrian, the other side keeps competing);
    otherwise the node's cut is extended across the new box and both children are
    visited. Leaves compete against the lifetime.

    Parameters
    ----------
    sample : MondrianSample
        The sample to extend.
    %(extension)s

    Returns
    -------
    MondrianSample
        Its ``source_node`` maps every node to the node of ``sample`` it extends
        (``-1`` for new cuts and new regions).

    Raises
    ------
    InputError
        If ``sample`` is not a ``MondrianSample``, the new box has another dimension or
        does not contain the sample's box, ``max_cells`` is invalid, or the new box
        would hold too many cells.

    References
    ----------
    Roy and Teh (2009), "The Mondrian Process". Lakshminarayanan, Roy and Teh (2014),
    "Mondrian Forests: Efficient Online Random Forests", sec. 3.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import extend_mondrian, sample_mondrian_process
    >>> small = sample_mondrian_process([0, 0], [1, 1], lifetime=2.0, random_state=0)
    >>> large = extend_mondrian(small, [-1, -1], [2, 2], random_state=1)
    >>> seen = large.restrict([0, 0], [1, 1])  # the extension keeps the small sample
    >>> bool(np.allclose(np.sort(seen.cut_times), np.sort(small.cut_times)))
    True
    """
    lo, hi = _containing_box(sample, lower, upper)
    L = sample.lifetime
    guard_cells(lo, hi, L, max_cells, " (the extended box)")
    rng = check_random_state(random_state)
    D = sample.dim
    builder = NodeBuilder(D)
    fresh = dict(lower=[], upper=[], birth=[], parent=[], side=[])
    old = np.array([0])
    f_lo, f_hi, birth, parent, side = _root_frontier(lo, hi)
    while old.size:
        o_lo, o_hi = sample.node_lower[old], sample.node_upper[old]
        rates = np.concatenate([o_lo - f_lo, f_hi - o_hi], axis=1)  # (n, 2D) >= 0
        tau, k, offset = _draw_from_rates(rates, birth, rng)
        leaf = sample.split_dim[old] < 0
        cap = np.where(leaf, L, sample.split_time[old])
        ins = tau < cap
        n = old.size
        rows = np.arange(n)
        d_new = k % D
        below = k < D  # the new cut lies below the old box in dimension d_new
        x_new = np.where(below, f_lo[rows, d_new] + offset, o_hi[rows, d_new] + offset)
        d_old = sample.split_dim[old]
        ids = builder.add(
            parent=parent, side=side, lower=f_lo, upper=f_hi, birth=birth,
            split_time=np.where(ins, tau, sample.split_time[old]),
            split_dim=np.where(ins, d_new, d_old),
            split_loc=np.where(ins, x_new, sample.split_loc[old]),
            root=np.zeros(n, np.intp), source=np.where(ins, -1, old),
        )
        # inserted cuts: the old box's side keeps competing, the other side is fresh
        i = np.flatnonzero(ins)
        di, xi, bi = d_new[i], x_new[i], below[i]
        cut_lo = f_lo[i].copy()
        cut_lo[np.arange(i.size), di] = xi   # the part above the cut
        cut_hi = f_hi[i].copy()
        cut_hi[np.arange(i.size), di] = xi   # the part below the cut
        keep_lo = np.where(bi[:, None], cut_lo, f_lo[i])
        keep_hi = np.where(bi[:, None], f_hi[i], cut_hi)
        fresh["lower"].append(np.where(bi[:, None], f_lo[i], cut_lo))
        fresh["upper"].append(np.where(bi[:, None], cut_hi, f_hi[i]))
        fresh["birth"].append(tau[i])
        fresh["parent"].append(ids[i])
        fresh["side"].append(np.where(bi, 0, 1))
        # old cuts extended across the new box: both old children follow
        c = np.flatnonzero(~ins & ~leaf)
        dc, xc = d_old[c], sample.split_loc[old[c]]
        l_hi = f_hi[c].copy()
        l_hi[np.arange(c.size), dc] = xc
        r_lo = f_lo[c].copy()
        r_lo[np.arange(c.size), dc] = xc
        tc = sample.split_time[old[c]]
        old = np.concatenate([old[i], sample.left[old[c]], sample.right[old[c]]])
        f_lo = np.concatenate([keep_lo, f_lo[c], r_lo])
        f_hi = np.concatenate([keep_hi, l_hi, f_hi[c]])
        birth = np.concatenate([tau[i], tc, tc])
        parent = np.concatenate([ids[i], ids[c], ids[c]])
        side = np.concatenate([np.where(bi, 1, 0), np.zeros(c.size, np.intp),
                               np.ones(c.size, np.intp)])
    if fresh["birth"]:
        f = {key: np.concatenate(v) for key, v in fresh.items()}
        if f["birth"].size:
            f["lower"] = f["lower"].reshape(-1, D)
            f["upper"] = f["upper"].reshape(-1, D)
            grow(builder, f["lower"], f["upper"], f["birth"], f["parent"],
                  f["side"].astype(np.intp), np.zeros(f["birth"].size, np.intp), L, rng)
    return MondrianSample._from_builder(builder, lo, hi, L)


@fill_doc
def extension_chain(sample: MondrianSample, lower, upper, n_steps: int = 6,
                    random_state=None, *, max_cells: float = MAX_CELLS) -> list[MondrianSample]:
    """Extend ``sample`` to ``[lower, upper]`` in ``n_steps`` growing boxes.

    The boxes interpolate linearly from the sample's box to ``[lower, upper]``; each
    step extends the previous one (a conditional Mondrian of a conditional Mondrian
    is again one), so the last step is distributed as a direct extension. In every
    returned sample ``source_node`` refers to the nodes of the original ``sample``.

    Parameters
    ----------
    sample : MondrianSample
        The sample to extend.
    lower, upper : sequence of float, length D
        The final box; it must contain the sample's box.
    n_steps : int, default=6
        The number of growing boxes, between 1 and 50.
    %(random_state)s
    max_cells : float >= 1, default=MAX_CELLS
        Refuse when the expected number of cells on the final box exceeds this.

    Returns
    -------
    list of MondrianSample
        The ``n_steps`` extensions, the last one on ``[lower, upper]``.

    Raises
    ------
    InputError
        If ``sample`` is not a ``MondrianSample``, the box is invalid, ``n_steps`` is
        not an integer in [1, 50], ``max_cells`` is invalid or the final box would hold
        too many cells.
    """
    from dataclasses import replace

    lo, hi = _containing_box(sample, lower, upper)
    n_steps = check_count(n_steps, "n_steps", maximum=50)
    guard_cells(lo, hi, sample.lifetime, max_cells, " (the extended box)")
    rng = check_random_state(random_state)
    out, prev = [], sample
    for k in range(1, n_steps + 1):
        w = k / n_steps
        step = extend_mondrian(prev, sample.lower + w * (lo - sample.lower),
                               sample.upper + w * (hi - sample.upper), rng, max_cells=max_cells)
        src = step.source_node
        if prev is not sample:
            src = np.where(src >= 0, prev.source_node[np.maximum(src, 0)], -1)
        step = replace(step, source_node=src)
        out.append(step)
        prev = step
    return out
