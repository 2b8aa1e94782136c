"""Benchmark of the lifetime path's online update (``LifetimePath.partial_fit``).

    python -m bench.bench_sweep_online [--quick]

For N old training points (+ 500 validation points) of a 2-D Laplace-GP draw, M = 50
trees, terminal lifetime 5, noise 0.01, it adds n = 100 new points and times

* the update ``path.partial_fit(X_new, y_new)`` (extends the trees, then updates or
  recomputes the per-event numbers), and
* a sweep from scratch on the SAME extended trees, all points
  (``lifetime_path_on_trees``), the cost the update is to beat,

and prints their ratio, with the fraction of states the update took from the old path
(``detached``: every new point in cells without old points). Two kinds of new points:
``inside`` (drawn like the old ones: they share old leaves, so every state is recomputed
and the ratio is about 1) and ``beyond`` (the same points moved 4 data-widths to the
right, a gap of 3: they leave the old cells early, and the later states are updated;
within one data-width of the data some of the 5,000 (tree, point) pairs stay in an old
leaf up to the terminal lifetime and every state is recomputed). Timings are noisy on
a shared machine: medians of 3, both in this process, CPU seconds next to wall-clock.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from mondrian_core import laplace_gp, lifetime_path, lifetime_path_on_trees
from mondrian_core._sweep_online import first_detached_state, rows_per_node

S2N, S2P, M_TREES, T = 0.01, 1.0, 50, 5.0


def median_time(fn, repeats=3):
    """(median wall seconds, median CPU seconds, last result)."""
    walls, cpus, out = [], [], None
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return float(np.median(walls)), float(np.median(cpus)), out


def run(n_old, n_new, kind, repeats, seed=0):
    d = laplace_gp(n_old + n_new + 500, n_dims=2, lifetime=5.0, noise_std=0.1,
                   random_state=seed)
    X, y = d.X[:n_old], d.y[:n_old]
    Xv, yv = d.X[n_old:n_old + 500], d.y[n_old:n_old + 500]
    Xn, yn = d.X[n_old + 500:], d.y[n_old + 500:]
    if kind == "beyond":
        Xn = Xn + np.array([4.0 * (X[:, 0].max() - X[:, 0].min()), 0.0])
    path = lifetime_path(X, y, Xv, yv, terminal_lifetime=T, n_trees=M_TREES,
                         noise_variance=S2N, prior_variance=S2P, random_state=seed)
    w_up, c_up, new = median_time(lambda: path.partial_fit(Xn, yn, random_state=1), repeats)
    w_ref, c_ref, ref = median_time(
        lambda: lifetime_path_on_trees(new.trees, new.y_train, Xv, yv, noise_variance=S2N,
                                       prior_variance=S2P,
                                       extension_seed=new.extension_seed), repeats)
    err = np.max(np.abs(new.log_marginal_likelihood - ref.log_marginal_likelihood)
                 / np.abs(ref.log_marginal_likelihood))
    E = new.event_nodes.size
    old_rows = rows_per_node(new.trees, np.arange(new.y_train.size) < n_old)
    first = first_detached_state(new.trees, new.event_nodes, old_rows,
                                  new.trees.stop - new.trees.start - old_rows)
    print(f"N={n_old:>5,} + {n_new:>3} {kind:<6}  events {E:>5,}  "
          f"update {w_up:6.3f} s (cpu {c_up:6.3f})  refit {w_ref:6.3f} s (cpu {c_ref:6.3f})  "
          f"ratio {w_up / w_ref:5.2f} (cpu {c_up / c_ref:5.2f})  "
          f"states updated {(E + 1 - first) / (E + 1):4.0%}  "
          f"max rel. lml diff {err:.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 500 only, one repeat")
    args = parser.parse_args()
    sizes = [500] if args.quick else [1000, 2000]
    repeats = 1 if args.quick else 3
    for n_old in sizes:
        for kind in ("inside", "beyond"):
            run(n_old, 100, kind, repeats)


if __name__ == "__main__":
    main()
