"""Real browser: the Lifetime sweep page (lifetime slider, tour, 2-D surface, Figure 8 at
scale, bad CSV)."""
import pytest

from tests.support import (
    FINGERPRINT_JS,
    assert_no_exception,
    chart_fingerprints,
    finished_runs,
    screenshot,
    wait_for_app,
    wait_for_change,
    wait_for_charts,
    wait_for_link_value,
    wait_for_rerun,
)

pytestmark = pytest.mark.e2e
SMALL = "data_gp1d_n=400&data_gp2d_n=600&trees=20"


def _wait_until_charts_differ(page, before):
    """Wait until Plotly has redrawn the first two charts: each differs from ``before``."""
    for i in (0, 1):
        wait_for_change(page, f"() => ({FINGERPRINT_JS})()[{i}]", before[i])


def _status(page):
    """The line under the main chart: lifetime, features, validation error."""
    return page.locator('[data-testid="stMarkdown"]').filter(has_text="features, validation RMSE") \
        .first.inner_text()


def test_slider_moves_the_fit(app_url, page):
    page.set_viewport_size({"width": 1400, "height": 2200})  # the whole page in one shot
    page.goto(f"{app_url}/lifetime_sweep?{SMALL}")
    wait_for_charts(page, 2)
    assert_no_exception(page)
    screenshot(page, "lifetime_sweep_1d")
    before = _status(page)
    charts_before = chart_fingerprints(page)[:2]  # the error curve and the fit
    thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]') \
        .filter(has_text="inverse kernel width").get_by_role("slider")
    thumb.focus()
    for _ in range(15):
        page.keyboard.press("ArrowLeft")
    # the reruns may start after the presses: wait for the last one's value in the link
    wait_for_link_value(page, "lifetime", thumb)
    _wait_until_charts_differ(page, charts_before)
    assert_no_exception(page)
    assert _status(page) != before
    # the error curve's marker and the fit move with the lifetime
    assert [a != b for a, b in zip(chart_fingerprints(page)[:2], charts_before)] == [True, True]
    assert "tour" not in page.url
    screenshot(page, "lifetime_sweep_1d_small_lifetime")


def test_tour_next_changes_the_charts(app_url, page):
    page.goto(f"{app_url}/lifetime_sweep?{SMALL}&tour=1")
    wait_for_charts(page, 2)
    first = chart_fingerprints(page)[:2]
    runs = finished_runs(page)
    page.get_by_role("button", name="Next").click()
    page.wait_for_function("() => window.location.search.includes('tour=2')", timeout=30_000)
    wait_for_rerun(page, runs)
    _wait_until_charts_differ(page, first)
    assert_no_exception(page)
    assert chart_fingerprints(page)[:2] != first
    screenshot(page, "lifetime_sweep_tour2", full=False)


def test_two_d_surface_and_figure8(app_url, page):
    page.set_viewport_size({"width": 1400, "height": 2600})
    page.goto(f"{app_url}/lifetime_sweep?{SMALL}&data_src=gp2d&trees=10")
    wait_for_charts(page, 2)
    assert_no_exception(page)
    screenshot(page, "lifetime_sweep_2d")
    # Figure 8 at scale runs once per server in the background (minutes on a busy
    # machine): wait for its table
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=600_000)
    wait_for_app(page, timeout=120_000)
    assert_no_exception(page)
    assert page.locator('[data-testid="stDataFrame"]').count() == 1
    screenshot(page, "lifetime_sweep_figure8")


def test_bad_csv_shows_error(app_url, page, tmp_path):
    page.goto(f"{app_url}/lifetime_sweep?data_src=csv")
    wait_for_app(page)
    bad = tmp_path / "bad.csv"
    bad.write_text("name,city\nx,y\nz,w\n")
    runs = finished_runs(page)
    page.locator('input[type="file"]').set_input_files(str(bad))
    wait_for_rerun(page, runs)
    assert_no_exception(page)
    assert page.locator('[data-testid="stAlertContentError"]').count() >= 1
    screenshot(page, "lifetime_sweep_bad_csv")
