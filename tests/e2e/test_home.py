import pytest

from tests.e2e.conftest import assert_no_exception, screenshot, wait_for_app

pytestmark = pytest.mark.e2e

TITLES = ["Mondrian process", "Kernel convergence", "Lifetime sweep", "Lifetime posterior",
          "Partition-kernel GPs", "Kernel vs forest", "Online Mondrian forest"]


def test_home_page_links_every_view(app_url, page):
    page.goto(app_url)
    # the first run on a new server takes a while: wait for the title itself
    page.get_by_role("heading", name="Mondrian Explorer").first.wait_for(timeout=60_000)
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]')
    for title in TITLES:  # one card per view, linked
        assert main.get_by_role("link", name=title).count() == 1, title
    assert_no_exception(page)
    screenshot(page, "home")
    main.get_by_role("link", name="Lifetime posterior").click()
    page.get_by_role("heading", name="Lifetime posterior").first.wait_for(timeout=60_000)
    assert_no_exception(page)
