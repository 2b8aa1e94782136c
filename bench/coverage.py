"""Coverage of the lifetime posterior's 90% credible interval: Mondrian (several M) and
the exact Laplace-GP posterior, on data drawn from a Laplace GP of known lifetime.

    python -m bench.coverage [--seeds 20] [--points 200] [--quick]

Prints one row per true lifetime: the fraction of seeds whose interval covers the truth
and the median posterior mean, for each number of trees M and for the exact posterior.
"""
from __future__ import annotations

import argparse
import platform
import sys
import time

from mondrian_core.experiments.coverage import lifetime_coverage


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--points", type=int, default=200)
    ap.add_argument("--quick", action="store_true", help="2 seeds, M in (10, 100)")
    args = ap.parse_args(argv)
    seeds = range(2 if args.quick else args.seeds)
    n_trees = (10, 100) if args.quick else (10, 30, 100, 300)
    t0 = time.perf_counter()

    def progress(frac, text):
        print(f"\r  {frac:5.1%} {text:<30}", end="", file=sys.stderr, flush=True)

    study = lifetime_coverage(n_trees=n_trees, seeds=seeds, n_points=args.points,
                              progress=progress)
    print(file=sys.stderr)
    s = study.settings
    print(f"# Lifetime posterior coverage ({platform.node()}, {time.strftime('%Y-%m-%d')}, "
          f"{time.perf_counter() - t0:.0f} s)")
    print(f"data: laplace_gp(n={s['n_points']}, n_dims={s['n_dims']}, noise_std="
          f"{s['noise_std']}), seeds {seeds.start}..{seeds.stop - 1}; prior {s['prior']}, "
          f"sweep to {s['terminal_lifetime']:g}; {study.level:.0%} equal-tailed intervals")
    head = ["true lifetime"] + [f"M={m}" for m in study.n_trees] + ["exact (M=inf)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for i, lam in enumerate(study.true_lifetimes):
        cells = [f"{lam:g}"]
        for k in range(len(study.n_trees)):
            cells.append(f"{study.mondrian_coverage[i, k]:.0%} (mean {study.mondrian_mean[i, k].mean():.3g})")
        cells.append(f"{study.exact_coverage[i]:.0%} (mean {study.exact_mean[i].mean():.3g})")
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
