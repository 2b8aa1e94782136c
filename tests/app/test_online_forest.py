"""AppTest: the online Mondrian forest page runs and every widget moves without errors."""
from tests.app.conftest import assert_clean, run_page

PAGE = "pages/online_forest.py"
SMALL = {"data_moons_n": "140", "batch": "25", "trees": "3"}


def test_runs_with_defaults():
    at = run_page(PAGE, query=SMALL)
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 4


def test_every_widget_moves():
    at = run_page(PAGE, query=SMALL)
    for key, value in [("data_src", "surface2d"), ("region", "centre square"),
                       ("data_src", "xor")]:
        at.selectbox(key=key).set_value(value).run()
        assert_clean(at)
    at.slider(key="step").set_value(4).run()
    assert_clean(at)
    at.slider(key="data_xor_n").set_value(120).run()
    assert_clean(at)
    for key, value in [("batch", 10), ("trees", 2), ("lifetime", 3.0)]:
        at.slider(key=key).set_value(value).run()
        assert_clean(at)
    at.toggle(key="showpts").set_value(False).run()
    assert_clean(at)
    at.toggle(key="play").set_value(True).run()
    assert_clean(at)
    at.number_input(key="seed").set_value(5).run()
    assert_clean(at)
    at.button(key="seed__new").click().run()
    assert_clean(at)
    assert "xor" in at.query_params["data_src"]


def test_too_many_batches_is_a_short_error():
    at = run_page(PAGE, query={"data_moons_n": "2000", "batch": "5"})
    assert not at.exception
    assert "batch size" in at.error[0].value


def test_step_clamped_when_batches_shrink():
    at = run_page(PAGE, query=SMALL | {"step": "4"})
    at.slider(key="batch").set_value(50).run()   # 2 batches now
    assert_clean(at)
    assert at.slider(key="step").value <= 2
