"""The pages on a projector, in a real browser: at 1280x720 and 1024x768 each page's main
chart shows at least 250 px without scrolling (also in projector mode), and a guided tour
walks forward and back with the arrow keys, each step its own picture."""
from __future__ import annotations

import re

import pytest

from explorer_ui.navigation import VIEWS
from tests.support import (
    assert_no_exception,
    finished_runs,
    screenshot,
    wait_for_app,
    wait_for_change,
    wait_for_charts,
    wait_for_rerun,
)

pytestmark = pytest.mark.e2e

VIEWPORTS = [(1280, 720), (1024, 768)]
MIN_VISIBLE = 250
PAGES = [view.path.removeprefix("pages/").removesuffix(".py") for view in VIEWS]


def _main_chart(page) -> tuple[float, float]:
    """Pixels of the main chart inside the window without scrolling, and its height."""
    chart = page.locator(".st-key-main_chart .js-plotly-plot").first
    chart.locator(".main-svg").first.wait_for(timeout=120_000)
    wait_for_app(page, timeout=120_000)  # a page computing in the background has finished
    box = chart.bounding_box()
    height = page.viewport_size["height"]
    return max(0.0, min(box["y"] + box["height"], height) - max(box["y"], 0.0)), box["height"]


@pytest.fixture
def sized(browser):
    contexts = []

    def make(width, height):
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
@pytest.mark.parametrize("size", VIEWPORTS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_each_main_chart_shows_250_px_without_scrolling(app_url, sized, size, projector):
    page = sized(*size)
    page.goto(app_url)
    wait_for_app(page)
    shown, tall = {}, {}
    for name in PAGES:
        page.goto(f"{app_url}/{name}" + ("?projector=1" if projector else ""))
        wait_for_app(page, timeout=180_000)
        assert_no_exception(page)
        shown[name], tall[name] = _main_chart(page)
        if size == (1024, 768):
            screenshot(page, f"lecture_{name}_{'projector' if projector else 'normal'}",
                       full=False)
    assert all(px >= MIN_VISIBLE for px in shown.values()), shown
    if projector:  # the main chart is at least 60% of the window's height
        assert all(px >= 0.6 * size[1] for px in tall.values()), tall


_SPECS_JS = ("() => [...document.querySelectorAll('.js-plotly-plot .main-svg')]"
             ".map(e => e.outerHTML.length + ':' + e.textContent.slice(0, 400))")


def _chart_specs(page) -> list[str]:
    return page.evaluate(_SPECS_JS)


def test_a_tour_walks_with_the_arrow_keys(app_url, sized):
    page = sized(1024, 768)
    page.goto(app_url)
    wait_for_app(page)
    page.goto(f"{app_url}/mondrian_process?tour=1")
    wait_for_app(page, timeout=120_000)
    panel = page.locator(".st-key-tour_panel")
    panel.get_by_text(re.compile(r"Tour 1/\d")).first.wait_for(timeout=120_000)
    n_steps = int(re.search(r"Tour 1/(\d)", panel.inner_text()).group(1))
    assert 3 <= n_steps <= 6
    wait_for_charts(page, timeout=120_000)
    pictures, runs = [], finished_runs(page)
    for step in range(1, n_steps + 1):
        if step > 1:  # a step's charts differ from the last step's once Plotly redrew them
            page.wait_for_function(f"() => location.search.includes('tour={step}')")
            page.locator(".st-key-tour_panel").get_by_text(f"Tour {step}/{n_steps}").wait_for()
            wait_for_rerun(page, runs, timeout=120_000)
            wait_for_change(page, _SPECS_JS, pictures[-1])  # Plotly redrew the charts
        assert_no_exception(page)
        pictures.append(_chart_specs(page))
        screenshot(page, f"tour_mondrian_process_step{step}", full=False)
        if step < n_steps:
            runs = finished_runs(page)
            page.mouse.click(5, 5)  # focus the page, not a widget
            page.keyboard.press("ArrowRight")
    assert all(a != b for a, b in zip(pictures, pictures[1:]))
    runs = finished_runs(page)
    page.mouse.click(5, 5)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"() => location.search.includes('tour={n_steps - 1}')")
    wait_for_rerun(page, runs, timeout=120_000)
    # Plotly redraws the step's charts: wait until they are the step's picture again
    page.wait_for_function(f"(a) => JSON.stringify(({_SPECS_JS})()) === JSON.stringify(a)",
                           arg=pictures[-2], timeout=30_000)
    assert _chart_specs(page) == pictures[-2]
