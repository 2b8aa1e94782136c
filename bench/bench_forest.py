"""Mondrian forest speed against scikit-learn, River and the previous implementation.

Run ``python -m bench.bench_forest`` (``--quick`` for a smaller run). Every baseline
runs in the same process; times are this process's CPU seconds (every timed path is
single-threaded) and the ratios are what to compare (the machine is shared).

1. Batch: fit + predict, 10 trees, Friedman #1 (D = 8), N = 20,000 training points,
   5,000 test points, against scikit-learn's RandomForestRegressor (10 trees, one
   thread; target: Mondrian <= 2x) and the previous implementation (per-node Python
   lists), which grows the same trees for a seed: its predictions must agree.
2. Online: the same stream (Friedman #1, D = 8) into 10 trees, regression and
   classification, against River's AMFRegressor / AMFClassifier (``learn_one`` per
   point; target: Mondrian >= 3x the throughput), ``partial_fit`` on mini-batches
   of 1 .. 1,000 points (30: the stream in 100 mini-batches, as in the classification
   experiments of the Mondrian forests slides), and the previous implementation.
3. Prediction with uncertainty on a 200 x 200 grid (the online page's map), 10 trees.

River is a bench-only dependency: ``pip install river``.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.ensemble import RandomForestRegressor

from bench._previous import previous_forest
from mondrian_core import MondrianForestClassifier, MondrianForestRegressor

LIFETIME = 10.0
#: Runs of each online set-up, taking turns (the best is kept).
REPEATS = 3


def timed(fn):
    """CPU time of this process running ``fn`` (all timed work here is single-threaded,
    and CPU time is the steadier figure when other jobs load the machine), and its
    result. Wall-clock totals are printed per section."""
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def rmse(a, b):
    return float(np.sqrt(np.mean((a - b) ** 2)))


def bench_batch(n_train, n_test):
    wall = time.perf_counter()
    print(f"== Batch: 10 trees, Friedman #1 (D=8), fit on {n_train:,}, predict {n_test:,} "
          f"(lifetime {LIFETIME:g})")
    X, y = make_friedman1(n_train + n_test, n_features=8, noise=1.0, random_state=0)
    Xtr, ytr, Xte, yte = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    Previous = previous_forest()
    rows = {}
    for name, make in (("RandomForest (sklearn, 1 thread)",
                        lambda: RandomForestRegressor(10, n_jobs=1, random_state=0)),
                       ("Mondrian forest", lambda: MondrianForestRegressor(10, LIFETIME,
                                                                          random_state=0)),
                       ("Mondrian forest, previous", lambda: Previous(10, LIFETIME,
                                                                      random_state=0))):
        t_fit, model = timed(lambda make=make: make().fit(Xtr, ytr))
        t_pred, pred = timed(lambda model=model: model.predict(Xte))
        rows[name] = (t_fit, t_pred, pred, model)
        print(f"  {name:33s} fit {t_fit:6.2f} s  predict {t_pred:6.3f} s  "
              f"total {t_fit + t_pred:6.2f} s  test RMSE {rmse(pred, yte):.3f}")
    rf = rows["RandomForest (sklearn, 1 thread)"]
    new = rows["Mondrian forest"]
    old = rows["Mondrian forest, previous"]
    total = lambda r: r[0] + r[1]  # noqa: E731
    ratio = total(new) / total(rf)
    print(f"  ratio Mondrian / RandomForest (fit + predict): {ratio:.2f}  (target <= 2: "
          f"{'MET' if ratio <= 2 else 'MISSED'}); predict alone {new[1] / rf[1]:.1f}x")
    print(f"  ratio previous / new (fit + predict): {total(old) / total(new):.1f}x  "
          f"(fit {old[0] / new[0]:.1f}x, predict {old[1] / new[1]:.1f}x)")
    print(f"  same trees for the seed: max |new - previous prediction| = "
          f"{np.abs(new[2] - old[2]).max():.1e}")
    store = new[3].trees_
    print(f"  fitted forest: {store.n_nodes:,} nodes, {store.nbytes() / 1e6:.1f} MB "
          f"({store.nbytes() / store.n_nodes:.0f} bytes per node)")
    print(f"  (section wall time {time.perf_counter() - wall:.1f} s)")
    return new[3]


def _river_stream(X, y, classify, **options):
    """AMF's CPU time to learn the stream, point by point (None without River)."""
    try:
        from river.forest import AMFClassifier, AMFRegressor
    except ImportError:
        print("  River is not installed (pip install river): no AMF baseline")
        return None
    names = [f"x{i}" for i in range(X.shape[1])]
    rows = [dict(zip(names, r)) for r in X.tolist()]
    model = AMFClassifier(n_estimators=10, seed=0, **options) if classify else AMFRegressor(
        n_estimators=10, seed=0)
    targets = y.tolist()
    t, _ = timed(lambda: [model.learn_one(r, v) for r, v in zip(rows, targets)])
    return t


def _river_prequential(X, y, classify, n):
    """River's test-then-train loop on the first ``n`` points: predict, then learn."""
    from river.forest import AMFClassifier, AMFRegressor

    names = [f"x{i}" for i in range(X.shape[1])]
    rows = [dict(zip(names, r)) for r in X[:n].tolist()]
    model = AMFClassifier(n_estimators=10, seed=0) if classify else AMFRegressor(
        n_estimators=10, seed=0)
    predict = model.predict_proba_one if classify else model.predict_one

    def run():
        for r, v in zip(rows, y[:n].tolist()):
            predict(r)
            model.learn_one(r, v)
    return timed(run)[0]


