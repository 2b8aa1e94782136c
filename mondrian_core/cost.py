"""What a computation will cost, estimated before it starts, and the largest one allowed.

An app serving a class refuses up front what would hold a session for minutes, and says
the largest value that fits. The estimates are fitted to measurements of the current
algorithms on one core (one BLAS thread, as the app runs them); when an algorithm gets
faster, its constants here are the one place to change.
"""
from __future__ import annotations

import math

from mondrian_core.errors import InputError

__all__ = ["SWEEP_BUDGET_SECONDS", "sweep_seconds", "sweep_events", "largest_sweep_points",
           "check_sweep_cost"]

#: The longest sweep the app starts (seconds, estimated). It shows a progress bar and
#: can be stopped; beyond this the wait would be minutes.
SWEEP_BUDGET_SECONDS = 30.0

# lifetime_path on one core (bench/RESULTS.md, "Serving a class"): a few Cholesky
# factorisations of the N x N dual matrix, plus O(N) work per cut event (the path's
# stored columns and the validation points).
_SECONDS_PER_CUBED_POINT = 3.8e-10
_SECONDS_PER_POINT_EVENT = 7.0e-7


def sweep_events(n_trees: int, n_cells: float) -> float:
    """Expected cut events of ``n_trees`` Mondrians grown to ``n_cells`` cells each."""
    return n_trees * max(n_cells - 1.0, 0.0)


def sweep_seconds(n_train: int, n_trees: int, n_cells: float) -> float:
    """Estimated seconds of :func:`mondrian_core.lifetime_path` on ``n_train`` points,
    ``n_trees`` trees grown to ``n_cells`` expected cells."""
    events = sweep_events(n_trees, n_cells)
    return (_SECONDS_PER_CUBED_POINT * float(n_train) ** 3
            + _SECONDS_PER_POINT_EVENT * n_train * events)


def largest_sweep_points(n_trees: int, n_cells: float,
                         budget: float = SWEEP_BUDGET_SECONDS) -> int:
    """The most training points whose sweep fits in ``budget`` seconds (estimated)."""
    lo, hi = 1, 1
    while sweep_seconds(hi, n_trees, n_cells) <= budget:
        lo, hi = hi, hi * 2
    while hi - lo > 1:  # sweep_seconds grows with the number of points
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if sweep_seconds(mid, n_trees, n_cells) <= budget else (lo, mid)
    return lo


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def check_sweep_cost(n_train: int, n_trees: int, n_cells: float, *, train_fraction: float = 1.0,
                     budget: float = SWEEP_BUDGET_SECONDS) -> None:
    """Raise :class:`InputError` if the sweep would take longer than ``budget`` seconds.

    ``train_fraction`` is the share of the data set that is trained on, so that the
    message can name the largest data set size that fits.
    """
    seconds = sweep_seconds(n_train, n_trees, n_cells)
    if seconds <= budget:
        return
    fits = largest_sweep_points(n_trees, n_cells, budget)
    total = math.floor(fits / train_fraction)
    raise InputError(
        f"A sweep on {n_train:,} training points with {n_trees} trees of about {n_cells:g} "
        f"cells would take about {_duration(seconds)} here (the limit is {budget:g} s): "
        f"use at most {total:,} points" + (f" ({fits:,} training points)" if train_fraction != 1
                                           else "")
        + ", or fewer trees or cells per tree.")
