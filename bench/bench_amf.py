"""Aggregated Mondrian forests against River's, on the same streams.

Run ``python -m bench.bench_amf`` (``--quick`` for a smaller run). River is a
bench-only dependency (``bench/requirements.txt``). Both learners get the same
settings (10 trees, step 1, dirichlet 0.5, split_pure False) and the same streams,
min-max scaled to [0, 1] as River's documentation asks.

1. Progressive validation (predict each point, then learn it): accuracy or mean
   squared error on three streams, over several seeds: two moons (classification),
   Donoho-Johnstone's doppler signal with noise (1-D regression), and scikit-learn's
   breast cancer data (classification, D = 30, shuffled per seed).
2. Throughput (points per CPU second of this process; the machine is shared, so the
   ratios are what to compare, each set-up run in turns with River's and the best
   kept), on two moons and on the doppler stream: ``partial_fit`` one point per call,
   ``partial_fit`` on mini-batches of 100, and test-then-train one point at a time;
   River's ``learn_one`` / ``predict_one`` per point. "Without numba" is the same code
   with the compiled kernels turned off (its Python path), in the same process.
3. Where the time goes: a profile of test-then-train, by function (``--where``: one
   point per call split into the compiled kernel's call and the Python around it).

``--dump FILE`` saves, without River, the 42 arrays a mixed stream of calls grows
(``mixed_stream``); run it under two commits (``PYTHONPATH=DIR python
bench/bench_amf.py --dump FILE``, DIR a ``git archive`` of the other commit: run as a
script, the bench imports ``mondrian_core`` from DIR) and ``--compare A B`` says
which arrays differ, bit for bit: a speed change must leave them all equal.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

import numpy as np
from sklearn.datasets import load_breast_cancer, make_moons

from mondrian_core import AMFClassifier, AMFRegressor
from mondrian_core.datasets.synthetic import donoho_johnstone

REPEATS = 5


def scaled(X):
    lo, hi = X.min(axis=0), X.max(axis=0)
    return (X - lo) / np.where(hi > lo, hi - lo, 1.0)


def streams(n, seed):
    rng = np.random.default_rng(seed)
    X, y = make_moons(n, noise=0.25, random_state=seed)
    yield "two moons (classification)", scaled(X), y, "classifier"
    x = rng.random(n)
    y = donoho_johnstone("doppler", x) + 0.5 * rng.standard_normal(n)
    yield "doppler, noise sd 0.5 (regression)", x[:, None], y, "regressor"
    data = load_breast_cancer()
    order = rng.permutation(data.target.size)
    yield "breast cancer, D = 30 (classification)", scaled(data.data)[order], \
        data.target[order], "classifier"


def ours(kind, seed):
    if kind == "classifier":
        return AMFClassifier(10, step=1.0, dirichlet=0.5, split_pure=False, random_state=seed)
    return AMFRegressor(10, step=1.0, random_state=seed)


def river(kind, seed):
    from river import forest
    if kind == "classifier":
        return forest.AMFClassifier(n_estimators=10, step=1.0, use_aggregation=True,
                                    dirichlet=0.5, split_pure=False, seed=seed)
    return forest.AMFRegressor(n_estimators=10, step=1.0, use_aggregation=True, seed=seed)


def progressive_ours(model, X, y, kind):
    """Test-then-train: the loss of each point's prediction before learning it."""
    kw = {"classes": np.unique(y)} if kind == "classifier" else {}
    losses = np.empty(len(y) - 1)
    model.partial_fit(X[:1], y[:1], **kw)
    for i in range(1, len(y)):
        p = model.predict(X[i:i + 1])[0]
        losses[i - 1] = (p != y[i]) if kind == "classifier" else (p - y[i]) ** 2
        model.partial_fit(X[i:i + 1], y[i:i + 1])
    return losses.mean()


def progressive_river(model, X, y, kind):
    losses = np.empty(len(y) - 1)
    rows = [dict(enumerate(r)) for r in X.tolist()]
    target = y.tolist()
    model.learn_one(rows[0], target[0])
    for i in range(1, len(y)):
        p = model.predict_one(rows[i])
        losses[i - 1] = (p != target[i]) if kind == "classifier" else (p - target[i]) ** 2
        model.learn_one(rows[i], target[i])
    return losses.mean()


