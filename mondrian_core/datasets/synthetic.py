"""Seeded synthetic data sets: a Laplace-GP draw with a known lifetime, toy sets for the pages.

Every generator takes ``random_state`` (``None``, ``int``, ``Generator`` or
``RandomState``) and draws only from :func:`mondrian_core.check_random_state`: same
seed, same data.
"""
from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from mondrian_core._docstrings import fill_doc
from mondrian_core._validation import (
    check_box,
    check_choice,
    check_count,
    check_points,
    check_random_state,
    check_real,
)
from mondrian_core.datasets.dataset import Dataset
from mondrian_core.errors import InputError

#: Largest number of points (or draws, dimensions) a synthetic generator makes.
MAX_SYNTHETIC_POINTS = 1_000_000


def _uniform(rng, n, lower, upper) -> np.ndarray:
    return lower + (upper - lower) * rng.random((n, lower.size))




@fill_doc
def uniform_box(n, lower=(0.0, 0.0), upper=(1.0, 1.0), random_state=None) -> Dataset:
    """Draw ``n`` points uniform in the box ``[lower, upper]`` (no target).

    Parameters
    ----------
    n : int
        Number of points, at most ``MAX_SYNTHETIC_POINTS``.
    lower, upper : sequence of float, default=(0, 0) and (1, 1)
        The box, with ``lower < upper`` in every dimension.
    %(random_state)s

    Returns
    -------
    Dataset
        A point set (``task="none"``).

    Raises
    ------
    InputError
        If an argument is invalid or asks for too many points.
    """
    n = check_count(n, "n", maximum=MAX_SYNTHETIC_POINTS)
    lower, upper = check_box(lower, upper, strict=True)
    rng = check_random_state(random_state)
    X = _uniform(rng, n, lower, upper)
    return Dataset(X=X, y=None, name="uniform box", task="none",
                   description=f"{n} points uniform in a {lower.size}-D box (synthetic).",
                   feature_names=tuple(f"x{d + 1}" for d in range(lower.size)))


#: Largest N for the dense (Cholesky) Laplace-GP sampler in 2 or more dimensions.
MAX_GP_POINTS = 5000


@fill_doc
def laplace_gp_sample(X, lifetime, n_draws=1, random_state=None, method="auto") -> np.ndarray:
    """Draw f ~ GP(0, k) exactly at the rows of ``X``, k = exp(-lifetime ||x - x'||_1).

    Parameters
    ----------
    X : array-like of shape (N, D)
        The inputs (finite); a 1-D array is one column.
    lifetime : float >= 0
        The Laplace kernel's inverse length scale (the Mondrian lifetime), in units
        of inverse ``X``.
    n_draws : int, default=1
        Number of independent functions.
    %(random_state)s
    method : {"auto", "ou", "cholesky"}
        ``"ou"`` (1-D only): the Ornstein-Uhlenbeck recursion on sorted x,
        f_i = rho_i f_{i-1} + sqrt(1 - rho_i^2) e_i with rho_i = exp(-lifetime
        (x_i - x_{i-1})), O(N) and exact because the 1-D Laplace kernel is the OU
        covariance (a Markov process). ``"cholesky"``: L z with L L^T = K + jitter I,
        O(N^3), refused above :data:`MAX_GP_POINTS` points. ``"auto"``: OU in 1-D,
        Cholesky otherwise.

    Returns
    -------
    ndarray of shape (n_draws, N)
        The function values, one row per draw (unit prior variance).

    Raises
    ------
    InputError
        If an argument is invalid, the method does not fit the dimension, or the
        Cholesky method is asked for more than ``MAX_GP_POINTS`` points.
    """
    X = check_points(X)
    lifetime = check_real(lifetime, "lifetime")
    n_draws = check_count(n_draws, "n_draws", maximum=MAX_SYNTHETIC_POINTS)
    rng = check_random_state(random_state)
    n, d = X.shape
    method = check_choice(method, "method", ("auto", "ou", "cholesky"))
    if method == "auto":
        method = "ou" if d == 1 else "cholesky"
    if method == "ou":
        if d != 1:
            raise InputError("The OU recursion samples 1-D inputs only; use method='cholesky'.")
        return _ou_sample(X[:, 0], lifetime, n_draws, rng)
    if method != "cholesky":
        raise InputError(f"method must be 'auto', 'ou' or 'cholesky', got {method!r}.")
    if n > MAX_GP_POINTS:
        raise InputError(
            f"An exact Laplace-GP draw in {d}-D needs an N x N Cholesky factor; "
            f"N = {n:,} is too slow. Use N <= {MAX_GP_POINTS:,} points "
            "(or 1-D inputs, which are sampled in O(N)).")
    K = cdist(X, X, metric="cityblock")  # one N x N buffer, reused in place
    K *= -lifetime
    np.exp(K, out=K)
    L = _jittered_cholesky(K)
    return (L @ rng.standard_normal((n, n_draws))).T


