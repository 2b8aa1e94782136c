"""Experiments of the kernel-convergence page (Balog et al. 2016, Section 8.1).

* :func:`kernel_error_curves` - Figure 5: maximum absolute error of the
  Mondrian kernel, random binning and random Fourier features against the
  Laplace kernel, over all pairs of points, against the number of non-zero
  features per point, over repetitions.
* :func:`ridge_rmse_curves` - Figure 6: test RMSE of ridge regression on the
  three feature maps against non-zero features per point, with exact Laplace
  kernel ridge regression as the reference.
* :func:`laplace_link_pairs` - the Mondrian-Laplace link: for pairs of points,
  the fraction of trees that put them in one cell against
  ``exp(-lifetime ||x - x'||_1)``.
* :func:`uniform_error_curves` - Proposition 2: the largest error over a grid
  covering the unit square, against the number of trees, over independent draws.
* :func:`feature_variances` - why Fourier features are worse per non-zero
  feature: the variance of one tree's and one frequency's kernel estimate.

All take ``random_state`` and an optional ``progress(fraction, text)`` callback.
For each repetition the largest number of trees / grids / frequencies is drawn
once and the estimates for smaller counts use its first ``m`` members (nested
estimates: each is distributed as an independent ``m``-member estimate; the
curves of one repetition are correlated).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve

from mondrian_core._docstrings import docfiller, params, sections
from mondrian_core._linalg import as_dense, kernel_ridge_coefficients, ridge_weights
from mondrian_core._validation import (
    check_count,
    check_counts,
    check_lifetime,
    check_points,
    check_random_state,
    check_real,
    check_target,
)
from mondrian_core.errors import InputError
from mondrian_core.experiments.grids import plane_grid
from mondrian_core.kernel import (
    MondrianFeatures,
    RandomBinningFeatures,
    RandomFourierFeatures,
    block_one_hot_columns,
    laplace_kernel,
)

__all__ = [
    "METHODS",
    "KernelErrorCurves",
    "RidgeCurves",
    "kernel_error_curves",
    "ridge_rmse_curves",
    "laplace_link_pairs",
    "cumulative_kernels",
    "kernel_slice",
    "serpentine_order",
    "feature_counts",
    "uniform_error_curves",
    "FeatureVariances",
    "feature_variances",
    "kernel_matrices",
]

#: The three feature maps, in the order of the paper's legends.
METHODS = ("Mondrian kernel", "Random binning", "Random Fourier features")


def feature_counts(top: int) -> list[int]:
    """Return feature counts M on a roughly logarithmic grid up to ``top``.

    The x-axis of Figures 5 and 6.

    Parameters
    ----------
    top : int
        The largest count, always included.

    Returns
    -------
    list of int
        Sorted counts.
    """
    grid = [1, 2, 3, 5, 7, 10, 15, 20, 30, 40, 50, 70, 100, 150, 200, 300, 500]
    return sorted({c for c in grid if c < top} | {int(top)})


MAX_POINTS_ERROR = 1000  # N x N x count boolean arrays stay below ~50 MB per chunk
MAX_TRAIN_EXACT = 5000  # exact kernel ridge: an N x N Cholesky


def _block_cumulative(cols_a, cols_b, counts):
    """Yield (m, K_m) with K_m[i, j] = fraction of the first m blocks shared."""
    n_a, n_b = cols_a.shape[0], cols_b.shape[0]
    acc = np.zeros((n_a, n_b))
    if cols_a.size == 0 or cols_b.size == 0:
        yield from ((m, acc / m) for m in counts)
        return
    n_cols = int(max(cols_a.max(), cols_b.max())) + 1
    done = 0
    for m in counts:
        if m > done:
            acc += _shared_blocks(cols_a[:, done:m], cols_b[:, done:m], n_cols)
        done = m
        yield m, acc / m


def _grid_mondrian_leaves(axes, lifetime, n_trees, rng):
    """The leaves of :func:`~mondrian_core.sample_mondrian_trees` on a tensor grid.

    A node of a Mondrian tree over grid points holds a box of grid indices (an
    axis-aligned cut splits an index interval into a prefix and a suffix), so each node
    is ``2 D`` integers rather than its points, and a round costs per node, not per
    point. The rounds replay :func:`~mondrian_core.trees.grow_subtrees`' draws node for
    node in its working-set order (children in place of their parent, left first),
    followed by :class:`~mondrian_core.MondrianFeatures`' extension seed: the same
    generator gives the same partitions, and leaves ``rng`` where the fit leaves it.

    Parameters
    ----------
    axes : sequence of D increasing ndarrays
        The grid's coordinates; point ``p = sum_j i_j * prod_{l<j} len(axes[l])`` is
        ``(axes[0][i_0], ..., axes[D-1][i_{D-1}])``.
    lifetime : float
    n_trees : int
    rng : numpy.random.Generator

    Returns
    -------
    tree_of : ndarray of int, shape (L,)
        The tree of each leaf.
    box_first, box_last : ndarrays of int, shape (L, D)
        Each leaf's box of grid indices, inclusive.
    """
    sizes = np.array([a.size for a in axes])
    dim = sizes.size
    # one lookup for every proposal when all axes are the same (a square grid)
    same_axes = all(a.size == axes[0].size and np.array_equal(a, axes[0]) for a in axes)
    last_below = _last_at_or_below_finder(axes[0]) if same_axes else None
    k = n_trees
    # every node's state in two arrays, gathered with np.take (several times faster than
    # fancy indexing of rows) when nodes retire or split: ints (tree, first index per
    # axis, last index per axis), inclusive index boxes, and floats (clock, lower and
    # upper coordinate per axis)
    ints = np.zeros((k, 1 + 2 * dim), dtype=np.int64)
    ints[:, 0] = np.arange(k)
    ints[:, 1 + dim:] = sizes - 1
    floats = np.zeros((k, 1 + 2 * dim))
    floats[:, 1:1 + dim] = [a[0] for a in axes]
    floats[:, 1 + dim:] = [a[-1] for a in axes]
    leaves = []  # the ints of the retired nodes
    width = 1 + 2 * dim  # the columns of ints and floats
    while True:
        clock = floats[:, 0]
        # the sides one column at a time (numpy's loops over rows of length D cost per
        # row), summed in the order of a reduction over the row
        sides = [floats[:, 1 + dim + j] - floats[:, 1 + j] for j in range(dim)]
        # tick: the next proposal's time at rate the cell's linear dimension
        rate = sides[0].copy()
        count = ints[:, 1 + dim] - ints[:, 1] + 1
        for j in range(1, dim):
            rate += sides[j]
            count *= ints[:, 1 + dim + j] - ints[:, 1 + j] + 1
        e = rng.standard_exponential(clock.size)
        # a node of two or more points has a positive side; one of rate 0 holds a single
        # point and retires below whatever its clock
        with np.errstate(divide="ignore", invalid="ignore"):
            clock += e / rate
        done = (clock >= lifetime) | (count < 2)
        if done.any():
            leaves.append(np.compress(done, ints, axis=0))
            keep = np.flatnonzero(~done)
            ints, floats = np.take(ints, keep, axis=0), np.take(floats, keep, axis=0)
            sides = [np.take(c, keep) for c in sides]
            clock = floats[:, 0]
        if clock.size == 0:
            break
        # propose: dimension proportional to the side, location uniform
        k = clock.size
        rows = np.arange(k)
        cs = sides[0].copy()  # the running sum of the sides
        below_u = []
        for j in range(1, dim):
            below_u.append(cs.copy())
            cs += sides[j]
        u = rng.random(k) * cs
        d = np.zeros(k, dtype=np.int64)
        for c in below_u:  # the axes whose cumulative side is at most u, at most D - 1
            d += c <= u
        flat_f, flat_i = floats.ravel(), ints.ravel()
        at = rows * width + 1 + d  # (row, lower coordinate / first index of axis d)
        a, b = flat_f[at], flat_f[at + dim]
        side = b - a  # sides[d], the same subtraction
        # u at the very top of its range can pick an axis of side 0 (rounding): the
        # widest axis instead
        bad = side <= 0
        if bad.any():
            d[bad] = np.argmax(np.column_stack(sides)[bad], axis=1)
            at = rows * width + 1 + d
            a, b = flat_f[at], flat_f[at + dim]
            side = b - a
        loc = a + rng.random(k) * side
        # the last grid index at or below loc on axis d: loc falls below the node's points
        # (loc < coord[first]) iff it is below first, above them (loc >= coord[last]) iff
        # it is at least last, and else splits them after it
        if same_axes:
            split_at = last_below(loc)
        else:
            split_at = np.empty(k, dtype=np.int64)
            for j in range(dim):
                on = d == j
                split_at[on] = np.searchsorted(axes[j], loc[on], side="right") - 1
        below = split_at < flat_i[at]
        above = split_at >= flat_i[at + dim]
        flat_f[at[below]] = loc[below]
        flat_f[at[above] + dim] = loc[above]
        cut = ~(below | above)
        if not cut.any():
            continue
        # split: each cut node becomes (left, right) in its place
        ci = np.flatnonzero(cut)
        loc_c, axis, split_at = loc[ci], d[ci], split_at[ci]  # the left child's last index
        reps = cut + 1
        slot = np.cumsum(reps) - reps
        take = np.repeat(rows, reps)
        ints, floats = np.take(ints, take, axis=0), np.take(floats, take, axis=0)
        # (left child, first index / lower coordinate of the cut axis), flat; the right
        # child is the next row
        at = slot[ci] * width + 1 + axis
        flat_f, flat_i = floats.ravel(), ints.ravel()
        flat_i[at + dim] = split_at  # the left child's last index
        flat_f[at + dim] = loc_c  # its upper coordinate
        flat_i[at + width] = split_at + 1  # the right child's first index
        flat_f[at + width] = loc_c  # its lower coordinate
    rng.integers(2**63 - 1)  # MondrianFeatures.fit's extension seed (tested: the same draw)
    retired = np.concatenate(leaves)
    return retired[:, 0], retired[:, 1:1 + dim], retired[:, 1 + dim:]


def _last_at_or_below_finder(axis):
    """A function of ``loc`` giving ``np.searchsorted(axis, loc, side="right") - 1``, the
    last index of ``axis`` at or below each ``loc``. On an evenly spaced axis the
    index is guessed from the spacing and corrected by one comparison on each side (the
    guess is off by at most one: rounding), several times faster than a binary search."""
    n = axis.size
    if n > 2:
        step = np.diff(axis)
        even = np.all(np.abs(step - step.mean()) <= 1e-9 * step.mean())
    else:
        even = n == 2 and axis[1] > axis[0]
    if not even:
        return lambda loc: np.searchsorted(axis, loc, side="right") - 1
    scale = (n - 1) / (axis[-1] - axis[0])

    def last_at_or_below(loc):
        guess = ((loc - axis[0]) * scale).astype(np.int64)
        np.clip(guess, 0, n - 2, out=guess)
        return guess + (np.take(axis, guess + 1) <= loc) - (np.take(axis, guess) > loc)

    return last_at_or_below


def _box_index(sizes, first, last):
    """The flat index of each index box ``(first, last)`` (rows, inclusive, one column
    per axis) in an array of shape ``(s_{D-1}, s_{D-1}, ..., s_0, s_0)``, ``s_j`` the
    grid's points on axis j: axis ``D - 1 - j``'s pair of dimensions is (first, last) on
    axis j."""
    index = np.zeros(first.shape[0], dtype=np.int64)
    for j in range(len(sizes) - 1, -1, -1):
        index = (index * sizes[j] + first[:, j]) * sizes[j] + last[:, j]
    return index


def _grid_shared_counts(sizes, leaves, counts, boxes):
    """How many of the first m trees hold each box of grid indices in one leaf.

    A leaf holds two grid points if and only if it holds the smallest index box around
    them, which it does if and only if on every axis its first index is at most the
    box's and its last at least the box's. So the count for a box is a dominance count
    over the leaves' boxes: a histogram of the leaves by (count bucket, first and last
    index per axis), summed forward over each first index, backward over each last
    index and forward over the buckets. Its work is a few passes over
    ``prod(s_j^2) * len(counts)`` integers, whatever the number of pairs the leaves hold.

    Parameters
    ----------
    sizes : sequence of int
        The grid's points per axis.
    leaves : tuple of ndarrays
        :func:`_grid_mondrian_leaves`' ``(tree_of, box_first, box_last)``.
    counts : ndarray of int
        Increasing numbers of trees.
    boxes : ndarray of int
        Boxes as :func:`_box_index` numbers them.

    Returns
    -------
    ndarray of int, shape (len(counts), len(boxes))
        Row c: in how many of the first ``counts[c]`` trees one leaf contains each box.
    """
    tree_of, first, last = leaves
    n_counts = len(counts)
    # a tree's bucket: the first count above its index (tree t is among the first m iff t < m)
    key = _box_index(sizes, first, last) * n_counts + np.searchsorted(counts, tree_of,
                                                                        side="right")
    shape = [s for s in reversed(sizes) for _ in range(2)] + [n_counts]
    # A box lies in at most one leaf of a tree, so its count in a bucket is at most the
    # bucket's trees. The running sums' partial values (leaves meeting some of the
    # conditions) can be far larger, but integer addition wraps modulo 2^bits and every
    # final value is below it: the narrowest type holding the largest bucket gives the
    # exact counts, in fewer bytes to sum (uint8 at the page's defaults, buckets of at
    # most 200 trees: half the traffic of int16).
    largest = int(np.diff(counts, prepend=0).max())
    dtype = np.uint8 if largest < 2**8 else np.int16 if largest < 2**15 else np.int64
    hist = np.zeros(shape, dtype=dtype)
    key, number = np.unique(key, return_counts=True)
    hist.ravel()[key] = number
    # forward sums over the first indices (even axes), backward over the last ones
    for ax in range(len(shape) - 2):
        _running_sum(hist, ax, backward=ax % 2 == 1)
    # the last spatial axis's slices are short runs in this layout: moved to the front
    # (one copy), its sums run over whole blocks
    hist = np.ascontiguousarray(np.moveaxis(hist, -2, 0))
    _running_sum(hist, 0, backward=True)
    rest, b0 = np.divmod(boxes, sizes[0])  # the boxes' places in the moved layout
    shared = np.ascontiguousarray(  # up to counts[-1] trees: widened
        np.take(hist.reshape(-1, n_counts), b0 * (hist[0].size // n_counts) + rest, axis=0).T,
        dtype=np.int16 if counts[-1] < 2**15 else np.int64)
    _running_sum(shared, 0)  # the buckets: trees below each count
    return shared


def _running_sum(a, axis, backward=False):
    """Cumulative sums of ``a`` along ``axis`` in place, one slice at a time (np.cumsum
    along a leading or middle axis is several times slower); ``backward`` from the end."""
    lead = (slice(None),) * axis
    n = a.shape[axis]
    for i in (range(n - 2, -1, -1) if backward else range(1, n)):
        a[lead + (i,)] += a[lead + (i + 1 if backward else i - 1,)]


def _grid_pair_boxes(sizes, iu):
    """The index box around each pair ``(iu[0][k], iu[1][k])`` of grid points (first axis
    fastest), numbered by :func:`_box_index`: ``(boxes, box_of_pair, first_pair)``, the
    distinct boxes, each pair's position among them, and one pair per box."""
    p, q = iu
    first = np.empty((p.size, len(sizes)), dtype=np.int64)
    last = np.empty_like(first)
    stride = 1
    for j, s in enumerate(sizes):
        ip, iq = p // stride % s, q // stride % s
        first[:, j], last[:, j] = np.minimum(ip, iq), np.maximum(ip, iq)
        stride *= s
    boxes, first_pair, box_of_pair = np.unique(_box_index(sizes, first, last),
                                               return_index=True, return_inverse=True)
    return boxes, box_of_pair, first_pair


