"""The one validation layer, as tables: argument x entry point.

Each public entry point that takes a count, a lifetime, a random_state, points X or
targets y accepts exactly the values the rule of :mod:`mondrian_core._validation`
accepts and refuses the others with an InputError that says what to change.
"""
from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.base import clone
from sklearn.exceptions import DataConversionWarning

import mondrian_core as mc
from mondrian_core import InputError, kernel
from mondrian_core import datasets as ds
from mondrian_core.errors import InputTypeError
from mondrian_core.experiments.kernel_convergence import cumulative_kernels, kernel_error_curves
from tests.support import assert_actionable

RNG = np.random.default_rng(0)
X = RNG.random((30, 2)).astype(np.float32).astype(np.float64)  # exact in float32 too
Y = np.sin(4 * X[:, 0]) + X[:, 1]
LABELS = (Y > np.median(Y)).astype(int)
FCP = mc.FastClusterPartitions(5, max_level=2, random_state=0)
PRIOR = stats.loguniform(0.5, 20.0)


def refused(call) -> InputError | None:
    """The InputError of ``call`` (checked to be actionable), or None if it succeeded."""
    try:
        call()
    except InputError as err:
        assert_actionable(err)
        return err
    return None


# ------------------------------------------------------------------ counts

#: (value, accepted): integers (int or NumPy) >= 1; bool, floats (even whole), text refused.
COUNTS = [(3, True), (np.int64(3), True), (np.int32(3), True), (3.0, False),
          (np.float64(3.0), False), (True, False), ("3", False), (None, False),
          (math.nan, False), (0, False), (-2, False), (2.5, False)]

COUNT_ENTRY_POINTS = {
    "MondrianFeatures(n_trees)": lambda c: mc.MondrianFeatures(n_trees=c).fit(X),
    "RandomFourierFeatures(n_components)":
        lambda c: mc.RandomFourierFeatures(n_components=c).fit(X),
    "RandomBinningFeatures(n_grids)": lambda c: mc.RandomBinningFeatures(n_grids=c).fit(X),
    "MondrianForestRegressor(n_estimators)":
        lambda c: mc.MondrianForestRegressor(c).fit(X, Y),
    "MondrianForestClassifier(n_estimators)":
        lambda c: mc.MondrianForestClassifier(c).fit(X, LABELS),
    "FastClusterPartitions(n_partitions)": lambda c: mc.FastClusterPartitions(c).fit(X),
    "RandomForestPartitions(n_partitions)": lambda c: mc.RandomForestPartitions(c).fit(X, Y),
    "MondrianPartitions(n_partitions)": lambda c: mc.MondrianPartitions(c).fit(X),
    "PartitionKernelPCA(n_components)": lambda c: mc.PartitionKernelPCA(FCP, c).fit(X),
    "PartitionGP.sample_y(n_samples)":
        lambda c: mc.PartitionGP(FCP).fit(X, Y).sample_y(X[:3], c, random_state=0),
    "lifetime_path(n_trees)": lambda c: mc.lifetime_path(X, Y, None, None, 2.0, c),
    "sample_mondrian_trees(n_trees)": lambda c: mc.sample_mondrian_trees(X, c, 2.0),
    "first_cut_check(n_samples)": lambda c: mc.first_cut_check([0, 0], [1, 1], 1.0, c),
    "uniform_box(n)": lambda c: ds.uniform_box(c),
    "laplace_gp(n)": lambda c: ds.laplace_gp(c),
    "laplace_gp_sample(n_draws)": lambda c: ds.laplace_gp_sample(X, 2.0, n_draws=c),
    "kernel_error_curves(n_repeats)": lambda c: kernel_error_curves(X[:10], 2.0, [2], c),
    "laplace_lifetime_posterior(n_grid)":
        lambda c: mc.laplace_lifetime_posterior(X, Y, PRIOR, n_grid=c),
}