def _jittered_cholesky(K: np.ndarray) -> np.ndarray:
    """Cholesky factor of K + jitter I with the smallest jitter in 1e-10..1e-6 that works.

    The Laplace kernel matrix of distinct points is positive definite but can be
    close to singular (tiny lifetime, nearby points); the jitter adds variance of at
    most 1e-6 to each f value (k(x, x) = 1). ``K``'s diagonal is changed in place.
    """
    diag = np.einsum("ii->i", K)  # a writable view of the diagonal
    added = 0.0
    for jitter in (1e-10, 1e-8, 1e-6):
        diag += jitter - added
        added = jitter
        try:
            return np.linalg.cholesky(K)
        except np.linalg.LinAlgError:
            continue
    raise InputError("The kernel matrix is numerically singular (duplicate points?); "
                     "remove duplicated inputs or use fewer points.")


def _ou_sample(x: np.ndarray, lifetime: float, n_draws: int, rng) -> np.ndarray:
    """OU recursion on sorted x, vectorised over points by cumulative sums.

    With a_i = lifetime (x_i - x_0) and s_j = sqrt(1 - rho_j^2) e_j (s_0 = e_0),
    f_i = exp(-a_i) sum_{j<=i} exp(a_j) s_j. The weights exp(a_j) are kept below
    exp(500) by restarting the sum in blocks (carrying f across), a loop over
    blocks of lifetime x length 500, not over points.
    """
    n = x.size
    order = np.argsort(x, kind="stable")
    xs = x[order]
    gaps = np.diff(xs)
    rho = np.exp(-lifetime * gaps)
    scale = np.concatenate([[1.0], np.sqrt(-np.expm1(-2.0 * lifetime * gaps))])
    steps = scale * rng.standard_normal((n_draws, n))
    a = np.concatenate([[0.0], np.cumsum(lifetime * gaps)])
    out = np.empty((n_draws, n))
    start, carry = 0, None
    while start < n:
        stop = int(np.searchsorted(a, a[start] + 500.0, side="right"))
        stop = max(stop, start + 1)
        rel = a[start:stop] - a[start]
        block = steps[:, start:stop].copy()
        if carry is not None:  # the first step continues the previous block's last value
            block[:, 0] += rho[start - 1] * carry
        out[:, start:stop] = np.exp(-rel) * np.cumsum(np.exp(rel) * block, axis=1)
        carry = out[:, stop - 1]
        start = stop
    F = np.empty_like(out)
    F[:, order] = out
    return F


