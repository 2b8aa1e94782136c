"""Real-browser test of the kernel-convergence page: render, move M, chart changes."""
import pytest

from tests.support import (
    assert_no_exception,
    finished_runs,
    screenshot,
    wait_for_app,
    wait_for_charts,
    wait_for_link_value,
    wait_for_rerun,
)

pytestmark = pytest.mark.e2e


def _chart_text(page, index):
    return page.locator('[data-testid="stPlotlyChart"]').nth(index).inner_text()


def test_kernel_convergence_page(app_url, page):
    # The first session of a fresh server can come up in Streamlit's legacy
    # pages/-folder mode when it starts on a sub-page; open the app once first.
    page.goto(app_url)
    wait_for_app(page)
    page.goto(app_url + "/kernel_convergence")
    wait_for_charts(page, 5, timeout=90_000)
    assert_no_exception(page)
    charts = page.locator('[data-testid="stPlotlyChart"]')
    # heat maps, slice, link, uniform convergence and Figure 6; Figure 5 waits for the reveal
    assert charts.count() == 5
    assert "Kernel convergence" in page.locator('[data-testid="stSidebarNav"]').inner_text()
    assert "Mondrian, M = 50" in _chart_text(page, 0)
    runs = finished_runs(page)
    page.get_by_role("button", name="Reveal the answer").click()
    wait_for_rerun(page, runs, timeout=90_000)
    wait_for_charts(page, 6, timeout=90_000)
    assert charts.count() == 6
    # Figures 5 and 6 drew their three methods
    for i in (4, 5):
        text = _chart_text(page, i)
        assert "Mondrian kernel" in text and "Random Fourier features" in text
    assert_no_exception(page)
    screenshot(page, "kernel_convergence")

    # move the "Trees M" slider three steps to the right
    slider = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]') \
        .filter(has_text="Trees")
    thumb = slider.get_by_role("slider")
    thumb.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    wait_for_link_value(page, "m", thumb, timeout=90_000)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"stPlotlyChart\"]')"
        ".innerText.includes('Mondrian, M = 53')", timeout=60_000)
    assert_no_exception(page)
    assert "m=53" in page.url
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "kernel_convergence_m53")