@pytest.mark.parametrize("value, accepted", COUNTS, ids=[repr(v) for v, _ in COUNTS])
@pytest.mark.parametrize("entry", COUNT_ENTRY_POINTS.values(), ids=COUNT_ENTRY_POINTS.keys())
def test_counts_get_the_same_acceptance_everywhere(entry, value, accepted):
    err = refused(lambda: entry(value))
    assert (err is None) == accepted, err


# ------------------------------------------------------------------ lifetimes

#: (value, accepted for lifetime >= 0, accepted for lifetime > 0): real numbers (int,
#: float, NumPy scalars), finite; text and bool refused.
LIFETIMES = [(2, True, True), (2.0, True, True), (np.float64(2.0), True, True),
             (np.float32(2.0), True, True), (np.int64(2), True, True), (0.0, True, False),
             ("2", False, False), (True, False, False), (None, False, False),
             (math.nan, False, False), (math.inf, False, False), (-1.0, False, False),
             (np.array(2.0), False, False)]

PATH = mc.lifetime_path(X, Y, None, None, 3.0, 3, random_state=0)

#: times where None means "the terminal lifetime"
NONE_IS_DEFAULT = {"MondrianFeatures.transform", "MondrianSample.cells(time)"}

LIFETIME_ENTRY_POINTS = {  # name: (call, lifetime must be > 0)
    "MondrianFeatures": (lambda v: mc.MondrianFeatures(v, 3).fit(X), False),
    "MondrianFeatures.transform": (
        lambda v: mc.MondrianFeatures(5.0, 3).fit(X).transform(X, lifetime=v), False),
    "RandomFourierFeatures": (lambda v: mc.RandomFourierFeatures(v, 5).fit(X), False),
    "RandomBinningFeatures": (lambda v: mc.RandomBinningFeatures(v, 5).fit(X), True),
    "MondrianForestRegressor": (lambda v: mc.MondrianForestRegressor(3, v).fit(X, Y), False),
    "MondrianForestClassifier": (
        lambda v: mc.MondrianForestClassifier(3, v).fit(X, LABELS), False),
    "MondrianPartitions": (lambda v: mc.MondrianPartitions(3, v).fit(X), False),
    "lifetime_path(terminal_lifetime)": (
        lambda v: mc.lifetime_path(X, Y, None, None, v, 3), True),
    "sample_mondrian_process": (lambda v: mc.sample_mondrian_process([0, 0], [1, 1], v), False),
    "MondrianSample.cells(time)": (
        lambda v: mc.sample_mondrian_process([0, 0], [1, 1], 5.0, 0).cells(v), False),
    "sample_mondrian_trees": (lambda v: mc.sample_mondrian_trees(X, 3, v), False),
    "first_cut_check": (lambda v: mc.first_cut_check([0, 0], [1, 1], v, 50), False),
    "laplace_kernel": (lambda v: mc.laplace_kernel(X, lifetime=v), False),
    "laplace_gp_sample": (lambda v: ds.laplace_gp_sample(X, v), False),
    "laplace_gp": (lambda v: ds.laplace_gp(20, lifetime=v), False),
    "LifetimePath.predict": (lambda v: PATH.predict(X, v), False),
}


@pytest.mark.parametrize("value, nonnegative_ok, positive_ok", LIFETIMES,
                         ids=[repr(v) for v, *_ in LIFETIMES])
@pytest.mark.parametrize("name", LIFETIME_ENTRY_POINTS)
def test_lifetimes_get_the_same_acceptance_everywhere(name, value, nonnegative_ok,
                                                      positive_ok):
    call, positive = LIFETIME_ENTRY_POINTS[name]
    accepted = positive_ok if positive else nonnegative_ok
    if value is None and name in NONE_IS_DEFAULT:
        accepted = True
    err = refused(lambda: call(value))
    assert (err is None) == accepted, err


# ------------------------------------------------------------------ random_state

RANDOM_STATES = {
    "None": (lambda: None, True), "int": (lambda: 7, True),
    "np.int64": (lambda: np.int64(7), True),
    "Generator": (lambda: np.random.default_rng(7), True),
    "RandomState": (lambda: np.random.RandomState(7), True),
    "negative": (lambda: -1, False), "text": (lambda: "seed", False),
    "float": (lambda: 1.5, False), "bool": (lambda: True, False),
}

