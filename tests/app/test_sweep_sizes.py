"""The sweep pages' trees and cells per tree, read once before any widget is drawn
(explorer_ui.sweep.sweep_sizes): the session's values, else the link's when in range and
within the budget, else the page's defaults."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest


def _page():
    import streamlit as st

    from explorer_ui.sweep import sweep_sizes

    if st.query_params.get("slid"):  # as after a slider moved in an earlier run
        st.session_state.setdefault("trees", 35)
        st.session_state.setdefault("cells", 45)
    st.markdown("sizes={}, {}".format(*sweep_sizes(50, 60)))


@pytest.mark.parametrize("query, expected", [
    ({}, (50, 60)),                                   # the defaults
    ({"trees": "20", "cells": "90"}, (20, 90)),       # a link within range and budget
    ({"trees": "2", "cells": "abc"}, (50, 60)),       # out of range, not a number
    ({"trees": "1000", "cells": "400"}, (1000, 60)),  # over the budget: the cells refused
    ({"slid": "1", "trees": "20"}, (35, 45)),         # the session's values win
])
def test_sweep_sizes(query, expected):
    at = AppTest.from_function(_page)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    assert at.markdown[0].value == "sizes={}, {}".format(*expected)
