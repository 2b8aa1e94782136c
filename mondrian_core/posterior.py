"""Bayesian learning of the Mondrian kernel's lifetime (inverse width).

Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
Supplement B. The features, hence the marginal likelihood ``L(lambda) =
p(y | X, lambda)``, are constant on each interval ``[tau_c, tau_{c+1})`` between
consecutive cut times, so with a prior ``p(lambda)`` with CDF ``F``

    P(tau_c <= lambda < tau_{c+1} | y) = L(tau_c) (F(tau_{c+1}) - F(tau_c)) / Z,

and the predictive is the mixture over intervals with these weights. The
likelihood is known only up to the sweep's terminal lifetime Lambda, so, as in
Supplement B (a prior "whose support is included in [0, Lambda]"), the prior is
truncated to ``[0, Lambda]``: the last interval is ``[tau_last, Lambda]``.
:attr:`LifetimePosterior.mass_beyond_terminal` reports how much prior mass the
truncation drops (choose Lambda so that it is small).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats
from scipy.special import logsumexp

from mondrian_core._docstrings import docfiller, fill_doc, params
from mondrian_core._validation import check_fraction, check_lifetime_prior, check_real
from mondrian_core.errors import InputError

__all__ = ["LifetimePosterior", "lifetime_posterior", "make_prior"]


def make_prior(kind: str, **params):
    """Make a frozen ``scipy.stats`` lifetime prior by name.

    Parameters
    ----------
    kind : {"exponential", "gamma", "log-uniform"}
        The prior's family.
    **params : float
        Its parameters, all positive: ``mean`` for ``"exponential"``; ``shape`` and
        ``mean`` for ``"gamma"``; ``low < high`` for ``"log-uniform"``. Lifetimes are
        in units of inverse ``X``.

    Returns
    -------
    scipy.stats.rv_continuous_frozen
        The prior on ``[0, inf)``.

    Raises
    ------
    InputError
        If the family is unknown or a parameter is missing or not positive.
    """
    try:
        if kind == "exponential":
            mean = _positive(params, "mean")
            return stats.expon(scale=mean)
        if kind == "gamma":
            shape, mean = _positive(params, "shape"), _positive(params, "mean")
            return stats.gamma(shape, scale=mean / shape)
        if kind == "log-uniform":
            low, high = _positive(params, "low"), _positive(params, "high")
            if not low < high:
                raise InputError(f"The log-uniform prior needs low < high, got {low:g} >= {high:g}.")
            return stats.loguniform(low, high)
    except KeyError as err:
        raise InputError(f"The {kind} prior needs the parameter {err.args[0]!r}.") from None
    raise InputError(f"Unknown prior {kind!r}; choose exponential, gamma or log-uniform.")


def _positive(params, name) -> float:
    return check_real(params[name], f"The prior's {name}", strict=True)


def _log_mass(prior, a, b):
    """``log(F(b) - F(a))`` for arrays ``a < b``, stable in both tails."""
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    out = np.empty(a.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = prior.cdf(a) < 0.5
        la, lb = prior.logcdf(a[lower]), prior.logcdf(b[lower])
        out[lower] = lb + np.log1p(-np.exp(la - lb))
        up = ~lower
        sa, sb = prior.logsf(a[up]), prior.logsf(b[up])
        out[up] = sa + np.log1p(-np.exp(sb - sa))
    out[~np.isfinite(out) | np.isnan(out)] = -np.inf
    return out


def _family(prior):
    return getattr(getattr(prior, "dist", None), "name", None)


def _conditional_means(prior, a, b):
    """``E[lambda | a <= lambda < b]`` under the prior, closed form where known."""
    name = _family(prior)
    args, kwds = prior.args, dict(prior.kwds)
    loc, scale = kwds.pop("loc", 0.0), kwds.pop("scale", 1.0)
    if name in ("expon", "gamma"):
        shape = 1.0 if name == "expon" else (args[0] if args else kwds["a"])
        lower = _log_mass(prior, a, b)
        upper = _log_mass(stats.gamma(shape + 1.0, loc=loc, scale=scale), a, b)
        # E[(lambda - loc) 1{a<lambda<b}] = shape * scale * (G_{k+1}(b) - G_{k+1}(a))
        mean = loc + shape * scale * np.exp(upper - lower)
        # far below the scale G_{k+1} underflows (mean 0 above); there the density is
        # proportional to x^(k-1), whose mean on [a, b] is k/(k+1) (b^(k+1)-a^(k+1))/(b^k-a^k)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_r = np.log((np.asarray(a, float) - loc) / (np.asarray(b, float) - loc))
            near = loc + (np.asarray(b, float) - loc) * shape / (shape + 1.0) \
                * np.expm1((shape + 1.0) * log_r) / np.expm1(shape * log_r)
        return np.where(np.isfinite(upper) | ~np.isfinite(lower), mean, near)
    if name in ("loguniform", "reciprocal") and loc == 0.0:
        lo, hi = prior.support()
        aa, bb = np.clip(a, lo, hi), np.clip(b, lo, hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            m = (bb - aa) / (np.log(bb) - np.log(aa))
        return np.where(bb > aa, m, aa)
    return np.array([prior.expect(lambda x: x, lb=lo, ub=hi, conditional=True)
                     for lo, hi in zip(a, b)])


def _mode(prior):
    """The prior density's maximiser (priors are taken to be unimodal)."""
    name = _family(prior)
    kwds = dict(prior.kwds)
    loc, scale = kwds.get("loc", 0.0), kwds.get("scale", 1.0)
    if name == "expon":
        return loc
    if name == "gamma":
        shape = prior.args[0] if prior.args else kwds["a"]
        return loc + max(shape - 1.0, 0.0) * scale
    if name in ("loguniform", "reciprocal"):
        return prior.support()[0]
    lo, hi = prior.ppf([1e-6, 1 - 1e-6])
    res = optimize.minimize_scalar(lambda x: -prior.logpdf(x), bounds=(lo, hi), method="bounded")
    return float(res.x)


