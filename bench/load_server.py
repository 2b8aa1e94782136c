"""A class at once, measured at the server: python -m bench.load_server [--quick]

No browser: every session is :func:`explorer_ui.session_client.visit`, which speaks
Streamlit's websocket protocol and sends what a browser sends on opening a link, so only
the server's cost counts. The app and a bare page with one small chart
(``bench/bare_app.py``) are served side by side, each in its own process started the way
``deploy/`` starts a replica (the deployment settings of ``deploy/streamlit.env``: no file
watcher); server CPU is the process's utime + stime from ``/proc/<pid>/stat``, so other
load on the machine does not count, and RSS is its VmRSS.

Per page (the bare page first):

* warm visit: server CPU per visit over 20 visits of a computed link, one after the
  other, and the bytes sent (on the wire, permessage-deflate as with a browser, and
  decompressed);
* 20 at once, warm: p50 / p95 of the time from connecting to the run's end (every chart
  received);
* cold: server CPU of one visit of a link not computed yet (a new seed), and per visit
  when 20 sessions open another new link at once (single flight: the computation is
  done once), with the target  cpu(20 cold) <= 1.5 (cpu(1 cold) + 20 cpu(warm));
* 20 distinct cold links at once (the issue's "server CPU per new link"): server CPU
  per link, p95, and that no session saw an error;

then 100 sessions arriving over 30 s on one link (p95), and VmRSS after ``--links``
distinct links. The script exits 1 if a session saw an error or a traceback.
"""
from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from explorer_ui.session_client import visit, wait_healthy

ROOT = Path(__file__).resolve().parents[1]
DEPLOY_ENV = ROOT / "deploy" / "streamlit.env"
TICK = os.sysconf("SC_CLK_TCK")
WARM_VISITS = 20
BASELINE = "bare page, one small chart, file watcher off"

#: (page path, the URL parameter that picks the seed) of every page with charts.
PAGES = [("mondrian_process", "seed"), ("kernel_convergence", "seed"),
         ("lifetime_sweep", "seed"), ("lifetime_posterior", "seed"),
         ("partition_gp", "seed"), ("kernel_vs_forest", "seed"), ("online_forest", "seed"),
         ("inference", "seed"), ("amf", "seed")]


def deploy_env() -> dict[str, str]:
    """The environment a replica runs with: ours plus ``deploy/streamlit.env``; no prewarm,
    so that only the benchmark's own visits load the server."""
    env = {**os.environ, "MONDRIAN_PREWARM": "0"}
    for line in DEPLOY_ENV.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            env[name.strip()] = value.strip()
    return env


