"""scikit-learn conformance: every estimator passes ``check_estimator``'s checks.

No check is declared as an expected failure. Besides scikit-learn's own checks:
fitted estimators pickle and predict alike after unpickling, ``feature_names_in_``
is set when fitted on a DataFrame, and answers are the same from 8 threads at once
on one fitted model (the app shares cached models between sessions).
"""
from __future__ import annotations

import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

import mondrian_core as mc


def estimators():
    """One small instance of each estimator (the checks fit them many times)."""
    return [
        mc.MondrianFeatures(n_trees=5, random_state=0),
        mc.RandomFourierFeatures(n_components=10, random_state=0),
        mc.RandomBinningFeatures(n_grids=5, random_state=0),
        mc.MondrianForestRegressor(5, random_state=0),
        mc.MondrianForestClassifier(5, random_state=0),
        mc.DebiasedMondrianForestRegressor(n_estimators=5, debias_order=1, random_state=0),
        mc.AMFRegressor(5, random_state=0),
        mc.AMFClassifier(5, random_state=0),
        mc.PartitionGP(mc.FastClusterPartitions(10, random_state=0)),
        mc.PartitionGP(mc.MondrianPartitions(10, random_state=0)),
        mc.PartitionKernelPCA(mc.FastClusterPartitions(10, random_state=0)),
        mc.FastClusterPartitions(10, random_state=0),
        mc.RandomForestPartitions(10, random_state=0),
        mc.MondrianPartitions(10, random_state=0),
    ]


@parametrize_with_checks(estimators())
def test_scikit_learn_check(estimator, check):
    check(estimator)


RNG = np.random.default_rng(0)
X = RNG.random((60, 3))
Y = np.sin(4 * X[:, 0]) + X[:, 1]
LABELS = np.where(Y > np.median(Y), "high", "low")
X_NEW = RNG.random((40, 3)) * 1.4 - 0.2  # partly outside the fitted box: extensions


def fitted(estimator):
    """The estimator fitted on (X, y) with the target it needs."""
    if isinstance(estimator, (mc.MondrianForestClassifier, mc.AMFClassifier)):
        return estimator.fit(X, LABELS)
    return estimator.fit(X, Y)


def answer(estimator, X_in):
    """What a fitted estimator gives for new points, as a tuple of arrays."""
    if hasattr(estimator, "predict_proba"):
        return (estimator.predict_proba(X_in), estimator.predict(X_in))
    if isinstance(estimator, mc.AMFRegressor):
        return (estimator.predict(X_in),)
    if isinstance(estimator, (mc.MondrianForestRegressor, mc.PartitionGP)):
        return estimator.predict(X_in, return_std=True)
    if isinstance(estimator, mc.DebiasedMondrianForestRegressor):
        return (estimator.predict(X_in),) + estimator.confidence_interval(X_in)
    if hasattr(estimator, "transform"):
        Z = estimator.transform(X_in)
        return (Z.toarray() if sp.issparse(Z) else Z,)
    return (estimator.labels(X_in), estimator.kernel(X_in))


def ids(estimator):
    return type(estimator).__name__ + (
        f"({type(estimator.partitions).__name__})" if hasattr(estimator, "partitions") else "")


@pytest.mark.parametrize("estimator", estimators(), ids=ids)
def test_fitted_estimators_pickle_and_answer_the_same(estimator):
    model = fitted(estimator)
    copy = pickle.loads(pickle.dumps(model))
    for a, b in zip(answer(model, X_NEW), answer(copy, X_NEW), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("estimator", estimators(), ids=ids)
def test_eight_threads_at_once_get_the_serial_answers(estimator):
    """Eight threads call predict/transform on one fitted model, each on its own rows
    and on the shared rows, at the same time; each gets what a serial call gives.

    BLAS on one thread throughout, as a served app runs it
    (``pin_blas_threads_for_process``): OpenBLAS's limit is process-wide, so a thread
    leaving ``single_blas_thread`` can hand another, still inside, two BLAS threads,
    whose sums round otherwise (an ulp): a matter of BLAS, not of the model's state,
    which is what this test is about."""
    model = fitted(estimator)
    chunks = [X_NEW[i::8] for i in range(8)]
    # the serial answers on a copy, so the threads start from the fitted state alone
    serial_model = pickle.loads(pickle.dumps(model))
    with threadpool_limits(limits=1, user_api="blas"):
        _threads_get_the_serial_answers(model, serial_model, chunks)


def _threads_get_the_serial_answers(model, serial_model, chunks):
    serial = [answer(serial_model, c) for c in chunks]
    shared = answer(serial_model, X_NEW)
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            got = list(pool.map(lambda c: (answer(model, c), answer(model, X_NEW)), chunks))
            for (mine, everyone), want in zip(got, serial, strict=True):
                for a, b in zip(mine, want, strict=True):
                    np.testing.assert_array_equal(a, b)
                for a, b in zip(everyone, shared, strict=True):
                    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("estimator", estimators(), ids=ids)
def test_feature_names_are_kept_when_fitted_on_a_data_frame(estimator):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = estimator.fit(frame, LABELS if isinstance(
        estimator, (mc.MondrianForestClassifier, mc.AMFClassifier)) else Y)
    assert model.n_features_in_ == 3
    np.testing.assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
    with pytest.raises(mc.InputError, match="feature names"):
        answer(model, frame[["c", "b", "a"]])


def test_classifier_predict_before_fit_is_not_fitted_error():
    with pytest.raises(NotFittedError):
        mc.MondrianForestClassifier(3).predict(X)


def test_kernel_pca_transform_of_the_fitted_points_is_the_embedding():
    """transform projects on the fitted components: on the fitted points it gives the
    embedding u_k sqrt(lambda_k) (to the eigensolver's accuracy)."""
    kpca = mc.PartitionKernelPCA(mc.FastClusterPartitions(50, random_state=1), 3, tol=1e-12)
    E = kpca.fit_transform(X)
    np.testing.assert_allclose(kpca.transform(X), E, atol=1e-8)


def test_kernel_pca_transform_matches_the_dense_centred_kernel():
    """New points: sum_i alpha_ik k_c(x, x_i) with the dense partition kernel, centred on
    the fitted points, equals transform (exact arithmetic on the same labels)."""
    kpca = mc.PartitionKernelPCA(mc.MondrianPartitions(30, 3.0, random_state=2), 2,
                                 tol=1e-12).fit(X)
    parts = kpca.partitions_
    K = parts.kernel(X)                       # (N, N)
    Kx = parts.kernel(X_NEW, X)               # (n, N)
    row = K.mean(axis=0)
    Kc = Kx - Kx.mean(axis=1, keepdims=True) - row[None, :] + K.mean()
    np.testing.assert_allclose(kpca.transform(X_NEW), Kc @ kpca.dual_coef_, atol=1e-10)