@fill_doc
def laplace_gp(n, n_dims=1, lifetime=5.0, noise_std=0.1, random_state=None,
               lower=0.0, upper=1.0) -> Dataset:
    """Draw a regression set from a GP with the Laplace kernel, with known lifetime.

    X is uniform in the box ``[lower, upper]^n_dims``; f ~ GP(0, k) with
    k(x, x') = exp(-lifetime ||x - x'||_1) (unit prior variance); y = f + N(0,
    noise_std^2). The draw is exact (:func:`laplace_gp_sample`): O(N) in 1-D, a
    Cholesky factor in 2 or more dimensions (at most :data:`MAX_GP_POINTS` points).
    The Mondrian kernel with this lifetime converges to k (Balog et al. 2016,
    section 3), so this is the set on which the lifetime can be recovered.

    Parameters
    ----------
    n : int
        Number of points.
    n_dims : int, default=1
        Dimension of the inputs.
    lifetime : float, default=5.0
        The kernel's inverse length scale (>= 0), in units of inverse ``X``.
    noise_std : float, default=0.1
        Standard deviation of the Gaussian noise added to f (>= 0).
    %(random_state)s
    lower, upper : float or sequence of float, default=0.0 and 1.0
        The box of the inputs.

    Returns
    -------
    Dataset
        A regression set with ``true_lifetime``, ``f`` and ``noise_std`` set.

    Raises
    ------
    InputError
        If an argument is invalid or asks for too many points.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    sec. 3.
    """
    n = check_count(n, "n", maximum=MAX_SYNTHETIC_POINTS)
    n_dims = check_count(n_dims, "n_dims", maximum=MAX_SYNTHETIC_POINTS)
    lifetime = check_real(lifetime, "lifetime")
    noise_std = check_real(noise_std, "noise_std")
    lower, upper = check_box(lower, upper, strict=True, n_dims=n_dims)
    if lower.size != n_dims:
        raise InputError(f"The box has {lower.size} dimensions but n_dims = {n_dims}.")
    if n_dims > 1 and n > MAX_GP_POINTS:
        raise InputError(
            f"An exact {n_dims}-D Laplace-GP draw of N = {n:,} points is too slow "
            f"(an N x N Cholesky factor); use N <= {MAX_GP_POINTS:,} (1-D draws have no limit).")
    rng = check_random_state(random_state)
    X = _uniform(rng, n, lower, upper)
    f = laplace_gp_sample(X, lifetime, random_state=rng)[0]
    y = f + noise_std * rng.standard_normal(n)
    return Dataset(
        X=X, y=y, name=f"Laplace GP {n_dims}-D",
        description=(f"Synthetic: {n} points uniform in a {n_dims}-D box, y = f + noise, f a GP "
                     f"draw with the Laplace kernel of lifetime {lifetime:g}, "
                     f"noise std {noise_std:g}."),
        feature_names=tuple(f"x{d + 1}" for d in range(n_dims)), target_name="y",
        true_lifetime=lifetime, f=f, noise_std=noise_std)


def toy_jumps_function(x, width=1.0) -> np.ndarray:
    """Evaluate the noise-free function of :func:`toy_jumps_1d` on [0, ``width``].

    Smooth pieces joined by three jumps (at x = 0.25, 0.5 and 0.8 times ``width``), so
    a stationary kernel has to choose between smoothing the jumps and overfitting the
    smooth parts, while piecewise-constant partition kernels adapt.

    Parameters
    ----------
    x : array-like of float
        Points in [0, ``width``].
    width : float > 0, default=1.0
        The inputs' range: the function on [0, 1] stretched to [0, ``width``].

    Returns
    -------
    ndarray
        The function values, shaped like ``x``.

    Raises
    ------
    InputError
        If ``width`` is not a positive number.
    """
    width = check_real(width, "width", strict=True)
    x = np.asarray(x, dtype=np.float64)
    if width != 1.0:
        x = x / width
    smooth = 0.6 * np.sin(2.5 * np.pi * x) + 0.8 * x
    jumps = 1.2 * (x >= 0.25) - 1.8 * (x >= 0.5) + 1.0 * (x >= 0.8)
    return smooth + jumps


