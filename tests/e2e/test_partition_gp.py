"""Real browser: the Partition-kernel GPs page renders, and moving m redraws the posteriors."""
import pytest

from tests.support import (
    assert_no_exception,
    finished_runs,
    screenshot,
    wait_for_app,
    wait_for_charts,
    wait_for_rerun,
)

pytestmark = pytest.mark.e2e


def _panel_titles(page):
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    return chart.locator("text.annotation-text").all_text_contents()


def _wait_for_charts(page, n, timeout=90_000):
    """Wait until exactly ``n`` charts show, all drawn, and the app is idle."""
    wait_for_charts(page, n, timeout=timeout)
    assert page.locator('[data-testid="stPlotlyChart"]').count() == n


def _open(page, app_url, query=""):
    """Open the page with its three charts drawn (the CG chart waits for its question).

    The home page is opened first: on a fresh server, a deep link served before
    app.py has ever run is routed as a legacy pages/ script (no st.navigation, no
    wide layout), whatever the page.
    """
    page.goto(app_url)
    wait_for_app(page)
    page.goto(app_url + "/partition_gp" + query)
    page.get_by_role("heading", name="Partition-kernel GPs").first.wait_for(timeout=90_000)
    wait_for_app(page, timeout=90_000)
    _wait_for_charts(page, 3)


def test_partition_gp_page(app_url, page):
    _open(page, app_url)
    before = _panel_titles(page)
    assert any("m=100" in t for t in before)
    screenshot(page, "partition_gp")

    slider = page.locator(".st-key-m input[type=range]")
    runs = finished_runs(page)
    slider.focus()
    slider.press("ArrowRight")
    wait_for_rerun(page, runs, timeout=90_000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('text.annotation-text')]"
        ".some(t => t.textContent.includes('m=105'))", timeout=60_000)
    after = _panel_titles(page)
    assert after != before and any("m=105" in t for t in after)
    assert_no_exception(page)
    page.set_viewport_size({"width": 1400, "height": 4200})  # the whole page in one shot
    screenshot(page, "partition_gp_m105")


def test_partition_gp_kernel_comparison(app_url, page):
    _open(page, app_url, "?real_src=tips&mr=50")
    runs = finished_runs(page)
    page.get_by_role("button", name="Compare kernels").click()
    wait_for_rerun(page, runs, timeout=240_000)
    _wait_for_charts(page, 4, timeout=240_000)
    assert_no_exception(page)
    page.set_viewport_size({"width": 1400, "height": 4600})
    screenshot(page, "partition_gp_compare")


def test_partition_gp_main_chart_in_view_and_question(app_url, page):
    page.set_viewport_size({"width": 1024, "height": 768})
    _open(page, app_url)
    # the posterior panels start high enough that at least 250 px of them are on screen
    box = page.locator(".js-plotly-plot").first.bounding_box()
    assert box["y"] <= 768 - 250, box
    runs = finished_runs(page)
    page.get_by_role("button", name="Reveal the answer").click()
    wait_for_rerun(page, runs, timeout=90_000)
    _wait_for_charts(page, 4)
    assert_no_exception(page)
    assert "preconditioner B" in page.locator('[data-testid="stPlotlyChart"]').nth(1).inner_html()