def _incidence(cols, n_cols):
    """The 0/1 matrix with a one at (row, each of its columns)."""
    n, k = cols.shape
    return sp.csr_matrix((np.ones(n * k), np.ascontiguousarray(cols).ravel(),
                          np.arange(0, n * k + 1, k)), shape=(n, n_cols))


def _shared_blocks(cols_a, cols_b, n_cols):
    """In how many of the blocks (columns of ``cols_a`` / ``cols_b``) each row of ``cols_a``
    and each row of ``cols_b`` share a cell: one sparse product of their incidences (cell
    columns are distinct across blocks), whose work is the pairs that share a cell rather
    than N^2 per block. Integer counts, so exactly the sum of the blocks' 0/1 matrices."""
    return (_incidence(cols_a, n_cols) @ _incidence(cols_b, n_cols).T).toarray()


def cumulative_kernels(method, X, Y, lifetime, counts, random_state=None):
    """Estimate the kernel between ``X`` (fitted) and ``Y`` for each count in ``counts``.

    ``K_m`` uses the first ``m`` trees / grids / frequencies of one draw of
    ``max(counts)`` of them. ``Y`` is placed by the method's ``transform``
    (conditional Mondrian extension for the Mondrian kernel).

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    X : ndarray of shape (N, D)
        The points the feature map is fitted on.
    Y : ndarray of shape (N2, D) or None
        The second points; None for ``X``.
    lifetime : float
        The Laplace kernel's inverse width (units of inverse ``X``).
    counts : sequence of int
        Numbers of trees / grids / frequencies (positive).
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`).

    Yields
    ------
    m : int
        A count, in increasing order.
    K_m : ndarray of shape (N, N2)
        The kernel estimate from the first ``m`` members.

    Raises
    ------
    InputError
        If the method is unknown or a count is not positive.
    """
    counts = check_counts(counts, "feature counts")
    top = int(counts[-1])
    rng = check_random_state(random_state)
    same = Y is None
    Y = X if same else Y
    if method == METHODS[2]:
        rff = RandomFourierFeatures(lifetime, top, rng).fit(X)
        za = rff.transform(X) * np.sqrt(top / 2.0)  # cos(w.x + b), unscaled
        zb = za if same else rff.transform(Y) * np.sqrt(top / 2.0)
        acc = np.zeros((X.shape[0], Y.shape[0]))
        done = 0
        for m in counts:
            acc += za[:, done:m] @ zb[:, done:m].T
            done = m
            yield m, acc * (2.0 / m)
        return
    if method == METHODS[0]:
        est = MondrianFeatures(lifetime, top, rng)
    elif method == METHODS[1]:
        est = RandomBinningFeatures(lifetime, top, rng)
    else:
        raise InputError(f"Unknown method {method!r}; choose one of {', '.join(METHODS)}.")
    ca = block_one_hot_columns(est.fit_transform(X))
    if same:
        cb = ca
    else:
        Z = est.transform(np.vstack([X, Y]))
        cb = block_one_hot_columns(Z)[X.shape[0]:]
    yield from _block_cumulative(ca, cb, counts)


