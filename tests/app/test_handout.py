"""A page's tour as a handout: one HTML file with every step, loading nothing."""
from __future__ import annotations

import re

import pytest

from explorer_ui import handout
from explorer_ui.handout import StepPage, markdown_html, render

#: Anything that would make the file reach for the network: a script, stylesheet, image
#: or frame with a source, or a CSS import.
_EXTERNAL = re.compile(r"<(?:script|img|iframe|link)\b[^>]*\b(?:src|href)\s*=|@import|url\(\s*['\"]?https?:",
                       re.I)


def _steps():
    spec = {"data": [{"type": "scatter", "x": [1, 2, 3], "y": [3.0, 2.0, 1.0], "name": "err"}],
            "layout": {"title": {"text": "Error"}}}
    return [StepPage(n, 3, f"Step title {n}", f"Narration **{n}** at $\\lambda = {n}$.",
                     {"tour": str(n), "lifetime": str(n)}, [spec],
                     [f"**Chart: Error.** err falls from 3 to {n}."]) for n in (1, 2, 3)]


def test_the_file_has_every_step_its_charts_and_links_and_loads_nothing():
    text = render("Lifetime sweep", _steps(), "- A claim \u2014 Balog et al. (2016), sec. 4",
                  page="lifetime_sweep", base_url="http://class.example:8501")
    for n in (1, 2, 3):
        assert f"Step {n} of 3: Step title {n}" in text
        assert f"Narration <strong>{n}</strong> at <i>λ = {n}</i>." in text
        assert f'href="http://class.example:8501/lifetime_sweep?tour={n}"' in text
        assert f'id="chart-{n}-1" role="img" aria-label="Chart: Error"' in text
        assert f"err falls from 3 to {n}." in text
        assert f"<code>lifetime</code> = {n}" in text
    assert "Balog et al. (2016), sec. 4" in text
    assert not _EXTERNAL.search(text)
    assert "Plotly.newPlot" in text and text.count("<script") == 2


def test_no_sources_print_none_and_markdown_is_escaped():
    text = render("P", _steps()[:1], "", page="p")
    assert '<h2 id="sources">Sources</h2><p>none</p>' in text
    assert markdown_html("<script>x</script> *a* `b`") == (
        "&lt;script&gt;x&lt;/script&gt; <em>a</em> <code>b</code>")


@pytest.mark.parametrize("page", ["mondrian_process"])
def test_a_real_page_handout_has_every_tour_step(page, tmp_path):
    out = handout.build(page, tmp_path / "tour.html")
    text = out.read_text(encoding="utf-8")
    heads = re.findall(r"<h2 id=\"step(\d+)\">Step (\d+) of (\d+):", text)
    assert heads and len(heads) == int(heads[0][2])
    assert [int(h[0]) for h in heads] == list(range(1, len(heads) + 1))
    assert text.count('role="img"') >= len(heads)  # every step shows a chart
    assert "Chart:" in text and not _EXTERNAL.search(text)
