"""The one way a page runs a slow computation: with a progress bar, once per server, within
the time budget.

:func:`cached_with_progress` is all a page needs. A fast computation (under a second or
so) does not need it: a plain ``st.cache_data`` function, named privately on the page
(``_curves``), is enough.

Use, from a new page::

    from explorer_ui.compute import cached_with_progress
    from mondrian_core.cost import check_sweep_cost
    from mondrian_core.experiments.my_experiment import my_curves  # takes progress

    with user_errors():  # an InputError (bad input, over the budget) shows as a message
        curves = cached_with_progress(
            ("my page: curves", n, lifetime, seed),   # what the result depends on
            lambda progress: my_curves(X, lifetime, random_state=seed, progress=progress),
            "Fitting the curves\u2026",               # the bar's text
            check=lambda: check_sweep_cost(n, trees, cells))  # refuses a slow one up front

``compute`` gets a ``progress(fraction, text=None)`` to call as it goes (the experiments'
``progress`` arguments take it as it is). The key names the page and holds every value the
result depends on (numbers, strings, tuples: hashable); the result is shared by all
sessions and must be treated as read-only. Sessions asking for a key being computed wait
for that computation and show its progress; at most two computations run at once (one
per core), the others queue behind their bars.

A computation a page runs only when asked (a button) goes through :func:`requested`
first::

    if requested("Compare kernels", "compare", key):
        rows = cached_with_progress(key, compute, "Fitting GPs\u2026")

A computation too long to hold a page's run (minutes: Figure 8 at scale) passes
``background=True``: it runs in a thread (started by the first visit, kept for the
server's life), the page gets ``None`` and a bar that follows it, and reruns by itself
when it ends. Pair it with :func:`start_in_background` to start or wait for one outside
a page (a test, a prewarm).
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import streamlit as st

from explorer_ui.cache import CACHE_TTL, SharedResults
from explorer_ui.turns import Turns


def _page_runs_at_once() -> int:
    """``MONDRIAN_PAGE_RUNS`` (default 1): page runs at once in this server process."""
    value = os.environ.get("MONDRIAN_PAGE_RUNS", "1")
    if not value.isdigit() or int(value) < 1:
        raise SystemExit(f"MONDRIAN_PAGE_RUNS must be a whole number of at least 1, "
                         f"got {value!r}.")
    return int(value)


#: Page runs take turns, one at a time by default (explorer_ui/turns.py says why): one
#: process runs Python on one core at a time, and a second core is used by a second
#: replica (deploy/), not by a second script thread.
TURNS = Turns(_page_runs_at_once())

#: Heavy computations running at once in the server, one per core; the others queue.
SLOTS = threading.BoundedSemaphore(2)

# The slow results of every session of the server. Sizes measured (bench/RESULTS.md): the
# default sweep holds ~7 MB, the largest a sweep may store is MAX_STORED numbers (~320 MB);
# the other pages' results (error curves, GP comparisons) are a few kB.
RESULTS = SharedResults(max_entries=16, max_bytes=400 * 2**20, ttl=CACHE_TTL, slots=SLOTS)
#: Small results (a few kB: Monte Carlo summaries) that clicks make many of, such as the
#: inference page's *Repeat*: kept apart, so that they never push a sweep out of RESULTS.
SMALL_RESULTS = SharedResults(max_entries=256, max_bytes=64 * 2**20, ttl=CACHE_TTL,
                              slots=SLOTS)

Progress = Callable[..., None]

#: The least time between two updates of a progress bar, in seconds: each update is a
#: message to the browser (a sweep reports hundreds of times), and five a second look
#: as smooth as a hundred.
BAR_INTERVAL = 0.2


class BarUpdates:
    """Which of a computation's reports a progress bar shows: one that changes its whole
    percent or its text, once :data:`BAR_INTERVAL` has passed since the bar last changed.

    Texts count too (experiments report "Data set 12 of 40" at every step); a report
    that changes nothing would send the browser nothing it can see.

    Parameters
    ----------
    text : str
        The bar's text as it starts (at 0%).
    clock : callable, default=time.monotonic
        The time, in seconds.
    """

    def __init__(self, text: str, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.shown = (0, text)
        self.at = clock()

    def due(self, fraction: float, text: str) -> bool:
        """Whether the bar should now show ``fraction`` (in [0, 1]) and ``text``."""
        now = (round(100 * fraction), text)
        if now == self.shown:
            return False
        t = self.clock()
        if t - self.at < BAR_INTERVAL:
            return False
        self.shown, self.at = now, t
        return True


def _reporting(compute: Callable[[Progress], object], label: list[str]):
    """``compute`` for :meth:`SharedResults.get`, whose reports carry a fraction only: the
    text an experiment reports with it goes to ``label`` (this session's bar)."""
    def run(report: Callable[[float], None]):
        def progress(fraction: float, text: str | None = None) -> None:
            if text:
                label[0] = text
            report(fraction)
        return compute(progress)
    return run


def cached_with_progress(key: Hashable, compute: Callable[[Progress], object], text: str, *,
                         check: Callable[[], None] | None = None, background: bool = False,
                         store: SharedResults = RESULTS):
    """``compute(progress)`` once per ``key`` for the whole server, with a progress bar.

    Parameters
    ----------
    key : hashable
        What the result depends on, starting with the page's name.
    compute : callable
        ``compute(progress)`` returns the result; ``progress(fraction, text=None)`` reports.
    text : str
        The progress bar's text.
    check : callable, optional
        Called first; raises :class:`~mondrian_core.errors.InputError` (saying what to
        change) if the computation would take longer than the page's time budget.
    background : bool, default=False
        Run in a background thread and return ``None`` until the result is there (the
        page shows a bar meanwhile and reruns when it ends). A failed computation raises
        its error once, and the next visit tries again.
    store : SharedResults, default=RESULTS
        Where the results are kept (not used with ``background``).

    Returns
    -------
    object
        The result, shared by every session: read it, never change it.
    """
    if check is not None:
        check()
    if background:
        return _in_background(key, compute, text)
    label = [text]
    bar = st.progress(0.0, text=text)
    updates = BarUpdates(text)

    def show(fraction: float) -> None:
        fraction = min(float(fraction), 1.0)
        if updates.due(fraction, label[0]):
            bar.progress(fraction, text=f"{label[0]} {fraction:.0%}")

    try:
        return store.get(key, _reporting(compute, label), progress=show)
    finally:
        bar.empty()


@contextmanager
def taking_turns() -> Iterator[None]:
    """Run the page when it is this session's turn (:data:`TURNS`); while it waits in
    line, the page shows how many are ahead and for how long it has waited."""
    note = None

    def waiting(ahead: int, seconds: float) -> None:
        nonlocal note
        if note is None:
            note = st.empty()
        # a note every second also lets Streamlit stop or rerun a waiting session (a
        # student who left or moved a slider) instead of running a page nobody wants
        note.info(f"The server is computing other visitors' pages: {ahead} ahead "
                  f"of yours in line (waited {seconds:.0f} s). Yours starts when they "
                  "are done.", icon=":material/hourglass_top:")

    TURNS.acquire(on_wait=waiting)
    try:
        if note is not None:
            note.empty()
        yield
    finally:
        TURNS.release()


_REQUESTED = "_compute_requested"


def requested(label: str, button_key: str, key: Hashable) -> bool:
    """A button for a computation run only when asked for: ``True`` once this session
    pressed it for ``key`` (and on its later runs), so that the page then shows
    :func:`cached_with_progress`'s result for ``key``."""
    asked = st.session_state.setdefault(_REQUESTED, set())
    if st.button(label, key=button_key):
        asked.add(key)
    return key in asked


@dataclass
class BackgroundJob:
    """A computation running in a background thread: its progress and its outcome."""

    fraction: float = 0.0
    result: object = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


_JOBS: dict = {}
_JOBS_LOCK = threading.Lock()


def start_in_background(key: Hashable, compute: Callable[[Progress], object],
                        slots: threading.Semaphore | None = SLOTS) -> BackgroundJob:
    """The job computing ``compute(progress)`` for ``key``: started on the first call
    (for the whole server), the same job on later calls (a new one after a failure).

    The job holds one of ``slots`` while it computes, as the sessions' own computations
    do, so it queues behind them instead of taking a core beyond the server's limit. Its
    small, read-only result is kept for the server's life. ``job.done.wait(seconds)``
    waits for it."""
    with _JOBS_LOCK:
        job = _JOBS.get(key)
        # a job that failed is tried again by the next visit (its page showed the error)
        if job is not None and not (job.done.is_set() and job.error is not None):
            return job
        job = _JOBS[key] = BackgroundJob()

    def progress(fraction: float, text: str | None = None) -> None:
        job.fraction = min(float(fraction), 1.0)

    def run():
        if slots is not None:
            slots.acquire()
        try:
            job.result = compute(progress)
        except BaseException as err:  # noqa: BLE001 - shown on the page, never raised there
            job.error = err
        finally:
            if slots is not None:
                slots.release()
            job.done.set()

    threading.Thread(target=run, name=f"background {key!r}"[:60], daemon=True).start()
    return job


def _in_background(key, compute, text):
    job = start_in_background(key, compute)
    if job.done.is_set():
        if job.error is not None:
            raise job.error
        return job.result

    @st.fragment(run_every=1.0)
    def _poll():
        if job.done.is_set():
            st.rerun(scope="app")
        st.progress(job.fraction, text=f"{text} {job.fraction:.0%}")

    _poll()
    return None
