"""The coverage lab's speed and coverage: pointwise cells against growing every tree.

Run ``python -m bench.bench_debiased`` (``--quick`` for a smaller run). Times are this
process's CPU seconds (every timed path is single-threaded, one BLAS thread) and the
ratios are what to compare (the machine is shared).

1. Speed: the coverage lab's 200 repetitions of plain and debiased (J = 1) 95% intervals
   at the centre, n = 1000, B = 100, d = 1 and 2 (target: within 10 s of one core),
   against the straightforward version that grows every tree whole with
   ``sample_mondrian_process`` and looks up the point's cell (timed on fewer
   repetitions, per repetition; the same estimator code on the cells found).
2. The page's defaults: the first stack (40 data sets with the smoothed forest), the
   bias chart, the CLT histogram and the rates, each timed.
3. Coverage: the reference Monte Carlo of ``tests/test_debiased.py`` (200 repetitions)
   and the page's default setting (lambda = 7) over 1,000 repetitions, with the smoothed
   forest on 200.
"""
from __future__ import annotations

import argparse
import time

from explorer_ui import defaults_inference as D
from mondrian_core._blas import single_blas_thread
from mondrian_core.experiments.inference import (
    bias_sd_vs_lifetime,
    clt_statistics,
    coverage_repetitions,
    coverage_summary,
    risk_vs_n,
    theory_sd,
)


def timed(fn):
    """CPU seconds of this process running ``fn``, and its result."""
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def bench_speed(reps: int, grown_reps: int) -> None:
    print(f"## 1. Coverage lab: {reps} repetitions, plain + debiased (J = 1), n = 1000, B = 100")
    print("| d | lambda | pointwise (s) | grown, per repetition (s) | grown, "
          f"{reps} reps (s, extrapolated) | ratio |")
    print("|---|---|---|---|---|---|")
    for d, lam in ((1, 10.0), (2, 5.0)):
        setting = dict(d=d, n=1000, lifetime=lam, n_trees=100, debias_order=1, seed=1,
                       smoothed=False)
        fast, _ = timed(lambda s=setting: coverage_repetitions(0, reps, **s))
        slow, _ = timed(lambda s=setting: coverage_repetitions(0, grown_reps, cells="grown",
                                                               **s))
        per = slow / grown_reps
        print(f"| {d} | {lam:g} | {fast:.2f} | {per:.3f} | {per * reps:.0f} | "
              f"{per * reps / fast:.0f}x |", flush=True)


def bench_page_defaults() -> None:
    print("\n## 2. The page's defaults (d = 1, n = 1000, lambda = 7, B = 100, J = 1)")
    rows = [
        ("first stack: 40 data sets, with the smoothed forest",
         lambda: coverage_repetitions(0, D.INITIAL_REPETITIONS, d=1, n=D.N,
                                      lifetime=D.LIFETIME, n_trees=D.TREES, seed=D.SEED)),
        ("Repeat x20", lambda: coverage_repetitions(40, D.BATCH, d=1, n=D.N,
                                                    lifetime=D.LIFETIME, n_trees=D.TREES)),
        (f"bias chart: {len(D.BIAS_LIFETIMES)} lifetimes x {D.BIAS_REPETITIONS} data sets",
         lambda: bias_sd_vs_lifetime(D.BIAS_LIFETIMES, n=D.N, n_trees=D.TREES,
                                     repetitions=D.BIAS_REPETITIONS, seed=D.SEED)),
        (f"CLT histogram: {D.CLT_REPETITIONS} data sets",
         lambda: clt_statistics(n=D.N, lifetime=D.LIFETIME, n_trees=D.CLT_TREES,
                                repetitions=D.CLT_REPETITIONS, seed=D.SEED)),
        (f"rates: n in {D.RATE_NS}, {D.RATE_REPETITIONS} data sets each",
         lambda: risk_vs_n(D.RATE_NS, repetitions=D.RATE_REPETITIONS, seed=D.SEED)),
    ]
    print("| part | CPU s |")
    print("|---|---|")
    total = 0.0
    for name, fn in rows:
        t, _ = timed(fn)
        total += t
        print(f"| {name} | {t:.2f} |", flush=True)
    print(f"| total | {total:.2f} |")


def bench_coverage(reps: int, default_reps: int, smoothed_reps: int) -> None:
    print(f"\n## 3. Coverage ({reps} repetitions; the reference run in brackets)")
    reference = {(1, 10.0): ((-0.043, 0.067, 0.920, 0.252), (-0.0005, 0.094, 0.965, 0.364)),
             (2, 5.0): ((-0.246, 0.070, 0.055, None), (-0.099, 0.142, 0.86, None))}
    print("| d, lambda | J | bias | sd (theory) | coverage | mean width |")
    print("|---|---|---|---|---|---|")
    for (d, lam), rows in reference.items():
        stack = coverage_repetitions(0, reps, d=d, n=1000, lifetime=lam, n_trees=100,
                                     debias_order=1, seed=2, smoothed=False)
        s = coverage_summary(stack)
        for J, (nb, nsd, ncov, nw) in enumerate(rows):
            est = stack.estimate[:, J]
            th = float(theory_sd(lam, d, 1000, debias_order=J))
            width = "-" if nw is None else f"{nw:.3f}"
            print(f"| {d}, {lam:g} | {J} | {est.mean() - stack.truth:+.4f} ({nb:+.4f}) | "
                  f"{est.std(ddof=1):.3f} ({nsd:.3f}); {th:.3f} | {s['coverage'][J]:.3f} "
                  f"\u00b1 {s['se'][J]:.3f} ({ncov:.3f}) | {s['width'][J]:.3f} ({width}) |",
                  flush=True)
    stack = coverage_repetitions(0, default_reps, d=1, n=D.N, lifetime=D.LIFETIME,
                                 n_trees=D.TREES, seed=3, smoothed=False)
    s = coverage_summary(stack)
    print(f"\nPage default (d = 1, lambda = {D.LIFETIME:g}), {default_reps} repetitions: plain "
          f"{s['coverage'][0]:.3f} \u00b1 {s['se'][0]:.3f} (width {s['width'][0]:.3f}), "
          f"debiased {s['coverage'][1]:.3f} \u00b1 {s['se'][1]:.3f} (width {s['width'][1]:.3f})")
    stack = coverage_repetitions(0, smoothed_reps, d=1, n=D.N, lifetime=D.LIFETIME,
                                 n_trees=D.TREES, seed=4)
    s = coverage_summary(stack)
    print(f"Smoothed forest (10 trees, return_std without noise, true noise variance), "
          f"{smoothed_reps} repetitions: {s['coverage'][2]:.3f} \u00b1 {s['se'][2]:.3f} "
          f"(width {s['width'][2]:.3f}; plain {s['width'][0]:.3f}, debiased "
          f"{s['width'][1]:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    with single_blas_thread():
        t0 = time.perf_counter()
        if args.quick:
            bench_speed(50, 2)
            bench_coverage(100, 200, 40)
        else:
            bench_speed(200, 5)
            bench_page_defaults()
            bench_coverage(200, 1000, 200)
        print(f"\n(wall clock {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
