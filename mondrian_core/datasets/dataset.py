"""The data container shared by every data set, and seeded train/validation/test splits."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from mondrian_core._docstrings import fill_doc
from mondrian_core._validation import check_flag, check_random_state
from mondrian_core.errors import InputError


@dataclass(frozen=True, eq=False)
class Dataset:
    """A data set as the pages use it.

    Parameters
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
        What the target measures (with units where known).
    task : {"regression", "classification", "none"}
        What the target is for.
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
    seed : int or None
        For synthetic sets: the integer seed they were drawn with, so that a chart
        exported from them can name it (``None`` when unknown).

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, or ``y`` or ``feature_names`` do not match its shape.
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
    seed: int | None = None

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
        """The number of rows N."""
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        """The number of features D."""
        return self.X.shape[1]

    def subset(self, indices) -> Dataset:
        """Return the rows ``indices``, all per-row arrays sliced alike.

        Parameters
        ----------
        indices : array-like of int or bool
            The rows to keep (any NumPy index).

        Returns
        -------
        Dataset
            A data set with those rows.
        """
        idx = np.asarray(indices)

        def take(a):
            return None if a is None else a[idx]

        return replace(self, X=self.X[idx], y=take(self.y), f=take(self.f),
                       X_raw=take(self.X_raw), y_raw=take(self.y_raw))

    def standardize(self, target: bool = False) -> Dataset:
        """Return the data set with features (and target) scaled to mean 0, std 1.

        Constant columns are only centred. The statistics are those of this whole
        set; the raw values stay in ``X_raw`` / ``y_raw``.

        Parameters
        ----------
        target : bool, default=False
            Also standardise a regression target.

        Returns
        -------
        Dataset
            The standardised data set (``standardized`` true).
        """
        X_raw = self.X if self.X_raw is None else self.X_raw
        X = zscore(X_raw)
        y, y_raw = self.y, self.y_raw
        if target and self.y is not None and self.task == "regression":
            y_raw = self.y if self.y_raw is None else self.y_raw
            y = zscore(y_raw[:, None])[:, 0]
        return replace(self, X=X, y=y, X_raw=X_raw, y_raw=y_raw, standardized=True)


def zscore(A: np.ndarray) -> np.ndarray:
    """Scale every column to mean 0 and standard deviation 1; constant columns are centred.

    Parameters
    ----------
    A : ndarray of shape (N, D)
        Finite values.

    Returns
    -------
    ndarray of shape (N, D)
        The z-scores.
    """
    # columns with values above 1e100 are first divided by their largest |value|: squares
    # above 1e308 overflow, and the std would be inf (a zero column instead of z-scores)
    big = np.abs(A).max(axis=0, initial=0.0)
    A = A / np.where(big > 1e100, big, 1.0)
    mean = A.mean(axis=0)
    scale = A.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    return (A - mean) / scale






@fill_doc
def train_val_test_split(dataset: Dataset, fractions=(0.6, 0.2, 0.2), random_state=None,
                         return_indices=False):
    """Split a data set at random into 2 or 3 parts with the given fractions.

    Parameters
    ----------
    dataset : Dataset
        The data set to split.
    fractions : sequence of float, default=(0.6, 0.2, 0.2)
        2 or 3 positive fractions summing to 1; each part gets a rounded size (at
        least one row), the first part the rest.
    %(random_state)s
    return_indices : bool, default=False
        Return sorted row indices instead of data sets.

    Returns
    -------
    tuple of Dataset or tuple of ndarray
        One part per fraction.

    Raises
    ------
    InputError
        If the fractions are invalid or the set has too few rows.

    Examples
    --------
    >>> from mondrian_core import regression_surface_2d, train_val_test_split
    >>> data = regression_surface_2d(n=100, random_state=0)
    >>> train, val, test = train_val_test_split(data, (0.6, 0.2, 0.2), random_state=0)
    >>> len(train.y), len(val.y), len(test.y)
    (60, 20, 20)
    """
    if not isinstance(dataset, Dataset):
        raise InputError("dataset must be a Dataset (from mondrian_core.datasets), got "
                         f"{type(dataset).__name__}.")
    check_flag(return_indices, "return_indices")
    try:
        fractions = np.asarray(fractions, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("fractions must be 2 or 3 positive numbers summing to 1, e.g. "
                         "(0.6, 0.2, 0.2).") from None
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
