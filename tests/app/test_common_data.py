"""AppTest of the shared data-source picker (explorer_ui/data.py) in a tiny script."""
from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer_ui.data import PLANE_KINDS, REGRESSION_KINDS, SOURCE_LABELS
from tests.app.conftest import assert_clean


def picker_script():
    import streamlit as st

    from explorer_ui.data import SOURCE_LABELS, data_source_picker

    data = data_source_picker("data", kinds=tuple(SOURCE_LABELS), container=st.sidebar,
                              standardize_target=True)
    st.markdown(f"shape={data.X.shape} name={data.name}")
    st.markdown(f"true={data.true_lifetime}")


def start(query=None) -> AppTest:
    at = AppTest.from_function(picker_script, default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.run()


def shown(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_default_source_is_a_1d_laplace_gp_draw():
    at = start()
    assert_clean(at)
    assert "shape=(500, 1)" in shown(at) and "true=5.0" in shown(at)
    # moving N and the lifetime changes the data; the URL keeps the choices
    at.sidebar.slider(key="data_gp1d_n").set_value(200).run()
    at.sidebar.number_input(key="data_gp1d_lifetime").set_value(12.5).run()
    assert_clean(at)
    assert "shape=(200, 1)" in shown(at) and "true=12.5" in shown(at)
    assert at.query_params["data_gp1d_n"] == "200"
    assert at.query_params["data_gp1d_lifetime"] == "12.5"


@pytest.mark.parametrize("source", [k for k in SOURCE_LABELS if k != "csv"])
def test_switching_to_every_source_works(source):
    at = start()
    at.sidebar.selectbox(key="data_src").set_value(source).run()
    assert_clean(at)
    assert "shape=(" in shown(at)


def test_link_reproduces_choice():
    at = start({"data_src": "gp2d", "data_gp2d_n": "300", "data_seed": "7"})
    assert_clean(at)
    assert "shape=(300, 2)" in shown(at)


def test_csv_upload_good_bad_and_recovery():
    at = start({"data_src": "csv"})
    assert_clean(at)
    assert any("Upload a CSV" in i.value for i in at.info)  # waits for a file
    rng = np.random.default_rng(0)
    rows = "".join(f"{a:.3f},{b:.3f},txt{i},{a + b:.3f}\n"
                   for i, (a, b) in enumerate(rng.normal(size=(30, 2))))
    good = ("a,b,label,y\n" + rows + "nan,1,x,2\n").encode()
    at.sidebar.get("file_uploader")[0].set_value(("mine.csv", good, "text/csv"))
    at.run()
    assert_clean(at)
    assert "shape=(30, 2) name=mine" in shown(at)
    assert any("Dropped 1 of 31 rows" in w.value for w in at.warning)
    assert any("label" in i.value for i in at.info)
    # choose another target and fewer features
    at.sidebar.selectbox(key="data_target").set_value("b").run()
    assert_clean(at)
    assert "shape=(30, 2)" in shown(at)  # a and y as features
    at.sidebar.multiselect(key="data_features").set_value(["a"]).run()
    assert "shape=(30, 1)" in shown(at)
    # a bad upload: a short error, no traceback, and the session goes on
    at.sidebar.get("file_uploader")[0].set_value(("bad.csv", b"only\n1\n2\n", "text/csv"))
    at.run()
    assert not at.exception
    assert len(at.error) == 1 and "one column" in at.error[0].value
    at.sidebar.selectbox(key="data_src").set_value("jumps").run()
    assert_clean(at)
    assert "shape=(150, 1)" in shown(at)


def test_link_beyond_the_exact_2d_limit_falls_back_to_the_default():
    # the slider's max is the exact sampler's limit; a link asking for more is ignored
    at = start({"data_src": "gp2d", "data_gp2d_n": "99999"})
    assert not at.exception and "shape=(1000, 2)" in shown(at)


def test_kind_groups_are_known_sources():
    assert set(REGRESSION_KINDS) <= set(SOURCE_LABELS) and set(PLANE_KINDS) <= set(SOURCE_LABELS)