def quality(n, seeds):
    print("\n## Progressive validation (mean over seeds, +- standard error)\n")
    print("| stream | metric | this library | River | difference / its standard error |")
    print("|---|---|---|---|---|")
    table = {}
    for seed in range(seeds):
        for name, X, y, kind in streams(n, seed):
            a = progressive_ours(ours(kind, seed), X, y, kind)
            b = progressive_river(river(kind, seed), X, y, kind)
            table.setdefault((name, kind), []).append((a, b))
    for (name, kind), rows in table.items():
        r = np.array(rows)
        if kind == "classifier":
            r = 1.0 - r  # accuracy
        m = r.mean(axis=0)
        se = r.std(axis=0, ddof=1) / np.sqrt(len(r))
        d = r[:, 0] - r[:, 1]
        z = d.mean() / max(d.std(ddof=1) / np.sqrt(len(d)), 1e-12)
        metric = "accuracy" if kind == "classifier" else "mean squared error"
        print(f"| {name} | {metric} | {m[0]:.4f} +- {se[0]:.4f} | {m[1]:.4f} +- {se[1]:.4f} "
              f"| {z:+.2f} |")


def cpu(fn):
    t = time.process_time()
    fn()
    return time.process_time() - t


def load_baseline(path):
    """Import a second copy of ``mondrian_core`` from the checkout at ``path`` (a ``git
    archive`` of another commit), beside the one in use: both run in this process, in
    turns, so that the shared machine's load falls on both alike. Returns a function
    that makes that copy current (its modules in ``sys.modules``, for the imports its
    functions make when called) and returns that copy's ``mondrian_core``."""
    import importlib
    import sys

    def ours_modules():
        return {k: v for k, v in sys.modules.items()
                if k == "mondrian_core" or k.startswith("mondrian_core.")}

    current = ours_modules()
    for k in current:
        del sys.modules[k]
    sys.path.insert(0, path)
    try:
        module = importlib.import_module("mondrian_core")
    finally:
        sys.path.remove(path)
    theirs = ours_modules()
    sys.modules.update(current)

    def activate(modules):
        sys.modules.update(modules)

    def baseline_module():
        activate(theirs)
        return module

    return baseline_module, lambda: activate(current)


def throughput_stream(n, kind):
    """Two moons (classification) or the doppler signal with noise (regression)."""
    if kind == "classifier":
        X, y = make_moons(n, noise=0.25, random_state=0)
        return scaled(X), y
    rng = np.random.default_rng(0)
    x = rng.random(n)
    return x[:, None], donoho_johnstone("doppler", x) + 0.5 * rng.standard_normal(n)


def python_engine(fn):
    """``fn`` run with the compiled kernels turned off: the Python path of the same code."""
    from mondrian_core.forest import _amf_jit

    def run():
        saved, _amf_jit._kernels = _amf_jit._kernels, False
        try:
            fn()
        finally:
            _amf_jit._kernels = saved
    return run