class _OverRepeats:
    """Mean and spread over repetitions of per-count curves; ``_curves`` names the field
    holding them (a dict of method -> array of shape (n_repeats, len(counts)))."""

    _curves: ClassVar[str]

    def mean(self, method) -> np.ndarray:
        """Return the mean over repetitions.

        Parameters
        ----------
        method : str
            One of :data:`METHODS`.

        Returns
        -------
        ndarray of shape (len(counts),)
            The mean at each count.
        """
        return getattr(self, self._curves)[method].mean(axis=0)

    @docfiller({"method": params(mean.__doc__, "method", section=True)})
    def std(self, method) -> np.ndarray:
        """Return the standard deviation over repetitions.

        %(method)s

        Returns
        -------
        ndarray of shape (len(counts),)
            The sample standard deviation (zeros with one repetition).
        """
        values = getattr(self, self._curves)[method]
        return values.std(axis=0, ddof=1) if values.shape[0] > 1 else np.zeros(self.counts.size)

    def mean_at(self, method, count) -> float | None:
        """Return the mean over repetitions at ``count`` (None if not a count).

        Parameters
        ----------
        method : str
            One of :data:`METHODS`.
        count : int
            A number of trees / grids / frequencies.

        Returns
        -------
        float or None
            The mean at ``count``.
        """
        at = np.flatnonzero(self.counts == count)
        return float(self.mean(method)[at[0]]) if at.size else None

    def fall_from(self, method, count) -> tuple[float, float, float, float]:
        """Return how the mean falls from ``count`` to the largest count.

        Beside it, the ratio at the ``1/sqrt(M)`` rate of a Monte Carlo average.

        Parameters
        ----------
        method : str
            One of :data:`METHODS`.
        count : int
            The starting count; the first count at or above it is used, for the mean
            and for the rate alike.

        Returns
        -------
        start, end : float
            The mean at the starting count and at the largest count.
        ratio : float
            ``start / end``.
        rate : float
            ``sqrt(largest count / starting count)``, the ratio at the rate ``1/sqrt(M)``.
        """
        mean = self.mean(method)
        at = min(int(np.searchsorted(self.counts, count)), self.counts.size - 1)
        start, end = float(mean[at]), float(mean[-1])
        return start, end, start / end, float(np.sqrt(self.counts[-1] / self.counts[at]))


