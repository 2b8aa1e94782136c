"""What a computation will cost, estimated before it starts, and the largest one allowed.

An app serving a class refuses up front what would hold a session for minutes, and says
the largest value that fits. The estimates are fitted to measurements of the current
algorithms on one core (one BLAS thread, as the app runs them); when an algorithm gets
faster, its constants here are the one place to change.
"""
from __future__ import annotations

import math

import numpy as np

from mondrian_core.errors import InputError

__all__ = ["SWEEP_BUDGET_SECONDS", "sweep_seconds", "sweep_events", "largest_sweep_points",
           "largest_sweep_trees", "largest_sweep_cells", "check_sweep_cost",
           "MIN_SWEEP_POINTS", "LIBRARY_SWEEP_BUDGET_SECONDS", "check_path_cost",
           "ONLINE_BUDGET_SECONDS", "online_seconds", "largest_online_points",
           "check_online_cost", "CSV_BUDGET_SECONDS", "csv_seconds", "check_csv_cost"]

#: The longest sweep the app starts (seconds, estimated). It shows a progress bar and
#: can be stopped; beyond this the wait would be minutes.
SWEEP_BUDGET_SECONDS = 30.0

# lifetime_path on one core. The ridge system is solved in the space of the C alive cells
# while C < N (C = M + k after k events: work per event about proportional to C) and in
# the N x N dual space after (N^3 factorisations, one per block of events, plus O(N) per
# event), plus O(N) per tree to sample the trees and count points. Fitted as an upper
# envelope of the cell-space sweep's CPU time on the shared 2-core machine
# (bench/RESULTS.md, "Serving a class"): 1.1-2x the time measured for N = 2,000-50,000,
# M = 50-200, 60-200 cells per tree.
_SECONDS_PER_CELL_EVENT = 7.5e-7
_SECONDS_PER_CUBED_POINT = 3.8e-10
_SECONDS_PER_POINT_EVENT = 9.0e-7
_SECONDS_PER_POINT_TREE = 2.0e-6
# Every event also does work proportional to the number of alive cells (C = M + k after
# k events), negligible at M <= 200 but not with many trees and few points: measured CPU
# time at N = 300 training points, M = 1,000 trees (one BLAS thread, quiet machine,
# 2026-11-25, validation on 100 points): 11.1 s at 30 cells per tree and 19.1 s at 60,
# where the three terms above give 8.4 s and 16.5 s; this term covers the gap at 30 cells
# (11.1 s) and gives 27.3 s at 60, an upper envelope.
_SECONDS_PER_ALIVE_CELL_EVENT = 6.0e-9


def sweep_events(n_trees: int, n_cells: float) -> float:
    """Return the expected cut events of ``n_trees`` Mondrians grown to ``n_cells`` cells each.

    Parameters
    ----------
    n_trees : int
        Number of Mondrian trees.
    n_cells : float
        Expected cells per tree at the terminal lifetime.

    Returns
    -------
    float
        Expected number of cut events (each cut adds one cell).
    """
    return n_trees * max(n_cells - 1.0, 0.0)


def _sweep_seconds(n, n_trees: int, n_cells: float):
    """The estimate for training sizes ``n`` (array), before taking its running maximum."""
    n = np.asarray(n, dtype=float)
    events = sweep_events(n_trees, n_cells)
    cells = n_trees * max(float(n_cells), 1.0)
    in_cells = np.minimum(events, np.maximum(n - n_trees, 0.0))  # while fewer cells than N
    dual = events - in_cells
    mean_alive = n_trees + events / 2.0  # alive cells, averaged over the events
    return (_SECONDS_PER_CELL_EVENT * np.minimum(cells, n) * in_cells
            + _SECONDS_PER_ALIVE_CELL_EVENT * mean_alive * events
            + _SECONDS_PER_POINT_TREE * n * n_trees
            + np.where(dual > 0, _SECONDS_PER_CUBED_POINT * n**3 * dual / max(events, 1.0)
                       + _SECONDS_PER_POINT_EVENT * n * dual, 0.0))


