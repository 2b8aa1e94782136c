"""Hostile values against every public entry point and every URL key (the red team's
search for inputs that crash, stall, overflow or inject markdown).

    python -m bench.fuzz              # both phases, a few minutes
    python -m bench.fuzz --library    # mondrian_core only
    python -m bench.fuzz --app        # the pages' URL keys only (AppTest)

Library: for every function and estimator in ``mondrian_core.__all__``, each parameter
in turn gets each hostile value while the others keep working values (estimators:
constructor parameters, then ``fit``'s data, then a prediction). A result is clean if
the call returns or raises ``InputError``; anything else (another exception, a timeout,
a MemoryError under the address-space cap, a non-finite prediction) is reported.

App: every page is run by AppTest with every one of its URL keys set to a hostile value
(one run per page and value). A run is clean if it raises nothing, shows no traceback,
and no notice or error shows the value as markdown (a link, an image, HTML).

Target: 0 unclean. The result goes in bench/RESULTS.md ("Hostile inputs").
"""
from __future__ import annotations

import argparse
import inspect
import re
import resource
import signal
import sys
import time
import warnings

import numpy as np
from scipy import stats

#: Each library call's limit (seconds): the red team's was 40.
CASE_SECONDS = 20
#: The process's address space (bytes): a value that asks for more fails here, not the
#: machine (the red team capped each case at 3 GB).
ADDRESS_SPACE = 4 * 2**30

RNG = np.random.default_rng(24)
X40 = RNG.random((40, 2))
Y40 = np.sin(6 * X40[:, 0]) + 0.1 * RNG.standard_normal(40)
LABELS40 = (Y40 > 0).astype(int)

HOSTILE = [None, float("nan"), float("inf"), -float("inf"), 1e308, -1e308, -1, 0, 0.5,
           2**63, 10**9, 5e-324, True, "x", "", [], [[]], 1j, object(), {"a": 1},
           np.array([np.nan]), np.zeros((0, 2)), np.full((40, 2), 1e300), X40 + 1e8,
           -X40, np.zeros((40, 2)), [[1, 2], [3]], stats.expon, "![](https://h/p.png)"]

#: Result containers and errors: built by the library, not entry points.
NOT_ENTRY_POINTS = {"InputError", "CsvTable", "Dataset", "MondrianSample", "MondrianTrees",
                    "LifetimePath", "LifetimePosterior", "LaplaceLifetimePosterior"}


def _csv_bytes() -> bytes:
    rows = "\n".join(f"{a:.4f},{b:.4f},{c:.4f}" for (a, b), c in zip(X40, Y40))
    return ("a,b,y\n" + rows + "\n").encode()


def _working_values():
    """A working value for each parameter name the entry points use."""
    import mondrian_core as mc

    path = mc.lifetime_path(X40, Y40, terminal_lifetime=3.0, n_trees=4, random_state=0)
    sample = mc.sample_mondrian_process([0, 0], [1, 1], 2.0, random_state=0)
    trees = mc.sample_mondrian_trees(X40, 3, 2.0, random_state=0)
    data = mc.uniform_box(40, random_state=0)
    return {
        "X": X40, "Y": None, "X_train": X40, "y": Y40, "y_train": Y40, "X_val": None,
        "y_val": None, "lower": [0.0, 0.0], "upper": [1.0, 1.0], "sub_lower": [0.2, 0.2],
        "sub_upper": [0.6, 0.6], "lifetime": 2.0, "terminal_lifetime": 3.0, "n_trees": 4,
        "n": 40, "n_dims": 1, "random_state": 0, "prior": stats.gamma(2.0, scale=2.0),
        "path": path, "sample": sample, "trees": trees, "dataset": data,
        "source": _csv_bytes(), "name": "diabetes", "labels": np.zeros((3, 40), int),
        "n_grid": 20, "n_samples": 50, "n_steps": 2, "n_draws": 1, "noise_variance": 0.1,
        "prior_variance": 1.0, "partitions": None, "max_cells": 2000.0,
        "random_state_": 0, "standardize": True, "noise_std": 0.1, "noise": 0.1,
        "extension_seed": 0, "block_size": None, "progress": None, "timings": None,
        "fractions": (0.6, 0.2, 0.2), "return_indices": False, "method": "auto",
        "turns": 1.5, "feature_columns": None, "target_column": None,
    }


def _call(fn, timeout=CASE_SECONDS):
    """('ok' | 'input' | an unclean description)."""
    from mondrian_core.errors import InputError

    def alarm(*_):
        raise TimeoutError(f"over {timeout} s")

    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(timeout)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn()
        return "ok" if _finite_result(result) else "non-finite result"
    except InputError:
        return "input"
    except BaseException as err:  # noqa: BLE001 - every other outcome is the finding
        if isinstance(err, KeyboardInterrupt):
            raise
        return f"{type(err).__name__}: {str(err).splitlines()[0][:140] if str(err) else ''}"
    finally:
        signal.alarm(0)


def _finite_result(result) -> bool:
    """A prediction (an array of floats) must be finite; other results are taken as is."""
    if isinstance(result, np.ndarray) and result.dtype.kind == "f":
        return bool(np.all(np.isfinite(result)))
    return True


