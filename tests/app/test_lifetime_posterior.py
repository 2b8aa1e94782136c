"""AppTest: the Lifetime posterior page runs, its widgets move without errors, its tour
steps draw fixed charts and its predict-then-reveal question reveals."""
from tests.support import assert_clean, chart_specs, run_page, small

PAGE = "pages/lifetime_posterior.py"
SMALL = small(PAGE)


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
    for kind, key, value in [("selectbox", "prior", "gamma"), ("number_input", "prior_shape", 4.0),
                             ("number_input", "prior_mean", 2.0),
                             ("selectbox", "prior", "exponential"), ("slider", "level", 0.5),
                             ("number_input", "noise_var", 0.1)]:
        getattr(at.sidebar, kind)(key=key).set_value(value).run()
        assert_clean(at)
    at.toggle(key="show_predictive").set_value(True).run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 4  # + the posterior predictive


def test_one_seed_draws_data_and_mondrians():
    at = run_page(PAGE, query=SMALL)
    assert_clean(at)
    assert "data_seed" not in at.query_params  # no second seed box on this page
    before = chart_specs(at)
    at.sidebar.number_input(key="seed").set_value(3).run()
    assert_clean(at)
    assert chart_specs(at)[0] != before[0]


def test_few_trees_pile_up_at_the_terminal_lifetime_warns():
    # M = 10 at 30 cells per tree: the evidence rises to the end of the sweep
    at = run_page(PAGE, query={"trees": "10"})
    assert not at.exception and not at.error
    assert any("terminal lifetime" in w.value and "Cells per tree" in w.value for w in at.warning)


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


def test_the_sweep_without_validation_gives_the_path_the_page_reads():
    """The page sweeps without the validation error (it shows none): the lifetimes, the
    log marginal likelihood and the fits it reads are those of the validated sweep, to
    rounding (the sweep's block sizes are timed, so runs differ in the last bits)."""
    import numpy as np

    from mondrian_core import laplace_gp, lifetime_path

    data = laplace_gp(150, 1, 5.0, 0.1, random_state=3)
    X, y = data.X, data.y
    kw = dict(terminal_lifetime=20.0, n_trees=20, noise_variance=0.01, random_state=3)
    with_val = lifetime_path(X[:100], y[:100], X[100:], y[100:], **kw)
    without = lifetime_path(X[:100], y[:100], **kw)
    np.testing.assert_array_equal(without.lifetimes, with_val.lifetimes)
    np.testing.assert_allclose(without.log_marginal_likelihood,
                               with_val.log_marginal_likelihood, rtol=1e-10)
    grid = np.linspace(X.min(), X.max(), 50)[:, None]
    for t in (0.5, 5.0, 19.0):
        np.testing.assert_allclose(without.predict(grid, t), with_val.predict(grid, t),
                                   rtol=1e-9, atol=1e-12)
