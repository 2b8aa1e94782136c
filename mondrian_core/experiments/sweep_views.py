"""What the sweep pages draw from a stored lifetime path at one lifetime: the fitted
function on a line or over a plane, and the held-out error.

Each answers from the path without refitting (Balog et al. 2016, Section 4: the
features at every lifetime come from the one set of trees grown to the terminal one).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mondrian_core._validation import check_points
from mondrian_core.experiments.grids import line_grid, plane_grid
from mondrian_core.laplace_posterior import (
    exact_grid_size,
    laplace_lifetime_posterior,
    truncated_grid,
)

__all__ = ["MIXTURE_FITS", "PlaneFit", "exact_posterior_on_sweep", "fit_on_line", "fit_on_plane",
           "held_out_rmse", "lowest_exact_lifetime", "predictive_on_line"]

#: At most this many fits in a predictive mixture (each a separate solve; a many-tree
#: posterior spreads over thousands of intervals): stratified over the posterior.
MIXTURE_FITS = 16


def fit_on_line(path, lifetime: float, X, n_grid: int = 400):
    """Return the path's ridge fit at ``lifetime`` on a grid over the range of 1-D ``X``.

    Parameters
    ----------
    path : LifetimePath
        A lifetime path (:func:`~mondrian_core.lifetime_path`) on 1-D inputs.
    lifetime : float
        The lifetime of the fit.
    X : array-like of shape (N, 1)
        The points whose range the grid spans (the training inputs).
    n_grid : int, default=400
        Points on the grid.

    Returns
    -------
    grid : ndarray of shape (n_grid, 1)
        The grid, from the smallest to the largest ``X``.
    mean : ndarray of shape (n_grid,)
        The posterior-mean (ridge) prediction on it.
    """
    X = np.asarray(X, dtype=float)
    grid = line_grid(float(X.min()), float(X.max()), n_grid)
    return grid, path.predict(grid, lifetime)


@dataclass(frozen=True)
class PlaneFit:
    """A lifetime path's fit over a grid of the plane.

    Made by :func:`fit_on_plane`; ``z[i, j]`` is the prediction at ``(gx[j], gy[i])``, a
    heat map's layout.

    Parameters
    ----------
    gx : ndarray of shape (n_grid,)
        The horizontal axis.
    gy : ndarray of shape (n_grid,)
        The vertical axis.
    z : ndarray of shape (n_grid, n_grid)
        The predictions.
    lower : ndarray of shape (2,)
        The lower corner of the inputs' bounding box, which the grid spans.
    upper : ndarray of shape (2,)
        Its upper corner.
    """

    gx: np.ndarray
    gy: np.ndarray
    z: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def fit_on_plane(path, lifetime: float, X, n_grid: int = 70) -> PlaneFit:
    """Return the path's ridge fit at ``lifetime`` on a grid over the bounding box of 2-D ``X``.

    Parameters
    ----------
    path : LifetimePath
        A lifetime path (:func:`~mondrian_core.lifetime_path`) on 2-D inputs.
    lifetime : float
        The lifetime of the fit.
    X : array-like of shape (N, 2)
        The points whose bounding box the grid spans (the training inputs).
    n_grid : int, default=70
        Points per axis.

    Returns
    -------
    PlaneFit
        The axes, the predictions and the box.
    """
    X = np.asarray(X, dtype=float)
    lower, upper = X.min(axis=0), X.max(axis=0)
    gx, gy, points = plane_grid(lower, upper, n_grid)
    z = path.predict(points, lifetime).reshape(gy.size, gx.size)
    return PlaneFit(gx, gy, z, lower, upper)


def held_out_rmse(path, lifetime: float, X, y) -> float:
    """Return the root mean squared error of the path's fit at ``lifetime`` on ``(X, y)``.

    Parameters
    ----------
    path : LifetimePath
        A lifetime path (:func:`~mondrian_core.lifetime_path`).
    lifetime : float
        The lifetime of the fit.
    X : array-like of shape (N, D)
        Held-out inputs.
    y : array-like of shape (N,)
        Their targets.

    Returns
    -------
    float
        The RMSE.
    """
    residual = np.asarray(y, dtype=float) - path.predict(X, lifetime)
    return float(np.sqrt(np.mean(residual ** 2)))


def predictive_on_line(posterior, X, n_grid: int = 300, max_components: int = MIXTURE_FITS):
    """Return the mixture predictive of the latent function on a grid over 1-D ``X``.

    The fits at the lifetimes the posterior weighs, mixed with its weights (Balog et al.
    2016, Supplement B), without the observation noise: at most ``max_components`` fits
    (stratified over the posterior mass, see :meth:`LifetimePosterior.predict`), so that
    a many-tree posterior spread over thousands of intervals stays a few solves.

    Parameters
    ----------
    posterior : LifetimePosterior
        A posterior over the lifetime (:func:`~mondrian_core.lifetime_posterior`) of a
        path on 1-D inputs.
    X : array-like of shape (N, 1)
        The points whose range the grid spans (the training inputs).
    n_grid : int, default=300
        Points on the grid.
    max_components : int, default=16
        The most fits mixed.

    Returns
    -------
    grid : ndarray of shape (n_grid, 1)
        The grid, from the smallest to the largest ``X``.
    mean, std : ndarray of shape (n_grid,)
        The mixture's mean and standard deviation of the latent function.
    """
    X = np.asarray(X, dtype=float)
    grid = line_grid(float(X.min()), float(X.max()), n_grid)
    mean, std = posterior.predict(grid, return_std=True, include_noise=False, tol=1e-6,
                                  max_components=max_components)
    return grid, mean, std


def exact_posterior_on_sweep(X, y, prior, terminal_lifetime: float, *, noise_variance: float,
                             prior_variance: float):
    """Return the exact lifetime posterior of the Laplace-kernel GP on a sweep's range.

    The ``M -> infinity`` limit of the Mondrian posterior of a sweep stopped at
    ``terminal_lifetime`` (Balog et al. 2016, Supplement B): the prior truncated there,
    on a grid from the prior's lower tail (:func:`~mondrian_core.laplace_posterior.truncated_grid`)
    with fewer lifetimes for large N (:func:`~mondrian_core.laplace_posterior.exact_grid_size`:
    one N x N Cholesky each, ~0.3 s at N = 3,000), so that it stays within seconds.

    Parameters
    ----------
    X : array-like of shape (N, D)
        Training inputs.
    y : array-like of shape (N,)
        Their targets.
    prior : frozen scipy.stats distribution on ``[0, inf)``
        The prior over the lifetime.
    terminal_lifetime : float > 0
        The sweep's terminal lifetime, the grid's last point.
    noise_variance, prior_variance : float > 0
        The sweep's noise and prior variances.

    Returns
    -------
    LaplaceLifetimePosterior
        The exact posterior on the grid.

    Raises
    ------
    InputError
        If an input is invalid or ``X`` has more rows than the exact posterior takes.
    """
    X = check_points(X)
    grid = truncated_grid(prior, terminal_lifetime, n_grid=exact_grid_size(X.shape[0]))
    return laplace_lifetime_posterior(X, y, prior, noise_variance=noise_variance,
                                      prior_variance=prior_variance, grid=grid)


def lowest_exact_lifetime(prior, terminal_lifetime: float) -> float:
    """Return the smallest lifetime :func:`exact_posterior_on_sweep` evaluates.

    It is where the prior's lower tail is cut: the lowest lifetime worth showing.

    Parameters
    ----------
    prior : frozen scipy.stats distribution on ``[0, inf)``
        The prior over the lifetime.
    terminal_lifetime : float > 0
        The sweep's terminal lifetime.

    Returns
    -------
    float
        The exact grid's first lifetime (it does not depend on the grid's size).
    """
    return float(truncated_grid(prior, terminal_lifetime, n_grid=3)[0])
