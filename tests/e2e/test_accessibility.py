"""axe-core (Deque's WCAG 2.1 A/AA rules, through axe-playwright-python) on every page of
the app, in the default and the projector view: no violation of impact critical or
serious. The pages come from ``explorer_ui.navigation.VIEWS``, so a new page is checked
without an edit here."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from explorer_ui.navigation import VIEWS
from tests.support import assert_no_exception, finished_runs, wait_for_app, wait_for_rerun

pytestmark = pytest.mark.e2e

#: The axe impacts this app must never have (WCAG 2.1 A/AA rules that block a student).
BLOCKING = ("critical", "serious")
PATHS = [""] + [v.path.removeprefix("pages/").removesuffix(".py") for v in VIEWS]


@pytest.fixture(scope="module")
def axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


def _blocking(results) -> list[str]:
    out = []
    for v in results.response["violations"]:
        if v.get("impact") in BLOCKING:
            where = "; ".join(n["target"][0] if isinstance(n["target"][0], str)
                              else str(n["target"]) for n in v["nodes"][:3])
            why = (v["nodes"][0].get("any") or [{}])[0].get("message", "")
            out.append(f"{v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])} x, e.g. {where}"
                       f"; {why})")
    return out


# Every Plotly chart is a figure named after its title and described by the caption
# beside it (explorer_ui.widgets.show_figure): what a screen reader announces.
_UNNAMED_JS = """() => Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]'))
  .filter((c) => c.offsetParent !== null)
  .filter((c) => { const d = document.getElementById(c.getAttribute('aria-describedby') || '');
    return c.getAttribute('role') !== 'figure' || !(c.getAttribute('aria-label') || '').startsWith('Chart:')
      || !d || !d.textContent.startsWith(c.getAttribute('aria-label')); })
  .map((c) => c.getAttribute('aria-label') || c.innerText.slice(0, 40))"""


def _unnamed_charts(page) -> list[str]:
    return page.evaluate(_UNNAMED_JS)


def _wait_until_named(page, timeout: float = 30_000) -> None:
    """Wait until every chart is named and described, and still is once the app is idle
    (fails with the unnamed charts' labels)."""
    for _ in range(3):
        try:
            page.wait_for_function(f"() => ({_UNNAMED_JS})().length === 0", timeout=timeout)
        except PlaywrightTimeoutError:
            break
        wait_for_app(page, timeout=60_000)
        if not _unnamed_charts(page):
            return
    pytest.fail(f"charts without a name or description: {_unnamed_charts(page)}")


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p or "home")
def test_no_serious_axe_violation(page, app_url, axe, path):
    found = {}
    for view, query in (("default", ""), ("projector", "?projector=1")):
        page.goto(f"{app_url}/{path}{query}")
        wait_for_app(page, timeout=240_000)
        page.wait_for_selector(".js-plotly-plot, [data-testid='stImage']", timeout=60_000)
        assert_no_exception(page)
        # the page's script names the charts after each change, and a chart Streamlit
        # mounts again is unnamed for a moment: wait until all are named with the run over
        _wait_until_named(page)
        problems = _blocking(axe.run(page))
        if problems:
            found[view] = problems
    assert not found, found


# What has the keyboard focus, and whether it shows: an outline on it, or on the field
# around it (text and number fields, select boxes); a slider shows a ring on its thumb.
_FOCUSED_JS = """() => { const e = document.activeElement;
  if (!e || e === document.body) return null;
  const ring = (x) => { const s = getComputedStyle(x);
    return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2; };
  let shown = ring(e) || e.type === 'range';
  for (let p = e.parentElement, i = 0; !shown && p && i < 3; p = p.parentElement, i++)
    shown = ring(p);
  return [e.tagName, e.getAttribute('aria-label') || e.innerText.slice(0, 40), shown]; }"""


def test_every_control_is_reached_by_tab_with_a_visible_focus(page, app_url):
    """Tab from the top of a page through its controls: each one shows where the focus
    is; the controls a student needs (sidebar, tour, View, chart data) are all reached,
    and the slider moves with the arrow keys."""
    page.goto(f"{app_url}/lifetime_sweep")
    wait_for_app(page, timeout=240_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    reached = []
    for _ in range(60):
        page.keyboard.press("Tab")
        focused = page.evaluate(_FOCUSED_JS)
        if focused is None:
            continue
        reached.append(focused)
        assert focused[2], f"no visible focus on {focused[:2]}"
    names = " | ".join(str(f[1]) for f in reached)
    for needed in ("Lifetime sweep", "Data", "Seed", "Tour", "View", "Data (CSV)",
                   "Download plot as a PNG", "Reveal the answer"):
        assert needed in names, (needed, names)
    # accessible names without a formula's source
    assert "$" not in names and "\\lambda" not in names, names
    slider = page.get_by_role("slider", name="Lifetime λ (inverse kernel width)")
    # a select slider: its value is an index; the lifetime shown is its aria-valuetext
    before = slider.get_attribute("aria-valuetext")
    linked = parse_qs(urlsplit(page.url).query).get("lifetime")
    runs = finished_runs(page)
    slider.focus()
    page.keyboard.press("ArrowRight")
    wait_for_rerun(page, runs)
    assert slider.get_attribute("aria-valuetext") != before
    # the link follows the slider: it names a lifetime other than the one before
    now = parse_qs(urlsplit(page.url).query).get("lifetime")
    assert now is not None and now != linked, (linked, now, page.url)
