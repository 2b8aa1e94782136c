"""Why random Fourier features come out worst at M = 10 on Figures 5 and 6.

Measures, at the kernel-convergence page's defaults (N = 120 uniform points, lambda = 10,
seed 0), for each feature map: the per-feature variance of the kernel estimate averaged
over all pairs (M times the mean squared error; it does not depend on M for
independent members), its mean signed error (bias), and the maximum absolute error at
M = 10 (Figure 5's y-value). Then Figure 6's test RMSE at M = 10 on the default data set.

A Mondrian tree or a binning grid puts a far pair (kernel ~ 0) in one cell almost
never, so its estimate there is exactly 0: variance k(1 - k), small on average. A
random Fourier feature 2 cos(w.x + b) cos(w.x' + b) swings between -1 and 1 for every
pair, near or far: variance ~ 1 (1 - k^2 / 2 + k(2 delta) / 2 in general).

Run: python -m bench.figure5_ordering
"""
from __future__ import annotations

import numpy as np

from explorer_ui import defaults_kernel_convergence as D
from mondrian_core import datasets as ds
from mondrian_core.experiments.kernel_convergence import (
    METHODS,
    cumulative_kernels,
    feature_counts,
    ridge_rmse_curves,
)
from mondrian_core.kernel import laplace_kernel

M = 10
REPEATS = 20  # repetitions of the variance measurement (independent draws)


def kernel_numbers():
    X = ds.uniform_box(D.N_POINTS, random_state=D.SEED).X
    K = laplace_kernel(X, lifetime=D.LIFETIME)
    iu = np.triu_indices(X.shape[0], k=1)
    k = K[iu]
    print(f"N = {X.shape[0]}, lambda = {D.LIFETIME:g}, {k.size:,} pairs; "
          f"{np.mean(k < 0.01):.0%} of pairs have k < 0.01; mean k(1-k) = "
          f"{np.mean(k * (1 - k)):.4f}")
    rng = np.random.default_rng(2016)
    print(f"{'method':26s} {'per-feature var':>16s} {'bias at M=10':>13s} "
          f"{'RMS err M=10':>13s} {'max err M=10':>13s}")
    for method in METHODS:
        var, bias, rms, worst = [], [], [], []
        for _ in range(REPEATS):
            for m, Km in cumulative_kernels(method, X, None, D.LIFETIME, [M], rng):
                err = Km[iu] - k
                var.append(m * np.mean(err ** 2))
                bias.append(np.mean(err))
                rms.append(np.sqrt(np.mean(err ** 2)))
                worst.append(np.abs(err).max())
        print(f"{method:26s} {np.mean(var):16.4f} {np.mean(bias):+13.4f} "
              f"{np.mean(rms):13.3f} {np.mean(worst):13.3f}")


def ridge_numbers():
    data = ds.load_bundled(D.DATASET6)
    train, test = ds.train_val_test_split(data, (0.8, 0.2), random_state=D.SEED)
    curves = ridge_rmse_curves(train.X, train.y, test.X, test.y, D.LIFETIME6,
                               feature_counts(D.M_MAX6), D.REPEATS6, ridge=float(D.RIDGE6),
                               random_state=D.SEED + D.SEED_OFFSET_FIGURE6)
    at = int(np.flatnonzero(curves.counts == M)[0])
    print(f"\nFigure 6 ({D.DATASET6}, lambda = {D.LIFETIME6:g}, ridge {D.RIDGE6}): test RMSE "
          f"at M = {M} (exact Laplace KRR {curves.exact_rmse:.3f}, mean "
          f"{curves.baseline_rmse:.3f})")
    for method in curves.rmse:
        print(f"{method:26s} {curves.mean(method)[at]:.3f} +- {curves.std(method)[at]:.3f}")


if __name__ == "__main__":
    kernel_numbers()
    ridge_numbers()
