"""Aggregated Mondrian forests: the weights, the aggregation and the trees, checked
against slow obvious computations.

* the log-weights equal their definition (each node charged with the loss of every
  point that found it non-empty, from the points before it below the node), after a
  stream fed in calls of mixed sizes (one point, small batches, a batch of the
  level-wise insertion, repeated rows);
* each tree's prediction equals the posterior mixture over every pruning of the
  tree, enumerated, with the prior 2^-(nodes not leaves of the full tree), to 1e-12;
* where every point gets its own leaf, online trees have the batch Mondrian's
  distribution (infinite lifetime) whatever the order: the root cut falls in each gap
  between the sorted points with probability the gap's share (chi-square at fixed
  seeds); with ``split_pure=False`` the tree depends on the order.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import mondrian_core as mc
from mondrian_core.forest import _amf_jit, amf, tree_store


@pytest.fixture(params=["compiled", "python"], autouse=True)
def engine(request, monkeypatch):
    """Every test runs on both engines: the compiled per-point kernels (numba) and the
    Python path (without numba, or ``MONDRIAN_CORE_JIT=0``)."""
    if request.param == "python":
        monkeypatch.setattr(_amf_jit, "_kernels", False)
    elif _amf_jit.kernels() is None:
        pytest.skip("numba is not installed (or MONDRIAN_CORE_JIT=0)")
    return request.param


def leaf_path(model, tree, x):
    """The nodes from the root of ``tree`` to the leaf x falls in, by the splits."""
    s = model.trees_
    node, path = s.roots[tree], []
    while True:
        path.append(int(node))
        if s.left[node] < 0:
            return path
        node = s.left[node] if x[s.split_dim[node]] <= s.split_loc[node] else s.right[node]


def node_value(model, points_y):
    """A node's prediction from the targets/labels of its points (slow and obvious)."""
    if isinstance(model, mc.AMFClassifier):
        K, a = len(model.classes_), model.dirichlet
        counts = np.array([sum(1 for y in points_y if y == k) for k in range(K)], float)
        return (counts + a) / (len(points_y) + a * K)
    return np.array([np.mean(points_y)])


def node_loss(model, points_y, y):
    pred = node_value(model, points_y)
    if isinstance(model, mc.AMFClassifier):
        return -math.log(pred[y])
    return 0.5 * (pred[0] - y) ** 2


def defined_log_weights(model, X, y_code):
    """log w_v by the definition: -step x the losses of the points that reached v while
    it held points, each read from v's points before it."""
    s = model.trees_
    seen = {}  # node -> targets of its points so far
    lw = np.zeros(s.n_nodes)
    for x, y in zip(X, y_code, strict=True):
        for m in range(model.n_estimators):
            for v in leaf_path(model, m, x):
                before = seen.setdefault(v, [])
                if before:
                    lw[v] -= model.step * node_loss(model, before, y)
                before.append(y)
    return lw


def defined_log_weight_tree(model, lw):
    s = model.trees_
    out = np.zeros(s.n_nodes)

    def up(v):
        if s.left[v] < 0:
            out[v] = lw[v]
        else:
            up(s.left[v])
            up(s.right[v])
            out[v] = np.logaddexp(lw[v], out[s.left[v]] + out[s.right[v]]) - math.log(2)
    for r in s.roots:
        up(r)
    return out


def stream(kind, n, rng):
    X = rng.random((n, 2))
    X[7] = X[3]                      # a repeated point within one call
    X[n - 5] = X[n - 40]             # and within the big batch
    if kind == "classifier":
        y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0.5).astype(int)
    else:
        y = np.sin(5 * X[:, 0]) + 0.2 * rng.standard_normal(n)
    return X, y


MODELS = {
    "regressor": lambda: mc.AMFRegressor(3, step=0.7, random_state=1),
    "classifier": lambda: mc.AMFClassifier(3, step=0.8, dirichlet=0.3, random_state=1),
    "classifier-split-pure": lambda: mc.AMFClassifier(3, split_pure=True, random_state=1),
}
# one point, small batches (one by one inside the store), a batch of the level-wise
# insertion (>= 500 point-trees), then single points again
CALLS = [1, 1, 1, 9, 4, 1, 200, 1, 1, 30]