@fill_doc
def toy_jumps_1d(n=150, noise_std=0.15, random_state=None, width=1.0) -> Dataset:
    """Draw a noisy 1-D regression set with jumps, like Figure 1 of Davies and Ghahramani.

    X uniform on [0, 1] with a gap (no points in [0.6, 0.7]) so that posterior
    uncertainty between data shows; y = :func:`toy_jumps_function` (x) + noise. With
    ``width`` the inputs are stretched to [0, ``width``] (the same draws, the same y).

    Parameters
    ----------
    n : int, default=150
        Number of points (>= 2).
    noise_std : float, default=0.15
        Standard deviation of the Gaussian noise (>= 0).
    %(random_state)s
    width : float > 0, default=1.0
        The inputs' range [0, ``width``].

    Returns
    -------
    Dataset
        A 1-D regression set with ``f`` and ``noise_std`` set.

    Raises
    ------
    InputError
        If an argument is invalid or asks for too many points.

    References
    ----------
    Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for big
    data from random partitions", Figure 1.
    """
    n = check_count(n, "n", minimum=2, maximum=MAX_SYNTHETIC_POINTS)
    noise_std = check_real(noise_std, "noise_std")
    width = check_real(width, "width", strict=True)
    rng = check_random_state(random_state)
    # uniform on [0, 0.6) U [0.7, 1] (length 0.9): shift the draws above 0.6 by 0.1
    u = 0.9 * rng.random(n)
    x = np.where(u < 0.6, u, u + 0.1)
    f = toy_jumps_function(x)
    y = f + noise_std * rng.standard_normal(n)
    at = ", ".join(f"{width * c:g}" for c in (0.25, 0.5, 0.8))
    return Dataset(
        X=x[:, None] * width if width != 1.0 else x[:, None], y=y, name="toy jumps 1-D",
        description=(f"Synthetic: piecewise-smooth function with jumps at x = {at} and "
                     f"a data gap on [{0.6 * width:g}, {0.7 * width:g}], noise std "
                     f"{noise_std:g} (like Davies & Ghahramani 2014, Fig. 1)."),
        feature_names=("x",), target_name="y", f=f, noise_std=noise_std)


def _sklearn_seed(rng) -> int:
    return int(rng.integers(0, 2**31 - 1))


@fill_doc
def two_moons(n=300, noise=0.15, random_state=None) -> Dataset:
    """Draw two interleaved half circles (scikit-learn ``make_moons``), labels 0/1.

    Parameters
    ----------
    n : int, default=300
        Number of points (>= 2).
    noise : float, default=0.15
        Standard deviation of the Gaussian noise added to the inputs (>= 0).
    %(random_state)s

    Returns
    -------
    Dataset
        A 2-D classification set.

    Raises
    ------
    InputError
        If an argument is invalid or asks for too many points.
    """
    from sklearn.datasets import make_moons

    n = check_count(n, "n", minimum=2, maximum=MAX_SYNTHETIC_POINTS)
    noise = check_real(noise, "noise")
    rng = check_random_state(random_state)
    X, y = make_moons(n_samples=n, noise=noise, random_state=_sklearn_seed(rng))
    return Dataset(X=X, y=y, name="two moons", task="classification",
                   description=f"Synthetic: scikit-learn make_moons, {n} points, noise {noise:g}.",
                   feature_names=("x1", "x2"), target_name="class", noise_std=noise)


