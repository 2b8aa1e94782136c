"""The exact lifetime sweep against slow, obvious dense formulas (Balog et al. 2016, Sec. 4)."""
import numpy as np
import pytest

from mondrian_core import InputError, MondrianFeatures, lifetime_path, sweep
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


def _check_every_event(path, X, y, Xv, yv):
    assert path.lifetimes[0] == 0.0 and np.all(np.diff(path.lifetimes) > 0)
    for c, t in enumerate(path.lifetimes):
        alpha, lml, fv = _dense(path, t, Xv)
        np.testing.assert_allclose(path.log_marginal_likelihood[c], lml, rtol=1e-10)
        np.testing.assert_allclose(path.alphas[c], alpha, rtol=1e-8, atol=1e-10 * np.abs(alpha).max())
        train_rmse = np.sqrt(np.mean((y - (y - S2N * alpha)) ** 2))
        np.testing.assert_allclose(path.train_rmse[c], train_rmse, rtol=1e-9)
        np.testing.assert_allclose(path.val_rmse[c], np.sqrt(np.mean((fv - yv) ** 2)), rtol=1e-9)


@pytest.mark.parametrize("block_size", [1, 3, None])
def test_every_event_matches_dense_formulas(block_size):
    X, y, Xv, yv = _data()
    path = lifetime_path(X, y, Xv, yv, terminal_lifetime=5.0, n_trees=4, noise_variance=S2N,
                         prior_variance=S2P, random_state=3, block_size=block_size)
    assert path.lifetimes.size > 20
    _check_every_event(path, X, y, Xv, yv)


@pytest.mark.parametrize("block_size", [1, 5, None])
def test_cell_space_path_alone_matches_dense_formulas(block_size):
    """Fewer cells than points at every event: only the C x C (primal) system is used."""
    X, y, Xv, yv = _data(n=160, n_val=30, d=3, seed=4)
    path = lifetime_path(X, y, Xv, yv, terminal_lifetime=2.5, n_trees=3, noise_variance=S2N,
                         prior_variance=S2P, random_state=8, block_size=block_size)
    assert path.lifetimes.size > 30 and path.n_features[-1] < len(y)
    _check_every_event(path, X, y, Xv, yv)


def test_dual_path_alone_matches_dense_formulas():
    """More cells than points from the start (M > N): only the N x N (dual) system."""
    X, y, Xv, yv = _data(n=9, n_val=12, seed=6)
    path = lifetime_path(X, y, Xv, yv, terminal_lifetime=8.0, n_trees=12, noise_variance=S2N,
                         prior_variance=S2P, random_state=1)
    assert path.lifetimes.size > 10 and path.n_features[0] > len(y)
    _check_every_event(path, X, y, Xv, yv)


@pytest.mark.parametrize("block_size", [2, 7, None])
@pytest.mark.parametrize("val_chunk", [3, None])
def test_switch_from_cell_space_to_dual_matches_dense_formulas(block_size, val_chunk,
                                                                monkeypatch):
    """C crosses N during the sweep: the events on both sides and at the switch (with
    validation chunks of 3 states too, so the validation points' cursor crosses many
    chunk and block boundaries)."""
    if val_chunk:
        monkeypatch.setattr(sweep, "VAL_CHUNK", val_chunk)
    X, y, Xv, yv = _data(n=45, n_val=20, seed=9)
    path = lifetime_path(X, y, Xv, yv, terminal_lifetime=9.0, n_trees=5, noise_variance=S2N,
                         prior_variance=S2P, random_state=2, block_size=block_size)
    assert path.n_features[0] < len(y) < path.n_features[-1]
    assert path.n_features[-1] - len(y) > 10
    _check_every_event(path, X, y, Xv, yv)


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


@pytest.mark.parametrize("n, n_trees, t", [(50, 5, 1.7), (12, 8, 2.9)])
def test_predict_at_new_points_matches_dense_kernel_and_std(n, n_trees, t):
    """The C x C std (fewer cells than points) and the N x N one (more cells)."""
    X, y, Xv, _ = _data(n=n, seed=2)
    path = lifetime_path(X, y, terminal_lifetime=3.0, n_trees=n_trees, noise_variance=S2N,
                         prior_variance=S2P, random_state=4)
    mean, std = path.predict(Xv, t, return_std=True)
    c = path.index(t)
    assert (path.n_features[c] < n) == (n == 50)
    nodes = path.trees.nodes_at(path.lifetimes[c])
    vn, alive = path.place(Xv).at(t)
    M = path.trees.n_trees
    K = (nodes[:, :, None] == nodes[:, None, :]).sum(0) / M
    Kv = ((vn[:, :, None] == nodes[:, None, :]) & alive[:, :, None]).sum(0) / M
    S = S2P * K + S2N * np.eye(len(y))
    np.testing.assert_allclose(mean, S2P * Kv @ np.linalg.solve(S, y), rtol=1e-9,
                               atol=1e-12 * np.abs(y).max())
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


