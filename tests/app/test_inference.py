"""AppTest of the inference page: it runs, the coverage lab's buttons grow and reset the
stack, the main widgets move and the predict-then-reveal question reveals the bias chart
(its tour is checked with every page's in ``test_tours_and_questions.py``)."""
from __future__ import annotations

from tests.support import assert_clean, chart_specs, run_page, small

PAGE = "pages/inference.py"
# small Monte Carlo sizes and forests keep the test fast; the defaults are the claims'
SMALL = small(PAGE)


def _caption(at) -> str:
    return next(c.value for c in at.caption if "data sets.**" in c.value)


def test_runs_and_the_coverage_lab_grows_its_stack():
    at = run_page(PAGE, query=SMALL, timeout=240)
    assert_clean(at)
    # coverage lab (main), CLT, rates; the bias chart waits for the reveal
    assert len(at.get("plotly_chart")) == 3
    assert _caption(at).startswith("**40 data sets.**")
    keys = {s.key for s in at.sidebar.slider}
    assert keys >= {"n", "lam", "trees", "bias_reps", "clt_reps", "rate_reps"}
    at.button(key="repeat_one").click().run()
    assert_clean(at)
    assert _caption(at).startswith("**41 data sets.**")
    at.button(key="repeat_many").click().run()
    assert_clean(at)
    assert _caption(at).startswith("**61 data sets.**")
    at.button(key="restart").click().run()
    assert_clean(at)
    assert _caption(at).startswith("**40 data sets.**")


def test_moves_the_main_widgets():
    at = run_page(PAGE, query=SMALL, timeout=240)
    first = chart_specs(at)[0]
    for key, value in {"lam": 12.0, "n": 400, "trees": 15}.items():
        at.slider(key=key).set_value(value).run()
        assert_clean(at)
        assert at.query_params[key] in ([str(value)], str(value))
    assert chart_specs(at)[0] != first
    at.button_group(key="d").set_value("2").run()
    assert_clean(at)
    assert at.query_params["d"] in (["2"], "2")
    at.slider(key="clt_trees").set_value(1).run()
    assert_clean(at)
    at.number_input(key="seed").set_value(3).run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 3


def test_reveal_shows_the_bias_chart():
    at = run_page(PAGE, query=SMALL, timeout=240)
    at.radio(key="guess__bias_quarter").set_value("It falls to a quarter").run()
    at.button(key="reveal_button__bias_quarter").click().run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 4
    assert "bias at x = centre" in chart_specs(at)[1]
