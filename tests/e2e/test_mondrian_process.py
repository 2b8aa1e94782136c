"""The Mondrian process page in a real browser: it renders, the time slider changes the
picture, and Play animates the partition (plotly frames) without an exception."""
import pytest

from tests.e2e.conftest import assert_no_exception, screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def _chart(page, n=0):
    return page.locator('[data-testid="stPlotlyChart"]').nth(n)


def _cut_path(page):
    """The drawn path of the growth chart's cut trace (changes when cuts appear)."""
    return _chart(page).locator("g.scatterlayer .trace path.js-line").evaluate_all(
        "els => els.map(e => e.getAttribute('d') || '').join('|')")


def test_page_plays_the_animation(app_url, page):
    page.goto(app_url + "/mondrian_process?lifetime=4&seed=3&time=4")
    wait_for_app(page)
    screenshot(page, "mondrian_process_loaded")
    chart = _chart(page)
    chart.wait_for(timeout=30_000)
    assert page.get_by_role("heading", name="Mondrian process").count() >= 1
    page.wait_for_timeout(800)
    screenshot(page, "mondrian_process_full")
    assert_no_exception(page)
    before = _cut_path(page)
    # move the Streamlit time slider: fewer cuts are drawn
    slider = page.get_by_role("slider", name="Time t")
    slider.focus()
    for _ in range(150):
        page.keyboard.press("ArrowLeft")
    wait_for_app(page)
    page.wait_for_timeout(800)
    after = _cut_path(page)
    assert after != before
    # press play in the chart: the plotly time slider advances frame by frame
    current = chart.locator(".slider-currentvalue")
    start = current.text_content()
    chart.locator("g.updatemenu-button", has_text="Play").click()
    page.wait_for_timeout(1500)
    middle = current.text_content()
    screenshot(page, "mondrian_process_playing")
    assert middle != start
    page.wait_for_timeout(5000)
    assert current.text_content() != middle
    assert_no_exception(page)
    screenshot(page, "mondrian_process_played")
