"""Real browser: the kernel-vs-forest page renders with its main chart in view on a
1024x768 projector, the revealed weights follow the lifetime slider, and the tour's Next
button moves the view."""
import pytest

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


def _open(page, app_url, query):
    # the home page first: a deep link served before app.py ever ran is routed as a
    # legacy pages/ script (see test_partition_gp._open)
    page.goto(app_url)
    wait_for_app(page)
    page.goto(app_url + "/kernel_vs_forest" + query)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=90_000)
    wait_for_app(page, timeout=90_000)


def test_kernel_vs_forest_page(app_url, page):
    page.set_viewport_size({"width": 1024, "height": 768})
    _open(page, app_url, "?trees=20&nlam=12")
    assert_no_exception(page)
    # the main chart starts high enough that at least 250 px of it are on screen
    box = page.locator(".js-plotly-plot").first.bounding_box()
    assert box["y"] <= 768 - 250, box
    page.set_viewport_size({"width": 1400, "height": 1000})
    runs = finished_runs(page)
    page.get_by_role("button", name="Reveal the answer").click()
    wait_for_rerun(page, runs, timeout=90_000)
    wait_for_charts(page, 2, timeout=90_000)
    screenshot(page, "kernel_vs_forest")
    charts = page.locator('[data-testid="stPlotlyChart"]')
    before = charts.nth(1).inner_html()
    slider = page.locator(".st-key-lam input[type=range]")
    step_slider(page, slider, 3)
    assert_no_exception(page)
    # Plotly redraws the weights once the run has sent them
    wait_for_change(page, "() => document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')[1]"
                    ".innerHTML", before)
    assert "lam=" in page.url
    screenshot(page, "kernel_vs_forest_moved")


def test_kernel_vs_forest_tour(app_url, page):
    _open(page, app_url, "?tour=1")
    assert "Tour 1/5" in page.locator(".st-key-tour_panel").inner_text()
    runs = finished_runs(page)
    page.locator(".st-key-tour__next button").click()
    page.wait_for_url("**tour=2**", timeout=60_000)
    wait_for_rerun(page, runs, timeout=90_000)
    assert "Tour 2/5" in page.locator(".st-key-tour_panel").inner_text()
    assert_no_exception(page)
    screenshot(page, "kernel_vs_forest_tour2")
