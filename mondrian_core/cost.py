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
           "check_sweep_cost", "ONLINE_BUDGET_SECONDS", "online_seconds", "largest_online_points",
           "check_online_cost"]

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


def _largest(seconds, budget: float) -> int:
    """The largest n >= 1 with seconds(n) <= budget (seconds grows with n), or 1."""
    lo, hi = 1, 1
    while seconds(hi) <= budget:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if seconds(mid) <= budget else (lo, mid)
    return lo


def largest_sweep_points(n_trees: int, n_cells: float,
                         budget: float = SWEEP_BUDGET_SECONDS) -> int:
    """The most training points whose sweep fits in ``budget`` seconds (estimated)."""
    return _largest(lambda n: sweep_seconds(n, n_trees, n_cells), budget)


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


#: The longest online run the app starts (seconds, estimated): it shows only a spinner.
ONLINE_BUDGET_SECONDS = 10.0

# online_run on one core (bench/RESULTS.md): per tree and mini-batch, the Mondrian
# tree's partial fit and snapshot plus the two baseline trees refitted on every point
# seen so far (half the training set on average). Fitted at lifetime 6 and scaled by the
# 1.8x measured at the page's largest lifetime (30), so it bounds every lifetime.
_ONLINE_SECONDS_PER_TREE_BATCH = 7.2e-3
_ONLINE_SECONDS_PER_TREE_BATCH_POINT = 5.4e-6


def online_seconds(n_train: int, batch_size: int, n_trees: int) -> float:
    """Estimated seconds of :func:`mondrian_core.experiments.online.online_run`."""
    batches = math.ceil(n_train / batch_size)
    return n_trees * batches * (_ONLINE_SECONDS_PER_TREE_BATCH
                                + _ONLINE_SECONDS_PER_TREE_BATCH_POINT * n_train / 2)


def largest_online_points(batch_size: int, n_trees: int,
                          budget: float = ONLINE_BUDGET_SECONDS) -> int:
    """The most training points whose online run fits in ``budget`` seconds (estimated)."""
    return _largest(lambda n: online_seconds(n, batch_size, n_trees), budget)


def check_online_cost(n_train: int, batch_size: int, n_trees: int, *,
                      train_fraction: float = 1.0,
                      budget: float = ONLINE_BUDGET_SECONDS) -> None:
    """Raise :class:`InputError` if the online run would take longer than ``budget`` s."""
    seconds = online_seconds(n_train, batch_size, n_trees)
    if seconds <= budget:
        return
    fits = largest_online_points(batch_size, n_trees, budget)
    raise InputError(
        f"Streaming {n_train:,} training points in batches of {batch_size} into {n_trees} "
        f"trees would take about {_duration(seconds)} here (the limit is {budget:g} s): use "
        f"at most {math.floor(fits / train_fraction):,} points, larger batches or fewer trees.")