def fed(name):
    model = MODELS[name]()
    kind = "regressor" if name == "regressor" else "classifier"
    X, y = stream(kind, sum(CALLS), np.random.default_rng(3))
    i = 0
    for c in CALLS:
        kw = {"classes": [0, 1]} if kind == "classifier" else {}
        model.partial_fit(X[i:i + c], y[i:i + c], **kw)
        i += c
    return model, X, y


@pytest.mark.parametrize("walks", ["python", "arrays"])
@pytest.mark.parametrize("name", list(MODELS))
def test_log_weights_equal_their_definition(name, walks, monkeypatch):
    if walks == "arrays":  # the array code that calls for many (point, tree) pairs take
        monkeypatch.setattr(amf, "_SCALAR_WALKS", 0)
    model, X, y = fed(name)
    lw = defined_log_weights(model, X, y)
    np.testing.assert_allclose(model.log_weight_[:lw.size], lw, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(model.log_weight_tree_[:lw.size],
                               defined_log_weight_tree(model, lw), rtol=1e-12, atol=1e-9)
    assert np.count_nonzero(lw) > model.trees_.n_nodes // 4  # the charges happened


def prunings(s, v):
    """Every pruning of the subtree at v: (log prior, leaves)."""
    if s.left[v] < 0:
        return [(0.0, [v])]
    out = [(-math.log(2), [v])]
    for pl, ll in prunings(s, s.left[v]):
        for pr, lr in prunings(s, s.right[v]):
            out.append((-math.log(2) + pl + pr, ll + lr))
    return out


@pytest.mark.parametrize("walks", ["python", "arrays"])
@pytest.mark.parametrize("name", list(MODELS))
def test_prediction_is_the_mixture_over_every_pruning(name, walks, monkeypatch):
    if walks == "arrays":  # the level-by-level walk that larger calls take
        monkeypatch.setattr(amf, "_SCALAR_WALKS", 0)
    model = MODELS[name]().set_params(n_estimators=1)
    kind = "regressor" if name == "regressor" else "classifier"
    X, y = stream(kind, 40, np.random.default_rng(5))
    X, y = X[:9], y[:9]
    kw = {"classes": [0, 1]} if kind == "classifier" else {}
    model.partial_fit(X[:4], y[:4], **kw).partial_fit(X[4:], y[4:])
    s = model.trees_
    lw = defined_log_weights(model, X, y)
    every = prunings(s, s.roots[0])
    assert len(every) >= 5
    log_post = np.array([p + sum(lw[u] for u in leaves) for p, leaves in every])
    post = np.exp(log_post - log_post.max())
    post /= post.sum()
    members = {}  # node -> targets of its points
    for x, t in zip(X, y, strict=True):
        for v in leaf_path(model, 0, x):
            members.setdefault(v, []).append(t)
    T = np.random.default_rng(6).random((25, 2)) * 1.4 - 0.2
    want = []
    for x in T:
        path = leaf_path(model, 0, x)
        mix = 0.0
        for w, (_, leaves) in zip(post, every, strict=True):
            leaf = next(u for u in path if u in leaves)
            mix = mix + w * node_value(model, members[leaf])
        want.append(mix)
    want = np.array(want)
    got = model.predict_proba(T) if kind == "classifier" else model.predict(T)[:, None]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def root_gaps(model, points):
    """Which gap between the sorted 1-D points each tree's root cut falls in."""
    s = model.trees_
    loc = s.split_loc[s.roots]
    return np.searchsorted(np.sort(points), loc)  # gap g lies between points g-1 and g


POINTS = np.array([0.0, 0.1, 0.35, 0.45, 1.0])
GAP_SHARE = np.diff(POINTS) / (POINTS[-1] - POINTS[0])


@pytest.mark.parametrize("make", [
    lambda seed: mc.AMFRegressor(300, random_state=seed),
    lambda seed: mc.AMFClassifier(300, split_pure=True, random_state=seed),
], ids=["regressor", "classifier-split-pure"])
@pytest.mark.parametrize("order", [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 4, 0, 3, 1]],
                         ids=["sorted", "reversed", "mixed"])
