"""A class exploring freely, served as deploy/ serves it: python -m bench.load_replicas

``deploy/run_local.sh`` (REPLICAS replicas, default 2, behind Debian's nginx, with
deploy/streamlit.env and the console command's prewarm); once the prewarm is done, per
page, ``--k`` sessions (default 20) open ``--k`` links no one opened before (new seeds)
at once, through nginx, as browsers without a cookie (each routed to a replica by
nginx's fresh id). Prints, per page, the replicas' CPU per new link (utime + stime of
every replica process over the burst, from /proc), the p50 / p95 / largest time from
connecting to the last chart, each replica's share of the CPU (nginx does not say
which replica served a session), and sessions with an error. Exits 1 if a session saw an error.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.load_server import PAGES, TICK, pct
from explorer_ui.session_client import visit, wait_healthy

ROOT = Path(__file__).resolve().parents[1]


def replica_pids(first_port: int, replicas: int) -> list[int]:
    pids = []
    for port in range(first_port, first_port + replicas):
        out = subprocess.run(["pgrep", "-f", f"explorer_ui.cli --server.port {port}"],
                             capture_output=True, text=True).stdout.split()
        pids += [int(p) for p in out]
    return pids


def cpu(pids) -> float:
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / TICK


def settle(pids, idle=0.05, longest=600) -> None:
    """Until the replicas' CPU is idle (the prewarm, a background job): under ``idle``
    s per s over a second."""
    for _ in range(longest):
        c0 = cpu(pids)
        time.sleep(1.0)
        if cpu(pids) - c0 < idle:
            return


async def _burst(base, page, seeds):
    return await asyncio.gather(*(visit(base, page, f"seed={s}") for s in seeds))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=8700)
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--k", type=int, default=20, help="new links at once, per page")
    ap.add_argument("--pages", nargs="*", default=[p for p, _ in PAGES])
    args = ap.parse_args(argv)
    env = {**os.environ, "PORT": str(args.port), "REPLICAS": str(args.replicas),
           "PYTHON": sys.executable}
    served = subprocess.Popen(["bash", "deploy/run_local.sh"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    base = f"http://127.0.0.1:{args.port}"
    failures = 0
    try:
        wait_healthy(base, 180)
        pids = replica_pids(args.port + 1, args.replicas)
        assert len(pids) == args.replicas, f"replica processes found: {pids}"
        settle(pids)
        print(f"# load_replicas: {os.cpu_count()} cores, {args.replicas} replicas behind "
              f"nginx, k={args.k}, {time.strftime('%Y-%m-%d %H:%M')}")
        print(f"| page | CPU per new link, {args.k} at once | p50 / p95 / last (s) "
              "| CPU of each replica (s) | errors |")
        print("|---|---|---|---|---|")
        for i, page in enumerate(args.pages):
            settle(pids)
            seeds = [90_000 + 1_000 * i + j for j in range(args.k)]
            c0, each0 = cpu(pids), [cpu([p]) for p in pids]
            visits = asyncio.run(_burst(base, page, seeds))
            time.sleep(0.3)  # the sessions' disconnects
            per_link = (cpu(pids) - c0) / args.k
            secs = [v.seconds for v in visits]
            spread = [f"{cpu([p]) - e:.1f}" for p, e in zip(pids, each0)]
            bad = sum(not v.ok for v in visits)
            failures += bad
            print(f"| {page} | {per_link:.2f} s | {pct(secs, 0.5):.1f} / {pct(secs, 0.95):.1f}"
                  f" / {max(secs):.1f} | {' / '.join(spread)} | {bad} |", flush=True)
    finally:
        os.killpg(served.pid, signal.SIGTERM)
        served.wait(30)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