@dataclass(frozen=True)
class KernelErrorCurves(_OverRepeats):
    """Maximum absolute kernel error per method, repetition and feature count.

    Made by :func:`kernel_error_curves`.

    Parameters
    ----------
    counts : ndarray of int
        Non-zero features per point.
    errors : dict of str to ndarray
        ``errors[method]`` has shape (n_repeats, len(counts)).
    lifetime : float, default=1.0
        The Laplace kernel's inverse width.
    n_points : int, default=0
        The number of points compared.
    """

    counts: np.ndarray
    errors: dict = field(default_factory=dict)
    lifetime: float = 1.0
    n_points: int = 0
    _curves: ClassVar[str] = "errors"


def kernel_error_curves(X, lifetime, counts, n_repeats=5, methods=METHODS,
                        random_state=None, progress=None) -> KernelErrorCurves:
    """Compute the paper's Figure 5: max |k_hat - k| over all pairs vs features.

    Parameters
    ----------
    X : array-like of shape (N, D)
        The points, 2 to ``MAX_POINTS_ERROR`` (the paper: N = 100 uniform in the
        unit square, lifetime 10).
    lifetime : float > 0
        The Laplace kernel's inverse width (units of inverse ``X``).
    counts : sequence of int
        Non-zero features per point: trees (Mondrian), grids (binning) or
        frequencies (Fourier, whose features are all non-zero).
    n_repeats : int, default=5
        Independent repetitions (>= 1).
    methods : sequence of str, default=METHODS
        The feature maps to compare.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`).
    progress : callable, optional
        Called as ``progress(fraction, text)`` after each method and repetition.

    Returns
    -------
    KernelErrorCurves
        The errors per method, repetition and count.

    Raises
    ------
    InputError
        If there are too few or too many points, or an argument is invalid.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 8.1.
    """
    X = check_points(X, min_samples=2)
    if X.shape[0] > MAX_POINTS_ERROR:
        raise InputError(f"Figure 5 compares all pairs; use at most {MAX_POINTS_ERROR} points.")
    n_repeats = check_count(n_repeats, "n_repeats")
    counts = check_counts(counts, "feature counts")
    return _max_error_curves(X, lifetime, counts, n_repeats, methods,
                             check_random_state(random_state), progress)


def _max_error_curves(X, lifetime, counts, n_repeats, methods, rng, progress,
                      grid_axes=None) -> KernelErrorCurves:
    """:func:`kernel_error_curves` on checked arguments. With ``grid_axes`` (``X`` is
    their tensor grid, first axis fastest, and ``methods`` the Mondrian kernel alone)
    the trees are sampled on the grid's index boxes (:func:`_grid_mondrian_leaves`: the
    same trees from the same draws) and the pairs sharing a leaf counted per index box
    (:func:`_grid_shared_counts`: the same integer counts)."""
    K = laplace_kernel(X, lifetime=lifetime)
    iu = np.triu_indices(X.shape[0], k=1)
    flat_iu = iu[0] * X.shape[0] + iu[1]  # the pairs i < j: one take per estimate
    K_iu = K[iu]
    if grid_axes is not None:
        sizes = [a.size for a in grid_axes]
        # pairs with the same index box around them share a leaf in the same trees and
        # lie at the same L1 distance (the same sides): one error per box
        boxes, _, first_pair = _grid_pair_boxes(sizes, iu)
        K_box = K_iu[first_pair]
    errors = {m: np.empty((n_repeats, counts.size)) for m in methods}
    total = n_repeats * len(methods)
    step = 0
    for r in range(n_repeats):
        for method in methods:
            if grid_axes is None:
                for c, (_, Km) in enumerate(cumulative_kernels(method, X, None, lifetime,
                                                               counts, rng)):
                    errors[method][r, c] = np.abs(np.take(Km, flat_iu) - K_iu).max()
            else:
                leaves = _grid_mondrian_leaves(grid_axes, lifetime, int(counts[-1]), rng)
                shared = _grid_shared_counts(sizes, leaves, counts, boxes)
                for c, m in enumerate(counts):  # row by row: several times faster here
                    errors[method][r, c] = np.abs(shared[c] / m - K_box).max()
            step += 1
            if progress is not None:
                progress(step / total, f"{method}, repetition {r + 1} of {n_repeats}")
    return KernelErrorCurves(counts=counts, errors=errors, lifetime=float(lifetime),
                             n_points=X.shape[0])


