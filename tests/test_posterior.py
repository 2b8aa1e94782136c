"""The Supplement B lifetime posterior against brute-force numerical integration."""
import dataclasses

import numpy as np
import pytest
from scipy import integrate, stats

from mondrian_core import InputError, lifetime_path, lifetime_posterior
from mondrian_core.datasets import laplace_gp
from mondrian_core.posterior import make_prior

PRIORS = [stats.expon(scale=3.0), stats.gamma(2.5, scale=2.0), stats.loguniform(0.5, 15.0)]


@pytest.fixture(scope="module")
def path():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 1))
    y = np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(60)
    return lifetime_path(X, y, terminal_lifetime=20.0, n_trees=4, noise_variance=0.01,
                         prior_variance=1.0, random_state=0)


def _brute(path, prior, fn=lambda x: 1.0):
    """sum_c L(tau_c) int_{tau_c}^{tau_{c+1}} fn(x) p(x) dx, interval by interval with quad."""
    L = np.exp(path.log_marginal_likelihood - path.log_marginal_likelihood.max())
    edges = np.append(path.lifetimes, path.terminal_lifetime)  # prior truncated at Lambda
    return np.array([integrate.quad(lambda x: fn(x) * prior.pdf(x), a, b, epsabs=0, epsrel=1e-11,
                                    limit=200)[0] for a, b in zip(edges[:-1], edges[1:])]) * L


@pytest.mark.parametrize("prior", PRIORS, ids=["exponential", "gamma", "log-uniform"])
def test_interval_masses_and_mean_match_numerical_integration(path, prior):
    post = lifetime_posterior(path, prior)
    mass = _brute(path, prior)
    np.testing.assert_allclose(post.interval_mass, mass / mass.sum(), rtol=1e-7, atol=1e-12)
    mean = _brute(path, prior, lambda x: x).sum() / mass.sum()
    np.testing.assert_allclose(post.mean, mean, rtol=1e-7)


@pytest.mark.parametrize("prior", PRIORS, ids=["exponential", "gamma", "log-uniform"])
def test_credible_interval_inverts_the_posterior_cdf(path, prior):
    post = lifetime_posterior(path, prior)
    lo, hi = post.credible_interval(0.9)
    total = _brute(path, prior).sum()

    def cdf(v):
        return _brute_cdf(path, prior, v) / total

    np.testing.assert_allclose([cdf(lo), cdf(hi)], [0.05, 0.95], atol=1e-7)


def _brute_cdf(path, prior, v):
    L = np.exp(path.log_marginal_likelihood - path.log_marginal_likelihood.max())
    edges = np.append(path.lifetimes, path.terminal_lifetime)  # prior truncated at Lambda
    return sum(Lc * integrate.quad(prior.pdf, a, min(b, v), epsabs=0, epsrel=1e-11)[0]
               for a, b, Lc in zip(edges[:-1], edges[1:], L) if a < v)


@pytest.mark.parametrize("prior", PRIORS, ids=["exponential", "gamma", "log-uniform"])
def test_map_maximises_the_posterior_density(path, prior):
    post = lifetime_posterior(path, prior)
    grid = np.concatenate([np.linspace(1e-9, path.terminal_lifetime, 200_001), path.lifetimes])
    dens = post.density(grid)
    # the MAP's density is at least the grid's best (the MAP may sit on an open end)
    best = post.density(np.array([post.map, np.nextafter(post.map, 0)])).max()
    assert best >= dens.max() * (1 - 1e-12)
    # and the density integrates to one (sanity of the normalisation)
    fine = np.sort(grid)
    assert abs(np.trapezoid(post.density(fine), fine) - 1) < 2e-2


def test_mixture_predictive_is_the_weighted_sum(path):
    post = lifetime_posterior(path, stats.gamma(3.0, scale=2.0))
    X = np.linspace(0, 1, 7)[:, None]
    mean, std = post.predict(X, return_std=True, tol=0.0)
    idx = np.flatnonzero(post.interval_mass > 0)
    w = post.interval_mass[idx] / post.interval_mass[idx].sum()
    ms, vs = zip(*[path.predict(X, path.lifetimes[c], return_std=True, include_noise=True) for c in idx])
    ms, vs = np.array(ms), np.array(vs)
    np.testing.assert_allclose(mean, w @ ms, rtol=1e-10)
    np.testing.assert_allclose(std ** 2, w @ (vs ** 2 + ms ** 2) - (w @ ms) ** 2, rtol=1e-8)


def test_changing_the_prior_reuses_remembered_events_exactly(path):
    X = np.linspace(0, 1, 5)[:, None]
    lifetime_posterior(path, stats.gamma(3.0, scale=2.0)).predict(X, return_std=True, tol=0.0)
    assert path._moments  # the events' predictives are remembered on the shared path
    fresh = dataclasses.replace(path, _cache={}, _moments={})
    prior = stats.gamma(3.5, scale=2.0)  # overlaps the first prior's events
    again = lifetime_posterior(path, prior).predict(X, return_std=True, tol=0.0)
    np.testing.assert_array_equal(again, lifetime_posterior(fresh, prior).predict(
        X, return_std=True, tol=0.0))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_lifetime_of_a_laplace_gp_draw_is_recovered(seed):
    true = 5.0
    data = laplace_gp(300, n_dims=1, lifetime=true, noise_std=0.1, random_state=seed)
    # the GP's own noise and signal variances; M = 100 trees (with fewer, the rougher
    # finite-M kernel pulls the evidence towards larger lifetimes)
    path = lifetime_path(data.X, data.y, terminal_lifetime=20.0, n_trees=100, noise_variance=0.01,
                         prior_variance=1.0, random_state=seed)
    post = lifetime_posterior(path, stats.loguniform(0.05, 20.0))
    assert true / 3 <= post.mean <= true * 3, post.mean
    assert true / 3 <= post.map <= true * 3, post.map


