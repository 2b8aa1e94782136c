"""The one validation layer: every public entry point checks its arguments here.

Each function turns a user's value into the type the algorithms need or raises
:class:`~mondrian_core.errors.InputError` with a message that says what to change.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from mondrian_core.errors import InputError

__all__ = ["as_box", "as_count", "as_lifetime", "check_points", "check_random_state",
           "finite_squares", "round_down", "check_sample_count", "check_nonnegative",
           "check_strict_box"]


def check_random_state(random_state) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    ``None`` gives a freshly seeded generator (OS entropy), an integer a
    generator seeded with it, and a ``Generator`` is returned as it is (so the
    caller's stream advances).

    Parameters
    ----------
    random_state : int, numpy.random.Generator or None
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
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise InputError(f"random_state must be a non-negative integer, got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise InputError(
        "random_state must be None, a non-negative int or a numpy.random.Generator, "
        f"got {type(random_state).__name__}."
    )


def as_box(lower, upper, name: str = "box") -> tuple[np.ndarray, np.ndarray]:
    try:
        lo = np.asarray(lower, dtype=float).reshape(-1)
        hi = np.asarray(upper, dtype=float).reshape(-1)
    except (TypeError, ValueError) as err:
        raise InputError(f"The {name}'s corners must be numbers ({err}).") from None
    if lo.size == 0 or lo.shape != hi.shape:
        raise InputError(
            f"The {name}'s lower and upper corners must be non-empty and of the same "
            f"length (got {lo.size} and {hi.size})."
        )
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise InputError(f"The {name}'s corners must be finite numbers.")
    if np.any(hi < lo):
        d = int(np.argmax(hi < lo))
        raise InputError(
            f"The {name}'s upper corner must not be below its lower corner "
            f"(dimension {d}: {lo[d]:g} > {hi[d]:g})."
        )
    return lo, hi


def as_lifetime(lifetime) -> float:
    try:
        value = float(lifetime)
    except (TypeError, ValueError):
        raise InputError(f"The lifetime must be a number, got {lifetime!r}.") from None
    if not math.isfinite(value) or value < 0:
        raise InputError(f"The lifetime must be a finite number >= 0, got {lifetime!r}.")
    return value


def as_count(value, name: str) -> int:
    """A whole number >= 1 (a count of trees, samples, ...), else an InputError."""
    try:
        ok = not isinstance(value, bool) and int(value) == value and int(value) >= 1
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise InputError(f"{name} must be a whole number >= 1, got {value!r}.")
    return int(value)


def round_down(value: float, digits: int = 3) -> float:
    if value <= 0 or not math.isfinite(value):
        return value
    unit = 10.0 ** (math.floor(math.log10(value)) - digits + 1)
    return math.floor(value / unit) * unit


def check_points(X, name="X") -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise InputError(f"{name} must be a 2-D array (n_points, n_features); got shape {X.shape}.")
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise InputError(f"{name} needs at least one point and one feature; got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise InputError(f"{name} contains NaN or infinite values; remove or impute them.")
    with np.errstate(over="ignore"):
        spread = X.max(0) - X.min(0)
    if not np.all(np.isfinite(spread)):
        raise InputError(f"{name} has values so far apart that their range overflows; rescale "
                         "the columns (e.g. standardise them).")
    return X


def finite_squares(y: np.ndarray) -> bool:
    """No NaN or inf in ``y``, and its sum of squares does not overflow (|y| < ~1e150)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(y @ y))









def check_sample_count(n, what="n", minimum=1, maximum=1_000_000) -> int:
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


def check_nonnegative(value, what) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a number >= 0, got {value!r}.") from None
    if not np.isfinite(value) or value < 0:
        raise InputError(f"{what} must be a finite number >= 0, got {value}.")
    return value


def check_strict_box(lower, upper, n_dims=None) -> tuple[np.ndarray, np.ndarray]:
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


