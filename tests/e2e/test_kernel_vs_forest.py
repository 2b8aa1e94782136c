"""Real browser: the kernel-vs-forest page renders; moving the lifetime changes the histograms."""
import pytest

from tests.e2e.conftest import assert_no_exception, screenshot, step_slider, wait_for_app

pytestmark = pytest.mark.e2e


def test_kernel_vs_forest_page(app_url, page):
    page.goto(app_url + "/kernel_vs_forest?trees=20&nlam=12")
    wait_for_app(page, timeout=90_000)
    page.wait_for_selector('[data-testid="stPlotlyChart"] >> nth=1', timeout=90_000)
    wait_for_app(page, timeout=90_000)
    assert_no_exception(page)
    page.wait_for_timeout(1500)
    screenshot(page, "kernel_vs_forest")
    charts = page.locator('[data-testid="stPlotlyChart"]')
    before = charts.nth(1).inner_html()
    slider = page.get_by_role("slider", name="Lifetime for the weights (λ)")
    step_slider(page, slider, 3)
    assert_no_exception(page)
    assert charts.nth(1).inner_html() != before
    assert "lam=" in page.url
    screenshot(page, "kernel_vs_forest_moved")
