"""Many users at once: python -m bench.load_app [--users 10]

Starts the app on 127.0.0.1 and drives headless Chromium sessions (one browser, one
context per user, Playwright's async API) through every page, each user with its own
seed in the URL, moving each page's main widget once. Two runs, each on a fresh server:

1. alone: the users one after the other (the reference pictures and latencies);
2. load: all users at the same time.

Checks (the script exits 1 if any fails):

- isolation: under load every user sees exactly the charts the same URL shows alone
  (same seed -> same fingerprints, after the page load and after the widget move), and
  different seeds show different charts;
- no exception box and no st.error on any page;
- the server's memory (VmRSS of the streamlit process, sampled every 0.2 s) stays
  within the bound derived below.

The memory bound. Every cache that keeps per-user results has ``max_entries`` (the
hand-kept sweep store keeps 4 per kind), so what the caches can hold does not grow with
the number of users. The bound is

    peak VmRSS of the alone run  (code, one user's working memory, caches partly filled)
  + sum over caches of max_entries x the largest single entry, measured
  + (users - 1) x the largest rise of VmRSS during one page step alone (the working
    memory of the other users' simultaneous runs; session state, widget values only,
    is inside it: /_stcore/metrics counts session-state items, not bytes).

Entry sizes come from the server's own ``/_stcore/metrics`` (bytes per cache): the
largest growth of a cache during one user's visit of the alone run is at least its
largest single entry (a visit adds one to a few entries), so this over-estimates.
Streamlit does not see inside two stores, measured here instead (pickled): the
Partition GPs page's fitted partitions (a cache_resource) at the page's defaults, and
the shared stores of explorer_ui (sweeps, Figure 8 searches, built charts), counted at
their byte bounds plus the sweeps' remembered posterior predictives (``MAX_MOMENTS``).
"""
from __future__ import annotations

import argparse
import ast
import asyncio
import pickle
import re
import sys
import time
import urllib.request
from collections import defaultdict

from bench._browser import (
    PAGE_WIDGETS,
    ROOT,
    act,
    error_count,
    fingerprints,
    load,
    new_browser,
    new_page,
    p50_p95,
    rss_mb,
    serve_app,
    server_pid,
    wait_idle,
)
from mondrian_core.sweep import MAX_MOMENTS

WARMUP_SEED = 999
SETTLE_MS = 1500
METRICS_TTL = 5.2  # /_stcore/metrics recomputes cache sizes at most every 5 s


# ---------------------------------------------------------------- sessions


async def user(browser, url, seed, widgets, on_step=None, before_close=None):
    """One user through every page: {page: record} with latencies, fingerprints, errors.
    ``on_step()`` runs after each page, ``await before_close()`` at the end of the visit
    (the session is still open)."""
    context, page = await new_page(browser)
    out = {}
    try:
        await page.goto(url)
        await page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                                     timeout=180_000)
        for w in widgets:
            rec = {}
            try:
                rec["load_ms"], rec["fp_load"] = await load(page, w.url(url, seed))
                # a second look: a page seen idle with charts still to come is counted
                # (late), and the pictures compared are the settled ones
                await page.wait_for_timeout(SETTLE_MS)
                if await fingerprints(page) != rec["fp_load"]:
                    rec["late"] = True
                    _, rec["fp_load"] = await wait_idle(page, "|".join(rec["fp_load"]))
                rec["move_ms"], rec["fp_move"] = await act(page, w)
                rec["errors"] = await error_count(page)
            except Exception as err:  # noqa: BLE001 - a failed step is a failed check
                rec["failure"] = repr(err)[:300]
            out[w.path] = rec
            if on_step:
                on_step()
        if before_close:
            await before_close()
    finally:
        await context.close()
    return out


class Memory:
    """Samples the server's VmRSS every ``every`` seconds while a run goes on."""

    def __init__(self, pid, every=0.2):
        self.pid, self.every, self.samples, self._task = pid, every, [], None

    async def _loop(self):
        while True:
            self.samples.append(rss_mb(self.pid))
            await asyncio.sleep(self.every)

    def __enter__(self):
        self._task = asyncio.get_running_loop().create_task(self._loop())
        return self

    def __exit__(self, *exc):
        self._task.cancel()
        self.samples.append(rss_mb(self.pid))

    @property
    def peak(self):
        return max(self.samples)


def cache_bytes(url) -> dict[str, int]:
    """Bytes per cache (and per session state) from the server's /_stcore/metrics."""
    with urllib.request.urlopen(f"{url}/_stcore/metrics", timeout=30) as r:
        text = r.read().decode()
    out = defaultdict(int)
    for m in re.finditer(r'^cache_memory_bytes\{(.*)\} (\d+)', text, re.M):
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        name = labels.get("cache", "")
        out[(labels.get("cache_type", ""), name)] += int(m.group(2))
    return dict(out)


async def warm_up(browser, url, widgets):
    """First runs of a fresh server (imports), not measured."""
    await user(browser, url, WARMUP_SEED, widgets)


