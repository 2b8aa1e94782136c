"""Mondrian process budgets, measured (not asserted): python -m bench.bench_process

- sampling a 2-D Mondrian with about 10,000 cells: under 0.2 s;
- the Mondrian process page's first render under 2 s, a slider move under 300 ms
  (server-side script time, measured with streamlit's AppTest);
- a lifetime far too large is refused before any work.

Timings are noisy on a shared machine, so each line also gives a ratio to a
baseline run in the same process.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

from mondrian_core import InputError, extend_mondrian, sample_mondrian_process

ROOT = Path(__file__).resolve().parents[1]


def best(fn, repeat=5):
    """Median wall time of ``repeat`` calls (and the last result)."""
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def naive_sample(lower, upper, lifetime, rng, birth=0.0, out=None):
    """The obvious recursive sampler: one Python call per box."""
    out = [] if out is None else out
    sides = upper - lower
    t = birth + rng.exponential(1.0 / sides.sum())
    if t >= lifetime:
        out.append((lower, upper))
        return out
    d = 0 if rng.random() * sides.sum() < sides[0] else 1
    x = rng.uniform(lower[d], upper[d])
    lu, rl = upper.copy(), lower.copy()
    lu[d] = rl[d] = x
    naive_sample(lower, lu, lifetime, rng, t, out)
    naive_sample(rl, upper, lifetime, rng, t, out)
    return out


def main() -> None:
    sys.setrecursionlimit(10_000)
    rows = []
    lo, hi, lam = np.zeros(2), np.ones(2), 99.0  # E[cells] = (1 + 99)^2 = 10,000
    sample_mondrian_process(lo, hi, lam, 0)  # warm-up
    t_fast, s = best(lambda: sample_mondrian_process(lo, hi, lam, 1))
    n = s.n_cells
    rng = np.random.default_rng(0)
    t_exp, _ = best(lambda: rng.exponential(size=n))
    t_naive, cells = best(lambda: naive_sample(lo, hi, lam, np.random.default_rng(1)), 3)
    rows.append(("sample 2-D Mondrian, lifetime 99", f"{n:,} cells", t_fast, "0.2 s",
                 f"{t_naive / t_fast:.1f}x faster than naive recursion ({t_naive:.3f} s, "
                 f"{len(cells):,} cells); {t_fast / t_exp:.0f}x one rng.exponential({n:,})"))
    t_ext, e = best(lambda: extend_mondrian(s, [-0.5, -0.5], [1.5, 1.5], 2), 3)
    rows.append(("extend it to a box twice as wide", f"{e.n_cells:,} cells", t_ext, "-",
                 f"{t_ext / t_fast:.1f}x the sampling time"))
    t_restr, r = best(lambda: s.restrict([0.2, 0.3], [0.7, 0.6]), 3)
    rows.append(("restrict it to a sub-box", f"{r.n_cells:,} cells", t_restr, "-",
                 f"{t_restr / t_fast:.2f}x the sampling time"))

    def refuse():
        try:
            sample_mondrian_process(lo, hi, 1e6)
        except InputError as err:
            return str(err)
        raise AssertionError("not refused")

    t_guard, msg = best(refuse)
    rows.append(("refuse lifetime 1e6 (1e12 cells)", "InputError", t_guard, "no work",
                 f"{t_guard / t_fast:.4f}x the 10k sampling"))

    # -- the page, server side (AppTest runs the script without a browser)
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    page = str(ROOT / "pages" / "mondrian_process.py")
    # baseline: AppTest's own overhead on a one-line page
    t_trivial, _ = best(lambda: AppTest.from_string("import streamlit as st\nst.write('hi')")
                        .run(), 3)
    t0 = time.perf_counter()
    at = AppTest.from_file(page, default_timeout=60).run()
    t_cold = time.perf_counter() - t0
    assert not at.exception, at.exception
    st.cache_data.clear()
    t0 = time.perf_counter()
    at = AppTest.from_file(page, default_timeout=60).run()
    t_first = time.perf_counter() - t0
    t0 = time.perf_counter()
    at.run()
    t_rerun = time.perf_counter() - t0  # cached everything: the page's own overhead
    moves = []
    for key, values in (("time", [1.0, 2.0, 0.5, 2.5]), ("lifetime", [3.5, 4.0, 2.5]),
                        ("fill", [False, True])):
        for v in values:
            w = at.toggle(key=key) if key == "fill" else at.slider(key=key)
            t0 = time.perf_counter()
            w.set_value(v).run()
            moves.append((key, time.perf_counter() - t0))
            assert not at.exception, at.exception
    t_time = statistics.median([t for k, t in moves if k == "time"])
    t_life = statistics.median([t for k, t in moves if k == "lifetime"])
    # the time slider sits in a fragment: in the app a move reruns only that part, whose
    # work is the figure plus Streamlit's own serialisation of it (AppTest always reruns
    # the whole script, so it gives an upper bound)
    import plotly.io
    import plotly.tools

    from mondrian_core.figures.process import growth_figure

    small = sample_mondrian_process([0, 0], [1, 1], 3.0, 0)

    def fragment_work():
        fig = growth_figure(small, 1.7, fill=True)
        spec = plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)
        return plotly.io.to_json(spec, validate=False)

    t_frag, _ = best(fragment_work)
    base = f"x AppTest of a one-line page ({t_trivial:.3f} s)"
    rows.append(("page first render (fresh process)", "AppTest", t_cold, "2 s",
                 f"{t_cold / t_trivial:.1f}{base}; includes imports"))
    rows.append(("page first render (caches cleared)", "AppTest", t_first, "2 s",
                 f"{t_first / t_trivial:.1f}{base}"))
    rows.append(("page rerun, everything cached", "AppTest", t_rerun, "-",
                 f"{t_rerun / t_trivial:.1f}{base}"))
    rows.append(("time slider: whole-page rerun (median 4)", "AppTest", t_time, "0.3 s",
                 f"{t_time / t_trivial:.1f}{base}"))
    rows.append(("time slider: its fragment's work", "figure+json", t_frag, "0.3 s",
                 f"{t_frag / t_trivial:.1f}{base}"))
    rows.append(("lifetime slider: whole page (median 3)", "AppTest", t_life, "0.3 s",
                 f"{t_life / t_trivial:.1f}{base}; new sample and all checks"))

    w1 = max(len(r[0]) for r in rows)
    print(f"{'what':<{w1}}  {'size':>14}  {'seconds':>9}  {'budget':>7}  ratio to baseline")
    for what, size, t, budget, note in rows:
        print(f"{what:<{w1}}  {size:>14}  {t:9.4f}  {budget:>7}  {note}")


if __name__ == "__main__":
    main()