@pytest.mark.parametrize("per_call", [1, 5], ids=["one-by-one", "one-batch"])
def test_online_trees_have_the_batch_mondrian_distribution(make, order, per_call):
    """The root cut of a Mondrian (infinite lifetime) of points on a line falls in each
    gap with probability the gap's share of the extent, and the root's cut time is
    Exp(extent): so for online trees, whatever the order and the batching."""
    gaps, times = [], []
    X = POINTS[order][:, None]
    y = np.array([0, 1, 0, 1, 1])[order]
    for seed in range(4):  # 1,200 trees
        model = make(seed)
        kw = {"classes": [0, 1]} if isinstance(model, mc.AMFClassifier) else {}
        for i in range(0, 5, per_call):
            model.partial_fit(X[i:i + per_call], y[i:i + per_call], **kw)
        s = model.trees_
        assert np.count_nonzero(s.left < 0) == 5 * model.n_estimators  # a leaf per point
        gaps.append(root_gaps(model, POINTS))
        times.append(s.split_time[s.roots])
    gaps, times = np.concatenate(gaps), np.concatenate(times)
    counts = np.bincount(gaps, minlength=5)[1:]
    assert counts.sum() == gaps.size
    chi2 = stats.chisquare(counts, GAP_SHARE * gaps.size)
    assert chi2.pvalue > 1e-3
    # Exp(1) times: the mean within 4 standard errors
    assert abs(times.mean() - 1.0) < 4.0 / math.sqrt(times.size)


def test_split_pure_false_depends_on_the_order():
    """With split_pure=False a point whose label is that of all the points of a node
    does not split it; a point of another label inside the node's box cannot split it
    either (it extends nothing). So a stream sorted by label, labels alternating along
    the line from label 0 at both ends, ends with one leaf per tree; shuffled, it
    splits."""
    x = np.linspace(0, 1, 41)[:, None]
    y = np.arange(41) % 2
    by_label = np.argsort(y, kind="stable")
    shuffled = np.random.default_rng(0).permutation(41)
    leaves = {}
    for name, order in (("by_label", by_label), ("shuffled", shuffled)):
        for pure in (False, True):
            model = mc.AMFClassifier(20, split_pure=pure, random_state=0)
            model.partial_fit(x[order], y[order], classes=[0, 1])
            leaves[name, pure] = np.count_nonzero(model.trees_.left < 0) / 20
    assert leaves["by_label", False] == 1.0
    assert leaves["shuffled", False] > 5
    assert leaves["by_label", True] == leaves["shuffled", True] == 41.0


def test_batches_and_single_points_give_the_same_weights_on_the_same_trees():
    """Feeding a stream in one call or point by point changes the trees' randomness but
    not the rule: both match the definition (checked above); here the predictions of
    both are close to each other on a smooth problem."""
    rng = np.random.default_rng(0)
    X = rng.random((400, 1))
    y = np.sin(6 * X[:, 0])
    one = mc.AMFRegressor(20, random_state=0).partial_fit(X, y)
    many = mc.AMFRegressor(20, random_state=0)
    for i in range(400):
        many.partial_fit(X[i:i + 1], y[i:i + 1])
    T = np.linspace(0.05, 0.95, 30)[:, None]
    assert np.abs(one.predict(T) - np.sin(6 * T[:, 0])).max() < 0.25
    assert np.abs(many.predict(T) - np.sin(6 * T[:, 0])).max() < 0.25


@pytest.mark.parametrize("call, match", [
    (lambda: mc.AMFClassifier().partial_fit([[0.0]], [0]), "classes"),
    (lambda: mc.AMFClassifier().partial_fit([[0.0]], [2], classes=[0, 1]), "not among"),
    (lambda: mc.AMFRegressor(step=0).fit([[0.0]], [0.0]), "step"),
    (lambda: mc.AMFClassifier(dirichlet=-1).fit([[0.0]], [0]), "dirichlet"),
    (lambda: mc.AMFClassifier(split_pure="no").fit([[0.0]], [0]), "split_pure"),
    (lambda: mc.AMFRegressor(n_estimators=0).fit([[0.0]], [0.0]), "n_estimators"),
    (lambda: mc.AMFRegressor().fit([[np.nan]], [0.0]), "NaN|finite"),
])
def test_bad_input_says_what_to_change(call, match):
    with pytest.raises(mc.InputError, match=match):
        call()


@pytest.mark.parametrize("row", [[0.5, np.nan], [0.5, -np.inf], [1e308, -1e308]],
                         ids=["nan", "inf", "range-overflows"])
