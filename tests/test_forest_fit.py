"""``fit_forest`` (the lean path) against scikit-learn's own ``forest.fit``: the same
trees node for node, the same predictions, and the slow path where it does not apply."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

from mondrian_core._blas import single_blas_thread
from mondrian_core._forest_fit import fit_forest, predict_forest


def _data(seed, n=150, d=3, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    labels = np.array(["a", "b", "c"])[(X[:, 0] > 0) + (X[:, 1] > 1) * (classes - 2)]
    return X, labels, X[:, 0] ** 2 + rng.normal(size=n)


def _assert_same_forest(a, b, X_new):
    assert len(a.estimators_) == len(b.estimators_)
    for ta, tb in zip(a.estimators_, b.estimators_):
        assert ta.random_state == tb.random_state
        sa, sb = ta.tree_.__getstate__(), tb.tree_.__getstate__()
        assert sa.keys() == sb.keys()
        for key in sa:
            np.testing.assert_array_equal(np.asarray(sa[key]), np.asarray(sb[key]), key)
        assert sorted(vars(ta)) == sorted(vars(tb))
    assert sorted(vars(a)) == sorted(vars(b))
    np.testing.assert_array_equal(a.predict(X_new), b.predict(X_new))
    np.testing.assert_array_equal(predict_forest(b, X_new), a.predict(X_new))
    np.testing.assert_array_equal(a.apply(X_new), b.apply(X_new))
    if hasattr(a, "predict_proba"):
        np.testing.assert_array_equal(a.classes_, b.classes_)
        np.testing.assert_array_equal(a.predict_proba(X_new), b.predict_proba(X_new))


@pytest.mark.parametrize("cls, kwargs", [
    (RandomForestClassifier, {}),
    (ExtraTreesClassifier, {}),
    (RandomForestRegressor, {}),
    (ExtraTreesRegressor, {}),
    (RandomForestRegressor, dict(max_features=1 / 3, min_samples_leaf=3, n_jobs=1)),
    (RandomForestClassifier, dict(max_features=None, max_depth=4, min_samples_split=5)),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_same_forest_as_sklearn(cls, kwargs, seed):
    X, labels, target = _data(seed, classes=2 + seed)
    y = labels if hasattr(cls, "predict_proba") else target
    X_new = np.random.default_rng(seed + 100).normal(size=(40, X.shape[1]))
    a = cls(8, random_state=seed + 7, **kwargs).fit(X, y)
    b = fit_forest(cls(8, random_state=seed + 7, **kwargs), X, y)
    _assert_same_forest(a, b, X_new)
    # refitting the same object on more data (the online page's retrained baselines)
    X2, labels2, target2 = _data(seed + 50, n=220, classes=2 + seed)
    y2 = labels2 if hasattr(cls, "predict_proba") else target2
    _assert_same_forest(a.fit(X2, y2), fit_forest(b, X2, y2), X_new)


def test_random_state_object_drawn_as_fit_draws():
    X, _, y = _data(3)
    ra, rb = np.random.RandomState(5), np.random.RandomState(5)
    a = RandomForestRegressor(5, random_state=ra).fit(X, y)
    b = fit_forest(RandomForestRegressor(5, random_state=rb), X, y)
    _assert_same_forest(a, b, X[:10])
    assert ra.randint(1000) == rb.randint(1000)  # both generators left in the same state


def test_other_settings_take_sklearns_own_fit():
    X, _, y = _data(4)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    for forest, data in [(RandomForestRegressor(4, random_state=0, max_samples=0.5), X),
                         (RandomForestRegressor(4, random_state=0, ccp_alpha=0.1), X),
                         (RandomForestRegressor(4, random_state=0), X_nan)]:
        expected = RandomForestRegressor(**forest.get_params()).fit(data, y)
        _assert_same_forest(expected, fit_forest(forest, data, y), X[:10])


def test_an_unchecked_scikit_learn_release_takes_its_own_fit(monkeypatch):
    import mondrian_core._forest_fit as ff

    X, _, y = _data(4)
    forest = RandomForestRegressor(4, random_state=0)
    assert ff._lean_settings_ok(forest, X, y)
    monkeypatch.setattr(ff, "CHECKED_SKLEARN", ("0.0.",))
    assert not ff._lean_settings_ok(forest, X, y)
    calls = []
    monkeypatch.setattr(RandomForestRegressor, "fit",
                        lambda self, X, y: calls.append(1) or self)
    assert fit_forest(forest, X, y) is forest and calls == [1]


def test_bad_setting_raises_like_sklearn():
    X, _, y = _data(5)
    with pytest.raises(ValueError, match="max_features"):
        fit_forest(RandomForestRegressor(3, random_state=0, max_features="bad"), X, y)


def test_single_blas_thread_limits_and_restores():
    from threadpoolctl import threadpool_info
    before = [d["num_threads"] for d in threadpool_info() if d["user_api"] == "blas"]
    for _ in range(2):  # the kept controller, used again
        with single_blas_thread():
            assert all(d["num_threads"] == 1 for d in threadpool_info()
                       if d["user_api"] == "blas")
    assert [d["num_threads"] for d in threadpool_info() if d["user_api"] == "blas"] == before


def test_reseeded_generator_gives_randomstates_stream():
    from mondrian_core._forest_fit import _random_state
    bits = np.random.MT19937()
    for seed in (0, 1, 12345, 2**31 - 2):
        fresh = np.random.RandomState(seed)
        reused = _random_state(bits, seed)
        np.testing.assert_array_equal(fresh.randint(0, 1000, 50), reused.randint(0, 1000, 50))
        assert fresh.randint(0, 2**31 - 1) == reused.randint(0, 2**31 - 1)
        np.testing.assert_array_equal(fresh.normal(size=3), reused.normal(size=3))


def test_predict_forest_other_inputs_take_sklearns_predict():
    X, labels, _ = _data(6, classes=3)
    forest = fit_forest(RandomForestClassifier(4, random_state=0), X, labels)
    as_list = X[:5].tolist()
    np.testing.assert_array_equal(predict_forest(forest, as_list), forest.predict(as_list))
    with pytest.raises(ValueError):
        predict_forest(forest, X[:5, :2])  # too few features: sklearn's own message
