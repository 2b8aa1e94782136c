"""AppTest: the online Mondrian forest page runs, every widget moves without errors, the
tour's links draw fixed charts, and the prediction question reveals its chart."""
from tests.support import assert_clean, run_page, small

PAGE = "pages/online_forest.py"
SMALL = small(PAGE)
#: before the question is answered: tree, kernel-vs-forest stream, scores, operations
N_CHARTS = 4



def test_every_widget_moves():
    at = run_page(PAGE, query=SMALL)
    at.button(key="reveal_button__far").click().run()
    for key, value in [("data_src", "surface2d"), ("region", "centre square"),
                       ("data_src", "xor")]:
        at.selectbox(key=key).set_value(value).run()
        assert_clean(at)
    at.slider(key="step").set_value(4).run()
    assert_clean(at)
    at.slider(key="data_xor_n").set_value(120).run()
    assert_clean(at)
    for key, value in [("batch", 10), ("trees", 2), ("lifetime", 3.5)]:
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
    assert len(at.get("plotly_chart")) == N_CHARTS + 1


def test_too_many_batches_is_a_short_error():
    at = run_page(PAGE, query={"data_moons_n": "2000", "batch": "5"})
    assert not at.exception
    assert "batch size" in at.error[0].value


def test_step_clamped_when_batches_shrink():
    at = run_page(PAGE, query=SMALL | {"step": "4"})
    at.slider(key="batch").set_value(50).run()   # 2 batches now
    assert_clean(at)
    assert at.slider(key="step").value <= 2


def test_the_uncertainty_answer_is_computed_from_the_maps():
    at = run_page(PAGE, query=SMALL)
    assert len(at.get("plotly_chart")) == N_CHARTS
    at.radio(key="guess__far").set_value("Only the Mondrian forest").run()
    at.button(key="reveal_button__far").click().run()
    assert_clean(at)
    charts = at.get("plotly_chart")
    assert len(charts) == N_CHARTS + 1
    assert "Standard deviation of the prediction" in charts[-1].proto.spec
    # the answer is computed from the maps: at these settings only the Mondrian forest grows
    answer = next(m.value for m in at.markdown if "**Answer:" in m.value)
    assert "Right." in answer and "RandomForest \u00d71.00" in answer


def test_distractors_toggle_adds_features_and_reports_the_change():
    at = run_page(PAGE, query=SMALL)
    assert at.slider(key="k_irr").disabled
    at.toggle(key="distract").set_value(True).run()
    assert_clean(at)
    assert at.query_params["distract"] == "1"
    assert any("irrelevant features" in c.value and "\u2192" in c.value for c in at.caption)
    at.slider(key="k_irr").set_value(2).run()
    assert_clean(at)
    assert at.query_params["k_irr"] == "2"
    assert len(at.get("plotly_chart")) == N_CHARTS


def test_a_too_slow_kernel_stream_is_a_warning_and_the_rest_runs():
    at = run_page(PAGE, query=SMALL | {"trees": "30", "lifetime": "30.0"})
    assert not at.exception and not at.error
    assert "1-D stream" in at.warning[0].value
    assert len(at.get("plotly_chart")) == N_CHARTS - 1  # the tree, scores and operations


def test_more_batches_than_the_chart_reads_are_refused_with_the_batch_that_fits():
    at = run_page(PAGE, query={**SMALL, "data_src": "moons", "data_moons_n": "1000",
                               "batch": "5"})
    assert not at.exception, [e.value for e in at.exception]
    assert any("more than 100 batches" in e.value and "at least 7 " in e.value
               for e in at.error), [e.value for e in at.error]