class Server:
    """``streamlit run script`` on 127.0.0.1:port, stopped on exit."""

    def __init__(self, script: str, port: int, env: dict[str, str] | None = None):
        self.port, self.base = port, f"http://127.0.0.1:{port}"
        self.log = open(f"/tmp/load_server_{port}.log", "w")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true"],
            cwd=ROOT, env=env or deploy_env(), stdout=self.log, stderr=subprocess.STDOUT)
        wait_healthy(self.base, 90)

    def cpu(self) -> float:
        """Seconds of CPU the server process has used (all its threads)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return math.nan

    def tracebacks(self) -> int:
        self.log.flush()
        return Path(self.log.name).read_text().count("Traceback")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, math.ceil(q * len(values)) - 1))]


async def _many(base, links, start_gap=0.0):
    """Open every (page, query) of ``links``, the i-th after i * start_gap seconds."""
    async def one(i, page, query):
        await asyncio.sleep(i * start_gap)
        return await visit(base, page, query)
    return await asyncio.gather(*(one(i, p, q) for i, (p, q) in enumerate(links)))


def measure(server, links, start_gap=0.0, settle=0.3):
    """Visits of ``links`` (at once, or staggered): (visits, server CPU seconds)."""
    c0 = server.cpu()
    visits = asyncio.run(_many(server.base, links, start_gap))
    time.sleep(settle)  # the sessions' disconnects
    return visits, server.cpu() - c0


def check(visits, failures, what):
    for v in visits:
        if not v.ok:
            failures.append(f"{what}: {v.url}: {v.errors or 'did not finish'}")


def warm_row(server, page, query, failures, k):
    measure(server, [(page, query)])  # computes it (or finds it prewarmed)
    # one after the other: the CPU clock ticks every 10 ms, so it is read over 20 visits
    c0, sizes = server.cpu(), []
    for _ in range(WARM_VISITS):
        visits, _ = measure(server, [(page, query)], settle=0.0)
        check(visits, failures, "warm")
        sizes.append((visits[0].wire_bytes, visits[0].bytes_received))
    time.sleep(0.3)
    cpu = (server.cpu() - c0) / WARM_VISITS
    crowd, _ = measure(server, [(page, query)] * k)
    check(crowd, failures, f"{k} at once")
    secs = [v.seconds for v in crowd]
    return {"cpu_ms": 1000 * cpu, "kb": statistics.median(w for w, _ in sizes) / 1024,
            "raw_kb": statistics.median(r for _, r in sizes) / 1024,
            "charts": len(crowd[0].charts), "p50": pct(secs, 0.5), "p95": pct(secs, 0.95),
            "same": all(v.charts == crowd[0].charts for v in crowd)}


def settle(server, idle=0.05, longest=600.0) -> None:
    """Wait until the server's CPU is idle (under ``idle`` s per s over a second): a
    background job the page's first visit started (the Lifetime sweep page's Figure 8 at
    scale, once per server) would otherwise count in its links' CPU."""
    for _ in range(int(longest)):
        c0 = server.cpu()
        time.sleep(1.0)
        if server.cpu() - c0 < idle:
            return