def _prequential(make, X, y, kwargs, n):
    """The same loop for a Mondrian forest: predict one point, then partial_fit it."""
    model = make()
    predict = model.predict_proba if hasattr(model, "predict_proba") else model.predict

    def run():
        model.partial_fit(X[:1], y[:1], **kwargs)
        for i in range(1, n):
            predict(X[i:i + 1])
            model.partial_fit(X[i:i + 1], y[i:i + 1], **kwargs)
    return timed(run)[0]


def _stream(make, X, y, batch, kwargs):
    model = make()

    def run():
        for a in range(0, len(X), batch):
            model.partial_fit(X[a:a + batch], y[a:a + batch], **kwargs)
    return timed(run)[0]


def _best_times(X, y, classify, new_cls, kwargs):
    """CPU seconds to learn the stream: AMF (and, for classification, AMF splitting pure
    leaves, as the Mondrian forest does; by default AMFClassifier leaves a leaf holding
    one class alone) and the Mondrian forest in batches of 1 to 1,000 points. Best of
    REPEATS runs taking turns: this machine's speed drifts by 20% within minutes, and a
    single run of each can land on either side of it."""
    runs = {"AMF": lambda: _river_stream(X, y, classify)}
    if classify:
        runs["AMF pure"] = lambda: _river_stream(X, y, classify, split_pure=True)
    for batch in (1, 10, 30, 100, 1000):
        runs[batch] = lambda b=batch: _stream(
            lambda: new_cls(10, LIFETIME, random_state=0), X, y, b, kwargs)
    times = {}
    for _ in range(REPEATS):
        for key, run in list(runs.items()):
            t = run()
            if t is None:  # no River
                runs = {k: r for k, r in runs.items() if not str(k).startswith("AMF")}
                continue
            times[key] = min(times.get(key, np.inf), t)
    return times


def bench_online(n):
    X, y = make_friedman1(n, n_features=8, noise=1.0, random_state=1)
    Previous = previous_forest()
    for task in ("regression", "classification"):
        classify = task == "classification"
        yt = (y > np.median(y)).astype(int) if classify else y
        kwargs = {"classes": [0, 1]} if classify else {}
        new_cls = MondrianForestClassifier if classify else MondrianForestRegressor
        print(f"== Online {task}: a stream of {n:,} points (Friedman #1, D=8), 10 trees, "
              f"lifetime {LIFETIME:g}")
        times = _best_times(X, yt, classify, new_cls, kwargs)
        t_amf = times.get("AMF")
        if t_amf is not None:
            print(f"  River AMF{'Classifier' if classify else 'Regressor'} (learn_one per "
                  f"point): {t_amf:6.2f} s = {n / t_amf:8,.0f} points/s (best of {REPEATS})")
        if "AMF pure" in times:
            t = times["AMF pure"]
            print(f"  River AMFClassifier(split_pure=True): {t:6.2f} s = {n / t:8,.0f} "
                  f"points/s; Mondrian one point per call = {t / times[1]:5.2f}x this")
        for batch in (1, 10, 30, 100, 1000):
            t = times[batch]
            vs = f"  {t_amf / t:5.2f}x AMF" if t_amf is not None else ""
            print(f"  Mondrian partial_fit, batches of {batch:>5}: {t:6.2f} s = "
                  f"{n / t:8,.0f} points/s{vs}")
        n_pre = min(n, 1000)
        t_amf_pre = _river_prequential(X, yt, classify, n_pre) if t_amf is not None else None
        t_pre = _prequential(lambda c=new_cls: c(10, LIFETIME, random_state=0), X, yt, kwargs,
                             n_pre)
        if t_amf_pre is not None:
            print(f"  test-then-train on the first {n_pre:,} points (predict, then learn, "
                  f"per point): AMF {n_pre / t_amf_pre:8,.0f} points/s, Mondrian "
                  f"{n_pre / t_pre:8,.0f} points/s = {t_amf_pre / t_pre:5.2f}x AMF")
        if not classify:
            for batch in (1, 100):
                t = _stream(lambda: Previous(10, LIFETIME, random_state=0), X, yt, batch, {})
                vs = f"  {t_amf / t:5.2f}x AMF" if t_amf is not None else ""
                print(f"  previous implementation, batches of {batch:>5}: {t:6.2f} s = "
                      f"{n / t:8,.0f} points/s{vs}")


def bench_grid():
    g = np.linspace(-0.5, 1.5, 200)
    grid = np.column_stack([a.ravel() for a in np.meshgrid(g, g)])
    X = np.random.default_rng(0).random((10_000, 2))
    f = MondrianForestRegressor(10, LIFETIME, random_state=0).fit(X, np.sin(6 * X[:, 0]) + X[:, 1])
    f.predict(grid[:10], return_std=True)  # node posterior, cached
    t, _ = timed(lambda: f.predict(grid, return_std=True))
    print(f"== predict with std on a 200 x 200 grid, 10 trees fit on 10,000 2-D points: "
          f"{t:.3f} s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=["batch", "online", "grid"])
    args = ap.parse_args()
    n_train, n_test, n_stream = (4_000, 1_000, 1_000) if args.quick else (20_000, 5_000, 3_000)
    if args.only in (None, "batch"):
        bench_batch(n_train, n_test)
    if args.only in (None, "online"):
        bench_online(n_stream)
    if args.only in (None, "grid"):
        bench_grid()


if __name__ == "__main__":
    main()
