"""The dual walk's capacitance by one unpivoted LU against the 2 x 2 block LDL^T it
replaces and against each leading system solved on its own (Balog et al. 2016,
Supplement B: the log marginal likelihood at every event)."""
from __future__ import annotations

import numpy as np
import pytest

from mondrian_core import _sweep_walk as walk
from mondrian_core import lifetime_path


def _capacitance(n_events, seed, gamma):
    """The dual's capacitance in the columns (1_a - 1_b, 1_a + 1_b) of each event, as the
    walk builds it: ``W^T S^{-1} W + gamma diag(1, -1, ...)``, with the parent 1_a + 1_b a
    cell of ``S`` (so every state stays positive definite), and ``W^T S^{-1} y``."""
    rng = np.random.default_rng(seed)
    N, c = 4 * n_events, 2.0 / gamma  # c = s2p / M, the weight of a cell in S
    parents = rng.random((N, n_events)) < 0.3
    split = rng.random((N, n_events)) < 0.5
    a, b = (parents & split).astype(float), (parents & ~split).astype(float)
    S = 0.05 * np.eye(N) + c * (a + b) @ (a + b).T + c * np.ones((N, N))
    W = np.empty((N, 2 * n_events))
    W[:, 0::2], W[:, 1::2] = a - b, a + b
    Sinv = np.linalg.inv(S)
    Z = W.T @ Sinv @ W
    Z[np.diag_indices(2 * n_events)] += np.tile([gamma, -gamma], n_events)
    return Z, W.T @ Sinv @ rng.standard_normal(N)


def _each_leading_system(Z, c):
    """Per event k: log|det Z_2k| - log|det Z_2(k-1)|, c^T Z^{-1} c's decrement and the
    solution of the leading 2k system, each by its own dense solve."""
    n = Z.shape[0] // 2
    logdet = [0.0] + [np.linalg.slogdet(Z[:2 * k, :2 * k])[1] for k in range(1, n + 1)]
    quad = [0.0] + [c[:2 * k] @ np.linalg.solve(Z[:2 * k, :2 * k], c[:2 * k])
                    for k in range(1, n + 1)]
    X = np.zeros((2 * n, n))
    for k in range(1, n + 1):
        X[:2 * k, k - 1] = np.linalg.solve(Z[:2 * k, :2 * k], c[:2 * k])
    return np.diff(logdet), np.diff(quad), X


@pytest.mark.parametrize("n_events, gamma", [(6, 600.0), (40, 600.0), (40, 2.0)])
def test_unpivoted_lu_gives_every_leading_system(n_events, gamma, monkeypatch):
    Z, c = _capacitance(n_events, n_events, gamma)
    calls = []
    ldl = walk._prefix_solutions
    monkeypatch.setattr(walk, "_prefix_solutions", lambda *a: calls.append(1) or ldl(*a))
    dq, logabs, X = walk._prefix_solutions_unpivoted(Z, c)
    if gamma > 100:  # a large diagonal, as at the pages' defaults: LAPACK exchanges no row
        assert not calls
    d_logdet, d_quad, X_ref = _each_leading_system(Z, c)
    np.testing.assert_allclose(logabs, d_logdet, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(dq, d_quad, rtol=1e-9, atol=1e-10 * np.abs(d_quad).max())
    np.testing.assert_allclose(X, X_ref, rtol=1e-9, atol=1e-10 * np.abs(X_ref).max())
    # the same numbers as the block LDL^T on the same matrix
    dq0, logabs0, X0 = ldl(Z, c, 2)
    np.testing.assert_allclose(logabs, logabs0, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(dq, dq0, rtol=1e-10, atol=1e-11 * np.abs(dq0).max())
    np.testing.assert_allclose(X, X0, rtol=1e-10, atol=1e-11 * np.abs(X0).max())


def test_a_matrix_lapack_pivots_falls_back_to_the_block_ldl(monkeypatch):
    """Each pair's off-diagonal far above its diagonal: partial pivoting exchanges rows,
    so the unpivoted LU is not what LAPACK returns and the block LDL^T answers."""
    Z, c = _capacitance(12, 5, 600.0)
    ii = np.arange(12)
    Z[np.diag_indices(24)] = np.abs(np.diag(Z)) * 1e-3  # the pairs are 2 x 2 pivots
    Z[2 * ii, 2 * ii + 1] += 50.0
    Z[2 * ii + 1, 2 * ii] += 50.0
    calls = []
    ldl = walk._prefix_solutions
    monkeypatch.setattr(walk, "_prefix_solutions", lambda *a: calls.append(1) or ldl(*a))
    dq, logabs, X = walk._prefix_solutions_unpivoted(Z, c)
    assert calls
    d_logdet, d_quad, X_ref = _each_leading_system(Z, c)
    np.testing.assert_allclose(logabs, d_logdet, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(dq, d_quad, rtol=1e-9, atol=1e-10 * np.abs(d_quad).max())
    np.testing.assert_allclose(X, X_ref, rtol=1e-9, atol=1e-10 * np.abs(X_ref).max())


def test_dual_sweep_by_lu_equals_the_sweep_by_block_ldl(monkeypatch):
    """A dual walk (more trees than points) at the pages' ratio M / s2p: the path through
    the unpivoted LU against the same walk with every block's capacitance through the
    block LDL^T in the old columns (1_a, 1_b)."""
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(90, 1))
    y = np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(90)
    kw = dict(terminal_lifetime=20.0, n_trees=120, noise_variance=0.01, prior_variance=1.0,
              random_state=4, block_size=32)
    calls = []
    ldl = walk._prefix_solutions
    monkeypatch.setattr(walk, "_prefix_solutions", lambda *a: calls.append(1) or ldl(*a))
    fast = lifetime_path(X, y, **kw)
    n_blocks = -(-(fast.lifetimes.size - 1) // 32)
    assert len(calls) < n_blocks / 2  # most blocks took the LU
    monkeypatch.setattr(walk, "_prefix_solutions", ldl)
    monkeypatch.setattr(walk, "_prefix_solutions_unpivoted", _old_columns)
    slow = lifetime_path(X, y, **kw)
    assert fast.lifetimes.size > 1000 and fast.n_features[0] > y.size
    np.testing.assert_allclose(fast.log_marginal_likelihood, slow.log_marginal_likelihood,
                               rtol=0, atol=1e-10 * np.abs(slow.log_marginal_likelihood).max())
    np.testing.assert_allclose(fast.train_rmse, slow.train_rmse, rtol=1e-10)
    for c in (1, 500, fast.lifetimes.size - 1):
        np.testing.assert_allclose(fast.alphas[c], slow.alphas[c], rtol=1e-9,
                                   atol=1e-11 * np.abs(slow.alphas[c]).max())


def _old_columns(Z, c):
    """The block LDL^T of the capacitance in the columns (1_a, 1_b), C^{-1} = -(M/s2p)
    [[0, 1], [1, 0]] per event: ``Z`` and ``c`` taken back by the columns' change
    ``T = [[1, 1], [-1, 1]]`` (``(a - b, a + b) = (a, b) T``), solutions mapped forward."""
    n = Z.shape[0] // 2
    T = np.kron(np.eye(n), np.array([[1.0, 1.0], [-1.0, 1.0]]))
    Tinv = np.linalg.inv(T)
    Zo = Tinv.T @ Z @ Tinv  # the capacitance in the columns (1_a, 1_b)
    dq, logabs, Xo = walk._prefix_solutions(Zo, Tinv.T @ c, 2)
    # |det T_i| = 2 per event: the new columns' determinants are 4 times the old ones
    return dq, logabs + np.log(4.0), Tinv @ Xo
