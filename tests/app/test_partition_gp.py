"""AppTest: the Partition-kernel GPs page runs, every widget moves without errors, and its
tour and predict-then-reveal question work."""
from tests.app.conftest import assert_clean, run_page

PAGE = "pages/partition_gp.py"


def _specs(at):
    return [c.proto.spec for c in at.get("plotly_chart")]


def _reveal(at):
    at.button(key="reveal_button__pgp_cg").click().run()
    assert_clean(at)
    return at


def test_page_runs_with_defaults():
    at = run_page(PAGE)
    assert_clean(at)
    assert at.title[0].value == "Partition-kernel GPs"
    assert len(at.get("plotly_chart")) == 3  # posteriors, kernels, kernel PCA (CG: revealed)
    # every setting is in the sidebar (the projector layout)
    for key in ("n", "m", "h", "noise", "lam", "mr"):
        assert at.sidebar.slider(key=key) is not None
    assert at.sidebar.selectbox(key="real_src") is not None
    assert at.sidebar.number_input(key="seed") is not None
    assert any("Distance of each posterior mean" in m.value for m in at.markdown)


def test_predict_then_reveal_draws_the_cg_chart():
    at = run_page(PAGE)
    at.radio(key="guess__pgp_cg").set_value("fewer iterations").run()
    _reveal(at)
    assert len(at.get("plotly_chart")) == 4
    assert "preconditioner B" in _specs(at)[1]
    assert any("Right." in m.value for m in at.markdown)


def test_every_widget_moves():
    at = _reveal(run_page(PAGE))
    for key, value in (("m", 30), ("h", 3), ("noise", 0.5), ("lam", 5.0), ("n", 60)):
        at.slider(key=key).set_value(value).run()
        assert_clean(at)
        assert at.query_params[key] == [str(value)] or at.query_params[key] == str(value)
    at.number_input(key="seed").set_value(4).run()
    assert_clean(at)
    at.button(key="seed__new").click().run()
    assert_clean(at)
    for kind in ("Random Forest", "Mondrian"):
        at.selectbox(key="cgk").set_value(kind).run()
        assert_clean(at)
    at.slider(key="mr").set_value(40).run()
    assert_clean(at)
    at.selectbox(key="real_src").set_value("tips").run()
    assert_clean(at)
    at.button(key="compare").click().run(timeout=240)
    assert_clean(at)
    table = at.dataframe[0].value
    assert list(table["kernel"]) == ["Random Forest", "Fast Cluster", "Mondrian", "RBF",
                                     "RBF-ARD", "Linear"]
    assert len(at.get("plotly_chart")) == 5


def test_url_parameters_are_read():
    at = run_page(PAGE, query={"m": "20", "h": "2", "cgk": "Mondrian"})
    assert_clean(at)
    assert at.slider(key="m").value == 20 and at.slider(key="h").value == 2


def test_figure5_curves_on_demand():
    at = run_page(PAGE, query={"real_src": "tips"})
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 3
    at.button(key="by_m").click().run(timeout=240)
    assert_clean(at)
    charts = at.get("plotly_chart")
    assert len(charts) == 4
    spec = charts[-1].proto.spec
    assert "Random Forest kernel" in spec and "Fast Cluster kernel" in spec


def test_tour_steps_draw_different_charts_and_a_link_redraws_the_same():
    one = run_page(PAGE, query={"tour": "1"})
    two = run_page(PAGE, query={"tour": "2"})
    assert_clean(one)
    assert_clean(two)
    assert _specs(one) != _specs(two)
    assert two.slider(key="h").value == 1
    again = run_page(PAGE, query={"tour": "2"})
    assert _specs(again) == _specs(two)


def test_every_tour_step_runs():
    for n in range(1, 6):
        at = run_page(PAGE, query={"tour": str(n)})
        assert_clean(at)
        assert at.query_params["tour"] == str(n)


def test_next_moves_along_the_tour_and_a_widget_leaves_it():
    at = run_page(PAGE, query={"tour": "1"})
    at.button(key="tour__next").click().run()
    assert_clean(at)
    assert at.query_params["tour"] == "2"
    assert at.slider(key="h").value == 1
    at.slider(key="m").set_value(50).run()
    assert_clean(at)
    assert "tour" not in at.query_params
