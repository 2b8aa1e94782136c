"""Widgets of the "Lifetime sweep" page only (the shared ones are in explorer_ui/sweep.py):
the sidebar in the app's order (data, model, lifetime, seed last), the lifetime picker
and the Figure 8 table. Widgets, layout and text only."""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from explorer_ui.sweep import SWEEPS
from explorer_ui.widgets import url_choice, url_positive_float
from mondrian_core.experiments.width_search import figure8_at_scale

#: Mantissas of the lifetimes the picker offers: about ten per decade, each short to read.
_MANTISSAS = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8)


def nice_lifetimes(lo: float, hi: float) -> list[str]:
    """Short labels of lifetimes from ``lo`` to ``hi`` (about ten per decade), as strings.

    ``hi`` itself closes the list, so the terminal lifetime can be picked."""
    out = []
    for exp in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in _MANTISSAS:
            v = float(f"{m * 10.0 ** exp:.3g}")
            if lo <= v < hi * (1 - 1e-9):
                out.append(f"{v:g}")
    out.append(f"{float(f'{hi:.3g}'):g}")
    return list(dict.fromkeys(out))


def _nearest(labels: list[str], value: float) -> str:
    logs = np.log([float(s) for s in labels])
    return labels[int(np.argmin(np.abs(logs - np.log(value))))]


def lifetime_picker(container, path) -> float:
    """The lifetime $\\lambda$ the page's views show: a slider over short values from
    just before the first cut to the terminal lifetime, starting at the best validation
    lifetime. Kept in the URL as ``lifetime``; a link's value is snapped to the nearest
    offered one."""
    first = float(path.lifetimes[1]) if path.lifetimes.size > 1 else path.terminal_lifetime / 10
    labels = nice_lifetimes(first / 2, path.terminal_lifetime)
    default = _nearest(labels, max(path.best_lifetime, first / 2))
    state = st.session_state
    if "lifetime" not in state and "lifetime" in st.query_params:
        wanted = url_positive_float("lifetime")  # a notice if it is not a positive number
        state["lifetime"] = default if wanted is None else _nearest(labels, wanted)
    if "lifetime" in state and state["lifetime"] not in labels:
        # another data set or terminal lifetime: keep the nearest lifetime offered
        try:
            state["lifetime"] = _nearest(labels, float(state["lifetime"]))
        except (TypeError, ValueError):
            state["lifetime"] = default
    value = url_choice("Lifetime $\\lambda$ (inverse kernel width)", "lifetime", labels,
                       default=default, widget="select_slider", container=container,
                       help="Any lifetime up to the terminal one: the stored path answers "
                            "without refitting. Starts at the best validation lifetime.")
    return float(value)


def figure8_rows(result) -> list[dict]:
    """The Figure 8 table: per method, the time and fits it took and its best error."""
    traces = result.traces
    target = float(traces[0].val_rmse[traces[0].best_index])
    rows = []
    for tr in traces:
        best = tr.best_index
        fits = tr.fits_to_reach(target)
        rows.append({
            "method": tr.method,
            "best val. RMSE": f"{tr.val_rmse[best]:.3f}",
            "at λ": f"{tr.lifetimes[best]:.3g}",
            "time to its best (s)": f"{tr.seconds[best]:.1f}",
            "total time (s)": f"{tr.seconds[-1]:.1f}",
            "fits to reach the sweep's best": ("1 pass" if tr is traces[0] else
                                               "not reached" if not np.isfinite(fits)
                                               else f"{fits:.0f}"),
            "time to reach it (s)": ("not reached" if not np.isfinite(fits)
                                     else f"{tr.time_to_reach(target):.1f}")})
    return rows


# ---------------------------------------------------------------- Figure 8 at scale
# It takes from half a minute to two on the shared server, too long to hold a page's
# run: it runs in one background thread per server (the first visit starts it) while
# the page polls its progress; the result is small and read-only, kept for the server's
# life.


@dataclass
class BackgroundJob:
    """A computation running in a background thread: its progress and its outcome."""

    fraction: float = 0.0
    result: object = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


_JOBS: dict = {}
_JOBS_LOCK = threading.Lock()


def background_job(key, compute, slots: threading.Semaphore | None = None) -> BackgroundJob:
    """The job computing ``compute(progress)`` for ``key``: started on the first call
    (for the whole server), the same job on later calls (a new one after a failure).
    With ``slots``, the job holds one while it computes, as the sessions' own heavy
    computations do (:data:`explorer_ui.sweep.SWEEPS`), so it queues behind them
    instead of taking a core beyond the server's limit."""
    with _JOBS_LOCK:
        job = _JOBS.get(key)
        # a job that failed is tried again by the next visit (its page showed the error)
        if job is not None and not (job.done.is_set() and job.error is not None):
            return job
        job = _JOBS[key] = BackgroundJob()

    def run():
        if slots is not None:
            slots.acquire()
        try:
            job.result = compute(lambda f: setattr(job, "fraction", min(float(f), 1.0)))
        except BaseException as err:  # noqa: BLE001 - shown on the page, never raised there
            job.error = err
        finally:
            if slots is not None:
                slots.release()
            job.done.set()

    threading.Thread(target=run, name="figure8-at-scale", daemon=True).start()
    return job


def figure8_job(config: dict) -> BackgroundJob:
    """The server's Figure 8 at scale for ``config`` (keyword arguments of
    :func:`~mondrian_core.experiments.width_search.figure8_at_scale`), started if needed."""
    return background_job(("figure8 at scale", tuple(sorted(config.items()))),
                          lambda progress: figure8_at_scale(**config, progress=progress),
                          slots=SWEEPS.slots)


def poll_job(job: BackgroundJob, text: str) -> None:
    """While ``job`` runs: a progress bar refreshed every second; when it ends, one
    rerun of the page, which then shows the result (and polls no more)."""

    @st.fragment(run_every=1.0)
    def _poll():
        if job.done.is_set():
            st.rerun(scope="app")
        st.progress(job.fraction, text=f"{text} {job.fraction:.0%}")

    _poll()
