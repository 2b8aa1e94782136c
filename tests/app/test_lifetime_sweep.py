"""AppTest: the Lifetime sweep page runs, its widgets move, its tour and question work."""
import re

import numpy as np
import pytest

import explorer_ui.defaults_lifetime_sweep as defaults
from explorer_ui.sweep_page import figure8_job
from tests.app.conftest import assert_clean, run_page

PAGE = "pages/lifetime_sweep.py"
SMALL = {"data_gp1d_n": "200", "data_gp2d_n": "300", "trees": "10"}
# Figure 8 at scale takes minutes on a shared machine: these tests give the page a tiny
# configuration of the same experiment (the claim test runs the real one).
TINY_FIGURE8 = dict(n_points=300, n_dims=5, noise_std=0.1, n_trees=5, n_cells=10,
                    noise_variance=0.01, prior_variance=1.0, max_evals=4, random_state=0)


@pytest.fixture(autouse=True)
def tiny_figure8(monkeypatch):
    monkeypatch.setattr(defaults, "FIGURE8", TINY_FIGURE8)
    job = figure8_job(TINY_FIGURE8)
    assert job.done.wait(120), "the tiny Figure 8 did not finish"
    assert job.error is None, job.error


def _lifetime(at):
    return at.sidebar.select_slider(key="lifetime")


def _status(at):
    """The line under the main chart: features and validation error at the lifetime."""
    return next(m.value for m in at.markdown if m.value.startswith("At $\\lambda"))


def _specs(at):
    return [c.proto.spec for c in at.get("plotly_chart")]


def test_default_run_and_lifetime_slider():
    at = run_page(PAGE, query=SMALL)
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 4  # error curve, 1-D fit, split, Figure 8
    before = _status(at)
    s = _lifetime(at)
    s.set_value(s.options[2]).run()
    assert_clean(at)
    assert _status(at) != before  # fewer features at a small lifetime
    assert at.query_params["lifetime"] == _lifetime(at).options[2]
    s = _lifetime(at)
    s.set_value(s.options[-1]).run()
    assert_clean(at)


def test_defaults_match_the_claim_test():
    """The page at its defaults shows the sweep the claim test checks (same best lifetime)."""
    from tests.claims.test_lifetime_sweep import default_path

    at = run_page(PAGE)
    assert_clean(at)
    best = float(re.search(r"at \$\\lambda = ([0-9.e+-]+)\$\)", _status(at)).group(1))
    expected = default_path().best_lifetime
    assert np.isclose(best, float(f"{expected:.3g}"))


def test_link_lifetime_is_snapped_to_an_offered_value():
    at = run_page(PAGE, query={**SMALL, "lifetime": "3.7"})
    assert_clean(at)
    assert _lifetime(at).value == "4"
    at = run_page(PAGE, query={**SMALL, "lifetime": "-2"})
    assert not at.exception and not at.error  # a notice, then the default


def test_tour_steps_draw_different_charts_and_are_reproducible():
    one = run_page(PAGE, query={**SMALL, "tour": "1"})
    two = run_page(PAGE, query={**SMALL, "tour": "2"})
    assert_clean(one)
    assert_clean(two)
    assert _specs(one) != _specs(two)
    again = run_page(PAGE, query={**SMALL, "tour": "2"})
    assert _specs(again) == _specs(two)
    assert _lifetime(two).value == "0.1"


def test_tour_next_then_a_widget_leaves_it():
    at = run_page(PAGE, query={**SMALL, "tour": "1"})
    at.button(key="tour__next").click().run()
    assert_clean(at)
    assert at.query_params["tour"] == "2"
    assert _lifetime(at).value == "0.1"
    at.sidebar.number_input(key="noise_var").set_value(0.05).run()
    assert_clean(at)
    assert "tour" not in at.query_params


def test_predict_then_reveal_shows_the_features_chart():
    at = run_page(PAGE, query=SMALL)
    n = len(at.get("plotly_chart"))
    at.button(key="reveal_button__features").click().run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == n + 1
    assert any("Answer:" in m.value for m in at.markdown)


def test_two_d_bundled_and_settings():
    at = run_page(PAGE, query={**SMALL, "data_src": "gp2d"})
    assert_clean(at)
    at.sidebar.number_input(key="noise_var").set_value(0.05).run()
    assert_clean(at)
    at.sidebar.number_input(key="prior_var").set_value(2.0).run()
    assert_clean(at)
    at.sidebar.slider(key="trees").set_value(15).run()
    assert_clean(at)
    at.sidebar.button(key="seed__new").click().run()
    assert_clean(at)
    at.selectbox(key="data_src").set_value("tips").run()
    assert_clean(at)
    at.sidebar.slider(key="cells").set_value(30).run()
    assert_clean(at)


def test_figure8_table():
    at = run_page(PAGE, query={**SMALL, "trees": "5"})
    assert_clean(at)
    assert len(at.dataframe) == 1
    table = at.dataframe[0].value
    assert list(table["method"]) == ["Mondrian sweep", "random Fourier features",
                                     "random binning"]
    assert table["fits to reach the sweep's best"].iloc[0] == "1 pass"


def test_csv_upload_good_and_bad():
    at = run_page(PAGE, query={**SMALL, "data_src": "csv"})
    assert_clean(at)
    assert at.info or at.sidebar.info  # asks for a file
    rows = "\n".join(f"{i / 50:.3f},{(i * 7 % 50) / 50:.3f},{(i % 13) / 13:.3f}" for i in range(120))
    at.sidebar.file_uploader[0].set_value(("ok.csv", ("a,b,target\n" + rows).encode(), "text/csv"))
    at.run()
    assert_clean(at)
    at.sidebar.file_uploader[0].set_value(("bad.csv", b"name,city\nx,y\nz,w\n", "text/csv"))
    at.run()
    assert not at.exception
    assert at.error, "a CSV without numeric columns must show an error"