@docfiller({"counts": params(KernelErrorCurves.__doc__, "counts")})
@dataclass(frozen=True)
class RidgeCurves(_OverRepeats):
    """Test RMSE per method, repetition and count, and the exact-kernel RMSE.

    Made by :func:`ridge_rmse_curves`.

    Parameters
    ----------
    %(counts)s
    rmse : dict of str to ndarray
        ``rmse[method]`` has shape (n_repeats, len(counts)).
    exact_rmse : float or None
        Exact Laplace kernel ridge regression on the same ``n_train`` rows.
    lifetime : float
        The Laplace kernel's inverse width.
    ridge : float
        The ridge penalty.
    baseline_rmse : float
        The RMSE of predicting the training mean.
    n_train, n_test : int, default=0
        The numbers of training rows used and of test rows.
    """

    counts: np.ndarray
    rmse: dict
    exact_rmse: float | None
    lifetime: float
    ridge: float
    baseline_rmse: float  # predicting the training mean
    n_train: int = 0
    n_test: int = 0
    _curves: ClassVar[str] = "rmse"


def _krr_predict(K_train, K_test_train, y, ridge):
    """Kernel ridge regression (dual, Cholesky): mean + K_* (K + ridge I)^{-1} (y - mean)."""
    mu = y.mean()
    return mu + K_test_train @ kernel_ridge_coefficients(K_train, y - mu, ridge)


def _ridge_predict(Z_train, Z_test, y, ridge):
    """Ridge regression on features (intercept = training mean), primal or dual.

    With C features and N training rows it solves the C x C system
    ``(Z^T Z + ridge I) w = Z^T (y - mean)`` when C <= N, otherwise the dual
    N x N one; both give the same predictions (push-through identity).
    """
    mu = y.mean()
    return mu + Z_test @ ridge_weights(Z_train, y - mu, ridge)


def _member_features(method, X_train, X_test, lifetime, counts, rng):
    """One draw of ``max(counts)`` members: ``(Z_train, Z_test, bounds, top, cells)``, the
    features of all members (each member's columns after the previous member's), the
    number of columns of the first m members for m in ``counts``, the number of members,
    and for the one-hot maps (trees, grids) each row's column in each member
    (``(train, test)``, test cells no training row holds never equal a training one;
    None for Fourier features).

    Test points are placed by ``transform``; their columns beyond the fitted cells
    (branch-offs, new bins) hold no training point, get weight 0 and are dropped.
    """
    top = int(counts[-1])
    if method == METHODS[2]:
        rff = RandomFourierFeatures(lifetime, top, rng).fit(X_train)
        return rff.transform(X_train), rff.transform(X_test), counts, top, None
    if method == METHODS[0]:
        est = MondrianFeatures(lifetime, top, rng)
        Z_tr = est.fit_transform(X_train)
        n_fitted = est.n_cells()
    elif method == METHODS[1]:
        est = RandomBinningFeatures(lifetime, top, rng)
        Z_tr = est.fit_transform(X_train)  # hashes the training rows once
        n_fitted = est.n_bins_
    else:
        raise InputError(f"Unknown method {method!r}; choose one of {', '.join(METHODS)}.")
    Z_te = est.transform(X_test)
    cells = block_one_hot_columns(Z_tr), block_one_hot_columns(Z_te)
    # columns are grouped by member: member b's columns end at the largest
    # column any training row uses in block b, plus one
    ends = np.maximum.accumulate(cells[0].max(0)) + 1
    return Z_tr.tocsc(), Z_te[:, :n_fitted].tocsc(), ends[counts - 1], top, cells


def _nested_features(method, X_train, X_test, lifetime, counts, rng):
    """Yield (Z_train, Z_test) using the first m members, for m in ``counts``.

    One draw of ``max(counts)`` trees / grids / frequencies (:func:`_member_features`);
    the first m members' columns are a prefix, rescaled from ``1/sqrt(max)`` to
    ``1/sqrt(m)``.
    """
    Z_tr, Z_te, bounds, top, _ = _member_features(method, X_train, X_test, lifetime, counts,
                                                  rng)
    for m, cols in zip(counts, bounds):
        scale = np.sqrt(top / m)
        yield Z_tr[:, :cols] * scale, Z_te[:, :cols] * scale


def _relative_cells(cells_tr, cells_te):
    """Each member's cells (rows of ``(n, members)`` columns) as a contiguous row per
    member, numbered from the member's smallest training cell, in the smallest integer
    type that holds them: ``tr[b, i] == te[b, k]`` exactly when the original cells are
    equal. Test cells outside the member's training range hold no training row and
    become -1 (equal to none). The row comparisons of :func:`_nested_ridge_predictions`
    run ~3x faster on int16 than on int64.
    """
    tr = np.asarray(cells_tr, dtype=np.int64).T
    base = tr.min(1, keepdims=True)
    tr = tr - base
    span = int(tr.max(initial=0))
    te = np.asarray(cells_te, dtype=np.int64).T - base
    te[(te < 0) | (te > span)] = -1
    small = np.int16 if span < 2**15 else np.int64
    return np.ascontiguousarray(tr, dtype=small), np.ascontiguousarray(te, dtype=small)


