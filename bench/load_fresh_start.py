"""A class arriving on a page link of a freshly started server: python -m bench.load_fresh_start

For each page, ``--repeats`` times: start the app (its README command, ``streamlit run
app.py``, Streamlit's default settings; ``--deploy`` for deploy/streamlit.env's), open
``--k`` sessions at once on that page's link as the very first requests, and check that
every session's run finished with its charts, no error and no exception, and that the
server logged no traceback. Streamlit's folder-based pages mode is live until some script
calls ``st.navigation``; this is the moment a race between sessions would show.
Exits 1 on any failure.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys

from bench.load_server import Server, deploy_env
from explorer_ui.session_client import PAGE_PATHS, visit


async def _crowd(base, page, k):
    return await asyncio.gather(*(visit(base, page) for _ in range(k)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--port", type=int, default=8680)
    ap.add_argument("--deploy", action="store_true", help="with deploy/streamlit.env")
    args = ap.parse_args(argv)
    env = deploy_env() if args.deploy else dict(os.environ)
    failures = 0
    for page in PAGE_PATHS:
        for r in range(args.repeats):
            with Server("app.py", args.port, env) as server:
                sessions = asyncio.run(_crowd(server.base, page, args.k))
                tracebacks = server.tracebacks()
            bad = [s for s in sessions if not s.ok]
            charts = {tuple(s.charts) for s in sessions if s.ok}
            reruns = sum(s.reruns for s in sessions)
            slowest = max(s.seconds for s in sessions)
            print(f"/{page:20} start {r + 1}: {args.k - len(bad)}/{args.k} ok, "
                  f"{len(next(iter(charts), ()))} charts, {len(charts)} distinct chart sets, "
                  f"{reruns} reruns, slowest {slowest:.1f} s, {tracebacks} tracebacks", flush=True)
            for s in bad[:3]:
                print("   ", s.errors or "did not finish")
            if bad or tracebacks or len(charts) > 1:
                failures += 1
    print("FAIL" if failures else "OK: no error, no traceback, the same charts in every session")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
