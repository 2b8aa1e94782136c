"""The speed a person feels, in a real browser: python -m bench.bench_browser [--reps 5]

Serves the app on 127.0.0.1, opens every page in headless Chromium (Playwright) and,
for each page's main widget, measures the time from the user's action (an arrow key on
a slider, a click on a number input's +) to the charts updated and Streamlit idle
again; also each page's load (navigation start to charts drawn). Every repetition opens
the page with a new seed, so no result comes from a cache the previous one filled.

The baseline, measured in the same run between the repetitions, is a rerun of the Home
page that changes nothing (the "r" shortcut): the round trip browser -> server ->
browser on this machine at that moment. Ratios are p50 / baseline p50. Budgets (each
page's targets) are server times; the felt time includes them, so a felt time under
budget meets it. Timings are noisy on a shared machine: read the ratios and the p95s.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
from collections import defaultdict

from bench._browser import (
    BASELINE,
    WIDGETS,
    act,
    load,
    new_browser,
    new_page,
    p50_p95,
    serve_app,
    wait_for_app,
)


async def run(reps: int, only: str | None):
    from playwright.async_api import async_playwright

    widgets = [w for w in WIDGETS if only is None or only.lower() in w.name.lower()]
    moves, loads, baseline, failures = defaultdict(list), defaultdict(list), [], []
    with serve_app(".bench_browser.log") as url:
        async with async_playwright() as p:
            browser = await new_browser(p)
            context, page = await new_page(browser)
            await page.goto(url)  # the home page first: see tests/e2e/test_direct_links.py
            await wait_for_app(page, 120)
            for path in dict.fromkeys(w.path for w in widgets):  # warm-up: imports, first runs
                await load(page, f"{url}/{path}?seed=999")
            for rep in range(reps):
                for w in [BASELINE] + widgets:
                    try:
                        if w is BASELINE:
                            await page.goto(url)
                            await wait_for_app(page)
                            for _ in range(3):
                                baseline.append((await act(page, w))[0])
                            continue
                        ms, _ = await load(page, w.url(url, 1000 + rep))
                        loads[w.path].append(ms)
                        ms, _ = await act(page, w)
                        moves[w.name].append(ms)
                    except Exception as err:  # noqa: BLE001 - reported, the run goes on
                        failures.append(f"{w.name} rep {rep}: {err!r}"[:300])
                print(f"rep {rep + 1}/{reps} done", file=sys.stderr, flush=True)
            await context.close()
            await browser.close()
    return widgets, moves, loads, baseline, failures


def met(p50, p95, budget) -> str:
    """Whether a budget (ms) is met: by the p95, by the p50 only, or not; "" for none."""
    if budget is None:
        return ""
    return "yes" if p95 <= budget else ("p50 only" if p50 <= budget else "NO")


def report(widgets, moves, loads, baseline, failures) -> bool:
    b50, b95 = p50_p95(baseline)
    print(f"\nBaseline (a Home rerun that changes nothing): p50 {b50:.0f} ms, p95 {b95:.0f} ms, "
          f"n={len(baseline)}\n")
    print(f"{'widget change -> chart updated':58} {'p50 ms':>7} {'p95 ms':>7} {'x base':>7} "
          f"{'budget':>7}  met")
    ok = True
    for w in widgets:
        v = moves.get(w.name, [])
        p50, p95 = p50_p95(v)
        verdict = met(p50, p95, w.budget_ms)
        ok &= verdict != "NO"
        print(f"{w.name:58} {p50:7.0f} {p95:7.0f} {p50 / b50:7.1f} "
              f"{'' if w.budget_ms is None else f'{w.budget_ms:.0f}':>7}  {verdict} (n={len(v)})")
    print(f"\n{'page load (navigation -> charts drawn)':58} {'p50 ms':>7} {'p95 ms':>7} "
          f"{'x base':>7} {'budget':>7}  met")
    budgets = {w.path: w.load_budget_ms for w in widgets}
    for path, v in loads.items():
        p50, p95 = p50_p95(v)
        b = budgets.get(path)
        print(f"{'/' + path:58} {p50:7.0f} {p95:7.0f} {p50 / b50:7.1f} "
              f"{'' if b is None else f'{b:.0f}':>7}  {met(p50, p95, b)} (n={len(v)})")
    for f in failures:
        print("FAILED:", f)
    return ok and not failures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5, help="repetitions per widget (new seed each)")
    ap.add_argument("--only", help="only widgets whose name contains this text")
    args = ap.parse_args()
    ok = report(*asyncio.run(run(args.reps, args.only)))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
