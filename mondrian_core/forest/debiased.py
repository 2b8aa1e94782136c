"""The Mondrian random forest as a statistical estimator: cell averages, a central limit
theorem, debiasing over lifetimes and confidence intervals (Cattaneo, Klusowski and
Underwood 2023/2026).

Unlike :class:`~mondrian_core.MondrianForestRegressor` (Lakshminarayanan et al.: trees
on the data's own boxes, hierarchical smoothing), the trees here are Mondrian processes
on one fixed box, drawn independently of the data, and a tree predicts the plain
average of the responses in the cell of ``x``. That is what the theory needs:

* estimator (sec. 2): ``mu_hat(x) = (1/B) sum_b sum_i Y_i 1{X_i in T_b(x)} / N_b(x)``;
  an empty cell contributes 0, as in the paper;
* central limit theorem (Theorem 3.1): ``sqrt(n / lambda^d) (mu_hat - E[mu_hat | X, T])``
  tends to ``N(0, sigma^2(x) / f(x) * ((4 - 4 log 2) / 3)^d)``;
* bias (Theorem 3.2): ``sum_r B_r(x) / lambda^(2r)``; the generalized jackknife over
  lifetimes ``a_r lambda`` with weights ``omega`` solving
  ``sum_r omega_r a_r^(-2s) = 1{s = 0}`` (s = 0..J) removes the first J terms
  (Theorems 4.1 and 4.2);
* variance estimator (sec. 5): ``sigma_hat^2(x) * sum_i w_i(x)^2`` with ``w`` the
  smoother weights of the (debiased) forest.

Pointwise work. The cell of one point ``x`` under a Mondrian process of lifetime
``lambda`` on ``[0, 1]^d`` is ``prod_j [x_j - min(E_j / lambda, x_j), x_j + min(E'_j /
lambda, 1 - x_j)]`` with ``E, E'`` i.i.d. Exp(1) (Mourtada, Gaiffas and Scornet 2020,
Proposition 1), so an interval at one point costs ``O(B n d)`` and no tree
(:func:`sample_cells_at`, :func:`forest_at_point`). The estimator needs the cells of
many points under the *same* trees; it descends each point through trees whose nodes
draw their cut from a hash of their position in the tree (a counter-based generator),
so only the nodes on the points' paths are ever made, never whole trees, and every call
sees the same forest.

References
----------
Cattaneo, Klusowski and Underwood, "Inference with Mondrian Random Forests", arXiv
2310.09702 (2023); J. R. Stat. Soc. B 88(3) (2026).
Mourtada, Gaiffas and Scornet, "Minimax optimal rates for Mondrian trees and forests",
Annals of Statistics 48(4) (2020).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from mondrian_core._docstrings import docfiller, params
from mondrian_core._validation import (
    check_box,
    check_count,
    check_fraction,
    check_is_fitted,
    check_lifetime,
    check_points,
    check_random_state,
    check_target,
)
from mondrian_core.errors import InputError
from mondrian_core.forest._jackknife import (
    MAX_DEBIAS_ORDER,
    VARIANCE_CONSTANT_1D,
    check_ratios,
    debias_weights,
    default_lifetime_ratios,
    normal_quantile,
    polynomial_lifetime,
    variance_constant,
)
from mondrian_core.forest.estimators import MAX_ESTIMATORS

# The query methods' points, documented once.
_query_doc = docfiller({"query": """\
Parameters
----------
X : array-like of shape (n_points, n_features)
    Where; points outside the box are clipped to it.
