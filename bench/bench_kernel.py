"""Benchmarks of the Mondrian kernel. Prints times and ratios to baselines run here.

* fit + transform of M = 100 trees on N = 10,000 points in D = 21 (uniform in the unit
  cube) at a lifetime giving a few hundred cells per tree; budget < 1 s; ratio to
  scikit-learn's RBFSampler(n_components=100).fit_transform on the same data;
* growth from N = 1,000 to 100,000 with the fitted exponent of time ~ N^a;
* the page's Figure 5 (N = 100, M up to 50, 5 repetitions); budget < 3 s.

Run: python -m bench.bench_kernel [--quick]
"""
from __future__ import annotations

import sys
import time

import numpy as np
from sklearn.kernel_approximation import RBFSampler

from mondrian_core.experiments.kernel_convergence import kernel_error_curves
from mondrian_core.kernel import MondrianFeatures

LIFETIME = 0.4  # ~ a few hundred (about 300) cells per tree for N = 10,000 uniform points in [0, 1]^21


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(quick=False):
    rng = np.random.default_rng(0)
    X = rng.random((10_000, 21))
    t_rbf, _ = best_of(lambda: RBFSampler(n_components=100, random_state=0).fit_transform(X))

    def mondrian(data):
        f = MondrianFeatures(LIFETIME, 100, random_state=0).fit(data)
        return f, f.transform(data)

    t_mon, (f, Z) = best_of(lambda: mondrian(X))
    cells = f.trees_.n_cells()
    print(f"fit+transform M=100, N=10,000, D=21, lifetime {LIFETIME}: {t_mon:.3f} s "
          f"(budget 1 s); cells per tree mean {cells.mean():.0f} "
          f"[{cells.min()}, {cells.max()}]; Z {Z.shape}, nnz/row {Z.nnz // Z.shape[0]}")
    print(f"RBFSampler(n_components=100).fit_transform same data: {t_rbf:.4f} s; "
          f"ratio Mondrian / RBFSampler = {t_mon / t_rbf:.1f}")

    ns = [1_000, 10_000] if quick else [1_000, 10_000, 100_000]
    ts = []
    for n in ns:
        Xn = rng.random((n, 21))
        t, (fn, _) = best_of(lambda Xn=Xn: mondrian(Xn), repeat=2 if n > 10_000 else 3)
        ts.append(t)
        tr = fn.trees_
        depth = tr.depth[tr.leaf_of_point].mean()
        print(f"  N = {n:>7,}: {t:.3f} s; cells/tree {tr.n_cells().mean():.0f}, mean leaf depth "
              f"{depth:.2f}, {t / (n * 100 * depth) * 1e9:.0f} ns per (point, tree, level)")
    a = np.polyfit(np.log(ns), np.log(ts), 1)[0]
    print(f"scaling exponent (time ~ N^a): a = {a:.2f}  (cells per tree also grow with N at a "
          "fixed lifetime)")
    import os
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    X5 = rng.random((100, 2))
    counts = [1, 2, 3, 5, 7, 10, 15, 20, 30, 40, 50]
    t5, _ = best_of(lambda: kernel_error_curves(X5, 10.0, counts, n_repeats=5, random_state=0))
    print(f"Figure 5 (N=100, M up to 50, 5 repetitions, 3 methods): {t5:.3f} s (budget 3 s); "
          f"ratio to RBFSampler above: {t5 / t_rbf:.1f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
