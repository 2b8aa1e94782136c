"""Recipes for the *Inference with Mondrian forests* page: coverage of confidence
intervals, bias and standard deviation against the lifetime, the central limit theorem
and the rates of trees and forests.

The model throughout is Cattaneo, Klusowski and Underwood's (2023/2026, sec. 7): ``X``
uniform on ``[0, 1]^d``, ``mu(x) = sum_j sin(pi x_j)``, Gaussian noise of standard
deviation ``noise``. Each repetition draws its data and its trees from its own
generator ``default_rng([seed, k])``, so a stack of repetitions can grow one at a time
and a link reproduces it. Trees are not grown: the cell of the query point is drawn
directly (:func:`~mondrian_core.forest.debiased.sample_cells_at`), except by
``cells="grown"``, which grows every tree whole with
:func:`~mondrian_core.sample_mondrian_process` (the slow obvious version, for tests and
benchmarks).

The papers are those of :mod:`mondrian_core.forest.debiased` (Cattaneo, Klusowski and
Underwood 2023/2026; Mourtada, Gaiffas and Scornet 2020), whose References give them in
full.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.stats import norm

from mondrian_core._docstrings import docfiller, params, sections
from mondrian_core._validation import (
    check_choice,
    check_count,
    check_fraction,
    check_lifetime,
    check_real,
)
from mondrian_core.errors import InputError
from mondrian_core.forest.debiased import (
    check_cell_query,
    debias_weights,
    default_lifetime_ratios,
    forest_at_point,
    forests_at_point,
    sample_cells_at,
    variance_constant,
)
from mondrian_core.forest.estimators import MondrianForestRegressor
from mondrian_core.process import sample_mondrian_process

__all__ = ["METHODS", "CoverageStack", "coverage_repetitions", "regression_function",
           "query_point", "grown_cells_at", "limit_bias", "leading_bias", "BiasSdCurves",
           "bias_sd_vs_lifetime", "CltDraws", "clt_statistics", "RiskCurves", "risk_vs_n",
           "theory_sd", "coverage_summary", "RATE_EXPONENTS"]

#: The intervals of the coverage lab, in the order of :class:`CoverageStack`'s columns.
METHODS = ("plain forest", "debiased forest", "smoothed forest (return_std)")
#: Trees of the smoothed forest (MondrianForestRegressor's own default).
SMOOTHED_TREES = 10

Progress = Callable[[float, str], None]


def regression_function(X) -> np.ndarray:
    """``mu(x) = sum_j sin(pi x_j)``, the paper's simulation function.

    Parameters
    ----------
    X : array-like of shape (m, d)
        Points.

    Returns
    -------
    ndarray of shape (m,)
        The values.
    """
    return np.sin(np.pi * np.asarray(X, dtype=float)).sum(axis=1)


def query_point(d: int, where: float = 0.5) -> np.ndarray:
    """The point ``(where, ..., where)`` of the unit cube.

    Parameters
    ----------
    d : int
        The dimension.
    where : float, default=0.5
        Each coordinate.

    Returns
    -------
    ndarray of shape (d,)
        The point.
    """
    return np.full(check_count(d, "d"), float(where))


def _draw(rng, n, d, noise):
    X = rng.random((n, d))
    return X, regression_function(X) + noise * rng.standard_normal(n)


@docfiller({"cells": sections(sample_cells_at.__doc__, "Parameters", "Returns", "Raises")})
def grown_cells_at(x, lifetime: float, n_trees: int, random_state=None):
    """The cells of ``x`` found by growing every tree whole (the slow obvious version).

    The same cells in distribution as :func:`~mondrian_core.forest.debiased.sample_cells_at`,
    which this checks.

    %(cells)s
    """
    x, lifetime, n_trees, rng = check_cell_query(x, lifetime, n_trees, random_state)
    zeros, ones = np.zeros(x.size), np.ones(x.size)
    lower = np.empty((n_trees, x.size))
    upper = np.empty((n_trees, x.size))
    for b in range(n_trees):
        cells = sample_mondrian_process(zeros, ones, lifetime, random_state=rng).cells()
        hit = np.flatnonzero(np.all((cells[:, 0] <= x) & (x <= cells[:, 1]), axis=1))[0]
        lower[b], upper[b] = cells[hit]
    return lower, upper


@dataclass(frozen=True)
class CoverageStack:
    """Repetitions of the coverage lab: one row per data set, one column per method.

    Parameters
    ----------
    lower : ndarray of shape (R, 3)
        Lower ends of the intervals (columns in the order of :data:`METHODS`; NaN where a
        method was not run).
    upper : ndarray of shape (R, 3)
        Upper ends.
    estimate : ndarray of shape (R, 3)
        The estimates.
    truth : float
        ``mu(x)``.
    empty_rate : ndarray of shape (R,)
        The fraction of empty cells of each repetition's forests.
    """

    lower: np.ndarray
    upper: np.ndarray
    estimate: np.ndarray
    truth: float
    empty_rate: np.ndarray

    @property
    def covered(self) -> np.ndarray:
        """Whether each interval holds ``mu(x)`` (R, 3).

        Returns
        -------
        ndarray of bool
            True where covered.
        """
        return (self.lower <= self.truth) & (self.truth <= self.upper)

    def extended(self, more: CoverageStack) -> CoverageStack:
        """Return this stack with ``more``'s rows appended.

        Parameters
        ----------
        more : CoverageStack
            Further repetitions (same setting).

        Returns
        -------
        CoverageStack
            The longer stack.
        """
        return CoverageStack(np.vstack([self.lower, more.lower]),
                             np.vstack([self.upper, more.upper]),
                             np.vstack([self.estimate, more.estimate]), self.truth,
                             np.concatenate([self.empty_rate, more.empty_rate]))


def coverage_summary(stack: CoverageStack) -> dict:
    """Running coverage, its binomial standard error and the mean width of each method.

    Parameters
    ----------
    stack : CoverageStack
        The repetitions.

    Returns
    -------
    dict
        ``coverage``, ``se``, ``width`` (arrays over methods), ``count`` (int).
    """
    R = stack.lower.shape[0]
    ran = ~np.isnan(stack.lower[0]) if R else np.zeros(3, bool)
    cov = np.where(ran, stack.covered.mean(axis=0) if R else np.nan, np.nan)
    se = np.sqrt(np.maximum(cov * (1 - cov), 0.0) / max(R, 1))
    width = np.where(ran, np.mean(stack.upper - stack.lower, axis=0) if R else np.nan, np.nan)
    return {"coverage": cov, "se": se, "width": width, "count": R}


def coverage_repetitions(start: int, count: int, *, d: int = 1, n: int = 1000,
                         lifetime: float = 10.0, n_trees: int = 100, debias_order: int = 1,
                         noise: float = 1.0, where: float = 0.5, level: float = 0.95,
                         seed: int = 0, smoothed: bool = True, cells: str = "pointwise",
                         progress: Progress | None = None) -> CoverageStack:
    """Run repetitions ``start .. start + count - 1`` of the coverage lab.

    Each draws ``n`` points and responses, then the plain forest (lifetime ``lifetime``)
    and the debiased one (J = ``debias_order``, ratios ``1.5^r``; its first forest is the
    plain one) give their intervals at ``x = (where, ..., where)``; with ``smoothed``, a
    :class:`~mondrian_core.MondrianForestRegressor` of 10 trees at the same lifetime,
    told the true noise variance, gives ``mean +- z std`` (``return_std`` without the
    noise: an interval for ``mu(x)``).

    Parameters
    ----------
    start : int
        The first repetition's index (its generator is ``default_rng([seed, start])``).
    count : int
        How many.
    d, n : int
        Dimension and sample size.
    lifetime : float
        The plain forest's lifetime.
    n_trees : int
        Trees per forest, B.
    debias_order : int
        J of the debiased forest (>= 1).
    noise : float
        The noise's standard deviation.
    where : float
        Each coordinate of the query point.
    level : float
        The confidence level.
    seed : int
        The seed.
    smoothed : bool
        Whether to run the smoothed forest too.
    cells : {"pointwise", "grown"}
        How the cells of ``x`` are found (``"grown"``: every tree grown whole; slow).
    progress : callable or None
        ``progress(fraction, text)``.

    Returns
    -------
    CoverageStack
        The intervals.

    Raises
    ------
    InputError
        If a parameter is out of range.
    """
    d, n = check_count(d, "d"), check_count(n, "n", minimum=2)
    lifetime = check_lifetime(lifetime, positive=True)
    n_trees = check_count(n_trees, "n_trees")
    J = check_count(debias_order, "debias_order", minimum=1, maximum=4)
    noise = check_real(noise, "noise")
    level = check_fraction(level, "level")
    where = check_real(where, "where", maximum=1.0)
    find = {"pointwise": sample_cells_at, "grown": grown_cells_at}[
        check_choice(cells, "cells", ("pointwise", "grown"))]
    ratios = default_lifetime_ratios(J)
    omega = debias_weights(ratios)
    x = query_point(d, where)
    z = norm.ppf(0.5 + level / 2)
    out = np.full((3, count, 3), np.nan)   # (lower, upper, estimate) x reps x methods
    empty = np.empty(count)
    for k in range(count):
        rng = np.random.default_rng([seed, start + k])
        X, y = _draw(rng, n, d, noise)
        forests = [find(x, lifetime * a, n_trees, rng) for a in ratios]
        plain, debiased = forests_at_point(X, y, forests, [[1.0], omega], level)
        out[:, k, 0] = plain.lower, plain.upper, plain.estimate
        out[:, k, 1] = debiased.lower, debiased.upper, debiased.estimate
        empty[k] = debiased.empty_rate
        if smoothed:
            model = MondrianForestRegressor(SMOOTHED_TREES, lifetime=lifetime,
                                            random_state=rng, noise_variance=max(noise, 1e-3) ** 2)
            mean, std = model.fit(X, y).predict(x[None], return_std=True, include_noise=False)
            out[:, k, 2] = mean[0] - z * std[0], mean[0] + z * std[0], mean[0]
        if progress is not None:
            progress((k + 1) / count, f"Data set {start + k + 1} of {start + count}")
    return CoverageStack(out[0], out[1], out[2], float(regression_function(x[None])[0]), empty)


# ------------------------------------------------------------------ bias and sd
@lru_cache(maxsize=8)
def _unit_legendre(nodes: int):
    """Gauss-Legendre nodes and weights on [0, 1] (computing them costs more than using)."""
    u, w = np.polynomial.legendre.leggauss(nodes)
    return (u + 1) / 2, w / 2


def _side_average_bias(lifetime: float, where: float, nodes: int = 80) -> float:
    """``E[average of sin(pi t) over x's cell side] - sin(pi x)`` in the limit of
    infinite data, by Gauss-Legendre quadrature over the two half-widths (each
    ``min(Exp(lifetime), boundary distance)``)."""
    u, w = _unit_legendre(nodes)

    def half_widths(reach):
        # density lifetime * exp(-lifetime l) on [0, reach) (analytic: Gauss-Legendre
        # converges fast) and the atom exp(-lifetime reach) at the boundary
        inner = u * reach
        density = w * reach * lifetime * np.exp(-lifetime * inner)
        return np.append(inner, reach), np.append(density, np.exp(-lifetime * reach))

    left, wl = half_widths(where)
    right, wr = half_widths(1.0 - where)
    L, R = np.meshgrid(left, right, indexing="ij")
    # (cos(pi (x - L)) - cos(pi (x + R))) / (pi (L + R)) without its cancellation
    half = np.pi * (L + R) / 2
    avg = np.sin(np.pi * where + np.pi * (R - L) / 2) * np.sinc(half / np.pi)
    return float(wl @ avg @ wr - np.sin(np.pi * where))


def limit_bias(lifetime: float, d: int, *, debias_order: int = 0, where: float = 0.5) -> float:
    """The exact bias of the (debiased) forest as n and B grow, at ``x = (where, ...)``.

    For ``mu = sum_j sin(pi x_j)`` and uniform X: ``E[cell average of mu] - mu(x)``.

    An additive function's average over a box is the sum of its terms' averages over the
    sides, so the bias is ``d`` times one side's (one 2-D quadrature), and the debiased
    one ``sum_r omega_r`` of the plain ones at ``a_r lambda``.

    Parameters
    ----------
    lifetime : float
        The (first forest's) lifetime.
    d : int
        The dimension.
    debias_order : int, default=0
        J (ratios ``1.5^r``).
    where : float, default=0.5
        The query point's coordinates.

    Returns
    -------
    float
        The bias.
    """
    ratios = default_lifetime_ratios(debias_order)
    omega = debias_weights(ratios)
    return float(d * sum(w * _side_average_bias(lifetime * a, where)
                         for w, a in zip(omega, ratios)))


def leading_bias(lifetime, d: int, *, debias_order: int = 0):
    """The leading bias term at the centre for ``mu = sum_j sin(pi x_j)``.

    It is ``omega_bar B_{J+1} / lambda^(2J+2)`` with ``B_r = d (-1)^r pi^(2r) / (r + 1)``.

    ``B_r = sum_{|nu| = r} d^(2 nu) mu(x) prod_j 1 / (nu_j + 1)`` for uniform X
    (Cattaneo, Klusowski and Underwood, Theorem 3.2); with an additive ``mu`` only
    ``nu = r e_j`` counts, and ``d^(2r) sin(pi t) = (-1)^r pi^(2r) sin(pi t)`` is
    ``(-1)^r pi^(2r)`` at ``t = 1/2``.

    Parameters
    ----------
    lifetime : float or ndarray
        Lifetimes.
    d : int
        The dimension.
    debias_order : int, default=0
        J.

    Returns
    -------
    float or ndarray
        The leading term.
    """
    J = debias_order
    ratios = default_lifetime_ratios(J)
    omega_bar = float(debias_weights(ratios) @ ratios ** (-2.0 * J - 2.0))
    r = J + 1
    return omega_bar * d * (-1.0) ** r * np.pi ** (2 * r) / (r + 1) / np.asarray(lifetime) ** (2 * r)


def theory_sd(lifetime, d: int, n: int, *, debias_order: int = 0, noise: float = 1.0):
    """The CLT's standard deviation ``sqrt(lambda^d sigma^2 V / n)`` (uniform X).

    Parameters
    ----------
    lifetime : float or ndarray
        Lifetimes.
    d, n : int
        Dimension and sample size.
    debias_order : int, default=0
        J (ratios ``1.5^r``).
    noise : float, default=1.0
        The noise's standard deviation sigma.

    Returns
    -------
    float or ndarray
        The standard deviation.
    """
    V = variance_constant(d, default_lifetime_ratios(debias_order))
    return np.sqrt(np.asarray(lifetime, dtype=float) ** d * noise ** 2 * V / n)


@dataclass(frozen=True)
class BiasSdCurves:
    """Monte Carlo bias and standard deviation against the lifetime, with theory.

    Parameters
    ----------
    lifetimes : ndarray of shape (L,)
        The plain forest's lifetimes (the debiased one's first forest), in the order
        given.
    bias : ndarray of shape (2, L)
        Monte Carlo bias of the plain (row 0) and debiased (row 1) forest.
    bias_se : ndarray of shape (2, L)
        Its standard error.
    sd : ndarray of shape (2, L)
        Monte Carlo standard deviation.
    limit_bias : ndarray of shape (2, L)
        The exact bias as n, B grow (:func:`limit_bias`).
    theory_sd : ndarray of shape (2, L)
        :func:`theory_sd`.
    repetitions : int
        Data sets per lifetime.
    grid : ndarray of shape (G,)
        A fine grid of lifetimes over the same range, for the theory lines.
    grid_bias : ndarray of shape (2, G)
        :func:`limit_bias` on the grid.
    grid_sd : ndarray of shape (2, G)
        :func:`theory_sd` on the grid.
    debias_order : int
        J of the debiased forest.
    """

    lifetimes: np.ndarray
    bias: np.ndarray
    bias_se: np.ndarray
    sd: np.ndarray
    limit_bias: np.ndarray
    theory_sd: np.ndarray
    repetitions: int
    grid: np.ndarray
    grid_bias: np.ndarray
    grid_sd: np.ndarray
    debias_order: int


def _cells_in_turn(x, sizes, lifetimes, rng):
    """The cells of ``x`` of forests of ``sizes[r]`` trees at ``lifetimes[r]``, drawn as
    :func:`sample_cells_at` called once per forest in turn would draw them (one draw of
    the exponentials: the same stream): a list of (lower, upper) per forest."""
    d = x.size
    E = rng.standard_exponential(2 * d * int(np.sum(sizes)))
    forests, at = [], 0
    for size, lifetime in zip(sizes, lifetimes):
        Er = E[at:at + 2 * size * d].reshape(2, size, d) / lifetime
        at += Er.size
        forests.append((x - np.minimum(Er[0], x), x + np.minimum(Er[1], 1.0 - x)))
    return forests


def _forest_means(U, y, forests):
    """Each forest's estimate: :func:`forest_at_point`'s ``forest_estimates``, without
    the interval's weights.

    In one dimension the points are sorted once, a cell's points are one slice and its
    sum a difference of prefix sums, kept in long double (80-bit on x86) so that a
    difference of two running totals keeps the cell sum's digits; a forest's estimate
    is the mean of its cells' means (an empty cell counts 0). Otherwise
    :func:`forest_at_point` with every forest at once (one sort of the points).
    """
    if U.shape[1] > 1:
        return forest_at_point(U, y, forests, np.ones(len(forests))).forest_estimates
    lower = np.concatenate([lo[:, 0] for lo, _ in forests])
    upper = np.concatenate([hi[:, 0] for _, hi in forests])
    order = np.argsort(U[:, 0], kind="stable")
    first = U[order, 0]
    start = np.searchsorted(first, lower, side="left")
    end = np.searchsorted(first, upper, side="right")
    prefix = np.concatenate([[0.0], np.cumsum(y[order], dtype=np.longdouble)])
    counts = end - start
    means = np.where(counts > 0, (prefix[end] - prefix[start]).astype(float)
                     / np.maximum(counts, 1), 0.0)
    sizes = np.array([lo.shape[0] for lo, _ in forests])
    return np.add.reduceat(means, np.cumsum(sizes) - sizes) / sizes


def _forest_estimates(x, X, y, n_trees, lifetimes, rng):
    """The estimates at ``x`` of forests of ``n_trees`` at each of ``lifetimes``, their
    cells drawn in turn."""
    lifetimes = np.asarray(lifetimes, dtype=float)
    return _forest_means(X, y, _cells_in_turn(x, [n_trees] * lifetimes.size, lifetimes, rng))


def _estimates(rng, x, d, n, lifetime, n_trees, ratios, omega, noise):
    """One data set's plain and debiased estimates at x."""
    X, y = _draw(rng, n, d, noise)
    forests = _forest_estimates(x, X, y, n_trees, lifetime * ratios, rng)
    return forests[0], float(np.sum(omega * forests))


def bias_sd_vs_lifetime(lifetimes, *, d: int = 1, n: int = 1000, n_trees: int = 100,
                        debias_order: int = 1, noise: float = 1.0, repetitions: int = 100,
                        seed: int = 0, progress: Progress | None = None) -> BiasSdCurves:
    """Estimate bias and standard deviation at the centre against the lifetime.

    Parameters
    ----------
    lifetimes : array-like of shape (L,)
        Lifetimes of the plain forest (the debiased one's first forest).
    d, n, n_trees : int
        Dimension, sample size, trees per forest.
    debias_order : int
        J of the debiased forest.
    noise : float
        The noise's standard deviation.
    repetitions : int
        Data sets per lifetime.
    seed : int
        The seed.
    progress : callable or None
        ``progress(fraction, text)``.

    Returns
    -------
    BiasSdCurves
        The curves.

    Raises
    ------
    InputError
        If a parameter is out of range.
    """
    lam = np.asarray(lifetimes, dtype=float).reshape(-1)
    if lam.size == 0 or not np.all(np.isfinite(lam) & (lam > 0)):
        raise InputError("lifetimes must be positive numbers.")
    d, n = check_count(d, "d"), check_count(n, "n", minimum=2)
    R = check_count(repetitions, "repetitions", minimum=2)
    J = check_count(debias_order, "debias_order", minimum=1, maximum=4)
    ratios = default_lifetime_ratios(J)
    omega = debias_weights(ratios)
    x = query_point(d)
    truth = regression_function(x[None])[0]
    est = np.empty((2, lam.size, R))
    for i, lifetime in enumerate(lam):
        rng = np.random.default_rng([seed, i])
        for k in range(R):
            est[:, i, k] = _estimates(rng, x, d, n, lifetime, n_trees, ratios, omega, noise)
        if progress is not None:
            progress((i + 1) / lam.size, f"Lifetime {lifetime:.3g} ({i + 1} of {lam.size})")
    sd = est.std(axis=2, ddof=1)
    grid = np.geomspace(lam.min(), lam.max(), 60)

    def theory(at):
        return (np.array([[limit_bias(v, d, debias_order=j) for v in at] for j in (0, J)]),
                np.array([theory_sd(at, d, n, debias_order=j, noise=noise) for j in (0, J)]))

    lim, th = theory(lam)
    grid_bias, grid_sd = theory(grid)
    return BiasSdCurves(lam, est.mean(axis=2) - truth, sd / np.sqrt(R), sd, lim, th, R,
                        grid, grid_bias, grid_sd, J)


@dataclass(frozen=True)
class CltDraws:
    """Standardised estimates and the variance the CLT gives them.

    Parameters
    ----------
    statistics : ndarray of shape (R,)
        ``sqrt(n / lambda^d) (mu_hat(x) - mu(x) - bias) / sigma`` over data sets.
    variance : float
        The limit's variance ``V`` (:func:`~mondrian_core.forest.debiased.variance_constant`).
    finite_b_variance : float
        ``V`` plus the term of ``B`` trees, ``(1/B) sum_r omega_r^2 (a_r^d - (2 l_rr)^d)``.
    n_trees : int
        B.
    debias_order : int
        J.
    """

    statistics: np.ndarray
    variance: float
    finite_b_variance: float
    n_trees: int
    debias_order: int


@docfiller({"seed_progress": params(bias_sd_vs_lifetime.__doc__, "seed", "progress")})
def clt_statistics(*, d: int = 1, n: int = 1000, lifetime: float = 10.0, n_trees: int = 100,
                   debias_order: int = 0, noise: float = 1.0, repetitions: int = 400,
                   seed: int = 0, progress: Progress | None = None) -> np.ndarray:
    """Draw standardised estimates over fresh data sets and trees.

    ``sqrt(n / lambda^d) (mu_hat(x) - mu(x) - bias) / sigma``; Theorem 3.1 says they tend
    to ``N(0, V)``.

    ``bias`` is :func:`limit_bias`, so the histogram is centred when the trees are many;
    with few trees it is wider (each tree's own variance is averaged over fewer trees).

    Parameters
    ----------
    d, n : int
        Dimension and sample size.
    lifetime : float
        The lifetime.
    n_trees : int
        Trees per forest, B.
    debias_order : int
        J (0: the plain forest).
    noise : float
        The noise's standard deviation (> 0).
    repetitions : int
        Data sets.
    %(seed_progress)s

    Returns
    -------
    CltDraws
        The standardised estimates and their theoretical variances.
    """
    d, n = check_count(d, "d"), check_count(n, "n", minimum=2)
    lifetime = check_lifetime(lifetime, positive=True)
    noise = check_real(noise, "noise", strict=True)
    R = check_count(repetitions, "repetitions", minimum=2)
    J = check_count(debias_order, "debias_order", minimum=0, maximum=4)
    ratios = default_lifetime_ratios(J)
    omega = debias_weights(ratios)
    x = query_point(d)
    centre = regression_function(x[None])[0] + limit_bias(lifetime, d, debias_order=J)
    rng = np.random.default_rng([seed, n_trees])
    out = np.empty(R)
    for k in range(R):
        X, y = _draw(rng, n, d, noise)
        out[k] = np.sum(omega * _forest_estimates(x, X, y, n_trees, lifetime * ratios, rng))
        if progress is not None and (k + 1) % 20 == 0:
            progress((k + 1) / R, f"Data set {k + 1} of {R}")
    V = variance_constant(d, ratios)
    diagonal = np.sum(omega ** 2 * (ratios ** d - (4 * ratios / 3 * (1 - np.log(2))) ** d))
    return CltDraws(np.sqrt(n / lifetime ** d) * (out - centre) / noise, V,
                    V + float(diagonal) / n_trees, n_trees, J)


# ------------------------------------------------------------------ rates
#: The risk exponents in n: a tree n^(-2/(d+2)), a forest n^(-4/(d+4)) (Mourtada, Gaiffas
#: and Scornet 2020, Theorems 2 and 3), the debiased forest (J = 1, a smooth mu)
#: n^(-8/(d+8)) (Cattaneo, Klusowski and Underwood, sec. 4: n^(-2 beta / (d + 2 beta))
#: with beta = 2J + 2).
RATE_EXPONENTS = {"tree": lambda d: -2 / (d + 2), "forest": lambda d: -4 / (d + 4),
                  "debiased forest": lambda d: -8 / (d + 8)}


#: Single trees per data set in :func:`risk_vs_n` (a tree costs one cell, the data more).
TREE_DRAWS = 10


@dataclass(frozen=True)
class RiskCurves:
    """Monte Carlo mean squared error at a point against n.

    Parameters
    ----------
    ns : ndarray of shape (K,)
        Sample sizes.
    risk : dict of str to ndarray of shape (K,)
        The MSE of each learner (keys of :data:`RATE_EXPONENTS`).
    risk_se : dict of str to ndarray of shape (K,)
        Its standard error.
    lifetimes : dict of str to ndarray of shape (K,)
        The lifetime each used.
    slope : dict of str to float
        The least-squares slope of log risk on log n.
    theory : dict of str to float
        The theoretical slope.
    """

    ns: np.ndarray
    risk: dict
    risk_se: dict
    lifetimes: dict
    slope: dict
    theory: dict



@docfiller({"seed_progress": params(bias_sd_vs_lifetime.__doc__, "seed", "progress")})
def risk_vs_n(ns, *, d: int = 1, repetitions: int = 100, noise: float = 1.0,
              where: float = 1 / 3, scale: float = 3.0, seed: int = 0,
              progress: Progress | None = None) -> RiskCurves:
    """Estimate the mean squared error of a tree, a forest and a debiased one against n.

    At ``x = (where, ...)``; the debiased forest has J = 1; each learner has its
    rate-optimal lifetime.

    Lifetimes ``scale * n^(1/(d+2))`` (tree), ``scale * n^(1/(d+4))`` (forest) and
    ``scale * n^(1/(d+8))`` (debiased); forests of ``ceil(n^(2/3))`` trees, so that the
    trees' own variance (order ``1 / (lambda^2 B)``) falls faster than the risk. At the
    default point the gradient of ``mu`` is not zero: a single tree's cell, off-centre
    by order ``1 / lambda``, then costs it a variance of order ``1 / lambda^2``, which
    averaging removes.

    Parameters
    ----------
    ns : array-like of int
        Sample sizes.
    d : int
        The dimension.
    repetitions : int
        Data sets per n.
    noise : float
        The noise's standard deviation.
    where : float
        The query point's coordinates.
    scale : float
        The lifetimes' constant.
    %(seed_progress)s

    Returns
    -------
    RiskCurves
        The risks and slopes.

    Raises
    ------
    InputError
        If a parameter is out of range.
    """
    ns = np.asarray(ns).reshape(-1)
    if ns.size < 2 or ns.dtype.kind not in "iu" or ns.min() < 2:
        raise InputError("ns must hold at least two sample sizes >= 2.")
    d = check_count(d, "d")
    R = check_count(repetitions, "repetitions", minimum=2)
    x = query_point(d, where)
    truth = regression_function(x[None])[0]
    ratios = default_lifetime_ratios(1)
    omega = debias_weights(ratios)
    names = list(RATE_EXPONENTS)
    err = {k: np.empty((ns.size, R)) for k in names}
    lifetimes = {"tree": scale * ns ** (1 / (d + 2)), "forest": scale * ns ** (1 / (d + 4)),
                 "debiased forest": scale * ns ** (1 / (d + 8))}
    for i, n in enumerate(ns):
        rng = np.random.default_rng([seed, int(n)])
        B = int(np.ceil(n ** (2 / 3)))
        # every cell of a data set, in the order forest_at_point's loop would draw them
        # (TREE_DRAWS single trees, the forest, the debiased forests): one draw of the
        # exponentials is the same stream as the calls one by one
        sizes = [1] * TREE_DRAWS + [B] * (1 + ratios.size)
        scales = ([lifetimes["tree"][i]] * TREE_DRAWS + [lifetimes["forest"][i]]
                  + [lifetimes["debiased forest"][i] * a for a in ratios])
        for k in range(R):
            X, y = _draw(rng, int(n), d, noise)
            means = _forest_means(X, y, _cells_in_turn(x, sizes, scales, rng))
            # one tree's error is heavy-tailed: the root mean square of TREE_DRAWS
            # independent trees on this data set (each a draw of (data, tree)), so the
            # curve shows the mean squared error rather than its noise
            err["tree"][i, k] = np.sqrt(np.mean((means[:TREE_DRAWS] - truth) ** 2))
            forests = means[TREE_DRAWS:]
            err["forest"][i, k] = forests[0] - truth
            err["debiased forest"][i, k] = float(np.sum(omega * forests[1:])) - truth
        if progress is not None:
            progress((i + 1) / ns.size, f"n = {int(n):,} ({i + 1} of {ns.size})")
    risk = {k: np.mean(err[k] ** 2, axis=1) for k in names}
    se = {k: np.std(err[k] ** 2, axis=1, ddof=1) / np.sqrt(R) for k in names}
    slope = {k: float(np.polyfit(np.log(ns), np.log(risk[k]), 1)[0]) for k in names}
    theory = {k: RATE_EXPONENTS[k](d) for k in names}
    return RiskCurves(ns.astype(float), risk, se, lifetimes, slope, theory)
