"""Bad input at the core's entry points: every bad value gives an InputError
whose message says what to change, or a valid result with its invariants; never a
NumPy/SciPy internal error, IndexError, ZeroDivisionError, MemoryError or silent NaN.

CSV uploads: malformed files of every kind (wrong delimiter, text columns, NaN/inf,
duplicated headers, one row or column, oversized, non-UTF-8, empty, header only,
ragged rows, quoted fields, BOM, huge numbers, very wide files). Parameters and data:
negative / NaN / inf / huge lifetimes and counts, 0 or 1 rows, NaN in X or y,
mismatched lengths, wrong dimensions. Each ``@example`` is a case that failed before
the fix that came with these tests.
"""
from __future__ import annotations

import builtins
import csv
import functools
import io
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy import stats

import mondrian_core as mc
from mondrian_core import InputError, sweep
from mondrian_core import datasets as ds
from mondrian_core.trees import check_tree_budget
from tests.support import BAD_CSVS, GOOD, assert_actionable, malformed_csv, table_bytes

FAST = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

def outcome(call):
    """Run ``call``; an InputError must be actionable. Returns the result or the error."""
    try:
        return call()
    except InputError as err:
        assert_actionable(err)
        return err


# ================================================================ CSV uploads

def check_loaded(data: bytes, **kwargs):
    """load_csv gives a clean data set or an actionable InputError."""
    result = outcome(lambda: ds.load_csv(data, **kwargs))
    if isinstance(result, InputError):
        return result
    d, notices = result
    assert d.n_samples >= ds.CSV_MIN_ROWS and d.n_features >= 1
    assert np.all(np.isfinite(d.X)) and np.all(np.isfinite(d.y))
    assert len(set(d.feature_names)) == d.n_features and d.target_name not in d.feature_names
    assert all(isinstance(n, str) and n for n in notices)
    if kwargs.get("standardize"):
        assert np.all(np.abs(d.X.mean(axis=0)) < 1e-9)
    return d


@FAST
@given(malformed_csv(), st.booleans())
def test_malformed_csv_gives_a_data_set_or_says_what_to_change(data, standardize):
    check_loaded(data, standardize=standardize)


@st.composite
def numeric_table(draw):
    """A clean numeric table (unique names, >= CSV_MIN_ROWS rows), values in any range."""
    n_cols = draw(st.integers(2, 5))
    n_rows = draw(st.integers(ds.CSV_MIN_ROWS, 30))
    values = draw(st.lists(st.lists(
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
        min_size=n_cols, max_size=n_cols), min_size=n_rows, max_size=n_rows))
    return np.array(values), [f"c{j}" for j in range(n_cols)]


def write(values, names, sep=",", bom=False, quote=False, newline="\n"):
    q = '"' if quote else ""
    lines = [sep.join(f"{q}{n}{q}" for n in names)]
    lines += [sep.join(f"{q}{float(v)!r}{q}" for v in row) for row in values]
    return ("\ufeff" if bom else "").encode() + newline.join(lines).encode()


@FAST
@given(numeric_table(), st.sampled_from([",", ";", "\t", "|"]), st.booleans(), st.booleans(),
       st.sampled_from(["\n", "\r\n"]))
@example((np.array([[1e300, 1.0], [-1e300, 2.0]] * 6), ["c0", "c1"]), ",", False, False, "\n")
def test_clean_numeric_csv_round_trips_in_any_dialect(table, sep, bom, quote, newline):
    values, names = table
    d, _ = ds.load_csv(write(values, names, sep, bom, quote, newline))
    assert d.feature_names == tuple(names[:-1]) and d.target_name == names[-1]
    # pandas' default C parser is accurate to one unit in the last place
    np.testing.assert_allclose(d.X, values[:, :-1], rtol=2.0**-52, atol=0)
    np.testing.assert_allclose(d.y, values[:, -1], rtol=2.0**-52, atol=0)
    # z-scores of huge values: a plain std overflows to inf and would turn the column into 0
    z = d.standardize(target=True)
    assert np.all(np.isfinite(z.X)) and np.all(np.isfinite(z.y))
    spread = np.ptp(values, axis=0) > 0
    np.testing.assert_allclose(z.X.std(axis=0)[spread[:-1]], 1.0, rtol=1e-9)