def sweep_seconds(n_train: int, n_trees: int, n_cells: float) -> float:
    """Return the estimated seconds of :func:`mondrian_core.lifetime_path` on one core.

    The estimate never decreases with ``n_train``: near the number of cells the sweep
    spends less time in the dual space than just below it, but a budget must not refuse
    a smaller data set while a larger one passes.

    Parameters
    ----------
    n_train : int
        Training points.
    n_trees : int
        Number of Mondrian trees.
    n_cells : float
        Expected cells per tree at the terminal lifetime.

    Returns
    -------
    float
        Estimated seconds (one BLAS thread).
    """
    n = float(n_train)
    # the dual phase's N^3 dies out as N reaches the number of cells, and past the number
    # of cells the estimate grows again: its running maximum is the largest value at any
    # size up to min(n, cells) (every integer, or a fine grid for huge cell counts) or n
    upto = min(n, n_trees * max(float(n_cells), 1.0))
    sizes = (np.arange(1.0, math.floor(upto) + 1.0) if upto <= 1e6
             else np.geomspace(1.0, upto, 100_000))
    return float(max(_sweep_seconds(n, n_trees, n_cells),
                     _sweep_seconds(sizes, n_trees, n_cells).max()))


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
    """Return the most training points whose sweep fits in ``budget`` seconds (estimated).

    Parameters
    ----------
    n_trees : int
        Number of Mondrian trees.
    n_cells : float
        Expected cells per tree at the terminal lifetime.
    budget : float, default=SWEEP_BUDGET_SECONDS
        The time allowed, in seconds.

    Returns
    -------
    int
        The largest number of training points (at least 1).
    """
    return _largest(lambda n: sweep_seconds(n, n_trees, n_cells), budget)


def largest_sweep_trees(n_train: int, n_cells: float,
                        budget: float = SWEEP_BUDGET_SECONDS) -> int:
    """Return the most trees whose sweep on ``n_train`` points fits in ``budget`` seconds.

    Parameters
    ----------
    n_train : int
        Training points.
    n_cells : float
        Expected cells per tree at the terminal lifetime.
    budget : float, default=SWEEP_BUDGET_SECONDS
        The time allowed, in seconds.

    Returns
    -------
    int
        The largest number of trees (1 when even one tree does not fit).
    """
    return _largest(lambda m: sweep_seconds(n_train, m, n_cells), budget)


def largest_sweep_cells(n_train: int, n_trees: int,
                        budget: float = SWEEP_BUDGET_SECONDS) -> int:
    """Return the most cells per tree whose sweep fits in ``budget`` seconds.

    Parameters
    ----------
    n_train : int
        Training points.
    n_trees : int
        Number of Mondrian trees.
    budget : float, default=SWEEP_BUDGET_SECONDS
        The time allowed, in seconds.

    Returns
    -------
    int
        The largest expected number of cells per tree (1 when even one does not fit).
    """
    return _largest(lambda c: sweep_seconds(n_train, n_trees, c), budget)


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def check_sweep_cost(n_train: int, n_trees: int, n_cells: float, *, train_fraction: float = 1.0,
                     budget: float = SWEEP_BUDGET_SECONDS) -> None:
    """Raise :class:`InputError` if the sweep would take longer than ``budget`` seconds.

    Parameters
    ----------
    n_train : int
        Training points.
    n_trees : int
        Number of Mondrian trees.
    n_cells : float
        Expected cells per tree at the terminal lifetime.
    train_fraction : float, default=1.0
        The share of the data set that is trained on, so that the message can name the
        largest data set size that fits.
    budget : float, default=SWEEP_BUDGET_SECONDS
        The time allowed, in seconds.

    Raises
    ------
    InputError
        If the estimate exceeds ``budget``; the message names the most points that fit.
    """
    seconds = sweep_seconds(n_train, n_trees, n_cells)
    if seconds <= budget:
        return
    fits = largest_sweep_points(n_trees, n_cells, budget)
    total = math.floor(fits / train_fraction)
    said = (f"A sweep on {n_train:,} training points with {n_trees:,} trees of about "
            f"{n_cells:g} cells would take about {_duration(seconds)} here (the limit is "
            f"{budget:g} s): ")
    if fits >= MIN_SWEEP_POINTS:
        raise InputError(said + f"use at most {total:,} points" + (
            f" ({fits:,} training points)" if train_fraction != 1 else "")
            + ", or fewer trees or cells per tree.")
    # no data set a sweep can use fits with this many trees and cells: name those that do
    trees = largest_sweep_trees(n_train, n_cells, budget)
    if sweep_seconds(n_train, trees, n_cells) <= budget:
        raise InputError(said + f"use at most {trees:,} trees at these settings, or fewer "
                         "cells per tree.")
    cells = largest_sweep_cells(n_train, 1, budget)
    raise InputError(said + f"use one tree of at most {cells:,} cells, or fewer points.")


