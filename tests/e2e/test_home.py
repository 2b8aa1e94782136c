import pytest

from explorer_ui.navigation import VIEWS, thumbnail_name
from tests.support import assert_no_exception, screenshot, wait_for_app

pytestmark = pytest.mark.e2e

TITLES = ["Mondrian process", "Kernel convergence", "Lifetime sweep", "Lifetime posterior",
          "Partition-kernel GPs", "Kernel vs forest", "Online Mondrian forest"]


def test_home_page_links_every_view(app_url, page):
    page.goto(app_url)
    # the first run on a new server takes a while: wait for the title itself
    page.get_by_role("heading", name="Mondrian Explorer").first.wait_for(timeout=60_000)
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]')
    for view in VIEWS:  # one card per view, linked by its title and by its thumbnail
        assert main.get_by_role("link", name=view.title, exact=True).count() == 1, view.title
        assert main.get_by_role("link", name=thumbnail_name(view),
                                exact=True).count() == 1, view.title
    assert set(TITLES) <= {view.title for view in VIEWS}
    assert_no_exception(page)
    screenshot(page, "home")
    main.get_by_role("link", name="Lifetime posterior", exact=True).click()
    page.get_by_role("heading", name="Lifetime posterior").first.wait_for(timeout=60_000)
    assert_no_exception(page)


def test_a_thumbnail_opens_its_page_at_the_first_tour_step(app_url, page):
    page.goto(app_url)
    page.get_by_role("heading", name="Mondrian Explorer").first.wait_for(timeout=60_000)
    wait_for_app(page)
    view = next(v for v in VIEWS if v.title == "Kernel vs forest")
    link = page.locator('[data-testid="stMain"]').get_by_role("link", name=thumbnail_name(view))
    if link.get_attribute("target") == "_blank":
        with page.context.expect_page() as opened:
            link.click()
        page = opened.value
    else:
        link.click()
    page.wait_for_url("**/kernel_vs_forest?*tour=1*", timeout=60_000)
    page.locator(".st-key-tour_panel").get_by_text("Tour 1/").wait_for(timeout=120_000)
    wait_for_app(page, timeout=120_000)
    assert_no_exception(page)


def test_a_screen_reader_hears_each_thumbnail_as_its_tour_not_as_fullscreen(app_url, page):
    """Each thumbnail is one link named by the tour it opens; no control of the home page
    is announced as a bare "Fullscreen" (the image toolbar's button), and the cards are
    read in the pages' order."""
    page.goto(app_url)
    page.get_by_role("heading", name="Mondrian Explorer").first.wait_for(timeout=60_000)
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]')
    assert main.get_by_role("button", name="Fullscreen").count() == 0
    tree = main.aria_snapshot()
    assert "Fullscreen" not in tree
    at = [tree.index(f'link "{thumbnail_name(view)}"'.replace("'", "''")) for view in VIEWS]
    assert at == sorted(at), "the cards are read out of the pages' order"
