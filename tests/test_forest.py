"""Mondrian forests: smoothing against slow obvious computations, online == batch.

Statistical tests use fixed seeds and thresholds from the distributions
(KS p-values > 1e-3, means within 4 standard errors).
"""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from scipy import stats

from mondrian_core import InputError, MondrianForestClassifier, MondrianForestRegressor
from mondrian_core.forest import estimators, tree_store
from mondrian_core.forest.tree_store import (
    EXTEND,
    INSERT_ABOVE,
    NO_CHANGE,
    SPLIT_LEAF,
    TreeStore,
    expected_discount,
    truncated_exp_moments,
)


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 2))
    y = np.sin(5 * X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(n)
    return X, y


# ------------------------------------------------------------------ helpers


def test_truncated_exponential_moments_match_quadrature():
    for z in [1e-6, 1e-3, 0.3, 2.0, 40.0]:
        u = np.linspace(0, 1, 200_001)
        dens = z * np.exp(-z * u)
        dens /= np.trapezoid(dens, u)
        eu, eu2 = truncated_exp_moments(np.array([z]))
        assert eu[0] == pytest.approx(np.trapezoid(u * dens, u), rel=1e-6, abs=1e-9)
        assert eu2[0] == pytest.approx(np.trapezoid(u**2 * dens, u), rel=1e-6, abs=1e-9)
        w = 1.7
        ed = expected_discount(np.array([z]), np.array([w]))
        assert ed[0] == pytest.approx(np.trapezoid(np.exp(-w * u) * dens, u), rel=1e-6)


# ------------------------------------------------------------------ online trees


@pytest.mark.parametrize("one_by_one", [False, True])
@pytest.mark.parametrize("batches", [[80], [1, 3, 9, 27, 40]])
def test_online_tree_invariants(batches, one_by_one, monkeypatch):
    # every call through the batch path, or every point through TreeStore._extend_point
    monkeypatch.setattr(tree_store, "SEQUENTIAL_UPDATES", 10**9 if one_by_one else 0)
    X, y = _data(80)
    f = MondrianForestRegressor(n_estimators=5, lifetime=4.0, random_state=1)
    for a, b in zip(np.cumsum([0] + batches[:-1]), np.cumsum(batches)):
        f.partial_fit(X[a:b], y[a:b])
    a = f.trees_.arrays()
    for m in range(5):
        ids = np.flatnonzero(a["tree"] == m)
        leaves = ids[a["is_leaf"][ids]]
        # every point counted once in the leaves; root holds all points
        assert a["stats"][leaves, 0].sum() == len(X)
        assert a["stats"][a["roots"][m], 0] == len(X)
        inner = ids[~a["is_leaf"][ids]]
        for j in inner:
            left, r = a["left"][j], a["right"][j]
            # split times increase down the tree and stay below the lifetime
            assert a["birth"][j] < a["split_time"][j] < f.lifetime
            assert a["split_time"][j] < min(a["end"][left], a["end"][r]) + 1e-15
            d, loc = a["split_dim"][j], a["split_loc"][j]
            assert a["upper"][left, d] <= loc < a["lower"][r, d]      # the split separates
            np.testing.assert_allclose(a["stats"][j], a["stats"][left] + a["stats"][r])
            # a node's box is the bounding box of its children
            np.testing.assert_allclose(a["lower"][j], np.minimum(a["lower"][left], a["lower"][r]))
            np.testing.assert_allclose(a["upper"][j], np.maximum(a["upper"][left], a["upper"][r]))


def test_operations_are_the_three_of_the_slides():
    X, y = _data(200)
    f = MondrianForestRegressor(n_estimators=4, lifetime=6.0, random_state=2)
    f.partial_fit(X[:100], y[:100])
    # a call's points meet the trees as they were before it: the second batch meets
    # leaves and inner nodes, so all three operations occur
    n_before = f.trees_.n_nodes
    splits_before = np.bincount(f.trees_.tree[f.trees_.left >= 0], minlength=4)
    f.partial_fit(X[100:190], y[100:190])
    ops = f.last_operations_
    assert set(np.unique(ops)) <= {NO_CHANGE, EXTEND, INSERT_ABOVE, SPLIT_LEAF}
    for op in (EXTEND, INSERT_ABOVE, SPLIT_LEAF):
        assert np.any(ops == op)
    # one point is credited with each new split, the new nodes get the next ids
    splits_after = np.bincount(f.trees_.tree[f.trees_.left >= 0], minlength=4)
    np.testing.assert_array_equal(splits_after - splits_before,
                                  np.isin(ops, [INSERT_ABOVE, SPLIT_LEAF]).sum(axis=0))
    new = np.arange(n_before, f.trees_.n_nodes)
    assert (f.trees_.left[new] >= 0).sum() == (splits_after - splits_before).sum()
    # the node recorded for a split-off point is the one the split was inserted above
    a = f.trees_.arrays()
    for i, m in zip(*np.nonzero(np.isin(ops, [INSERT_ABOVE, SPLIT_LEAF]))):
        assert (ops[i, m] == SPLIT_LEAF) or not a["is_leaf"][f.last_operation_nodes_[i, m]]
    # a point inside an existing leaf's box changes nothing in the partition
    before = f.tree_summary()["n_leaves"].copy()
    a = f.trees_.arrays()
    leaf = np.flatnonzero(a["is_leaf"] & (a["tree"] == 0) & (a["stats"][:, 0] >= 2))[0]
    inside = (a["lower"][leaf] + a["upper"][leaf]) / 2
    f.partial_fit(inside[None, :], [0.0])
    assert f.last_operations_[0, 0] == NO_CHANGE
    assert f.tree_summary()["n_leaves"][0] == before[0]


def test_online_root_split_time_is_exponential_in_linear_dimension():
    """Theory: the root of a tree over X is cut at Exp(sum of X's ranges) (if < lifetime)."""
    X, y = _data(30, seed=3)
    f = MondrianForestRegressor(n_estimators=600, lifetime=50.0,
                                random_state=4).partial_fit(X, y)
    a = f.trees_.arrays()
    t = a["split_time"][a["roots"]]
    rate = np.ptp(X, axis=0).sum()
    assert np.all(np.isfinite(t))  # exp(-rate * 50) is negligible
    assert stats.kstest(t, stats.expon(scale=1 / rate).cdf).pvalue > 1e-3


def test_online_order_does_not_matter_in_distribution():
    X, y = _data(25, seed=5)
    perm = np.random.default_rng(0).permutation(len(X))
    f1 = MondrianForestRegressor(400, lifetime=3.0, random_state=6).partial_fit(X, y)
    f2 = MondrianForestRegressor(400, lifetime=3.0, random_state=7).partial_fit(X[perm], y[perm])
    s1, s2 = f1.tree_summary(), f2.tree_summary()
    for key in ("n_leaves", "max_depth"):
        assert stats.ks_2samp(s1[key], s2[key]).pvalue > 1e-3
    t1 = np.concatenate(s1["split_times"])
    t2 = np.concatenate(s2["split_times"])
    assert stats.ks_2samp(t1, t2).pvalue > 1e-3


def test_partial_fit_is_deterministic_for_a_seed():
    X, y = _data(40)
    p1 = MondrianForestRegressor(3, 2.0, random_state=9).partial_fit(X, y).predict(X)
    p2 = MondrianForestRegressor(3, 2.0, random_state=9).partial_fit(X, y).predict(X)
    np.testing.assert_array_equal(p1, p2)


# ------------------------------------------------------------------ regression smoothing


def test_factorised_leaf_values_are_per_tree_ridge():
    """smoothing='none': each leaf value minimises sum (y - w_leaf)^2 + (noise/prior) w^2."""
    X, y = _data(70)
    f = MondrianForestRegressor(4, 3.0, random_state=0, smoothing="none", noise_variance=0.2,
                                prior_variance=0.5).partial_fit(X, y)
    a = f.trees_.arrays()
    values = f.leaf_values()
    ratio = 0.2 / 0.5
    yc = y - y.mean()
    # slow obvious: route each training point to its leaf and solve each ridge alone
    for m in range(4):
        leaves = np.flatnonzero(a["is_leaf"] & (a["tree"] == m))
        which = _leaf_of(a, a["roots"][m], X)
        for leaf in leaves:
            sel = which == leaf
            # d/dw [sum (yc - w)^2 + ratio w^2] = 0
            w = yc[sel].sum() / (sel.sum() + ratio)
            assert values[leaf] == pytest.approx(w + y.mean(), abs=1e-12)
    # inside the data (no branching possible at training points) the forest
    # predicts the average of the trees' leaf values
    pred = f.predict(X)
    manual = np.mean([values[_leaf_of(a, a["roots"][m], X)] for m in range(4)], axis=0)
    np.testing.assert_allclose(pred, manual, atol=1e-12)


def _leaf_of(a, root, X):
    out = np.empty(len(X), dtype=int)
    for i, x in enumerate(X):
        j = root
        while a["left"][j] >= 0:
            j = a["left"][j] if x[a["split_dim"][j]] <= a["split_loc"][j] else a["right"][j]
        out[i] = j
    return out


def test_hierarchical_posterior_matches_dense_gaussian_process():
    """Belief propagation == the dense GP with Cov(mu_L, mu_L') = k * t(lowest common ancestor)."""
    X, y = _data(40, seed=11)
    noise, prior, lam = 0.05, 0.8, 3.0
    f = MondrianForestRegressor(2, lam, random_state=12, noise_variance=noise,
                                prior_variance=prior).partial_fit(X, y)
    a = f.trees_.arrays()
    post = f._node_posterior()
    kappa = prior / lam
    for m in range(2):
        leaf = _leaf_of(a, a["roots"][m], X)

        def ancestors(j):
            out = []
            while j >= 0:
                out.append(j)
                j = a["parent"][j]
            return out

        def cov(i, j):
            common = set(ancestors(i)) & set(ancestors(j))
            return kappa * max(a["end"][c] for c in common)

        leaves = np.unique(leaf)
        K = np.array([[cov(i, j) for j in leaf] for i in leaf])
        Kl = np.array([[cov(i, j) for j in leaf] for i in leaves])
        Kll = np.array([[cov(i, j) for j in leaves] for i in leaves])
        A = K + noise * np.eye(len(X))
        yc = y - y.mean()
        mean = Kl @ np.linalg.solve(A, yc)
        var = np.diag(Kll - Kl @ np.linalg.solve(A, Kl.T))
        np.testing.assert_allclose(post["E"][leaves], mean, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(post["V"][leaves], var, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("smoothing", ["hierarchical", "none"])
def test_closed_form_average_over_extensions_matches_monte_carlo(smoothing):
    """The closed form equals the average over sampled extensions (each by ``extend``)."""
    X, y = _data(30, seed=13)
    f = MondrianForestRegressor(1, 4.0, random_state=14, noise_variance=0.05,
                                prior_variance=1.0, smoothing=smoothing).partial_fit(X, y)
    x_new = np.array([[1.25, 0.4]])
    mean, std = f.predict(x_new, return_std=True)
    rng = np.random.default_rng(15)
    n = 4000
    samples_mean = np.empty(n)
    samples_second = np.empty(n)
    for s in range(n):
        g = copy.copy(f)
        g.trees_ = copy.deepcopy(f.trees_)
        g._memo = {}  # an empty memo: the posterior of the extended trees
        g.trees_.extend(x_new, np.zeros((1, 2)), rng)  # no data at x
        a = g.trees_.arrays()
        post = g._node_posterior()
        j = _leaf_of(a, a["roots"][0], x_new)[0]
        E, V = post["E"][j], post["V"][j]  # a new leaf without data: its prior given the tree
        samples_mean[s] = E + f.y_mean_
        samples_second[s] = V + E**2
    se = samples_mean.std() / math.sqrt(n)
    assert abs(samples_mean.mean() - mean[0]) < 4 * se + 1e-12
    var_mc = samples_second.mean() - (samples_mean.mean() - f.y_mean_) ** 2 + 0.05
    se2 = samples_second.std() / math.sqrt(n)
    assert abs(var_mc - std[0] ** 2) < 4 * se2 + 8 * se * abs(mean[0] - f.y_mean_) + 1e-12


@pytest.mark.parametrize("smoothing", ["hierarchical", "none"])
def test_predictive_std_grows_away_from_the_data(smoothing):
    X, y = _data(100, seed=16)
    f = MondrianForestRegressor(10, 5.0, random_state=17, noise_variance=0.01,
                                prior_variance=1.0, smoothing=smoothing).partial_fit(X, y)
    # walk out of the unit square to the right, along y = 0.5
    d = np.array([0.0, 0.1, 0.3, 1.0, 3.0])
    Xr = np.column_stack([X[:, 0].max() + d, np.full(d.size, 0.5)])
    _, std_out = f.predict(Xr, return_std=True)
    _, std_in = f.predict(X, return_std=True)
    # the chance of branching off grows with the distance, so does the std, up to about
    # the prior's level (the mixture of data and prior predictions may overshoot it a little)
    assert np.all(np.diff(std_out[:4]) > 0)
    assert std_in.mean() < std_out[1]
    _, std_f = f.predict(Xr, return_std=True, include_noise=False)
    np.testing.assert_allclose(std_f**2 + 0.01, std_out**2, rtol=1e-10)
    # far away every tree branches off at once: the prior plus the noise
    _, far = f.predict(np.array([[1e6, 0.5]]), return_std=True)
    assert far[0] == pytest.approx(math.sqrt(1.0 + 0.01), rel=1e-9)


# ------------------------------------------------------------------ classification


def _hand_tree():
    """One tree: root cut at t=0.5 (x0 <= 0.5); left leaf labels [2, 1], right leaf [0, 3]."""
    store = TreeStore.from_nodes(
        2.0, roots=[0], tree=[0, 0, 0], parent=[-1, 0, 0], left=[1, -1, -1],
        right=[2, -1, -1], split_time=[0.5, math.inf, math.inf], split_dim=[0, -1, -1],
        split_loc=[0.5, math.nan, math.nan],
        lower=[[0.0, 0.0], [0.0, 0.0], [0.6, 0.0]], upper=[[1.0, 1.0], [0.4, 1.0], [1.0, 1.0]],
        stats=[[2.0, 4.0], [2.0, 1.0], [0.0, 3.0]])
    clf = MondrianForestClassifier(n_estimators=1, lifetime=2.0, discount_rate=1.0)
    clf.classes_ = np.array([0, 1])
    clf.n_features_in_ = 2
    clf.trees_ = store
    return clf


@pytest.mark.parametrize("along_paths", [True, False])
def test_classifier_matches_hand_computed_kneser_ney(along_paths, monkeypatch):
    # few points: distributions along their paths only; or every node's first
    monkeypatch.setattr(estimators, "ALONG_PATHS", 10**9 if along_paths else 0)
    monkeypatch.setattr(estimators, "NODES_PER_PATH", 0)
    clf = _hand_tree()
    # root: counts = tables of the children = [1, 1] + [0, 1] = [1, 2]; tab = [1, 1]
    d_root = math.exp(-1.0 * (0.5 - 0.0))
    g_root = np.array([(1 - d_root) / 3 + d_root * 2 / 3 * 0.5,
                       (2 - d_root) / 3 + d_root * 2 / 3 * 0.5])
    d_leaf = math.exp(-1.0 * (2.0 - 0.5))
    g_left = np.array([(2 - d_leaf) / 3, (1 - d_leaf) / 3]) + d_leaf * 2 / 3 * g_root
    g_right = np.array([0.0, (3 - d_leaf) / 3]) + d_leaf * 1 / 3 * g_root
    P = clf.predict_proba(np.array([[0.2, 0.5], [0.8, 0.3]]))  # inside the leaves' boxes
    np.testing.assert_allclose(P[0], g_left, rtol=1e-12)
    np.testing.assert_allclose(P[1], g_right, rtol=1e-12)
    # a point in the gap (0.4, 0.6) cannot branch above the root (inside its box)
    # but may branch above a leaf: rate 0.1 over (0.5, 2) -> new leaf whose parent has
    # counts tab = [1, 1] and discount exp(-(t - 0.5)).
    x = np.array([[0.5, 0.5]])
    z = 0.1 * 1.5
    p_branch = 1 - math.exp(-z)
    u = np.linspace(0, 1, 400_001)
    dens = z * np.exp(-z * u) / (1 - math.exp(-z))
    e_d = np.trapezoid(np.exp(-1.5 * u) * dens, u)
    branch = (1 - e_d) * np.array([0.5, 0.5]) + e_d * g_root
    expected = p_branch * branch + (1 - p_branch) * g_left
    np.testing.assert_allclose(clf.predict_proba(x)[0], expected, rtol=1e-7)


def test_classifier_probabilities_sum_to_one_and_learn():
    X, _ = _data(300, seed=20)
    y = np.where(X[:, 0] > X[:, 1], "a", np.where(X[:, 0] > 0.8, "b", "c"))
    clf = MondrianForestClassifier(10, 6.0, random_state=21).partial_fit(X[:200], y[:200],
                                                                         classes=["a", "b", "c"])
    grid = np.random.default_rng(0).uniform(-1, 2, size=(500, 2))
    P = clf.predict_proba(grid)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(P >= 0)
    acc = np.mean(clf.predict(X[200:]) == y[200:])
    majority = max(np.mean(y[200:] == c) for c in "abc")
    assert acc > majority + 0.2
    # far away the prediction tends to the uniform prior
    np.testing.assert_allclose(clf.predict_proba([[1e6, 1e6]])[0], 1 / 3, atol=1e-6)


@pytest.mark.parametrize("discount_rate", [None, 3.0])
def test_classifier_along_paths_equals_the_whole_forest(discount_rate, monkeypatch):
    """A few points predicted after an update take the distributions along their paths
    only; the result is the whole-forest computation's (same steps, node for node)."""
    X, _ = _data(300, seed=22)
    y = np.where(X[:, 0] > X[:, 1], "a", np.where(X[:, 0] > 0.8, "b", "c"))
    clf = MondrianForestClassifier(6, 5.0, random_state=23, discount_rate=discount_rate)
    clf.fit(X[:150], y[:150]).partial_fit(X[150:160], y[150:160])
    points = np.vstack([X[160:200], [[-2.0, 0.5], [0.5, 3.0], [1e3, -1e3]]])  # some far out
    monkeypatch.setattr(estimators, "ALONG_PATHS", 10**9)
    monkeypatch.setattr(estimators, "NODES_PER_PATH", 0)
    along = clf.predict_proba(points)
    assert "distributions" not in clf._memo  # nothing kept: the next update changes it
    # the walk in several groups of trees (as for many points): each starts at its roots
    monkeypatch.setattr(tree_store, "_WALK_ENTRIES", 2 * len(points))
    grouped = clf.predict_proba(points)
    monkeypatch.setattr(estimators, "ALONG_PATHS", 0)
    whole = clf.predict_proba(points)
    assert "distributions" in clf._memo
    np.testing.assert_array_equal(along, whole)  # the same steps in the same order
    np.testing.assert_array_equal(grouped, whole)
    np.testing.assert_allclose(along.sum(axis=1), 1.0, atol=1e-12)


def test_classifier_requires_classes_first():
    with pytest.raises(InputError, match="classes"):
        MondrianForestClassifier().partial_fit([[0.0, 1.0]], [1])
    clf = MondrianForestClassifier(random_state=0).partial_fit([[0.0, 1.0]], [1], classes=[0, 1])
    with pytest.raises(InputError, match="not among classes"):
        clf.partial_fit([[0.0, 2.0]], [5])


def test_input_errors():
    with pytest.raises(InputError, match="lifetime"):
        MondrianForestRegressor(lifetime=-1).partial_fit([[0.0]], [0.0])
    with pytest.raises(InputError, match="features"):
        MondrianForestRegressor(random_state=0).partial_fit([[0.0, 1.0]], [0.0]).predict([[0.0]])
    with pytest.raises(InputError, match="NaN"):
        MondrianForestRegressor().partial_fit([[np.nan]], [0.0])


# ------------------------------------------------------------------ online == batch


def _summaries(f):
    s = f.tree_summary()
    a = f.trees_.arrays()
    root_time = np.minimum(a["split_time"][a["roots"]], f.lifetime)
    inner = a["left"] >= 0
    roots = a["roots"][a["left"][a["roots"]] >= 0]
    return {"n_leaves": s["n_leaves"], "max_depth": s["max_depth"], "root_time": root_time,
            "split_times": np.concatenate(s["split_times"]),
            # where the cuts fall: dimension (proportional to the box's extent) and place
            "split_dims": a["split_dim"][inner], "root_cut": a["split_loc"][roots]}


@pytest.mark.parametrize("how", ["online", "batch then online", "mini-batches",
                                 "point by point"])
def test_online_and_batch_trees_agree_in_distribution(how, monkeypatch):
    """Two-sample KS tests over 500 independent trees each (p > 1e-3 with fixed seeds)."""
    X, y = _data(30, seed=30)
    lam, M = 3.0, 500
    batch = MondrianForestRegressor(M, lam, random_state=31).fit(X, y)
    other = MondrianForestRegressor(M, lam, random_state=32)
    if how == "online":
        other.partial_fit(X, y)
    elif how == "mini-batches":  # groups split off together and single points
        for a, b in ((0, 1), (1, 8), (8, 9), (9, 20), (20, 30)):
            other.partial_fit(X[a:b], y[a:b])
    elif how == "point by point":  # one call per point, each through _extend_point
        monkeypatch.setattr(tree_store, "SEQUENTIAL_UPDATES", M)
        for i in range(len(X)):
            other.partial_fit(X[i:i + 1], y[i:i + 1])
    else:
        other.fit(X[:12], y[:12]).partial_fit(X[12:], y[12:])
    sb, so = _summaries(batch), _summaries(other)
    for key in sb:
        assert stats.ks_2samp(sb[key], so[key]).pvalue > 1e-3, key
    # and both agree with theory for the first cut of the root
    rate = np.ptp(X, axis=0).sum()
    for s in (sb, so):
        t = s["root_time"]
        cut = t < lam
        assert abs(cut.mean() - (1 - math.exp(-rate * lam))) < 4 * math.sqrt(
            math.exp(-rate * lam) * (1 - math.exp(-rate * lam)) / M) + 1e-12


def test_batch_fit_leaf_values_and_stats():
    X, y = _data(70, seed=33)
    f = MondrianForestRegressor(3, 3.0, random_state=34, smoothing="none", noise_variance=0.2,
                                prior_variance=0.5).fit(X, y)
    a = f.trees_.arrays()
    values = f.leaf_values()
    for m in range(3):
        which = _leaf_of(a, a["roots"][m], X)
        for leaf in np.unique(which):
            sel = which == leaf
            assert a["stats"][leaf, 0] == sel.sum()
            expected = (y[sel] - y.mean()).sum() / (sel.sum() + 0.4) + y.mean()
            assert values[leaf] == pytest.approx(expected, abs=1e-12)


def _slow_predict(f, x):
    """One point, tree by tree, node by node, with Python floats: the mixture over where x
    branches off (module docstring), from the same per-node coefficients."""
    a = f.trees_.arrays()
    post = f._node_posterior()
    means, seconds = [], []
    for root in a["roots"]:
        j, surv, mean, second = int(root), 1.0, 0.0, 0.0
        while True:
            rate = sum(max(lo - v, 0.0) + max(v - up, 0.0)
                       for lo, up, v in zip(a["lower"][j], a["upper"][j], x))
            z = rate * float(a["span"][j])
            pb = 1.0 - math.exp(-z)
            if z > 0:
                eu, eu2 = (float(v[0]) for v in truncated_exp_moments(np.array([z])))
                c = post["branch"][j]
                mean += surv * pb * (c[0] + c[1] * eu)
                second += surv * pb * (c[2] + c[3] * eu + c[4] * eu2)
            if a["left"][j] < 0:
                mean += surv * (1 - pb) * post["leaf"][j, 0]
                second += surv * (1 - pb) * post["leaf"][j, 1]
                break
            surv *= 1 - pb
            j = a["left"][j] if x[a["split_dim"][j]] <= a["split_loc"][j] else a["right"][j]
        means.append(mean)
        seconds.append(second)
    mu = float(np.mean(means))
    return mu + f.y_mean_, math.sqrt(max(np.mean(seconds) - mu**2, 0.0) + f._variances()[0])


@pytest.mark.parametrize("how", ["fit", "partial_fit"])
def test_vectorised_prediction_equals_a_walk_per_point(how):
    X, y = _data(150, seed=40)
    f = MondrianForestRegressor(6, 4.0, random_state=41)
    if how == "fit":
        f.fit(X, y)
    else:
        f.fit(X[:50], y[:50]).partial_fit(X[50:], y[50:])
    Xt = np.random.default_rng(42).uniform(-0.5, 1.5, size=(40, 2))
    mean, std = f.predict(Xt, return_std=True)
    slow = np.array([_slow_predict(f, x) for x in Xt])
    np.testing.assert_allclose(mean, slow[:, 0], rtol=0, atol=1e-10)
    np.testing.assert_allclose(std, slow[:, 1], rtol=0, atol=1e-10)


def test_memory_is_proportional_to_the_nodes():
    X, y = _data(400, seed=43)
    f = MondrianForestRegressor(8, 5.0, random_state=44).fit(X, y)
    store = f.trees_
    per_node = 8 * (5 + 2 + 2 * X.shape[1] + 2)  # 5 ints, 2 floats, box, [count, sum y]
    assert store.nbytes() == store.n_nodes * per_node + 8 * 8  # + roots; no per-point arrays
    f.partial_fit(X[:200] + 0.01, y[:200])
    assert store.nbytes() <= 2 * store.n_nodes * per_node + 8 * 8 + 16 * per_node


def test_fitted_forest_pickles_and_goes_on_learning_alike():
    import pickle

    X, y = _data(120, seed=45)
    f = MondrianForestRegressor(4, 4.0, random_state=46).fit(X[:60], y[:60])
    f.partial_fit(X[60:100], y[60:100])
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_array_equal(f.predict(X), g.predict(X))
    # the generator travels with the model: the same further growth
    f.partial_fit(X[100:], y[100:])
    g.partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(f.predict(X, return_std=True)[1],
                                  g.predict(X, return_std=True)[1])


def test_remembered_node_distributions_follow_changes():
    """Predictions reuse the node distributions until the trees or the discount change:
    after set_params they equal a forest fitted with the new discount from the start,
    and after partial_fit they include the new points."""
    X, y = _data(80, seed=40)
    labels = (y > np.median(y)).astype(int)
    f = MondrianForestClassifier(5, 3.0, random_state=41).fit(X, labels)
    first = f.predict_proba(X)
    np.testing.assert_array_equal(f.predict_proba(X), first)
    f.set_params(discount_rate=5.0)
    fresh = MondrianForestClassifier(5, 3.0, random_state=41, discount_rate=5.0).fit(X, labels)
    np.testing.assert_allclose(f.predict_proba(X), fresh.predict_proba(X), rtol=1e-12)
    assert not np.allclose(f.predict_proba(X), first)
    g = MondrianForestClassifier(5, 3.0, random_state=41).fit(X[:60], labels[:60])
    before = g.predict_proba(X)
    g.partial_fit(X[60:], labels[60:])
    assert g.predict_proba(X[60:]).shape == (20, 2)
    assert not np.allclose(g.predict_proba(X), before)
