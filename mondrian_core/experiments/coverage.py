"""How often the lifetime posterior's credible interval covers the true lifetime.

Data come from a GP with the Laplace kernel and a known lifetime (the model that the
Mondrian kernel converges to as the number of trees grows). For each seed the
Mondrian posterior (:func:`~mondrian_core.posterior.lifetime_posterior` on a
:func:`~mondrian_core.sweep.lifetime_path` with ``M`` trees) and the exact posterior of
the Laplace-kernel GP (:func:`~mondrian_core.laplace_posterior.laplace_lifetime_posterior`)
are computed with the same prior, and each interval is checked against the truth.

With few trees the Mondrian posterior sits above the truth. At lifetime ``lambda`` the
Mondrian model is Bayesian linear regression on the cells of ``M`` partitions, about
``M (1 + lambda)`` piecewise-constant features on the unit interval, a far smaller
function class than the Laplace-kernel GP of the same lifetime; to follow the data's
variation it needs more cells, which it gets from a larger lifetime. The bias shrinks as
``M`` grows; the exact posterior is the ``M -> infinity`` reference.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from mondrian_core.datasets import laplace_gp
from mondrian_core.laplace_posterior import laplace_lifetime_posterior
from mondrian_core.posterior import lifetime_posterior
from mondrian_core.sweep import lifetime_path

__all__ = ["CoverageStudy", "lifetime_coverage"]


@dataclass(frozen=True)
class CoverageStudy:
    """Results of :func:`lifetime_coverage`.

    Parameters
    ----------
    true_lifetimes : tuple of float
        The lifetimes the data were drawn with.
    n_trees : tuple of int
        The numbers of trees ``M`` of the Mondrian posteriors.
    seeds : tuple of int
        One data set (and one set of Mondrians) per seed.
    level : float
        Probability of the equal-tailed credible intervals.
    mondrian_interval : ndarray of shape (L, K, S, 2)
        The Mondrian posterior's interval per true lifetime, ``M`` and seed.
    mondrian_mean : ndarray of shape (L, K, S)
        The Mondrian posterior's mean.
    exact_interval : ndarray of shape (L, S, 2)
        The exact Laplace-GP posterior's interval.
    exact_mean : ndarray of shape (L, S)
        The exact posterior's mean.
    settings : dict
        Points, dimensions, noise, prior: what the data and models used.

    Attributes
    ----------
    mondrian_coverage : ndarray of shape (L, K)
        Fraction of seeds whose Mondrian interval holds the truth.
    exact_coverage : ndarray of shape (L,)
        Fraction of seeds whose exact interval holds the truth.
    """

    true_lifetimes: tuple
    n_trees: tuple
    seeds: tuple
    level: float
    mondrian_interval: np.ndarray
    mondrian_mean: np.ndarray
    exact_interval: np.ndarray
    exact_mean: np.ndarray
    settings: dict

    @property
    def mondrian_coverage(self) -> np.ndarray:
        """Fraction of seeds whose Mondrian interval holds the truth, shape (L, K)."""
        truth = np.asarray(self.true_lifetimes)[:, None, None]
        lo, hi = self.mondrian_interval[..., 0], self.mondrian_interval[..., 1]
        return ((lo <= truth) & (truth <= hi)).mean(axis=-1)

    @property
    def exact_coverage(self) -> np.ndarray:
        """Fraction of seeds whose exact interval holds the truth, shape (L,)."""
        truth = np.asarray(self.true_lifetimes)[:, None]
        lo, hi = self.exact_interval[..., 0], self.exact_interval[..., 1]
        return ((lo <= truth) & (truth <= hi)).mean(axis=-1)

    def table(self) -> list[dict]:
        """Tabulate coverage and median posterior mean per model, one row per true lifetime.

        Returns
        -------
        list of dict
            ``{"true lifetime", "M=<m> coverage", "M=<m> median mean", ...,
            "exact coverage", "exact median mean"}`` per true lifetime.
        """
        rows = []
        for i, lam in enumerate(self.true_lifetimes):
            row = {"true lifetime": lam}
            for k, m in enumerate(self.n_trees):
                row[f"M={m} coverage"] = float(self.mondrian_coverage[i, k])
                row[f"M={m} median mean"] = float(np.median(self.mondrian_mean[i, k]))
            row["exact coverage"] = float(self.exact_coverage[i])
            row["exact median mean"] = float(np.median(self.exact_mean[i]))
            rows.append(row)
        return rows


def lifetime_coverage(true_lifetimes: Sequence[float] = (2.0, 5.0, 15.0),
                      n_trees: Sequence[int] = (10, 30, 100, 300), seeds: Sequence[int] = range(20),
                      n_points: int = 200, n_dims: int = 1, noise_std: float = 0.1,
                      prior=None, level: float = 0.9,
                      progress: Callable[[float, str], None] | None = None) -> CoverageStudy:
    """Measure how often the lifetime posterior's credible interval holds the truth.

    For the Mondrian posterior at each ``M`` and for the exact Laplace-GP posterior.

    Parameters
    ----------
    true_lifetimes : sequence of float
        Lifetimes of the Laplace-GP draws.
    n_trees : sequence of int
        Numbers of Mondrian trees ``M`` to compare.
    seeds : sequence of int
        One data set and one Mondrian sample per seed (the data's seed is shared by all
        ``M``, so the comparison across ``M`` is paired).
    n_points : int, default=200
        Training points per data set, uniform in the unit box.
    n_dims : int, default=1
        Input dimension.
    noise_std : float, default=0.1
        Observation noise standard deviation; the models use its square as their noise
        variance and a prior variance of 1, the data's own values (well specified).
    prior : frozen scipy.stats distribution, optional
        The lifetime prior; default log-uniform on [0.1, 50]. The sweeps run to its upper
        end (or, for a prior with unbounded support, its 99.9% quantile).
    level : float, default=0.9
        Probability of the equal-tailed credible intervals.
    progress : callable(fraction, text), optional
        Called after each data set.

    Returns
    -------
    CoverageStudy
        The intervals and means of both posteriors per true lifetime, ``M`` and seed.

    References
    ----------
    M. Balog, B. Lakshminarayanan, Z. Ghahramani, D. M. Roy and Y. W. Teh,
    "The Mondrian Kernel", UAI 2016, Supplement B (the lifetime posterior).
    """
    prior = stats.loguniform(0.1, 50.0) if prior is None else prior
    true_lifetimes, n_trees, seeds = tuple(true_lifetimes), tuple(n_trees), tuple(seeds)
    upper = float(prior.support()[1])
    terminal = upper if np.isfinite(upper) else float(prior.ppf(0.999))
    shape = (len(true_lifetimes), len(n_trees), len(seeds))
    m_int, m_mean = np.empty(shape + (2,)), np.empty(shape)
    e_int, e_mean = np.empty(shape[::2] + (2,)), np.empty(shape[::2])
    s2n = noise_std ** 2
    done, total = 0, len(true_lifetimes) * len(seeds)
    for i, lam in enumerate(true_lifetimes):
        for s, seed in enumerate(seeds):
            data = laplace_gp(n_points, n_dims, lifetime=lam, noise_std=noise_std,
                              random_state=seed)
            for k, m in enumerate(n_trees):
                path = lifetime_path(data.X, data.y, terminal_lifetime=terminal, n_trees=m,
                                     noise_variance=s2n, prior_variance=1.0,
                                     random_state=seed + 1_000_003 * (k + 1))
                post = lifetime_posterior(path, prior)
                m_int[i, k, s] = post.credible_interval(level)
                m_mean[i, k, s] = post.mean
            exact = laplace_lifetime_posterior(data.X, data.y, prior, noise_variance=s2n,
                                               prior_variance=1.0)
            e_int[i, s] = exact.credible_interval(level)
            e_mean[i, s] = exact.mean
            done += 1
            if progress is not None:
                progress(done / total, f"lifetime {lam:g}, seed {seed}")
    settings = {"n_points": n_points, "n_dims": n_dims, "noise_std": noise_std,
                "prior": f"{prior.dist.name}{prior.args}", "terminal_lifetime": terminal}
    return CoverageStudy(true_lifetimes=true_lifetimes, n_trees=n_trees, seeds=seeds,
                         level=level, mondrian_interval=m_int, mondrian_mean=m_mean,
                         exact_interval=e_int, exact_mean=e_mean, settings=settings)