def throughput(n, kind, baseline=None):
    X, y = throughput_stream(n, kind)
    rows = [dict(enumerate(r)) for r in X.tolist()]
    target = y.tolist()
    kw = {"classes": np.array([0, 1])} if kind == "classifier" else {}

    def learners(make):
        def one():
            m = make()
            for i in range(n):
                m.partial_fit(X[i:i + 1], y[i:i + 1], **kw)

        def batch():
            m = make()
            for i in range(0, n, 100):
                m.partial_fit(X[i:i + 100], y[i:i + 100], **kw)

        def ttt():
            m = make()
            m.partial_fit(X[:1], y[:1], **kw)
            for i in range(1, n):
                m.predict(X[i:i + 1])
                m.partial_fit(X[i:i + 1], y[i:i + 1])
        return one, batch, ttt

    setups = ("one", "batch", "ttt")
    ours_one, ours_batch, ours_ttt = learners(lambda: ours(kind, 0))
    jobs = [("ours_one", ours_one), ("river_learn", None), ("ours_batch", ours_batch),
            ("ours_ttt", ours_ttt), ("river_ttt", None)]
    jobs += [(f"py_{k}", python_engine(f)) for k, f in zip(
        setups, learners(lambda: ours(kind, 0)), strict=True)]
    if baseline is not None:
        baseline_module, restore = load_baseline(baseline)

        def base():
            module = baseline_module()
            if kind == "classifier":
                return module.AMFClassifier(10, step=1.0, dirichlet=0.5, split_pure=False,
                                            random_state=0)
            return module.AMFRegressor(10, step=1.0, random_state=0)

        def with_restore(fn):
            def run():
                try:
                    fn()
                finally:
                    restore()
            return run
        jobs += [(f"base_{k}", with_restore(f)) for k, f in zip(
            setups, learners(base), strict=True)]

    def river_learn():
        m = river(kind, 0)
        for i in range(n):
            m.learn_one(rows[i], target[i])

    def river_ttt():
        m = river(kind, 0)
        m.learn_one(rows[0], target[0])
        for i in range(1, n):
            m.predict_one(rows[i])
            m.learn_one(rows[i], target[i])

    jobs = [(k, fn or {"river_learn": river_learn, "river_ttt": river_ttt}[k]) for k, fn in jobs]
    best = {}
    for r in range(REPEATS):
        for name, fn in jobs if r % 2 == 0 else jobs[::-1]:  # turns, both ways
            best[name] = min(best.get(name, np.inf), cpu(fn))
    rate = {k: n / v for k, v in best.items()}
    stream = "two moons" if kind == "classifier" else "doppler (regression)"
    print(f"\n## Throughput, {stream}, {n:,} points, 10 trees (points per CPU second, "
          f"best of {REPEATS})\n")
    extra = " | baseline | its ratio" if baseline else ""
    print(f"| set-up | this library | River | ratio | without numba | its ratio{extra} |")
    print("|---|---|---|---|---|---|" + ("---|---|" if baseline else ""))
    for label, a, b in (("learn, one point per call", "one", "river_learn"),
                        ("learn, mini-batches of 100", "batch", "river_learn"),
                        ("test-then-train, one point", "ttt", "river_ttt")):
        row = f"| {label} | {rate['ours_' + a]:,.0f} | {rate[b]:,.0f} | " \
              f"{rate['ours_' + a] / rate[b]:.2f} | {rate['py_' + a]:,.0f} | " \
              f"{rate['py_' + a] / rate[b]:.2f} |"
        if baseline:
            row += f" {rate['base_' + a]:,.0f} | {rate['base_' + a] / rate[b]:.2f} |"
        print(row)
    return ours_ttt


def mixed_stream() -> dict:
    """The arrays a stream of mixed calls grows, for comparing two commits: the
    classifier (``split_pure`` False and True) and the regressor fed single points
    (each predicted first), batches of 100 to 2 rows (inserted one by one, or by the
    joint draw above ``SEQUENTIAL_UPDATES`` point-trees with ``split_pure``), then
    single points and a batch of 250. Per learner: the store's ten node arrays,
    ``log_weight_``, ``log_weight_tree_``, every prediction made on the way and
    ``weighted_depth`` on a grid."""
    X, y = make_moons(1300, noise=0.25, random_state=3)
    X = scaled(X)
    targets = {"clf": y, "clfpure": y, "reg": np.sin(6 * X[:, 0]) + 0.3 * np.random.default_rng(
        1).standard_normal(X.shape[0])}
    grid = np.stack(np.meshgrid(np.linspace(0, 1, 9), np.linspace(0, 1, 9)), -1).reshape(-1, 2)
    sizes = [1] * 300 + [100, 60, 5, 3, 2, 7, 30, 45, 51, 100, 100] + [1] * 200 + [250]
    makers = {"clf": lambda: AMFClassifier(10, split_pure=False, random_state=0),
              "clfpure": lambda: AMFClassifier(10, split_pure=True, random_state=1),
              "reg": lambda: AMFRegressor(10, random_state=2)}
    out = {}
    for name, make in makers.items():
        model, target, preds, start = make(), targets[name], [], 0
        kw = {} if name == "reg" else {"classes": [0, 1]}
        for size in sizes:
            xb, yb = X[start:start + size], target[start:start + size]
            if start and size == 1:
                preds.append(model.predict(xb) if name == "reg" else model.predict_proba(xb))
            model.partial_fit(xb, yb, **kw)
            start += size
        nodes = model.trees_.arrays()
        for field in ("tree", "parent", "left", "right", "split_time", "split_dim",
                      "split_loc", "lower", "upper", "stats"):
            out[f"{name}_{field}"] = nodes[field]
        out[f"{name}_log_weight"] = model.log_weight_
        out[f"{name}_log_weight_tree"] = model.log_weight_tree_
        out[f"{name}_predictions"] = np.concatenate(preds)
        out[f"{name}_weighted_depth"] = model.weighted_depth(grid)
    return out


