"""Real browser: "Copy link" copies the current view's URL, and that link opens the same
picture in another browser session (a lecturer's link, a student's screen)."""
import pytest

from tests.support import (
    FINGERPRINT_JS,
    assert_no_exception,
    chart_fingerprints,
    screenshot,
    step_slider,
    wait_for_app,
    wait_for_change,
    wait_for_charts,
)

pytestmark = pytest.mark.e2e


def test_copied_link_opens_the_same_picture(app_url, browser):
    lecturer = browser.new_context(viewport={"width": 1400, "height": 1000})
    lecturer.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    page = lecturer.new_page()
    page.goto(app_url)
    wait_for_app(page)
    page.goto(f"{app_url}/mondrian_process?lifetime=2.5&seed=11")
    wait_for_charts(page, timeout=90_000)
    before = chart_fingerprints(page)
    step_slider(page, page.get_by_role("slider", name="Time t"), 10, key="ArrowLeft")
    assert "time=2.4" in page.url
    wait_for_change(page, FINGERPRINT_JS, before)  # Plotly redrew the charts
    page.get_by_role("button", name="View").first.click()  # the header's View popover
    frame = page.frame_locator('[data-testid="stPopoverBody"] iframe').first
    frame.get_by_role("button", name="Copy link").click()
    frame.get_by_role("button", name="Copied \u2713").wait_for(timeout=5_000)
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert link == page.url
    assert frame.get_by_role("textbox", name="Link to this view").input_value() == page.url
    screenshot(page, "share_link_copied", full=False)
    shown = chart_fingerprints(page)
    lecturer.close()

    student = browser.new_context(viewport={"width": 1400, "height": 1000})
    other = student.new_page()
    other.goto(link)
    wait_for_charts(other, len(shown), timeout=90_000)
    assert_no_exception(other)
    assert chart_fingerprints(other) == shown
    student.close()
