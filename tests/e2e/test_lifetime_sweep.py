"""Real browser: the Lifetime sweep page (slider, 2-D surface, Figure 8, bad CSV)."""
import pytest

from tests.e2e.conftest import assert_no_exception, chart_fingerprints, screenshot, wait_for_app

pytestmark = pytest.mark.e2e
SMALL = "data_gp1d_n=400&data_gp2d_n=600&trees=20"


def _wait_charts(page, n, timeout=120_000):
    """Wait until the page shows ``n`` charts and the run has finished."""
    page.wait_for_function(
        f"() => document.querySelectorAll('[data-testid=\"stPlotlyChart\"]').length === {n}",
        timeout=timeout)
    wait_for_app(page, timeout=timeout)


def _metric(page, label):
    box = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return box.locator('[data-testid="stMetricValue"]').inner_text()


def test_slider_moves_the_fit(app_url, page):
    page.set_viewport_size({"width": 1400, "height": 2200})  # the whole page in one shot
    page.goto(f"{app_url}/lifetime_sweep?{SMALL}")
    _wait_charts(page, 4)
    assert_no_exception(page)
    screenshot(page, "lifetime_sweep_1d")
    before = _metric(page, "features")
    charts_before = chart_fingerprints(page)
    thumb = page.get_by_role("slider", name="Lifetime \u03bb (log\u2081\u2080 scale)")
    thumb.focus()
    for _ in range(60):
        page.keyboard.press("ArrowLeft")
    wait_for_app(page)
    assert_no_exception(page)
    assert _metric(page, "features") != before
    # the data split stays; the error curve's marker, the feature count and the fit move
    changed = [a != b for a, b in zip(chart_fingerprints(page), charts_before)]
    assert changed == [False, True, True, True]
    screenshot(page, "lifetime_sweep_1d_small_lifetime")


def test_two_d_surface_and_figure8(app_url, page):
    page.set_viewport_size({"width": 1400, "height": 2600})
    page.goto(f"{app_url}/lifetime_sweep?{SMALL}&data_src=gp2d&trees=10")
    _wait_charts(page, 4)
    assert_no_exception(page)
    screenshot(page, "lifetime_sweep_2d")
    page.get_by_role("button", name="Run the retraining searches (Figure 8)").click()
    # the run may start a moment after the click: wait for its table, not for quiet
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=120_000)
    wait_for_app(page, timeout=120_000)
    assert_no_exception(page)
    assert page.locator('[data-testid="stDataFrame"]').count() == 1
    screenshot(page, "lifetime_sweep_figure8")


def test_bad_csv_shows_error(app_url, page, tmp_path):
    page.goto(f"{app_url}/lifetime_sweep?data_src=csv")
    wait_for_app(page)
    bad = tmp_path / "bad.csv"
    bad.write_text("name,city\nx,y\nz,w\n")
    page.locator('input[type="file"]').set_input_files(str(bad))
    wait_for_app(page)
    assert_no_exception(page)
    assert page.locator('[data-testid="stAlertContentError"]').count() >= 1
    screenshot(page, "lifetime_sweep_bad_csv")
