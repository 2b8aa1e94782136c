"""Every page's charts are readable: figure text of at least 12 px at normal size, and
of at least 20 px in projector mode (``projector=1`` in the link)."""
from __future__ import annotations

import json

import pytest

from mondrian_core.figures.theme import MIN_FONT, PROJECTOR_FONT
from tests.app.conftest import assert_clean, run_page
from tests.app.test_url_state import PAGES


def _font_sizes(spec: dict) -> list[float]:
    """Every font size a chart spec sets, plus its base size (which the rest inherits)."""
    sizes = []

    def visit(node, parent=""):
        if isinstance(node, dict):
            if parent in ("font", "tickfont", "textfont", "insidetextfont", "outsidetextfont") \
                    and isinstance(node.get("size"), (int, float)):
                sizes.append(float(node["size"]))
            for key, value in node.items():
                if key not in ("x", "y", "z", "customdata"):
                    visit(value, key)
        elif isinstance(node, list):
            for value in node:
                visit(value, parent)

    visit(spec)
    return sizes


@pytest.mark.parametrize("page", list(PAGES))
@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_every_chart_has_readable_text(page, projector):
    query = dict(PAGES[page])
    if projector:
        query["projector"] = "1"
    at = run_page(page, query=query, timeout=240)
    assert_clean(at)
    charts = at.get("plotly_chart")
    assert charts, "the page shows no chart"
    floor = PROJECTOR_FONT if projector else MIN_FONT
    for chart in charts:
        spec = json.loads(chart.proto.spec)
        sizes = _font_sizes(spec)
        title = (spec["layout"].get("title") or {}).get("text", "")
        assert sizes, title
        assert min(sizes) >= floor, (title, sorted(set(sizes)))