"""})

__all__ = ["DebiasedMondrianForestRegressor", "PointInference", "debias_weights",
           "default_lifetime_ratios", "descend", "forest_at_point", "forests_at_point",
           "polynomial_lifetime",
           "sample_cells_at",
           "variance_constant", "VARIANCE_CONSTANT_1D"]

#: The largest lifetime (times its largest ratio) on the unit cube: cells of width
#: 1e-6 already hold one training point each, and a point's path grows with the
#: logarithm of the lifetime (1e308 took minutes).
MAX_SCALED_LIFETIME = 1e6
#: Lifetimes tried by ``lifetime="gcv"``.
GCV_GRID_SIZE = 16
#: Largest (points x trees) handled in one vectorised step.
_CHUNK_PAIRS = 1_000_000

_LEFT = np.uint64(0xD1B54A32D192ED03)
_RIGHT = np.uint64(0x8CB92BA72F3D8DD7)


def check_cell_query(x, lifetime, n_trees, random_state):
    """Validate the arguments of :func:`sample_cells_at` (and of its slow twin).

    Returns ``x`` as a 1-D float array, ``lifetime``, ``n_trees`` and a generator.
    """
    x = np.asarray(x, dtype=float).reshape(-1)
    if x.size == 0 or not np.all((x >= 0) & (x <= 1)):
        raise InputError("x must be a point of the unit cube [0, 1]^d; scale it to the box "
                         "first.")
    lifetime = check_lifetime(lifetime, positive=True)
    n_trees = check_count(n_trees, "n_trees")
    return x, lifetime, n_trees, check_random_state(random_state)


def sample_cells_at(x, lifetime: float, n_trees: int, random_state=None):
    """The cells of one point under independent Mondrian processes, without trees.

    The processes have lifetime ``lifetime`` on the unit cube, one per tree.

    Side ``j`` of the cell is ``[x_j - min(E_j / lifetime, x_j), x_j + min(E'_j /
    lifetime, 1 - x_j)]`` with ``E, E'`` i.i.d. Exp(1) (Mourtada, Gaiffas and Scornet
    2020, Proposition 1).

    Parameters
    ----------
    x : array-like of shape (d,)
        The point, in ``[0, 1]^d``.
    lifetime : float
        The lifetime (> 0).
    n_trees : int
        How many trees.
    random_state : None, int or numpy.random.Generator, default=None
        The randomness.

    Returns
    -------
    lower : ndarray of shape (n_trees, d)
        The cells' lower corners.
    upper : ndarray of shape (n_trees, d)
        Their upper corners.

    Raises
    ------
    InputError
        If ``x`` is not in the unit cube or a parameter is out of range.
    """
    x, lifetime, n_trees, rng = check_cell_query(x, lifetime, n_trees, random_state)
    E = rng.standard_exponential((2, n_trees, x.size)) / lifetime
    return x - np.minimum(E[0], x), x + np.minimum(E[1], 1.0 - x)


@dataclass(frozen=True)
class PointInference:
    """A (debiased) forest's answer at one point, from :func:`forest_at_point`.

    Parameters
    ----------
    estimate : float
        ``mu_hat_d(x)``.
    lower : float
        The confidence interval's lower end.
    upper : float
        Its upper end.
    sigma2 : float
        The local residual variance ``sigma_hat^2(x)``.
    sum_w2 : float
        ``sum_i w_i(x)^2``, the smoother weights' sum of squares.
    empty_rate : float
        The fraction of the cells (all forests) that held no training point.
    forest_estimates : ndarray
        Each forest's own estimate ``mu_hat_r(x)``.
    """

    estimate: float
    lower: float
    upper: float
    sigma2: float
    sum_w2: float
    empty_rate: float
    forest_estimates: np.ndarray


def _ranges(start, end):
    """The positions ``start[g] .. end[g] - 1`` of every group ``g``, concatenated, and
    the group of each."""
    lengths = end - start
    total = int(lengths.sum())
    group = np.repeat(np.arange(lengths.size), lengths)
    offsets = np.cumsum(lengths) - lengths
    return np.arange(total) - offsets[group] + start[group], group


def _cell_members(U, by_first, first, lower, upper):
    """The training points in each cell: (tree, index) pairs, and each tree's count.

    ``by_first`` sorts the points by their first coordinate (``first`` the sorted
    values), so each cell's candidates are one slice; the other sides are checked on it.
    """
    B = lower.shape[0]
    pos, tree = _ranges(np.searchsorted(first, lower[:, 0], side="left"),
                        np.searchsorted(first, upper[:, 0], side="right"))
    idx = by_first[pos]
    keep = np.ones(idx.size, dtype=bool)
    for j in range(1, U.shape[1]):
        column = U[idx, j]
        keep &= (column >= lower[tree, j]) & (column <= upper[tree, j])
    tree, idx = tree[keep], idx[keep]
    return tree, idx, np.bincount(tree, minlength=B)


def forest_at_point(U, y, cells, omega, level: float = 0.95) -> PointInference:
    """Combine forests' cells at one point into the (debiased) estimate and interval.

    Each forest's smoother weights are ``w_ri = (1/B) sum_b 1{X_i in C_rb} / N_rb`` (an
    empty cell adds nothing), the estimate ``sum_r omega_r sum_i w_ri Y_i``, the
    residual variance the first forest's cell averages of ``(Y_i - estimate)^2`` and
    the interval ``estimate +- z sqrt(sigma2 sum_i w_i^2)``, ``w = sum_r omega_r w_r``.

    Parameters
    ----------
    U : ndarray of shape (n, d)
        Training points, in the unit cube.
    y : ndarray of shape (n,)
        Responses.
    cells : sequence of (lower, upper) pairs
        Forest ``r``'s cells of the point (each of shape (B, d)), e.g. from
        :func:`sample_cells_at` at lifetime ``a_r * lambda``.
    omega : array-like of shape (len(cells),)
        The jackknife weights (``[1.0]`` for a plain forest).
    level : float, default=0.95
        The confidence level.

    Returns
    -------
    PointInference
        Estimate, interval and their parts.
    """
    return forests_at_point(U, y, cells, [omega], level)[0]


@docfiller({"data": params(forest_at_point.__doc__, "U", "y", "cells")})
def forests_at_point(U, y, cells, omegas, level: float = 0.95) -> list[PointInference]:
    """:func:`forest_at_point` for several weightings of the same forests' cells.

    Weighting ``k`` combines the first ``len(omegas[k])`` forests; each forest's cell
    members are found once for all (the coverage lab's plain forest is its debiased
    forest's first). The same numbers as one :func:`forest_at_point` call each.

    Parameters
    ----------
    %(data)s
    omegas : sequence of array-like
        The weightings, each of at most ``len(cells)`` jackknife weights.
    level : float, default=0.95
        The confidence level.

    Returns
    -------
    list of PointInference
        One per weighting.
    """
    by_first = np.argsort(U[:, 0], kind="stable")
    first = U[by_first, 0]
    n = U.shape[0]
    parts = []  # per forest: its members, shares, weights, estimate and empty cells
    for lo, hi in cells[:max(len(o) for o in omegas)]:
        tree, idx, counts = _cell_members(U, by_first, first, lo, hi)
        share = np.where(counts > 0, 1.0 / np.maximum(counts, 1), 0.0)
        wr = np.bincount(idx, weights=share[tree], minlength=n) / lo.shape[0]
        # not BLAS: its threads only contend on small dots
        parts.append((tree, idx, share, lo.shape[0], wr, np.sum(wr * y),
                      int(np.sum(counts == 0)), counts.size))
    out = []
    for omega in omegas:
        omega = np.asarray(omega, dtype=float)
        w = np.zeros(n)
        estimates = np.empty(omega.size)
        empty = total = 0
        for r, (_, _, _, _, wr, est, n_empty, n_cells) in enumerate(parts[:omega.size]):
            w += omega[r] * wr
            estimates[r] = est
            empty += n_empty
            total += n_cells
        tree0, idx0, share0, B0 = parts[0][:4]
        estimate = float(np.sum(omega * estimates))
        sigma2 = float(np.sum(share0[tree0] * (y[idx0] - estimate) ** 2)) / B0
        sum_w2 = float(np.sum(w * w))
        half = normal_quantile(float(level)) * np.sqrt(sigma2 * sum_w2)
        out.append(PointInference(estimate, estimate - half, estimate + half, sigma2, sum_w2,
                                  empty / total, estimates))
    return out


# ------------------------------------------------------------------ lazy trees
def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a bijective hash of 64-bit words (wrapping arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _uniform(key: np.ndarray, k: int) -> np.ndarray:
    """The ``k``-th uniform on (0, 1) of the nodes with keys ``key``."""
    bits = _mix(key + np.uint64(k * 0x9E3779B97F4A7C15 % 2**64)) >> np.uint64(11)
    return (bits.astype(np.float64) + 0.5) * 2.0 ** -53


def node_cut(key: np.ndarray, lower: np.ndarray, upper: np.ndarray):
    """The cut each node would make after its birth: waiting time (at rate the box's
    linear dimension), dimension (proportional to the sides) and location (uniform).

    A node's draws are hashes of its key, so a tree is the same wherever it is entered.

    Parameters
    ----------
    key : ndarray of uint64, shape (m,)
        The nodes' keys.
    lower, upper : ndarray of shape (m, d)
        Their boxes.

    Returns
    -------
    wait : ndarray of shape (m,)
        Time from the node's birth to its cut.
    dim : ndarray of int, shape (m,)
        The cut's dimension.
    loc : ndarray of shape (m,)
        The cut's location.
    """
    side = upper - lower
    linear = side.sum(axis=1)
    wait = -np.log(_uniform(key, 1)) / linear
    reach = _uniform(key, 2) * linear
    dim = np.minimum((np.cumsum(side, axis=1) < reach[:, None]).sum(axis=1), side.shape[1] - 1)
    rows = np.arange(key.size)
    loc = lower[rows, dim] + _uniform(key, 3) * side[rows, dim]
    return wait, dim, loc


def child_keys(key: np.ndarray, right: np.ndarray) -> np.ndarray:
    """The keys of the left (``right`` False) or right children of nodes ``key``.

    Parameters
    ----------
    key : ndarray of uint64
        The parents' keys.
    right : ndarray of bool
        Which child.

    Returns
    -------
    ndarray of uint64
        The children's keys.
    """
    return _mix(key ^ np.where(right, _RIGHT, _LEFT))


def descend(U, roots, lifetime: float):
    """The leaves holding points ``U`` in trees ``roots``, made only along their paths.

    The trees are Mondrian processes of lifetime ``lifetime`` on the unit cube.

    Parameters
    ----------
    U : ndarray of shape (m, d)
        Points in the unit cube.
    roots : ndarray of uint64, shape (B,)
        The trees' root keys.
    lifetime : float
        The lifetime.

    Returns
    -------
    leaf : ndarray of uint64, shape (B, m)
        The leaf's key (points share a cell exactly when they share it).
    lower : ndarray of shape (B, m, d)
        The leaf's lower corner.
    upper : ndarray of shape (B, m, d)
        Its upper corner.
    """
    m, d = U.shape
    B = roots.size
    if B * m > _CHUNK_PAIRS and m > 1:  # the walk holds several arrays of pairs
        parts = [descend(U[part], roots, lifetime) for part in _chunks(m, B)]
        return tuple(np.concatenate(arrays, axis=1) for arrays in zip(*parts))
    key = np.repeat(roots, m)
    pts = np.tile(U, (B, 1))
    lower = np.zeros((B * m, d))
    upper = np.ones((B * m, d))
    born = np.zeros(B * m)
    live = np.arange(B * m)
    while live.size:
        wait, dim, loc = node_cut(key[live], lower[live], upper[live])
        cut = born[live] + wait < lifetime
        live, dim, loc = live[cut], dim[cut], loc[cut]
        born[live] += wait[cut]
        right = pts[live, dim] > loc
        upper[live[~right], dim[~right]] = loc[~right]
        lower[live[right], dim[right]] = loc[right]
        key[live] = child_keys(key[live], right)
    return key.reshape(B, m), lower.reshape(B, m, d), upper.reshape(B, m, d)


@dataclass(frozen=True)
class _Forest:
    """One fitted forest: the training points' leaves, sorted per tree, with prefix
    sums of y and y^2 over that order (a cell's count and sums by two binary searches)."""

    roots: np.ndarray          # (B,) uint64
    lifetime: float
    sorted_leaf: np.ndarray    # (B, n) uint64
    order: np.ndarray          # (B, n) training indices in that order
    cum_y: np.ndarray          # (B, n + 1)
    cum_y2: np.ndarray         # (B, n + 1)
    empty_volume: float        # fraction of the cube in cells without training points

    @classmethod
    def grow(cls, U, y, roots, lifetime):
        leaf, lower, upper = descend(U, roots, lifetime)
        order = np.argsort(leaf, axis=1, kind="stable")
        sorted_leaf = np.take_along_axis(leaf, order, axis=1)
        zero = np.zeros((roots.size, 1))
        cum_y = np.hstack([zero, np.cumsum(y[order], axis=1)])
        cum_y2 = np.hstack([zero, np.cumsum(y[order] ** 2, axis=1)])
        first = np.ones_like(sorted_leaf, dtype=bool)
        first[:, 1:] = sorted_leaf[:, 1:] != sorted_leaf[:, :-1]
        vol = np.prod(np.take_along_axis(upper - lower, order[:, :, None], axis=1), axis=2)
        empty = 1.0 - float(np.sum(vol * first)) / roots.size
        return cls(roots, lifetime, sorted_leaf, order, cum_y, cum_y2, max(empty, 0.0))

    def ranges(self, U):
        """For points ``U``: start and end (B, m) of their cells in each tree's order."""
        leaf = descend(U, self.roots, self.lifetime)[0]
        start = np.empty(leaf.shape, dtype=np.int64)
        end = np.empty(leaf.shape, dtype=np.int64)
        for b in range(self.roots.size):
            start[b] = np.searchsorted(self.sorted_leaf[b], leaf[b], side="left")
            end[b] = np.searchsorted(self.sorted_leaf[b], leaf[b], side="right")
        return start, end

    def sums(self, start, end):
        """Counts, sums of y and of y^2 in the cells (B, m)."""
        take = np.take_along_axis
        return (end - start, take(self.cum_y, end, 1) - take(self.cum_y, start, 1),
                take(self.cum_y2, end, 1) - take(self.cum_y2, start, 1))


def _chunks(m: int, per_point: int):
    step = max(1, _CHUNK_PAIRS // max(per_point, 1))
    return [slice(i, min(i + step, m)) for i in range(0, m, step)]


# ------------------------------------------------------------------ the estimator
class DebiasedMondrianForestRegressor(RegressorMixin, BaseEstimator):
    """Mondrian random forest regression with debiasing and confidence intervals.

    The forest of Cattaneo, Klusowski and Underwood: ``n_estimators`` Mondrian processes
    of lifetime ``lifetime`` on a fixed box, drawn independently of the data; a tree
    predicts the average response in the cell of ``x``, the forest the mean of its trees.
    With ``debias_order=J`` it fits J + 1 independent forests at lifetimes
    ``lifetime * lifetime_ratios[r]`` and combines them with the generalized
    jackknife's weights ``omega_`` (:func:`debias_weights`), which removes the bias's
    first J terms in ``1 / lifetime^2``.

    The box is ``box`` or, if None, the training points' bounding box; it is scaled to
    the unit cube, as the theory assumes, and ``lifetime`` is in units of that cube (the
    expected number of cells of a tree is ``(1 + lifetime)^d``). A prediction point
    outside the box is moved to the nearest point of the box (its coordinates clipped),
    so predictions extend the boundary cells as constants and the intervals there are
    for the regression function at the clipped point; the theory covers interior points
    only. A cell without training points contributes 0 to its tree's prediction, as in
    the paper; ``empty_cell_rate_`` says how much of the box such cells cover.

    The trees are never grown whole: each point is walked down trees whose nodes draw
    their cuts from a hash of their place in the tree, so the same forest answers every
    call, and each point costs its path plus two binary searches per tree.

    Parameters
    ----------
    lifetime : float or {"gcv", "polynomial"}, default=1.0
        The lifetime ``lambda`` (> 0) of the first forest, on the unit cube; or a
        selector: ``"gcv"`` minimises generalized cross-validation over a grid,
        ``"polynomial"`` the asymptotic integrated MSE with the bias from a global
        polynomial fit (exact derivatives) and the noise from its residuals (paper,
        sec. 6). The lifetime used is ``lifetime_``.
    n_estimators : int, default=100
        Trees per forest, B. The theory needs B to grow with n (the paper suggests
        ``sqrt(n)``); too few trees add a bias of order ``1 / (lambda sqrt(B))``.
    debias_order : int, default=0
        J, the number of bias terms removed (0 to 4; the paper uses 0, 1 or 2).
    lifetime_ratios : array-like of shape (J + 1,) or None, default=None
        The ratios ``a_r``; None for ``1.5 ** r``.
    box : tuple (lower, upper) of array-likes, or None, default=None
        The box the trees partition; it must hold the training points.
    random_state : None, int or numpy.random.Generator, default=None
        The trees' randomness.

    Attributes
    ----------
    lifetime_ : float
        The lifetime of the first forest (``lifetime`` or the selector's choice).
    omega_ : ndarray of shape (J + 1,)
        The jackknife weights.
    lifetime_ratios_ : ndarray of shape (J + 1,)
        The ratios used.
    box_ : tuple of ndarray
        The box's lower and upper corners.
    empty_cell_rate_ : float
        The fraction of the box covered by cells without training points, averaged
        over all trees: the rate of empty cells for a point drawn uniformly from the box.
    selection_scores_ : ndarray of shape (n_lifetimes, 2) or None
        With ``lifetime="gcv"``, each lifetime tried and its GCV score; else None.
    n_features_in_ : int
        Number of features seen in fit.
    feature_names_in_ : ndarray of str
        Feature names seen in fit (only when X has them).

    See Also
    --------
    MondrianForestRegressor : Lakshminarayanan et al.'s online forest with smoothing.

    References
    ----------
    Cattaneo, Klusowski and Underwood, "Inference with Mondrian Random Forests", arXiv
    2310.09702 (2023); J. R. Stat. Soc. B 88(3) (2026), Theorems 3.1, 3.2, 4.1, 4.2 and
    sec. 5-6.
    Mourtada, Gaiffas and Scornet, "Minimax optimal rates for Mondrian trees and
    forests", Annals of Statistics 48(4) (2020).

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import DebiasedMondrianForestRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((1000, 1))
    >>> y = np.sin(np.pi * X[:, 0]) + rng.normal(size=1000)
    >>> forest = DebiasedMondrianForestRegressor(lifetime=10.0, debias_order=1,
    ...                                          box=([0.0], [1.0]), random_state=0)
    >>> forest = forest.fit(X, y)
    >>> forest.omega_.round(2)
    array([-0.8,  1.8])
    >>> lower, upper = forest.confidence_interval([[0.5]])
    >>> bool(lower[0] < 1.0 < upper[0])
    True
    """

    def __init__(self, lifetime=1.0, n_estimators=100, debias_order=0, lifetime_ratios=None,
                 box=None, random_state=None):
        self.lifetime = lifetime
        self.n_estimators = n_estimators
        self.debias_order = debias_order
        self.lifetime_ratios = lifetime_ratios
        self.box = box
        self.random_state = random_state

    # ------------------------------------------------------------ fitting
    def _check_params(self):
        n_trees = check_count(self.n_estimators, "n_estimators", maximum=MAX_ESTIMATORS)
        order = check_count(self.debias_order, "debias_order", minimum=0,
                            maximum=MAX_DEBIAS_ORDER)
        ratios = check_ratios(self.lifetime_ratios, order)
        if isinstance(self.lifetime, str):
            if self.lifetime not in ("gcv", "polynomial"):
                raise InputError(f"lifetime must be a positive number, 'gcv' or 'polynomial'; "
                                 f"got {self.lifetime!r}.")
        else:
            check_lifetime(self.lifetime, positive=True)
            if self.lifetime * ratios.max() > MAX_SCALED_LIFETIME:
                raise InputError(
                    f"lifetime * max(lifetime_ratios) = {self.lifetime * ratios.max():.3g} is "
                    f"above {MAX_SCALED_LIFETIME:g}: on the unit cube every cell would hold "
                    "at most one training point; use a smaller lifetime or smaller ratios.")
        return n_trees, order, ratios

    def _scale(self, X, lower, width):
        return np.clip((X - lower) / width, 0.0, 1.0)

    def fit(self, X, y):
        """Draw the trees and index the training points' cells.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points.
        y : array-like of shape (n_samples,)
            Responses.

        Returns
        -------
        DebiasedMondrianForestRegressor
            The fitted forest.

        Raises
        ------
        InputError
            If a parameter is out of range, the data are invalid or the box does not
            hold the training points.
        """
        n_trees, order, ratios = self._check_params()
        X = check_points(X, estimator=self, reset=True)
        y = check_target(y, X, estimator=self)
        d = X.shape[1]
        if self.box is None:
            lower, upper = X.min(axis=0), X.max(axis=0)
        else:
            try:
                box_lower, box_upper = self.box
            except (TypeError, ValueError):
                raise InputError("box must be a pair (lower, upper) of corners, or None for "
                                 "the training points' bounding box.") from None
            lower, upper = check_box(box_lower, box_upper, n_dims=d)
            if np.any(X < lower) or np.any(X > upper):
                raise InputError("box must hold every training point; widen it, or leave "
                                 "box=None for the training points' bounding box.")
        width = np.where(upper > lower, upper - lower, 1.0)
        self.box_ = (lower, upper)
        self._width = width
        U = self._scale(X, lower, width)
        rng = check_random_state(self.random_state)
        self.lifetime_ratios_ = ratios
        self.omega_ = debias_weights(ratios)
        self.selection_scores_ = None
        if self.lifetime == "gcv":
            self.lifetime_, self.selection_scores_ = self._gcv(U, y, n_trees, ratios, rng)
        elif self.lifetime == "polynomial":
            self.lifetime_ = polynomial_lifetime(U, y, order, ratios)
        else:
            self.lifetime_ = float(self.lifetime)
        self._forests = self._grow(U, y, n_trees, ratios, self.lifetime_, rng)
        self._y = y
        self.empty_cell_rate_ = float(np.mean([f.empty_volume for f in self._forests]))
        return self

    @staticmethod
    def _grow(U, y, n_trees, ratios, lifetime, rng):
        return [_Forest.grow(U, y, rng.integers(0, 2**63, size=n_trees, dtype=np.uint64)
                             .astype(np.uint64), lifetime * a) for a in ratios]

    def _gcv(self, U, y, n_trees, ratios, rng):
        n, d = U.shape
        abar = float(np.mean(ratios ** d))
        top = 0.9 * (n / abar) ** (1.0 / d)  # GCV is infinite from (n / abar)^(1/d) on
        if top <= 0.5:
            raise InputError(f"lifetime='gcv' needs more points than {n}; give a lifetime.")
        grid = np.geomspace(min(0.5, top / 2), top, GCV_GRID_SIZE)
        omega = debias_weights(ratios)
        scores = np.empty(grid.size)
        for k, lam in enumerate(grid):
            forests = self._grow(U, y, n_trees, ratios, lam, rng)
            fitted = sum(w * _predict_forest(f, U)[0] for w, f in zip(omega, forests))
            scores[k] = np.mean(((y - fitted) / (1.0 - abar * lam ** d / n)) ** 2)
        return float(grid[int(np.argmin(scores))]), np.column_stack([grid, scores])

    # ------------------------------------------------------------ prediction
    def _unit(self, X):
        check_is_fitted(self, "omega_")
        X = check_points(X, estimator=self, reset=False)
        return self._scale(X, self.box_[0], self._width)

    @_query_doc
    def predict(self, X):
        """The (debiased) forest's estimate of the regression function.

        %(query)s

        Returns
        -------
        ndarray of shape (n_points,)
            ``sum_r omega_r mu_hat_r(x)``.
        """
        U = self._unit(X)
        return sum(w * _predict_forest(f, U)[0] for w, f in zip(self.omega_, self._forests))

    @_query_doc
    def confidence_interval(self, X, level=0.95):
        """Confidence intervals for the regression function at ``X``.

        ``mu_hat_d(x) +- z sqrt(sigma_hat^2(x) sum_i w_i(x)^2)``, with ``sigma_hat^2`` the
        first forest's cell-averaged squared residuals around ``mu_hat_d(x)`` and ``w``
        the (debiased) forest's smoother weights (paper, sec. 5). Valid when the bias is
        small next to the standard deviation: debias (``debias_order >= 1``) or take a
        lifetime above the MSE-optimal one.

        %(query)s
        level : float, default=0.95
            The confidence level, in (0, 1).

        Returns
        -------
        lower : ndarray of shape (n_points,)
            The intervals' lower ends.
        upper : ndarray of shape (n_points,)
            Their upper ends.
        """
        level = check_fraction(level, "level")
        est, var = self._estimate_and_variance(self._unit(X))
        half = normal_quantile(level) * np.sqrt(var)
        return est - half, est + half

    @_query_doc
    def predict_std(self, X):
        """The estimated standard deviation of ``predict(X)``, ``sqrt(sigma_hat^2 sum w^2)``.

        %(query)s

        Returns
        -------
        ndarray of shape (n_points,)
            The standard errors.
        """
        return np.sqrt(self._estimate_and_variance(self._unit(X))[1])

    @_query_doc
    def empty_cell_fraction(self, X):
        """The fraction of each point's cells (all trees and forests) left empty.

        An empty cell holds no training point.

        %(query)s

        Returns
        -------
        ndarray of shape (n_points,)
            Fractions in [0, 1].
        """
        U = self._unit(X)
        return np.mean([_predict_forest(f, U)[1] for f in self._forests], axis=0)

    @_query_doc
    def cells(self, X):
        """The cells holding each point in every tree of every forest, on the unit cube.

        %(query)s

        Returns
        -------
        list of (lower, upper) pairs
            One pair per forest ``r``, each of shape (n_estimators, n_points, d): the
            cells' corners in the box's unit-cube coordinates.
        """
        U = self._unit(X)
        return [descend(U, f.roots, f.lifetime)[1:] for f in self._forests]

    def _estimate_and_variance(self, U):
        m, n = U.shape[0], self._y.size
        estimate = np.empty(m)
        variance = np.empty(m)
        for part in _chunks(m, n):
            rows = U[part]
            k = rows.shape[0]
            W = np.zeros((k, n))
            means = []
            for r, (w_r, forest) in enumerate(zip(self.omega_, self._forests)):
                start, end = forest.ranges(rows)
                count, sy, sy2 = forest.sums(start, end)
                share = np.where(count > 0, 1.0 / np.maximum(count, 1), 0.0)
                _add_weights(W, forest.order, start, end, w_r * share / forest.roots.size)
                means.append(np.mean(sy * share, axis=0))
                if r == 0:
                    first = (count, sy, sy2, share)
            est = np.asarray(self.omega_) @ np.array(means)
            count, sy, sy2, share = first
            sigma2 = np.mean((sy2 - 2 * est * sy + est ** 2 * count) * share, axis=0)
            estimate[part] = est
            variance[part] = np.maximum(sigma2, 0.0) * np.einsum("ij,ij->i", W, W)
        return estimate, variance

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # cell averages at lifetime 1 on a few dozen points are a rough fit
        tags.regressor_tags.poor_score = True
        return tags


def _predict_forest(forest: _Forest, U):
    """A forest's estimate at ``U`` and each point's fraction of empty cells (in chunks
    of points: the walk holds arrays of points x trees)."""
    estimate, empty = np.empty(U.shape[0]), np.empty(U.shape[0])
    for part in _chunks(U.shape[0], forest.roots.size):
        start, end = forest.ranges(U[part])
        count, sy, _ = forest.sums(start, end)
        share = np.where(count > 0, 1.0 / np.maximum(count, 1), 0.0)
        estimate[part] = np.mean(sy * share, axis=0)
        empty[part] = np.mean(count == 0, axis=0)
    return estimate, empty


def _add_weights(W, order, start, end, value):
    """``W[p, order[b, start[b, p]:end[b, p]]] += value[b, p]`` for every tree and point."""
    B, k = start.shape
    n = order.shape[1]
    pos, pair = _ranges(start.ravel(), end.ravel())
    if pos.size == 0:
        return
    tree, point = np.divmod(pair, k)
    W += np.bincount(point * n + order[tree, pos], weights=value.ravel()[pair],
                     minlength=k * n).reshape(k, n)
