"""The exact posterior over the lifetime of a GP with the Laplace kernel.

The Mondrian model of :func:`~mondrian_core.sweep.lifetime_path` is Bayesian linear
regression on ``M`` Mondrian partitions: its prior covariance is ``prior_variance``
times the Mondrian kernel, which converges to the Laplace kernel
``exp(-lambda ||x - x'||_1)`` as ``M -> infinity`` (Balog et al. 2016, Section 3). The
limit model is the GP

    y ~ N(0, prior_variance * exp(-lambda ||x - x'||_1) + noise_variance * I),

whose marginal likelihood ``L(lambda)`` is smooth in ``lambda``. With a prior
``p(lambda)`` the posterior density is ``p(lambda) L(lambda) / Z``; it is computed here
on a grid of lifetimes, one dense Cholesky factorisation per grid point (in one input
dimension one Kalman filter pass over the sorted points instead), and integrated
in ``u = log(lambda)`` (the grid is geometric, so the steps in ``u`` are equal). It is
the reference against which the finite-``M`` Mondrian posterior
(:func:`~mondrian_core.posterior.lifetime_posterior`) can be compared. That one is
biased towards larger lifetimes at finite ``M`` (this app's own finding, measured in
tests/claims/test_lifetime_posterior.py, not a result of Balog et al.): with ``M``
trees the model's functions can change only at the trees' cuts, and few trees make few
cuts at a given lifetime, so the evidence buys more cuts with a larger lifetime; more
trees make more cuts at every lifetime, and the bias shrinks as ``M`` grows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.spatial.distance import pdist, squareform

from mondrian_core._blas import single_blas_thread
from mondrian_core._validation import (
    check_count,
    check_lifetime_prior,
    check_points,
    check_real,
    check_target,
)
from mondrian_core.errors import InputError
from mondrian_core.posterior import EqualTailedIntervals

__all__ = ["LaplaceLifetimePosterior", "laplace_lifetime_posterior", "truncated_grid",
           "MAX_LAPLACE_POINTS"]

#: Largest number of points of the exact posterior: one dense N x N Cholesky per grid
#: point (N = 3,000: 72 MB per matrix, about 0.3 s per factorisation on one core).
MAX_LAPLACE_POINTS = 3000
#: The most lifetimes on the grid: each is an N x N factorisation, and a posterior on a
#: log scale is drawn smoothly by a few hundred.
MAX_LAPLACE_GRID = 2000
_LOG_2PI = float(np.log(2.0 * np.pi))


@dataclass(frozen=True)
class LaplaceLifetimePosterior(EqualTailedIntervals):
    """The exact lifetime posterior of the Laplace-kernel GP, on a grid.

    Made by :func:`laplace_lifetime_posterior`.

    Parameters
    ----------
    lifetimes : ndarray of shape (G,)
        The grid of lifetimes (increasing, geometric).
    log_marginal_likelihood : ndarray of shape (G,)
        ``log p(y | X, lambda)`` at each grid lifetime.
    log_prior : ndarray of shape (G,)
        ``log p(lambda)``, the prior's log density at each grid lifetime.
    density : ndarray of shape (G,)
        The posterior density ``p(lambda | y)`` (per unit lifetime) at each grid point,
        normalised over the grid.
    log_evidence : float
        ``log p(y | X)`` (the prior restricted to the grid's range).
    prior_mass_on_grid : float
        The prior's probability of ``[lifetimes[0], lifetimes[-1]]``; the posterior
        ignores the rest, so choose a grid that holds nearly all of it.

    Attributes
    ----------
    mean : float
        The posterior mean of the lifetime.
    map : float
        The grid lifetime of largest posterior density.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 3 and Supplement B.
    """

    lifetimes: np.ndarray
    log_marginal_likelihood: np.ndarray
    log_prior: np.ndarray
    density: np.ndarray
    log_evidence: float
    prior_mass_on_grid: float

    @property
    def _log_grid(self) -> np.ndarray:
        return np.log(self.lifetimes)

    @property
    def _weights_u(self) -> np.ndarray:
        """The density in ``u = log(lambda)``: ``p(lambda) * lambda``."""
        return self.density * self.lifetimes

    def _cdf(self) -> np.ndarray:
        """Cumulative posterior probability at each grid point (trapezoid rule in ``u``)."""
        w, u = self._weights_u, self._log_grid
        steps = 0.5 * (w[1:] + w[:-1]) * np.diff(u)
        cdf = np.concatenate([[0.0], np.cumsum(steps)])
        return cdf / cdf[-1]

    @property
    def mean(self) -> float:
        """Posterior mean of the lifetime."""
        w, u = self._weights_u, self._log_grid
        f = w * self.lifetimes
        return float(np.sum(0.5 * (f[1:] + f[:-1]) * np.diff(u))
                     / np.sum(0.5 * (w[1:] + w[:-1]) * np.diff(u)))

    @property
    def map(self) -> float:
        """The grid lifetime of largest posterior density (per unit lifetime)."""
        return float(self.lifetimes[int(np.argmax(self.density))])

    def _quantile(self, q: float) -> float:
        """Interpolate linearly in ``log(lambda)`` between grid points (``q`` validated)."""
        cdf = self._cdf()
        keep = np.concatenate([[True], np.diff(cdf) > 0])  # np.interp needs increasing x
        return float(np.exp(np.interp(q, cdf[keep], self._log_grid[keep])))


def exact_grid_size(n_points: int, *, most=160, least=48) -> int:
    """Grid lifetimes that keep :func:`laplace_lifetime_posterior` within seconds.

    Each grid lifetime costs one dense N x N Cholesky factorisation (about 0.3 s at
    N = 3,000 on one core, growing as N**3), so the grid thins as N**-3 from ``most``
    points at N = 600 down to ``least``.

    Parameters
    ----------
    n_points : int
        The number of training points N.
    most, least : int, default=160, 48
        The grid sizes for small and for large N.

    Returns
    -------
    int
        The number of grid lifetimes.
    """
    return int(np.clip(most * (600 / max(int(n_points), 1)) ** 3, least, most))


def truncated_grid(prior, upper, n_grid=160, tail=1e-6) -> np.ndarray:
    """Return a geometric grid of lifetimes from the prior's lower tail up to ``upper``.

    For comparing with a Mondrian posterior, whose prior is truncated at the sweep's
    terminal lifetime: the exact posterior on this grid uses the same truncated prior
    (up to the ``tail`` of prior mass left out below the grid).

    Parameters
    ----------
    prior : frozen scipy.stats distribution on ``[0, inf)``
        The prior over the lifetime.
    upper : float > 0
        The last grid point (e.g. the terminal lifetime).
    n_grid : int, default=160
        The number of grid points.
    tail : float, default=1e-6
        The prior probability below the first grid point, at most (the grid starts no
        lower than ``upper * 1e-4``, where the likelihood no longer changes).

    Returns
    -------
    ndarray of shape (n_grid,)
        Increasing positive lifetimes.

    Raises
    ------
    InputError
        If the prior has no mass below ``upper`` or ``n_grid`` is below 3.
    """
    check_lifetime_prior(prior)
    upper = check_real(upper, "upper", strict=True)
    n_grid = check_count(n_grid, "n_grid", maximum=100_000)  # a grid, not a memory bomb
    tail = check_real(tail, "tail", strict=True, maximum=0.5)
    low = max(float(prior.ppf(tail)), upper * 1e-4)
    if not (np.isfinite(low) and low < upper) or n_grid < 3:
        raise InputError(f"The prior puts no mass below {upper:g}, or the grid has fewer "
                         "than 3 points: choose a prior with mass below the terminal lifetime.")
    return np.geomspace(low, upper, n_grid)


def _default_grid(prior, distances: np.ndarray, n_grid: int) -> np.ndarray:
    """A geometric grid over the prior's central 99.98%, kept where the kernel varies."""
    with np.errstate(divide="ignore"):
        lo, hi = (float(v) for v in prior.ppf([1e-4, 1 - 1e-4]))
    positive = distances[distances > 0]
    if positive.size:
        # below 1e-3 / max distance the kernel is ~1 everywhere, above 50 / min distance
        # it is ~the identity: the likelihood is flat beyond both, so the prior decides
        lo = max(lo, 1e-3 / positive.max()) if np.isfinite(lo) else 1e-3 / positive.max()
        hi = min(hi, 50.0 / positive.min()) if np.isfinite(hi) else 50.0 / positive.min()
    if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo < hi):
        raise InputError("Could not place a lifetime grid under this prior; pass grid= "
                         "explicitly (increasing positive lifetimes).")
    return np.geomspace(lo, hi, n_grid)


