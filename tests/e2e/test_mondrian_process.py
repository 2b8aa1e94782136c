"""The Mondrian process page in a real browser: it renders, the time slider changes the
picture, and Play animates the partition (plotly frames) without an exception."""
import pytest

from tests.support import (
    assert_no_exception,
    finished_runs,
    screenshot,
    wait_for_app,
    wait_for_link_value,
    wait_for_rerun,
)

pytestmark = pytest.mark.e2e


def _chart(page, n=0):
    return page.locator('[data-testid="stPlotlyChart"]').nth(n)


#: The drawn path of the first chart's line traces (the growth chart's cuts).
_CUT_PATH_JS = """() => Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]')[0]
  .querySelectorAll('g.scatterlayer .trace path.js-line'))
  .map(e => e.getAttribute('d') || '').join('|')"""

#: The Plotly time slider's current label in the first chart (the animation's frame).
_FRAME_JS = """() => document.querySelectorAll('[data-testid="stPlotlyChart"]')[0]
  .querySelector('text.slider-label').textContent"""


def _cut_path(page):
    """The drawn path of the growth chart's cut trace (changes when cuts appear)."""
    return page.evaluate(_CUT_PATH_JS)


def _drawn(chart):
    """Wait until Plotly has drawn the chart's traces."""
    chart.locator("g.scatterlayer .trace").first.wait_for(timeout=30_000)


def test_page_plays_the_animation(app_url, page):
    # NB: open the home page first. On a freshly started server whose first request is a
    # page URL, Streamlit runs that file as a legacy pages/ script (no st.navigation).
    page.goto(app_url)
    wait_for_app(page)
    page.goto(app_url + "/mondrian_process?lifetime=4&seed=3&time=4")
    wait_for_app(page)
    screenshot(page, "mondrian_process_loaded")
    chart = _chart(page)
    chart.wait_for(timeout=30_000)
    assert page.get_by_role("heading", name="Mondrian process").count() >= 1
    _drawn(chart)
    screenshot(page, "mondrian_process_full")
    assert_no_exception(page)
    before = _cut_path(page)
    # move the Streamlit time slider: fewer cuts are drawn
    # by its label: "Lifetime" contains "time" too
    slider = page.locator('[data-testid="stSidebar"] input[type="range"][aria-label^="Time"]')
    slider.focus()
    for _ in range(150):
        page.keyboard.press("ArrowLeft")
    # the reruns settle (the last press's time is in the link) into a redrawn chart
    wait_for_link_value(page, "time", slider)
    page.wait_for_function(f"() => ({_CUT_PATH_JS})() !== {before!r}", timeout=30_000)
    after = _cut_path(page)
    screenshot(page, "mondrian_process_time_moved")
    assert float(slider.input_value()) < 4.0
    assert after != before
    # press play in the chart: the plotly time slider advances frame by frame
    current = chart.locator("text.slider-label").first
    start = current.text_content()
    chart.locator("g.updatemenu-button", has_text="Play").click()
    # the animation moves the label on by itself: wait for two frames after the start
    page.wait_for_function(f"() => ({_FRAME_JS})() !== {start!r}", timeout=30_000)
    middle = current.text_content()
    screenshot(page, "mondrian_process_playing")
    assert middle != start
    page.wait_for_function(f"() => ({_FRAME_JS})() !== {middle!r}", timeout=30_000)
    assert current.text_content() != middle
    assert_no_exception(page)
    screenshot(page, "mondrian_process_played")


def test_clicking_a_node_highlights_its_cell(app_url, page):
    page.goto(app_url + "/mondrian_process?lifetime=2&seed=5&time=2")
    wait_for_app(page)
    chart = _chart(page)
    chart.wait_for(timeout=30_000)
    _drawn(chart)
    details = page.locator('[data-testid="stMarkdownContainer"]').filter(has_text="born at t =")
    assert details.count() == 0
    # the tree's nodes are the last markers drawn; click one (a real mouse click)
    points = chart.locator("g.scatterlayer g.trace path.point")
    assert points.count() > 0
    points.last.scroll_into_view_if_needed()
    box = points.last.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x - 5, y - 5)
    page.mouse.move(x, y, steps=5)  # plotly finds the point under the mouse on hover
    chart.locator("g.hoverlayer g.hovertext").first.wait_for(timeout=10_000)
    screenshot(page, "mondrian_process_hover", full=False)  # keep the mouse over the node
    runs = finished_runs(page)
    page.mouse.down()
    page.mouse.up()
    details.first.wait_for(timeout=30_000)
    wait_for_rerun(page, runs)
    assert_no_exception(page)
    screenshot(page, "mondrian_process_node_selected")


@pytest.mark.parametrize("width, height", [(1024, 768), (1280, 720)])
def test_main_chart_is_visible_without_scrolling_on_a_tour(app_url, browser, width, height):
    """On a projector-sized window, with the tour's narrative above it, at least 250 px of
    the main chart show without scrolling; the Right arrow key moves to the next step."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(app_url)
        wait_for_app(page)
        page.goto(app_url + "/mondrian_process?tour=1")
        wait_for_app(page, timeout=60_000)
        chart = page.locator(".js-plotly-plot").first
        chart.wait_for(timeout=30_000)
        top = chart.bounding_box()["y"]
        assert top <= height - 250, top
        screenshot(page, f"mondrian_process_tour1_{width}x{height}", full=False)
        assert_no_exception(page)
        # focus the page (not a widget), as a lecturer clicking on it would
        page.get_by_role("heading", name="Mondrian process").first.click()
        runs = finished_runs(page)
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => window.location.search.includes('tour=2')",
                               timeout=30_000)
        wait_for_rerun(page, runs)
        assert page.get_by_text("Cells multiply as time runs").count() >= 1
        assert_no_exception(page)
    finally:
        context.close()