class EqualTailedIntervals:
    """``quantile`` and ``credible_interval`` from a distribution's ``_quantile(q)``
    (shared by the lifetime posteriors)."""

    def quantile(self, q: float) -> float:
        """Return a posterior quantile.

        :class:`LifetimePosterior` inverts its piecewise CDF through the prior's ppf;
        :class:`~mondrian_core.laplace_posterior.LaplaceLifetimePosterior` interpolates
        linearly in ``log(lambda)`` between its grid points.

        Parameters
        ----------
        q : float
            The probability, in ``(0, 1)``.

        Returns
        -------
        float
            The lifetime below which the posterior puts probability ``q``.

        Raises
        ------
        InputError
            If ``q`` is not in ``(0, 1)``.
        """
        return self._quantile(check_fraction(q, "A quantile level"))

    def credible_interval(self, level: float = 0.9) -> tuple[float, float]:
        """Return the equal-tailed credible interval of probability ``level``.

        Parameters
        ----------
        level : float, default=0.9
            The probability, in ``(0, 1)``.

        Returns
        -------
        low : float
            The ``(1 - level)/2`` quantile.
        high : float
            The ``(1 + level)/2`` quantile.

        Raises
        ------
        InputError
            If ``level`` is not in ``(0, 1)``.
        """
        level = check_fraction(level, "The credible level")
        return self.quantile((1 - level) / 2), self.quantile((1 + level) / 2)


