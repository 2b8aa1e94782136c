"""Data sets for the pages: seeded synthetic generators, bundled real sets, user CSVs.

Everything returns a :class:`Dataset`. Synthetic generators take ``random_state``
(``None``, ``int`` or :class:`numpy.random.Generator`) and draw only from
:func:`mondrian_core._random.check_random_state`: same seed, same data.

* :func:`uniform_box` - points uniform in a box (no target).
* :func:`laplace_gp` - a GP draw with the Laplace kernel
  ``k(x, x') = exp(-lifetime * ||x - x'||_1)`` plus Gaussian noise, with a known
  ``true_lifetime``: the kernel that the Mondrian kernel converges to (Balog et
  al. 2016, section 3), so the lifetime sweep and posterior pages can try to
  recover it. Exact: the Ornstein-Uhlenbeck recursion in 1-D, a Cholesky factor
  of the kernel matrix otherwise (:func:`laplace_gp_sample`).
* :func:`toy_jumps_1d` - a noisy piecewise-smooth 1-D function with jumps, like
  the toy set of Figure 1 of Davies and Ghahramani (2014).
* :func:`two_moons`, :func:`two_spirals`, :func:`xor_blobs` (2-D classification)
  and :func:`regression_surface_2d` (2-D regression) for the online forest page.
* :func:`load_diabetes`, :func:`load_gapminder`, :func:`load_tips` - small real
  regression sets that load offline from files shipped inside scikit-learn and
  plotly (see ``data/README.md``); :func:`load_bundled` by name.
* :func:`load_csv` - a user's CSV, validated; every problem a user can cause is an
  :class:`~mondrian_core.errors.InputError` saying what to change. The bytes are
  only parsed as text: nothing is executed or unpickled.
* :func:`train_val_test_split` - seeded random splits.
"""
from __future__ import annotations

import csv
import io
import os
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.spatial.distance import cdist

from mondrian_core._random import check_random_state
from mondrian_core.errors import InputError

__all__ = [
    "Dataset",
    "CsvTable",
    "BUNDLED_DATASETS",
    "MAX_GP_POINTS",
    "CSV_MAX_BYTES",
    "CSV_MAX_ROWS",
    "CSV_MIN_ROWS",
    "uniform_box",
    "laplace_gp",
    "laplace_gp_sample",
    "toy_jumps_1d",
    "toy_jumps_function",
    "two_moons",
    "two_spirals",
    "xor_blobs",
    "regression_surface_2d",
    "regression_surface_function",
    "load_diabetes",
    "load_gapminder",
    "load_tips",
    "load_bundled",
    "read_csv_table",
    "load_csv",
    "train_val_test_split",
]


# ---------------------------------------------------------------- the container


