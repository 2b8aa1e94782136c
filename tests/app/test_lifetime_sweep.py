"""AppTest: the Lifetime sweep page runs and its widgets move without errors."""
from tests.app.conftest import assert_clean, run_page

PAGE = "pages/lifetime_sweep.py"
SMALL = {"data_gp1d_n": "200", "data_gp2d_n": "300", "trees": "10"}


def _slider(at, label_start):
    return next(s for s in at.slider if s.label.startswith(label_start))


def test_default_run_and_lifetime_slider():
    at = run_page(PAGE, query=SMALL)
    assert_clean(at)
    assert len(at.get("plotly_chart")) >= 4  # split, RMSE, features, 1-D fit
    before = at.metric[1].value
    s = _slider(at, "Lifetime")
    s.set_value(s.min + 0.05 * (s.max - s.min)).run()
    assert_clean(at)
    assert at.metric[1].value != before  # fewer features at a small lifetime
    s = _slider(at, "Lifetime")
    s.set_value(s.max).run()
    assert_clean(at)


def test_two_d_bundled_and_settings():
    at = run_page(PAGE, query={**SMALL, "data_src": "gp2d"})
    assert_clean(at)
    at.sidebar.number_input(key="noise_var").set_value(0.05).run()
    assert_clean(at)
    at.sidebar.number_input(key="prior_var").set_value(2.0).run()
    assert_clean(at)
    _slider(at, "Mondrian trees").set_value(15).run()
    assert_clean(at)
    at.sidebar.button(key="seed__new").click().run()
    assert_clean(at)
    at.selectbox(key="data_src").set_value("tips").run()
    assert_clean(at)
    at.sidebar.slider(key="cells").set_value(30).run()
    assert_clean(at)


def test_figure8_on_demand():
    at = run_page(PAGE, query={**SMALL, "trees": "5"})
    at.button(key="fig8").click().run()
    assert_clean(at)
    assert len(at.dataframe) == 1
    assert len(at.dataframe[0].value) == 3  # sweep, Fourier, binning


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
