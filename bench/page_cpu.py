"""A page's server-side CPU per visit, now and at an earlier commit, run alternately.

Two measures:

* ``--page P --against COMMIT``: the page's first render with empty caches followed by its
  main sliders' moves (:data:`MOVES`), in fresh interpreters taking turns between this tree
  and the earlier commit (checked out into a temporary git worktree).
* ``--fresh [--pages P ...] [--against COMMIT]``: a class exploring freely (issue 25, item 6):
  every visit a link no one opened before. In one interpreter per page and round, the page
  is first run at its default link (imports, Streamlit's first-run work), then ``--links``
  times as a new session of a link with a seed not used before (``seed=<random>``: every
  cached result of the page misses); ``--rounds`` such interpreters per side take turns
  with the earlier commit's (if given, on the same links). The median CPU seconds of those
  visits is reported against the bare page (``bench/bare_app.py``) visited the same way in
  the same run, and against the earlier commit. The goal is at most 1 s of CPU per new link at the defaults.
  The Lifetime sweep page's Figure 8 at scale, a once-per-server background job, is
  replaced by a tiny one computed before the timing (it is not a per-link cost).

Both sides use this interpreter and its packages. CPU is ``time.process_time`` (every
thread of the interpreter: AppTest runs the script in a thread of its own). "At least as
fast as before" is a ratio near or below 1: on a shared machine single runs drift by 10%.
"""
from __future__ import annotations

import argparse
import json
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

#: Every page with charts, in the app's order (the fresh-link measure).
PAGES = ["mondrian_process", "kernel_convergence", "lifetime_sweep", "lifetime_posterior",
         "partition_gp", "kernel_vs_forest", "online_forest", "inference", "amf"]

BARE = "bare"  # bench/bare_app.py: a bare Streamlit page with one small chart

_ENV = {"PATH": "/usr/bin:/bin", "MONDRIAN_PREWARM": "0"}

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

_FRESH_CHILD = """
import json, os, sys, time
root, page, links, seed0 = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
os.chdir(root)
sys.path.insert(0, root)
from mondrian_core._blas import pin_blas_threads_for_process
pin_blas_threads_for_process()  # as app.py does for the server
from streamlit.testing.v1 import AppTest
script = (os.path.join(root, "bench", "bare_app.py") if page == "bare"
          else os.path.join(root, "pages", page + ".py"))

def visit(seed):
    at = AppTest.from_file(script, default_timeout=600)
    if seed is not None:
        at.query_params["seed"] = str(seed)
    t = time.process_time()
    at.run()
    cpu = time.process_time() - t
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return cpu

if page == "lifetime_sweep":
    # the page's Figure 8 at scale runs once per server in a background thread (minutes),
    # not per link: a tiny one stands in for it, finished before the links are timed
    import explorer_ui.defaults_lifetime_sweep as defaults
    from explorer_ui.compute import start_in_background
    from explorer_ui.sweep_page import figure8_task
    defaults.FIGURE8 = dict(n_points=300, n_dims=5, noise_std=0.1, n_trees=5, n_cells=10,
                            noise_variance=0.01, prior_variance=1.0, max_evals=4,
                            random_state=0)
    start_in_background(*figure8_task(defaults.FIGURE8)).done.wait(300)
visit(None)  # the default link: imports and Streamlit's first run, not counted
print(json.dumps([visit(seed0 + i) for i in range(links)]))
"""


