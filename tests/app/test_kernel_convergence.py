"""AppTest of the kernel-convergence page: it runs, every widget moves, the tour steps
draw their own charts and the predict-then-reveal question reveals Figure 5."""
from __future__ import annotations

from tests.app.conftest import assert_clean, run_page

PAGE = "pages/kernel_convergence.py"
# small sizes keep the test fast; the defaults are exercised by the e2e test
SMALL = {"n": "40", "m": "10", "m5": "10", "r5": "2", "m6": "5", "r6": "1", "d6": "tips"}


def _specs(at) -> list[str]:
    return [c.proto.spec for c in at.get("plotly_chart")]


def test_runs_with_defaults():
    at = run_page(PAGE, timeout=120)
    assert_clean(at)
    # heat maps (main), slice, link, uniform convergence and Figure 6; Figure 5 waits
    # for the reveal
    assert len(at.get("plotly_chart")) == 5
    assert "Mondrian, M = 50" in _specs(at)[0]
    assert "Uniform convergence: 16 " in _specs(at)[3]
    # the expander's numbers follow the page's points: 7,140 pairs of N = 120
    assert any("7,140 pairs" in m.value and "[-2, 2]" in m.value for m in at.markdown)
    # every control is in the sidebar
    keys = {s.key for s in at.sidebar.slider}
    assert keys >= {"n", "lam", "m", "m5", "r5", "lam6", "m6", "r6"}


def test_moves_every_widget():
    at = run_page(PAGE, query=SMALL, timeout=120)
    assert_clean(at)
    moves = {"n": 60, "lam": 4.0, "m": 20, "m5": 15, "r5": 3, "lam6": 0.5, "m6": 7, "r6": 2}
    for key, value in moves.items():
        at.slider(key=key).set_value(value).run()
        assert_clean(at)
        assert at.query_params[key] == [str(value)] or at.query_params[key] == str(value)
    at.selectbox(key="ridge6").set_value("0.1").run()
    assert_clean(at)
    at.selectbox(key="d6").set_value("diabetes").run()
    assert_clean(at)
    at.number_input(key="seed").set_value(3).run()
    assert_clean(at)
    at.button(key="seed__new").click().run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 5


def test_bad_link_value_falls_back():
    at = run_page(PAGE, query={**SMALL, "lam": "-3"}, timeout=120)
    assert_clean(at)


def test_tour_steps_draw_different_charts_and_a_link_twice_the_same():
    one = run_page(PAGE, query={"tour": "1"}, timeout=120)
    two = run_page(PAGE, query={"tour": "2"}, timeout=120)
    assert_clean(one)
    assert_clean(two)
    assert _specs(one) != _specs(two)
    assert 'Mondrian, M = 1"' in _specs(one)[0]  # the panel title, as JSON text
    assert _specs(one) == _specs(run_page(PAGE, query={"tour": "1"}, timeout=120))


def test_every_tour_step_runs():
    for step in ("3", "4"):
        at = run_page(PAGE, query={"tour": step}, timeout=120)
        assert_clean(at)
        assert at.slider(key="m").value == 500


def test_next_moves_the_tour_and_a_widget_leaves_it():
    at = run_page(PAGE, query={"tour": "1"}, timeout=120)
    at.button(key="tour__next").click().run()
    assert_clean(at)
    assert at.query_params["tour"] == "2"
    assert at.slider(key="m").value == 50
    at.slider(key="lam").set_value(5.0).run()
    assert_clean(at)
    assert "tour" not in at.query_params


def test_predict_then_reveal_draws_figure_5():
    at = run_page(PAGE, query=SMALL, timeout=120)
    before = len(at.get("plotly_chart"))
    at.button(key="reveal_button__four_times_trees").click().run()
    assert_clean(at)
    specs = _specs(at)
    assert len(specs) == before + 1
    assert any("Kernel error" in s and "Random Fourier features" in s for s in specs)
    assert any("Answer: about 2 times" in m.value for m in at.markdown)
