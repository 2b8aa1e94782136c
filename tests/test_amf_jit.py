"""The compiled engine of the Aggregated Mondrian forests (numba) against the Python one.

The kernels (``mondrian_core.forest._amf_kernels``) repeat the Python path's steps with
the same arithmetic and the same random numbers in the same order, so on any stream of
calls (single points, predictions before learning, batches inserted one by one or by
the joint draw) the two engines grow the same store bit for bit; the weights and
predictions agree to rounding (the Python path sums a batch's charges in another
order). ``tests/test_amf.py`` runs its checks of the definitions on both engines.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import mondrian_core as mc
from mondrian_core.forest import _amf_jit, tree_store

STORE_FIELDS = ("tree", "parent", "left", "right", "split_dim", "split_loc", "split_time",
                "lower", "upper", "stats")

MODELS = {
    "classifier": lambda: mc.AMFClassifier(10, step=0.8, dirichlet=0.3, random_state=4),
    "classifier-split-pure": lambda: mc.AMFClassifier(6, split_pure=True, random_state=5),
    "classifier-3-labels": lambda: mc.AMFClassifier(4, random_state=6),
    "regressor": lambda: mc.AMFRegressor(10, step=0.5, random_state=7),
}
# single points predicted first (test-then-train), small batches, single points again;
# a batch of 400 rows for split_pure False: the Python engine inserts larger calls with
# every point in its own leaf by the joint draw (another random sequence with the same
# law, tests/test_amf.py), the compiled one always one by one
CALLS = [1, 1, "ttt", 3, 1, 40, "ttt", 7, 400, "ttt", 2, 49]
SEQUENTIAL_CALLS = [1, 1, "ttt", 3, 1, 40, "ttt", 7, 45, "ttt", 2, 49]


@pytest.fixture
def compiled():
    if _amf_jit.kernels() is None:
        pytest.skip("numba is not installed (or MONDRIAN_CORE_JIT=0)")


def stream(name, n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    X[10] = X[4]  # a repeated row
    if name == "regressor":
        return X, np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(n)
    K = 3 if name == "classifier-3-labels" else 2
    return X, np.minimum((X[:, 0] + X[:, 1] * 0.5 + 0.2 * rng.standard_normal(n)) * K / 1.5,
                         K - 1).clip(0).astype(int)


def grow(name, monkeypatch, python):
    """Feed the stream of CALLS; return the model and every prediction made."""
    with monkeypatch.context() as m:
        if python:
            m.setattr(_amf_jit, "_kernels", False)
        model = MODELS[name]()
        calls = CALLS if name in ("classifier", "classifier-3-labels") else SEQUENTIAL_CALLS
        assert all(c == "ttt" or c * model.n_estimators <= tree_store.SEQUENTIAL_UPDATES
                   for c in calls) or not getattr(model, "split_pure", True)
        n = sum(c if c != "ttt" else 20 for c in calls)
        X, y = stream(name, n)
        kw = {"classes": np.unique(y)} if name != "regressor" else {}
        out, i = [], 0
        for c in calls:
            if c == "ttt":  # 20 points: predict each, then learn it
                for _ in range(20):
                    if isinstance(model, mc.AMFClassifier):
                        out.append(model.predict_proba(X[i:i + 1]))
                    else:
                        out.append(model.predict(X[i:i + 1])[:, None])
                    model.partial_fit(X[i:i + 1], y[i:i + 1], **kw)
                    i += 1
                continue
            model.partial_fit(X[i:i + c], y[i:i + c], **kw)
            i += c
        T = np.random.default_rng(1).random((50, 3)) * 1.4 - 0.2
        final = model.predict_proba(T) if kw else model.predict(T)[:, None]
        out.append(final)
        return model, np.vstack(out)


@pytest.mark.parametrize("name", list(MODELS))
def test_compiled_engine_grows_the_python_engines_forest(name, monkeypatch, compiled):
    fast, fast_out = grow(name, monkeypatch, python=False)
    slow, slow_out = grow(name, monkeypatch, python=True)
    assert fast.trees_.n_nodes == slow.trees_.n_nodes > 60
    for f in STORE_FIELDS:
        np.testing.assert_array_equal(getattr(fast.trees_, f), getattr(slow.trees_, f), f)
    np.testing.assert_array_equal(fast.trees_.roots, slow.trees_.roots)
    for w in ("log_weight_", "log_weight_tree_"):
        np.testing.assert_allclose(getattr(fast, w), getattr(slow, w), rtol=1e-12,
                                   atol=1e-12)
    np.testing.assert_allclose(fast_out, slow_out, rtol=0, atol=1e-12)
    assert np.ptp(fast_out) > 0.1  # the predictions vary: a real comparison


def test_a_path_longer_than_the_buffer_widens_it(monkeypatch, compiled):
    """A call whose paths outgrow the kernel's path buffer stops before the row that
    would overflow it (changing nothing for that row) and goes on with a wider buffer:
    the same forest as with room to spare."""
    X, y = stream("regressor", 300)
    roomy = mc.AMFRegressor(5, random_state=2).partial_fit(X[:2], y[:2])
    tight = pickle.loads(pickle.dumps(roomy))
    tight._path_width = 3
    for i in range(2, 300, 50):  # 250 point-trees a call: one by one
        roomy.partial_fit(X[i:i + 50], y[i:i + 50])
        tight.partial_fit(X[i:i + 50], y[i:i + 50])
    assert tight._path_width > 8  # widened several times
    for f in STORE_FIELDS:
        np.testing.assert_array_equal(getattr(tight.trees_, f), getattr(roomy.trees_, f))
    np.testing.assert_array_equal(tight.log_weight_tree_, roomy.log_weight_tree_)


def test_a_pickled_forest_goes_on_as_the_original(compiled):
    """The kernels' draw blocks travel with the model: unpickled halfway, it learns the
    rest of the stream as the original does."""
    X, y = stream("classifier", 200)
    a = mc.AMFClassifier(5, random_state=3).partial_fit(X[:90], y[:90], classes=[0, 1])
    b = pickle.loads(pickle.dumps(a))
    for model in (a, b):
        for i in range(90, 200, 10):
            model.partial_fit(X[i:i + 10], y[i:i + 10])
    for f in STORE_FIELDS:
        np.testing.assert_array_equal(getattr(a.trees_, f), getattr(b.trees_, f))
    np.testing.assert_array_equal(a.log_weight_tree_, b.log_weight_tree_)


def test_an_index_out_of_range_raises_instead_of_writing_anywhere(compiled):
    """The kernels check their indices: a node id past the arrays (a bug, not an input:
    inputs are checked before) raises IndexError, not a write outside the arrays of a
    server that a class shares."""
    from mondrian_core.forest import _amf_kernels
    left = right = sdim = np.full(4, -1, dtype=np.int64)
    sloc = np.zeros(4)
    path = np.empty(8, dtype=np.int64)
    assert _amf_kernels.walk(np.zeros(2), 3, left, right, sdim, sloc, path) == 1
    with pytest.raises(IndexError):
        _amf_kernels.walk(np.zeros(2), 10, left, right, sdim, sloc, path)


def test_the_environment_turns_the_compiled_engine_off(monkeypatch):
    monkeypatch.setattr(_amf_jit, "_kernels", None)
    monkeypatch.setenv("MONDRIAN_CORE_JIT", "0")
    assert _amf_jit.kernels() is None
    X, y = stream("regressor", 30)
    model = mc.AMFRegressor(3, random_state=0).fit(X, y)  # learns on the Python path
    assert np.isfinite(model.predict(X)).all()
    assert model.trees_.n_nodes > 3  # it split, drawing its clocks ...
    np.testing.assert_array_equal(model._draws.left, [0, 0])  # ... none from the kernels'
    assert model.trees_._buffers.rng is model._rng  # but from the Python path's blocks


@pytest.fixture
def python_engine(monkeypatch):
    monkeypatch.setattr(_amf_jit, "_kernels", False)


@parametrize_with_checks([mc.AMFRegressor(5, random_state=0),
                          mc.AMFClassifier(5, random_state=0)])
def test_scikit_learn_check_on_the_python_engine(estimator, check, python_engine):
    check(estimator)
