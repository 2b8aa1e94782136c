"""Real browser: the online forest page renders, the step slider (in the sidebar) changes
the tree picture, Play advances it, the main chart is above the fold on a 1024x768
projector, and the tour's Next button and the prediction question work."""
import pytest

from explorer_ui import defaults_online_forest as D
from tests.support import (
    assert_no_exception,
    finished_runs,
    screenshot,
    step_slider,
    wait_for_app,
    wait_for_change,
    wait_for_charts,
    wait_for_rerun,
)

pytestmark = pytest.mark.e2e

CHARTS = '[data-testid="stPlotlyChart"]'


def _chart_html(page, index=0):
    return page.locator(CHARTS).nth(index).inner_html()


def _wait_until_redrawn(page, before, index):
    """Wait until Plotly has redrawn chart ``index``: its HTML differs from ``before``."""
    wait_for_change(page, f"() => document.querySelectorAll('{CHARTS}')[{index}].innerHTML",
                    before)


def test_online_forest_page(app_url, page):
    page.goto(app_url + "/online_forest?batch=20&trees=5&step=3")  # 11 batches
    wait_for_charts(page, 4, timeout=90_000)
    assert_no_exception(page)
    assert page.locator(CHARTS).count() == 4
    screenshot(page, "online_forest_step3")
    before, stream_before = _chart_html(page, 0), _chart_html(page, 1)
    slider = page.locator('[data-testid="stSidebar"]').get_by_role("slider", name="After batch")
    step_slider(page, slider, 4)
    assert_no_exception(page)
    _wait_until_redrawn(page, before, 0)
    _wait_until_redrawn(page, stream_before, 1)  # the 1-D stream follows the same step
    assert "step=7" in page.url
    screenshot(page, "online_forest_step7")
    # play advances the batches by itself
    page.get_by_text("Play (one batch a second)").click()
    page.wait_for_function("() => /step=(8|9|10|11)/.test(window.location.href)",
                           timeout=30_000)
    assert_no_exception(page)
    screenshot(page, "online_forest_playing")


def test_main_chart_above_the_fold_and_the_tour(app_url, page):
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(app_url + "/online_forest?tour=1")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=90_000)
    wait_for_app(page, timeout=90_000)
    assert_no_exception(page)
    top = page.locator(".js-plotly-plot").first.bounding_box()["y"]
    assert top <= 768 - 250, top
    runs = finished_runs(page)
    page.get_by_role("button", name="Next").click()
    page.wait_for_function("() => window.location.href.includes('tour=2')", timeout=30_000)
    wait_for_rerun(page, runs, timeout=90_000)
    assert f"step={D.TOUR_STEP}" in page.url  # tour step 2 sets the batch
    runs = finished_runs(page)
    page.get_by_role("button", name="Reveal the answer").click()
    wait_for_rerun(page, runs, timeout=90_000)
    wait_for_charts(page, 5, timeout=90_000)
    assert_no_exception(page)
    screenshot(page, "online_forest_tour2_revealed")
