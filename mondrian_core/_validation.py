"""The one validation layer: every public entry point checks its arguments here.

Built on scikit-learn's public helpers (``check_array``, ``validate_data``,
``check_scalar``, ``column_or_1d``, ``check_classification_targets``,
``check_is_fitted``); each function turns a user's value into the type the
algorithms need or raises :class:`~mondrian_core.errors.InputError` with a message
that says what to change. The rules, the same at every entry point:

* counts (``n_trees``, ``n_estimators``, ``n_partitions``, ``n_components``,
  ``n_grids``, ``n_samples``, ...): an integer (``int`` or a NumPy integer) at least
  the minimum; ``bool``, whole-number floats such as ``5.0`` and strings are refused,
  as scikit-learn's own parameter checks do;
* lifetimes and other real parameters: a real number (``int``, ``float`` or a NumPy
  scalar), finite and in range; ``bool`` and strings such as ``'1'`` are refused;
* ``random_state``: None, a non-negative integer, a ``numpy.random.Generator`` or a
  ``numpy.random.RandomState`` (see :func:`check_random_state`);
* points ``X``: a 2-D array of finite real numbers (a 1-D array is refused: reshape
  it), at least one row and one column, whose per-column range does not overflow;
  complex numbers, text and sparse matrices are refused (sparse is accepted only
  where an estimator says so);
* targets ``y``: one value per row of ``X``; a column vector (n, 1) is raveled with
  scikit-learn's ``DataConversionWarning``, more columns are refused; regression
  targets are finite numbers whose squares do not overflow, class labels any
  integers or strings.
"""
from __future__ import annotations

import math
import numbers
import os

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_array,
    check_consistent_length,
    check_is_fitted,
    check_scalar,
    column_or_1d,
    validate_data,
)

from mondrian_core.errors import InputError, InputTypeError

__all__ = ["check_random_state", "check_count", "check_real", "check_fraction",
           "check_lifetime", "check_box",
           "check_points", "check_target", "check_choice", "check_counts", "check_dense_size",
           "check_instance",
           "check_is_fitted", "check_n_jobs", "round_down", "MAX_DENSE_ENTRIES"]

#: Largest dense matrix built from a parameter (float64 entries: 400 MB).
MAX_DENSE_ENTRIES = 50_000_000

_SEED_MAX = 2**63 - 1


def check_random_state(random_state) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    ``None`` gives a freshly seeded generator (OS entropy, never the global NumPy
    RNG), a non-negative integer a generator seeded with it, and a ``Generator`` is
    returned as it is (so the caller's stream advances). A ``RandomState`` (what
    scikit-learn users pass) seeds a new generator with one draw from it: its stream
    advances and the same ``RandomState`` state gives the same result.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        The seed or generator a user passed.

    Returns
    -------
    numpy.random.Generator
        The generator to draw from.

    Raises
    ------
    InputError
        If ``random_state`` is of another type or a negative integer.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(int(random_state.randint(_SEED_MAX, dtype=np.int64)))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise InputError(f"random_state must be a non-negative integer, got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise InputError(
        "random_state must be None, a non-negative int, a numpy.random.Generator or a "
        f"numpy.random.RandomState, got {type(random_state).__name__}.")


def _scalar(value, name, target_type, what, **bounds):
    """scikit-learn's ``check_scalar`` with bool and NaN refused and our message."""
    try:
        if isinstance(value, bool):
            raise TypeError("bool")
        check_scalar(value, name, target_type, **bounds)
        if isinstance(value, numbers.Real) and not math.isfinite(value):
            raise ValueError("not finite")
    except (TypeError, ValueError):
        raise InputError(f"{name} must be {what}, got {value!r}.") from None
    return value


