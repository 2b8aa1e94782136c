"""Bad input at the pages: every malformed upload or impossible choice shows a
short st.error / st.warning that says what to change, never a traceback, and the session
keeps working: after the bad input is fixed, the page shows its charts again.

The malformed CSVs are those of ``tests/test_bad_input.py`` (where the core's messages
are checked); here they go through Streamlit's uploader.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from streamlit.testing.v1 import AppTest

from mondrian_core import datasets as ds
from tests.support import ACTIONS, BAD_CSVS, assert_clean, malformed_csv, run_page


def picker_script():
    import streamlit as st

    from explorer_ui.data import data_source_picker

    data = data_source_picker("data", kinds=("jumps", "csv"), default="csv", container=st.sidebar)
    st.markdown(f"shape={data.X.shape}")


def good_csv(n=40, d=2, seed=0) -> bytes:
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = np.sin(5 * X[:, 0]) + X.sum(1) + 0.1 * rng.standard_normal(n)
    names = ",".join(f"x{j}" for j in range(d))
    rows = "\n".join(",".join(f"{v:.5f}" for v in (*x, t)) for x, t in zip(X, y))
    return f"{names},y\n{rows}\n".encode()


def upload(at: AppTest, name: str, data: bytes, *, timeout=None) -> AppTest:
    at.get("file_uploader")[0].set_value((name, data, "text/csv"))
    return at.run(timeout=timeout)


def messages(at: AppTest) -> list[str]:
    return [e.value for e in (*at.error, *at.warning)]


def assert_told_what_to_change(at: AppTest, *words: str) -> None:
    """No traceback; one short error that names the problem and what to do."""
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1, messages(at)
    text = at.error[0].value
    assert len(text) < 600 and "Traceback" not in text, text
    assert any(w in text.lower() for w in ACTIONS), text
    for word in words:
        assert word in text, (word, text)


def start_picker() -> AppTest:
    at = AppTest.from_function(picker_script, default_timeout=60).run()
    assert_clean(at)
    return at


GOOD = good_csv()
#: Where the picker answers before the core (fewer than two numeric columns), its own words.
PICKER_WORDS = {"all text columns": "0 numeric column", "decimal comma, ; delimiter": "decimal point"}


@pytest.mark.parametrize("what, data, words", BAD_CSVS, ids=[c[0] for c in BAD_CSVS])
def test_each_malformed_upload_shows_its_message_then_a_good_file_works(what, data, words):
    at = start_picker()
    upload(at, "bad.csv", data)
    assert_told_what_to_change(at)
    words = PICKER_WORDS.get(what, words)
    assert re.search(words, at.error[0].value), (words, at.error[0].value)
    assert "shape=" not in " ".join(m.value for m in at.markdown)
    upload(at, "good.csv", GOOD)
    assert_clean(at)
    assert "shape=(40, 2)" in " ".join(m.value for m in at.markdown)


def test_a_50_mb_upload_names_the_limit():
    """Streamlit's server refuses files above server.maxUploadSize (20 MiB) in the browser;
    AppTest skips that step, so here the core's own check answers, with the same limit."""
    at = start_picker()
    upload(at, "big.csv", b"a,b\n" + b"1,2\n" * (50_000_000 // 4))
    assert_told_what_to_change(at, f"larger than {ds.CSV_MAX_BYTES / 1e6:g} MB")
    upload(at, "good.csv", GOOD)
    assert_clean(at)


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=malformed_csv())
def test_any_malformed_upload_gives_a_message_or_data_never_a_traceback(data):
    at = start_picker()
    upload(at, "any.csv", data)
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(m.value for m in at.markdown)
    if at.error:
        assert_told_what_to_change(at)
        assert "shape=" not in shown
    else:
        assert "shape=(" in shown


def test_clearing_the_feature_columns_falls_back_to_all_of_them():
    at = start_picker()
    upload(at, "good.csv", GOOD)
    at.sidebar.multiselect(key="data_features").set_value([]).run()
    assert_clean(at)
    assert "shape=(40, 2)" in " ".join(m.value for m in at.markdown)
    assert at.sidebar.multiselect(key="data_features").value == ["x0", "x1"]
    at.sidebar.multiselect(key="data_features").set_value(["x1"]).run()
    assert_clean(at)
    assert "shape=(40, 1)" in " ".join(m.value for m in at.markdown)


# ---------------------------------------------------------------- the pages themselves

def charts(at: AppTest) -> int:
    return len(at.get("plotly_chart"))


# (page, query, bad upload, words in the message); then a good file brings the charts back
PAGE_CASES = [
    ("pages/lifetime_sweep.py", {"data_src": "csv", "trees": "10"},
     b"a,b\n" + b"1,2\n" * 5, "at least 10"),
    ("pages/lifetime_sweep.py", {"data_src": "csv", "trees": "10"},
     b"a,b\n" + "é,1\n".encode("latin-1"), "CSV UTF-8"),
    ("pages/lifetime_posterior.py", {"data_src": "csv", "trees": "10"},
     b"\xef\xbb\xbfa;a;y\n" + b"1;2;3\n" * 12, "Rename the duplicates"),
    ("pages/kernel_vs_forest.py", {"data_src": "csv", "trees": "5"},
     good_csv(3001, 1), "upload at most 3,000 rows"),
]
GP_PAGE = ("pages/partition_gp.py", {"real_src": "csv", "m": "10", "n": "40", "mr": "10"})


@pytest.mark.parametrize("page, query, bad, words", PAGE_CASES,
                         ids=["sweep: 5 rows", "sweep: latin-1", "posterior: BOM + dup header",
                              "kernel-vs-forest: 3,001 rows"])
def test_bad_upload_on_a_page_then_a_good_one_brings_the_charts_back(page, query, bad, words):
    at = run_page(page, query=query, timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    n_before = charts(at)
    upload(at, "bad.csv", bad, timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    assert_told_what_to_change(at, words)
    upload(at, "good.csv", good_csv(60, 2), timeout=180)
    assert_clean(at)
    assert charts(at) > n_before, (charts(at), n_before)


def test_gp_page_constant_columns_draw_a_flat_kernel_pca_with_a_notice():
    """All points in one cluster: kernel PCA's centred kernel is 0 (ARPACK fails on it)."""
    at = run_page(GP_PAGE[0], query=GP_PAGE[1], timeout=180)
    n_before = charts(at)
    upload(at, "flat.csv", b"a,b,y\n" + b"1,1,3\n" * 12, timeout=180)
    assert_clean(at)
    assert charts(at) == n_before + 1  # the kernel PCA figure
    assert any("Constant feature column(s) 'a', 'b'" in i.value for i in at.info)


def test_gp_page_target_too_large_to_square_is_refused_then_a_good_file_works():
    at = run_page(GP_PAGE[0], query=GP_PAGE[1], timeout=180)
    upload(at, "huge.csv", b"a,b,y\n" + b"1,2,1e200\n2,1,-1e200\n3,3,1\n" * 6, timeout=180)
    assert_clean(at)  # the kernel PCA needs no squares of y
    at.button(key="compare").click().run(timeout=300)
    assert_told_what_to_change(at, "rescale y")
    upload(at, "good.csv", good_csv(60, 2), timeout=180)
    assert_clean(at)
    at.button(key="compare").click().run(timeout=300)
    assert_clean(at)
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 6