def page_cpu(root: Path, page: str) -> float:
    """CPU seconds of one first render plus the page's moves, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(root), page, repr(MOVES[page])],
                         cwd=root, check=True, capture_output=True, text=True,
                         env={"PYTHONPATH": str(root), **_ENV})
    return float(out.stdout.strip().splitlines()[-1])


def fresh_link_cpu(root: Path, page: str, links: int, seed0: int) -> list[float]:
    """CPU seconds of each of ``links`` visits of new links (seeds ``seed0``,
    ``seed0 + 1``, ...) of ``page``, after one visit of its default link."""
    out = subprocess.run([sys.executable, "-c", _FRESH_CHILD, str(root), page, str(links),
                          str(seed0)], cwd=root, capture_output=True, text=True,
                         env={"PYTHONPATH": str(root), **_ENV})
    if out.returncode:
        raise RuntimeError(f"{page} at {root}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


class _Earlier:
    """The earlier commit in a temporary git worktree, removed on exit."""

    def __init__(self, commit: str | None):
        self.commit, self.path, self._tmp = commit, None, None

    def __enter__(self):
        if self.commit:
            self._tmp = tempfile.TemporaryDirectory(prefix="page-cpu-")
            self.path = Path(self._tmp.name) / "old"
            subprocess.run(["git", "worktree", "add", "--detach", "-q", str(self.path),
                            self.commit], cwd=ROOT, check=True)
        return self

    def __exit__(self, *exc):
        if self.path is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(self.path)], cwd=ROOT,
                           check=False)
            self._tmp.cleanup()


def moves_main(args) -> None:
    with _Earlier(args.against) as old:
        times = {"now": [], args.against: []}
        for _ in range(args.reps):
            for name, root in ((args.against, old.path), ("now", ROOT)):
                times[name].append(page_cpu(root, args.page))
                print(f"  {args.page} {name:>9}: {times[name][-1]:.2f} s CPU", flush=True)
    now, before = (statistics.median(times[k]) for k in ("now", args.against))
    print(f"== {args.page}: median {now:.2f} s now, {before:.2f} s at {args.against}: "
          f"now / before = {now / before:.2f}")


def fresh_main(args) -> None:
    # a seed far from every page's default, and different on each run of the bench
    seed0 = 10_000 + int.from_bytes(Path("/dev/urandom").open("rb").read(2), "little")
    rows = {}
    with _Earlier(args.against) as old:
        sides = [("now", ROOT)] + ([(args.against, old.path)] if old.path else [])
        for page in [BARE] + args.pages:
            cpu = {name: [] for name, _ in sides}
            # rounds taking turns (the other side first every other round), so that the
            # machine's drifting load falls on both sides; the same seeds on both sides
            for r in range(args.rounds):
                for name, root in (sides if r % 2 == 0 else sides[::-1]):
                    more = fresh_link_cpu(root, page, args.links, seed0 + r * args.links)
                    cpu[name] += more
                    print(f"  {page:>18} {name:>9}: " + " ".join(f"{c:.2f}" for c in more)
                          + " s CPU per new link", flush=True)
            rows[page] = {name: statistics.median(c) for name, c in cpu.items()}
    bare = rows.pop(BARE)["now"]
    print(f"\nbare page: {1000 * bare:.0f} ms per visit (AppTest's own cost of a run)\n")
    head = (f"| page | CPU per new link (median of {args.links * args.rounds}) "
            "| minus the bare page "
            "| x bare page |")
    if args.against:
        head += f" at {args.against} | now / before |"
    head += " goal (<= 1 s, first column) met |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for page, r in rows.items():
        cells = [f"{r['now']:.2f} s", f"{r['now'] - bare:.2f} s", f"{r['now'] / bare:.0f}x"]
        if args.against:
            cells += [f"{r[args.against]:.2f} s", f"{r['now'] / r[args.against]:.2f}"]
        cells.append("yes" if r["now"] <= 1.0 else "no")
        print(f"| {page} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--page", choices=sorted(MOVES), help="first render and moves")
    ap.add_argument("--fresh", action="store_true", help="CPU per new link, every page")
    ap.add_argument("--pages", nargs="*", default=PAGES, choices=PAGES)
    ap.add_argument("--links", type=int, default=3,
                    help="new links per page and round (--fresh)")
    ap.add_argument("--rounds", type=int, default=2,
                    help="rounds per side, taking turns with --against (--fresh)")
    ap.add_argument("--against", help="the earlier commit")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    if args.fresh:
        fresh_main(args)
    elif args.page and args.against:
        moves_main(args)
    else:
        ap.error("give --fresh, or --page and --against")


if __name__ == "__main__":
    main()
