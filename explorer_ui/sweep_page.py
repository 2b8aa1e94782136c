"""Widgets of the "Lifetime sweep" page only (the shared ones are in explorer_ui/sweep.py):
the sidebar in the app's order (data, model, lifetime, seed last), the lifetime picker
and the Figure 8 table. Widgets, layout and text only."""
from __future__ import annotations

import numpy as np

from explorer_ui.compute import cached_with_progress
from explorer_ui.lifetimes import lifetime_picker, sweep_lifetimes
from mondrian_core.experiments.width_search import figure8_at_scale


def sweep_lifetime_picker(container, path) -> float:
    """The lifetime $\\lambda$ the page's views show: a slider over short values from
    just before the first cut to the terminal lifetime, starting at the best validation
    lifetime (:func:`explorer_ui.lifetimes.lifetime_picker`, kept in the URL as
    ``lifetime``)."""
    return lifetime_picker("Lifetime $\\lambda$ (inverse kernel width)", "lifetime",
                   *sweep_lifetimes(path), container=container,
                   help="Any lifetime up to the terminal one: the stored path answers "
                        "without refitting. Starts at the best validation lifetime.")


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
# run: it runs in the background, once per server (the first visit starts it), while
# the page follows its progress; the result is small and read-only.


def figure8_task(config: dict):
    """(key, compute) of Figure 8 at scale for ``config`` (keyword arguments of
    :func:`~mondrian_core.experiments.width_search.figure8_at_scale`)."""
    return (("figure8 at scale", tuple(sorted(config.items()))),
            lambda progress: figure8_at_scale(**config, progress=progress))


def figure8_at_scale_result(config: dict, text: str):
    """The server's Figure 8 at scale for ``config``, or ``None`` while it runs (a bar
    shows its progress, ``text``, and the page reruns when it ends); raises the
    computation's error if it failed (the next visit tries again)."""
    return cached_with_progress(*figure8_task(config), text, background=True)
