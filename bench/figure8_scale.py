"""Figure 8 at scale: wall-clock ratios of the sweep against the retrained searches.

    python -m bench.figure8_scale [--repeats 1]

Runs :func:`mondrian_core.experiments.width_search.figure8_at_scale` at the Lifetime
sweep page's configuration (explorer_ui/defaults_lifetime_sweep.py: Friedman #1, 8-D,
5,040 training + 1,680 validation points, M = 50 trees / Fourier components / binning
grids, 100 cells per tree at the terminal lifetime), all three methods in this process,
one after the other, and prints for each its best validation RMSE, the seconds to its
own best and to the sweep's best, and the ratios to the sweep. The tests check only the
counted work (tests/claims/test_lifetime_sweep.py); timings are noisy on a shared
machine, so CPU seconds are printed next to wall-clock ones.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from explorer_ui.defaults_lifetime_sweep import FIGURE8
from mondrian_core.experiments.width_search import figure8_at_scale


def report(result, wall, cpu):
    sweep = result.traces[0]
    target = float(np.min(sweep.val_rmse))
    t_sweep = sweep.time_to_reach(target)
    print(f"Figure 8 at scale: {result.n_train:,} train + {result.n_val:,} validation, "
          f"D={result.n_dims}, M={result.n_trees}, terminal lifetime "
          f"{result.terminal_lifetime:g}; whole run {wall:.1f} s wall ({cpu:.1f} s CPU)")
    for tr in result.traces:
        best = int(np.argmin(tr.val_rmse))
        reach = tr.time_to_reach(target)
        fits = tr.fits_to_reach(target)
        line = (f"  {tr.method:24s} best {tr.val_rmse[best]:.4f} at lifetime "
                f"{tr.lifetimes[best]:.3g} after {tr.seconds[best]:6.2f} s (run {tr.seconds[-1]:6.2f} s)")
        if tr is sweep:
            line += "; reaches its best in its one pass"
        elif np.isfinite(reach):
            line += (f"; reaches the sweep's best after {fits:.0f} fits, {reach:.2f} s = "
                     f"{reach / t_sweep:.2f}x the sweep's {t_sweep:.2f} s")
        else:
            line += "; never reaches the sweep's best"
        print(line)


def main(repeats=1):
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        result = figure8_at_scale(**FIGURE8)
        report(result, time.perf_counter() - w0, time.process_time() - c0)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=1)
    main(ap.parse_args().repeats)
