"""Real browser: the Lifetime posterior page (prior choice changes the posterior; the main
chart is in view at a projector's 1280x720)."""
import pytest

from tests.support import (
    assert_no_exception,
    finished_runs,
    screenshot,
    wait_for_change,
    wait_for_charts,
    wait_for_rerun,
)

pytestmark = pytest.mark.e2e


#: The y values of every trace of the first (main) plotly chart.
_DATA_JS = "() => JSON.stringify(document.querySelector('.js-plotly-plot').data.map(t => t.y))"


def _main_chart_data(page):
    return page.evaluate(_DATA_JS)


def test_main_chart_in_view_and_prior_choice_moves_the_posterior(app_url, page):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/lifetime_posterior?data_gp1d_n=400&trees=30")
    wait_for_charts(page, 1)
    assert_no_exception(page)
    top = page.evaluate("() => document.querySelector('.js-plotly-plot')"
                        ".getBoundingClientRect().top")
    assert top <= 720 - 250, top  # at least 250 px of the main chart without scrolling
    page.set_viewport_size({"width": 1400, "height": 2400})  # the sidebar's prior in view
    screenshot(page, "lifetime_posterior_loguniform")
    before = _main_chart_data(page)
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Prior over")
    box.get_by_role("combobox").click()  # opens the menu: no rerun
    runs = finished_runs(page)
    page.get_by_role("option", name="gamma", exact=True).click()
    wait_for_rerun(page, runs, timeout=120_000)
    wait_for_charts(page, 1)
    # Plotly redraws the main chart once the run has sent the new posterior
    wait_for_change(page, _DATA_JS, before)
    assert_no_exception(page)
    assert _main_chart_data(page) != before  # the prior (and posterior) changed
    assert page.get_by_text("Exact (Laplace GP").count() >= 1
    screenshot(page, "lifetime_posterior_gamma")
