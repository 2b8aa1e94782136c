"""Online update of the lifetime path (``LifetimePath.partial_fit``) against a sweep from
scratch on the same extended trees (``lifetime_path_on_trees``), event by event."""
import dataclasses

import numpy as np
import pytest
from scipy import stats

from mondrian_core import InputError, lifetime_path, lifetime_path_on_trees, lifetime_posterior
from mondrian_core._sweep_online import first_detached_state, rows_per_node

S2N, S2P = 0.05, 0.7
# Both paths compute the same numbers by different sums (the update adds the new rows'
# n x n terms to the old path's numbers; the reference walks the enlarged systems): they
# agree to rounding, which the brief bounds by 1e-8.
TOL = 1e-8


def _data(rng, n, lo=0.0, hi=1.0, d=2):
    X = rng.uniform(lo, hi, size=(n, d))
    y = np.sin(5 * X[:, 0]) + X[:, -1] + 0.1 * rng.standard_normal(n)
    return X, y


def _reference(path):
    """The sweep from scratch on the updated path's trees, data and seed."""
    return lifetime_path_on_trees(path.trees, path.y_train, path.X_val, path.y_val,
                                  noise_variance=path.noise_variance,
                                  prior_variance=path.prior_variance,
                                  extension_seed=path.extension_seed)


def _first_detached(path, n_old):
    rows = np.arange(path.y_train.size) < n_old
    old = rows_per_node(path.trees, rows)
    new = (path.trees.stop - path.trees.start) - old
    return first_detached_state(path.trees, path.event_nodes, old, new)


def _assert_same_path(got, ref, X_pred):
    np.testing.assert_array_equal(got.event_nodes, ref.event_nodes)
    np.testing.assert_array_equal(got.event_nodes, got.trees.events())
    np.testing.assert_array_equal(got.lifetimes, ref.lifetimes)
    np.testing.assert_array_equal(got.n_features, ref.n_features)
    for name in ("train_rmse", "val_rmse", "log_marginal_likelihood"):
        np.testing.assert_allclose(getattr(got, name), getattr(ref, name), rtol=TOL, atol=0,
                                   err_msg=name)
    A, B = np.asarray(got.alphas), np.asarray(ref.alphas)
    np.testing.assert_allclose(A, B, rtol=0, atol=TOL * np.abs(B).max())
    T = got.terminal_lifetime
    for t in (0.0, 0.2 * T, 0.5 * T, T):
        mean, std = got.predict(X_pred, t, return_std=True)
        ref_mean, ref_std = ref.predict(X_pred, t, return_std=True)
        scale = max(1.0, np.abs(ref_mean).max())
        np.testing.assert_allclose(mean, ref_mean, rtol=0, atol=TOL * scale)
        np.testing.assert_allclose(std, ref_std, rtol=0, atol=TOL * max(1.0, ref_std.max()))