async def run_alone(url, seeds, widgets):
    from playwright.async_api import async_playwright

    pid = server_pid(url)
    results, growth = {}, defaultdict(int)
    async with async_playwright() as p:
        browser = await new_browser(p)
        await warm_up(browser, url, widgets)
        await asyncio.sleep(METRICS_TTL)
        caches = cache_bytes(url)
        step = {"start": rss_mb(pid), "peak": rss_mb(pid), "rise": 0.0}

        def on_step():  # a page step has finished: how far did VmRSS rise during it?
            step["rise"] = max(step["rise"], step["peak"] - step["start"])
            step["start"] = step["peak"] = rss_mb(pid)

        async def track():
            while True:
                step["peak"] = max(step["peak"], rss_mb(pid))
                await asyncio.sleep(0.1)

        with Memory(pid) as mem:
            tracker = asyncio.get_running_loop().create_task(track())
            async def measure_caches():  # at the end of a visit, its session still open
                nonlocal caches
                await asyncio.sleep(METRICS_TTL)  # the server recomputes sizes after this
                now = cache_bytes(url)
                for k, v in now.items():  # growth of each cache over one user's visit
                    growth[k] = max(growth[k], v - caches.get(k, 0))
                caches = now

            for seed in seeds:
                results[seed] = await user(browser, url, seed, widgets, on_step,
                                           measure_caches)
                print(f"alone: user {seed} done", file=sys.stderr, flush=True)
            tracker.cancel()
        await browser.close()
    return results, mem, dict(growth), step["rise"]


async def run_load(url, seeds, widgets):
    from playwright.async_api import async_playwright

    pid = server_pid(url)
    async with async_playwright() as p:
        browser = await new_browser(p)
        await warm_up(browser, url, widgets)
        start_rss = rss_mb(pid)
        t0 = time.perf_counter()
        with Memory(pid) as mem:
            outs = await asyncio.gather(*(user(browser, url, s, widgets) for s in seeds))
        wall = time.perf_counter() - t0
        await browser.close()
    return dict(zip(seeds, outs)), mem, start_rss, wall


# ---------------------------------------------------------------- the memory bound


def max_entries_by_function() -> dict[str, int]:
    """``max_entries`` of every st.cache_data / st.cache_resource in pages/, by name."""
    out = {}
    for path in (ROOT / "pages").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef):
                continue
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and getattr(dec.func, "attr", "") in (
                        "cache_data", "cache_resource"):
                    kw = {k.arg: k.value for k in dec.keywords}
                    n = kw.get("max_entries")
                    out[node.name] = ast.literal_eval(n) if n is not None else None
    return out


def partitions_mb() -> float:
    """Pickled size of the largest fitted partitions at the Partition GPs page's defaults
    (a cache_resource: Streamlit's metrics do not see inside it)."""
    from mondrian_core import toy_jumps_1d
    from mondrian_core.experiments.gp_experiments import PARTITION_KERNELS, fitted_partitions

    d = toy_jumps_1d(n=150, random_state=0)
    return max(len(pickle.dumps(fitted_partitions(k, d.X, d.y, n_partitions=105, max_level=6,
                                                  lifetime=20.0, random_state=0)))
               for k in PARTITION_KERNELS) / 2**20


def memory_bound(alone_peak, growth, step_rise, users):
    """(bound in MB, rows explaining it)."""
    limits = max_entries_by_function()
    rows, caches = [], 0.0
    for (ctype, name), grew in sorted(growth.items()):
        if ctype == "st_session_state" or grew <= 0:
            continue
        fn = name.rsplit(".", 1)[-1]
        if fn == "partitions":  # counted below, measured
            continue
        n = limits.get(fn)
        if n is None:
            rows.append(f"  {name} ({ctype}): NO max_entries")
            n = 0
        caches += n * grew / 2**20
        rows.append(f"  {name:45} {n:3} x {grew / 2**20:7.2f} MB = {n * grew / 2**20:7.1f} MB")
    parts = partitions_mb()
    rows.append(f"  {'partitions (cache_resource, pickled)':45} {limits['partitions']:3} x "
                f"{parts:7.2f} MB = {limits['partitions'] * parts:7.1f} MB")
    # The shared stores are bounded in bytes (sizes counted when a result is stored); a
    # stored sweep may then remember up to MAX_MOMENTS predictives of the posterior
    # page's 300-point grid (mean and variance), counted on top.
    from explorer_ui.compute import RESULTS
    from explorer_ui.figure_cache import FIGURES

    # (Figure 8 at scale is one small result per server, kept by explorer_ui/compute.py)
    moments = RESULTS.max_entries * MAX_MOMENTS * 2 * 300 * 8 / 2**20
    store = (RESULTS.max_bytes + FIGURES.max_bytes) / 2**20 + moments
    rows.append(f"  {'sweeps + charts (byte bounds) + moments':45} = {store:7.1f} MB")
    caches += limits["partitions"] * parts + store
    bound = alone_peak + caches + (users - 1) * step_rise
    rows.insert(0, f"  peak VmRSS alone {alone_peak:.0f} MB + caches {caches:.0f} MB + "
                   f"{users - 1} users x the largest VmRSS rise in one page step alone "
                   f"{step_rise:.0f} MB = {bound:.0f} MB")
    return bound, rows


