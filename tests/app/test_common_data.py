"""AppTest of the shared data-source picker (explorer_ui/data.py) in a tiny script."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer_ui.data import (
    PLANE_KINDS,
    REGRESSION_KINDS,
    SOURCE_LABELS,
    SPLITS,
    SYNTHETIC,
    data_key,
    data_params,
    split,
)
from mondrian_core import datasets as ds
from tests.support import assert_clean


def picker_script():
    import streamlit as st

    from explorer_ui.data import SOURCE_LABELS, data_params, data_source_picker

    data = data_source_picker("data", kinds=tuple(SOURCE_LABELS), container=st.sidebar,
                              standardize_target=True)
    st.markdown(f"shape={data.X.shape} name={data.name}")
    st.markdown(f"true={data.true_lifetime}")
    st.markdown(f"params={sorted(data_params(data).items())}")


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


# ---------------------------------------------------------------- the pages' one split


@pytest.mark.parametrize("purpose", list(SPLITS))
def test_split_follows_its_purpose_fractions_and_the_seed(purpose):
    data = ds.toy_jumps_1d(101, random_state=0)
    parts = split(data, purpose, seed=3)
    fractions = SPLITS[purpose]
    assert len(parts) == len(fractions) and sum(p.n_samples for p in parts) == 101
    for part, fraction in zip(parts[1:], fractions[1:]):
        assert part.n_samples == round(fraction * 101)
    assert np.array_equal(np.sort(np.concatenate([p.X[:, 0] for p in parts])),
                          np.sort(data.X[:, 0]))  # every row once
    again = split(data, purpose, seed=3)
    assert all(np.array_equal(a.X, b.X) for a, b in zip(parts, again))
    other = split(data, purpose, seed=4)
    assert not np.array_equal(parts[0].X, other[0].X)
    # the same split as the core's function with those fractions
    core = ds.train_val_test_split(data, fractions, random_state=3)
    assert all(np.array_equal(a.y, b.y) for a, b in zip(parts, core))


def test_split_with_max_points_splits_a_seeded_subset():
    data = ds.toy_jumps_1d(500, random_state=0)
    train, test = split(data, "compare", seed=1, max_points=200)
    assert (train.n_samples, test.n_samples) == (160, 40)
    rows = {float(x) for x in data.X[:, 0]}
    assert {float(x) for x in np.concatenate([train.X[:, 0], test.X[:, 0]])} <= rows
    small = ds.toy_jumps_1d(100, random_state=0)
    assert split(small, "compare", 1, max_points=200)[0].n_samples == 80  # all rows


def test_data_key_tells_apart_two_sets_of_one_name_and_shape():
    a = ds.toy_jumps_1d(50, random_state=0)
    b = ds.toy_jumps_1d(50, random_state=1)
    assert a.name == b.name and data_key(a) != data_key(b)
    assert data_key(a) == data_key(ds.toy_jumps_1d(50, random_state=0))


def test_the_picker_starts_from_the_synthetic_defaults():
    at = start({"data_src": "moons"})
    assert_clean(at)
    assert f"shape=({SYNTHETIC['moons'].n}, 2)" in shown(at)
    assert at.sidebar.slider(key="data_moons_n").max == SYNTHETIC["moons"].max_n


def test_export_names_come_from_the_data_set_not_the_session():
    """A chart's export names what drew its data: N, noise, seed and lifetime for a
    synthetic draw (the picker's link values), only the name for a bundled set."""
    at = start({"data_src": "gp1d", "data_gp1d_n": "120", "data_gp1d_noise": "0.3",
                "data_seed": "7", "data_gp1d_lifetime": "4.5"})
    assert_clean(at)
    params = next(m.value for m in at.markdown if m.value.startswith("params="))
    name = next(m.value for m in at.markdown if m.value.startswith("shape=")).split("name=")[1]
    assert params == ("params=" + repr(sorted({"data": name, "dseed": 7, "lam_true": 4.5,
                                                "n": 120, "noise": 0.3}.items())))
    drawn = ds.laplace_gp(120, 1, 4.5, 0.3, random_state=7)
    assert data_params(drawn) == {"data": drawn.name}  # no seed recorded: name only
    seeded = data_params(dataclasses.replace(drawn, seed=7))
    assert seeded == {"data": drawn.name, "n": 120, "noise": 0.3, "dseed": 7, "lam_true": 4.5}
    bundled = ds.load_bundled("diabetes")
    assert data_params(bundled) == {"data": bundled.name}