@pytest.mark.parametrize("what, data, words", BAD_CSVS, ids=[c[0] for c in BAD_CSVS])
def test_each_malformed_csv_says_what_to_change(what, data, words):
    with pytest.raises(InputError, match=words) as info:
        ds.load_csv(data)
    assert_actionable(info.value)


def test_a_50_mb_file_is_refused_before_parsing_and_names_the_limit():
    data = b"a,b\n" + b"1,2\n" * (50_000_000 // 4)
    for source in (data, io.BytesIO(data)):
        with pytest.raises(InputError, match=f"larger than {ds.CSV_MAX_BYTES / 1e6:g} MB"):
            ds.read_csv_table(source)


def test_the_server_upload_limit_matches_the_core_limit():
    """Streamlit refuses files above server.maxUploadSize (MiB) with its own message naming
    the limit; set to the core's 20 MB, so a file that passes the browser is at most 5%
    (MB vs MiB) over CSV_MAX_BYTES, and the core names the same limit."""
    from pathlib import Path

    import tomllib

    config = tomllib.loads((Path(__file__).parents[1] / ".streamlit" / "config.toml").read_text())
    limit_mib = config["server"]["maxUploadSize"]
    assert limit_mib == math.ceil(ds.CSV_MAX_BYTES / 2**20)


@pytest.mark.parametrize("what, data, check", [
    ("BOM", b"\xef\xbb\xbf" + GOOD, lambda d: d.feature_names == ("a", "b")),
    ("CRLF", GOOD.replace(b"\n", b"\r\n"), lambda d: d.n_samples == 15),
    ("CR only (old Mac)", GOOD.replace(b"\n", b"\r"), lambda d: d.n_samples == 15),
    ("quoted numbers and names", b'"a","b","y"\n' + b'"1","2","3"\n"2","1","5"\n' * 8,
     lambda d: d.X.shape == (16, 2)),
    ("quoted field holding the delimiter", b'a,b,y\n' + b'"1,5",2,3\n"2,5",1,5\n' * 8,
     lambda d: d.feature_names == ("b",)),
    ("integers beyond 64 bits", b"a,b,y\n" + b"100000000000000000000000000000,2,3\n"
     + b"-5,1,2\n" * 12, lambda d: d.X[0, 0] == 1e29),
    ("huge numbers standardised", b"a,b,y\n" + b"1e300,2,3\n-1e300,1,2\n" * 6,
     lambda d: np.allclose(d.standardize().X.std(axis=0), 1.0)),
    ("3,000 columns", table_bytes(12, tuple(f"c{j}" for j in range(3000))),
     lambda d: d.X.shape == (12, 2999)),
    ("boolean column", b"a,b,y\n" + b"True,2,3\nFalse,1,5\n" * 8, lambda d: d.n_features == 2),
])
def test_odd_but_valid_csvs_load(what, data, check):
    d, notices = ds.load_csv(data)
    assert check(d), what


PAYLOADS = [
    "=cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "__import__('os').system('touch {marker}')",
    "eval(\"open('{marker}', 'w')\")",
    "{{{{7*7}}}}",
]


def test_uploaded_text_is_never_executed_unpickled_or_written(tmp_path, monkeypatch):
    """Formula and code strings stay text (an unusable text column); a pickle is refused as
    binary; load_csv calls no eval/exec/pickle and opens no file for writing."""
    marker = tmp_path / "pwned"
    texts = [p.format(marker=marker) for p in PAYLOADS * 3]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["cmd", "b", "y"])
    writer.writerows([text, i, i % 3] for i, text in enumerate(texts))
    csv_text = buffer.getvalue().encode()

    class Boom:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    payload = pickle.dumps(Boom())  # unpickling it would create the marker file
    ds.load_csv(GOOD)  # warm imports before the builtins are watched
    calls = []

    def refuse(name):
        def f(*args, **kwargs):
            calls.append(name)
            raise AssertionError(f"{name} called")
        return f

    real_open = builtins.open

    def watched_open(file, mode="r", *args, **kwargs):
        if any(m in mode for m in "wax+"):
            calls.append(f"open({file!r}, {mode!r})")
        return real_open(file, mode, *args, **kwargs)

    for name in ("eval", "exec"):
        monkeypatch.setattr(builtins, name, refuse(name))
    monkeypatch.setattr(pickle, "loads", refuse("pickle.loads"))
    monkeypatch.setattr(pickle, "load", refuse("pickle.load"))
    monkeypatch.setattr(builtins, "open", watched_open)

    table = ds.read_csv_table(csv_text)
    d, notices = ds.load_csv(csv_text)
    with pytest.raises(InputError, match="binary"):
        ds.load_csv(payload)
    monkeypatch.undo()

    assert calls == [] and not marker.exists()
    assert table.text_columns == ("cmd",)
    assert list(table.frame["cmd"]) == texts
    assert d.feature_names == ("b",) and any("'cmd'" in n for n in notices)