def test_new_points_are_placed_at_the_lifetime_asked_for_not_at_the_last_cut():
    """A new point whose extension clock rings between the last cut tau_c and the asked
    lifetime t is in a cell of its own at t: that tree adds nothing to its mean and its
    prior variance s2p / M to its variance (the conditional Mondrian at t)."""
    X, y, Xv, _ = _data(n=60, n_val=200, seed=3)
    path = lifetime_path(X, y, terminal_lifetime=4.0, n_trees=5, noise_variance=S2N,
                         prior_variance=S2P, random_state=5)
    branch = path.place(Xv).branch
    c = np.searchsorted(path.lifetimes, branch, side="right") - 1  # interval of each clock
    nxt = np.append(path.lifetimes, path.terminal_lifetime)[np.minimum(c + 1, path.lifetimes.size)]
    m, i = np.argwhere(np.isfinite(branch) & (nxt > branch))[0]
    t = 0.5 * (branch[m, i] + nxt[m, i])  # after the clock, before the next cut
    assert path.index(t) == path.index(branch[m, i])
    c = path.index(t)
    # ground truth: the trees' own conditional-Mondrian placement at t, dense formulas
    nodes = path.trees.nodes_at(path.lifetimes[c])
    vn, branched = path.trees.apply(Xv, time=t, random_state=path.extension_seed)
    assert branched[m, i]  # separated at t ...
    assert not path.trees.apply(Xv, time=path.lifetimes[c],
                                random_state=path.extension_seed)[1][m, i]  # ... not at tau_c
    M = path.trees.n_trees
    K = (nodes[:, :, None] == nodes[:, None, :]).sum(0) / M
    Kv = ((vn[:, :, None] == nodes[:, None, :]) & ~branched[:, :, None]).sum(0) / M
    S = S2P * K + S2N * np.eye(len(y))
    mean, std = path.predict(Xv, t, return_std=True)
    np.testing.assert_allclose(mean, S2P * Kv @ np.linalg.solve(S, y), rtol=1e-9,
                               atol=1e-12 * np.abs(y).max())
    var = S2P - S2P ** 2 * np.einsum("ij,ji->i", Kv, np.linalg.solve(S, Kv.T))
    np.testing.assert_allclose(std, np.sqrt(var), rtol=1e-8)


def test_storage_counts_cells_not_points_while_cells_are_fewer(monkeypatch):
    """The cell-space states keep C_k values, not N: a sweep over the old N x events cap
    runs when its cells fit, and one whose dense system is too large names a lifetime
    whose events fit."""
    from mondrian_core import sweep

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(400, 2))
    y = X.sum(1)
    path = lifetime_path(X, y, terminal_lifetime=3.0, n_trees=3, random_state=0)
    E, N = path.lifetimes.size - 1, len(y)
    assert path.n_features[-1] < N  # cell space throughout
    kept = int(path.n_features.sum())
    monkeypatch.setattr(sweep, "MAX_STORED", kept)  # below N x (E + 1), enough for the cells
    assert N * (E + 1) > kept
    lifetime_path(X, y, terminal_lifetime=3.0, n_trees=3, random_state=0)
    monkeypatch.setattr(sweep, "MAX_DENSE_SIDE", 30)  # the terminal system is 39 x 39
    with pytest.raises(InputError, match="terminal lifetime of at most") as info:
        lifetime_path(X, y, terminal_lifetime=3.0, n_trees=3, random_state=0)
    best = float(str(info.value).split("at most ")[1].split(",")[0])
    n_events = int((path.lifetimes[1:] < best).sum())
    assert 20 < n_events and 3 + n_events <= 30  # the named lifetime's system fits
    lifetime_path(X, y, terminal_lifetime=best, n_trees=3, random_state=0)
