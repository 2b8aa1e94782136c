"""AppTest: the Partition-kernel GPs page runs, every widget moves without errors, and its
tour and predict-then-reveal question work."""
from tests.support import assert_clean, run_page

PAGE = "pages/partition_gp.py"


def _reveal(at):
    at.button(key="reveal_button__pgp_cg").click().run()
    assert_clean(at)
    return at



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
