"""Means and spreads that keep their digits far from the origin.

``E[y^2] - E[y]^2`` subtracts two large, nearly equal numbers: with targets near 1e9 the
difference is rounding noise, and running sums of squares overflow long before the
spread does. Summaries of centred values merged pairwise keep both (Chan, Golub and
LeVeque 1983, "Algorithms for computing the sample variance").
"""
from __future__ import annotations

import numpy as np

__all__ = ["merge_moments"]


def merge_moments(old: tuple[int, float, float], y: np.ndarray) -> tuple[int, float, float]:
    """Return (count, mean, sum of squared deviations) of the values ``old`` summarises and ``y``.

    Parameters
    ----------
    old : tuple of (int, float, float)
        The count, mean and sum of squared deviations so far ((0, 0.0, 0.0) for none).
    y : ndarray of shape (n,)
        New finite values.

    Returns
    -------
    tuple of (int, float, float)
        The merged summary; the third entry is ``inf`` when the spread cannot be held
        in a float64 (the caller refuses it).
    """
    n_a, mean_a, m2_a = old
    y = np.asarray(y, dtype=np.float64).ravel()
    n_b = y.size
    if n_b == 0:
        return old
    with np.errstate(over="ignore", invalid="ignore"):
        mean_b = float(np.mean(y / n_b) * n_b) if n_b > 1 else float(y[0])  # no overflow
        dev = y - mean_b
        scale = float(np.max(np.abs(dev)))
        m2_b = scale * scale * float(np.sum((dev / scale) ** 2)) if scale > 0 else 0.0
        n = n_a + n_b
        delta = mean_b - mean_a
        mean = mean_a + delta * (n_b / n)
        m2 = m2_a + m2_b + delta * delta * (n_a * n_b / n) if n_a else m2_b
    if not np.isfinite(m2):
        m2 = np.inf
    return n, float(mean), float(m2)

