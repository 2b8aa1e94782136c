"""Benchmark of the exact lifetime sweep.

    python -m bench.bench_sweep [--section paper|large|budgets|all] [--quick]

``paper`` (default part of ``all``): the exact sweep against the paper's approximate
sweep (one SGD epoch after every cut; :mod:`bench.paper_sgd_sweep`), both run in this
process, on

* N = 2,000 train + 500 validation points of a 2-D Laplace-GP draw (lifetime 5,
  noise 0.1), M = 50, terminal lifetime 5;
* N = 10,000 train + 2,000 validation points of a Friedman #1 function in D = 8
  (5 informative inputs, standardised, noise 0.1), M = 50, terminal lifetime 0.74.

It prints each one's wall-clock and CPU seconds, their ratio (goal: exact <= 0.5x the
paper's), the events and features, and the validation RMSE of both (best over the
sweep and at the terminal lifetime).

``large``: N = 50,000 (+ 2,000 validation), D = 8, M = 50, terminal lifetime 0.85
(about 5,000 features): the whole exact path (goal: under a minute), next to one
ridge fit at the terminal lifetime in this process.

``budgets``: the issue-4 set-up (N = 2,000, D = 2, M = 50, lifetime 5): the whole
path against ONE ridge fit + log-determinant at the terminal lifetime, growth with N
and M, the Figure 8 search with random Fourier features, and a slider move.

Timings are noisy on a shared machine: ratios are against baselines run in the same
process, and CPU seconds are printed next to wall-clock ones.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from bench.paper_sgd_sweep import paper_sgd_sweep
from mondrian_core import MondrianFeatures, RandomFourierFeatures, laplace_gp, lifetime_path
from mondrian_core.experiments.width_search import retrained_search, sweep_trace
from mondrian_core.figures.sweep import (
    n_features_vs_lifetime,
    prediction_surface_2d,
    rmse_vs_lifetime,
    tree_cut_segments,
)

S2N, S2P = 0.01, 1.0
M_TREES = 50


def median_time(fn, repeats=3):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def one_fit(X, y, T, M, seed):
    """One ridge fit + log-determinant at the terminal lifetime (features built too)."""
    mf = MondrianFeatures(lifetime=T, n_trees=M, random_state=seed).fit(X)
    Phi = mf.transform(X)
    N, C = Phi.shape
    if C >= N:
        K = (Phi @ Phi.T).toarray() * S2P
        K[np.diag_indices(N)] += S2N
        cf = cho_factor(K, lower=True)
        alpha = cho_solve(cf, y)
    else:
        A = (Phi.T @ Phi).toarray()
        A[np.diag_indices(C)] += S2N / S2P
        cf = cho_factor(A, lower=True)
        alpha = cho_solve(cf, Phi.T @ y)
    return 2 * np.log(np.diag(cf[0])).sum(), alpha, C


def data(n_train, n_val, seed=0):
    d = laplace_gp(n_train + n_val, n_dims=2, lifetime=5.0, noise_std=0.1, random_state=seed)
    return d.X[:n_train], d.y[:n_train], d.X[n_train:], d.y[n_train:]


def friedman(n, n_dims=8, noise_std=0.1, seed=0):
    """Friedman #1 on [0, 1]^n_dims (the first 5 inputs matter), standardised, plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, n_dims))
    f = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3]
         + 5 * X[:, 4])
    return X, (f - f.mean()) / f.std() + noise_std * rng.standard_normal(n)


