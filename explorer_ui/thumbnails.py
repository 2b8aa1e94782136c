"""The home page's thumbnails: a small still of each page's main chart.

``python -m tests.e2e.readme_screenshots`` draws them: it serves the app, opens each page
at its defaults in headless Chromium and saves the page's main chart (the one shown with
``show_figure(..., main=True)``) as ``explorer_ui/thumbnails/<page>.png``. So a thumbnail is
exactly what the page's own figure builders draw, and the home page serves seven small
files instead of computing seven charts for every visitor.
"""
from __future__ import annotations

from pathlib import Path

THUMBNAIL_DIR = Path(__file__).resolve().parent / "thumbnails"


def thumbnail_path(stem: str) -> Path:
    """Where the thumbnail of ``pages/<stem>.py`` is kept."""
    return THUMBNAIL_DIR / f"{stem}.png"