def _nested_ridge_predictions(method, X_train, X_test, y, lifetime, counts, ridge, rng):
    """Yield the test predictions of :func:`_ridge_predict` on :func:`_nested_features`,
    for m in ``counts``, with the dual's Grams shared between the counts.

    Where the m members have more columns than there are training rows the solve is
    in the dual, and its Grams ``Z_m Z_m^T`` (train x train, test x train) grow with the
    members: each count adds only its new members to the previous count's instead of
    multiplying the whole prefix again. For trees and grids (one non-zero
    ``1/sqrt(m)`` per member and row) the Gram is the number of the first m members in
    which two rows share a cell, over m: integer counts, one comparison of the rows'
    cells per member (several times cheaper than the sparse products). Each dual solve
    factorises in one buffer, so the counts allocate no new N x N arrays.
    Fewer columns than rows: the primal solve of :func:`_ridge_predict`, its ``Z^T Z``
    a leading block of one product for every such count.
    """
    Z_tr, Z_te, bounds, top, cells = _member_features(method, X_train, X_test, lifetime,
                                                      counts, rng)
    mu = y.mean()
    n, n_te = Z_tr.shape[0], Z_te.shape[0]
    if cells is not None:
        # each member's cells as a contiguous row; the counts as small integers (a
        # member adds 0 or 1), added from the comparisons' bytes
        cells_tr, cells_te = _relative_cells(*cells)
        dtype = np.uint8 if top < 256 else np.int64
        gram, cross = np.zeros((n, n), dtype), np.zeros((n_te, n), dtype)
        same_tr, same_te = np.empty((n, n), bool), np.empty((n_te, n), bool)
    else:
        gram, cross = np.zeros((n, n)), np.zeros((n_te, n))
    system = np.empty((n, n), order="F")  # the dual system, factorised in place
    done, summed = 0, 0  # the members and columns in gram and cross
    # the primal counts' systems are leading blocks of one product of the columns they
    # use, scaled by top / m
    primal = int(max((c for c in bounds if c <= n), default=0))
    Z_p = Z_tr[:, :primal]
    gram_p, moment_p = as_dense(Z_p.T @ Z_p), Z_p.T @ (y - mu)
    for m, cols in zip(counts, bounds):
        if cols <= n:
            scale = np.sqrt(top / m)
            A = gram_p[:cols, :cols] * (top / m)
            A[np.diag_indices(cols)] += ridge
            factor = cho_factor(A, lower=True, overwrite_a=True, check_finite=False)
            w = cho_solve(factor, moment_p[:cols] * scale, check_finite=False)
            yield mu + (Z_te[:, :cols] @ w) * scale
            continue
        if cells is not None:  # shared cells, counted: Z_m Z_m^T is the count over m
            for b in range(done, m):
                row = cells_tr[b]
                np.equal(row[:, None], row, out=same_tr)
                np.equal(cells_te[b][:, None], row, out=same_te)
                gram += same_tr.view(np.uint8)
                cross += same_te.view(np.uint8)
            np.divide(gram, m, out=system)
            cross_m = cross / m
        else:  # the new members' products, at 1/sqrt(top) each: times top / m
            new_tr, new_te = Z_tr[:, summed:cols], Z_te[:, summed:cols]
            gram += as_dense(new_tr @ new_tr.T)
            cross += as_dense(new_te @ new_tr.T)
            np.multiply(gram, top / m, out=system)
            cross_m = cross * (top / m)
        done, summed = m, cols
        system[np.diag_indices(n)] += ridge
        factor = cho_factor(system, lower=True, overwrite_a=True, check_finite=False)
        yield mu + cross_m @ cho_solve(factor, y - mu, check_finite=False)


@docfiller({"passed_on": params(kernel_error_curves.__doc__, "methods", "random_state",
                                 "progress"),
            "raises_references": sections(kernel_error_curves.__doc__, "Raises", "References")})
def ridge_rmse_curves(X_train, y_train, X_test, y_test, lifetime, counts, n_repeats=3,
                      ridge=0.1, methods=METHODS, random_state=None, progress=None,
                      max_train=2000) -> RidgeCurves:
    """Compute the paper's Figure 6: test RMSE of ridge regression on random features.

    Ridge regression on features ``Z`` with penalty ``ridge`` is kernel ridge
    regression with the approximate kernel ``Z Z^T``; it is solved in the dual
    (an N_train x N_train Cholesky), the same for the exact Laplace kernel.
    Test points are placed by each map's ``transform`` (the conditional
    Mondrian extension for the Mondrian kernel, never a refit).

    Every count needs one N_train x N_train Cholesky per method and
    repetition, so a training set larger than ``max_train`` rows is replaced
    by a seeded random subset of ``max_train`` rows (``RidgeCurves.n_train``
    says how many were used; the exact kernel ridge uses the same rows).

    Parameters
    ----------
    X_train, y_train : array-like of shape (N, D) and (N,)
        Training data (2 to ``MAX_TRAIN_EXACT`` rows).
    X_test, y_test : array-like of shape (N_test, D) and (N_test,)
        Test data (at least 1 row).
    lifetime : float
        The Laplace kernel's inverse width (units of inverse ``X``).
    counts : sequence of int
        Non-zero features per point.
    n_repeats : int, default=3
        Independent repetitions.
    ridge : float, default=0.1
        The ridge penalty (> 0).
    %(passed_on)s
    max_train : int or None, default=2000
        The most training rows used (None: all).

    Returns
    -------
    RidgeCurves
        The test RMSEs, the exact-kernel RMSE and the training-mean baseline.

    %(raises_references)s
    """
    X_train = check_points(X_train, "X_train", min_samples=2)
    X_test = check_points(X_test, "X_test", n_features=X_train.shape[1])
    y_train = check_target(y_train, X_train, "y_train")
    y_test = check_target(y_test, X_test, "y_test")
    if X_train.shape[0] > MAX_TRAIN_EXACT:
        raise InputError(f"Use at most {MAX_TRAIN_EXACT} training points here.")
    ridge = check_real(ridge, "The ridge penalty", strict=True)
    if max_train is not None:
        max_train = check_count(max_train, "max_train", minimum=2)
    counts = check_counts(counts, "feature counts")
    rng = check_random_state(random_state)
    if max_train is not None and X_train.shape[0] > max_train:
        keep = np.sort(rng.choice(X_train.shape[0], size=max_train, replace=False))
        X_train, y_train = X_train[keep], y_train[keep]

    def rmse(pred):
        return float(np.sqrt(np.mean((pred - y_test) ** 2)))

    exact = rmse(_krr_predict(laplace_kernel(X_train, lifetime=lifetime),
                              laplace_kernel(X_test, X_train, lifetime=lifetime), y_train, ridge))
    n_tr = X_train.shape[0]
    out = {m: np.empty((n_repeats, counts.size)) for m in methods}
    total = n_repeats * len(methods)
    step = 0
    for r in range(n_repeats):
        for method in methods:
            for c, pred in enumerate(_nested_ridge_predictions(
                    method, X_train, X_test, y_train, lifetime, counts, ridge, rng)):
                out[method][r, c] = rmse(pred)
            step += 1
            if progress is not None:
                progress(step / total, f"{method}, repetition {r + 1} of {n_repeats}")
    baseline = rmse(np.full(y_test.shape, y_train.mean()))
    return RidgeCurves(counts=counts, rmse=out, exact_rmse=exact, lifetime=float(lifetime),
                       ridge=ridge, baseline_rmse=baseline, n_train=n_tr,
                       n_test=X_test.shape[0])