def timed(fn):
    """(wall seconds, CPU seconds, result)."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def versus_paper(name, X, y, Xv, yv, T, M=M_TREES):
    """The exact sweep and the paper's SGD sweep on the same data, one after the other."""
    w_p, c_p, paper = timed(lambda: paper_sgd_sweep(X, y, Xv, yv, M, T, S2N / S2P, seed=0))
    w_e, c_e, path = timed(lambda: lifetime_path(X, y, Xv, yv, terminal_lifetime=T, n_trees=M,
                                                 noise_variance=S2N, prior_variance=S2P,
                                                 random_state=0))
    print(f"{name}: N={len(y):,} train + {len(yv):,} validation, D={X.shape[1]}, M={M}, "
          f"terminal lifetime {T:g}")
    print(f"  exact sweep : {path.lifetimes.size - 1:,} events, {path.n_features[-1]:,} features, "
          f"{w_e:.2f} s wall ({c_e:.2f} s CPU); validation RMSE best "
          f"{np.nanmin(path.val_rmse):.3f}, at terminal {path.val_rmse[-1]:.3f}")
    print(f"  paper (SGD) : {paper['times'].size:,} events, {paper['n_features']:,} features, "
          f"{w_p:.2f} s wall ({c_p:.2f} s CPU); validation RMSE best "
          f"{paper['test_rmse'].min():.3f}, at terminal {paper['test_rmse'][-1]:.3f}")
    print(f"  ratio exact / paper: {w_e / w_p:.2f}x wall, {c_e / c_p:.2f}x CPU   (goal <= 0.5x)")


def paper_section(quick=False):
    d = laplace_gp(2500, n_dims=2, lifetime=5.0, noise_std=0.1, random_state=0)
    versus_paper("2-D Laplace GP", d.X[:2000], d.y[:2000], d.X[2000:], d.y[2000:], 5.0)
    if not quick:
        X, y = friedman(12_000)
        versus_paper("Friedman #1, D=8", X[:10_000], y[:10_000], X[10_000:], y[10_000:], 0.74)


