"""The home page's thumbnails: a small still of each page's main chart.

They are drawn at build time by the pages' own figure builders, at each page's defaults
(``python -m explorer_ui.thumbnails`` writes ``explorer_ui/thumbnails/<page>.png`` with
plotly.js in headless Chromium), so the home page serves small files instead of computing
seven charts for every visitor.
"""
from __future__ import annotations

from pathlib import Path

THUMBNAIL_DIR = Path(__file__).resolve().parent / "thumbnails"
#: Size of a thumbnail in CSS pixels (saved at 2x for sharp projection).
WIDTH, HEIGHT = 520, 320


def thumbnail_path(stem: str) -> Path:
    """Where the thumbnail of ``pages/<stem>.py`` is kept."""
    return THUMBNAIL_DIR / f"{stem}.png"