SEEDED_ENTRY_POINTS = {
    "MondrianFeatures": lambda r: mc.MondrianFeatures(2.0, 3, r).fit(X).transform(X).toarray(),
    "RandomFourierFeatures": lambda r: mc.RandomFourierFeatures(2.0, 5, r).fit_transform(X),
    "RandomBinningFeatures":
        lambda r: mc.RandomBinningFeatures(2.0, 5, r).fit_transform(X).toarray(),
    "MondrianForestRegressor": lambda r: mc.MondrianForestRegressor(3, 2.0, r).fit(X, Y)
        .predict(X),
    "MondrianForestClassifier": lambda r: mc.MondrianForestClassifier(3, 2.0, r)
        .fit(X, LABELS).predict_proba(X),
    "FastClusterPartitions": lambda r: mc.FastClusterPartitions(5, random_state=r).fit(X)
        .labels(X),
    "RandomForestPartitions": lambda r: mc.RandomForestPartitions(5, random_state=r)
        .fit(X, Y).labels(X),
    "MondrianPartitions": lambda r: mc.MondrianPartitions(5, 2.0, r).fit(X).labels(X),
    "PartitionGP.sample_y": lambda r: mc.PartitionGP(FCP).fit(X, Y).sample_y(X[:3], 2, r),
    "lifetime_path": lambda r: mc.lifetime_path(X, Y, None, None, 2.0, 3, random_state=r)
        .train_rmse,
    "sample_mondrian_process": lambda r: mc.sample_mondrian_process([0, 0], [1, 1], 3.0, r)
        .cut_times,
    "sample_mondrian_trees": lambda r: mc.sample_mondrian_trees(X, 3, 2.0, r).split_time,
    "first_cut_check": lambda r: mc.first_cut_check([0, 0], [1, 1], 1.0, 20, r).times,
    "uniform_box": lambda r: ds.uniform_box(5, random_state=r).X,
    "laplace_gp": lambda r: ds.laplace_gp(5, random_state=r).y,
    "cumulative_kernels": lambda r: next(iter(cumulative_kernels(
        "Mondrian kernel", X, None, 2.0, [2], random_state=r)))[1],
}


@pytest.mark.parametrize("state", RANDOM_STATES.values(), ids=RANDOM_STATES.keys())
@pytest.mark.parametrize("entry", SEEDED_ENTRY_POINTS.values(), ids=SEEDED_ENTRY_POINTS.keys())
def test_random_state_gets_the_same_acceptance_everywhere(entry, state):
    make, accepted = state
    err = refused(lambda: entry(make()))
    assert (err is None) == accepted, err
    if accepted and make() is not None:  # the same seed (or RNG state) gives the same result
        np.testing.assert_array_equal(entry(make()), entry(make()))


def test_no_entry_point_touches_the_global_numpy_rng():
    # reading the legacy global state is the point of this test
    before = np.random.get_state()  # noqa: NPY002
    for entry in SEEDED_ENTRY_POINTS.values():
        for make, accepted in RANDOM_STATES.values():
            if accepted:
                entry(make())
    after = np.random.get_state()  # noqa: NPY002
    assert before[0] == after[0] and before[2:] == after[2:]
    np.testing.assert_array_equal(before[1], after[1])


def test_a_random_state_instance_advances_like_scikit_learns():
    """Two fits from one RandomState differ (its stream advances), and a RandomState in
    the same state gives the same fit again."""
    rs = np.random.RandomState(3)
    a = mc.RandomFourierFeatures(1.0, 5, rs).fit(X).random_weights_
    b = mc.RandomFourierFeatures(1.0, 5, rs).fit(X).random_weights_
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(
        a, mc.RandomFourierFeatures(1.0, 5, np.random.RandomState(3)).fit(X).random_weights_)


# ------------------------------------------------------------------ points X