def test_make_prior_and_bad_priors():
    assert make_prior("gamma", shape=2.0, mean=3.0).mean() == pytest.approx(3.0)
    assert make_prior("exponential", mean=2.0).mean() == pytest.approx(2.0)
    with pytest.raises(InputError, match="low < high"):
        make_prior("log-uniform", low=5.0, high=1.0)
    with pytest.raises(InputError, match="positive"):
        make_prior("exponential", mean=-1.0)


@pytest.mark.parametrize("prior", PRIORS, ids=["exponential", "gamma", "log-uniform"])
def test_cdf_inverts_the_quantiles_and_bins_sum_to_one(path, prior):
    post = lifetime_posterior(path, prior)
    qs = np.array([0.01, 0.2, 0.5, 0.8, 0.99])
    np.testing.assert_allclose(post.cdf([post.quantile(q) for q in qs]), qs, atol=1e-9)
    edges = np.concatenate([[0.0], np.geomspace(1e-3, path.terminal_lifetime, 50)])
    mass = np.diff(post.cdf(edges))
    assert np.all(mass >= 0)
    assert mass.sum() == pytest.approx(1.0, abs=1e-12)
    assert post.cdf(path.terminal_lifetime * 2) == 1.0
    # the band below the terminal lifetime holds what the cdf leaves there
    assert post.mass_near_terminal(2.0) == pytest.approx(
        1.0 - post.cdf(path.terminal_lifetime / 2), abs=1e-15)


def test_predictive_with_few_components_is_a_stratified_mixture(path):
    post = lifetime_posterior(path, PRIORS[0])
    X = np.linspace(0, 1, 7)[:, None]
    k = 5
    assert post.components(1e-10).size > k  # the cap applies
    mean, std = post.predict(X, return_std=True, include_noise=False, max_components=k)
    # by hand: the intervals at the quantiles (j + 1/2) / k, each of weight 1/k
    cum = np.cumsum(post.interval_mass)
    picked = np.searchsorted(cum, (np.arange(k) + 0.5) / k)
    fits = [path.predict_moments(X, c, False) for c in picked]
    want = np.mean([m for m, _ in fits], axis=0)
    second = np.mean([s ** 2 + m ** 2 for m, s in fits], axis=0)
    np.testing.assert_allclose(mean, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(std, np.sqrt(np.maximum(second - want ** 2, 0)), rtol=1e-10,
                               atol=1e-12)


def test_posterior_figures_have_readable_fonts(path):
    from mondrian_core.figures.posterior import lifetime_posteriors, log_bin_edges, posterior_vs_trees
    from mondrian_core.figures.theme import MIN_FONT, font_sizes

    post = lifetime_posterior(path, PRIORS[2])
    edges = log_bin_edges(0.5, path.terminal_lifetime, 40)
    fig = lifetime_posteriors(edges, np.diff(post.cdf(edges)), edges, np.ones_like(edges),
                              mondrian_mean=post.mean, mondrian_interval=post.credible_interval(),
                              n_trees=4, exact_grid=edges, exact_density=np.ones_like(edges),
                              exact_mean=3.0, exact_interval=(2.0, 4.0), true_lifetime=3.0,
                              terminal_lifetime=path.terminal_lifetime)
    bias = posterior_vs_trees([10, 100], [8.0, 5.0], [(6.0, 9.0), (4.0, 6.0)], exact_mean=4.5,
                              exact_interval=(4.0, 5.0), true_lifetime=5.0)
    for f in (fig, bias):
        assert min(font_sizes(f)) >= MIN_FONT


def test_posterior_view_is_per_unit_log_lifetime_on_the_posteriors_range(path):
    """Densities per unit log(lambda) integrate (over log lambda) to the mass they hold; the
    view holds all but a sliver of the Mondrian posterior."""
    from mondrian_core.figures.posterior import posterior_view
    from mondrian_core.laplace_posterior import laplace_lifetime_posterior, truncated_grid

    prior = PRIORS[1]
    post = lifetime_posterior(path, prior)
    T = path.terminal_lifetime
    grid = truncated_grid(prior, T, n_grid=200)
    exact = laplace_lifetime_posterior(path.X_train, path.y_train, prior, noise_variance=0.01,
                                       grid=grid)
    view = posterior_view(post, prior, T, exact, lower=grid[0])
    lo, hi = view.edges[0], view.edges[-1]
    assert grid[0] <= lo < hi <= T
    assert view.mondrian_mass.sum() > 1 - 1e-3  # the view holds the posterior
    # the prior: integral over log(lambda) of its density = its truncated mass on the view
    g = np.log(view.prior_grid)
    np.testing.assert_allclose(integrate.trapezoid(view.prior_density, g),
                               (prior.cdf(hi) - prior.cdf(lo)) / prior.cdf(T), rtol=1e-3)
    inside = (exact.lifetimes >= lo) & (exact.lifetimes <= hi)
    mass = integrate.trapezoid(view.exact_density[inside], np.log(exact.lifetimes[inside]))
    assert abs(mass - 1) < 0.02  # trapezoid rule on 200 log-spaced points
