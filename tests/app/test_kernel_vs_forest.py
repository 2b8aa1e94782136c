"""AppTest: the kernel-vs-forest page runs, its widgets move, its tour and its
predict-then-reveal question work."""
from tests.support import assert_clean, run_page, small

PAGE = "pages/kernel_vs_forest.py"
SMALL = small(PAGE)


def _reveal(at):
    at.button(key="reveal_button__kvf_weights").click().run()
    assert_clean(at)
    return at


def test_runs_with_defaults():
    at = run_page(PAGE, query=SMALL)
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 1  # the weights only once the answer is revealed
    assert any("kernel objective" in m.value for m in at.markdown)
    # every control is in the sidebar (the projector layout), the seed last
    assert at.sidebar.number_input(key="seed") is not None
    assert at.sidebar.slider(key="trees") is not None
    assert at.sidebar.select_slider(key="lam") is not None


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
