"""The one lifetime picker (explorer_ui.lifetimes): short values over a sweep's range, and a
link's or a stale value snapped to the nearest offered one."""
from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer_ui.lifetimes import nearest, nice_lifetimes, sweep_lifetimes
from tests.support import assert_clean


def test_nice_lifetimes_are_short_increasing_and_end_at_the_top():
    labels = nice_lifetimes(0.03, 27.4)
    values = [float(v) for v in labels]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert values[0] >= 0.03 and labels[-1] == "27.4"
    assert all(len(v) <= 4 for v in labels)
    assert 25 <= len(labels) <= 35  # about ten a decade over three decades


@pytest.mark.parametrize("value, expected", [(3.7, "4"), (0.011, "0.01"), (1e9, "30"),
                                             (2.2, "2"), (2.3, "2.5")])
def test_nearest_is_nearest_on_a_log_scale(value, expected):
    assert nearest(["0.01", "1", "2", "2.5", "4", "30"], value) == expected


class _Path:
    lifetimes = np.array([0.0, 0.2, 0.5, 3.0])
    terminal_lifetime = 12.0
    best_lifetime = 2.9


def test_a_sweep_offers_from_before_its_first_cut_and_starts_at_its_best():
    labels, default = sweep_lifetimes(_Path())
    assert float(labels[0]) >= 0.1 and float(labels[0]) < 0.2 and labels[-1] == "12"
    assert default == "3"


def _page():
    import streamlit as st

    from explorer_ui.lifetimes import lifetime_picker

    top = st.sidebar.number_input("top", value=10.0, key="top")
    grid = [f"{v:g}" for v in (top / 100, top / 10, top)]
    st.markdown(f"lifetime={lifetime_picker('Lifetime', 'lam', grid, grid[1]):g}")


def _run(**query):
    at = AppTest.from_function(_page, default_timeout=30)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def _shown(at):
    return at.markdown[0].value


def test_the_picker_snaps_a_link_and_a_changed_grid_to_the_nearest_value():
    at = _run()
    assert_clean(at)
    assert _shown(at) == "lifetime=1"
    assert _shown(_run(lam="8")) == "lifetime=10"  # snapped, no error
    at = _run(lam="nonsense")
    assert not at.exception and _shown(at) == "lifetime=1"  # a notice, then the default
    at = _run(lam="10")
    at.number_input(key="top").set_value(20.0).run()  # the grid moves: the nearest stays
    assert_clean(at)
    assert _shown(at) == "lifetime=20"
    assert at.query_params["lam"] == "20"
