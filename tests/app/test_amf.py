"""AppTest: the aggregated Mondrian forest page's widgets move without errors, and a bad
link value falls back to the default (what it shows at its defaults, its tour and its
question are checked with every page's in ``test_tours_and_questions.py``)."""
from tests.support import assert_clean, chart_specs, run_page, small

PAGE = "pages/amf.py"
SMALL = small(PAGE)


def test_every_widget_moves():
    at = run_page(PAGE, query=SMALL)
    before = chart_specs(at)
    at.selectbox(key="signal").set_value("blocks").run()
    assert_clean(at)
    assert chart_specs(at) != before
    for key, value in [("n", 300), ("noise", 0.6), ("trees", 2), ("eta", 2.0)]:
        at.slider(key=key).set_value(value).run()
        assert_clean(at)
    at.number_input(key="seed").set_value(3).run()
    assert_clean(at)
    assert at.query_params["signal"] == ["blocks"] or "blocks" in at.query_params["signal"]


def test_bad_url_value_falls_back_to_the_default():
    at = run_page(PAGE, query=SMALL | {"signal": "sawtooth"})
    assert not at.exception
    assert at.selectbox(key="signal").value == "doppler"
