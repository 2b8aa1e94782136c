"""AppTest: the Lifetime posterior page runs, its widgets move without errors, its tour
steps draw fixed charts and its predict-then-reveal question reveals."""
from tests.app.conftest import assert_clean, run_page

PAGE = "pages/lifetime_posterior.py"
SMALL = {"data_gp1d_n": "200", "data_gp2d_n": "300", "trees": "10"}


def _specs(at):
    return [c.proto.spec for c in at.get("plotly_chart")]


def _summary(at):
    """The line under the main chart with both posteriors' means and intervals."""
    return next(m.value for m in at.markdown if m.value.startswith("**Mondrian"))


def test_priors_and_parameters():
    at = run_page(PAGE, query=SMALL)
    assert_clean(at)
    # the posteriors, the log-likelihood and the split (both in expanders); the
    # predictive waits for its toggle
    assert len(at.get("plotly_chart")) == 3
    assert "Exact (Laplace GP" in _summary(at)
    before = _summary(at)
    at.sidebar.number_input(key="prior_high").set_value(3.0).run()
    assert_clean(at)
    assert _summary(at) != before
    at.sidebar.selectbox(key="prior").set_value("gamma").run()
    assert_clean(at)
    at.sidebar.number_input(key="prior_shape").set_value(4.0).run()
    assert_clean(at)
    at.sidebar.number_input(key="prior_mean").set_value(2.0).run()
    assert_clean(at)
    at.sidebar.selectbox(key="prior").set_value("exponential").run()
    assert_clean(at)
    at.sidebar.slider(key="level").set_value(0.5).run()
    assert_clean(at)
    at.sidebar.number_input(key="noise_var").set_value(0.1).run()
    assert_clean(at)
    at.toggle(key="show_predictive").set_value(True).run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 4  # + the posterior predictive


def test_one_seed_draws_data_and_mondrians():
    at = run_page(PAGE, query=SMALL)
    assert_clean(at)
    assert "data_seed" not in at.query_params  # no second seed box on this page
    before = _specs(at)
    at.sidebar.number_input(key="seed").set_value(3).run()
    assert_clean(at)
    assert _specs(at)[0] != before[0]


def test_few_trees_pile_up_at_the_terminal_lifetime_warns():
    # M = 10 at 30 cells per tree: the evidence rises to the end of the sweep
    at = run_page(PAGE, query={"trees": "10"})
    assert not at.exception and not at.error
    assert any("terminal lifetime" in w.value and "Cells per tree" in w.value for w in at.warning)


def test_tour_steps_are_fixed_pictures_and_moving_a_widget_leaves_the_tour():
    one = run_page(PAGE, query={"tour": "1"})
    assert_clean(one)
    two = run_page(PAGE, query={"tour": "2"})
    assert_clean(two)
    assert _specs(one) != _specs(two)
    again = run_page(PAGE, query={"tour": "1"})
    assert _specs(again) == _specs(one)
    one.button(key="tour__next").click().run()
    assert_clean(one)
    assert one.query_params["tour"] == "2"
    assert one.query_params["cells"] == "100"  # step 2's setting applied
    one.sidebar.slider(key="trees").set_value(20).run()
    assert_clean(one)
    assert "tour" not in one.query_params


def test_predict_then_reveal_shows_the_bias_chart():
    at = run_page(PAGE, query=SMALL)
    assert_clean(at)
    n = len(at.get("plotly_chart"))
    at.button(key="reveal_button__finite_m").click().run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == n + 1
    assert any("Answer:" in m.value for m in at.markdown)


def test_bad_prior_range_shows_error():
    at = run_page(PAGE, query={**SMALL, "prior_low": "5", "prior_high": "1"})
    assert not at.exception
    assert at.error and "low < high" in at.error[0].value


def test_two_d_and_bad_csv():
    at = run_page(PAGE, query={**SMALL, "data_src": "gp2d"})
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 3  # no 1-D predictive either way
    at.selectbox(key="data_src").set_value("csv").run()
    assert_clean(at)
    at.sidebar.file_uploader[0].set_value(("bad.csv", b"only,two\n1,2\n", "text/csv"))
    at.run()
    assert not at.exception
    assert at.error


def test_too_many_points_for_the_exact_posterior_keeps_the_mondrian_one():
    # 5,100 points: 3,060 to train on, above MAX_LAPLACE_POINTS; a small sweep
    at = run_page(PAGE, query={"data_gp1d_n": "5100", "trees": "5", "cells": "5"})
    assert not at.exception and not at.error
    assert any("at most 3,000 points" in i.value and "shown alone" in i.value for i in at.info)
    assert _summary(at).startswith("**Mondrian") and "Exact" not in _summary(at)
    assert len(at.get("plotly_chart")) == 3
