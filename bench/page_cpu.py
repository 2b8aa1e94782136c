"""A page's server-side CPU now and at an earlier commit, run alternately.

``python -m bench.page_cpu --page online_forest --against a17447a [--reps 3]`` checks
the earlier commit out into a temporary git worktree, then runs, in fresh
interpreters taking turns, the page's first render with empty caches followed by its
main sliders' moves (AppTest), and prints each run's CPU seconds and the ratio of the
medians. Both sides use this interpreter and its packages. "At least as fast as
before" is a ratio near or below 1: on a shared machine single runs drift by 10%.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Per page: the slider moves after the first render (key, value).
MOVES = {
    "online_forest": [("step", 4), ("batch", 10), ("trees", 4), ("lifetime", 3.5)],
    "partition_gp": [("m", 105), ("m", 110), ("noise", 0.2), ("h", 5)],
}

_CHILD = """
import os, sys, time
root, page, moves = sys.argv[1], sys.argv[2], eval(sys.argv[3])
os.chdir(root)
sys.path.insert(0, root)
from streamlit.testing.v1 import AppTest
t = time.process_time()
at = AppTest.from_file(os.path.join(root, "pages", page + ".py"), default_timeout=300).run()
for key, value in moves:
    at.slider(key=key).set_value(value).run()
assert not at.exception, [e.value for e in at.exception]
print(time.process_time() - t)
"""


def page_cpu(root: Path, page: str) -> float:
    """CPU seconds of one first render plus the page's moves, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(root), page, repr(MOVES[page])],
                         cwd=root, check=True, capture_output=True, text=True,
                         env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--page", choices=sorted(MOVES), required=True)
    ap.add_argument("--against", required=True, help="the earlier commit")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="page-cpu-") as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(old), args.against],
                       cwd=ROOT, check=True)
        try:
            times = {"now": [], args.against: []}
            for _ in range(args.reps):
                for name, root in ((args.against, old), ("now", ROOT)):
                    times[name].append(page_cpu(root, args.page))
                    print(f"  {args.page} {name:>9}: {times[name][-1]:.2f} s CPU", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT,
                           check=False)
    now, before = (statistics.median(times[k]) for k in ("now", args.against))
    print(f"== {args.page}: median {now:.2f} s now, {before:.2f} s at {args.against}: "
          f"now / before = {now / before:.2f}")


if __name__ == "__main__":
    main()