@dataclass
class LifetimePosterior(EqualTailedIntervals):
    """Posterior over the lifetime given a :class:`~mondrian_core.sweep.LifetimePath`.

    Made by :func:`lifetime_posterior`.

    Parameters
    ----------
    path : LifetimePath
        The swept path whose marginal likelihoods the posterior weighs.
    prior : scipy.stats.rv_continuous_frozen
        The lifetime prior (truncated to ``[0, Lambda]``, Lambda the terminal lifetime).
    lower, upper : ndarray of shape (C,)
        The intervals ``[tau_c, tau_{c+1})``; the last upper end is the terminal
        lifetime (the prior is truncated there).
    log_prior_mass : ndarray of shape (C,)
        ``log(F(tau_{c+1}) - F(tau_c))``, the prior's log mass of each interval.
    interval_mass : ndarray of shape (C,)
        Posterior probability of each interval (sums to one).
    log_evidence : float
        ``log p(y | X) = log sum_c L(tau_c) (F(tau_{c+1}) - F(tau_c)) / F(Lambda)``
        under the prior truncated to ``[0, Lambda]``.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    Supplement B.
    """

    path: object
    prior: object
    lower: np.ndarray
    upper: np.ndarray
    log_prior_mass: np.ndarray
    interval_mass: np.ndarray
    log_evidence: float

    @property
    def mass_beyond_terminal(self) -> float:
        """Prior probability of lifetimes above the terminal lifetime (dropped by truncation)."""
        return float(self.prior.sf(self.path.terminal_lifetime))

    def mass_near_terminal(self, factor: float = 1.25) -> float:
        """Return the posterior probability of ``[Lambda / factor, Lambda]``.

        Mass piled up against the terminal lifetime ``Lambda`` means the likelihood
        may keep rising beyond it, where the sweep did not look: sweep further.

        Parameters
        ----------
        factor : float, default=1.25
            How far below ``Lambda`` the band starts (a ratio above 1).

        Returns
        -------
        float
            The posterior probability of the band.
        """
        return float(1.0 - self.cdf(self.path.terminal_lifetime / factor))

    @property
    def mean(self) -> float:
        """Posterior mean: sum of interval masses times the prior's conditional means."""
        keep = self.interval_mass > 0
        cm = _conditional_means(self.prior, self.lower[keep], self.upper[keep])
        return float(np.sum(self.interval_mass[keep] * cm))

    @property
    def map(self) -> float:
        """The maximiser of the posterior density ``p(lambda) L(tau_c)`` (piecewise).

        Within an interval the posterior density is the prior density times a
        constant, so its maximiser there is the prior's mode clipped to the interval
        (unimodal priors); the MAP is the best of these over intervals. Where the best
        point is an interval's open right end, the density's supremum is approached
        there and that end point is reported.
        """
        mode = _mode(self.prior)
        ok = np.isfinite(self.log_prior_mass)
        lo, hi = self.lower[ok], self.upper[ok]
        cand = np.clip(mode, lo, hi)
        with np.errstate(divide="ignore"):
            dens = self.prior.logpdf(cand)
            # a density that is infinite at 0 (gamma shape < 1) has its MAP there
            score = dens + self.path.log_marginal_likelihood[ok]
        return float(cand[int(np.nanargmax(score))])

    def _quantile(self, q: float) -> float:
        """Invert the piecewise CDF through the prior's ppf (``q`` validated)."""
        cum = np.cumsum(self.interval_mass)
        c = int(min(np.searchsorted(cum, q, side="left"), cum.size - 1))
        before = cum[c - 1] if c > 0 else 0.0
        frac = np.clip((q - before) / self.interval_mass[c], 0.0, 1.0)
        a, b = self.lower[c], self.upper[c]
        Fa, Fb = self.prior.cdf(a), self.prior.cdf(b)
        if Fa < 0.5:
            value = self.prior.ppf(Fa + frac * (Fb - Fa))
        else:  # through the survival function, accurate in the upper tail
            Sa, Sb = self.prior.sf(a), self.prior.sf(b)
            value = self.prior.isf(Sa - frac * (Sa - Sb))
        return float(np.clip(value, a, b))

    def _interval_of(self, grid: np.ndarray) -> np.ndarray:
        """The interval ``[tau_c, tau_{c+1})`` holding each lifetime (clipped to the ends)."""
        return np.clip(np.searchsorted(self.lower, grid, side="right") - 1, 0,
                       self.lower.size - 1)

    def cdf(self, grid) -> np.ndarray:
        """Return the posterior probability of lifetimes below each point of ``grid``.

        Within an interval ``[tau_c, tau_{c+1})`` the posterior is the prior reweighted
        by a constant, so the CDF there moves as the prior's CDF does.

        Parameters
        ----------
        grid : array-like of float
            Lifetimes.

        Returns
        -------
        ndarray
            The posterior CDF at each lifetime (0 below 0, 1 from the terminal lifetime).
        """
        grid = np.asarray(grid, dtype=float)
        c = self._interval_of(grid)
        before = np.concatenate([[0.0], np.cumsum(self.interval_mass)])[c]
        a, b = self.lower[c], self.upper[c]
        Fa, Fb = self.prior.cdf(a), self.prior.cdf(b)
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(Fb > Fa, (self.prior.cdf(np.clip(grid, a, b)) - Fa) / (Fb - Fa), 0.0)
        out = before + self.interval_mass[c] * np.clip(frac, 0.0, 1.0)
        return np.clip(np.where(grid >= self.upper[-1], 1.0, np.where(grid < 0, 0.0, out)),
                       0.0, 1.0)

    @docfiller({"grid": params(cdf.__doc__, "grid", section=True)})
    def density(self, grid) -> np.ndarray:
        """Return the posterior density on ``grid``.

        The truncated prior density times ``L(tau_c) / p(y)`` on each interval.

        %(grid)s

        Returns
        -------
        ndarray
            The density at each lifetime (0 beyond the terminal lifetime).
        """
        grid = np.asarray(grid, dtype=float)
        inside = grid <= self.upper[-1]
        c = self._interval_of(grid)
        log_l = self.path.log_marginal_likelihood[c] - self.log_evidence
        with np.errstate(divide="ignore"):
            log_trunc = self.prior.logcdf(self.upper[-1])
            return np.where(inside, np.exp(self.prior.logpdf(grid) - log_trunc + log_l), 0.0)

    def components(self, tol: float = 1e-10) -> np.ndarray:
        """Return the indices of the intervals that hold all but ``tol`` of the mass.

        Parameters
        ----------
        tol : float, default=1e-10
            The posterior mass that may be left out.

        Returns
        -------
        ndarray of int
            Interval indices, sorted; the fewest heaviest intervals needed.
        """
        order = np.argsort(self.interval_mass)[::-1]
        cum = np.cumsum(self.interval_mass[order])
        n = int(np.searchsorted(cum, 1.0 - tol, side="left")) + 1
        return np.sort(order[:min(n, order.size)])

    @fill_doc
    def predict(self, X, return_std=False, include_noise=True, tol=1e-10, max_components=None):
        """Return the mixture predictive of Supplement B.

        Mean ``sum_c k_c m_c(x)``; with ``return_std`` the mixture's standard
        deviation ``sqrt(sum_c k_c (v_c + m_c^2) - mean^2)`` where ``v_c`` is the
        per-interval predictive variance (of ``y`` when ``include_noise``, else of the
        latent function). Intervals holding less than ``tol`` of the mass in total are
        left out and the rest renormalised. With ``max_components`` and more intervals
        than that needed, the mixture is approximated by stratified quadrature: the
        intervals holding the posterior quantiles ``(k + 1/2) / K``, ``K =
        max_components``, each of weight ``1/K`` (a many-tree posterior spreads its mass
        over thousands of intervals, each a separate fit).

        Parameters
        ----------
        X : array-like of shape (n, D)
            The points.
        return_std : bool, default=False
            Also return the mixture's standard deviation.
        include_noise : bool, default=True
            Include the observation noise in the standard deviation.
        tol : float, default=1e-10
            The posterior mass of intervals that may be left out.
        max_components : int, optional
            The most fits to mix (see above); default: all that ``tol`` asks for.

        %(predict_returns)s

        References
        ----------
        Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian
        Kernel", Supplement B.
        """
        idx = self.components(tol)
        w = self.interval_mass[idx] / self.interval_mass[idx].sum()
        if max_components is not None and idx.size > int(max_components):
            k = int(max_components)
            cum = np.cumsum(self.interval_mass)
            picked = np.minimum(np.searchsorted(cum, (np.arange(k) + 0.5) / k, side="left"),
                                cum.size - 1)
            idx, counts = np.unique(picked, return_counts=True)
            w = counts / k
        mean = 0.0
        second = 0.0
        for weight, c in zip(w, idx):
            t = self.path.lifetimes[c]
            if return_std:
                m, s = self.path.predict_moments(X, c, include_noise)
                second = second + weight * (s ** 2 + m ** 2)
            else:
                m = self.path.predict(X, t)
            mean = mean + weight * m
        if not return_std:
            return mean
        return mean, np.sqrt(np.maximum(second - mean ** 2, 0.0))


