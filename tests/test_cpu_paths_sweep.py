"""The fast paths behind the sweep pages' CPU per new link (issue 25, item 6) against
the slow obvious computations they replace."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform

from mondrian_core import laplace_posterior as lp


def _longdouble_log_marginal_likelihood(distances, y, lifetime, s2n, s2p):
    """``log N(y; 0, K)`` by a Cholesky factorisation in long double (the reference)."""
    L = np.longdouble
    K = L(s2p) * np.exp(-L(lifetime) * distances.astype(L))
    K[np.diag_indices_from(K)] += L(s2n)
    n = y.size
    C = np.zeros_like(K)
    for j in range(n):
        C[j, j] = np.sqrt(K[j, j] - np.sum(C[j, :j] ** 2))
        C[j + 1:, j] = (K[j + 1:, j] - C[j + 1:, :j] @ C[j, :j]) / C[j, j]
    z = np.zeros(n, dtype=L)
    for j in range(n):
        z[j] = (L(y[j]) - C[j, :j] @ z[:j]) / C[j, j]
    return float(-0.5 * np.sum(z * z) - np.sum(np.log(np.diag(C)))
                 - 0.5 * n * np.log(2 * np.pi * L(1)))


@pytest.mark.parametrize("n, s2n, s2p", [(40, 0.01, 1.0), (60, 1e-4, 2.0), (3, 0.5, 0.3)])
def test_markov_likelihood_matches_the_dense_factorisation(n, s2n, s2p):
    rng = np.random.default_rng(n)
    x = rng.uniform(-1.0, 2.0, size=n)
    x[1] = x[2]  # a tie: a gap of 0
    y = np.sin(3 * x) + 0.1 * rng.standard_normal(n)
    grid = np.geomspace(1e-3, 300.0, 40)
    D = squareform(pdist(x[:, None], metric="cityblock"))
    fast = lp._markov_log_marginal_likelihoods(x, y, grid, s2n, s2p)
    dense = lp._dense_log_marginal_likelihoods(D, y, grid, s2n, s2p)
    ref = np.array([_longdouble_log_marginal_likelihood(D, y, lam, s2n, s2p)
                    for lam in grid[::6]])
    # against long double: the Kalman filter is the more accurate of the two (the dense
    # factorisation of a nearly all-ones kernel loses digits at small noise)
    np.testing.assert_allclose(fast[::6], ref, rtol=1e-12, atol=0)
    if s2n / s2p >= 1e-2:  # a well-conditioned kernel: the two float paths agree too
        np.testing.assert_allclose(fast, dense, rtol=1e-12, atol=0)


def test_one_dimensional_posterior_takes_the_markov_path():
    from scipy import stats

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(50, 1))
    y = np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(50)
    grid = np.geomspace(0.05, 60.0, 30)
    post = lp.laplace_lifetime_posterior(X, y, stats.loguniform(0.05, 60.0), noise_variance=0.01,
                                         grid=grid)
    D = squareform(pdist(X, metric="cityblock"))
    np.testing.assert_allclose(post.log_marginal_likelihood,
                               lp._dense_log_marginal_likelihoods(D, y, grid, 0.01, 1.0),
                               rtol=1e-12, atol=0)


def _bordered(n_events, seed):
    """A capacitance matrix like the walk's: U^T S^{-1} U of indicator columns, each
    event's pair bordered by -M / s2p, large next to U^T S^{-1} U as at the pages' defaults
    (M / s2p = 300): indefinite, with well-conditioned pivots."""
    rng = np.random.default_rng(seed)
    N = 3 * n_events
    G = rng.standard_normal((N, N))
    S = G @ G.T / N + np.eye(N)
    U = (rng.random((N, 2 * n_events)) < 0.2).astype(float)
    Z = U.T @ np.linalg.solve(S, U)
    ii = np.arange(n_events)
    Z[2 * ii + 1, 2 * ii] -= 50.0
    Z[2 * ii, 2 * ii + 1] -= 50.0
    return Z


@pytest.mark.parametrize("n_events", [5, 40])
def test_block_ldl_closed_form_pivots_match_lapack(n_events, monkeypatch):
    from mondrian_core import _sweep_kernels as sk

    Z = _bordered(n_events, n_events)
    L, Dinv, logabs = sk.block_ldl(Z, 2)
    monkeypatch.setattr(sk, "_pivot_inverse",
                        lambda d: (np.linalg.inv(d), np.linalg.slogdet(d)[1]))
    L0, Dinv0, logabs0 = sk.block_ldl(Z, 2)
    np.testing.assert_allclose(L, L0, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(Dinv, Dinv0, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(logabs, logabs0, rtol=1e-12, atol=1e-13)
    D = np.zeros_like(Z)
    for i, inv in enumerate(Dinv):
        D[2 * i:2 * i + 2, 2 * i:2 * i + 2] = np.linalg.inv(inv)
    np.testing.assert_allclose(L @ D @ L.T, Z, rtol=0, atol=1e-10 * np.abs(Z).max())


def test_times_pivot_inverses_is_the_batched_product():
    from mondrian_core import _sweep_kernels as sk

    rng = np.random.default_rng(1)
    W, Dinv = rng.standard_normal((37, 40)), rng.standard_normal((20, 2, 2))
    slow = np.einsum("mqa,qab->mqb", W.reshape(37, 20, 2), Dinv).reshape(37, 40)
    np.testing.assert_allclose(sk._times_pivot_inverses(W, Dinv, 2), slow, rtol=1e-15, atol=0)


@pytest.mark.parametrize("n_trees, n_cells", [(30, 1), (30, 4), (5, 60)])
def test_shared_cell_counts_is_the_sparse_product(n_trees, n_cells):
    import scipy.sparse as sp

    from mondrian_core._sweep_kernels import shared_cell_counts

    rng = np.random.default_rng(n_cells)
    N = 80
    cols = rng.integers(n_cells, size=(N, n_trees)) + n_cells * np.arange(n_trees)  # a cell per tree
    Psi = sp.csr_matrix((np.ones(N * n_trees), cols.ravel(), np.arange(0, N * n_trees + 1, n_trees)),
                        shape=(N, n_cells * n_trees))
    assert np.array_equal(shared_cell_counts(Psi), (Psi @ Psi.T).toarray())
