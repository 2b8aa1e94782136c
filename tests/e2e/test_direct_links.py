"""A shared link to a page must open that page inside the app's navigation,
even as the very first request a freshly started server gets (Streamlit would
otherwise fall back to its old ``pages/`` folder mode: wrong sidebar, no layout)."""
import pytest

from tests.support import assert_no_exception, screenshot, serve_app, wait_for_app

pytestmark = pytest.mark.e2e


def test_first_request_is_a_page_link(page):
    with serve_app(".server_direct.log") as url:
        page.goto(f"{url}/kernel_convergence?M=20")
        wait_for_app(page, timeout=90_000)
        nav = page.locator('[data-testid="stSidebarNav"]')
        nav.wait_for(timeout=30_000)
        try:  # the page may take one rerun to leave the folder mode
            page.wait_for_function(
                "() => document.querySelector('[data-testid=\"stSidebarNav\"]')"
                ".innerText.includes('Home')", timeout=30_000)
        except Exception:
            pass
        wait_for_app(page, timeout=90_000)
        links = nav.inner_text()
        assert "Home" in links and "Lifetime sweep" in links
        assert "common" not in links  # helper modules are not pages
        page.get_by_role("heading", name="Kernel convergence").first.wait_for(timeout=90_000)
        assert_no_exception(page)
        screenshot(page, "direct_link_kernel_convergence", full=False)