# ================================================================ core entry points

RNG = np.random.default_rng(0)
X0 = RNG.random((20, 2))
Y0 = np.sin(4 * X0[:, 0]) + X0[:, 1]

BAD_LIFETIMES = [-1.0, -1e-300, math.nan, math.inf, -math.inf, None, "3x", [1.0, 2.0]]
BAD_COUNTS = [0, -3, 1.5, math.nan, math.inf, None, "many", 10**9]

lifetimes = st.one_of(st.sampled_from(BAD_LIFETIMES), st.floats(0, 50),
                      st.floats(1e6, 1e308), st.floats(max_value=-1e-300))
counts = st.one_of(st.sampled_from(BAD_COUNTS), st.integers(1, 8), st.integers(-5, 0))


def finite(*arrays):
    for a in arrays:
        a = a.toarray() if sp.issparse(a) else np.asarray(a, dtype=float)
        assert np.all(np.isfinite(a)), a


# each entry point with (lifetime, count) parameters, and the invariants of a good result
def mondrian_features(lifetime, count, X=X0, y=Y0):
    Z = mc.MondrianFeatures(lifetime, count, random_state=0).fit(X).transform(X)
    assert Z.shape[0] == X.shape[0] and np.all(np.diff(Z.indptr) == count)
    finite(Z)


def lifetime_path(lifetime, count, X=X0, y=Y0):
    p = mc.lifetime_path(X, y, X[:5], y[:5], lifetime, count, random_state=0)
    finite(p.lifetimes, p.train_rmse, p.val_rmse, p.log_marginal_likelihood)
    post = mc.lifetime_posterior(p, stats.expon(scale=1.0))
    assert np.isclose(post.interval_mass.sum(), 1.0) and 0 <= post.mean <= p.terminal_lifetime


def mondrian_partitions(lifetime, count, X=X0, y=Y0):
    parts = mc.MondrianPartitions(count, lifetime, random_state=0).fit(X)
    K = parts.kernel(X)
    assert np.allclose(np.diag(K), 1.0) and np.all((K >= 0) & (K <= 1))


def forest(lifetime, count, X=X0, y=Y0):
    f = mc.MondrianForestRegressor(count, lifetime, random_state=0).fit(X, y)
    mean, std = f.predict(X[:3], return_std=True)
    finite(mean, std)


def online_forest(lifetime, count, X=X0, y=Y0):
    f = mc.MondrianForestRegressor(count, lifetime, random_state=0)
    f.partial_fit(X[:10], y[:10]).partial_fit(X[10:], y[10:])
    finite(f.predict(X[:3]))


def process(lifetime, count, X=X0, y=Y0):
    s = mc.sample_mondrian_process([0, 0], [1, 1], lifetime, random_state=0)
    assert np.all(s.cut_times < s.lifetime) and len(s.cells()) == s.cut_times.size + 1
    check = mc.first_cut_check([0, 0], [1, 1], lifetime, n_samples=count, random_state=0)
    seen = np.isfinite(check.times)
    assert check.n_samples == count and np.all(check.times[seen] < lifetime)


def laplace_gp(lifetime, count, X=X0, y=Y0):
    d = ds.laplace_gp(count, 1, lifetime, 0.1, random_state=0)
    assert d.n_samples == count
    finite(d.X, d.y)


LIFETIME_ENTRY_POINTS = [mondrian_features, lifetime_path, mondrian_partitions, forest,
                         online_forest, process, laplace_gp]


