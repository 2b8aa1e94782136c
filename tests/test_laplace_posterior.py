"""The exact lifetime posterior of the Laplace-kernel GP (the M -> infinity limit)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from mondrian_core import InputError, laplace_gp_sample, laplace_kernel, laplace_lifetime_posterior
from mondrian_core.laplace_posterior import MAX_LAPLACE_POINTS


def _data(n=30, lam=3.0, noise=0.2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 1))
    f = laplace_gp_sample(X, lam, random_state=seed + 1)[0]
    return X, f + noise * rng.standard_normal(n)


def test_log_marginal_likelihood_is_the_gaussian_density():
    X, y = _data()
    grid = np.array([0.5, 2.0, 9.0])
    post = laplace_lifetime_posterior(X, y, stats.loguniform(0.1, 20), noise_variance=0.04,
                                      prior_variance=1.5, grid=grid)
    for lam, lml in zip(grid, post.log_marginal_likelihood):
        cov = 1.5 * laplace_kernel(X, lifetime=lam) + 0.04 * np.eye(len(X))
        want = stats.multivariate_normal(np.zeros(len(X)), cov).logpdf(y)
        assert lml == pytest.approx(want, rel=1e-10)


def test_mean_and_interval_match_quadrature():
    """Grid integration in log(lambda) against adaptive quadrature of prior x likelihood."""
    X, y = _data(n=20)
    prior = stats.gamma(2.0, scale=2.0)
    post = laplace_lifetime_posterior(X, y, prior, noise_variance=0.04, n_grid=400)

    def lik(lam):
        cov = laplace_kernel(X, lifetime=lam) + 0.04 * np.eye(len(X))
        return np.exp(stats.multivariate_normal(np.zeros(len(X)), cov).logpdf(y)
                      - post.log_evidence) * prior.pdf(lam)

    lo, hi = post.lifetimes[0], post.lifetimes[-1]
    z = integrate.quad(lik, lo, hi, limit=200)[0]
    mean = integrate.quad(lambda v: v * lik(v), lo, hi, limit=200)[0] / z
    assert z == pytest.approx(1.0, rel=1e-3)          # the evidence is the normaliser
    assert post.mean == pytest.approx(mean, rel=1e-3)
    a, b = post.credible_interval(0.9)
    assert integrate.quad(lik, lo, a, limit=200)[0] / z == pytest.approx(0.05, abs=2e-3)
    assert integrate.quad(lik, b, hi, limit=200)[0] / z == pytest.approx(0.05, abs=2e-3)
    assert a < post.map < b


def test_credible_interval_covers_lifetimes_drawn_from_the_prior():
    """Well specified (lifetime drawn from the prior, data from the model), the 90%
    interval covers the true lifetime with probability 0.9: over 60 draws the count is
    Binomial(60, 0.9), mean 54, sd 2.3; accept 47..60 (3 sd)."""
    prior = stats.loguniform(0.5, 30)
    rng = np.random.default_rng(11)
    covered = 0
    for seed in range(60):
        lam = float(prior.rvs(random_state=rng))
        X = rng.random((60, 1))
        y = laplace_gp_sample(X, lam, random_state=seed)[0] + 0.1 * rng.standard_normal(60)
        a, b = laplace_lifetime_posterior(X, y, prior, noise_variance=0.01,
                                          n_grid=80).credible_interval(0.9)
        covered += a <= lam <= b
    assert 47 <= covered <= 60


def test_refuses_what_a_dense_cholesky_cannot_take_and_bad_grids():
    X = np.zeros((MAX_LAPLACE_POINTS + 1, 1))
    with pytest.raises(InputError, match=f"at most {MAX_LAPLACE_POINTS:,} points"):
        laplace_lifetime_posterior(X, np.zeros(len(X)), stats.expon())
    X, y = _data(n=10)
    for grid in ([1.0, 2.0], [2.0, 1.0, 3.0], [0.0, 1.0, 2.0], [1.0, np.nan, 3.0]):
        with pytest.raises(InputError, match="grid"):
            laplace_lifetime_posterior(X, y, stats.expon(), grid=grid)
    with pytest.raises(InputError, match="y has 9 values"):
        laplace_lifetime_posterior(X, y[:9], stats.expon())


def test_truncated_grid_spans_the_prior_up_to_the_terminal_lifetime():
    from mondrian_core.laplace_posterior import truncated_grid
    grid = truncated_grid(stats.loguniform(0.03, 30.0), 20.0, n_grid=50)
    assert grid.size == 50 and grid[-1] == pytest.approx(20.0)
    assert grid[0] == pytest.approx(0.03, rel=1e-4)  # the prior's 1e-6 quantile
    np.testing.assert_allclose(np.diff(np.log(grid)), np.log(grid[1] / grid[0]))
    # an exponential prior's lower tail is cut where the likelihood stops changing
    assert truncated_grid(stats.expon(scale=5.0), 20.0)[0] == pytest.approx(20.0 * 1e-4)
    with pytest.raises(InputError, match="no mass below"):
        truncated_grid(stats.loguniform(50.0, 60.0), 20.0)