def lifetime_posterior(path, prior) -> LifetimePosterior:
    """Compute the posterior over the lifetime from a swept path and a prior.

    Parameters
    ----------
    path : LifetimePath
        From :func:`~mondrian_core.sweep.lifetime_path`; its
        ``log_marginal_likelihood`` at each cut time ``tau_c``.
    prior : frozen ``scipy.stats`` distribution on ``[0, inf)``
        E.g. ``scipy.stats.expon(scale=2)``, ``scipy.stats.gamma(2, scale=1)``,
        ``scipy.stats.loguniform(0.1, 10)`` (see :func:`make_prior`).

    Returns
    -------
    LifetimePosterior
        The posterior mass of each interval between cut times and the evidence.

    Raises
    ------
    InputError
        If ``path`` or ``prior`` is of the wrong kind, the prior has mass below 0, or
        it puts no mass on the swept lifetimes.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    Supplement B.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from mondrian_core import lifetime_path, lifetime_posterior
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(60, 1))
    >>> y = np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(60)
    >>> path = lifetime_path(X, y, terminal_lifetime=30.0, n_trees=10, random_state=0)
    >>> post = lifetime_posterior(path, stats.expon(scale=10.0))
    >>> bool(0 < post.quantile(0.05) < post.mean < post.quantile(0.95) <= 30.0)
    True
    """
    if not hasattr(path, "log_marginal_likelihood"):
        raise InputError("path must be a LifetimePath from lifetime_path(...).")
    check_lifetime_prior(prior)
    lower = np.asarray(path.lifetimes, dtype=float)
    upper = np.append(lower[1:], float(path.terminal_lifetime))
    log_prior = _log_mass(prior, lower, upper)
    log_w = np.asarray(path.log_marginal_likelihood, float) + log_prior
    if not np.isfinite(log_w).any():
        raise InputError(f"The prior puts no mass (below 1e-308) on the swept lifetimes [0, "
                         f"{float(path.terminal_lifetime):g}]; choose a prior with mass there "
                         "(widen its range or move its mean).")
    log_z = float(logsumexp(log_w))
    mass = np.exp(log_w - log_z)
    log_z -= float(prior.logcdf(path.terminal_lifetime))  # evidence under the truncated prior
    return LifetimePosterior(path=path, prior=prior, lower=lower, upper=upper,
                             log_prior_mass=log_prior, interval_mass=mass, log_evidence=log_z)