@pytest.mark.parametrize("entry", LIFETIME_ENTRY_POINTS, ids=lambda f: f.__name__)
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(lifetime=lifetimes, count=counts)
@example(lifetime=1.0, count=math.nan)          # int(nan) raises ValueError: refuse first
@example(lifetime=1.0, count=None)              # int(None) raises TypeError: refuse first
@example(lifetime=None, count=3)                # np.isfinite(None) raises TypeError
@example(lifetime=1.0, count=10**9)             # a size guard, not a MemoryError
def test_lifetimes_and_counts_are_checked(entry, lifetime, count):
    result = outcome(lambda: entry(lifetime, count))
    if isinstance(result, InputError):
        # only bad values are refused: a lifetime up to 50 and a handful of trees or
        # samples fit every limit on these 20 points in the unit square; the forests
        # refuse a positive lifetime below 1e-100, whose trees never cut
        good = (isinstance(lifetime, float) and (lifetime == 0 or 1e-100 <= lifetime <= 50)
                and isinstance(count, int) and not isinstance(count, bool) and 1 <= count <= 8)
        assert not good, (lifetime, count, str(result))
        return
    # a good result only from good values
    assert isinstance(lifetime, float) and 0 <= lifetime < math.inf
    assert isinstance(count, int) and count >= 1


@st.composite
def broken_data(draw):
    """(X, y): right or wrong shapes, NaN/inf, 0 or 1 rows, huge values, text."""
    n = draw(st.sampled_from([0, 1, 2, 5, 20]))
    d = draw(st.sampled_from([1, 2]))
    X = np.array(RNG.random((n, d))) * draw(st.sampled_from([1.0, 1e-300, 1e300]))
    y = RNG.standard_normal(n) * draw(st.sampled_from([1.0, 1e200]))
    bad = draw(st.sampled_from(["none", "nan_x", "inf_x", "nan_y", "inf_y", "short_y",
                                "x_1d", "x_3d", "x_text", "no_cols", "far_apart"]))
    if bad == "nan_x" and n:
        X[draw(st.integers(0, n - 1)), 0] = np.nan
    elif bad == "inf_x" and n:
        X[-1, -1] = -np.inf
    elif bad == "nan_y" and n:
        y[0] = np.nan
    elif bad == "inf_y" and n:
        y[-1] = np.inf
    elif bad == "short_y":
        y = y[:-1]
    elif bad == "x_1d":
        X = X[:, 0]
    elif bad == "x_3d":
        X = X[None]
    elif bad == "x_text":
        X = X.astype(str).astype(object)
        if n:
            X[0, 0] = "abc"
    elif bad == "no_cols":
        X = np.empty((n, 0))
    elif bad == "far_apart" and n > 1:
        X[0, 0], X[1, 0] = -1.5e308, 1.5e308
    return X, y


def gp(X, y):
    g = mc.PartitionGP(mc.FastClusterPartitions(20, max_level=3, random_state=0),
                       noise_variance=0.1).fit(X, y)
    mean, std = g.predict(X, return_std=True)
    finite(mean, std)


def random_forest_gp(X, y):
    g = mc.PartitionGP(mc.RandomForestPartitions(10, random_state=0)).fit(X, y)
    finite(g.predict(X))


def kernel_pca(X, y):
    E = mc.PartitionKernelPCA(mc.FastClusterPartitions(10, random_state=0), 1).fit_transform(X)
    finite(E)


def laplace_kernel(X, y):
    K = mc.laplace_kernel(X, lifetime=2.0)
    assert np.allclose(np.diag(K), 1.0)


DATA_ENTRY_POINTS = {
    "MondrianFeatures": lambda X, y: mondrian_features(3.0, 4, X, y),
    "lifetime_path": lambda X, y: lifetime_path(3.0, 4, X, y),
    "MondrianPartitions": lambda X, y: mondrian_partitions(3.0, 4, X, y),
    "MondrianForestRegressor": lambda X, y: forest(3.0, 4, X, y),
    "partial_fit": lambda X, y: finite(mc.MondrianForestRegressor(3, 3.0, random_state=0)
                                       .partial_fit(X, y).predict(X)),
    "PartitionGP": gp,
    "PartitionGP(RandomForest)": random_forest_gp,
    "PartitionKernelPCA": kernel_pca,
    "laplace_kernel": laplace_kernel,
}


@pytest.mark.parametrize("entry", DATA_ENTRY_POINTS.values(), ids=DATA_ENTRY_POINTS.keys())
@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=broken_data())
@example(data=(X0, Y0 * 1e200))                  # lifetime_path/GP: NaN likelihood/mean
@example(data=(X0 * 1e300, Y0))                   # huge but finite inputs
@example(data=(np.array([[-1.5e308], [1.5e308]]), np.zeros(2)))  # range overflows
@example(data=(X0, np.where(np.arange(20) == 3, np.nan, Y0)))    # NaN in y
def test_broken_data_is_refused_or_gives_finite_results(entry, data):
    X, y = data
    outcome(lambda: entry(X, y))


