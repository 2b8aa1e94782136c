"""The exact lifetime sweep against slow, obvious dense formulas (Balog et al. 2016, Sec. 4)."""
import numpy as np
import pytest

from mondrian_core import InputError, MondrianFeatures, lifetime_path
from mondrian_core.sweep import place_points

S2N, S2P = 0.05, 0.7


def _data(n=70, n_val=25, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    y = np.sin(5 * X[:, 0]) + X[:, -1] + 0.1 * rng.standard_normal(n)
    Xv = rng.uniform(-0.1, 1.1, size=(n_val, d))  # some outside the training box
    yv = np.sin(5 * Xv[:, 0]) + Xv[:, -1]
    return X, y, Xv, yv


def _dense(path, t, Xv=None):
    """alpha, log p(y | t) and validation predictions from N x N matrices."""
    M = path.trees.n_trees
    nodes = path.trees.nodes_at(t)
    K = (nodes[:, :, None] == nodes[:, None, :]).sum(0) / M
    S = path.prior_variance * K + path.noise_variance * np.eye(K.shape[0])
    y = path.y_train
    alpha = np.linalg.solve(S, y)
    lml = -0.5 * y @ alpha - 0.5 * np.linalg.slogdet(S)[1] - 0.5 * y.size * np.log(2 * np.pi)
    out = [alpha, lml]
    if Xv is not None:
        vn, alive = path.place(Xv).at(t)
        Kv = ((vn[:, :, None] == nodes[:, None, :]) & alive[:, :, None]).sum(0) / M
        out.append(path.prior_variance * Kv @ alpha)
    return out


@pytest.mark.parametrize("block_size", [1, 3, None])
def test_every_event_matches_dense_formulas(block_size):
    X, y, Xv, yv = _data()
    path = lifetime_path(X, y, Xv, yv, terminal_lifetime=5.0, n_trees=4, noise_variance=S2N,
                         prior_variance=S2P, random_state=3, block_size=block_size)
    assert path.lifetimes.size > 20 and path.lifetimes[0] == 0.0
    assert np.all(np.diff(path.lifetimes) > 0)
    for c, t in enumerate(path.lifetimes):
        alpha, lml, fv = _dense(path, t, Xv)
        np.testing.assert_allclose(path.log_marginal_likelihood[c], lml, rtol=1e-10)
        np.testing.assert_allclose(path.alphas[c], alpha, rtol=1e-8, atol=1e-10 * np.abs(alpha).max())
        train_rmse = np.sqrt(np.mean((y - (y - S2N * alpha)) ** 2))
        np.testing.assert_allclose(path.train_rmse[c], train_rmse, rtol=1e-9)
        np.testing.assert_allclose(path.val_rmse[c], np.sqrt(np.mean((fv - yv) ** 2)), rtol=1e-9)


def test_predict_equals_fresh_ridge_on_mondrian_features():
    X, y, Xv, _ = _data(n=90, seed=1)
    T, M, seed = 4.0, 6, 11
    path = lifetime_path(X, y, terminal_lifetime=T, n_trees=M, noise_variance=S2N,
                         prior_variance=S2P, random_state=seed)
    mf = MondrianFeatures(lifetime=T, n_trees=M, random_state=seed).fit(X)
    for t in [0.0, 0.3, 1.1, 2.5, T]:
        Phi = mf.transform(X, lifetime=t).toarray()
        assert path.n_features[path.index(t)] == Phi.shape[1]
        # ridge = posterior mean: w = (Phi^T Phi + s2n/s2p I)^{-1} Phi^T y
        w = np.linalg.solve(Phi.T @ Phi + S2N / S2P * np.eye(Phi.shape[1]), Phi.T @ y)
        fresh = Phi @ w
        got = path.predict(X, t)
        np.testing.assert_allclose(got, fresh, rtol=1e-8, atol=1e-8 * np.abs(fresh).max())
        # the same features in the same column order, hence the same weights
        _, coef = path.coef(t)
        np.testing.assert_allclose(coef, w, rtol=1e-8, atol=1e-8 * np.abs(w).max())
        # new points: each placed by its own conditional-Mondrian extension
        # (MondrianTrees.apply, the same clocks; cells of branched-off points hold no
        # training point, so their weight is 0)
        nodes, branched = mf.trees_.apply(Xv, time=t, random_state=mf.extension_seed_)
        col, _ = mf._column_of_node(t)
        Phi_new = np.where(branched, 0.0, 1.0 / np.sqrt(M)).T[:, :, None] * (
            col[nodes.T][:, :, None] == np.arange(Phi.shape[1])).astype(float)
        fresh_new = Phi_new.sum(axis=1) @ w
        np.testing.assert_allclose(path.predict(Xv, t), fresh_new, rtol=1e-8,
                                   atol=1e-8 * np.abs(fresh).max())


def test_predict_at_new_points_matches_dense_kernel_and_std():
    X, y, Xv, _ = _data(n=50, seed=2)
    path = lifetime_path(X, y, terminal_lifetime=3.0, n_trees=5, noise_variance=S2N,
                         prior_variance=S2P, random_state=4)
    t = 1.7
    mean, std = path.predict(Xv, t, return_std=True)
    c = path.index(t)
    nodes = path.trees.nodes_at(path.lifetimes[c])
    vn, alive = path.place(Xv).at(path.lifetimes[c])
    M = path.trees.n_trees
    K = (nodes[:, :, None] == nodes[:, None, :]).sum(0) / M
    Kv = ((vn[:, :, None] == nodes[:, None, :]) & alive[:, :, None]).sum(0) / M
    S = S2P * K + S2N * np.eye(len(y))
    np.testing.assert_allclose(mean, S2P * Kv @ np.linalg.solve(S, y), rtol=1e-9, atol=1e-12)
    var = S2P - S2P ** 2 * np.einsum("ij,ji->i", Kv, np.linalg.solve(S, Kv.T))
    np.testing.assert_allclose(std, np.sqrt(var), rtol=1e-8)
    # the same seed places the same points identically (predict is reproducible)
    np.testing.assert_array_equal(path.predict(Xv, t), mean)


def test_placement_agrees_with_trees_apply_at_every_lifetime():
    X, y, Xv, _ = _data(n=40, n_val=60, seed=7)
    path = lifetime_path(X, y, terminal_lifetime=5.0, n_trees=6, random_state=2)
    placement = place_points(path.trees, Xv, random_state=123)
    for t in [0.0, 0.2, 1.0, 3.3, 5.0]:
        nodes, alive = placement.at(t)
        ref_nodes, branched = path.trees.apply(Xv, time=t, random_state=123)
        np.testing.assert_array_equal(alive, ~branched)
        np.testing.assert_array_equal(nodes[alive], ref_nodes[alive])


def test_training_points_are_placed_where_the_trees_hold_them():
    X, y, _, _ = _data(n=40, seed=5)
    path = lifetime_path(X, y, terminal_lifetime=6.0, n_trees=7, random_state=0)
    placement = place_points(path.trees, X, random_state=1)
    for t in [0.0, 0.5, 2.0, 6.0]:
        nodes, alive = placement.at(t)
        assert alive.all()  # a point inside every box on its path never branches off
        np.testing.assert_array_equal(nodes, path.trees.nodes_at(t))


def test_bad_input_raises_input_error():
    X, y, _, _ = _data(n=20)
    with pytest.raises(InputError, match="y_train"):
        lifetime_path(X, y[:-1], terminal_lifetime=1.0)
    with pytest.raises(InputError, match="noise_variance"):
        lifetime_path(X, y, terminal_lifetime=1.0, noise_variance=0.0)
    path = lifetime_path(X, y, terminal_lifetime=1.0, n_trees=2, random_state=0)
    with pytest.raises(InputError, match="lifetime must be in"):
        path.predict(X, 2.0)
    with pytest.raises(InputError, match="shape"):
        path.predict(np.ones((3, 5)), 0.5)
