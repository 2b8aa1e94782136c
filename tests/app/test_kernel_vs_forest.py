"""AppTest: the kernel-vs-forest page runs, its widgets move, its tour and its
predict-then-reveal question work."""
from tests.support import assert_clean, chart_specs, run_page, small

PAGE = "pages/kernel_vs_forest.py"
SMALL = small(PAGE)


def _reveal(at):
    at.button(key="reveal_button__kvf_weights").click().run()
    assert_clean(at)
    return at



def test_every_widget_moves():
    at = _reveal(run_page(PAGE, query=SMALL))
    at.select_slider(key="lam").set_value(at.select_slider(key="lam").options[-1]).run()
    assert_clean(at)
    for key, value in [("trees", 8), ("nlam", 6)]:
        at.slider(key=key).set_value(value).run()
        assert_clean(at)
    for key, value in [("terminal", 3.0), ("noise", 0.5)]:
        at.number_input(key=key).set_value(value).run()
        assert_clean(at)
    at.selectbox(key="data_src").set_value("gp2d").run()
    assert_clean(at)
    at.slider(key="data_gp2d_n").set_value(300).run()
    assert_clean(at)
    at.number_input(key="seed").set_value(3).run()
    assert_clean(at)
    assert "gp2d" in at.query_params["data_src"]
    assert len(at.get("plotly_chart")) == 2


def test_weights_lifetime_follows_the_curve_grid():
    at = run_page(PAGE, query=SMALL)
    at.select_slider(key="lam").set_value(at.select_slider(key="lam").options[-1]).run()
    at.number_input(key="terminal").set_value(0.5).run()
    assert_clean(at)
    assert float(at.select_slider(key="lam").value) <= 0.5


def test_answer_follows_the_shown_weights_and_sgd_runs_on_demand():
    """The right answer is the rule applied to the weights shown: at the largest lifetime
    (most points alone in their cells) this small run calls them about the same; the
    paper's SGD training then adds its curve and a middle row of weights."""
    at = run_page(PAGE, query={**SMALL, "trees": "3"})
    at.select_slider(key="lam").set_value(at.select_slider(key="lam").options[-1]).run()
    _reveal(at)
    answer = next(m.value for m in at.markdown if "**Answer:" in m.value)
    assert "standard deviations are within 25%" in answer
    at.toggle(key="sgd").set_value(True).run()
    assert_clean(at)
    assert at.query_params["sgd"] == "1"
    specs = chart_specs(at)
    assert "kernel by SGD (paper), test" in specs[0]
    assert "kernel by SGD (the paper" in specs[1]
    assert any("epochs so far" in m.value for m in at.markdown)
    at.toggle(key="paper_scale").set_value(True).run()
    assert_clean(at)
    assert "as leaf values" in chart_specs(at)[1]