#: Largest grid side of :func:`uniform_error_curves` (its N^2 points stay within
#: :data:`MAX_POINTS_ERROR`).
MAX_GRID_SIDE = 31


def uniform_error_curves(lifetime, counts, n_grid=16, n_draws=10, random_state=None,
                         progress=None) -> KernelErrorCurves:
    """Compute the largest Mondrian-kernel error over a grid covering the unit square.

    Proposition 2 of Balog et al. (2016) bounds ``sup |k_M(x, x') - k(x, x')|`` over a
    bounded domain: the probability that it exceeds any delta > 0 vanishes as the
    number of trees ``M`` grows. The supremum over the whole square is approximated
    here by the maximum over all pairs of an ``n_grid x n_grid`` grid (corners
    included), for each count and each of ``n_draws`` independent sets of trees.

    Parameters
    ----------
    lifetime : float > 0
        The Mondrian lifetime and Laplace kernel's inverse width.
    counts : sequence of int
        Numbers of trees ``M`` (nested within one draw, as in Figure 5).
    n_grid : int, default=16
        Grid points per side, 2 to :data:`MAX_GRID_SIDE`.
    n_draws : int, default=10
        Independent draws of the trees (>= 2, so that their spread is known).
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`).
    progress : callable, optional
        Called as ``progress(fraction, text)`` after each draw.

    Returns
    -------
    KernelErrorCurves
        The Mondrian kernel's errors only, of shape (n_draws, len(counts)); its
        ``n_points`` is the number of grid points.

    Raises
    ------
    InputError
        If an argument is invalid.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 3.2, Proposition 2 (proof in the supplement, sec. A).
    """
    n_grid = check_count(n_grid, "n_grid", minimum=2, maximum=MAX_GRID_SIDE)
    n_draws = check_count(n_draws, "n_draws", minimum=2)
    gx, gy, grid = plane_grid([0.0, 0.0], [1.0, 1.0], n_grid)
    return _max_error_curves(grid, check_lifetime(lifetime),
                             check_counts(counts, "feature counts"), n_draws, METHODS[:1],
                             check_random_state(random_state), progress, grid_axes=(gx, gy))


@dataclass(frozen=True)
class FeatureVariances:
    """Variance of one member's kernel estimate, averaged over pairs of points.

    Made by :func:`feature_variances`.

    Parameters
    ----------
    tree : float
        One Mondrian tree (or binning grid): its estimate is 1 or 0, variance
        ``k (1 - k)``.
    fourier : float
        One random Fourier feature ``2 cos(w.x + b) cos(w.x' + b)``, which ranges
        over [-2, 2] for every pair: variance ``1 - k^2 / 2`` for the Laplace kernel.
    fraction_far : float
        The fraction of pairs with ``k < 0.01``, where a tree's estimate is almost
        always exactly 0.
    n_pairs : int
        The number of pairs (i < j).
    """

    tree: float
    fourier: float
    fraction_far: float
    n_pairs: int

    def rms_error(self, n_members) -> tuple[float, float]:
        """Return the RMS error over pairs of an ``n_members`` average.

        Each member is independent and unbiased, so the variance of the average is
        the member's divided by ``n_members``.

        Parameters
        ----------
        n_members : int
            Trees (or frequencies) averaged, at least 1.

        Returns
        -------
        tuple of float
            The RMS error of the tree average and of the Fourier average.

        Raises
        ------
        InputError
            If ``n_members`` is not a positive integer.
        """
        m = check_count(n_members, "n_members")
        return float(np.sqrt(self.tree / m)), float(np.sqrt(self.fourier / m))


def feature_variances(K) -> FeatureVariances:
    """Return the variances of one tree's and one Fourier feature's kernel estimate.

    For a pair with Laplace kernel ``k = exp(-lambda ||x - x'||_1)``: a Mondrian tree
    puts the pair in one cell with probability ``k`` (Balog et al. 2016, sec. 3.2), so
    its 0/1 estimate has variance ``k (1 - k)``. A Fourier feature's estimate
    ``2 cos(a) cos(b) = cos(w.(x - x')) + cos(w.(x + x') + 2 b_0)`` has mean ``k`` and
    second moment ``(1 + k(2 delta)) / 2 + 1/2``; for the Laplace kernel
    ``k(2 delta) = k^2``, so its variance is ``1 - k^2 / 2``, at least 1/2 for every
    pair (Rahimi and Recht 2007 for the features).

    Parameters
    ----------
    K : array-like of shape (N, N)
        The Laplace kernel matrix of the points (symmetric, entries in [0, 1]).

    Returns
    -------
    FeatureVariances
        The variances averaged over the pairs i < j.

    Raises
    ------
    InputError
        If ``K`` is not a square matrix of at least 2 x 2 with entries in [0, 1].
    """
    K = check_points(K, "K", min_samples=2)
    if K.shape[0] != K.shape[1]:
        raise InputError(f"K has shape {K.shape}; pass the square N x N Laplace kernel matrix.")
    if not np.all((K >= 0) & (K <= 1)):
        raise InputError("The Laplace kernel's entries lie in [0, 1]; pass its matrix.")
    k = K[np.triu_indices(K.shape[0], k=1)]
    return FeatureVariances(tree=float(np.mean(k * (1 - k))),
                            fourier=float(np.mean(1 - k ** 2 / 2)),
                            fraction_far=float(np.mean(k < 0.01)), n_pairs=int(k.size))