def test_validation_targets_with_nan_are_refused_not_an_inf_error_curve():
    y_val = Y0[:5].copy()
    y_val[2] = np.nan
    with pytest.raises(InputError, match="y_val contains NaN"):
        mc.lifetime_path(X0, Y0, X0[:5], y_val, 3.0, 4, random_state=0)


def test_tiny_noise_variance_is_refused_with_the_smallest_that_works():
    with pytest.raises(InputError, match="at least 1e-08") as info:
        mc.lifetime_path(X0, Y0, None, None, 3.0, 4, noise_variance=1e-300, random_state=0)
    assert_actionable(info.value)
    mc.lifetime_path(X0, Y0, None, None, 3.0, 4, noise_variance=1e-8, random_state=0)


@pytest.mark.parametrize("make, words", [
    (lambda: mc.sample_mondrian_process([0, 0], [1, 1], 1e6), "at most 446"),
    (lambda: mc.MondrianFeatures(1e6, 100).fit(RNG.random((100_000, 2))),
     "Use a lifetime of at most"),
    (lambda: mc.MondrianFeatures(1.0, 1000).fit(RNG.random((100_000, 1))), "at most 200 trees"),
    (lambda: mc.MondrianForestRegressor(500, 1e6).fit(RNG.random((20_000, 2)),
                                                       np.zeros(20_000)),
     "Use a lifetime of at most"),
    (lambda: mc.MondrianPartitions(100, 1e6).fit(RNG.random((100_000, 2))),
     "Use a lifetime of at most"),
    (lambda: mc.FastClusterPartitions(10**7).fit(X0), "at most 1,000,000 partitions"),
    (lambda: mc.laplace_kernel(RNG.random((10_000, 1))), "at most 7,071 points"),
    (lambda: mc.MondrianForestRegressor(10**6).partial_fit(X0, Y0), "<= 100,000"),
])
def test_work_too_large_for_memory_is_refused_before_it_starts(make, words):
    with pytest.raises(InputError, match=words) as info:
        make()
    assert_actionable(info.value)


def test_the_lifetime_named_by_the_tree_limit_fits():
    X = RNG.random((50_000, 2))
    with pytest.raises(InputError, match="at most") as info:
        mc.MondrianFeatures(1e4, 200, random_state=0).fit(X)
    best = float(str(info.value).split("at most ")[1].split(",")[0])
    assert 0 < best < 1e4
    check_tree_budget(X, 200, best)  # no error: the named lifetime fits


def test_sweep_too_large_to_store_names_a_terminal_lifetime_that_fits(monkeypatch):
    monkeypatch.setattr(sweep, "MAX_STORED", 100_000)
    X = RNG.random((500, 2))
    with pytest.raises(InputError, match="terminal lifetime of at most") as info:
        mc.lifetime_path(X, X.sum(1), None, None, 1e4, 20, random_state=0)
    best = float(str(info.value).split("at most ")[1].split(",")[0])
    # the same trees (same seed, same stream): the events before the named lifetime fit
    trees = mc.sample_mondrian_trees(X, 20, 1e4, random_state=0)
    n_events = int((trees.split_time[trees.events()] < best).sum())
    # each event state keeps the cheaper of its C_k = 20 + k cell values and N alphas
    stored = np.minimum(20 + np.arange(n_events + 1), X.shape[0]).sum()
    assert 0 < n_events and stored <= sweep.MAX_STORED
    one_more = np.minimum(20 + np.arange(n_events + 2), X.shape[0]).sum()
    assert one_more > sweep.MAX_STORED  # and it is the largest that fits


