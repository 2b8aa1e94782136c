"""What bench_browser.py and load_app.py share: the pages' main widgets, a real user's
action on each, and in-browser timing of "widget changed -> chart updated".

Everything runs in Debian's Chromium through Playwright's async API, against the app
served on 127.0.0.1 by :func:`serve_app`. Times are taken inside the
page (``performance.now()``): a page load from the navigation's start, a widget change
from the user's keydown / pointerdown, both up to the moment the last chart changed
and Streamlit's script state is back to ``notRunning`` (held for a quiet period, so a
chart still drawing is not missed).
"""
from __future__ import annotations

import contextlib
import math
import re
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from mondrian_core.figures.export import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[1]
#: Where a served app's log goes (ignored by git), beside the helper that serves it.
LOG_DIR = ROOT / "bench" / ".logs"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve_app(log_name: str = ".server.log"):
    """Run ``streamlit run app.py`` on a free loopback port; yield its URL.

    Shared by the browser tests (``tests/e2e``) and the benchmarks: both drive the app
    as a student's browser would, against the same server settings."""
    port = _free_port()
    LOG_DIR.mkdir(exist_ok=True)
    log = open(LOG_DIR / log_name, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start; see {log.name}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


# A fingerprint of what each Plotly chart on the page shows: a hash of its traces,
# shapes, annotations and title (plotly's own bookkeeping, keys starting with "_" and
# trace uids, left out), computed in the browser so large figures are not shipped back.
FINGERPRINT_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => {
  const L = gd.layout || {};
  const s = JSON.stringify([gd.data, L.shapes, L.annotations, L.title && L.title.text],
                           (k, v) => (k === 'uid' || k.startsWith('_')) ? undefined : v);
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return (h >>> 0).toString(16) + ':' + s.length;
})"""

#: The number of script runs (fragment runs too) that have finished since the page
#: loaded. Streamlit's frontend records a User Timing measure named "script-run-cycle"
#: each time its script run state goes from "running" to "notRunning"
#: (``App.componentDidUpdate``; Streamlit's own performance tests read it), so the
#: count needs no counter installed and misses no run before the first read.
RUNS_JS = "performance.getEntriesByName('script-run-cycle', 'measure').length"

#: The app is idle: a run has finished since the page loaded, the root's run state
#: reads "notRunning" (it reads "initial" until a first run has started), the status
#: widget (running, connecting) is gone, every element is drawn (Streamlit loads an
#: element type's code on its first use and shows a ``stSkeleton`` in its place until
#: then, after the run may have finished) and the page's fonts have loaded.
IDLE_JS = f"""(({RUNS_JS}) > 0
  && !!document.querySelector('[data-testid="stApp"][data-test-script-state="notRunning"]')
  && !document.querySelector('[data-testid="stStatusWidget"], [data-testid="stSkeleton"]')
  && document.fonts.status === 'loaded')"""


VIEWPORT = {"width": 1400, "height": 1000}


@dataclass(frozen=True)
class Widget:
    """A page's main widget and the user action that changes it.

    ``kind``: "slider" (keyboard ``key`` on the slider thumb labelled ``label``),
    "step_up" (a click on the + of the number input labelled ``label``) or "rerun"
    (the "r" shortcut: a rerun that changes nothing, the baseline). ``label`` is text
    or a regular expression matched against the widget's text (KaTeX labels read
    e.g. "Lifetime λ"); ``expander`` names the sidebar expander to open first.
    """
    name: str
    path: str            # URL path of the page ("" = home)
    query: str           # URL query, "{seed}" is filled in
    kind: str
    label: str | re.Pattern = ""
    key: str = "ArrowRight"
    budget_ms: float | None = None      # a widget move's budget (the page's target)
    load_budget_ms: float | None = None  # the page's first-render budget
    expander: str = ""

    def url(self, base: str, seed: int) -> str:
        return f"{base}/{self.path}" + ("?" + self.query.format(seed=seed) if self.query else "")


BASELINE = Widget("baseline: rerun of Home (r)", "", "", "rerun")

# One row per page's main widget (the Mondrian process page has two, and Kernel
# convergence's Figure 5 has its own budget).
WIDGETS = [
    Widget("Mondrian process: lifetime", "mondrian_process", "seed={seed}", "slider",
           re.compile("^Lifetime"), budget_ms=300, load_budget_ms=2000),
    Widget("Mondrian process: time (fragment)", "mondrian_process", "seed={seed}", "slider",
           re.compile("^Time"), key="ArrowLeft", budget_ms=300, load_budget_ms=2000),
    Widget("Kernel convergence: trees M", "kernel_convergence", "seed={seed}", "slider",
           re.compile("^Trees")),
    Widget("Kernel convergence: Figure 5 (N=100, M 49->50, 5 reps)", "kernel_convergence",
           "n=100&m5=49&r5=5&seed={seed}", "slider", "Largest", budget_ms=3000,
           expander="Figure 5 settings"),
    Widget("Lifetime sweep: lifetime", "lifetime_sweep", "seed={seed}", "slider",
           re.compile("^Lifetime"), budget_ms=200),
    Widget("Lifetime posterior: prior lower end", "lifetime_posterior", "seed={seed}",
           "step_up", "lower end"),
    Widget("Partition GPs: partitions m", "partition_gp", "seed={seed}", "slider",
           "Number of partitions m", budget_ms=500, load_budget_ms=2000),
    Widget("Kernel vs forest: lifetime", "kernel_vs_forest", "seed={seed}", "slider",
           "for the weights"),
    Widget("Online forest: batch step (fragment)", "online_forest", "seed={seed}", "slider",
           "After batch"),
]

#: One widget per page, for the many-users run.
PAGE_WIDGETS = [w for i, w in enumerate(WIDGETS) if i not in (1, 3)]

# Records the moment of the user's action and whether a script run started after it.
_ARM_JS = """() => {
  window.__benchT0 = null; window.__benchRan = false;
  if (!window.__benchArmed) {
    window.__benchArmed = true;
    const mark = () => { if (window.__benchT0 === null) window.__benchT0 = performance.now(); };
    document.addEventListener('keydown', mark, true);
    document.addEventListener('pointerdown', mark, true);
    new MutationObserver(() => { window.__benchRan = true; }).observe(document.body,
                               {attributes: true, subtree: true,
                               attributeFilter: ['data-test-script-state']});
  }
}"""

# Waits for the charts to differ from ``before`` (or, with before === null, for a
# script run to have happened) and the app to be idle for ``quiet`` ms; returns the
# time from t0 (the action, or the navigation's start) to the last change.
_WAIT_JS = """async ([before, quiet, timeout]) => {
  const fp = %s;
  // every chart element drawn by plotly (its component is loaded lazily, and a busy
  // browser may draw it after the script has finished)
  const drawn = () => Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]'))
    .every(e => { const g = e.querySelector('.js-plotly-plot'); return g && g._fullLayout; });
  const busy = () => {
    const a = document.querySelector('[data-testid="stApp"]');
    return !a || a.getAttribute('data-test-script-state') !== 'notRunning' || !drawn()
           || !!document.querySelector('[data-testid="stStatusWidget"], [data-testid="stSkeleton"]');
  };
  const t0 = (window.__benchT0 === undefined || window.__benchT0 === null) ? 0 : window.__benchT0;
  const start = performance.now();
  let last = fp().join('|'), lastChange = start, idleSince = null;
  while (performance.now() - start < timeout) {
    await new Promise(r => setTimeout(r, 15));
    const now = performance.now(), cur = fp().join('|');
    if (cur !== last) { last = cur; lastChange = now; }
    if (busy()) idleSince = null; else if (idleSince === null) idleSince = now;
    const changed = before === null ? window.__benchRan : (last !== before && last !== '');
    const end = Math.max(idleSince ?? now, before === null ? 0 : lastChange);
    if (changed && idleSince !== null && now - end >= quiet)
      return {ms: end - t0, fingerprints: fp()};
  }
  return {ms: null, fingerprints: fp()};
}""".replace("%s", FINGERPRINT_JS, 1)

_ERRORS_JS = """() => document.querySelectorAll(
  '[data-testid="stException"], [data-testid="stAlertContentError"]').length"""


async def fingerprints(page) -> list[str]:
    return await page.evaluate(f"({FINGERPRINT_JS})()")


async def error_count(page) -> int:
    """Exception boxes and st.error messages on the page."""
    return await page.evaluate(_ERRORS_JS)


async def wait_idle(page, before, timeout_s=180.0, quiet_ms=400):
    """(ms, fingerprints) once the charts differ from ``before`` and the app is idle."""
    out = await page.evaluate(_WAIT_JS, [before, quiet_ms, timeout_s * 1000])
    if out["ms"] is None:
        raise TimeoutError(f"no chart update within {timeout_s:g} s")
    return out["ms"], out["fingerprints"]


async def wait_for_app(page, timeout_s=180.0):
    """Wait until a run has finished since the page loaded and the app is idle
    (:data:`IDLE_JS`)."""
    await page.wait_for_function(f"() => {IDLE_JS}", timeout=timeout_s * 1000)


async def load(page, url, timeout_s=180.0):
    """Open ``url``; (ms from the navigation's start to the charts drawn, fingerprints)."""
    await page.goto(url)
    await page.wait_for_selector('[data-testid="stApp"]')
    await page.evaluate(_ARM_JS)
    return await wait_idle(page, "", timeout_s)


async def act(page, widget: Widget, timeout_s=180.0):
    """Do the widget's user action; (ms until the charts changed and the app is idle,
    fingerprints after)."""
    await page.evaluate(_ARM_JS)
    before = None if widget.kind == "rerun" else "|".join(await fingerprints(page))
    if widget.expander:  # opening an expander runs nothing on the server
        await page.locator('[data-testid="stExpander"]', has_text=widget.expander) \
            .locator("summary").first.click()
    if widget.kind == "rerun":
        await page.evaluate("() => document.activeElement && document.activeElement.blur()")
        await page.keyboard.press("r")
    elif widget.kind == "slider":
        thumb = page.locator('[data-testid="stSlider"]', has_text=widget.label) \
            .locator('input[type="range"]').first
        await thumb.focus()
        await page.keyboard.press(widget.key)
    elif widget.kind == "step_up":
        await page.locator('[data-testid="stNumberInput"]', has_text=widget.label) \
            .locator('[data-testid="stNumberInputStepUp"]').first.click()
    else:
        raise ValueError(widget.kind)
    return await wait_idle(page, before, timeout_s)


async def new_browser(playwright):
    return await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


async def new_page(browser):
    context = await browser.new_context(viewport=VIEWPORT)
    return context, await context.new_page()


# ---------------------------------------------------------------- the server's memory


def server_pid(url: str) -> int:
    """The pid of the ``streamlit run`` process listening on ``url``'s port."""
    port = url.rsplit(":", 1)[1]
    for status in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = status.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in b" ".join(args) and port.encode() in args:
            return int(status.parent.name)
    raise RuntimeError(f"no streamlit process on port {port}")


def rss_mb(pid: int) -> float:
    """VmRSS of ``pid`` in MB (from /proc/<pid>/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


# ---------------------------------------------------------------- statistics


def percentile(values, q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation; nan for no values."""
    xs = sorted(values)
    if not xs:
        return math.nan
    k = (len(xs) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def p50_p95(values) -> tuple[float, float]:
    return percentile(values, 50), percentile(values, 95)
