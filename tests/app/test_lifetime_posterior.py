"""AppTest: the Lifetime posterior page runs and its widgets move without errors."""
from tests.app.conftest import assert_clean, run_page

PAGE = "pages/lifetime_posterior.py"
SMALL = {"data_gp1d_n": "200", "data_gp2d_n": "300", "trees": "10"}


def test_priors_and_parameters():
    at = run_page(PAGE, query=SMALL)
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 4  # split, log-lik, densities, predictive
    mean0 = at.metric[0].value
    at.sidebar.number_input(key="prior_high").set_value(3.0).run()
    assert_clean(at)
    assert at.metric[0].value != mean0
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


def test_bad_prior_range_shows_error():
    at = run_page(PAGE, query={**SMALL, "prior_low": "5", "prior_high": "1"})
    assert not at.exception
    assert at.error and "low < high" in at.error[0].value


def test_two_d_and_bad_csv():
    at = run_page(PAGE, query={**SMALL, "data_src": "gp2d"})
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 3  # no 1-D predictive
    at.selectbox(key="data_src").set_value("csv").run()
    assert_clean(at)
    at.sidebar.file_uploader[0].set_value(("bad.csv", b"only,two\n1,2\n", "text/csv"))
    at.run()
    assert not at.exception
    assert at.error