def test_one_bad_row_is_refused_after_fitting(row):
    """A single row is checked in Python numbers once the forest is fitted (a stream's
    shortcut): NaN, an infinity and a range that overflows are still refused, by
    partial_fit and by predict."""
    X, y = stream("classifier", 20, np.random.default_rng(2))
    bad = np.array([row])
    for model, kw in ((mc.AMFClassifier(2, random_state=0), {"classes": [0, 1]}),
                      (mc.AMFRegressor(2, random_state=0), {})):
        model.partial_fit(X, y, **kw)
        with pytest.raises(mc.InputError, match="NaN|infinit|overflow"):
            model.partial_fit(bad, y[:1])
        with pytest.raises(mc.InputError, match="NaN|infinit|overflow"):
            model.predict(bad)
        assert model.n_seen_ == 20


@pytest.mark.parametrize("name", list(MODELS))
def test_fast_paths_grow_the_same_forest_as_the_plain_walks(name, monkeypatch):
    """The shortcuts change no draw: a partial_fit after a prediction at the same point
    reuses the prediction's walk, and rows inserted one by one take their paths from
    one walk of the whole call (walking a tree again where an earlier row split it);
    both give the forest, weights included, of plain walks with the same seed."""
    kind = "regressor" if name == "regressor" else "classifier"
    X, y = stream(kind, 120, np.random.default_rng(8))
    kw = {"classes": [0, 1]} if kind == "classifier" else {}

    def grow(reuse):
        model = MODELS[name]()
        model.partial_fit(X[:5], y[:5], **kw)
        model.partial_fit(X[5:60], y[5:60])  # 55 rows one by one: one walk first
        for i in range(60, 120):
            if reuse:
                model.predict(X[i:i + 1])
            model.partial_fit(X[i:i + 1], y[i:i + 1])
        return model

    fast = grow(True)
    monkeypatch.setattr(tree_store, "_PREWALK_ROWS", 10**9)
    plain = grow(False)
    for f in ("left", "right", "split_dim", "split_loc", "split_time", "lower", "upper",
              "stats"):
        np.testing.assert_array_equal(getattr(fast.trees_, f), getattr(plain.trees_, f))
    np.testing.assert_array_equal(fast.log_weight_tree_, plain.log_weight_tree_)


@pytest.mark.parametrize("name", list(MODELS))
def test_batch_insertion_grows_the_forest_of_one_point_per_call(name):
    """A call's rows inserted together (prewalked paths, the batch's charges and w̄ from
    the final trees) grow the forest that one point per call grows with the same seed,
    draw for draw: the same store arrays, and the same weights up to rounding (the
    batch sums a node's losses in another order). Calls here stay at most
    ``SEQUENTIAL_UPDATES`` point-trees, or take ``split_pure=False`` (always in order);
    larger calls with every point in its own leaf take the joint draw, another random
    sequence with the same law (test_online_trees_have_the_batch_mondrian_distribution)."""
    kind = "regressor" if name == "regressor" else "classifier"
    X, y = stream(kind, 300, np.random.default_rng(11))
    kw = {"classes": [0, 1]} if kind == "classifier" else {}
    if kind == "classifier":  # a row repeated in one call with the other label
        y[295] = 1 - y[260]
    calls = [1, 40, 100, 7, 152] if name != "classifier" else [1, 40, 7, 252]
    assert sum(calls) == 300
    assert all(c * 3 <= tree_store.SEQUENTIAL_UPDATES for c in calls) or name == "classifier"
    batched, single = MODELS[name](), MODELS[name]()
    i = 0
    for c in calls:
        batched.partial_fit(X[i:i + c], y[i:i + c], **kw)
        i += c
    for i in range(300):
        single.partial_fit(X[i:i + 1], y[i:i + 1], **kw)
    assert batched.trees_.n_nodes == single.trees_.n_nodes
    for f in ("tree", "parent", "left", "right", "split_dim", "split_loc", "split_time",
              "lower", "upper", "stats"):
        np.testing.assert_array_equal(getattr(batched.trees_, f), getattr(single.trees_, f))
    np.testing.assert_array_equal(batched.trees_.roots, single.trees_.roots)
    np.testing.assert_allclose(batched.log_weight_, single.log_weight_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(batched.log_weight_tree_, single.log_weight_tree_, rtol=1e-12,
                               atol=1e-12)
