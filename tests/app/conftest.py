"""AppTest helpers: run a page of the app headlessly (no browser)."""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def run_page(relative_path: str, *, query: dict | None = None, timeout: float = 60) -> AppTest:
    """Run ``pages/<file>.py`` (or ``app.py``) as Streamlit would, and return the AppTest."""
    at = AppTest.from_file(str(ROOT / relative_path), default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def assert_clean(at: AppTest) -> None:
    """The run raised nothing and showed no error box."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