#: name: (X, words of the message); None: accepted (the numbers are the same).
POINTS = {
    "object dtype of numbers": (X.astype(object), None),
    "list of lists": (X.tolist(), None),
    "float32": (X.astype(np.float32), None),
    "complex": (X + 1j, "Complex data not supported"),
    "text": (np.where(X > 0.5, "a", "b"), "numbers only"),
    "dicts": (np.array([[{"a": 1}, 2.0]] * 30, dtype=object), "numbers only"),
    "sparse": (sp.csr_matrix(X), "toarray"),
    "1-D": (X[:, 0], "Reshape your data"),
    "3-D": (X[None], "Found array with dim 3"),
    "no rows": (np.empty((0, 2)), "0 sample"),
    "no columns": (np.empty((30, 0)), "0 feature"),
    "NaN": (np.where(np.arange(60).reshape(30, 2) == 7, np.nan, X), "contains NaN"),
    "inf": (np.where(np.arange(60).reshape(30, 2) == 7, np.inf, X), "infinity"),
    "range overflows": (np.vstack([X[:-2], [[-1.5e308, 0], [1.5e308, 0]]]), "rescale"),
}

#: fit, then predict/transform on the same kind of points
DATA_ENTRY_POINTS = {
    "MondrianFeatures": (lambda A: mc.MondrianFeatures(2.0, 3, 0).fit(A),
                         lambda m, A: m.transform(A).toarray()),
    "MondrianFeatures.partial_fit": (
        lambda A: mc.MondrianFeatures(2.0, 3, 0).fit(A[:20]).partial_fit(A[20:]),
        lambda m, A: m.transform(A).toarray()),
    "RandomFourierFeatures": (lambda A: mc.RandomFourierFeatures(2.0, 5, 0).fit(A),
                              lambda m, A: m.transform(A)),
    "RandomBinningFeatures": (lambda A: mc.RandomBinningFeatures(2.0, 5, 0).fit(A),
                              lambda m, A: m.transform(A).toarray()),
    "MondrianForestRegressor": (lambda A: mc.MondrianForestRegressor(3, 2.0, 0).fit(A, Y),
                                lambda m, A: m.predict(A)),
    "MondrianForestClassifier": (
        lambda A: mc.MondrianForestClassifier(3, 2.0, 0).fit(A, LABELS),
        lambda m, A: m.predict_proba(A)),
    "FastClusterPartitions": (lambda A: mc.FastClusterPartitions(5, random_state=0).fit(A),
                              lambda m, A: m.labels(A)),
    "RandomForestPartitions": (
        lambda A: mc.RandomForestPartitions(5, random_state=0).fit(A, Y),
        lambda m, A: m.labels(A)),
    "MondrianPartitions": (lambda A: mc.MondrianPartitions(5, 2.0, 0).fit(A),
                           lambda m, A: m.labels(A)),
    "PartitionGP": (lambda A: mc.PartitionGP(FCP).fit(A, Y), lambda m, A: m.predict(A)),
    "PartitionKernelPCA": (lambda A: mc.PartitionKernelPCA(FCP).fit(A),
                           lambda m, A: m.transform(A)),
    "lifetime_path": (lambda A: mc.lifetime_path(A, Y, None, None, 2.0, 3, random_state=0),
                      lambda m, A: m.predict(A, 1.0)),
    "laplace_kernel": (lambda A: None, lambda m, A: mc.laplace_kernel(A, X[:3])),
    "laplace_gp_sample": (lambda A: None, lambda m, A: ds.laplace_gp_sample(A, 2.0, 1, 0)),
}

#: estimators that take sparse X (and give the dense answer)
SPARSE_OK = {"RandomFourierFeatures"}


