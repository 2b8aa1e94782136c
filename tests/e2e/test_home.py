import pytest

from tests.e2e.conftest import assert_no_exception, screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def test_home_page_renders(app_url, page):
    page.goto(app_url)
    wait_for_app(page)
    assert page.get_by_role("heading", name="Mondrian Explorer").count() >= 1
    assert_no_exception(page)
    screenshot(page, "home")
