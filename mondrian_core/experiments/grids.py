"""Where the pages evaluate a learner to draw it: points along a line, a plane of points
over a box, and a box around data with a margin."""
from __future__ import annotations

import numpy as np

__all__ = ["line_grid", "plane_grid", "padded_box"]


def line_grid(start: float, stop: float, n: int) -> np.ndarray:
    """Return ``n`` evenly spaced points from ``start`` to ``stop`` as a column of 1-D inputs.

    Parameters
    ----------
    start, stop : float
        The first and the last point.
    n : int
        The number of points.

    Returns
    -------
    ndarray of shape (n, 1)
        The points, one per row.
    """
    return np.linspace(start, stop, n)[:, None]


def plane_grid(lower, upper, n: int):
    """Return an ``n x n`` grid over the box ``[lower, upper]`` of the plane.

    Parameters
    ----------
    lower, upper : sequence of float, length 2
        The box's corners.
    n : int
        Points per axis.

    Returns
    -------
    gx, gy : ndarray of shape (n,)
        The axes.
    points : ndarray of shape (n * n, 2)
        The points, ``x`` varying fastest: values at them reshaped to ``(n, n)`` are
        indexed ``[y, x]``, as a heat map's ``z`` is.
    """
    gx = np.linspace(lower[0], upper[0], n)
    gy = np.linspace(lower[1], upper[1], n)
    return gx, gy, np.column_stack([a.ravel() for a in np.meshgrid(gx, gy)])


def padded_box(X, fraction: float = 0.05):
    """Return the bounding box of the rows of ``X`` widened by ``fraction`` of its sides.

    Parameters
    ----------
    X : array-like of shape (N, D)
        The points.
    fraction : float, default=0.05
        The margin on each side, as a fraction of the box's side.

    Returns
    -------
    lower : ndarray of shape (D,)
        The widened box's lower corner.
    upper : ndarray of shape (D,)
        Its upper corner.
    """
    X = np.asarray(X, dtype=float)
    side = np.ptp(X, axis=0)
    return X.min(axis=0) - fraction * side, X.max(axis=0) + fraction * side
