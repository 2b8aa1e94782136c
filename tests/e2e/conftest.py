"""Real-browser tests: the app served on 127.0.0.1, driven by Playwright in Debian's Chromium.

Screenshots go to ``tests/e2e/screenshots/`` (not committed) for a person to look at.
"""
from __future__ import annotations

import contextlib
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from mondrian_core.figures.export import CHROMIUM, CHROMIUM_ARGS  # noqa: F401 (shared)

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(__file__).resolve().parent / "screenshots"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve_app(log_name: str = ".server.log"):
    """Run ``streamlit run app.py`` on a free loopback port; yield its URL."""
    port = _free_port()
    log = open(ROOT / "tests" / "e2e" / log_name, "w")
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


@pytest.fixture(scope="session")
def app_url():
    """The app, served once for the whole test session."""
    with serve_app() as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium "
                    "(or set CHROMIUM_PATH).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    yield pg
    context.close()


def wait_for_app(page, timeout: float = 30_000) -> None:
    """Wait until the script run has finished (the 'Running' indicator is gone)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_timeout(300)
    # the app marks its script state; "initial" until a first run has finished
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=timeout)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
        timeout=timeout,
    )
    page.wait_for_timeout(200)


def step_slider(page, slider, steps: int, key: str = "ArrowRight") -> None:
    """Move a Streamlit slider ``steps`` notches with the keyboard (``key``: ArrowRight or
    ArrowLeft), letting each rerun finish (a real user's arrow-key presses)."""
    for _ in range(steps):
        slider.focus()
        page.keyboard.press(key)
        page.wait_for_timeout(400)
        wait_for_app(page, timeout=60_000)
    page.wait_for_timeout(1500)


def assert_no_exception(page) -> None:
    """No Streamlit exception box and no error-level message on the page."""
    assert page.locator('[data-testid="stException"]').count() == 0


def screenshot(page, name: str, *, full: bool = True) -> Path:
    """Save a PNG of the page; ``full`` grows the viewport to the whole app first.

    Streamlit scrolls inside its own container, so Playwright's ``full_page`` sees
    only the window: the viewport is stretched to the content's height instead.
    """
    SHOTS.mkdir(exist_ok=True)
    path = SHOTS / f"{name}.png"
    size = page.viewport_size
    if full and size:
        height = page.evaluate(
            "() => Math.max(...Array.from(document.querySelectorAll("
            "'[data-testid=\"stMain\"], [data-testid=\"stAppViewContainer\"], section.main'),"
            " e => e.scrollHeight), document.body.scrollHeight)"
        )
        page.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, 12000)})
        page.wait_for_timeout(400)
    page.screenshot(path=str(path), full_page=True)
    if full and size:
        page.set_viewport_size(size)
    return path


# A fingerprint of what each Plotly chart on the page shows: a hash of its traces,
# shapes, annotations and title (plotly's own bookkeeping, keys starting with "_" and
# trace uids, left out), computed in the browser so large figures are not shipped back.
_FINGERPRINT_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => {
  const L = gd.layout || {};
  const s = JSON.stringify([gd.data, L.shapes, L.annotations, L.title && L.title.text],
                           (k, v) => (k === 'uid' || k.startsWith('_')) ? undefined : v);
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return (h >>> 0).toString(16) + ':' + s.length;
})"""


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) in pixels of a PNG file's bytes, after checking it is a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    return struct.unpack(">II", data[16:24])


def chart_fingerprints(page) -> list[str]:
    """One fingerprint per Plotly chart on the page, in page order (see ``_FINGERPRINT_JS``):
    two charts showing the same data, shapes and title have the same fingerprint."""
    return page.evaluate(_FINGERPRINT_JS)
