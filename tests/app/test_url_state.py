"""A link carries the view: every page's parameters round-trip through the URL, and
invalid or hostile values in a link fall back to the defaults with a notice."""
from __future__ import annotations

import pytest

from tests.support import PAGES, assert_clean, chart_specs, run_page, small

#: values a hand-edited or malicious link may carry; none is valid for any parameter
HOSTILE = ["nan", "inf", "-1e308", "<script>alert(1)</script>", "1~2~3", "9" * 400, "",
           "-inf", "0x1f", "None"]


@pytest.mark.parametrize("page", list(PAGES))
def test_hostile_link_values_fall_back_to_defaults_with_a_notice(page):
    small_query = small(page)  # its values are left out of the hostile run
    clean = run_page(page, query=small_query, timeout=180)
    assert_clean(clean)
    keys = sorted(k for k in clean.query_params if k not in small_query)
    assert keys, "the page keeps no parameter in its URL"
    junk = {k: HOSTILE[i % len(HOSTILE)] for i, k in enumerate(keys)}

    at = run_page(page, query={**small_query, **junk}, timeout=180)

    assert_clean(at)
    notices = " ".join(toast.value for toast in at.toast)
    for key in keys:
        assert f"value {key}=" in notices, (key, notices)
        assert at.query_params[key] == clean.query_params[key], key
    # the same picture as a clean link, and nothing of the link echoed raw into the page
    assert chart_specs(at) == chart_specs(clean)
    assert "<script>" not in " ".join(m.value for m in at.markdown)


def test_a_link_reopens_the_same_view():
    """Non-default values set through widgets, then the URL they leave, reopen that view."""
    page = "pages/kernel_vs_forest.py"
    at = run_page(page, query=small(page))
    at.slider(key="nlam").set_value(7).run()
    at.number_input(key="seed").set_value(12).run()
    assert_clean(at)
    link = {k: at.query_params[k] for k in at.query_params}
    assert link["nlam"] == "7" and link["seed"] == "12"
    again = run_page(page, query=link)
    assert_clean(again)
    assert {k: again.query_params[k] for k in again.query_params} == link
    assert chart_specs(again) == chart_specs(at)
