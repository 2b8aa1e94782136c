"""The red team's findings (5,004 hostile inputs to the library, URLs and uploads)
kept as regression cases.

Each case is an input that once crashed, stalled, lost data, overflowed or echoed a
visitor's value as markdown, with the outcome it must have now: an InputError whose
message contains a fragment (saying what to change), or a value check.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats

import mondrian_core as mc
from explorer_ui.echo import plain
from mondrian_core import cost
from mondrian_core.datasets import CSV_MAX_COLUMNS, load_csv
from mondrian_core.errors import InputError
from mondrian_core.laplace_posterior import laplace_lifetime_posterior, truncated_grid
from mondrian_core.partitions import FastClusterPartitions, RandomForestPartitions

RNG = np.random.default_rng(24)
X40 = RNG.random((40, 2))
Y40 = np.sin(6 * X40[:, 0]) + 0.1 * RNG.standard_normal(40)
LABELS40 = (Y40 > 0).astype(int)


def _wide_csv(n_columns: int, n_rows: int = 12) -> bytes:
    head = ",".join(f"c{j}" for j in range(n_columns))
    row = ",".join("1" for _ in range(n_columns))
    return (head + "\n" + "\n".join([row] * n_rows) + "\n").encode()


def _path(**kwargs):
    return mc.lifetime_path(X40, Y40, terminal_lifetime=3.0, n_trees=5, random_state=0,
                            **kwargs)


def _sample():
    return mc.sample_mondrian_process([0, 0], [1, 1], 2.0, random_state=0)


def _later_classes():
    forest = mc.MondrianForestClassifier(n_estimators=3, random_state=0)
    forest.partial_fit(X40, LABELS40, classes=[0, 1])
    forest.partial_fit(X40, LABELS40, classes=[0, 1, 2])


# (finding, call, fragment of the InputError's message)
REFUSED = [
    ("1 columns", lambda: load_csv(_wide_csv(CSV_MAX_COLUMNS + 1)),
     f"at most {CSV_MAX_COLUMNS:,} are accepted"),
    ("1 parse cost", lambda: cost.check_csv_cost(10**7, 100), "upload at most 333,000 rows"),
    ("3 sums across lifetime_path", lambda: mc.lifetime_path(X40, Y40 * 1e153, n_trees=5),
     "rescale y_train"),
    ("4 X_val alone", lambda: _path(X_val=X40[:10]), "X_val was given without y_val"),
    ("4 y_val alone", lambda: _path(y_val=Y40[:10]), "y_val was given without X_val"),
    ("5 cells beyond the budget", lambda: cost.check_sweep_cost(240, 300, 400.0),
     "use at most 175 trees at these settings"),
    ("6 overflowing widths", lambda: mc.sample_mondrian_process([-1e308, 0], [1e308, 1], 2.0,
                                                                random_state=0),
     "longer than a float can hold"),
    ("6 empty classes", lambda: mc.MondrianForestClassifier().partial_fit(
        X40, LABELS40, classes=[]), "classes is empty"),
    ("6 later classes", _later_classes, "differs from the classes [0, 1]"),
    ("6 AMF empty classes", lambda: mc.AMFClassifier().partial_fit(X40, LABELS40, classes=[]),
     "classes is empty"),
    ("6 AMF later classes", lambda: mc.AMFClassifier(3, random_state=0).partial_fit(
        X40, LABELS40, classes=[0, 1]).partial_fit(X40, LABELS40, classes=[0, 1, 2]),
     "differs from the classes [0, 1]"),
    ("6 a billion AMF trees", lambda: mc.AMFRegressor(10**9).partial_fit(X40, Y40),
     "n_estimators must be an integer >= 1 and <= 100,000"),
    ("6 2**63 debiased trees", lambda: mc.DebiasedMondrianForestRegressor(
        n_estimators=2**63).fit(X40, Y40), "n_estimators must be an integer >= 1"),
    ("6 debiased lifetime 1e308", lambda: mc.DebiasedMondrianForestRegressor(
        lifetime=1e308).fit(X40, Y40), "use a smaller lifetime"),
    ("6 debiased ratio 1e308", lambda: mc.DebiasedMondrianForestRegressor(
        debias_order=1, lifetime_ratios=[1.0, 1e308]).fit(X40, Y40), "smaller ratios"),
    ("6 n_grid 10**9", lambda: laplace_lifetime_posterior(X40, Y40, stats.gamma(2),
                                                          n_grid=10**9), "n_grid must be"),
    ("6 n_grid 2**63", lambda: laplace_lifetime_posterior(X40, Y40, stats.gamma(2),
                                                          n_grid=2**63), "n_grid must be"),
    ("6 grid of 10**5", lambda: laplace_lifetime_posterior(
        X40, Y40, stats.gamma(2), grid=np.geomspace(0.1, 10, 10**5)), "use at most 2,000"),
    ("6 truncated grid 10**9", lambda: truncated_grid(stats.gamma(2), 5.0, n_grid=10**9),
     "n_grid must be"),
    ("6 noise 1e308", lambda: _path(noise_variance=1e308), "must be at most 1e+100"),
    ("6 noise over prior", lambda: _path(noise_variance=1e13), "at most 1e+12"),
    ("6 unfrozen prior", lambda: mc.lifetime_posterior(_path(), stats.expon),
     "stats.expon(...) rather than stats.expon"),
    ("6 unfrozen gamma prior", lambda: mc.lifetime_posterior(_path(), stats.gamma),
     "must be a frozen distribution"),
    ("6 discrete prior", lambda: mc.lifetime_posterior(_path(), stats.poisson(3)),
     "frozen continuous"),
    ("6 unfrozen Laplace prior", lambda: laplace_lifetime_posterior(X40, Y40, stats.gamma),
     "must be a frozen distribution"),
    ("6 text labels", lambda: mc.PartitionAlgebra([["a", "b"]]), "integer array"),
    ("6 fractional labels", lambda: mc.PartitionAlgebra([[0.5, 1.0]]), "whole numbers"),
    ("6 100,000 trees on 40 points", lambda: mc.lifetime_path(X40, Y40, n_trees=100_000),
     "trees at these settings"),
    ("6 extend a non-sample", lambda: mc.extend_mondrian(None, [-1, -1], [2, 2]),
     "sample must be a MondrianSample (from sample_mondrian_process), got NoneType"),
    ("6 chain from a non-sample", lambda: mc.extension_chain([[0, 1]], [-1, -1], [2, 2]),
     "sample must be a MondrianSample"),
    ("6 n_steps NaN", lambda: mc.extension_chain(_sample(), [-1, -1], [2, 2], float("nan")),
     "n_steps must be an integer >= 1 and <= 50"),
    ("6 n_steps text", lambda: mc.extension_chain(_sample(), [-1, -1], [2, 2], "x"),
     "n_steps must be an integer >= 1 and <= 50"),
    ("6 n_steps above 50", lambda: mc.extension_chain(_sample(), [-1, -1], [2, 2], 51),
     "n_steps must be an integer >= 1 and <= 50, got 51"),
    ("6 max_cells text", lambda: mc.sample_mondrian_process([0, 0], [1, 1], 2.0,
                                                            max_cells="x"),
     "max_cells must be a finite number >= 1"),
    ("6 max_cells NaN", lambda: mc.sample_mondrian_process([0, 0], [1, 1], 2.0,
                                                           max_cells=float("nan")),
     "max_cells must be a finite number >= 1"),
    ("6 max_cells array", lambda: mc.extend_mondrian(_sample(), [-1, -1], [2, 2],
                                                     max_cells=np.zeros(2)),
     "max_cells must be a finite number >= 1"),
    ("6 max_cells None", lambda: mc.extension_chain(_sample(), [-1, -1], [2, 2],
                                                    max_cells=None),
     "max_cells must be a finite number >= 1"),
    ("6 max_cells inf", lambda: mc.max_lifetime([0, 0], [1, 1], float("inf")),
     "max_cells must be a finite number >= 1"),
    ("6 max_cells below a cell", lambda: mc.max_lifetime([0, 0], [1, 1], 0.5),
     "max_cells must be a finite number >= 1"),
]


@pytest.mark.parametrize("finding, call, fragment", REFUSED, ids=[c[0] for c in REFUSED])
def test_hostile_input_is_refused_saying_what_to_change(finding, call, fragment):
    with pytest.raises(InputError) as info:
        call()
    assert fragment in str(info.value), str(info.value)


def test_a_refusal_names_a_size_that_runs():
    """'use at most 1 points' could not be followed: the sizes named now fit."""
    for n, trees, cells in [(300, 300, 400.0), (40, 100_000, 4.0), (10**6, 1, 1e7)]:
        with pytest.raises(InputError) as info:
            cost.check_sweep_cost(n, trees, cells)
        message = str(info.value)
        assert "at most 1 points" not in message
        if "trees at these settings" in message:
            named = int(message.split("use at most ")[1].split(" trees")[0].replace(",", ""))
            assert cost.sweep_seconds(n, named, cells) <= cost.SWEEP_BUDGET_SECONDS
            assert cost.sweep_seconds(n, named + 1, cells) > cost.SWEEP_BUDGET_SECONDS
        else:
            named = int(message.split("tree of at most ")[1].split(" cells")[0].replace(",", ""))
            assert cost.sweep_seconds(n, 1, named) <= cost.SWEEP_BUDGET_SECONDS
    with pytest.raises(InputError) as info:
        cost.check_csv_cost(12, 100_000)
    assert "at most 96,525 columns" in str(info.value)  # not "at most 1 rows"
    assert cost.csv_seconds(12, 96_525) <= cost.CSV_BUDGET_SECONDS


# (box, max_cells): brentq on L did not converge for max_cells = 1e308, and L * side
# overflowed on tiny sides
LIFETIME_LIMITS = [
    (([0, 0], [1, 1]), 1e308),
    (([0, 0, 0], [1e-10, 2, 3]), 1e308),
    (([0], [5]), 1e308),
    (([0, 0], [1e-200, 1e-200]), 5000.0),
    (([0, 0], [1, 1]), 1.0000001),
]


@pytest.mark.parametrize("box, max_cells", LIFETIME_LIMITS)
def test_max_lifetime_meets_any_finite_limit(box, max_cells):
    lifetime = mc.max_lifetime(*box, max_cells)
    assert mc.expected_cells(*box, lifetime) == pytest.approx(max_cells, rel=1e-12)


def test_max_lifetime_is_inf_beyond_the_largest_float():
    assert mc.max_lifetime([0, 0], [1e-200, 1e-200], 1e308) == np.inf
    assert mc.max_lifetime([0, 0], [1, 1], 1) == 0.0


def test_a_csv_at_the_column_limit_loads():
    data, _ = load_csv(_wide_csv(CSV_MAX_COLUMNS))
    assert data.X.shape == (12, CSV_MAX_COLUMNS - 1)


def test_forest_variance_does_not_move_with_a_target_offset():
    """y_var_ was E[y^2] - mean^2: 0.0 for y + 1e9 (the prior fell back to 1)."""
    plain_fit = mc.MondrianForestRegressor(5, 3.0, random_state=0).fit(X40, Y40)
    shifted = mc.MondrianForestRegressor(5, 3.0, random_state=0).fit(X40, Y40 + 1e9)
    assert plain_fit.y_var_ == pytest.approx(np.var(Y40), rel=1e-12)
    # y + 1e9 keeps about 16 - 9 = 7 significant digits of the spread
    assert shifted.y_var_ == pytest.approx(np.var(Y40), rel=1e-6)
    far = np.array([[3.0, 3.0]])
    _, std0 = plain_fit.predict(far, return_std=True)
    _, std1 = shifted.predict(far, return_std=True)
    assert std1 == pytest.approx(std0, rel=1e-6)


def test_partial_fit_moments_equal_the_batch_ones_and_stay_finite():
    """Running sums of squares overflowed over three calls of targets near 1e149."""
    batches = [np.full(20, 1.3e149) * (1 + i) + RNG.standard_normal(20) * 1e148
               for i in range(3)]
    forest = mc.MondrianForestRegressor(3, 3.0, random_state=0)
    for i, y in enumerate(batches):
        forest.partial_fit(X40[20 * (i % 2):20 * (i % 2) + 20], y)
    y_all = np.concatenate(batches)
    assert forest.y_mean_ == pytest.approx(np.mean(y_all), rel=1e-12)
    assert forest.y_var_ == pytest.approx(np.var(y_all), rel=1e-9)
    assert np.all(np.isfinite(forest.predict(X40)))


@pytest.mark.parametrize("sampler", [FastClusterPartitions, RandomForestPartitions])
@pytest.mark.parametrize("offset", [1e6, 1e8])
def test_partition_kernels_do_not_move_with_an_input_offset(sampler, offset):
    """Shifting X by 1e6 moved the Fast Cluster and Random Forest kernels by 0.10, 0.27."""
    X = RNG.random((150, 2))
    y = np.sin(5 * X[:, 0])
    K0 = sampler(40, random_state=1).fit(X, y).kernel(X)
    K1 = sampler(40, random_state=1).fit(X + offset, y).kernel(X + offset)
    assert np.array_equal(K0, K1)


def test_partition_algebra_takes_n_jobs_like_the_estimators():
    algebra = mc.PartitionAlgebra(np.zeros((3, 40), dtype=int), n_jobs=None)
    assert algebra.n_jobs == 1


# (markdown a link or file could carry, what must not survive in the escaped text)
ECHOED = [
    ("![](https://host/p.png)", "]("),       # an outside image: every visitor's browser fetches it
    ("[x](https://host)", "]("),             # an outside link inside the app's notice
    ("<img src=x onerror=alert(1)>", "<img"),
    (":red[alarm] :material/warning:", ":red["),
    ("**bold** _it_ `code` ~~s~~", "**"),
    ("$\\int x$", "$\\int"),
    ("www.host.example", "www.h"),
    ("# heading\n- item", "\n"),
]


@pytest.mark.parametrize("raw, gone", ECHOED)
def test_a_visitors_value_is_shown_as_text(raw, gone):
    shown = plain(raw)
    # what markdown still reads as markup: the text without its escaped characters
    assert gone not in re.sub(r"\\.", "\x00", shown), shown
    # removing the escapes gives back the text (line breaks as spaces)
    assert shown.replace("\\", "") == raw.replace("\\", "").replace("\n", " ")


def test_a_link_value_is_echoed_escaped_in_the_notice():
    """/mondrian_process?lifetime=![](https://host/p.png) made browsers fetch an image."""
    from streamlit.testing.v1 import AppTest

    from tests.support import ROOT

    at = AppTest.from_file(str(ROOT / "pages" / "mondrian_process.py"), default_timeout=120)
    at.query_params["lifetime"] = "![](https://host/p.png)"
    at.query_params["tour"] = "[x](https://host)"
    at.run()
    assert not at.exception
    notices = [t.value for t in at.toast]
    assert any("lifetime=" in n and "!\\[\\](https\\://" in n for n in notices), notices
    assert any("tour=" in n and "\\[x\\](https\\://" in n for n in notices), notices
    assert not any("](" in re.sub(r"\\.", "\x00", n) for n in notices), notices