@dataclass(frozen=True, eq=False)
class Dataset:
    """A data set as the pages use it.

    Attributes
    ----------
    X : ndarray of shape (N, D), float64
        Inputs (standardised when ``standardized`` is true; see ``X_raw``).
    y : ndarray of shape (N,) or None
        Target: float64 for regression, int64 labels for classification, ``None``
        for unlabelled point sets.
    name : str
        Short name (used in titles and file names).
    description : str
        One line saying what the data are and where they come from.
    feature_names : tuple of str
        One name per column of ``X`` (with units where known).
    target_name : str or None
    task : {"regression", "classification", "none"}
    true_lifetime : float or None
        For synthetic Laplace-GP draws: the lifetime of the kernel the target
        was drawn with (what the lifetime pages try to recover).
    f : ndarray of shape (N,) or None
        For synthetic sets: the noise-free function values at ``X``.
    noise_std : float or None
        For synthetic sets: the standard deviation of the added noise.
    X_raw, y_raw : ndarray or None
        The data before standardisation (``None`` when not standardised).
    standardized : bool
        Whether ``X`` (and ``y`` when ``y_raw`` is set) were standardised to mean 0
        and standard deviation 1 over the whole set.
    """

    X: np.ndarray
    y: np.ndarray | None
    name: str
    description: str
    feature_names: tuple[str, ...]
    target_name: str | None = None
    task: str = "regression"
    true_lifetime: float | None = None
    f: np.ndarray | None = None
    noise_std: float | None = None
    X_raw: np.ndarray | None = field(default=None, repr=False)
    y_raw: np.ndarray | None = field(default=None, repr=False)
    standardized: bool = False

    def __post_init__(self):
        X = np.asarray(self.X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"Dataset.X must be 2-D (N, D), got shape {X.shape}.")
        object.__setattr__(self, "X", X)
        if self.y is not None:
            y = np.asarray(self.y)
            y = y.astype(np.int64 if self.task == "classification" else np.float64)
            if y.shape != (X.shape[0],):
                raise ValueError(f"Dataset.y must have shape ({X.shape[0]},), got {y.shape}.")
            object.__setattr__(self, "y", y)
        names = tuple(str(n) for n in self.feature_names)
        if len(names) != X.shape[1]:
            raise ValueError(f"{len(names)} feature names for {X.shape[1]} columns.")
        object.__setattr__(self, "feature_names", names)

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    def subset(self, indices) -> Dataset:
        """The rows ``indices`` (all per-row arrays sliced alike)."""
        idx = np.asarray(indices)

        def take(a):
            return None if a is None else a[idx]

        return replace(self, X=self.X[idx], y=take(self.y), f=take(self.f),
                       X_raw=take(self.X_raw), y_raw=take(self.y_raw))

    def standardize(self, target: bool = False) -> Dataset:
        """Features (and the target if ``target``) scaled to mean 0, std 1.

        Constant columns are only centred. The statistics are those of this whole
        set; the raw values stay in ``X_raw`` / ``y_raw``.
        """
        X_raw = self.X if self.X_raw is None else self.X_raw
        X = _zscore(X_raw)
        y, y_raw = self.y, self.y_raw
        if target and self.y is not None and self.task == "regression":
            y_raw = self.y if self.y_raw is None else self.y_raw
            y = _zscore(y_raw[:, None])[:, 0]
        return replace(self, X=X, y=y, X_raw=X_raw, y_raw=y_raw, standardized=True)


def _zscore(A: np.ndarray) -> np.ndarray:
    # columns with values above 1e100 are first divided by their largest |value|: squares
    # above 1e308 overflow, and the std would be inf (a zero column instead of z-scores)
    big = np.abs(A).max(axis=0, initial=0.0)
    A = A / np.where(big > 1e100, big, 1.0)
    mean = A.mean(axis=0)
    scale = A.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    return (A - mean) / scale


# ---------------------------------------------------------------- validation


#: Largest number of points (or draws, dimensions) a synthetic generator makes.
MAX_SYNTHETIC_POINTS = 1_000_000


def _check_n(n, what="n", minimum=1, maximum=MAX_SYNTHETIC_POINTS) -> int:
    try:
        whole = not isinstance(n, bool) and float(n).is_integer()
    except (TypeError, ValueError, OverflowError):
        whole = False
    if not whole:
        raise InputError(f"{what} must be a whole number, got {n!r}.")
    n = int(n)
    if n < minimum:
        raise InputError(f"{what} must be at least {minimum}, got {n}.")
    if maximum is not None and n > maximum:
        raise InputError(f"{what} must be at most {maximum:,}, got {n:,}.")
    return n


def _check_nonneg(value, what) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a number >= 0, got {value!r}.") from None
    if not np.isfinite(value) or value < 0:
        raise InputError(f"{what} must be a finite number >= 0, got {value}.")
    return value


def _check_box(lower, upper, n_dims=None) -> tuple[np.ndarray, np.ndarray]:
    lower = np.atleast_1d(np.asarray(lower, dtype=np.float64))
    upper = np.atleast_1d(np.asarray(upper, dtype=np.float64))
    if n_dims is not None:
        lower = np.broadcast_to(lower, (n_dims,)).copy() if lower.size == 1 else lower
        upper = np.broadcast_to(upper, (n_dims,)).copy() if upper.size == 1 else upper
    if lower.ndim != 1 or lower.shape != upper.shape:
        raise InputError(f"lower and upper must be sequences of the same length, got "
                         f"{lower.shape} and {upper.shape}.")
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise InputError("The box's bounds must be finite numbers.")
    if np.any(upper <= lower):
        raise InputError("Each upper bound must be larger than its lower bound.")
    return lower, upper