def laplace_lifetime_posterior(X, y, prior, noise_variance=0.1, prior_variance=1.0, grid=None,
                               n_grid=120) -> LaplaceLifetimePosterior:
    """Compute the exact lifetime posterior of the Laplace-kernel GP (the ``M -> inf`` limit).

    The model is ``y ~ N(0, prior_variance * exp(-lambda ||x - x'||_1) + noise_variance I)``,
    the limit of the Mondrian model of :func:`~mondrian_core.sweep.lifetime_path` as the
    number of trees grows; ``y`` is used as given, with a zero prior mean, exactly as
    ``lifetime_path`` uses it.

    Parameters
    ----------
    X : array-like of shape (N, D)
        Training inputs, at most :data:`MAX_LAPLACE_POINTS` rows.
    y : array-like of shape (N,)
        Training targets.
    prior : frozen scipy.stats distribution on ``[0, inf)``
        The prior over the lifetime, e.g. ``scipy.stats.loguniform(0.1, 50)``.
    noise_variance : float > 0, default=0.1
        Observation noise variance.
    prior_variance : float > 0, default=1.0
        Signal variance (the kernel's amplitude).
    grid : array-like of increasing positive floats, optional
        The lifetimes at which to evaluate the posterior (at least 3; a geometric grid
        integrates best). Default: ``n_grid`` geometric points over the prior's central
        99.98%, trimmed to where the kernel is neither ~1 nor ~the identity on ``X``.
    n_grid : int, default=120
        Size of the default grid (3 to ``MAX_LAPLACE_GRID``).

    Returns
    -------
    LaplaceLifetimePosterior
        With ``.lifetimes``, ``.log_marginal_likelihood``, ``.mean``, ``.map`` and
        ``.credible_interval(level)``.

    Raises
    ------
    InputError
        If ``N`` exceeds :data:`MAX_LAPLACE_POINTS`, the inputs are not finite, or the
        prior has no mass on the grid.

    References
    ----------
    M. Balog, B. Lakshminarayanan, Z. Ghahramani, D. M. Roy and Y. W. Teh,
    "The Mondrian Kernel", UAI 2016, Section 3 and Supplement B.
    C. E. Rasmussen and C. K. I. Williams, "Gaussian Processes for Machine Learning",
    MIT Press 2006, Section 5.4 (the marginal likelihood).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from mondrian_core import laplace_lifetime_posterior
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(60, 1))
    >>> y = np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(60)
    >>> post = laplace_lifetime_posterior(X, y, stats.expon(scale=10.0))
    >>> bool(0 < post.quantile(0.05) < post.map < post.quantile(0.95))
    True
    """
    X = check_points(X)
    y = check_target(y, X)
    n = X.shape[0]
    if n > MAX_LAPLACE_POINTS:
        raise InputError(f"The exact Laplace-GP posterior factorises a dense {n:,} x {n:,} "
                         f"matrix per grid point; use at most {MAX_LAPLACE_POINTS:,} points "
                         "(a random subset of the data).")
    s2n = check_real(noise_variance, "noise_variance", strict=True)
    s2p = check_real(prior_variance, "prior_variance", strict=True)
    check_lifetime_prior(prior)
    distances = squareform(pdist(X, metric="cityblock")) if n > 1 else np.zeros((1, 1))
    if grid is None:
        grid = _default_grid(prior, distances, check_count(n_grid, "n_grid", minimum=3,
                                                           maximum=MAX_LAPLACE_GRID))
    try:
        grid = np.asarray(grid, dtype=float).ravel()
    except (TypeError, ValueError):
        raise InputError("grid must be an array of lifetimes (numbers).") from None
    if grid.size > MAX_LAPLACE_GRID:
        raise InputError(f"grid has {grid.size:,} lifetimes, each an {n:,} x {n:,} "
                         f"factorisation; use at most {MAX_LAPLACE_GRID:,}.")
    if grid.size < 3 or not np.all(np.isfinite(grid)) or grid[0] <= 0 or np.any(np.diff(grid) <= 0):
        raise InputError("grid must hold at least 3 increasing positive finite lifetimes.")

    if X.shape[1] == 1:
        lml = _markov_log_marginal_likelihoods(X[:, 0], y, grid, s2n, s2p)
    else:
        lml = _dense_log_marginal_likelihoods(distances, y, grid, s2n, s2p)
    with np.errstate(divide="ignore"):
        log_prior = prior.logpdf(grid)
    log_post = lml + log_prior
    if not np.isfinite(log_post).any():
        raise InputError("The prior puts no mass on the lifetime grid; choose a prior with "
                         "mass there or pass a grid inside the prior's support.")
    # normalise in u = log(lambda): density_u = p(lambda) L(lambda) lambda
    shift = float(np.max(log_post[np.isfinite(log_post)]))
    w_u = np.exp(log_post - shift) * grid
    u = np.log(grid)
    z_u = float(np.sum(0.5 * (w_u[1:] + w_u[:-1]) * np.diff(u)))
    density = np.exp(log_post - shift) / z_u
    prior_mass = float(prior.cdf(grid[-1]) - prior.cdf(grid[0]))
    return LaplaceLifetimePosterior(lifetimes=grid, log_marginal_likelihood=lml,
                                    log_prior=log_prior, density=density,
                                    log_evidence=shift + float(np.log(z_u)),
                                    prior_mass_on_grid=prior_mass)


