"""Real-browser tests: the app served on 127.0.0.1, driven by Playwright in Debian's Chromium.

Fixtures only; the helpers (serving the app, waiting for a run, screenshots into
``tests/e2e/screenshots/``, not committed) are in :mod:`tests.support`.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import CHROMIUM, CHROMIUM_ARGS, serve_app


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
