"""AppTest: the aggregated Mondrian forest page runs, its widgets move without errors,
every tour step runs and sets its signal, and the prediction question reveals its
chart."""
from explorer_ui import defaults_amf as D
from tests.app.conftest import assert_clean, run_page

PAGE = "pages/amf.py"
SMALL = {"n": "200", "trees": "3"}
#: before the question is answered: weighted depth, fits, tree
N_CHARTS = 3


def _specs(at):
    return [c.proto.spec for c in at.get("plotly_chart")]


def test_runs_with_defaults_and_reveals_the_regret():
    at = run_page(PAGE, query=SMALL)
    assert_clean(at)
    assert len(at.get("plotly_chart")) == N_CHARTS
    at.button(key="reveal_button__regret").click().run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == N_CHARTS + 1


def test_every_widget_moves():
    at = run_page(PAGE, query=SMALL)
    before = _specs(at)
    at.selectbox(key="signal").set_value("blocks").run()
    assert_clean(at)
    assert _specs(at) != before
    for key, value in [("n", 300), ("noise", 0.6), ("trees", 2), ("eta", 2.0)]:
        at.slider(key=key).set_value(value).run()
        assert_clean(at)
    at.number_input(key="seed").set_value(3).run()
    assert_clean(at)
    assert at.query_params["signal"] == ["blocks"] or "blocks" in at.query_params["signal"]


def test_every_tour_step_runs_and_sets_its_signal():
    signals = []
    for n in range(1, 5):
        at = run_page(PAGE, query=SMALL | {"tour": str(n)})
        assert_clean(at)
        assert at.query_params["tour"] == str(n)
        signals.append(at.selectbox(key="signal").value)
    assert signals == ["doppler", "blocks", "heavisine", "doppler"]
    at = run_page(PAGE, query=SMALL | {"tour": "4"})
    assert at.slider(key="noise").value == D.MORE_NOISE
    assert at.slider(key="eta").value == D.MORE_NOISE_STEP


def test_bad_url_value_falls_back_to_the_default():
    at = run_page(PAGE, query=SMALL | {"signal": "sawtooth"})
    assert not at.exception
    assert at.selectbox(key="signal").value == "doppler"
