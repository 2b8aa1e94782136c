"""Does a page show the same at a link before and after a change? Charts and texts compared.

``python -m bench.same_page --against COMMIT [--pages P ...] [--seeds 777 4242]`` runs each
page at ``?seed=S`` with AppTest in this tree and in the earlier commit (a temporary git
worktree), each side in a fresh interpreter, and compares:

* every Plotly chart's spec, decoded from Plotly's binary arrays: numbers by the largest
  difference relative to the largest magnitude of their array, everything else exactly;
* the page's texts (markdown, captions, info and warning boxes), exactly.

It prints, per page and seed, "identical", or the largest relative difference and where it
is, or the first text that differs. A speed-up that claims "the page shows the same" is
checked with it. Charts that plot measured seconds (the Lifetime sweep page's timing chart)
are meant to differ: read the paths it reports.
"""
from __future__ import annotations

import argparse
import base64
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from bench.page_cpu import _ENV, PAGES, ROOT, _Earlier

_CHILD = """
import json, os, sys
root, page, seed = sys.argv[1], sys.argv[2], sys.argv[3]
os.chdir(root)
sys.path.insert(0, root)
from streamlit.testing.v1 import AppTest
if page == "lifetime_sweep":
    # its Figure 8 at scale is a once-per-server background job: a tiny one on both sides
    import explorer_ui.defaults_lifetime_sweep as defaults
    from explorer_ui.compute import start_in_background
    from explorer_ui.sweep_page import figure8_task
    defaults.FIGURE8 = dict(n_points=300, n_dims=5, noise_std=0.1, n_trees=5, n_cells=10,
                            noise_variance=0.01, prior_variance=1.0, max_evals=4,
                            random_state=0)
    start_in_background(*figure8_task(defaults.FIGURE8)).done.wait(300)
at = AppTest.from_file(os.path.join(root, "pages", page + ".py"), default_timeout=600)
at.query_params["seed"] = seed
at.run()
assert not at.exception, [e.value for e in at.exception]
texts = [e.value for kind in ("markdown", "caption", "info", "warning", "error")
         for e in at.get(kind)]
print(json.dumps({"charts": [json.loads(c.proto.spec) for c in at.get("plotly_chart")],
                  "texts": texts}))
"""


def render(root: Path, page: str, seed: int) -> dict:
    """The charts' specs and the texts of ``page`` at ``?seed=seed`` in the tree ``root``."""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(root), page, str(seed)],
                         cwd=root, capture_output=True, text=True,
                         env={"PYTHONPATH": str(root), **_ENV})
    if out.returncode:
        raise RuntimeError(f"{page} at {root}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _decoded(node):
    """``node`` with Plotly's ``{"bdata", "dtype"}`` arrays as float arrays."""
    if isinstance(node, dict):
        if "bdata" in node and "dtype" in node:
            a = np.frombuffer(base64.b64decode(node["bdata"]), dtype=np.dtype(node["dtype"]))
            return a.astype(float).reshape(node.get("shape", a.shape) if isinstance(
                node.get("shape"), list) else a.shape)
        return {k: _decoded(v) for k, v in node.items()}
    if isinstance(node, list):
        if node and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in node):
            return np.asarray(node, dtype=float)
        return [_decoded(v) for v in node]
    return node


def differences(a, b, path="") -> tuple[float, str, list[str]]:
    """The largest relative numeric difference between ``a`` and ``b`` (and where), and the
    paths whose non-numeric content differs."""
    worst, where, other = 0.0, "", []

    def visit(x, y, p):
        nonlocal worst, where
        if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
            if x.shape != y.shape:
                other.append(f"{p}: shape {x.shape} != {y.shape}")
                return
            if x.size == 0:
                return
            both_nan = np.isnan(x) & np.isnan(y)
            if not np.array_equal(np.isnan(x), np.isnan(y)):
                other.append(f"{p}: NaNs at different places")
                return
            scale = max(np.nanmax(np.abs(x), initial=0.0), np.finfo(float).tiny)
            d = np.where(both_nan, 0.0, np.abs(x - y)).max() / scale
            if d > worst:
                worst, where = float(d), p
        elif isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y)):
                if k not in x or k not in y:
                    other.append(f"{p}.{k}: only on one side")
                else:
                    visit(x[k], y[k], f"{p}.{k}")
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                other.append(f"{p}: {len(x)} != {len(y)} items")
            for i, (u, v) in enumerate(zip(x, y)):
                visit(u, v, f"{p}[{i}]")
        elif isinstance(x, float) and isinstance(y, float):
            d = abs(x - y) / max(abs(x), np.finfo(float).tiny)
            if d > worst:
                worst, where = d, p
        elif x != y:
            other.append(f"{p}: {str(x)[:60]!r} != {str(y)[:60]!r}")

    visit(_decoded(a), _decoded(b), path)
    return worst, where, other


def compare(page: str, seed: int, old: Path) -> str:
    """One line: how ``page`` at ``seed`` differs between ``old`` and this tree."""
    before, now = render(old, page, seed), render(ROOT, page, seed)
    worst, where, other = differences(before["charts"], now["charts"], "charts")
    texts = [(a, b) for a, b in zip(before["texts"], now["texts"]) if a != b]
    if len(before["texts"]) != len(now["texts"]):
        texts.append((f"{len(before['texts'])} texts", f"{len(now['texts'])} texts"))
    if not worst and not other and not texts:
        return f"{page} seed={seed}: identical ({len(now['charts'])} charts)"
    lines = [f"{page} seed={seed}: largest relative difference {worst:.1e} at {where}"]
    lines += [f"    chart: {o}" for o in other[:8]]
    lines += [f"    text: {a[:80]!r} -> {b[:80]!r}" for a, b in texts[:4]]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--against", required=True, help="the earlier commit")
    ap.add_argument("--pages", nargs="*", default=PAGES, choices=PAGES)
    ap.add_argument("--seeds", nargs="*", type=int, default=[777])
    args = ap.parse_args()
    with _Earlier(args.against) as old:
        for page in args.pages:
            for seed in args.seeds:
                print(compare(page, seed, old.path), flush=True)


if __name__ == "__main__":
    main()