#: The fewest training points a sweep can use (lifetime_path needs 2).
MIN_SWEEP_POINTS = 2

#: The longest sweep :func:`mondrian_core.lifetime_path` starts on its own (seconds,
#: estimated): ten times the app's budget, for scripts (bench/'s largest sweep is
#: estimated at 24 s); 100,000 trees on 40 points (8 min estimated, 5 min measured, no
#: progress while the trees are drawn) is refused. A script that means to wait longer
#: raises this module attribute.
LIBRARY_SWEEP_BUDGET_SECONDS = 300.0


def check_path_cost(n_points: int, n_trees: int, cells_per_tree: float, *,
                    budget: float | None = None) -> None:
    """Raise :class:`InputError` if ``lifetime_path`` on these inputs would run too long.

    Parameters
    ----------
    n_points : int
        The number of training points.
    n_trees : int
        The number of Mondrian trees.
    cells_per_tree : float
        The expected cells of one tree at the terminal lifetime on the training points'
        box (``mondrian_core.process.expected_cells``; the caller computes it, so this
        module stays below the samplers). A Mondrian restricted to the points stops
        cutting cells with one point, so at most ``n_points`` count.
    budget : float, optional
        The time allowed, in seconds (default: :data:`LIBRARY_SWEEP_BUDGET_SECONDS`,
        read when called).

    Raises
    ------
    InputError
        If the estimate exceeds ``budget``; the message names a size that fits.
    """
    budget = LIBRARY_SWEEP_BUDGET_SECONDS if budget is None else budget
    cells = (min(float(cells_per_tree), float(n_points)) if math.isfinite(cells_per_tree)
             else float(n_points))
    check_sweep_cost(n_points, n_trees, cells, budget=budget)


#: The longest online run the app starts (seconds, estimated): it shows only a spinner.
ONLINE_BUDGET_SECONDS = 10.0

# online_run on one core (bench/RESULTS.md): per tree and mini-batch, the Mondrian
# tree's partial fit and snapshot plus the two baseline trees refitted on every point
# seen so far (half the training set on average). Fitted at lifetime 6 and scaled by the
# 1.8x measured at the page's largest lifetime (30), so it bounds every lifetime.
_ONLINE_SECONDS_PER_TREE_BATCH = 7.2e-3
_ONLINE_SECONDS_PER_TREE_BATCH_POINT = 5.4e-6


def online_seconds(n_train: int, batch_size: int, n_trees: int) -> float:
    """Return the estimated seconds of :func:`mondrian_core.experiments.online.online_run`.

    Parameters
    ----------
    n_train : int
        Training points streamed.
    batch_size : int
        Points per mini-batch.
    n_trees : int
        Number of trees.

    Returns
    -------
    float
        Estimated seconds on one core.
    """
    batches = math.ceil(n_train / batch_size)
    return n_trees * batches * (_ONLINE_SECONDS_PER_TREE_BATCH
                                + _ONLINE_SECONDS_PER_TREE_BATCH_POINT * n_train / 2)


def largest_online_points(batch_size: int, n_trees: int,
                          budget: float = ONLINE_BUDGET_SECONDS) -> int:
    """Return the most training points whose online run fits in ``budget`` seconds.

    Parameters
    ----------
    batch_size : int
        Points per mini-batch.
    n_trees : int
        Number of trees.
    budget : float, default=ONLINE_BUDGET_SECONDS
        The time allowed, in seconds (estimated).

    Returns
    -------
    int
        The largest number of training points (at least 1).
    """
    return _largest(lambda n: online_seconds(n, batch_size, n_trees), budget)


#: The most mini-batches an online run takes: each one retrains the page's baselines,
#: and a chart with more steps than this cannot be read.
MAX_ONLINE_BATCHES = 100


