"""Real-browser test of the kernel-convergence page: render, move M, chart changes."""
import pytest

from tests.support import assert_no_exception, screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def _chart_text(page, index):
    return page.locator('[data-testid="stPlotlyChart"]').nth(index).inner_text()


def test_kernel_convergence_page(app_url, page):
    # The first session of a fresh server can come up in Streamlit's legacy
    # pages/-folder mode when it starts on a sub-page; open the app once first.
    page.goto(app_url)
    wait_for_app(page)
    page.goto(app_url + "/kernel_convergence")
    wait_for_app(page, timeout=90_000)
    assert_no_exception(page)
    charts = page.locator('[data-testid="stPlotlyChart"]')
    charts.nth(4).scroll_into_view_if_needed()
    wait_for_app(page, timeout=90_000)
    # heat maps, slice, link, uniform convergence and Figure 6; Figure 5 waits for the reveal
    assert charts.count() == 5
    assert "Kernel convergence" in page.locator('[data-testid="stSidebarNav"]').inner_text()
    assert "Mondrian, M = 50" in _chart_text(page, 0)
    page.get_by_role("button", name="Reveal the answer").click()
    wait_for_app(page, timeout=90_000)
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"stPlotlyChart\"]').length === 6",
        timeout=90_000)
    charts.nth(5).scroll_into_view_if_needed()
    wait_for_app(page, timeout=90_000)
    # Figures 5 and 6 drew their three methods
    for i in (4, 5):
        text = _chart_text(page, i)
        assert "Mondrian kernel" in text and "Random Fourier features" in text
    assert_no_exception(page)
    screenshot(page, "kernel_convergence")

    # move the "Trees M" slider three steps to the right
    slider = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]') \
        .filter(has_text="Trees")
    slider.get_by_role("slider").focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    wait_for_app(page, timeout=90_000)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"stPlotlyChart\"]')"
        ".innerText.includes('Mondrian, M = 53')", timeout=60_000)
    assert_no_exception(page)
    assert "m=53" in page.url
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "kernel_convergence_m53")
