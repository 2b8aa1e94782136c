"""AppTest of the Mondrian process page: it runs, every widget moves, links survive, the
tour steps draw their own charts and the predict-then-reveal question reveals."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from explorer_ui import defaults_mondrian_process as D
from tests.support import ROOT, assert_clean, run_page

PAGE = "pages/mondrian_process.py"


def _figure_json(at: AppTest, n: int = 0) -> str:
    charts = at.get("plotly_chart")
    return charts[n].proto.spec


@pytest.fixture(scope="module")
def at():
    at = run_page(PAGE)
    assert_clean(at)
    return at


def test_defaults_show_the_growth_chart_first(at):
    assert at.title[0].value == "Mondrian process"
    # the main chart only: the predict-then-reveal chart waits for the reveal
    assert len(at.get("plotly_chart")) == 1
    assert "partition at time t" in _figure_json(at)
    assert at.query_params["lifetime"] == str(D.LIFETIME)
    assert at.query_params["seed"] == str(D.SEED)
    # every control is in the sidebar
    assert {s.key for s in at.sidebar.slider} >= {"width", "height", "lifetime", "time"}
    assert at.sidebar.number_input(key="seed") is not None


@pytest.mark.parametrize("view, title", [("clocks", "Time of the first cut"),
                                         ("projectivity", "Cells in the sub-box"),
                                         ("extension", "old cuts, extended")])
def test_every_view_draws_its_chart(view, title):
    at = run_page(PAGE)
    at.radio(key="view").set_value(view).run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 1
    assert title in _figure_json(at)
    assert at.query_params["view"] == view


SLIDER_MOVES = {
    "growth": [("lifetime", 7.5), ("width", 2.0), ("height", 0.2), ("time", 0.0),
               ("time", 1.3), ("lifetime", 0.1), ("lifetime", 5.0)],
    "projectivity": [("subx", (0.0, 1.0)), ("suby", (0.05, 0.1))],
    "extension": [("grow", 3.0), ("grow", 1.0), ("steps", 1), ("steps", 10)],
}


@pytest.mark.parametrize("view", list(SLIDER_MOVES))
def test_every_slider_moves(view):
    at = run_page(PAGE, query={"view": view})
    for key, value in SLIDER_MOVES[view]:
        before = _figure_json(at)
        at.slider(key=key).set_value(value).run()
        assert_clean(at)
        assert at.slider(key=key).value == value
        expected = f"{value[0]:g}~{value[1]:g}" if isinstance(value, tuple) else str(value)
        assert at.query_params[key] == expected
        if key in ("lifetime", "width", "height", "time", "grow", "steps"):
            assert _figure_json(at) != before, key


def test_toggles_seed_buttons_and_choices():
    at = run_page(PAGE)
    first = _figure_json(at)
    at.toggle(key="fill").set_value(False).run()
    assert_clean(at)
    at.toggle(key="labels").set_value(False).run()
    assert_clean(at)
    assert at.query_params["fill"] == "0" and at.query_params["labels"] == "0"
    at.number_input(key="seed").set_value(42).run()
    assert_clean(at)
    assert at.query_params["seed"] == "42"
    seed = at.number_input(key="seed").value
    at.button(key="seed__new").click().run()  # New sample
    assert_clean(at)
    assert at.number_input(key="seed").value != seed
    assert _figure_json(at) != first
    for view, key, options in (("clocks", "nclock", ["500", "10000"]),
                               ("projectivity", "nproj", ["200", "2000"])):
        at.radio(key="view").set_value(view).run()
        for option in options:
            group = next(g for g in at.get("button_group") if g.key == key)
            group.set_value(option).run()
            assert_clean(at)
            assert at.query_params[key] == option


def test_a_hidden_views_settings_survive_a_switch():
    at = run_page(PAGE, query={"view": "extension"})
    at.slider(key="grow").set_value(2.7).run()
    at.radio(key="view").set_value("growth").run()
    at.radio(key="view").set_value("extension").run()
    assert_clean(at)
    assert at.slider(key="grow").value == 2.7


def test_node_highlight_from_selectbox_and_from_chart_click():
    at = run_page(PAGE)
    at.selectbox(key="node").set_value(0).run()
    assert_clean(at)
    assert "selected node" in _figure_json(at)
    assert any("Node 0" in m.value for m in at.markdown)
    # a click on a tree node / cell dot arrives as the chart's selection state
    at.session_state["growth_chart"] = {"selection": {"points": [{"customdata": 2}]}}
    at.run()
    assert_clean(at)
    assert at.selectbox(key="node").value == 2
    # the shrinking sample drops a highlighted node that no longer exists
    n_nodes = len(at.selectbox(key="node").options) - 1
    at.selectbox(key="node").set_value(n_nodes - 1).run()
    at.slider(key="lifetime").set_value(0.1).run()
    assert_clean(at)


def test_time_is_clamped_when_the_lifetime_shrinks():
    at = run_page(PAGE)
    at.slider(key="time").set_value(2.9).run()
    at.slider(key="lifetime").set_value(1.0).run()
    assert_clean(at)
    assert at.slider(key="time").value <= 1.0


def test_time_at_the_lifetime_follows_a_longer_lifetime():
    """Raising the lifetime grows the picture: a time at the old lifetime moves along."""
    at = run_page(PAGE)
    assert at.slider(key="time").value == D.LIFETIME
    cells = len(at.selectbox(key="node").options)
    at.slider(key="lifetime").set_value(6.0).run()
    assert_clean(at)
    assert at.slider(key="time").value == 6.0
    assert at.query_params["time"] == "6.0"
    # a time inside the old lifetime stays where the user put it
    at.slider(key="time").set_value(1.5).run()
    at.slider(key="lifetime").set_value(8.0).run()
    assert at.slider(key="time").value == 1.5
    assert len(at.selectbox(key="node").options) != cells


def test_a_link_reproduces_the_picture():
    query = dict(lifetime="2.5", width="1.5", height="0.7", seed="17", time="1.2", fill="0")
    a = run_page(PAGE, query=query)
    b = run_page(PAGE, query=query)
    assert_clean(a)
    assert _figure_json(a) == _figure_json(b)
    assert a.slider(key="time").value == 1.2
    query = dict(view="projectivity", subx="0.1~0.9", suby="0.2~0.5", nproj="200")
    a = run_page(PAGE, query=query)
    assert_clean(a)
    assert a.slider(key="subx").value == (0.1, 0.9)
    assert _figure_json(a) == _figure_json(run_page(PAGE, query=query))


@pytest.mark.parametrize("query", [
    dict(lifetime="1e9", width="-3", height="nan", seed="abc", time="-5"),
    dict(subx="0.9~0.1", suby="x~y", grow="inf", steps="2.5", fill="2", labels="yes",
         nclock="999999", nproj="-1", view="nope"),
    dict(lifetime="10", width="2", height="2", time="99", subx="-4~9", suby="0~0",
         view="projectivity"),
])
def test_hostile_links_fall_back_without_errors(query):
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert_clean(at)
    assert at.slider(key="lifetime").value <= 10.0
    if at.query_params.get("view", "growth") == "growth":
        assert 0.0 <= at.slider(key="time").value <= at.slider(key="lifetime").value


# ----------------------------------------------------------------- tour and question