def check_online_cost(n_train: int, batch_size: int, n_trees: int, *,
                      train_fraction: float = 1.0,
                      budget: float = ONLINE_BUDGET_SECONDS) -> None:
    """Refuse an online run with too many batches or too long a run.

    Raises :class:`InputError` if the run would take more than
    :data:`MAX_ONLINE_BATCHES` batches or longer than ``budget`` s.

    Parameters
    ----------
    n_train : int
        Training points streamed.
    batch_size : int
        Points per mini-batch.
    n_trees : int
        Number of trees.
    train_fraction : float, default=1.0
        The share of the data set that is trained on (for the message).
    budget : float, default=ONLINE_BUDGET_SECONDS
        The time allowed, in seconds.

    Raises
    ------
    InputError
        If there are too many batches (the message names the smallest batch size that
        fits) or the estimate exceeds ``budget`` (it names the most points that fit).
    """
    if n_train > MAX_ONLINE_BATCHES * batch_size:
        raise InputError(
            f"{n_train} training points in batches of {batch_size} make more than "
            f"{MAX_ONLINE_BATCHES} batches (each retrains two forests): raise the batch "
            f"size to at least {-(-n_train // MAX_ONLINE_BATCHES)} or use fewer points.")
    seconds = online_seconds(n_train, batch_size, n_trees)
    if seconds <= budget:
        return
    fits = largest_online_points(batch_size, n_trees, budget)
    raise InputError(
        f"Streaming {n_train:,} training points in batches of {batch_size} into {n_trees} "
        f"trees would take about {_duration(seconds)} here (the limit is {budget:g} s): use "
        f"at most {math.floor(fits / train_fraction):,} points, larger batches or fewer trees.")


#: The longest CSV parse the app starts (seconds, estimated): it shows only a spinner.
CSV_BUDGET_SECONDS = 10.0

# read_csv_table on one core: pandas' C parser plus the per-column dtype checks, linear in
# the cells and in the columns. Fitted as an upper envelope of CPU times measured on the
# shared 2-core machine (bench/RESULTS.md, "Hostile inputs"): 200,000 x 10, 20,000 x 100
# and 2,000 x 1,000 cells of random numbers.
_CSV_SECONDS_PER_CELL = 3.0e-7
_CSV_SECONDS_PER_COLUMN = 1.0e-4


def csv_seconds(n_rows: int, n_columns: int) -> float:
    """Return the estimated seconds to parse and type-check a CSV of this shape.

    Parameters
    ----------
    n_rows : int
        Data rows (an upper bound will do: e.g. the line count).
    n_columns : int
        Columns in the header.

    Returns
    -------
    float
        Estimated seconds on one core.
    """
    return (_CSV_SECONDS_PER_CELL * float(n_rows) * float(n_columns)
            + _CSV_SECONDS_PER_COLUMN * float(n_columns))


def check_csv_cost(n_rows: int, n_columns: int, *, min_rows: int = 10,
                   budget: float = CSV_BUDGET_SECONDS) -> None:
    """Raise :class:`InputError` if parsing the CSV would take longer than ``budget`` s.

    Parameters
    ----------
    n_rows : int
        Data rows (an upper bound will do).
    n_columns : int
        Columns in the header.
    min_rows : int, default=10
        The fewest rows a data set needs: a row count below it is not offered as advice.
    budget : float, default=CSV_BUDGET_SECONDS
        The time allowed, in seconds.

    Raises
    ------
    InputError
        If the estimate exceeds ``budget``; the message names shapes that fit: the most
        columns at this many rows, and the most rows at this many columns when that is
        at least ``min_rows``.
    """
    seconds = csv_seconds(n_rows, n_columns)
    if seconds <= budget:
        return
    rows = _largest(lambda n: csv_seconds(n, n_columns), budget)
    columns = _largest(lambda n: csv_seconds(max(n_rows, min_rows), n), budget)
    advice = f"upload at most {columns:,} columns at this many rows"
    if rows >= min_rows:
        advice = f"upload at most {rows:,} rows at this many columns, or " + advice[7:]
    raise InputError(
        f"Reading {n_rows:,} rows of {n_columns:,} columns would take about "
        f"{_duration(seconds)} here (the limit is {budget:g} s): {advice}.")