@pytest.mark.parametrize("kind", POINTS)
@pytest.mark.parametrize("name", DATA_ENTRY_POINTS)
def test_points_get_the_same_acceptance_everywhere(name, kind):
    """Each kind of points is accepted (same answer as the float64 array) or refused
    (same words) both in fit and in predict/transform/labels."""
    fit, apply = DATA_ENTRY_POINTS[name]
    A, words = POINTS[kind]
    if kind == "sparse" and name in SPARSE_OK:
        words = None
    good = fit(X)
    want = apply(good, X)
    if words is None:
        # a sparse product sums in another order: equal to rounding (phases of size ~1e2)
        same = functools.partial(np.testing.assert_allclose, rtol=0,
                                 atol=1e-12 if kind == "sparse" else 0)
        if good is not None:
            same(apply(fit(A), X), want)
        same(apply(good, A), want)
        return
    calls = [lambda: apply(good, A)] + ([lambda: fit(A)] if good is not None else [])
    for call in calls:
        err = refused(call)
        assert err is not None and words in str(err), (kind, err)


def test_sparse_and_text_points_are_type_errors_too():
    """scikit-learn's convention (and Python's): a wrong type is a TypeError; ours is an
    InputError as well, so pages catch it with the other input errors."""
    with pytest.raises(InputTypeError, match="toarray"):
        mc.MondrianFeatures(1.0, 3).fit(sp.csr_matrix(X))
    with pytest.raises(TypeError, match="argument must be a string.* number"):
        mc.MondrianForestRegressor(3).fit(np.array([[{"a": 1}, 2.0]] * 30, dtype=object), Y)


# ------------------------------------------------------------------ targets y

TARGETS = {  # name: (y made from the targets t, regression words, classification words);
    #         None: accepted
    "column vector": (lambda t: t[:, None], None, None),
    "list": (lambda t: t.tolist(), None, None),
    "text": (lambda t: np.where(t > np.median(t), "big", "small"), "must hold numbers", None),
    "continuous": (lambda t: Y, None, "Unknown label type: continuous"),
    "two columns": (lambda t: np.column_stack([t, t]), "1d array", "1d array"),
    "NaN": (lambda t: np.where(np.arange(30) == 4, np.nan, t), "NaN", "NaN"),
    # (class labels stay as they are: any numbers are labels)
    "squares overflow": (lambda t: t * 1e200 if t.dtype.kind == "f" else t,
                         "too large to square", None),
    "too short": (lambda t: t[:-1], "29 values for 30 rows", "29 values for 30 rows"),
    "None": (lambda t: None, "requires y to be passed", "requires y to be passed"),
    "complex": (lambda t: t + 1j, "Complex data not supported", "Complex data not supported"),
}

SUPERVISED = {  # name: (fit, classifier)
    "MondrianForestRegressor": (lambda y: mc.MondrianForestRegressor(3, 2.0, 0).fit(X, y), False),
    "MondrianForestRegressor.partial_fit": (
        lambda y: mc.MondrianForestRegressor(3, 2.0, 0).partial_fit(X, y), False),
    "MondrianForestClassifier": (
        lambda y: mc.MondrianForestClassifier(3, 2.0, 0).fit(X, y), True),
    "PartitionGP": (lambda y: mc.PartitionGP(FCP).fit(X, y), False),
    "RandomForestPartitions": (lambda y: mc.RandomForestPartitions(5, random_state=0)
                               .fit(X, y), False),
    "lifetime_path": (lambda y: mc.lifetime_path(X, y, None, None, 2.0, 3), False),
    "laplace_lifetime_posterior": (lambda y: mc.laplace_lifetime_posterior(X, y, PRIOR), False),
}


@pytest.mark.parametrize("kind", TARGETS)
@pytest.mark.parametrize("name", SUPERVISED)
def test_targets_get_the_same_acceptance_everywhere(name, kind):
    fit, classifier = SUPERVISED[name]
    make, regression_words, class_words = TARGETS[kind]
    words = class_words if classifier else regression_words
    if kind == "squares overflow" and name == "RandomForestPartitions":
        words = None  # its forest's splits need no y @ y: finite targets are enough
    y = make(LABELS if classifier else Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataConversionWarning)
        err = refused(lambda: fit(y))
    if words is None:
        assert err is None, err
    else:
        assert err is not None and words in str(err), err