@pytest.mark.parametrize("call, words", [
    (lambda: mc.check_random_state(-1), "non-negative"),
    (lambda: mc.check_random_state("seed"), "random_state must be"),
    (lambda: mc.lifetime_posterior(None, stats.expon()), "LifetimePath"),
    (lambda: mc.lifetime_path(X0, Y0, None, None, "long", 4), "terminal_lifetime"),
    (lambda: mc.lifetime_path([["a", "b"]] * 5, Y0[:5], None, None, 1.0, 4), "numbers only"),
    (lambda: mc.PartitionGP(mc.FastClusterPartitions(5), tol=0).fit(X0, Y0), "tol must be"),
    (lambda: mc.PartitionGP(mc.FastClusterPartitions(5), noise_variance=None).fit(X0, Y0),
     "noise_variance must be"),
    (lambda: mc.RandomForestPartitions(5, max_features=0).fit(X0, Y0), "max_features"),
    (lambda: mc.RandomForestPartitions(5).fit(X0, np.full(20, np.nan)), "NaN"),
    (lambda: mc.MondrianForestClassifier(3).fit(X0, np.full(20, np.nan)), "NaN"),
    (lambda: mc.MondrianFeatures(1, 3).fit(X0[:, 0]), "2-D array"),
    (lambda: mc.MondrianFeatures(1, 3).fit(X0).transform(np.full((2, 2), np.nan)), "finite"),
])
def test_other_bad_arguments_say_what_to_change(call, words):
    with pytest.raises(InputError, match=words) as info:
        call()
    assert_actionable(info.value)


@functools.cache
def small_path_and_flat_posterior_mean():
    path = mc.lifetime_path(X0, Y0, None, None, 3.0, 6, random_state=0)
    return path, mc.lifetime_posterior(path, stats.uniform(0.0, path.terminal_lifetime)).mean


@settings(max_examples=20, deadline=None, derandomize=True)
@given(log_scale=st.floats(0, 300))
@example(log_scale=300.0)  # the conditional means underflowed: posterior mean 0.0
def test_posterior_mean_under_a_very_wide_prior_tends_to_the_flat_prior(log_scale):
    """An exponential prior of scale 10^s is flat to within a factor exp(-T / 10^s) on
    [0, T]: the posterior mean lies between the flat prior's and that factor times it."""
    path, flat_mean = small_path_and_flat_posterior_mean()
    wide = mc.lifetime_posterior(path, stats.expon(scale=10.0**log_scale))
    assert np.isfinite(wide.mean) and 0 < wide.mean <= path.terminal_lifetime
    factor = math.exp(-path.terminal_lifetime / 10.0**log_scale)  # density ratio on [0, T]
    rel = 1.49e-8  # the flat prior's interval means come from scipy's quad (its epsrel)
    assert factor * flat_mean * (1 - rel) <= wide.mean <= flat_mean * (1 + rel)


def test_a_prior_with_no_mass_on_the_sweep_says_so():
    path = mc.lifetime_path(X0, Y0, None, None, 3.0, 6, random_state=0)
    for prior in (stats.gamma(3, scale=1e300), stats.uniform(1e6, 1.0)):
        with pytest.raises(InputError, match=r"no mass .* on the swept lifetimes \[0, 3\]") as info:
            mc.lifetime_posterior(path, prior)
        assert_actionable(info.value)


@functools.cache
def fitted_models():
    path = mc.lifetime_path(X0, Y0, None, None, 3.0, 5, random_state=0)
    return {
        "MondrianFeatures": mc.MondrianFeatures(3.0, 5, random_state=0).fit(X0).transform,
        "LifetimePath": lambda X: path.predict(X, 1.0, return_std=True),
        "LifetimePosterior": lambda X: mc.lifetime_posterior(path, stats.expon()).predict(
            X, return_std=True),
        "MondrianForestRegressor": lambda X: mc.MondrianForestRegressor(
            5, 3.0, random_state=0).fit(X0, Y0).predict(X, return_std=True),
        "MondrianForestClassifier": mc.MondrianForestClassifier(5, 3.0, random_state=0).fit(
            X0, (Y0 > 1).astype(int)).predict_proba,
        "PartitionGP": mc.PartitionGP(mc.MondrianPartitions(10, 3.0, random_state=0)).fit(
            X0, Y0).predict,
    }


@settings(max_examples=25, deadline=None, derandomize=True)
@given(point=st.lists(st.floats(-1.7e308, 1.7e308), min_size=2, max_size=2))
@example(point=[1.7e308, 0.5])  # z = inf in the forest's moments must not give a NaN std
def test_predictions_at_new_points_anywhere_are_finite_or_refused(point):
    for predict in fitted_models().values():
        result = outcome(lambda predict=predict: predict(np.array([point])))
        if not isinstance(result, InputError):
            finite(*(result if isinstance(result, tuple) else (result,)))
