"""A chart's toolbar camera in a real browser: PNG at 2x, then (after the View popover's
"Chart downloads" switch) SVG, both named after the page, the chart, its parameters
and the seed; an animated chart saves a still, without its Play button and slider."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.support import (
    assert_no_exception,
    finished_runs,
    png_size,
    wait_for_app,
    wait_for_rerun,
)

pytestmark = pytest.mark.e2e

STEM = ("mondrian-process_competing-clocks_seed=5_lifetime=2_width=1_height=0.5"
        "_samples=500")


def _download(page, chart, tmp_path):
    """Click the chart's camera button; return (suggested file name, saved path)."""
    chart.scroll_into_view_if_needed()
    chart.hover()
    button = chart.locator('.modebar-btn[data-title^="Download plot"]')
    button.wait_for(timeout=10_000)
    with page.expect_download(timeout=30_000) as info:
        button.click()
    download = info.value
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    return download.suggested_filename, path


def choose_svg(page) -> None:
    """Set the app-wide download format to SVG in the page header's View popover."""
    page.get_by_role("button", name="View").first.click()  # opens the popover: no rerun
    runs = finished_runs(page)
    page.locator('[data-testid="stRadio"]').filter(
        has_text="Chart downloads").get_by_text("SVG", exact=True).click()
    wait_for_rerun(page, runs)
    page.keyboard.press("Escape")
    # the charts take the new setting once Plotly has redrawn them: every chart's camera
    # set to SVG
    page.wait_for_function(
        """() => {
          const charts = [...document.querySelectorAll('.js-plotly-plot')];
          return charts.length > 0 && charts.every(gd => gd._context &&
            gd._context.toImageButtonOptions &&
            gd._context.toImageButtonOptions.format === 'svg');
        }""", timeout=60_000)


def test_camera_saves_png_at_2x_then_svg(app_url, page, tmp_path):
    page.goto(app_url)
    wait_for_app(page)
    page.goto(app_url + "/mondrian_process?view=clocks&lifetime=2&seed=5&width=1&height=0.5"
                        "&nclock=500")
    wait_for_app(page, timeout=60_000)
    chart = page.locator('[data-testid="stPlotlyChart"]').filter(
        has_text="Dimension of the first cut").first
    chart.locator(".main-svg").first.wait_for(timeout=30_000)
    assert_no_exception(page)
    width, height = chart.locator(".js-plotly-plot").evaluate(
        "gd => [gd._fullLayout.width, gd._fullLayout.height]")

    name, path = _download(page, chart, tmp_path)
    assert name == STEM + ".png"
    assert png_size(path.read_bytes()) == (2 * width, 2 * height)

    choose_svg(page)
    chart = page.locator('[data-testid="stPlotlyChart"]').filter(
        has_text="Dimension of the first cut").first
    chart.wait_for(timeout=30_000)
    name, path = _download(page, chart, tmp_path)
    assert name == STEM + ".svg"
    root = ET.fromstring(path.read_bytes())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert float(root.get("width")) == width and float(root.get("height")) == height
    assert_no_exception(page)


def test_an_animated_chart_saves_a_still(app_url, page, tmp_path):
    """The growth chart shows a Play button and a time slider on screen; its camera saves
    the picture without them (and without the room they took at the bottom)."""
    page.goto(app_url)
    wait_for_app(page)
    page.goto(app_url + "/mondrian_process?lifetime=2&seed=5")
    wait_for_app(page, timeout=60_000)
    choose_svg(page)
    chart = page.locator('[data-testid="stPlotlyChart"]').filter(
        has=page.locator(".slider-container")).first
    chart.wait_for(timeout=30_000)
    assert chart.locator(".updatemenu-container").count() >= 1  # on screen: Play
    name, path = _download(page, chart, tmp_path)
    assert name.endswith(".svg")
    svg = path.read_text()
    assert "slider-container" not in svg and "updatemenu" not in svg
    assert ">Play<" not in svg and "\u25b6" not in svg
    # the chart on screen still animates
    assert chart.locator(".updatemenu-container").count() >= 1
    assert_no_exception(page)
