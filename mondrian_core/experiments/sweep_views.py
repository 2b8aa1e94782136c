"""What the sweep pages draw from a stored lifetime path at one lifetime: the fitted
function on a line or over a plane, and the held-out error.

Each answers from the path without refitting (Balog et al. 2016, Section 4: the
features at every lifetime come from the one set of trees grown to the terminal one).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mondrian_core.experiments.grids import plane_grid

__all__ = ["PlaneFit", "fit_on_line", "fit_on_plane", "held_out_rmse", "predictive_on_line"]


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
    grid = np.linspace(X.min(), X.max(), n_grid)[:, None]
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


def predictive_on_line(posterior, X, n_grid: int = 300, max_components: int = 16):
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
    grid = np.linspace(float(X.min()), float(X.max()), n_grid)[:, None]
    mean, std = posterior.predict(grid, return_std=True, include_noise=False, tol=1e-6,
                                  max_components=max_components)
    return grid, mean, std