# (N old, n new, M trees, terminal lifetime, where the new points are)
# "inside": drawn like the old points, so some share an old leaf: every state is
# recomputed; "beyond": a box 3-4 units away, so they leave the old cells early and the
# later states are updated from the old path.
CASES = {
    "primal-inside": (70, 10, 4, 5.0, 0.0),
    "primal-beyond": (70, 10, 4, 3.0, 4.0),
    "dual-inside": (9, 4, 12, 8.0, 0.0),
    "dual-beyond": (9, 4, 12, 8.0, 3.0),
    "switch-beyond": (45, 8, 5, 9.0, 3.0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_update_equals_sweep_from_scratch_on_the_same_trees(case):
    N, n, M, T, shift = CASES[case]
    rng = np.random.default_rng(sorted(CASES).index(case))
    X, y = _data(rng, N)
    Xv, yv = _data(rng, 20, -0.1, 1.1)
    Xn, yn = _data(rng, n, shift, shift + 1.0)
    path = lifetime_path(X, y, Xv, yv, terminal_lifetime=T, n_trees=M, noise_variance=S2N,
                         prior_variance=S2P, random_state=3)
    before = path.log_marginal_likelihood.copy()
    timings = {}
    new = path.partial_fit(Xn, yn, random_state=5, timings=timings)
    ref = _reference(new)
    # the regime the case is named for is the one exercised
    E = new.event_nodes.size
    n_primal = ref.alphas.n_primal
    if case.startswith("primal"):
        assert n_primal == E + 1
    elif case.startswith("dual"):
        assert n_primal <= 1
    else:
        assert 1 < n_primal < E
    first = _first_detached(new, N)
    if shift:
        assert first < E / 2 and "update detached" in timings
    else:
        assert first == E + 1 and "update detached" not in timings
    _assert_same_path(new, ref, np.vstack([Xv, Xn, X[:5]]))
    assert new.y_train.size == N + n and np.array_equal(new.X_train[:N], X)
    np.testing.assert_array_equal(path.log_marginal_likelihood, before)  # old path untouched


def test_several_updates_in_a_row():
    rng = np.random.default_rng(11)
    X, y = _data(rng, 50)
    Xv, yv = _data(rng, 15, -0.2, 1.2)
    path = lifetime_path(X, y, Xv, yv, terminal_lifetime=6.0, n_trees=5, noise_variance=S2N,
                         prior_variance=S2P, random_state=0)
    batches = [_data(rng, 6, 3.0, 4.0), _data(rng, 5, -4.0, -3.0), _data(rng, 7, 0.0, 1.0)]
    for i, (Xn, yn) in enumerate(batches):
        path = path.partial_fit(Xn, yn, random_state=i)
    assert path.y_train.size == 50 + 18
    _assert_same_path(path, _reference(path), np.vstack([Xv] + [b[0] for b in batches]))


def test_lifetime_posterior_of_the_updated_path_equals_the_reference():
    """The updated path feeds the lifetime posterior (Supplement B) like a fresh one."""
    rng = np.random.default_rng(4)
    X, y = _data(rng, 40)
    Xn, yn = _data(rng, 6, 3.0, 4.0)
    path = lifetime_path(X, y, terminal_lifetime=6.0, n_trees=4, noise_variance=S2N,
                         prior_variance=S2P, random_state=2)
    new = path.partial_fit(Xn, yn, random_state=3)
    prior = stats.gamma(2.0, scale=1.5)
    got, ref = lifetime_posterior(new, prior), lifetime_posterior(_reference(new), prior)
    np.testing.assert_allclose(got.interval_mass, ref.interval_mass, rtol=0, atol=TOL)
    np.testing.assert_allclose(got.mean, ref.mean, rtol=TOL)
    Xq = np.vstack([X[:4], Xn[:3]])
    for a, b in zip(got.predict(Xq, return_std=True), ref.predict(Xq, return_std=True)):
        np.testing.assert_allclose(a, b, rtol=0, atol=TOL * max(1.0, np.abs(b).max()))


def test_targets_are_used_as_given_not_centred():
    """The sweep has a zero prior mean and does not centre y: new targets far from the old
    mean change no old number through a mean, and the update stays exact."""
    rng = np.random.default_rng(2)
    X, y = _data(rng, 40)
    Xn, yn = _data(rng, 6, 3.0, 4.0)
    path = lifetime_path(X, y, terminal_lifetime=4.0, n_trees=4, noise_variance=S2N,
                         prior_variance=S2P, random_state=1)
    new = path.partial_fit(Xn, yn + 25.0, random_state=0)
    np.testing.assert_array_equal(new.y_train[40:], yn + 25.0)
    _assert_same_path(new, _reference(new), np.vstack([X[:5], Xn]))


def test_sweep_on_trees_reproduces_lifetime_path_and_the_dense_formulas():
    """The reference entry point: on lifetime_path's own trees it is lifetime_path, and on
    extended trees (nodes inserted above old ones) it matches N x N dense formulas."""
    rng = np.random.default_rng(5)
    X, y = _data(rng, 30)
    Xv, yv = _data(rng, 10)
    path = lifetime_path(X, y, Xv, yv, terminal_lifetime=5.0, n_trees=3, noise_variance=S2N,
                         prior_variance=S2P, random_state=4)
    again = _reference(path)
    np.testing.assert_array_equal(again.lifetimes, path.lifetimes)
    # block sizes are measured while sweeping, so two runs may sum in other orders
    for name in ("train_rmse", "val_rmse", "log_marginal_likelihood"):
        np.testing.assert_allclose(getattr(again, name), getattr(path, name), rtol=1e-12)
    Xn, yn = _data(rng, 8, -0.5, 1.5)
    trees = path.trees.extended(Xn, random_state=9)
    yy = np.r_[y, yn]
    ref = lifetime_path_on_trees(trees, yy, noise_variance=S2N, prior_variance=S2P)
    for c, t in enumerate(ref.lifetimes):
        nodes = trees.nodes_at(t)
        K = (nodes[:, :, None] == nodes[:, None, :]).sum(0) / trees.n_trees
        S = S2P * K + S2N * np.eye(yy.size)
        alpha = np.linalg.solve(S, yy)
        lml = (-0.5 * yy @ alpha - 0.5 * np.linalg.slogdet(S)[1]
               - 0.5 * yy.size * np.log(2 * np.pi))
        np.testing.assert_allclose(ref.log_marginal_likelihood[c], lml, rtol=1e-10)
        np.testing.assert_allclose(ref.alphas[c], alpha, rtol=0, atol=1e-9 * np.abs(alpha).max())


def test_bad_input_is_refused():
    rng = np.random.default_rng(0)
    X, y = _data(rng, 20)
    path = lifetime_path(X, y, terminal_lifetime=2.0, n_trees=2, random_state=0)
    Xn, yn = _data(rng, 3)
    with pytest.raises(InputError, match="X_new"):
        path.partial_fit(np.ones((3, 5)), yn)
    with pytest.raises(InputError, match="y_new"):
        path.partial_fit(Xn, yn[:-1])
    with pytest.raises(InputError, match="X_new"):
        path.partial_fit(np.where(np.eye(3, 2) > 0, np.nan, Xn), yn)
    with pytest.raises(InputError, match="y_new"):
        path.partial_fit(Xn, [1.0, np.inf, 0.0])
    with pytest.raises(InputError, match="random_state"):
        path.partial_fit(Xn, yn, random_state="seed")
    with pytest.raises(InputError, match="made by lifetime_path"):
        dataclasses.replace(path, alphas=np.asarray(path.alphas)).partial_fit(Xn, yn)
    with pytest.raises(InputError, match="MondrianTrees"):
        lifetime_path_on_trees(X, y)
    with pytest.raises(InputError, match="y_train"):
        lifetime_path_on_trees(path.trees, y[:-1])
    with pytest.raises(InputError, match="noise_variance"):
        lifetime_path_on_trees(path.trees, y, noise_variance=0.0)
    with pytest.raises(InputError, match="extension_seed"):
        lifetime_path_on_trees(path.trees, y, extension_seed=-1)


@pytest.mark.parametrize("kind", ["far", "copies", "one"])
def test_hostile_new_points_still_match_the_reference(kind):
    """A point 1e300 away (detached at once), copies of old points (never detached) and a
    single point: the update stays exact."""
    rng = np.random.default_rng(7)
    X, y = _data(rng, 30)
    Xv, yv = _data(rng, 8)
    path = lifetime_path(X, y, Xv, yv, terminal_lifetime=4.0, n_trees=4, noise_variance=S2N,
                         prior_variance=S2P, random_state=0)
    Xn, yn = {"far": (np.array([[1e300, 0.5], [0.5, 0.5]]), np.array([1.0, 0.3])),
              "copies": (X[:4], y[:4] + 0.1),
              "one": (np.array([[0.3, 0.6]]), np.array([0.2]))}[kind]
    new = path.partial_fit(Xn, yn, random_state=1)
    _assert_same_path(new, _reference(new), np.vstack([Xv, X[:3]]))
