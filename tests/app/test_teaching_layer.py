"""The teaching layer on a small page: tour steps in the URL, leaving the tour by moving a
widget, predict-then-reveal, projector mode and the palette."""
from __future__ import annotations

import json

import plotly.graph_objects as go
from streamlit.testing.v1 import AppTest

from mondrian_core.figures.theme import PROJECTOR_FONT, SAFE_COLOURS, font_sizes


def _page():
    import plotly.graph_objects as go
    import streamlit as st

    from explorer_ui.tour import Step, Tour, predict_then_reveal
    from explorer_ui.widgets import page_header, seed_control, show_figure, url_slider
    from mondrian_core.figures.theme import RED, styled

    tour = Tour("demo", [Step("One", "First.", {"a": 2.0}),
                         Step("Two", "Second.", {"a": 5.0, "b": 3}),
                         Step("Three", "Third.", {"a": 8.0})])
    page_header("Demo", "About the demo.", tour=tour)
    a = url_slider("a", "a", min_value=0.0, max_value=10.0, default=1.0, container=st.sidebar)
    b = url_slider("b", "b", min_value=0, max_value=10, default=1, container=st.sidebar)
    seed = seed_control(container=st.sidebar)
    fig = styled(go.Figure(go.Scatter(x=[0, 1, 2], y=[0, a, b], line=dict(color=RED))),
                 title=f"a={a} b={b} seed={seed}")
    show_figure(fig, "demo", main=True)
    if predict_then_reveal("q", "Which is larger?", ["a", "b"], 0, "Because."):
        st.markdown("settled")


def _run(**query) -> AppTest:
    at = AppTest.from_function(_page, default_timeout=30)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def _spec(at) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def _title(at) -> str:
    return _spec(at)["layout"]["title"]["text"]


def test_a_tour_step_sets_its_widgets_and_starts_the_others_from_their_defaults():
    at = _run(tour="2", a="9.0", seed="7")
    assert _title(at) == "a=5.0 b=3 seed=0"
    assert at.query_params["tour"] == "2"
    assert "Tour 2/3" in " ".join(m.value for m in at.markdown)


def test_the_same_step_link_draws_the_same_chart_and_steps_differ():
    assert _spec(_run(tour="1")) == _spec(_run(tour="1"))
    assert _title(_run(tour="1")) != _title(_run(tour="2"))


def test_next_previous_and_exit_move_through_the_tour():
    at = _run(tour="1")
    assert at.button(key="tour__prev").disabled
    at.button(key="tour__next").click().run()
    assert at.query_params["tour"] == "2"
    assert _title(at) == "a=5.0 b=3 seed=0"
    at.button(key="tour__next").click().run()
    assert at.button(key="tour__next").disabled
    assert _title(at) == "a=8.0 b=1 seed=0"
    at.button(key="tour__prev").click().run()
    assert _title(at) == "a=5.0 b=3 seed=0"
    at.button(key="tour__exit").click().run()
    assert "tour" not in at.query_params
    assert _title(at) == "a=5.0 b=3 seed=0"  # leaving keeps the step's values


def test_moving_a_widget_leaves_the_tour_and_keeps_the_new_value():
    at = _run(tour="2")
    at.slider(key="a").set_value(7.0).run()
    assert "tour" not in at.query_params
    assert _title(at) == "a=7.0 b=3 seed=0"
    at.button(key="tour__start").click().run()  # back to the start of the tour
    assert _title(at) == "a=2.0 b=1 seed=0"


def test_the_seed_button_leaves_the_tour():
    at = _run(tour="1")
    at.button(key="seed__new").click().run()
    assert "tour" not in at.query_params
    assert _title(at) != "a=2.0 b=1 seed=0"


def test_a_bad_step_in_the_link_is_ignored_with_a_notice():
    for raw in ("0", "4", "x", "1e9"):
        at = _run(tour=raw)
        assert not at.exception
        assert "tour" not in at.query_params
        assert any("tour=" in t.value for t in at.toast), raw
        assert _title(at) == "a=1.0 b=1 seed=0"


def test_predict_then_reveal_shows_the_answer_only_after_reveal():
    at = _run()
    assert "settled" not in [m.value for m in at.markdown]
    at.radio(key="guess__q").set_value("b").run()
    assert "settled" not in [m.value for m in at.markdown]
    at.button(key="reveal_button__q").click().run()
    text = " ".join(m.value for m in at.markdown)
    assert "settled" in text and "Not quite" in text and "Answer: a" in text


def test_projector_mode_and_the_safe_palette_reach_the_chart():
    spec = _spec(_run(projector="1", palette="safe"))
    sizes = font_sizes(go.Figure(spec))
    assert sizes and min(sizes) >= PROJECTOR_FONT
    assert spec["layout"]["height"] >= 660
    assert spec["data"][0]["line"]["color"] == SAFE_COLOURS["#D40920"]


def test_view_settings_survive_a_tour_step():
    at = _run(projector="1", tour="1")
    at.button(key="tour__next").click().run()
    assert at.query_params["projector"] == "1"
    assert at.toggle(key="projector").value