def _estimator_calls(cls, values):
    """(label, thunk) pairs: each constructor parameter hostile, then fit's data."""
    import mondrian_core as mc

    sig = inspect.signature(cls)
    needs_partitions = "partitions" in sig.parameters

    def make(**over):
        kwargs = {}
        if needs_partitions:
            kwargs["partitions"] = mc.FastClusterPartitions(8, random_state=0)
        if "n_partitions" in sig.parameters:
            kwargs["n_partitions"] = 8
        if "n_estimators" in sig.parameters:
            kwargs["n_estimators"] = 3
        kwargs.update(over)
        return cls(**kwargs)

    y = LABELS40 if cls.__name__.endswith("Classifier") else Y40

    def fit_predict(est, X=X40, y=y, X_new=X40):
        est.fit(X, y)
        for method in ("predict", "transform", "labels", "kernel"):
            if hasattr(est, method):
                return getattr(est, method)(X_new)
        return None

    for name, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        for value in HOSTILE:
            yield (f"{cls.__name__}({name}={_show(value)}).fit",
                   lambda name=name, value=value: fit_predict(make(**{name: value})))
    for what in ("X", "y", "X_new"):
        for value in HOSTILE:
            yield (f"{cls.__name__}().fit/predict({what}={_show(value)})",
                   lambda what=what, value=value: fit_predict(make(), **{what: value}))
    if hasattr(cls, "partial_fit"):
        for value in HOSTILE:
            kwargs = {"classes": value} if cls.__name__.endswith("Classifier") else {}
            yield (f"{cls.__name__}().partial_fit(classes/y={_show(value)})",
                   lambda kwargs=kwargs, value=value: make().partial_fit(
                       X40, y if kwargs else value, **kwargs))


def _function_calls(fn, values):
    sig = inspect.signature(fn)
    base, missing = {}, []
    for name, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if name in values and values[name] is not None:
            base[name] = values[name]
        elif param.default is param.empty:
            missing.append(name)
    if missing:
        print(f"  skipped {fn.__name__}: no working value for {missing}", file=sys.stderr)
        return
    for name, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        for value in HOSTILE:
            kwargs = {**base, name: value}
            yield f"{fn.__name__}({name}={_show(value)})", lambda kwargs=kwargs: fn(**kwargs)


def _show(value) -> str:
    text = repr(value) if not isinstance(value, np.ndarray) else f"array{value.shape}"
    return text if len(text) <= 30 else text[:30] + "\u2026"


def library_fuzz() -> tuple[int, list[str]]:
    import mondrian_core as mc

    values = _working_values()
    cases, unclean = 0, []
    for name in mc.__all__:
        obj = getattr(mc, name)
        if name in NOT_ENTRY_POINTS or not callable(obj):
            continue
        calls = (_estimator_calls(obj, values) if hasattr(obj, "fit")
                 else _function_calls(obj, values))
        t0, n0 = time.perf_counter(), cases
        for label, thunk in calls:
            cases += 1
            outcome = _call(thunk)
            if outcome not in ("ok", "input"):
                unclean.append(f"{label}: {outcome}")
        print(f"  {name}: {cases - n0} cases, {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return cases, unclean


#: Values a link may carry: markdown and HTML to echo, numbers out of every range.
URL_HOSTILE = ["![](https://h.example/p.png)", "[x](https://h.example)",
               "<img src=x onerror=alert(1)>", ":red[x] **b** `c` $x$", "1e309", "-1",
               "nan", "9" * 400]
#: Markdown that must not reach the page from a link: an image, a link, HTML (searched
#: in the text with its escaped characters taken out: those show as themselves).
_MARKUP = re.compile(r"\]\(|<img|<script")


def _markup(text: str) -> bool:
    return bool(_MARKUP.search(re.sub(r"\\.", "\x00", text)))


def app_fuzz() -> tuple[int, list[str]]:
    from streamlit.testing.v1 import AppTest

    from bench._browser import ROOT
    from explorer_ui.navigation import VIEWS

    def run_page(path, *, query, timeout):
        at = AppTest.from_file(str(ROOT / path), default_timeout=timeout)
        at.query_params.update(query)
        return at.run()

    # every page at its defaults (the tests' small link values stay in tests/)
    PAGES = {view.path: {} for view in VIEWS}
    cases, unclean = 0, []
    for page, small in PAGES.items():
        clean = run_page(page, query=small, timeout=300)
        keys = sorted(k for k in clean.query_params if k not in small) + ["tour"]
        t0 = time.perf_counter()
        for value in URL_HOSTILE:
            cases += 1
            label = f"{page} with every key = {value[:30]!r}"
            try:
                at = run_page(page, query={**small, **{k: value for k in keys}}, timeout=300)
            except Exception as err:  # noqa: BLE001 - a run that cannot finish is the finding
                unclean.append(f"{label}: {type(err).__name__}: {err}")
                continue
            texts = ([t.value for t in at.toast] + [e.value for e in at.error]
                     + [w.value for w in at.warning] + [m.value for m in at.markdown])
            if at.exception:
                unclean.append(f"{label}: exception {at.exception[0].value[:140]}")
            if any("Traceback" in t for t in texts):
                unclean.append(f"{label}: a traceback shown")
            echoed = [t for t in texts if _markup(t)]
            if echoed:
                unclean.append(f"{label}: markdown echoed: {echoed[0][:140]}")
        print(f"  {page}: {len(keys)} keys x {len(URL_HOSTILE)} values, "
              f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return cases, unclean


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", action="store_true")
    parser.add_argument("--app", action="store_true")
    args = parser.parse_args(argv)
    both = not (args.library or args.app)
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    total, found = 0, []
    for run, wanted in ((library_fuzz, args.library or both), (app_fuzz, args.app or both)):
        if not wanted:
            continue
        t0 = time.perf_counter()
        cases, unclean = run()
        print(f"{run.__name__}: {cases} cases, {len(unclean)} unclean, "
              f"{time.perf_counter() - t0:.0f} s")
        for line in unclean:
            print("  UNCLEAN", line)
        total, found = total + cases, found + unclean
    print(f"total: {total} cases, {len(found)} unclean")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
