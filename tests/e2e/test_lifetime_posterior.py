"""Real browser: the Lifetime posterior page (prior choice changes the posterior)."""
import pytest

from tests.e2e.conftest import assert_no_exception, screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def _wait_charts(page, n, timeout=120_000):
    """Wait until the page shows ``n`` charts and the run has finished."""
    page.wait_for_function(
        f"() => document.querySelectorAll('[data-testid=\"stPlotlyChart\"]').length === {n}",
        timeout=timeout)
    wait_for_app(page, timeout=timeout)


def _chart_data(page):
    """The y values of every trace of every plotly chart (to see that a chart changed)."""
    return page.evaluate(
        "() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(d => "
        "JSON.stringify(d.data.map(t => t.y)))")


def _metric(page, label):
    box = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return box.locator('[data-testid="stMetricValue"]').inner_text()


def test_prior_choice_moves_the_posterior(app_url, page):
    page.set_viewport_size({"width": 1400, "height": 2400})  # the whole page in one shot
    page.goto(f"{app_url}/lifetime_posterior?data_gp1d_n=400&trees=30")
    _wait_charts(page, 4)
    assert_no_exception(page)
    screenshot(page, "lifetime_posterior_loguniform")
    before = _chart_data(page)
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Prior over")
    box.get_by_role("combobox").click()
    page.get_by_role("option", name="gamma", exact=True).click()
    page.wait_for_timeout(1500)
    _wait_charts(page, 4)
    assert_no_exception(page)
    after = _chart_data(page)
    assert len(after) == len(before) == 4
    assert after[2] != before[2]  # the prior (and posterior) density chart changed
    assert _metric(page, "posterior mean")
    screenshot(page, "lifetime_posterior_gamma")