def large_section():
    X, y = friedman(52_000, seed=1)
    X, y, Xv, yv = X[:50_000], y[:50_000], X[50_000:], y[50_000:]
    T = 0.85
    stages = {}
    w, c, path = timed(lambda: lifetime_path(X, y, Xv, yv, terminal_lifetime=T, n_trees=M_TREES,
                                             noise_variance=S2N, prior_variance=S2P,
                                             random_state=0, timings=stages))
    w_f, c_f, _ = timed(lambda: one_fit(X, y, T, M_TREES, 0))
    print(f"large: N=50,000 train + 2,000 validation, D=8, M={M_TREES}, terminal lifetime {T:g}")
    print(f"  exact sweep: {path.lifetimes.size - 1:,} events, {path.n_features[-1]:,} features, "
          f"{w:.1f} s wall ({c:.1f} s CPU)   (goal < 60 s); best validation RMSE "
          f"{np.nanmin(path.val_rmse):.3f}")
    print(f"  one ridge fit at the terminal lifetime: {w_f:.2f} s wall ({c_f:.2f} s CPU); "
          f"sweep / fit = {w / w_f:.1f}x")
    print("  stage seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()))


def budgets(quick=False):
    reps = 1 if quick else 3
    X, y, Xv, yv = data(2000, 500)
    T, M = 5.0, 50
    stages = {}
    t_path, path = median_time(lambda: lifetime_path(X, y, Xv, yv, terminal_lifetime=T, n_trees=M,
                                                    noise_variance=S2N, prior_variance=S2P,
                                                    random_state=0, timings=stages), reps)
    t_fit, (_, _, C) = median_time(lambda: one_fit(X, y, T, M, 0), reps)
    E = path.lifetimes.size - 1
    best = path.best_index
    rel = path.val_rmse[best] / np.sqrt(np.mean(yv ** 2))
    print(f"set-up: N=2000 train + 500 val, 2-D Laplace GP (lifetime 5), M={M}, terminal {T}")
    print(f"  events {E}, features at terminal {path.n_features[-1]} (one fit sees C={C})")
    print(f"  whole exact path: {t_path:.3f} s   (goal <= 2 s, must be < 10 s)")
    print(f"  one ridge fit + log-det at terminal: {t_fit:.3f} s   ratio path/fit = {t_path / t_fit:.1f}")
    print("  stage seconds (last run): " + ", ".join(f"{k} {v / reps:.3f}" for k, v in stages.items()))
    print(f"  best validation RMSE {path.val_rmse[best]:.4f} at lifetime {path.lifetimes[best]:.3g} "
          f"(relative error {rel:.1%})")

    print("growth with N (M=50, terminal 5, 500 validation):")
    base = None
    for n in ([500, 1000, 2000] if quick else [500, 1000, 2000, 3000]):
        Xn, yn, Xvn, yvn = data(n, 500, seed=1)
        t, p = median_time(lambda Xn=Xn, yn=yn, Xvn=Xvn, yvn=yvn: lifetime_path(
            Xn, yn, Xvn, yvn, terminal_lifetime=T, n_trees=M, noise_variance=S2N,
            prior_variance=S2P, random_state=0), reps)
        tf, _ = median_time(lambda Xn=Xn, yn=yn: one_fit(Xn, yn, T, M, 0), reps)
        base = base or t
        print(f"  N={n:5d}: events {p.lifetimes.size - 1:5d}  path {t:.3f} s  ({t / base:.1f}x N=500)"
              f"  one fit {tf:.3f} s  ratio {t / tf:.1f}")
    print("growth with M (N=2000, terminal 5):")
    base = None
    for m in [25, 50, 100]:
        t, p = median_time(lambda m=m: lifetime_path(X, y, Xv, yv, terminal_lifetime=T, n_trees=m,
                                                 noise_variance=S2N, prior_variance=S2P,
                                                 random_state=0), reps)
        base = base or t
        print(f"  M={m:3d}: events {p.lifetimes.size - 1:5d}  path {t:.3f} s  ({t / base:.1f}x M=25)")

    # Figure 8: RFF doubling-then-bisection search to the sweep's best validation error
    target = float(path.val_rmse[best])
    t0 = time.perf_counter()
    rff = retrained_search(lambda lam: RandomFourierFeatures(lam, n_components=M, random_state=0),
                           X, y, Xv, yv, noise_variance=S2N, prior_variance=S2P, max_evals=12,
                           method="RFF")
    t_rff = time.perf_counter() - t0
    sweep = sweep_trace(path)
    t_sweep_best = sweep.time_to_reach(target)
    reach = rff.time_to_reach(target)
    print("Figure 8 (same non-zero features per point: M=50):")
    print(f"  sweep reaches its best {target:.4f} after {t_sweep_best:.3f} s of its run")
    print(f"  RFF search: {rff.lifetimes.size} lifetimes in {t_rff:.3f} s, best {rff.val_rmse.min():.4f}"
          f" at {rff.lifetimes[np.argmin(rff.val_rmse)]:.3g}")
    if np.isfinite(reach):
        print(f"  RFF reaches the sweep's best after {reach:.3f} s: {reach / t_sweep_best:.1f}x longer")
    else:
        own = rff.seconds[int(np.argmin(rff.val_rmse))]
        print(f"  RFF never reaches the sweep's best error; its whole search took "
              f"{t_rff / t_path:.1f}x the whole sweep, and reaching its own best took "
              f"{own:.3f} s = {own / t_sweep_best:.1f}x the sweep's time to its best")

    # slider move: what the page's fragment computes from the cached path
    gx = np.linspace(X[:, 0].min(), X[:, 0].max(), 70)
    G = np.column_stack([np.repeat(gx, 70), np.tile(gx, 70)])
    path.predict(G, 1.0)  # placement of the grid, cached by the path (first view only)
    lifetimes = np.geomspace(path.lifetimes[1], T, 20)
    t0 = time.perf_counter()
    for lam in lifetimes:
        c = path.index(lam)
        Z = path.predict(G, lam)
        _ = path.val_rmse[c], path.n_features[c]
        rmse_vs_lifetime(path, lam).to_dict()
        n_features_vs_lifetime(path, lam).to_dict()
        segs = tree_cut_segments(path.trees, 0, lam, X.min(0), X.max(0))
        prediction_surface_2d(gx, gx, Z.reshape(70, 70).T, X, segs).to_dict()
    t_slider = (time.perf_counter() - t0) / lifetimes.size
    print(f"slider move (70x70 grid prediction, look-ups, three figures built): "
          f"{1000 * t_slider:.1f} ms  (budget 200 ms)")


def main(section="all", quick=False):
    if section in ("paper", "all"):
        paper_section(quick)
    if section in ("large", "all") and not quick:
        large_section()
    if section in ("budgets", "all"):
        budgets(quick)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--section", choices=["paper", "large", "budgets", "all"], default="all")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    main(args.section, args.quick)