def laplace_link_pairs(X, lifetime, n_trees, n_pairs=300, random_state=None):
    """Compare the fraction of trees sharing a cell with ``exp(-lifetime ||x - x'||_1)``.

    Parameters
    ----------
    X : array-like of shape (N, D)
        The points (at least 2).
    lifetime : float
        The Mondrian lifetime (units of inverse ``X``).
    n_trees : int
        Number of Mondrian trees.
    n_pairs : int, default=300
        Random pairs (i < j) to compare (all pairs if there are fewer).
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`).

    Returns
    -------
    laplace : ndarray of shape (n_pairs,)
        The Laplace kernel of each pair.
    fraction : ndarray of shape (n_pairs,)
        The fraction of trees that put the pair in one cell.
    distance : ndarray of shape (n_pairs,)
        The pair's L1 distance.

    Raises
    ------
    InputError
        If there are fewer than 2 points.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 8.1.
    """
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    if n < 2:
        raise InputError("The Laplace link needs at least 2 points.")
    rng = check_random_state(random_state)
    est = MondrianFeatures(lifetime, n_trees, rng).fit(X)
    leaf = est.trees_.leaf_of_point  # (M, N)
    iu, ju = np.triu_indices(n, k=1)
    if iu.size > n_pairs:
        pick = rng.choice(iu.size, size=n_pairs, replace=False)
        iu, ju = iu[pick], ju[pick]
    dist = np.abs(X[iu] - X[ju]).sum(1)
    frac = (leaf[:, iu] == leaf[:, ju]).mean(axis=0)
    return np.exp(-lifetime * dist), frac, dist


def kernel_slice(lifetime, counts, x0=(0.5, 0.5), n_grid=301, random_state=None):
    """Estimate k(x0, x) along the horizontal line through ``x0`` across the unit square.

    The Mondrian partitions are sampled on the grid points of the line (by
    projectivity their restriction to these points is the same as that of a
    Mondrian on the whole square), so the estimate is a step function that
    changes only where some tree has a cut.

    Parameters
    ----------
    lifetime : float
        The Mondrian lifetime.
    counts : sequence of int
        Numbers of trees.
    x0 : sequence of float, default=(0.5, 0.5)
        The reference point.
    n_grid : int, default=301
        Grid points on the line (>= 2).
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`).

    Returns
    -------
    s : ndarray of shape (n_grid,)
        The first coordinate of the grid points.
    laplace : ndarray of shape (n_grid,)
        ``exp(-lifetime |s - x0[0]|)``.
    estimates : dict of int to ndarray
        ``m -> k_m(x0, x)`` on the grid.

    Raises
    ------
    InputError
        If ``n_grid < 2``.
    """
    x0 = np.asarray(x0, dtype=float).reshape(-1)
    n_grid = check_count(n_grid, "n_grid (grid points of the slice)", minimum=2)
    s = np.linspace(0.0, 1.0, n_grid)
    line = np.repeat(x0[None], n_grid, axis=0)
    line[:, 0] = s
    i0 = int(np.argmin(np.abs(s - x0[0])))
    line[i0, 0] = x0[0]
    laplace = np.exp(-lifetime * np.abs(s - x0[0]))
    return s, laplace, _kernel_row(line, i0, lifetime, counts, random_state)


def _kernel_row(X, i, lifetime, counts, random_state):
    """Row ``i`` of :func:`cumulative_kernels`' Mondrian kernels of ``X`` with itself,
    ``{m: K_m[i]}``, the same numbers: in how many of the first m trees each point shares
    ``X[i]``'s cell, over m (one comparison per tree instead of every pair's count)."""
    counts = check_counts(counts, "feature counts")
    est = MondrianFeatures(lifetime, int(counts[-1]), check_random_state(random_state)).fit(X)
    cells = block_one_hot_columns(est.transform(X))
    shared = np.cumsum(cells == cells[i], axis=1)  # trees among the first m sharing the cell
    return {int(m): shared[:, m - 1] / m for m in counts}


def serpentine_order(X, n_strips=None) -> np.ndarray:
    """Order the points so that neighbours in space are mostly neighbours in the order.

    Points are cut into ``n_strips`` strips along the first coordinate and
    sorted along the second, alternately up and down (a boustrophedon), so a
    kernel matrix in this order shows its local block structure.

    Parameters
    ----------
    X : array-like of shape (N, D)
        The points; only the first two coordinates are used.
    n_strips : int, optional
        Default about ``sqrt(N) / 2``.

    Returns
    -------
    ndarray of int, shape (N,)
        A permutation of the points.
    """
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    if X.shape[1] == 1 or n < 2:
        return np.argsort(X[:, 0], kind="stable")
    if n_strips is None:
        n_strips = max(1, int(round(np.sqrt(n) / 2)))
    lo, hi = X[:, 0].min(), X[:, 0].max()
    strip = np.minimum(((X[:, 0] - lo) / max(hi - lo, 1e-300) * n_strips).astype(int),
                       n_strips - 1)
    second = np.where(strip % 2 == 0, X[:, 1], -X[:, 1])
    return np.lexsort((second, strip))


def kernel_matrices(X, lifetime: float, n_trees: int, random_state=None):
    """Return the Laplace and Mondrian kernel matrices of ``X`` and an order to show them.

    The kernel-convergence page's heat maps: the Mondrian kernel of ``n_trees`` trees
    beside its limit, in :func:`serpentine_order`.

    Parameters
    ----------
    X : array-like of shape (N, D)
        The points.
    lifetime : float
        The lifetime, the Laplace kernel's inverse width.
    n_trees : int
        Mondrian trees averaged by the Mondrian kernel.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Seeds the Mondrian trees.

    Returns
    -------
    laplace : ndarray of shape (N, N)
        ``exp(-lifetime ||x - x'||_1)``.
    mondrian : ndarray of shape (N, N)
        The fraction of the trees that put each pair in one cell.
    order : ndarray of int, shape (N,)
        :func:`serpentine_order` of the points.
    """
    laplace = laplace_kernel(X, lifetime=lifetime)
    mondrian = MondrianFeatures(lifetime, n_trees, random_state=random_state).fit(X).kernel(X)
    return laplace, mondrian, serpentine_order(X)