@fill_doc
def two_spirals(n=300, noise=0.05, turns=1.5, random_state=None) -> Dataset:
    """Draw two interleaved spirals of ``turns`` turns in [-1, 1]^2, labels 0/1.

    Parameters
    ----------
    n : int, default=300
        Number of points (>= 2).
    noise : float, default=0.05
        Standard deviation of the Gaussian noise added to the inputs (>= 0).
    turns : float, default=1.5
        Turns of each spiral, in (0, 5].
    %(random_state)s

    Returns
    -------
    Dataset
        A 2-D classification set.

    Raises
    ------
    InputError
        If an argument is invalid or asks for too many points.
    """
    n = check_count(n, "n", minimum=2, maximum=MAX_SYNTHETIC_POINTS)
    noise = check_real(noise, "noise")
    turns = check_real(turns, "turns", strict=True, maximum=5.0)
    rng = check_random_state(random_state)
    y = np.arange(n) % 2
    t = np.sqrt(rng.random(n))  # uniform along the area, radius in (0, 1]
    angle = 2.0 * np.pi * turns * t + np.pi * y
    X = t[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    X = X + noise * rng.standard_normal((n, 2))
    return Dataset(X=X, y=y, name="two spirals", task="classification",
                   description=f"Synthetic: two spirals of {turns:g} turns, {n} points, "
                               f"noise {noise:g}.",
                   feature_names=("x1", "x2"), target_name="class", noise_std=noise)


@fill_doc
def xor_blobs(n=300, noise=0.1, random_state=None) -> Dataset:
    """Draw the XOR set: uniform on [-1, 1]^2, class = (x1 x2 > 0), inputs jittered.

    Parameters
    ----------
    n : int, default=300
        Number of points (>= 2).
    noise : float, default=0.1
        Standard deviation of the Gaussian noise added to the inputs after labelling
        (>= 0).
    %(random_state)s

    Returns
    -------
    Dataset
        A 2-D classification set.

    Raises
    ------
    InputError
        If an argument is invalid or asks for too many points.
    """
    n = check_count(n, "n", minimum=2, maximum=MAX_SYNTHETIC_POINTS)
    noise = check_real(noise, "noise")
    rng = check_random_state(random_state)
    Z = rng.uniform(-1.0, 1.0, size=(n, 2))
    y = (Z[:, 0] * Z[:, 1] > 0).astype(np.int64)
    X = Z + noise * rng.standard_normal((n, 2))
    return Dataset(X=X, y=y, name="XOR", task="classification",
                   description=f"Synthetic: XOR quadrants, {n} points, input noise {noise:g}.",
                   feature_names=("x1", "x2"), target_name="class", noise_std=noise)


def regression_surface_function(X) -> np.ndarray:
    """Evaluate the noise-free surface of :func:`regression_surface_2d` on [0, 1]^2.

    A smooth wave plus a step across the diagonal x1 + x2 = 1.2: axis-aligned
    partitions need many cuts along an oblique edge.

    Parameters
    ----------
    X : array-like of shape (N, 2)
        Points in [0, 1]^2.

    Returns
    -------
    ndarray of shape (N,)
        The surface's values.
    """
    X = np.asarray(X, dtype=np.float64)
    x1, x2 = X[:, 0], X[:, 1]
    return np.sin(2.0 * np.pi * x1) * np.cos(np.pi * x2) + 1.0 * (x1 + x2 > 1.2)


@fill_doc
def regression_surface_2d(n=400, noise_std=0.1, random_state=None) -> Dataset:
    """Draw a 2-D regression set: X uniform on [0, 1]^2, y = surface + noise.

    The surface is :func:`regression_surface_function`.

    Parameters
    ----------
    n : int, default=400
        Number of points.
    noise_std : float, default=0.1
        Standard deviation of the Gaussian noise (>= 0).
    %(random_state)s

    Returns
    -------
    Dataset
        A 2-D regression set with ``f`` and ``noise_std`` set.

    Raises
    ------
    InputError
        If an argument is invalid or asks for too many points.
    """
    n = check_count(n, "n", maximum=MAX_SYNTHETIC_POINTS)
    noise_std = check_real(noise_std, "noise_std")
    rng = check_random_state(random_state)
    X = rng.random((n, 2))
    f = regression_surface_function(X)
    y = f + noise_std * rng.standard_normal(n)
    return Dataset(X=X, y=y, name="2-D surface",
                   description=("Synthetic: sin(2 pi x1) cos(pi x2) plus a step across "
                                f"x1 + x2 = 1.2, noise std {noise_std:g}."),
                   feature_names=("x1", "x2"), target_name="y", f=f, noise_std=noise_std)




#: Donoho and Johnstone's test signals (1994, Table 1; ``donoho_johnstone``).
DJ_SIGNALS = ("heavisine", "bumps", "blocks", "doppler")
_DJ_T = np.array([0.1, 0.13, 0.15, 0.23, 0.25, 0.40, 0.44, 0.65, 0.76, 0.78, 0.81])
_DJ_BUMP_H = np.array([4, 5, 3, 4, 5, 4.2, 2.1, 4.3, 3.1, 5.1, 4.2])
_DJ_BUMP_W = np.array([0.005, 0.005, 0.006, 0.01, 0.01, 0.03, 0.01, 0.01, 0.005, 0.008, 0.005])
_DJ_BLOCK_H = np.array([4, -5, 3, -4, 5, -4.2, 2.1, 4.3, -3.1, 2.1, -4.2])


def donoho_johnstone(name, x) -> np.ndarray:
    """Evaluate one of Donoho and Johnstone's test signals on [0, 1].

    Each mixes smooth and rough parts: ``heavisine`` (a sine with two jumps),
    ``bumps`` (eleven sharp peaks on a flat line), ``blocks`` (piecewise constant,
    eleven jumps) and ``doppler`` (a sine whose frequency grows without bound near
    0). The adaptive estimators they were made for (and aggregated trees) should cut
    finely where the signal is rough and coarsely where it is smooth.

    Parameters
    ----------
    name : {"heavisine", "bumps", "blocks", "doppler"}
        The signal.
    x : array-like of float
        Points in [0, 1].

    Returns
    -------
    ndarray
        The signal's values, shaped like ``x``.

    Raises
    ------
    InputError
        If ``name`` is not one of the four.

    References
    ----------
    Donoho and Johnstone (1994), "Ideal spatial adaptation by wavelet shrinkage",
    Biometrika 81(3), Table 1 and Figure 1.

    Examples
    --------
    >>> from mondrian_core.datasets.synthetic import donoho_johnstone
    >>> [round(float(v), 3) for v in donoho_johnstone("blocks", [0.05, 0.12, 0.9])]
    [0.0, 4.0, 0.0]
    """
    check_choice(name, "name", DJ_SIGNALS)
    t = np.asarray(x, dtype=np.float64)
    if name == "heavisine":
        return 4.0 * np.sin(4.0 * np.pi * t) - np.sign(t - 0.3) - np.sign(0.72 - t)
    if name == "doppler":
        eps = 0.05
        return np.sqrt(np.clip(t * (1.0 - t), 0.0, None)) * np.sin(
            2.0 * np.pi * (1.0 + eps) / (t + eps))
    d = t[..., None] - _DJ_T
    if name == "bumps":
        return (_DJ_BUMP_H * (1.0 + np.abs(d / _DJ_BUMP_W)) ** -4.0).sum(axis=-1)
    return (_DJ_BLOCK_H * (1.0 + np.sign(d)) / 2.0).sum(axis=-1)


@fill_doc
def donoho_johnstone_1d(name="doppler", n=1000, noise_std=0.5, random_state=None) -> Dataset:
    """Draw a noisy stream of one of Donoho and Johnstone's signals, x uniform on [0, 1].

    Parameters
    ----------
    name : {"heavisine", "bumps", "blocks", "doppler"}, default="doppler"
        The signal (:func:`donoho_johnstone`).
    n : int, default=1000
        Number of points (>= 2).
    noise_std : float, default=0.5
        Standard deviation of the Gaussian noise (>= 0).
    %(random_state)s

    Returns
    -------
    Dataset
        A 1-D regression set, in stream order, with ``f`` and ``noise_std`` set.

    Raises
    ------
    InputError
        If an argument is invalid or asks for too many points.

    References
    ----------
    Donoho and Johnstone (1994), "Ideal spatial adaptation by wavelet shrinkage",
    Biometrika 81(3).
    """
    n = check_count(n, "n", minimum=2, maximum=MAX_SYNTHETIC_POINTS)
    noise_std = check_real(noise_std, "noise_std")
    rng = check_random_state(random_state)
    x = rng.random(n)
    f = donoho_johnstone(name, x)
    return Dataset(
        X=x[:, None], y=f + noise_std * rng.standard_normal(n), name=f"{name} 1-D",
        description=(f"Synthetic: Donoho and Johnstone's {name} signal, x uniform on [0, 1], "
                     f"noise std {noise_std:g}."),
        feature_names=("x",), target_name="y", f=f, noise_std=noise_std)