def _dense_log_marginal_likelihoods(distances, y, grid, s2n, s2p):
    """``log N(y; 0, s2p exp(-lambda D) + s2n I)`` at each lifetime: one Cholesky each."""
    n = y.size
    lml = np.empty(grid.size)
    with single_blas_thread():
        for i, lam in enumerate(grid):
            K = np.exp(-lam * distances)
            K *= s2p
            K[np.diag_indices_from(K)] += s2n
            c, lower = cho_factor(K, lower=True, overwrite_a=True, check_finite=False)
            alpha = cho_solve((c, lower), y, check_finite=False)
            lml[i] = (-0.5 * y @ alpha - np.log(np.diag(c)).sum() - 0.5 * n * _LOG_2PI)
    return lml


def _markov_log_marginal_likelihoods(x, y, grid, s2n, s2p):
    """:func:`_dense_log_marginal_likelihoods` for one input dimension, in O(N) per lifetime.

    On a line the Laplace kernel ``s2p exp(-lambda |x - x'|)`` is the Ornstein-Uhlenbeck
    covariance, a Markov process: in increasing ``x``, ``f_i = rho_i f_{i-1} + e_i`` with
    ``rho_i = exp(-lambda (x_i - x_{i-1}))`` and ``e_i ~ N(0, s2p (1 - rho_i^2))``
    (Rasmussen and Williams 2006, sec. B.2.1). A Kalman filter over the sorted points
    gives the same Gaussian likelihood as the dense factorisation (the prediction error
    decomposition), every lifetime of the grid at once.
    """
    order = np.argsort(x, kind="stable")
    gaps, ys = np.diff(x[order]), y[order]
    mean = np.zeros(grid.size)
    var = np.full(grid.size, float(s2p))  # the stationary prior of f at the first point
    lml = np.full(grid.size, -0.5 * y.size * _LOG_2PI)
    for i in range(ys.size):
        if i:
            decay = -grid * gaps[i - 1]
            rho = np.exp(decay)
            mean *= rho
            # rho^2 var + s2p (1 - rho^2), with 1 - rho^2 without cancellation
            var = rho * rho * var - s2p * np.expm1(2.0 * decay)
        total = var + s2n
        resid = ys[i] - mean
        lml -= 0.5 * (np.log(total) + resid * resid / total)
        gain = var / total
        mean += gain * resid
        var = var * s2n / total
    return lml
