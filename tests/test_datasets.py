"""Tests of mondrian_core.datasets: seeding, Laplace-GP draws against theory, real
sets, CSV validation (every failure mode gives an InputError), splits.

Statistical tolerances come from the sampling distribution: for a zero-mean
bivariate normal pair with unit variances and correlation rho, the product f_i f_j
has mean rho and variance 1 + rho^2, so the mean product over n draws has standard
error sqrt((1 + rho^2) / n). We allow Z_MAX standard errors with Z_MAX chosen by a
Bonferroni bound over the pairs checked in a test (two-sided tail < 1e-3 overall).
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from mondrian_core import InputError
from mondrian_core import datasets as ds
from mondrian_core.datasets.synthetic import DJ_SIGNALS, donoho_johnstone, donoho_johnstone_1d


def z_max(n_tests: int, alpha: float = 1e-3) -> float:
    """Two-sided normal quantile with Bonferroni correction over n_tests."""
    return float(stats.norm.isf(alpha / (2 * n_tests)))


def check_covariance(F, K, alpha=1e-3):
    """Mean products of columns of F (draws x points) equal K within derived SEs."""
    n = F.shape[0]
    emp = F.T @ F / n
    se = np.sqrt((1.0 + K**2) / n)
    iu = np.triu_indices(K.shape[0])
    z = np.abs(emp[iu] - K[iu]) / se[iu]
    assert z.max() < z_max(iu[0].size, alpha), (z.max(), emp, K)


def laplace(X, lifetime):
    return np.exp(-lifetime * np.abs(X[:, None, :] - X[None, :, :]).sum(-1))


# ---------------------------------------------------------------- seeding


GENERATORS = [
    lambda rs: ds.uniform_box(50, (0, -1), (2, 1), random_state=rs),
    lambda rs: ds.laplace_gp(60, 1, 4.0, 0.1, random_state=rs),
    lambda rs: ds.laplace_gp(60, 2, 4.0, 0.1, random_state=rs),
    lambda rs: ds.laplace_gp(40, 3, 2.0, 0.0, random_state=rs),
    lambda rs: ds.toy_jumps_1d(80, 0.1, random_state=rs),
    lambda rs: ds.two_moons(60, random_state=rs),
    lambda rs: ds.two_spirals(60, random_state=rs),
    lambda rs: ds.xor_blobs(60, random_state=rs),
    lambda rs: ds.regression_surface_2d(60, random_state=rs),
]


@pytest.mark.parametrize("make", GENERATORS)
def test_same_seed_same_data_other_seed_other_data(make):
    a, b, c = make(3), make(3), make(4)
    np.testing.assert_array_equal(a.X, b.X)
    assert a.X.dtype == np.float64 and a.X.ndim == 2
    assert not np.array_equal(a.X, c.X)
    if a.y is not None:
        np.testing.assert_array_equal(a.y, b.y)
        assert a.y.shape == (a.n_samples,)
    gen = np.random.default_rng(3)
    d = make(gen)  # a Generator is used as given (its stream advances)
    np.testing.assert_array_equal(d.X, a.X)
    assert a.description and "\n" not in a.description


def test_uniform_box_in_box_and_uniform():
    d = ds.uniform_box(4000, (0, -1), (2, 1), random_state=0)
    assert np.all(d.X >= [0, -1]) and np.all(d.X <= [2, 1])
    for j, (lo, hi) in enumerate([(0, 2), (-1, 1)]):
        assert stats.kstest(d.X[:, j], stats.uniform(lo, hi - lo).cdf).pvalue > 1e-3


@pytest.mark.parametrize("kwargs", [
    dict(n=0), dict(n=2.5), dict(lifetime=-1), dict(lifetime=np.inf), dict(noise_std=-0.1),
    dict(n_dims=0), dict(lower=1.0, upper=0.0),
])
def test_laplace_gp_rejects_bad_parameters(kwargs):
    args = dict(n=10, n_dims=1, lifetime=1.0, noise_std=0.1) | kwargs
    with pytest.raises(InputError):
        ds.laplace_gp(random_state=0, **args)


def test_laplace_gp_refuses_big_dense_draw_with_advice():
    with pytest.raises(InputError, match="N <= 5,000"):
        ds.laplace_gp(ds.MAX_GP_POINTS + 1, 2, 1.0, 0.1, random_state=0)
    with pytest.raises(InputError, match="N <= 5,000"):
        ds.laplace_gp_sample(np.zeros((ds.MAX_GP_POINTS + 1, 2)), 1.0, method="cholesky")
    # 1-D has no limit (O(N) recursion)
    assert ds.laplace_gp(20_000, 1, 3.0, 0.1, random_state=0).n_samples == 20_000


# ---------------------------------------------------------------- Laplace GP theory


def test_ou_sampler_covariance_matches_laplace_kernel():
    X = np.array([[0.0], [0.05], [0.1], [0.3], [0.31], [0.9]])
    F = ds.laplace_gp_sample(X, 3.0, n_draws=20_000, random_state=1, method="ou")
    check_covariance(F, laplace(X, 3.0))
    assert np.abs(F.mean(0)).max() < z_max(6) / np.sqrt(20_000)


def test_cholesky_sampler_covariance_matches_laplace_kernel_2d():
    X = np.random.default_rng(5).random((6, 2))
    F = ds.laplace_gp_sample(X, 2.0, n_draws=20_000, random_state=2, method="cholesky")
    check_covariance(F, laplace(X, 2.0))


def test_ou_and_cholesky_samplers_agree_in_distribution():
    """Two-sample comparison of the covariances of both 1-D samplers."""
    X = np.sort(np.random.default_rng(7).random(6))[:, None]
    n = 20_000
    F1 = ds.laplace_gp_sample(X, 4.0, n_draws=n, random_state=3, method="ou")
    F2 = ds.laplace_gp_sample(X, 4.0, n_draws=n, random_state=4, method="cholesky")
    K = laplace(X, 4.0)
    e1, e2 = F1.T @ F1 / n, F2.T @ F2 / n
    se = np.sqrt(2 * (1 + K**2) / n)
    iu = np.triu_indices(6)
    assert (np.abs(e1 - e2)[iu] / se[iu]).max() < z_max(iu[0].size)


def test_ou_recursion_is_exact_across_its_blocks_and_unsorted_input():
    """lifetime x range = 1,200 > 500 forces three blocks; x given in shuffled order."""
    lifetime = 1000.0
    x = np.arange(1200) * 0.001
    perm = np.random.default_rng(0).permutation(x.size)
    F = ds.laplace_gp_sample(x[perm][:, None], lifetime, n_draws=20_000, random_state=5)
    F = F[:, np.argsort(perm)]  # back to sorted order
    idx = np.array([0, 499, 500, 501, 502, 1000, 1001, 1002, 1003, 1199])
    check_covariance(F[:, idx], laplace(x[idx, None], lifetime))


@pytest.mark.parametrize("lifetime", [0.5, 40.0, 3000.0])
def test_ou_fast_path_equals_the_plain_recursion(lifetime):
    """The vectorised, block-restarted sampler equals the obvious loop on the same normals
    (lifetime 3000 on [0, 1] forces six blocks of the cumulative-sum restart)."""
    x = np.random.default_rng(1).random(400)
    F = ds.laplace_gp_sample(x[:, None], lifetime, n_draws=3, random_state=9, method="ou")
    e = np.random.default_rng(9).standard_normal((3, x.size))  # same stream, sorted order
    order = np.argsort(x, kind="stable")
    xs = x[order]
    expected = np.empty((3, x.size))
    expected[:, 0] = e[:, 0]
    for i in range(1, x.size):
        rho = np.exp(-lifetime * (xs[i] - xs[i - 1]))
        expected[:, i] = rho * expected[:, i - 1] + np.sqrt(1 - rho**2) * e[:, i]
    np.testing.assert_allclose(F[:, order], expected, rtol=1e-9, atol=1e-12)


def test_laplace_gp_noise_and_function():
    d = ds.laplace_gp(500, 2, 3.0, 0.3, random_state=6)
    assert d.true_lifetime == 3.0 and d.noise_std == 0.3
    assert np.all((d.X >= 0) & (d.X <= 1))
    # sum of squared noise / sigma^2 ~ chi2(N)
    q = np.sum((d.y - d.f) ** 2) / 0.3**2
    p = stats.chi2(500).sf(q)
    assert 5e-4 < p < 1 - 5e-4


def test_laplace_gp_zero_lifetime_is_constant_function():
    d = ds.laplace_gp(50, 2, 0.0, 0.0, random_state=0)
    assert np.ptp(d.f) < 1e-3  # jitter of at most 1e-6 variance per point
    d1 = ds.laplace_gp(50, 1, 0.0, 0.0, random_state=0)
    assert np.ptp(d1.f) == 0.0


# ---------------------------------------------------------------- other synthetic sets


def test_toy_jumps_has_gap_and_jumps():
    d = ds.toy_jumps_1d(2000, 0.1, random_state=0)
    x = d.X[:, 0]
    assert np.all((x >= 0) & (x <= 1)) and not np.any((x >= 0.6) & (x < 0.7))
    f = ds.toy_jumps_function
    for at, size in [(0.25, 1.2), (0.5, -1.8), (0.8, 1.0)]:
        assert f(at) - f(at - 1e-9) == pytest.approx(size, abs=1e-6)
    np.testing.assert_allclose(d.f, f(x))
    p = stats.kstest((d.y - d.f) / 0.1, "norm").pvalue
    assert p > 1e-3


@pytest.mark.parametrize("make", [ds.two_moons, ds.two_spirals, ds.xor_blobs])
def test_classification_sets_are_balanced_2d(make):
    d = make(400, random_state=0)
    assert d.task == "classification" and d.X.shape == (400, 2)
    assert set(np.unique(d.y)) == {0, 1}
    # both classes present in about equal numbers (binomial sd = 10 for xor)
    assert abs(np.sum(d.y) - 200) <= 4 * 10


def test_regression_surface():
    d = ds.regression_surface_2d(300, 0.0, random_state=0)
    np.testing.assert_allclose(d.y, ds.regression_surface_function(d.X))


# ---------------------------------------------------------------- real sets


@pytest.mark.parametrize("name, shape", [("diabetes", (442, 10)), ("gapminder", (1704, 2)),
                                         ("tips", (244, 2))])
def test_real_sets_load_offline_with_documented_shapes(name, shape):
    d = ds.load_bundled(name)
    assert d.X.shape == shape and d.y.shape == (shape[0],)
    assert np.all(np.isfinite(d.X)) and np.all(np.isfinite(d.y))
    assert d.standardized and len(d.feature_names) == shape[1] and d.target_name
    np.testing.assert_allclose(d.X.mean(0), 0, atol=1e-10)
    np.testing.assert_allclose(d.X.std(0), 1, rtol=1e-10)
    raw = ds.load_bundled(name, standardize=False)
    np.testing.assert_array_equal(raw.X, d.X_raw)
    np.testing.assert_array_equal(raw.y, d.y)
    assert "Real:" in d.description


def test_diabetes_raw_matches_sklearn():
    from sklearn.datasets import load_diabetes

    np.testing.assert_array_equal(ds.load_diabetes(False).X, load_diabetes(scaled=False).data)


def test_standardize_target_and_unknown_name():
    d = ds.load_tips().standardize(target=True)
    assert abs(d.y.mean()) < 1e-12 and d.y.std() == pytest.approx(1.0)
    np.testing.assert_array_equal(d.y_raw, ds.load_tips(False).y)
    with pytest.raises(InputError, match="diabetes"):
        ds.load_bundled("nope")


# ---------------------------------------------------------------- splits


def test_split_partitions_rows_reproducibly():
    d = ds.toy_jumps_1d(101, random_state=0)
    parts = ds.train_val_test_split(d, (0.6, 0.2, 0.2), random_state=1, return_indices=True)
    assert [p.size for p in parts] == [61, 20, 20]
    np.testing.assert_array_equal(np.sort(np.concatenate(parts)), np.arange(101))
    again = ds.train_val_test_split(d, (0.6, 0.2, 0.2), random_state=1, return_indices=True)
    for a, b in zip(parts, again):
        np.testing.assert_array_equal(a, b)
    tr, te = ds.train_val_test_split(d, (0.75, 0.25), random_state=2)
    assert tr.n_samples + te.n_samples == 101
    np.testing.assert_array_equal(np.sort(np.concatenate([tr.y, te.y])), np.sort(d.y))
    np.testing.assert_allclose(tr.f, ds.toy_jumps_function(tr.X[:, 0]))


@pytest.mark.parametrize("fractions", [(0.5, 0.6), (1.0,), (0.5, 0.5, 0.0), (0.2,) * 5])
def test_split_rejects_bad_fractions(fractions):
    with pytest.raises(InputError, match="fractions"):
        ds.train_val_test_split(ds.toy_jumps_1d(20, random_state=0), fractions)


# ---------------------------------------------------------------- CSV


def csv_bytes(n=20, sep=","):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 5, n),
                       "city": [f"c{i}" for i in range(n)], "y": rng.normal(size=n)})
    return df, df.to_csv(index=False, sep=sep).encode()


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_csv_round_trip_with_sniffed_delimiter(sep):
    df, data = csv_bytes(sep=sep)
    d, notices = ds.load_csv(data, ["a", "b"], "y")
    np.testing.assert_allclose(d.X, df[["a", "b"]].to_numpy(float), rtol=1e-12)
    np.testing.assert_allclose(d.y, df["y"].to_numpy(float), rtol=1e-12)
    assert d.feature_names == ("a", "b") and d.target_name == "y"
    assert any("'city'" in n for n in notices)  # text column listed


def test_csv_defaults_and_sources(tmp_path):
    df, data = csv_bytes()
    d, notices = ds.load_csv(io.BytesIO(data))
    assert d.feature_names == ("a", "b") and d.target_name == "y"
    assert any("last numeric column" in n for n in notices)
    path = tmp_path / "x.csv"
    path.write_bytes(data)
    d2, _ = ds.load_csv(path, standardize=True)
    np.testing.assert_allclose(d2.X.std(0), 1.0)
    np.testing.assert_allclose(d2.X_raw, d.X)
    table = ds.read_csv_table(data)
    assert table.numeric_columns == ("a", "b", "y") and table.text_columns == ("city",)


def test_csv_nan_inf_rows_are_counted_and_dropped():
    text = "x,y\n" + "".join(f"{i},{2 * i}\n" for i in range(12)) + "nan,1\n3,inf\n,4\n5,-inf\n"
    d, notices = ds.load_csv(text.encode())
    assert d.n_samples == 12
    assert any("Dropped 4 of 16 rows" in n for n in notices)


@pytest.mark.parametrize("data, kwargs, message", [
    (b"", {}, "empty"),
    (b"  \n\n ", {}, "empty"),
    (b"a,b\n" + b"1,2\n" * 20, dict(max_bytes=50), "larger than"),
    (b"a,b\n" + b"1,2\n" * 30, dict(max_rows=20), "more than 20 rows"),
    (b"a,b,a\n" + b"1,2,3\n" * 20, {}, "repeats 'a'"),
    (b"a,b\n" + "é,1\n".encode("latin-1") + b"1,2\n" * 20, {}, "not UTF-8"),
    (b"a,b\n1,\x002\n" + b"1,2\n" * 20, {}, "binary"),
    (b"abc\n" + b"1\n" * 20, {}, "only one column"),
    (b"a,b\n" + b"1,2\n" * 5, {}, "at least 10"),
    (b"a,b\n" + b"1,2\n" * 8 + b"nan,1\n" * 5, {}, "Only 8 complete rows"),
    (b"a,b,c\n" + b"1,2\n" * 12, {}, "'c' have no numeric values"),
    (b"a,b\n" + b"x,y\n" * 20, {}, "no numeric column"),
    (b"a,b\n" + b"1,2\n" * 10 + b"1,2,3,4\n" + b"1,2\n" * 10, {}, "as many fields"),
])
def test_csv_failure_modes(data, kwargs, message):
    with pytest.raises(InputError, match=message):
        ds.load_csv(data, **kwargs)


@pytest.mark.parametrize("features, target, message", [
    (["a", "city"], "y", r"'city' contain text.*'c0'"),
    (["a"], "city", "contain text"),
    (["a", "nope"], "y", "No feature column named 'nope'"),
    (["a", "y"], "y", "cannot also be a feature"),
    ([], "y", "at least one numeric feature"),
    (["a", "a"], "y", "only once"),
])
def test_csv_bad_column_choices(features, target, message):
    _, data = csv_bytes()
    with pytest.raises(InputError, match=message):
        ds.load_csv(data, features, target)


def test_csv_text_column_with_missing_marker_is_named():
    data = b"a,b,y\n" + b"1,2,3\n" * 12 + b"1,?,3\n"
    with pytest.raises(InputError, match=r"'b' has '\?'"):
        ds.load_csv(data, ["a", "b"], "y")


def _check_loaded(data: bytes):
    try:
        d, notices = ds.load_csv(data)
    except InputError as err:
        assert str(err)
        return
    assert d.n_samples >= ds.CSV_MIN_ROWS and d.n_features >= 1
    assert np.all(np.isfinite(d.X)) and np.all(np.isfinite(d.y))
    assert all(isinstance(n, str) for n in notices)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=600))
def test_arbitrary_bytes_give_input_error_or_valid_dataset(data):
    _check_loaded(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="0123456789.-e,;\t|\n\"' abnaif", max_size=400))
def test_csv_like_text_gives_input_error_or_valid_dataset(text):
    _check_loaded(text.encode())


def test_example_upload_file_loads_as_documented():
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "gapminder_2007.csv"
    d, notices = ds.load_csv(path)
    assert d.X.shape == (142, 2) and d.feature_names == ("gdpPercap", "pop")
    assert d.target_name == "lifeExp"
    assert any("'country', 'continent'" in n for n in notices)


CELLS = ["1", "2.5", "-3e2", "nan", "inf", "", "x", '"a,b"', "1e999", "True"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.sampled_from(CELLS), min_size=1, max_size=4), max_size=30),
       st.sampled_from([",", ";", "\t"]))
def test_table_shaped_text_gives_input_error_or_valid_dataset(rows, sep):
    _check_loaded("\n".join(sep.join(r) for r in rows).encode())


@pytest.mark.parametrize("name", DJ_SIGNALS)
def test_donoho_johnstone_stream_is_its_signal_plus_the_asked_noise(name):
    n, sigma = 2000, 0.5
    d = donoho_johnstone_1d(name, n=n, noise_std=sigma, random_state=11)
    assert d.X.shape == (n, 1) and d.y.shape == (n,) and d.f.shape == (n,)
    assert np.all((d.X >= 0) & (d.X <= 1)) and d.noise_std == sigma
    np.testing.assert_array_equal(d.f, donoho_johnstone(name, d.X[:, 0]))
    # n * sd_hat^2 / sigma^2 ~ chi2(n) (the mean is known): two-sided, Bonferroni over
    # the signals
    alpha = 1e-3 / len(DJ_SIGNALS)
    sd_hat = np.sqrt(np.mean((d.y - d.f) ** 2))
    low, high = sigma * np.sqrt(stats.chi2(n).ppf([alpha / 2, 1 - alpha / 2]) / n)
    assert low < sd_hat < high, (low, sd_hat, high)
    again, other = (donoho_johnstone_1d(name, n=n, noise_std=sigma, random_state=s)
                    for s in (11, 12))
    np.testing.assert_array_equal(again.X, d.X)
    np.testing.assert_array_equal(again.y, d.y)
    assert not np.array_equal(other.X, d.X)
    quiet = donoho_johnstone_1d(name, n=50, noise_std=0.0, random_state=0)
    np.testing.assert_array_equal(quiet.y, quiet.f)


def test_toy_jumps_stretched_to_a_width_are_the_same_draws():
    plain, wide = ds.toy_jumps_1d(40, 0.15, random_state=3), ds.toy_jumps_1d(
        40, 0.15, random_state=3, width=4.0)
    np.testing.assert_array_equal(wide.X, 4.0 * plain.X)
    np.testing.assert_array_equal(wide.y, plain.y)
    np.testing.assert_allclose(ds.toy_jumps_function(wide.X.ravel(), width=4.0), plain.f,
                               rtol=0, atol=1e-15)
    # the jumps move with the width: just below and at 4 * 0.25 the function jumps by 1.2
    below, at = ds.toy_jumps_function([1.0 - 1e-9, 1.0], width=4.0)
    assert at - below == pytest.approx(1.2, abs=1e-6)
    with pytest.raises(InputError, match="width"):
        ds.toy_jumps_1d(10, width=0.0)
