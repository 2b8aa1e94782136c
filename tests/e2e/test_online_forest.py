"""Real browser: the online forest page renders, the step slider changes the tree picture."""
import pytest

from tests.e2e.conftest import assert_no_exception, screenshot, step_slider, wait_for_app

pytestmark = pytest.mark.e2e


def _chart_html(page, index=0):
    return page.locator('[data-testid="stPlotlyChart"]').nth(index).inner_html()


def test_online_forest_page(app_url, page):
    page.goto(app_url + "/online_forest?n=200&batch=20&trees=5&step=3")
    wait_for_app(page, timeout=90_000)
    page.wait_for_selector('[data-testid="stPlotlyChart"] >> nth=3', timeout=90_000)
    wait_for_app(page, timeout=90_000)
    assert_no_exception(page)
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 4
    page.wait_for_timeout(1500)
    screenshot(page, "online_forest_step3")
    before = _chart_html(page, 0)
    slider = page.get_by_role("slider", name="After batch")
    step_slider(page, slider, 4)
    assert_no_exception(page)
    assert _chart_html(page, 0) != before
    assert "step=7" in page.url
    screenshot(page, "online_forest_step7")
    # play advances the batches by itself
    page.get_by_text("Play (advance one batch every second)").click()
    page.wait_for_timeout(3500)
    assert_no_exception(page)
    screenshot(page, "online_forest_playing")