def check_count(value, name: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer in ``[minimum, maximum]`` (a count of trees, samples, ...).

    ``bool``, whole-number floats (``5.0``) and strings are refused.
    """
    what = f"an integer >= {minimum}" + (f" and <= {maximum:,}" if maximum is not None else "")
    return int(_scalar(value, name, numbers.Integral, what, min_val=minimum, max_val=maximum))


def check_n_jobs(value, name: str = "n_jobs") -> int:
    """The number of threads to use, scikit-learn's way: None is 1, -1 every core,
    -2 all but one, ...; 0 and other values are refused."""
    if value is None:
        return 1
    cores = os.cpu_count() or 1
    n = int(_scalar(value, name, numbers.Integral, "None, an integer >= 1 or a negative "
                    f"integer >= -{cores} (-1: every core)", min_val=-cores))
    if n == 0:
        raise InputError(f"{name} must be None, an integer >= 1 or -1 (every core); got 0.")
    return n if n > 0 else cores + 1 + n


def check_real(value, name: str, *, minimum: float | None = 0.0, strict: bool = False,
               maximum: float | None = None, allow_none: bool = False):
    """A finite real number ``>= minimum`` (``> minimum`` if ``strict``), or None if allowed."""
    if value is None and allow_none:
        return None
    if minimum is None:
        what = "a finite number"
    elif strict and minimum == 0:
        what = "a positive finite number"
    else:
        what = f"a finite number {'>' if strict else '>='} {minimum:g}"
    if maximum is not None:
        what += f" and <= {maximum:g}"
    if allow_none:
        what += " or None"
    include = "both"
    if strict and minimum is not None:
        include = "right" if maximum is not None else "neither"
    bounds = {"min_val": minimum, "max_val": maximum, "include_boundaries": include}
    return float(_scalar(value, name, numbers.Real, what, **bounds))


def check_fraction(value, name: str) -> float:
    """A real number strictly between 0 and 1 (a probability level)."""
    return float(_scalar(value, name, numbers.Real, "a number in (0, 1)", min_val=0.0,
                         max_val=1.0, include_boundaries="neither"))


def check_lifetime(value, name: str = "lifetime", *, positive: bool = False) -> float:
    """A lifetime: a finite real number >= 0 (> 0 if ``positive``)."""
    return check_real(value, name, minimum=0.0, strict=positive)


def check_choice(value, name: str, options) -> object:
    """One of ``options`` (compared with ``==``; only hashable strings and numbers)."""
    if not isinstance(value, (str, numbers.Number)) or value not in options:
        raise InputError(f"{name} must be one of {', '.join(map(repr, options))}; got {value!r}.")
    return value


def check_instance(value, cls: type, name: str, origin: str):
    """``value`` if it is a ``cls``: a result object handed back to the library (a
    sample to extend, ...), whose attributes would otherwise fail deep inside."""
    if not isinstance(value, cls):
        raise InputError(f"{name} must be a {cls.__name__} (from {origin}), got "
                         f"{type(value).__name__}.")
    return value


def check_flag(value, name: str) -> bool:
    """True or False (NumPy's bools too); an array or text would be truthy by accident."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name} must be True or False, got {type(value).__name__}.")
    return bool(value)


def check_counts(counts, name: str = "counts") -> np.ndarray:
    """Sorted distinct integers >= 1 from a non-empty 1-D sequence of counts."""
    try:
        values = np.asarray(counts)
        whole = values.ndim == 1 and values.size > 0 and values.dtype.kind in "iu"
    except (TypeError, ValueError):
        whole = False
    if not whole or values.min() < 1:
        raise InputError(f"{name} must be a non-empty sequence of integers >= 1, got {counts!r}.")
    return np.unique(values.astype(np.int64))


def check_box(lower, upper, name: str = "box", *, strict: bool = False,
              n_dims: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Corners of a box: finite, of one length, ``upper >= lower`` (``>`` if ``strict``).

    With ``n_dims``, a single number stands for the same bound in every dimension.
    """
    try:
        lo = np.asarray(lower, dtype=float).reshape(-1)
        hi = np.asarray(upper, dtype=float).reshape(-1)
    except (TypeError, ValueError) as err:
        raise InputError(f"The {name}'s corners must be numbers ({err}).") from None
    if n_dims is not None:
        lo = np.full(n_dims, lo[0]) if lo.size == 1 else lo
        hi = np.full(n_dims, hi[0]) if hi.size == 1 else hi
    if lo.size == 0 or lo.shape != hi.shape or (n_dims is not None and lo.size != n_dims):
        raise InputError(
            f"The {name}'s lower and upper corners must be non-empty and of the same "
            f"length{'' if n_dims is None else f' {n_dims}'} (got {lo.size} and {hi.size}).")
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise InputError(f"The {name}'s corners must be finite numbers.")
    with np.errstate(over="ignore"):
        wide = ~np.isfinite(hi - lo)
    if np.any(wide):  # a side that overflows (e.g. -1e308 to 1e308) has no finite length
        d = int(np.argmax(wide))
        raise InputError(f"The {name}'s side in dimension {d} ({lo[d]:g} to {hi[d]:g}) is "
                         "longer than a float can hold; rescale the box (e.g. to the unit "
                         "cube).")
    bad = hi <= lo if strict else hi < lo
    if np.any(bad):
        d = int(np.argmax(bad))
        relation = "be above" if strict else "not be below"
        raise InputError(
            f"The {name}'s upper corner must {relation} its lower corner "
            f"(dimension {d}: lower {lo[d]:g}, upper {hi[d]:g}).")
    return lo, hi


def round_down(value: float, digits: int = 3) -> float:
    """``value`` rounded down to ``digits`` significant digits (for limits in messages)."""
    if value <= 0 or not math.isfinite(value):
        return value
    unit = 10.0 ** (math.floor(math.log10(value)) - digits + 1)
    return math.floor(value / unit) * unit


def check_dense_size(n_rows: int, n_cols: int, what: str = "kernel matrix") -> None:
    """Refuse a dense ``n_rows x n_cols`` matrix larger than :data:`MAX_DENSE_ENTRIES`.

    A kernel matrix (square in the worst case) names the largest number of points that
    fits; a feature matrix the largest number of rows to transform at a time.
    """
    if n_rows * n_cols > MAX_DENSE_ENTRIES:
        if what == "kernel matrix":
            advice = (f"use at most {int(MAX_DENSE_ENTRIES ** 0.5):,} points, or the sparse "
                      "features instead.")
        else:
            advice = f"transform at most {max(1, MAX_DENSE_ENTRIES // n_cols):,} points at a time."
        raise InputError(f"A {n_rows:,} x {n_cols:,} {what} is too large (limit "
                         f"{MAX_DENSE_ENTRIES:,} entries); {advice}")


def _points_error(err: Exception, name: str) -> InputError:
    """scikit-learn's message without the array it prints, and what to change."""
    lines = [line for line in str(err).strip().splitlines() if line.strip()] or [type(err).__name__]
    text = lines[0] if len(lines) == 1 else f"{lines[0].rstrip(':.')}. {lines[-1]}"
    low = text.lower()
    if "contains nan" in low or "contains infinity" in low or "too large for dtype" in low:
        # scikit-learn goes on about imputers and estimators that accept NaN
        text = text.split(". ")[0].rstrip(".") + "."
        advice = (f"Give {name} as finite numbers: remove or impute the rows with NaN or "
                  "infinite values.")
    elif "could not convert" in low or "argument must be a string" in low:
        advice = f"{name} must hold numbers only; remove or encode text columns."
    elif "sparse" in low:
        advice = f"Sparse input is not supported here; convert {name} with {name}.toarray()."
    elif "complex" in low:
        advice = f"Give {name} as real numbers (e.g. the real and imaginary parts as columns)."
    elif "features, but" in low or "feature names" in low:
        advice = f"Give {name} the columns used in fit, in the same order."
    else:
        advice = ("Give the points as finite numbers in a 2-D array (n_points, n_features); "
                  "reshape a single feature with X.reshape(-1, 1).")
    cls = InputTypeError if isinstance(err, TypeError) else InputError
    return cls(f"{text} {advice}")


def check_points(X, name: str = "X", *, estimator=None, reset: bool = True,
                 min_samples: int = 1, accept_sparse: bool = False,
                 max_abs: float | None = None, n_features: int | None = None):
    """Points as a float64 2-D array (or CSR where ``accept_sparse``), else an InputError.

    With ``estimator``, scikit-learn's ``validate_data`` also sets (``reset=True``) or
    checks (``reset=False``) ``n_features_in_`` and ``feature_names_in_``. Without it,
    ``n_features`` (if given) is the number of columns required. ``max_abs`` refuses
    larger absolute values (algorithms in single precision or on squared distances).
    """
    if _clean_points(X, estimator, reset, min_samples, n_features):
        # NaN, inf and a range that overflows show in the extremes; the full path below
        # says which
        if X.size <= _FEW_VALUES:  # a point or two: Python numbers beat two reductions
            values = X.ravel().tolist()
            hi = lo = math.nan
            if all(map(math.isfinite, values)):
                hi, lo = max(values), min(values)
        else:
            hi, lo = float(X.max()), float(X.min())
        if math.isfinite(hi - lo) and (max_abs is None or max(-lo, hi) <= max_abs):
            return X
    params = {"accept_sparse": ["csr", "csc"] if accept_sparse else False,
              "dtype": np.float64, "ensure_min_samples": min_samples}
    try:
        if estimator is None:
            X = check_array(X, input_name=name, **params)
        else:
            X = validate_data(estimator, X, reset=reset, **params)
    except (TypeError, ValueError) as err:
        raise _points_error(err, name) from None
    if n_features is not None and X.shape[1] != n_features:
        raise InputError(f"{name} has shape {X.shape}: {X.shape[1]} features, but {n_features} "
                         f"are expected; give {name} the columns used in fit, in the same order.")
    return _checked_range(X, name, max_abs)


#: Points with at most this many values are checked in Python numbers.
_FEW_VALUES = 16


def _clean_points(X, estimator, reset, min_samples, n_features) -> bool:
    """Whether ``X`` already is of the kind :func:`check_points` returns (a float64 2-D
    NumPy array of the fitted width, for an estimator fitted without feature names):
    then, if its values are finite and in range, scikit-learn's checks would change
    nothing, and skipping them keeps a learner fed one point per call from spending
    most of its time on them."""
    if type(X) is not np.ndarray or X.dtype != np.float64 or X.ndim != 2:
        return False
    if X.shape[0] < min_samples or X.shape[1] == 0:
        return False
    if estimator is not None:
        if reset or hasattr(estimator, "feature_names_in_"):
            return False
        n_features = getattr(estimator, "n_features_in_", None)
        if n_features is None:
            return False
    return n_features is None or X.shape[1] == n_features


def _checked_range(X, name, max_abs):
    """``X`` after refusing a range that overflows and values above ``max_abs``."""
    values = X.data if sp.issparse(X) else X
    if values.size:
        hi, lo = values.max(axis=None), values.min(axis=None)
        if sp.issparse(X):
            hi, lo = max(hi, 0.0), min(lo, 0.0)
        with np.errstate(over="ignore"):
            spread = hi - lo
        if not np.isfinite(spread):
            raise InputError(f"{name} has values so far apart that their range overflows; "
                             "rescale the columns (e.g. standardise them).")
        if max_abs is not None and max(abs(hi), abs(lo)) > max_abs:
            raise InputError(
                f"{name} has values above {max_abs:g} in absolute value (single-precision "
                "trees and squared distances overflow); rescale the columns, e.g. "
                "standardise them.")
    return X


def _finite_squares(y: np.ndarray) -> bool:
    """No NaN or inf in ``y``, and its sum of squares does not overflow (|y| < ~1e150)."""
    return math.isfinite(np.vdot(y, y))  # vdot: no overflow warning, no errstate to enter


def check_target(y, X=None, name: str = "y", *, classifier: bool = False,
                 estimator=None, squares: bool = True, classes=None) -> np.ndarray:
    """Targets: one per row of ``X``; numbers for regression, labels for classification.

    A column vector (n, 1) is raveled with a ``DataConversionWarning`` (scikit-learn's
    convention); more columns are refused. Regression targets must be finite and, with
    ``squares`` (learners whose likelihood or ridge solve uses ``y @ y``), small enough
    that their squares do not overflow. With ``classes`` (labels already accepted, e.g.
    by a classifier's first ``partial_fit``), a 1-D NumPy array of labels all among them
    is valid without scikit-learn's check of the kind of target.
    """
    if y is None:
        who = type(estimator).__name__ if estimator is not None else "This estimator"
        raise InputError(f"{who} requires y to be passed, but the target y is None; give one "
                         "target value per row of X.")
    try:
        # a 1-D array of real numbers: column_or_1d would change nothing
        if not (type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind in "biuf"):
            y = column_or_1d(y, warn=True, input_name=name)
    except (TypeError, ValueError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        if "complex" in first.lower():
            raise InputError(f"{first.rstrip('.')}. Give {name} as real numbers.") from None
        raise InputError(f"{first} Give {name} as one value per row (a 1-D array); fit one "
                         "model per column for several targets.") from None
    if X is not None:
        try:
            if not (hasattr(X, "shape") and X.shape[0] == y.shape[0]):
                check_consistent_length(X, y)
        except ValueError:
            raise InputError(f"{name} has {y.shape[0]} values for {X.shape[0]} rows of points; "
                             "give one target value per row.") from None
    if classifier:
        # labels among those accepted: a set lookup (np.isin costs a learner fed one
        # point per call more than the rest of its checks, and sorts mixed types);
        # unhashable values go on to the full check, which says what is wrong
        try:
            if classes is not None and set(y.tolist()) <= set(np.asarray(classes).tolist()):
                return y
        except TypeError:
            pass
        try:
            check_classification_targets(y)
        except ValueError as err:
            raise InputError(f"{err} Give {name} as class labels (integers or strings), one per "
                             "row; remove rows with missing labels.") from None
        return y
    if y.dtype.kind not in "biuf":
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError):
            shown = ", ".join(repr(v) for v in y[:3])
            raise InputError(f"{name} must hold numbers for regression, got values such as "
                             f"{shown}; encode them as numbers, or use a classifier for "
                             "labels.") from None
    if y.dtype.kind == "c":
        raise InputError(f"{name} holds complex numbers; give real numbers.")
    y = np.asarray(y, dtype=np.float64)
    if not squares and not np.all(np.isfinite(y)):
        raise InputError(f"{name} contains NaN or infinite values; remove those rows.")
    if squares and not _finite_squares(y):
        raise InputError(f"{name} contains NaN or infinite values, or values too large to square "
                         f"(|y| > 1e150); remove those rows or rescale {name}.")
    return y




def check_validation_pair(X_val, y_val, names=("X_val", "y_val")) -> bool:
    """Whether validation data were given: both or neither, else an InputError.

    One without the other used to be dropped without a word (and the best lifetime then
    fell back to the training error).
    """
    given = (X_val is not None, y_val is not None)
    if given[0] != given[1]:
        have, missing = names if given[0] else names[::-1]
        raise InputError(f"{have} was given without {missing}; give both {names[0]} and "
                         f"{names[1]} (the validation points and their targets), or neither.")
    return given[0]


#: Above this noise-to-prior ratio the data move the ridge solution by less than float64
#: rounding (the Gram entries are counts, at most N per cell), and the shifted systems
#: ``G - ratio`` lose every digit: a numerically singular update, not a prior.
MAX_NOISE_RATIO = 1e12
# the largest variance whose square, and whose product with a count, stays finite
_MAX_VARIANCE = 1e100
# the sweep's quadratic forms, y.y / s2n and alpha.alpha ~ y.y / s2n^2, must stay below
# this (a margin of 1e18 for the N- and M-fold sums they enter)
_MAX_QUADRATIC = 1e290


def check_ridge_scale(y, noise_variance: float, prior_variance: float,
                      name: str = "y_train") -> None:
    """Refuse targets and variances whose ridge quantities cannot be finite.

    The log marginal likelihood and residuals of Bayesian ridge regression involve
    ``y.y / s2n``, ``s2n^2 alpha.alpha`` (``alpha ~ y / s2n``) and the shifted Gram
    systems: with y near 1e153, or a noise variance near 1e308, they overflow or turn
    singular. Dividing y by c and both variances by c^2 changes nothing but the units,
    so the message says to do that.
    """
    s2n, s2p = float(noise_variance), float(prior_variance)
    fix = (f"rescale {name} (divide it by its standard deviation c) and divide "
           "noise_variance and prior_variance by c^2")
    if max(s2n, s2p) > _MAX_VARIANCE:
        raise InputError(f"noise_variance {s2n:g} and prior_variance {s2p:g} must be at most "
                         f"{_MAX_VARIANCE:g}; {fix}.")
    if s2n > MAX_NOISE_RATIO * s2p:
        raise InputError(
            f"The noise variance {s2n:g} is over {MAX_NOISE_RATIO:g} times the weight prior "
            f"variance {s2p:g}: the data would not move the posterior above rounding error "
            f"and the ridge system is numerically singular. Use a noise variance of at most "
            f"{MAX_NOISE_RATIO * s2p:g}.")
    y = np.asarray(y, dtype=np.float64)
    peak = float(np.max(np.abs(y))) if y.size else 0.0
    if peak == 0.0:
        return
    # y.y in logs: peak^2 * sum((y/peak)^2) without forming a square that overflows
    log_yy = 2.0 * math.log(peak) + math.log(float(np.sum((y / peak) ** 2)))
    if log_yy - math.log(s2n) - min(math.log(s2n), 0.0) > math.log(_MAX_QUADRATIC):
        raise InputError(f"{name} is too large next to noise_variance {s2n:g} for the ridge "
                         f"sums of squares to be finite; {fix}.")


def check_lifetime_prior(prior, name: str = "prior"):
    """A frozen, continuous ``scipy.stats`` distribution on ``[0, inf)``.

    An unfrozen family (``stats.gamma`` rather than ``stats.gamma(2)``) has no
    parameters: its methods fail deep inside SciPy, or quietly use a standard form.
    """
    from scipy import stats

    if isinstance(prior, stats.rv_continuous):
        raise InputError(f"{name} must be a frozen distribution: give its parameters, e.g. "
                         f"stats.{prior.name}(...) rather than stats.{prior.name}.")
    if not (isinstance(prior, stats.distributions.rv_frozen)
            and isinstance(prior.dist, stats.rv_continuous)):
        raise InputError(f"{name} must be a frozen continuous scipy.stats distribution on "
                         "[0, inf), e.g. scipy.stats.gamma(2, scale=5).")
    if not prior.support()[0] >= 0:
        raise InputError(f"The lifetime {name} must live on [0, inf).")
    return prior


def check_sweep_hooks(block_size, progress, timings) -> None:
    """The sweep's optional hooks: a block size (int >= 1), a progress callable and a
    timings dict, each or None."""
    if block_size is not None:
        check_count(block_size, "block_size", maximum=1_000_000)
    if progress is not None and not callable(progress):
        raise InputError("progress must be a callable taking the fraction done (0..1), or "
                         f"None; got {type(progress).__name__}.")
    if timings is not None and not isinstance(timings, dict):
        raise InputError(f"timings must be a dict (filled with seconds per stage) or None; "
                         f"got {type(timings).__name__}.")


def check_partial_fit_classes(classes, fitted_classes=None) -> np.ndarray:
    """The classes of an online classifier's ``partial_fit``, scikit-learn's way.

    The first call (``fitted_classes`` None) must name every label, at least one; a later
    call may repeat them but not change them (a new label would have no column). Returns
    the sorted distinct classes.
    """
    if classes is None:
        if fitted_classes is None:
            raise InputError("pass classes=... (all labels) to the first partial_fit.")
        return fitted_classes
    given = np.unique(check_target(classes, name="classes", classifier=True))
    if given.size == 0:
        raise InputError("classes is empty; pass every label the model will see, "
                         "e.g. classes=[0, 1].")
    if fitted_classes is not None and not (given.shape == fitted_classes.shape
                                           and np.all(given == fitted_classes)):
        raise InputError(f"classes={given.tolist()[:10]} differs from the classes "
                         f"{fitted_classes.tolist()[:10]} of the first partial_fit; a model "
                         "keeps its first classes: pass the same ones (or none), or fit a "
                         "new one.")
    return given
