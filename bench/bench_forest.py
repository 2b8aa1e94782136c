"""Mondrian forest budgets: online training and prediction with uncertainty.

1. Streaming 10,000 points one at a time into 10 trees (``partial_fit`` per point):
   budget < 10 s; printed as a ratio to refitting scikit-learn's RandomForest
   (10 trees) on the data so far every 100 points, run in the same process.
2. Prediction with uncertainty (``predict(return_std=True)``) on a 200 x 200
   grid with 10 trees: budget < 1 s.

Run: ``python -m bench.bench_forest``.
"""
from __future__ import annotations

import time

import numpy as np
from sklearn.ensemble import RandomForestRegressor

from mondrian_core import MondrianForestClassifier, MondrianForestRegressor
from mondrian_core.datasets import regression_surface_2d


def main():
    data = regression_surface_2d(n=10_000, random_state=0)
    X, y = data.X, data.y
    lifetime = 10.0

    t0 = time.perf_counter()
    f = MondrianForestRegressor(n_estimators=10, lifetime=lifetime, random_state=0)
    for i in range(len(X)):
        f.partial_fit(X[i:i + 1], y[i:i + 1])
    t_stream = time.perf_counter() - t0
    s = f.tree_summary()
    print(f"stream 10,000 points one at a time into 10 trees (lifetime {lifetime:g}): "
          f"{t_stream:.2f} s  (budget 10 s); leaves/tree {s['n_leaves'].mean():.0f}, "
          f"max depth {s['max_depth'].max()}")

    t0 = time.perf_counter()
    f_batch = MondrianForestRegressor(n_estimators=10, lifetime=lifetime, random_state=0)
    f_batch.partial_fit(X, y)
    t_one_call = time.perf_counter() - t0
    print(f"same 10,000 points in one partial_fit call: {t_one_call:.2f} s")

    t0 = time.perf_counter()
    for n in range(100, len(X) + 1, 100):
        RandomForestRegressor(n_estimators=10, random_state=0, n_jobs=1).fit(X[:n], y[:n])
    t_rf = time.perf_counter() - t0
    print(f"baseline: sklearn RandomForest (10 trees) refit every 100 points: {t_rf:.2f} s;"
          f" ratio Mondrian/RF = {t_stream / t_rf:.3f}")

    g = np.linspace(-0.5, 1.5, 200)
    grid = np.column_stack([a.ravel() for a in np.meshgrid(g, g)])
    f.predict(grid[:100], return_std=True)  # warm caches (node posterior)
    t0 = time.perf_counter()
    mean, std = f.predict(grid, return_std=True)
    t_pred = time.perf_counter() - t0
    t0 = time.perf_counter()
    RandomForestRegressor(n_estimators=10, random_state=0).fit(X, y).predict(grid)
    t_rf_pred = time.perf_counter() - t0
    print(f"predict with std on a 200 x 200 grid, 10 trees: {t_pred:.3f} s (budget 1 s); "
          f"ratio to RF fit+predict on 10,000 points: {t_pred / t_rf_pred:.2f}")

    c = MondrianForestClassifier(n_estimators=10, lifetime=lifetime, random_state=0)
    c.partial_fit(X, (y > 0).astype(int), classes=[0, 1])
    t0 = time.perf_counter()
    c.predict_proba(grid)
    print(f"classifier predict_proba on the 200 x 200 grid: {time.perf_counter() - t0:.3f} s")


if __name__ == "__main__":
    main()