def cold_row(server, page, seed_key, seed0, failures, k):
    settle(server)
    one, cpu1 = measure(server, [(page, f"{seed_key}={seed0}")])
    check(one, failures, "cold")
    crowd, cpuk = measure(server, [(page, f"{seed_key}={seed0 + 1}")] * k)
    check(crowd, failures, f"{k} cold at once")
    distinct, cpu_distinct = measure(server, [(page, f"{seed_key}={seed0 + 2 + i}")
                                              for i in range(k)])
    check(distinct, failures, f"{k} distinct")
    return {"cold_ms": 1000 * cpu1, "coldk_ms": 1000 * cpuk / k,
            "distinct_cpu_ms": 1000 * cpu_distinct / k,
            "distinct_p95": pct([v.seconds for v in distinct], 0.95),
            "coldk_same": all(v.charts == crowd[0].charts for v in crowd)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=8650)
    ap.add_argument("--k", type=int, default=20, help="sessions at once")
    ap.add_argument("--pages", nargs="*", default=[p for p, _ in PAGES])
    ap.add_argument("--arrivals", type=int, default=100, help="sessions arriving over --over s")
    ap.add_argument("--over", type=float, default=30.0)
    ap.add_argument("--links", type=int, default=200,
                    help="distinct links opened (4 at a time) before reading RSS; 0: skip")
    ap.add_argument("--quick", action="store_true", help="k=5, 20 arrivals, 40 links")
    ap.add_argument("--readme", action="store_true",
                    help="serve the app as the README's first command does: no "
                         "deploy/streamlit.env, only .streamlit/config.toml")
    args = ap.parse_args(argv)
    if args.quick:
        args.k, args.arrivals, args.links = 5, 20, 40
    failures: list[str] = []
    rows = {}
    print(f"# load_server: {os.cpu_count()} cores, k={args.k}, {time.strftime('%Y-%m-%d %H:%M')}, "
          f"app settings: {'.streamlit/config.toml only' if args.readme else 'deploy/streamlit.env'}")
    watcher_off = {**os.environ, "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none"}
    with Server("bench/bare_app.py", args.port + 1, watcher_off) as bare:
        rows[BASELINE] = warm_row(bare, "", "", failures, args.k)
        bare_rss = bare.rss_mb()
    with Server("bench/bare_app.py", args.port + 2) as bare:
        rows["bare page, deploy settings"] = warm_row(bare, "", "", failures, args.k)
    app_env = {**os.environ, "MONDRIAN_PREWARM": "0"} if args.readme else None
    with Server("app.py", args.port, app_env) as app:
        print(f"app started: RSS {app.rss_mb():.0f} MB")
        rows["home"] = warm_row(app, "", "", failures, args.k)
        for i, (page, seed_key) in enumerate(PAGES):
            if page not in args.pages:
                continue
            rows[page] = warm_row(app, page, "", failures, args.k)
            rows[page].update(cold_row(app, page, seed_key, 1000 + 100 * i, failures, args.k))
            print(page, {k: round(v, 3) if isinstance(v, float) else v
                         for k, v in rows[page].items()}, flush=True)
        page0 = args.pages[0]
        arrivals, _ = measure(app, [(page0, "")] * args.arrivals, args.over / args.arrivals)
        check(arrivals, failures, "arrivals")
        arrivals_p95 = pct([v.seconds for v in arrivals], 0.95)
        rss = [(0, app.rss_mb())]
        links = [(p, f"{key}={5000 + j}") for j in range(args.links)
                 for p, key in PAGES if p in args.pages][:args.links]
        for start in range(0, len(links), 4 * 25):
            chunk = links[start:start + 100]
            for j in range(0, len(chunk), 4):
                visits, _ = measure(app, chunk[j:j + 4])
                check(visits, failures, "distinct links")
            rss.append((start + len(chunk), app.rss_mb()))
            print(f"after {rss[-1][0]} distinct links: RSS {rss[-1][1]:.0f} MB", flush=True)
        tracebacks = app.tracebacks()
    base = rows[BASELINE]
    print(f"\n| page | warm visit: server CPU / KB sent (decompressed) | {args.k} at once, warm: p50 / p95 "
          f"| cold, 1 visit: CPU | {args.k} at once, cold: CPU per visit "
          f"| {args.k} distinct cold links: CPU per link / p95 |")
    print("|---|---|---|---|---|---|")
    for name, r in rows.items():
        cold = (f"{r['cold_ms']:.0f} ms" if "cold_ms" in r else "")
        coldk = (f"{r['coldk_ms']:.0f} ms (target {1.5 * (r['cold_ms'] / args.k + r['cpu_ms']):.0f})"
                 if "coldk_ms" in r else "")
        dist = (f"{r['distinct_cpu_ms'] / 1000:.2f} s / {r['distinct_p95']:.1f} s"
                if "distinct_p95" in r else "")
        print(f"| {name} | {r['cpu_ms']:.0f} ms ({r['cpu_ms'] / base['cpu_ms']:.1f}x bare) / "
              f"{r['kb']:.0f} ({r['raw_kb']:.0f}) | {r['p50']:.2f} / {r['p95']:.2f} s "
              f"({r['p95'] / base['p95']:.1f}x bare) | {cold} | {coldk} | {dist} |")
    print(f"\n{args.arrivals} sessions over {args.over:g} s on /{page0}: p95 {arrivals_p95:.2f} s")
    print("RSS (MB) after n distinct links: " + ", ".join(f"{n}: {m:.0f}" for n, m in rss)
          + f" (bare page: {bare_rss:.0f})")
    print(f"server tracebacks in its log: {tracebacks}")
    for r in rows.values():
        if not r["same"] or not r.get("coldk_same", True):
            failures.append("sessions on one link received different charts")
    if tracebacks:
        failures.append(f"{tracebacks} tracebacks in the server log")
    for f in failures[:20]:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
