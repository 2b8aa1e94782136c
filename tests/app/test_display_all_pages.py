"""Every page's charts are readable: figure text of at least 12 px at normal size, and
of at least 20 px in projector mode (``projector=1`` in the link)."""
from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest

from mondrian_core.figures.theme import MIN_FONT, PROJECTOR_FONT, font_sizes
from tests.support import PAGES, assert_clean, run_page, small


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_every_chart_has_readable_text(page, projector):
    query = small(page)
    if projector:
        query["projector"] = "1"
    at = run_page(page, query=query, timeout=240)
    assert_clean(at)
    charts = at.get("plotly_chart")
    assert charts, "the page shows no chart"
    floor = PROJECTOR_FONT if projector else MIN_FONT
    for chart in charts:
        spec = json.loads(chart.proto.spec)
        sizes = font_sizes(go.Figure(spec))
        title = (spec["layout"].get("title") or {}).get("text", "")
        assert sizes, title
        assert min(sizes) >= floor, (title, sorted(set(sizes)))
