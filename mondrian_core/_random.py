"""Random-state handling shared by every sampler.

Every sampler in :mod:`mondrian_core` takes ``random_state`` (``None``, an
``int`` or a :class:`numpy.random.Generator`) and draws only from the
generator returned here, never from NumPy's global RNG.
"""
from __future__ import annotations

import numbers

import numpy as np

from mondrian_core.errors import InputError


def check_random_state(random_state) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    ``None`` gives a freshly seeded generator (OS entropy), an integer a
    generator seeded with it, and a ``Generator`` is returned as it is (so the
    caller's stream advances).
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


def spawn(rng: np.random.Generator, n: int) -> list[np.random.Generator]:
    """``n`` independent child generators of ``rng`` (e.g. one stream per tree)."""
    return rng.spawn(n)