# ---------------------------------------------------------------- checks and report


def check(alone, loaded, widgets):
    problems = []
    seeds = sorted(alone)
    for w in widgets:
        for s in seeds:
            a, b = alone[s].get(w.path, {}), loaded[s].get(w.path, {})
            for who, rec in (("alone", a), ("load", b)):
                if "failure" in rec:
                    problems.append(f"{w.path} seed {s} ({who}): {rec['failure']}")
                elif rec.get("errors"):
                    problems.append(f"{w.path} seed {s} ({who}): {rec['errors']} error box(es)")
            if "failure" in a or "failure" in b:
                continue
            for k in ("fp_load", "fp_move"):
                if a[k] != b[k]:
                    diff = [f"chart {i}: {x} vs {y}" for i, (x, y) in
                            enumerate(zip(a[k], b[k])) if x != y]
                    if len(a[k]) != len(b[k]):
                        diff.append(f"{len(a[k])} vs {len(b[k])} charts")
                    problems.append(f"{w.path} seed {s}: under load the charts differ from "
                                    f"alone ({k}; alone vs load: {'; '.join(diff)})")
        pictures = {tuple(alone[s][w.path]["fp_load"]) for s in seeds
                    if "fp_load" in alone[s].get(w.path, {})}
        if len(pictures) < len(seeds):
            problems.append(f"{w.path}: {len(seeds) - len(pictures) + 1} seeds show the same "
                            "charts")
    return problems


def latency_rows(alone, loaded, widgets):
    rows = []
    for w in widgets:
        cells = []
        for res in (alone, loaded):
            for k in ("load_ms", "move_ms"):
                v = [r[w.path][k] for r in res.values() if k in r.get(w.path, {})]
                cells.append(p50_p95(v))
        rows.append((w.name, cells))
    return rows


def report(alone, loaded, widgets, mem_alone, mem_load, load_start_rss, wall, bound, rows,
           problems):
    print("\nLatency in ms, p50 / p95 over the users "
          "(load: navigation -> charts drawn; move: widget change -> charts redrawn)")
    n = len(loaded)  # one result per user
    print(f"{'page':45} {'alone load':>13} {'alone move':>13} {f'{n} users load':>15} "
          f"{f'{n} users move':>15}")
    for name, cells in latency_rows(alone, loaded, widgets):
        print(f"{name:45} " + " ".join(f"{a:6.0f}/{b:<6.0f}" for a, b in cells[:2]) + "  "
              + "  ".join(f"{a:7.0f}/{b:<7.0f}" for a, b in cells[2:]))
    all_ = {k: [r[w.path][k] for res in (alone,) for r in res.values() for w in widgets
                if k in r.get(w.path, {})] for k in ("load_ms", "move_ms")}
    all_l = {k: [r[w.path][k] for r in loaded.values() for w in widgets
                 if k in r.get(w.path, {})] for k in ("load_ms", "move_ms")}
    print(f"{'all pages':45} " + " ".join(f"{a:6.0f}/{b:<6.0f}" for a, b in
                                          (p50_p95(all_['load_ms']), p50_p95(all_['move_ms'])))
          + "  " + "  ".join(f"{a:7.0f}/{b:<7.0f}" for a, b in
                             (p50_p95(all_l['load_ms']), p50_p95(all_l['move_ms']))))
    late = sum(r.get("late", False) for res in (alone, loaded) for u in res.values()
               for r in u.values())
    print(f"\nload run: {len(loaded)} users through {len(widgets)} pages in {wall:.0f} s; "
          f"pages seen idle before their last chart was drawn: {late}")
    print(f"\nMemory (VmRSS of the server): alone peak {mem_alone.peak:.0f} MB; load run "
          f"start {load_start_rss:.0f} MB, peak {mem_load.peak:.0f} MB, end "
          f"{mem_load.samples[-1]:.0f} MB; bound {bound:.0f} MB")
    print("\n".join(rows))
    if mem_load.peak > bound:
        problems.append(f"peak VmRSS {mem_load.peak:.0f} MB above the bound {bound:.0f} MB")
    print("\nChecks: " + ("all passed (isolation, no errors, memory)" if not problems else
                          f"{len(problems)} FAILED"))
    for p in problems:
        print("  FAIL:", p)
    return not problems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=10)
    args = ap.parse_args()
    seeds = list(range(1, args.users + 1))
    widgets = PAGE_WIDGETS
    with serve_app(".bench_load_alone.log") as url:
        alone, mem_alone, growth, step_rise = asyncio.run(
            run_alone(url, seeds, widgets))
    with serve_app(".bench_load.log") as url:
        loaded, mem_load, start_rss, wall = asyncio.run(
            run_load(url, seeds, widgets))
    bound, rows = memory_bound(mem_alone.peak, growth, step_rise, args.users)
    problems = check(alone, loaded, widgets)
    ok = report(alone, loaded, widgets, mem_alone, mem_load, start_rss, wall, bound, rows,
                problems)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
