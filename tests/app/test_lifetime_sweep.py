"""AppTest: the Lifetime sweep page runs, its widgets move, its tour and question work."""
import re

import numpy as np
import pytest

from tests.support import assert_clean, lifetime_sweep_default_path, run_page, small

PAGE = "pages/lifetime_sweep.py"
SMALL = small(PAGE)
pytestmark = pytest.mark.usefixtures("tiny_figure8")


def _lifetime(at):
    return at.sidebar.select_slider(key="lifetime")


def _status(at):
    """The line under the main chart: features and validation error at the lifetime."""
    return next(m.value for m in at.markdown if m.value.startswith("At $\\lambda"))


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
    at = run_page(PAGE)
    assert_clean(at)
    best = float(re.search(r"at \$\\lambda = ([0-9.e+-]+)\$\)", _status(at)).group(1))
    expected = lifetime_sweep_default_path().best_lifetime
    assert np.isclose(best, float(f"{expected:.3g}"))


def test_link_lifetime_is_snapped_to_an_offered_value():
    at = run_page(PAGE, query={**SMALL, "lifetime": "3.7"})
    assert_clean(at)
    assert _lifetime(at).value == "4"
    at = run_page(PAGE, query={**SMALL, "lifetime": "-2"})
    assert not at.exception and not at.error  # a notice, then the default


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