def test_a_column_vector_target_warns_as_in_scikit_learn():
    with pytest.warns(DataConversionWarning):
        mc.MondrianForestRegressor(3, 2.0, 0).fit(X, Y[:, None])


# ------------------------------------------------------------------ the adversarial run

def test_random_fourier_features_with_a_huge_lifetime_say_so_instead_of_nan():
    err = refused(lambda: mc.RandomFourierFeatures(1e308, 50, random_state=0).fit_transform(X))
    assert err is not None and "lifetime" in str(err)
    Z = mc.RandomFourierFeatures(1e5, 50, random_state=0).fit_transform(X)
    assert np.all(np.isfinite(Z))


@pytest.mark.parametrize("make, name", [
    (lambda n: mc.RandomFourierFeatures(1.0, n), "n_components"),
    (lambda n: mc.RandomBinningFeatures(1.0, n), "n_grids"),
])
def test_feature_counts_too_large_for_memory_are_refused_naming_one_that_fits(
        monkeypatch, make, name):
    err = refused(lambda: make(10**9).fit(X))
    assert err is not None and f"{name} of at most" in str(err)
    monkeypatch.setattr(kernel, "MAX_DENSE_ENTRIES", 3_000)  # small, to fit the named value
    err = refused(lambda: make(10**6).fit(X))
    best = int(str(err).split("at most ")[1].rstrip(".").replace(",", ""))
    assert make(best).fit(X) is not None
    assert refused(lambda: make(best + 1).fit(X)) is not None


def test_partition_gp_without_partitions_says_what_to_pass():
    gp = clone(mc.PartitionGP(None))  # cloning works: parameters are stored as given
    err = refused(lambda: gp.fit(X, Y))
    assert err is not None and "FastClusterPartitions()" in str(err)


def test_kernel_pca_is_a_transformer_of_new_points():
    kpca = mc.PartitionKernelPCA(mc.FastClusterPartitions(20, random_state=0), 2).fit(X)
    Z = kpca.transform(RNG.random((7, 2)))
    assert Z.shape == (7, 2) and np.all(np.isfinite(Z))


def test_clean_arrays_skip_no_check_that_matters():
    """A learner fed clean NumPy arrays skips scikit-learn's conversions, not the checks:
    NaN, another width, values too large, and plain arrays after a fit on named columns
    get what they got before."""
    import pandas as pd

    from mondrian_core import MondrianForestClassifier, MondrianForestRegressor

    rng = np.random.default_rng(0)
    X, y = rng.random((20, 3)), rng.random(20)
    f = MondrianForestRegressor(3, 2.0, random_state=0).partial_fit(X, y)
    bad = X[:1].copy()
    bad[0, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        f.partial_fit(bad, y[:1])
    with pytest.raises(InputError, match="features"):
        f.partial_fit(X[:1, :2], y[:1])
    with pytest.raises(InputError, match="NaN"):
        f.partial_fit(X[:1], np.array([np.nan]))
    with pytest.raises(InputError, match="(?i)complex"):
        f.partial_fit(X[:1], np.array([1 + 1j]))
    named = MondrianForestRegressor(3, 2.0, random_state=0).partial_fit(
        pd.DataFrame(X, columns=["a", "b", "c"]), y)
    with pytest.warns(UserWarning, match="feature names"):
        named.partial_fit(X[:1], y[:1])
    c = MondrianForestClassifier(3, 2.0, random_state=0).partial_fit(X, y > 0.5,
                                                                     classes=[False, True])
    with pytest.raises(InputError, match="not among classes"):
        c.partial_fit(X[:1], np.array([2]))
    lists = np.empty(1, dtype=object)
    lists[0] = [0, 1]  # unhashable: the set lookup of accepted labels gives way
    with pytest.raises(InputError, match="class labels"):
        c.partial_fit(X[:1], lists)
    with pytest.raises(InputError, match="classes"):
        MondrianForestClassifier(3, 2.0).partial_fit(X[:2], [0.5, 1.5], classes=[0.5, 1.5])