def compare(path_a, path_b) -> int:
    """Print the arrays of two ``--dump`` files that differ (bit for bit: values,
    shape and dtype); return how many."""
    a, b = np.load(path_a), np.load(path_b)
    names = sorted(set(a.files) | set(b.files))
    differ = [k for k in names if k not in a.files or k not in b.files
              or a[k].dtype != b[k].dtype or a[k].shape != b[k].shape
              or a[k].tobytes() != b[k].tobytes()]
    for k in differ:
        print(f"differs: {k}")
    print(f"{len(names)} arrays, {len(differ)} differ")
    return len(differ)


def profile(fn):
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(12)
    print("\n## Where test-then-train spends its time (cProfile, own time)\n")
    print("```")
    print("\n".join(line for line in out.getvalue().splitlines()[6:] if line.strip()))
    print("```")


def where_one_point(n=2000, repeats=5):
    """Split one point per call (two moons) into the kernel's call and the Python around
    it, and time the compiled work alone (all rows in one call) and one prediction."""
    from mondrian_core.forest import _amf_jit
    kernels = _amf_jit.kernels()
    if kernels is None:
        print("numba is not installed (or MONDRIAN_CORE_JIT=0): nothing to split")
        return
    X, y = throughput_stream(n, "classifier")
    inner, original = [0.0], kernels.learn_rows

    def timed(*args):
        t = time.perf_counter()
        out = original(*args)
        inner[0] += time.perf_counter() - t
        return out
    best = (np.inf, 0.0)
    for _ in range(repeats):
        kernels.learn_rows, inner[0] = timed, 0.0
        try:
            m = ours("classifier", 0).partial_fit(X[:1], y[:1], classes=[0, 1])
            t = time.perf_counter()
            for i in range(1, n):
                m.partial_fit(X[i:i + 1], y[i:i + 1])
            best = min(best, (time.perf_counter() - t, inner[0]))
        finally:
            kernels.learn_rows = original
    m = ours("classifier", 0).partial_fit(X[:1], y[:1], classes=[0, 1])
    t = time.perf_counter()
    m.partial_fit(X[1:], y[1:])
    alone = time.perf_counter() - t
    t = time.perf_counter()
    for i in range(n):
        m.predict_proba(X[i:i + 1])
    predict = time.perf_counter() - t
    nodes = (m.trees_.path_matrix(X) >= 0).sum() / n
    us = 1e6 / (n - 1)
    print(f"\n## One point per call, two moons, {n:,} points (best of {repeats})\n")
    print(f"- partial_fit: {best[0] * us:.1f} us a point, of which the kernel's call "
          f"{best[1] * us:.1f} us")
    print(f"- the compiled work alone ({n - 1:,} rows in one call): {alone * us:.1f} us a "
          f"point, {nodes:.0f} path nodes over the trees")
    print(f"- predict_proba at one point: {predict * 1e6 / n:.1f} us")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run")
    parser.add_argument("--baseline", metavar="DIR",
                        help="a checkout of another commit (git archive) whose throughput "
                             "runs in turns in the same process")
    parser.add_argument("--throughput-only", action="store_true",
                        help="skip the progressive validation and the profile")
    parser.add_argument("--dump", metavar="FILE",
                        help="save the arrays of the mixed stream (no River) and stop")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"),
                        help="compare two --dump files bit for bit and stop")
    parser.add_argument("--where", action="store_true",
                        help="split one point per call into the kernel and the rest, and stop")
    args = parser.parse_args()
    if args.where:
        where_one_point()
        return
    if args.dump:
        import mondrian_core
        arrays = mixed_stream()
        np.savez(args.dump, **arrays)
        print(f"{len(arrays)} arrays from {mondrian_core.__file__} in {args.dump}")
        return
    if args.compare:
        raise SystemExit(1 if compare(*args.compare) else 0)
    import river
    print(f"River {river.__version__}, NumPy {np.__version__}")
    if not args.throughput_only:
        quality(300 if args.quick else 1000, 3 if args.quick else 10)
    n = 500 if args.quick else 2000
    ttt = throughput(n, "classifier", args.baseline)
    throughput(n, "regressor", args.baseline)
    if not args.throughput_only:
        profile(ttt)


if __name__ == "__main__":
    main()
