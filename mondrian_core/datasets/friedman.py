"""Friedman's first regression function: a larger synthetic set for timing experiments.

Friedman (1991), "Multivariate adaptive regression splines", Ann. Statist. 19(1),
1-67, sec. 4.3. Unlike a Laplace-GP draw (an N x N Cholesky factor in 2 or more
dimensions), it is cheap to draw at any size, so it is the set on which the lifetime
sweep is timed against retrained searches (the paper's Figure 8 at scale).
"""
from __future__ import annotations

import numpy as np

from mondrian_core._docstrings import fill_doc
from mondrian_core._validation import check_count, check_random_state, check_real
from mondrian_core.datasets.dataset import Dataset
from mondrian_core.datasets.synthetic import MAX_SYNTHETIC_POINTS

__all__ = ["friedman1"]


@fill_doc
def friedman1(n, n_dims=8, noise_std=0.1, random_state=None) -> Dataset:
    """Draw Friedman's first regression set, its function scaled to unit variance.

    X is uniform in ``[0, 1]^n_dims``; f(x) = 10 sin(pi x1 x2) + 20 (x3 - 1/2)^2 +
    10 x4 + 5 x5 (the other inputs are irrelevant), centred and scaled to standard
    deviation 1 on the drawn points; y = f + N(0, noise_std^2).

    Parameters
    ----------
    n : int
        Number of points.
    n_dims : int, default=8
        Dimension of the inputs (at least 5: the function uses the first five).
    noise_std : float, default=0.1
        Standard deviation of the Gaussian noise added to f (>= 0).
    %(random_state)s

    Returns
    -------
    Dataset
        A regression set with ``f`` and ``noise_std`` set.

    Raises
    ------
    InputError
        If an argument is invalid.

    References
    ----------
    Friedman (1991), "Multivariate adaptive regression splines", Annals of Statistics
    19(1), sec. 4.3.
    """
    n = check_count(n, "n", minimum=2, maximum=MAX_SYNTHETIC_POINTS)
    n_dims = check_count(n_dims, "n_dims", minimum=5, maximum=1000)
    noise_std = check_real(noise_std, "noise_std")
    rng = check_random_state(random_state)
    X = rng.random((n, n_dims))
    f = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3]
         + 5 * X[:, 4])
    f = (f - f.mean()) / f.std()
    y = f + noise_std * rng.standard_normal(n)
    return Dataset(
        X=X, y=y, name=f"Friedman #1, {n_dims}-D",
        description=(f"Synthetic: {n:,} points uniform in [0, 1]^{n_dims}, y = Friedman's "
                     f"first function of x1..x5 (scaled to std 1) + noise std {noise_std:g}."),
        feature_names=tuple(f"x{d + 1}" for d in range(n_dims)), target_name="y",
        f=f, noise_std=noise_std)