def _uniform(rng, n, lower, upper) -> np.ndarray:
    return lower + (upper - lower) * rng.random((n, lower.size))


# ---------------------------------------------------------------- synthetic sets


def uniform_box(n, lower=(0.0, 0.0), upper=(1.0, 1.0), random_state=None) -> Dataset:
    """``n`` points uniform in the box ``[lower, upper]`` (no target)."""
    n = _check_n(n)
    lower, upper = _check_box(lower, upper)
    rng = check_random_state(random_state)
    X = _uniform(rng, n, lower, upper)
    return Dataset(X=X, y=None, name="uniform box", task="none",
                   description=f"{n} points uniform in a {lower.size}-D box (synthetic).",
                   feature_names=tuple(f"x{d + 1}" for d in range(lower.size)))


#: Largest N for the dense (Cholesky) Laplace-GP sampler in 2 or more dimensions.
MAX_GP_POINTS = 5000


def laplace_gp_sample(X, lifetime, n_draws=1, random_state=None, method="auto") -> np.ndarray:
    """Exact draws of f ~ GP(0, k) at the rows of ``X``, k = exp(-lifetime ||x - x'||_1).

    Parameters
    ----------
    X : array of shape (N, D)
    lifetime : float >= 0
        The Laplace kernel's inverse length scale (the Mondrian lifetime).
    n_draws : int
        Number of independent functions.
    random_state : None, int or numpy.random.Generator
    method : {"auto", "ou", "cholesky"}
        ``"ou"`` (1-D only): the Ornstein-Uhlenbeck recursion on sorted x,
        f_i = rho_i f_{i-1} + sqrt(1 - rho_i^2) e_i with rho_i = exp(-lifetime
        (x_i - x_{i-1})), O(N) and exact because the 1-D Laplace kernel is the OU
        covariance (a Markov process). ``"cholesky"``: L z with L L^T = K + jitter I,
        O(N^3), refused above :data:`MAX_GP_POINTS` points. ``"auto"``: OU in 1-D,
        Cholesky otherwise.

    Returns
    -------
    F : ndarray of shape (n_draws, N)
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise InputError("X must be a finite 2-D array of shape (N, D).")
    lifetime = _check_nonneg(lifetime, "lifetime")
    n_draws = _check_n(n_draws, "n_draws")
    rng = check_random_state(random_state)
    n, d = X.shape
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


def laplace_gp(n, n_dims=1, lifetime=5.0, noise_std=0.1, random_state=None,
               lower=0.0, upper=1.0) -> Dataset:
    """A regression set drawn from a GP with the Laplace kernel, with known lifetime.

    X is uniform in the box ``[lower, upper]^n_dims``; f ~ GP(0, k) with
    k(x, x') = exp(-lifetime ||x - x'||_1) (unit prior variance); y = f + N(0,
    noise_std^2). The draw is exact (:func:`laplace_gp_sample`): O(N) in 1-D, a
    Cholesky factor in 2 or more dimensions (at most :data:`MAX_GP_POINTS` points).
    The Mondrian kernel with this lifetime converges to k (Balog et al. 2016,
    section 3), so this is the set on which the lifetime can be recovered.
    """
    n = _check_n(n)
    n_dims = _check_n(n_dims, "n_dims")
    lifetime = _check_nonneg(lifetime, "lifetime")
    noise_std = _check_nonneg(noise_std, "noise_std")
    lower, upper = _check_box(lower, upper, n_dims)
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
                     f"draw with Laplace kernel exp(-{lifetime:g} ||x - x'||_1), "
                     f"noise std {noise_std:g}."),
        feature_names=tuple(f"x{d + 1}" for d in range(n_dims)), target_name="y",
        true_lifetime=lifetime, f=f, noise_std=noise_std)


def toy_jumps_function(x) -> np.ndarray:
    """The noise-free function of :func:`toy_jumps_1d` on [0, 1].

    Smooth pieces joined by three jumps (at x = 0.25, 0.5 and 0.8), so a
    stationary kernel has to choose between smoothing the jumps and overfitting
    the smooth parts, while piecewise-constant partition kernels adapt.
    """
    x = np.asarray(x, dtype=np.float64)
    smooth = 0.6 * np.sin(2.5 * np.pi * x) + 0.8 * x
    jumps = 1.2 * (x >= 0.25) - 1.8 * (x >= 0.5) + 1.0 * (x >= 0.8)
    return smooth + jumps


def toy_jumps_1d(n=150, noise_std=0.15, random_state=None) -> Dataset:
    """Noisy 1-D regression set with jumps, like Figure 1 of Davies and Ghahramani (2014).

    X uniform on [0, 1] with a gap (no points in [0.6, 0.7]) so that posterior
    uncertainty between data shows; y = :func:`toy_jumps_function` (x) + noise.
    """
    n = _check_n(n, minimum=2)
    noise_std = _check_nonneg(noise_std, "noise_std")
    rng = check_random_state(random_state)
    # uniform on [0, 0.6) U [0.7, 1] (length 0.9): shift the draws above 0.6 by 0.1
    u = 0.9 * rng.random(n)
    x = np.where(u < 0.6, u, u + 0.1)
    f = toy_jumps_function(x)
    y = f + noise_std * rng.standard_normal(n)
    return Dataset(
        X=x[:, None], y=y, name="toy jumps 1-D",
        description=("Synthetic: piecewise-smooth function with jumps at x = 0.25, 0.5, 0.8 and "
                     f"a data gap on [0.6, 0.7], noise std {noise_std:g} "
                     "(like Davies & Ghahramani 2014, Fig. 1)."),
        feature_names=("x",), target_name="y", f=f, noise_std=noise_std)


def _sklearn_seed(rng) -> int:
    return int(rng.integers(0, 2**31 - 1))


def two_moons(n=300, noise=0.15, random_state=None) -> Dataset:
    """Two interleaved half circles (scikit-learn ``make_moons``), labels 0/1."""
    from sklearn.datasets import make_moons

    n = _check_n(n, minimum=2)
    noise = _check_nonneg(noise, "noise")
    rng = check_random_state(random_state)
    X, y = make_moons(n_samples=n, noise=noise, random_state=_sklearn_seed(rng))
    return Dataset(X=X, y=y, name="two moons", task="classification",
                   description=f"Synthetic: scikit-learn make_moons, {n} points, noise {noise:g}.",
                   feature_names=("x1", "x2"), target_name="class", noise_std=noise)


def two_spirals(n=300, noise=0.05, turns=1.5, random_state=None) -> Dataset:
    """Two interleaved spirals of ``turns`` turns in [-1, 1]^2, labels 0/1."""
    n = _check_n(n, minimum=2)
    noise = _check_nonneg(noise, "noise")
    turns = float(turns)
    if not 0 < turns <= 5:
        raise InputError(f"turns must be in (0, 5], got {turns}.")
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


def xor_blobs(n=300, noise=0.1, random_state=None) -> Dataset:
    """XOR: uniform on [-1, 1]^2, class = (x1 x2 > 0), inputs jittered by ``noise``."""
    n = _check_n(n, minimum=2)
    noise = _check_nonneg(noise, "noise")
    rng = check_random_state(random_state)
    Z = rng.uniform(-1.0, 1.0, size=(n, 2))
    y = (Z[:, 0] * Z[:, 1] > 0).astype(np.int64)
    X = Z + noise * rng.standard_normal((n, 2))
    return Dataset(X=X, y=y, name="XOR", task="classification",
                   description=f"Synthetic: XOR quadrants, {n} points, input noise {noise:g}.",
                   feature_names=("x1", "x2"), target_name="class", noise_std=noise)


def regression_surface_function(X) -> np.ndarray:
    """The noise-free surface of :func:`regression_surface_2d` on [0, 1]^2.

    A smooth wave plus a step across the diagonal x1 + x2 = 1.2: axis-aligned
    partitions need many cuts along an oblique edge.
    """
    X = np.asarray(X, dtype=np.float64)
    x1, x2 = X[:, 0], X[:, 1]
    return np.sin(2.0 * np.pi * x1) * np.cos(np.pi * x2) + 1.0 * (x1 + x2 > 1.2)


def regression_surface_2d(n=400, noise_std=0.1, random_state=None) -> Dataset:
    """2-D regression: X uniform on [0, 1]^2, y = :func:`regression_surface_function` + noise."""
    n = _check_n(n)
    noise_std = _check_nonneg(noise_std, "noise_std")
    rng = check_random_state(random_state)
    X = rng.random((n, 2))
    f = regression_surface_function(X)
    y = f + noise_std * rng.standard_normal(n)
    return Dataset(X=X, y=y, name="2-D surface",
                   description=("Synthetic: sin(2 pi x1) cos(pi x2) plus a step across "
                                f"x1 + x2 = 1.2, noise std {noise_std:g}."),
                   feature_names=("x1", "x2"), target_name="y", f=f, noise_std=noise_std)


# ---------------------------------------------------------------- real sets


def load_diabetes(standardize=True) -> Dataset:
    """Diabetes (Efron et al. 2004), shipped with scikit-learn: 442 x 10.

    Features: age, sex, BMI, blood pressure and six blood serum measurements;
    target: a measure of disease progression one year after baseline (25-346).
    Raw (unscaled) features come from ``load_diabetes(scaled=False)``; with
    ``standardize`` the features are z-scored (the target is left in its units).
    """
    from sklearn.datasets import load_diabetes as _load

    bunch = _load(scaled=False)
    names = ("age (years)", "sex", "BMI", "blood pressure", "s1 tc", "s2 ldl", "s3 hdl",
             "s4 tch", "s5 ltg", "s6 glu")
    data = Dataset(X=bunch.data, y=bunch.target, name="diabetes", feature_names=names,
                   target_name="disease progression after 1 year",
                   description=("Real: diabetes, 442 patients x 10 baseline variables "
                                "(Efron et al. 2004), shipped with scikit-learn."))
    return data.standardize() if standardize else data


def _plotly_dataset(name: str) -> pd.DataFrame:
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "datasets" / f"{name}.csv.gz"
    return pd.read_csv(path)


def load_gapminder(standardize=True) -> Dataset:
    """Gapminder life expectancy, shipped with plotly: 1,704 x 2.

    142 countries every 5 years 1952-2007; features log10 GDP per capita
    (inflation-adjusted US$) and year; target life expectancy at birth (years).
    Two inputs, so the pages can draw the prediction surface of real data.
    """
    df = _plotly_dataset("gapminder")
    X = np.column_stack([np.log10(df["gdpPercap"].to_numpy(float)), df["year"].to_numpy(float)])
    data = Dataset(X=X, y=df["lifeExp"].to_numpy(float), name="gapminder",
                   feature_names=("log10 GDP per capita (US$)", "year"),
                   target_name="life expectancy (years)",
                   description=("Real: Gapminder life expectancy vs GDP per capita and year, "
                                "142 countries x 12 years (gapminder.org, CC BY 4.0), "
                                "shipped with plotly."))
    return data.standardize() if standardize else data


def load_tips(standardize=True) -> Dataset:
    """Restaurant tips (Bryant and Smith 1995), shipped with plotly: 244 x 2.

    Features total bill (US$) and party size; target the tip (US$).
    """
    df = _plotly_dataset("tips")
    X = df[["total_bill", "size"]].to_numpy(float)
    data = Dataset(X=X, y=df["tip"].to_numpy(float), name="tips",
                   feature_names=("total bill (US$)", "party size"), target_name="tip (US$)",
                   description=("Real: 244 restaurant bills and tips recorded by one waiter "
                                "(Bryant & Smith 1995), shipped with plotly."))
    return data.standardize() if standardize else data


#: Bundled real regression sets by name: (loader, one-line description).
BUNDLED_DATASETS = {
    "diabetes": (load_diabetes, "Diabetes progression, 442 x 10 (scikit-learn)"),
    "gapminder": (load_gapminder, "Life expectancy vs GDP and year, 1,704 x 2 (plotly)"),
    "tips": (load_tips, "Restaurant tips, 244 x 2 (plotly)"),
}


def load_bundled(name: str, standardize=True) -> Dataset:
    """One of :data:`BUNDLED_DATASETS` by name."""
    try:
        loader = BUNDLED_DATASETS[name][0]
    except KeyError:
        raise InputError(f"Unknown data set {name!r}; choose one of "
                         f"{', '.join(BUNDLED_DATASETS)}.") from None
    return loader(standardize=standardize)


# ---------------------------------------------------------------- CSV upload

CSV_MAX_BYTES = 20_000_000
CSV_MAX_ROWS = 200_000
CSV_MIN_ROWS = 10
_DELIMITERS = ",;\t|"


@dataclass(frozen=True, eq=False)
class CsvTable:
    """A parsed CSV before columns are chosen (:func:`read_csv_table`).

    ``numeric_columns`` can be chosen as features or target; ``text_columns``
    cannot. ``delimiter`` is the one detected.
    """

    frame: pd.DataFrame
    numeric_columns: tuple[str, ...]
    text_columns: tuple[str, ...]
    delimiter: str
    notices: tuple[str, ...] = ()


def _read_bytes(source, max_bytes: int) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise InputError(f"No file at {str(path)!r}.")
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    elif hasattr(source, "getvalue"):  # streamlit UploadedFile, BytesIO
        data = source.getvalue()
    elif hasattr(source, "read"):
        data = source.read(max_bytes + 1)
    else:
        raise InputError("Give the CSV as bytes, a file path or an open binary file.")
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > max_bytes:
        raise InputError(f"The file is larger than {max_bytes / 1e6:g} MB; upload a smaller "
                         "sample of the rows or fewer columns.")
    return data


def _decode(data: bytes) -> str:
    if not data.strip():
        raise InputError("The file is empty; upload a CSV with a header row and at least "
                         f"{CSV_MIN_ROWS} rows of numbers.")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError("The file is UTF-16 text; save it as 'CSV UTF-8' (or plain CSV) and "
                         "upload it again.")
    if b"\x00" in data:
        raise InputError("This looks like a binary file (it contains NUL bytes), not a CSV; "
                         "export the table as CSV (comma-separated text).")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(
            f"The file is not UTF-8 text (byte 0x{data[err.start]:02x} at position "
            f"{err.start}); save it as 'CSV UTF-8' and upload it again.") from None


def _sniff_delimiter(text: str) -> str:
    sample = text[:65536]
    if len(text) > len(sample) and "\n" in sample:
        sample = sample[: sample.rindex("\n")]
    try:
        return csv.Sniffer().sniff(sample, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        return ","


def read_csv_table(source, *, max_bytes=CSV_MAX_BYTES, max_rows=CSV_MAX_ROWS) -> CsvTable:
    """Parse a CSV (bytes, path or binary file) and sort its columns into numeric and text.

    The delimiter (comma, semicolon, tab or bar) is detected. Raises
    :class:`InputError` for an empty, binary, non-UTF-8 or oversized file, one with
    more than ``max_rows`` rows, duplicated or missing header names, fewer than two
    columns, or text pandas cannot parse.
    """
    text = _decode(_read_bytes(source, max_bytes))
    delimiter = _sniff_delimiter(text)
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=delimiter))
    except (csv.Error, StopIteration):
        header = []
    names = [h.strip() for h in header]
    seen, dupes = set(), []
    for h in names:
        if h and h in seen and h not in dupes:
            dupes.append(h)
        seen.add(h)
    if dupes:
        raise InputError("Column names must be unique; the header repeats "
                         f"{', '.join(repr(d) for d in dupes[:5])}. Rename the duplicates.")
    try:
        with warnings.catch_warnings():
            # pandas only warns when a row has more fields than the header: make it an error
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(io.StringIO(text), sep=delimiter, index_col=False,
                                nrows=max_rows + 1, skipinitialspace=True)
    except pd.errors.ParserWarning:
        raise InputError("Some rows have more fields than the header; check the delimiter and "
                         "quote fields that contain it.") from None
    except pd.errors.EmptyDataError:
        raise InputError("The file has no columns; upload a CSV with a header row.") from None
    except (pd.errors.ParserError, ValueError, csv.Error, OverflowError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InputError(f"Could not read the file as CSV ({first[:160]}); check that every "
                         "row has as many fields as the header.") from None
    if len(frame) > max_rows:
        raise InputError(f"The file has more than {max_rows:,} rows; upload a sample of at most "
                         f"{max_rows:,} rows.")
    frame.columns = [str(c).strip() for c in frame.columns]
    if len(set(frame.columns)) != frame.shape[1]:
        raise InputError("Column names must be unique; rename the repeated header names.")
    if frame.shape[1] < 2:
        raise InputError(
            f"Found only one column ({frame.columns[0]!r}) with delimiter {delimiter!r}; a "
            "data set needs at least one feature and a target column. Separate the columns "
            "with commas (or ; tab |).")
    if len(frame) == 0:
        raise InputError(f"The file has a header but no data rows; add at least {CSV_MIN_ROWS} "
                         "rows of numbers below the header.")
    numeric, text_cols = [], []
    for col in frame.columns:
        dtype = frame[col].dtype
        if dtype == object:  # integers beyond 64 bits stay text in pandas: read them as floats
            as_number = pd.to_numeric(frame[col], errors="coerce")
            if as_number.notna().sum() == frame[col].notna().sum():
                frame[col] = as_number
                dtype = as_number.dtype
        if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
            numeric.append(col)
        else:
            text_cols.append(col)
    notices = []
    if text_cols:
        notices.append(f"Text columns that cannot be used: {_names(text_cols)}.")
    return CsvTable(frame=frame, numeric_columns=tuple(numeric), text_columns=tuple(text_cols),
                    delimiter=delimiter, notices=tuple(notices))


def _names(cols, most=6) -> str:
    shown = ", ".join(repr(c) for c in cols[:most])
    return shown + (f" and {len(cols) - most} more" if len(cols) > most else "")


def _text_example(series: pd.Series) -> str:
    values = series.dropna().astype(str)
    bad = values[pd.to_numeric(values, errors="coerce").isna()]
    return repr(bad.iloc[0][:20]) if len(bad) else "text"


def load_csv(source, feature_columns=None, target_column=None, *, name="uploaded CSV",
             standardize=False, max_bytes=CSV_MAX_BYTES, max_rows=CSV_MAX_ROWS,
             min_rows=CSV_MIN_ROWS) -> tuple[Dataset, list[str]]:
    """Load a user's CSV as a regression :class:`Dataset`, validated.

    Parameters
    ----------
    source : bytes, str, path or binary file (e.g. a Streamlit ``UploadedFile``)
    feature_columns : list of str, optional
        Numeric columns to use as inputs (default: every numeric column except the
        target).
    target_column : str, optional
        Numeric column to predict (default: the last numeric column).
    standardize : bool
        z-score the features (raw values kept in ``X_raw``).
    max_bytes, max_rows, min_rows : int
        Size limits; rows are counted after dropping those with NaN/inf.

    Returns
    -------
    dataset : Dataset
    notices : list of str
        What was done that the user should know (rows dropped, defaults chosen).

    Raises
    ------
    InputError
        Any problem the user can fix, with a message saying what to change.
    """
    table = read_csv_table(source, max_bytes=max_bytes, max_rows=max_rows)
    frame, numeric = table.frame, list(table.numeric_columns)
    notices = list(table.notices)
    available = list(frame.columns)

    def check_exist(cols, what):
        missing = [c for c in cols if c not in available]
        if missing:
            raise InputError(f"No {what} column named {_names(missing)}; the file has "
                             f"{_names(available, 12)}.")
        text = [c for c in cols if c not in numeric]
        if text:
            examples = "; ".join(f"{c!r} has {_text_example(frame[c])}" for c in text[:3])
            raise InputError(f"{what.capitalize()} column(s) {_names(text)} contain text, not "
                             f"numbers ({examples}); choose among the numeric columns "
                             f"{_names(numeric, 12) or '(none)'} (numbers need '.' as the "
                             "decimal point).")

    if not numeric:
        raise InputError("The file has no numeric column (all columns contain text: "
                         f"{_names(available)}); check the delimiter and the decimal point "
                         "(use '.' for decimals).")
    if target_column is None:
        target_column = numeric[-1]
        notices.append(f"Using {target_column!r} (the last numeric column) as the target.")
    check_exist([target_column], "target")
    if feature_columns is None:
        feature_columns = [c for c in numeric if c != target_column]
    feature_columns = list(feature_columns)
    if not feature_columns:
        text = [c for c in available if c not in numeric]
        raise InputError("Choose at least one numeric feature column besides the target "
                         f"{target_column!r}" + (
                             f"; the columns {_names(text)} contain text (numbers need '.' as "
                             "the decimal point)." if text else "."))
    if target_column in feature_columns:
        raise InputError(f"The target {target_column!r} cannot also be a feature; remove it "
                         "from the feature columns.")
    if len(set(feature_columns)) != len(feature_columns):
        raise InputError("Each feature column can be chosen only once.")
    check_exist(feature_columns, "feature")

    values = frame[feature_columns + [target_column]].to_numpy(dtype=np.float64, na_value=np.nan)
    good = np.all(np.isfinite(values), axis=1)
    n_bad = int((~good).sum())
    if n_bad:
        notices.append(f"Dropped {n_bad:,} of {len(values):,} rows with missing or infinite "
                       "values (NaN/inf) in the chosen columns.")
    values_all, values = values, values[good]
    if len(values) < min_rows:
        empty = [c for c, ok in zip(feature_columns + [target_column],
                                     np.isfinite(values_all).any(axis=0)) if not ok]
        if empty:
            raise InputError(f"Column(s) {_names(empty)} have no numeric values; choose other "
                             "columns or check that every row has all fields.")
        dropped = f" ({n_bad:,} more have missing or infinite values)" if n_bad else ""
        raise InputError(f"Only {len(values)} complete rows in the chosen columns{dropped}; at "
                         f"least {min_rows} are needed. Choose other columns or add rows.")
    X, y = values[:, :-1], values[:, -1]
    constant = [c for c, s in zip(feature_columns, np.ptp(X, axis=0)) if s == 0]
    if constant:
        notices.append(f"Constant feature column(s) {_names(constant)} carry no information.")
    data = Dataset(X=X, y=y, name=name, feature_names=tuple(feature_columns),
                   target_name=target_column,
                   description=(f"Uploaded CSV: {len(y):,} rows, {len(feature_columns)} "
                                f"feature(s), target {target_column!r}."))
    return (data.standardize() if standardize else data), notices


# ---------------------------------------------------------------- splits


def train_val_test_split(dataset: Dataset, fractions=(0.6, 0.2, 0.2), random_state=None,
                         return_indices=False):
    """A seeded random split into 2 or 3 parts with the given fractions.

    ``fractions`` sum to 1; each part gets ``round``-ed sizes (at least one row).
    Returns a tuple of :class:`Dataset` (or of sorted index arrays when
    ``return_indices``), one per fraction.
    """
    fractions = np.asarray(fractions, dtype=np.float64)
    if fractions.ndim != 1 or fractions.size not in (2, 3) or np.any(fractions <= 0) \
            or not np.isclose(fractions.sum(), 1.0):
        raise InputError("fractions must be 2 or 3 positive numbers summing to 1, e.g. "
                         f"(0.6, 0.2, 0.2); got {fractions.tolist()}.")
    n = dataset.n_samples
    if n < fractions.size:
        raise InputError(f"{n} rows cannot be split into {fractions.size} parts.")
    sizes = np.floor(fractions * n + 0.5).astype(int)
    sizes = np.maximum(sizes, 1)
    sizes[0] = n - sizes[1:].sum()
    if sizes[0] < 1:
        raise InputError(f"{n} rows are too few for the fractions {fractions.tolist()}.")
    perm = check_random_state(random_state).permutation(n)
    parts = [np.sort(p) for p in np.split(perm, np.cumsum(sizes)[:-1])]
    if return_indices:
        return tuple(parts)
    return tuple(dataset.subset(p) for p in parts)
