"""Live statistical checks of the Mondrian process sampler, for the teaching pages.

Each check draws many independent Mondrians on one box (grown together, level by
level) and compares what it sees with the theory of Balog et al. (2016, sec. 2):
the first cut time ~ Exp(linear dimension) in a dimension chosen proportionally to
the side lengths (:func:`first_cut_check`), and projectivity, a Mondrian restricted
to a sub-box is a Mondrian on the sub-box (:func:`projectivity_check`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from mondrian_core._docstrings import fill_doc
from mondrian_core._validation import check_box, check_count, check_lifetime, check_random_state
from mondrian_core.errors import InputError
from mondrian_core.process.sampler import MAX_CELLS, NodeBuilder, cell_count, grow, guard_cells

#: Largest expected total number of cells of a Monte Carlo check (all samples).
MAX_MONTE_CARLO_CELLS = 2_000_000



def _check_n_samples(n_samples) -> int:
    return check_count(n_samples, "The number of samples")


def grow_forest(lo, hi, lifetime, n, rng, max_depth=None) -> dict:
    """Grow ``n`` independent Mondrians on the same box together, level by level.

    Parameters
    ----------
    lo, hi : ndarray of shape (D,)
        The box, already validated.
    lifetime : float
        The lifetime (>= 0).
    n : int
        The number of independent Mondrians.
    rng : numpy.random.Generator
        The source of randomness.
    max_depth : int, optional
        Stop adding children below this depth (``0``: only the roots' first cuts).

    Returns
    -------
    dict of str to ndarray
        All nodes as flat arrays (see :meth:`NodeBuilder.arrays`); ``root`` gives each
        node's Mondrian (0 to ``n - 1``).
    """
    builder = NodeBuilder(lo.size)
    grow(builder, np.repeat(lo[None, :], n, 0), np.repeat(hi[None, :], n, 0), np.zeros(n),
          np.full(n, -1), np.zeros(n, np.intp), np.arange(n), lifetime, rng,
          max_depth=max_depth)
    return builder.arrays()


def _mc_guard(lo, hi, lifetime, n) -> None:
    per = cell_count(lo, hi, lifetime)
    if n * per > MAX_MONTE_CARLO_CELLS:
        most = max(1, int(MAX_MONTE_CARLO_CELLS // per))
        raise InputError(
            f"{n:,} samples of about {per:,.0f} cells each is too much work "
            f"(limit {MAX_MONTE_CARLO_CELLS:,} cells in all). Use at most {most:,} samples, "
            "or a smaller lifetime or box."
        )


@dataclass(frozen=True)
class FirstCutCheck:
    """The first cut of many independent Mondrians on one box (competing clocks).

    Made by :func:`first_cut_check`.

    Parameters
    ----------
    lower, upper : ndarray of shape (D,)
        The box.
    lifetime : float
        The lifetime; first cuts at or after it are censored.
    times : ndarray of shape (n_samples,)
        Each sample's first cut time; ``inf`` where no cut appeared before the
        lifetime (censored).
    dims : ndarray of int, shape (n_samples,)
        The first cut's dimension (``-1`` where censored).
    locations : ndarray of shape (n_samples,)
        The first cut's location (``nan`` where censored).
    rate : float
        The box's linear dimension (sum of the sides): the rate of the first cut.
    side_proportions : ndarray of shape (D,)
        The sides divided by ``rate``: the theoretical probability of each dimension.
    ks_pvalue : float
        Kolmogorov-Smirnov p-value of the observed times against ``Exp(rate)``
        truncated to the lifetime (``nan`` with fewer than two cuts).
    dim_pvalue : float
        Chi-square p-value of the dimensions against ``side_proportions``.
    location_pvalue : float
        Kolmogorov-Smirnov p-value of the locations, rescaled to ``[0, 1]`` along
        their side, against the uniform distribution.
    """

    lower: np.ndarray
    upper: np.ndarray
    lifetime: float
    times: np.ndarray
    dims: np.ndarray
    locations: np.ndarray
    rate: float
    side_proportions: np.ndarray
    ks_pvalue: float
    dim_pvalue: float
    location_pvalue: float

    @property
    def n_samples(self) -> int:
        """The number of Mondrians sampled."""
        return int(self.times.size)

    @property
    def censored_fraction(self) -> float:
        """The fraction of samples with no cut before the lifetime."""
        return float(np.mean(~np.isfinite(self.times)))


@fill_doc
def first_cut_check(lower, upper, lifetime, n_samples=2000, random_state=None) -> FirstCutCheck:
    """Sample ``n_samples`` Mondrians on the box and test their first cut against theory.

    The root of each sample is drawn by the same code as :func:`sample_mondrian_process`
    (children are not grown, as only the first cut matters). Theory: the first cut
    comes after ``Exp(sum of the sides)``, in dimension ``d`` with probability
    proportional to side ``d``, at a uniform location along it.

    Parameters
    ----------
    lower, upper : sequence of float, length D
        The box.
    lifetime : float
        The lifetime (>= 0); cuts at or after it are censored.
    n_samples : int, default=2000
        The number of independent Mondrians (>= 1).
    %(random_state)s

    Returns
    -------
    FirstCutCheck
        The observed first cuts and the p-values of the three tests.

    Raises
    ------
    InputError
        If the box, lifetime or number of samples is invalid or too large.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    sec. 2.2.
    """
    lo, hi = check_box(lower, upper)
    lifetime = check_lifetime(lifetime)
    n = _check_n_samples(n_samples)
    _mc_guard(lo, hi, 0.0, n)  # only the roots are grown: about one cell per sample
    rng = check_random_state(random_state)
    a = grow_forest(lo, hi, lifetime, n, rng, max_depth=0)
    root = a["parent"] < 0
    times, dims, locs = a["split_time"][root], a["split_dim"][root], a["split_loc"][root]
    sides = hi - lo
    rate = float(sides.sum())
    props = sides / rate if rate > 0 else np.zeros_like(sides)
    seen = np.isfinite(times)
    ks_p = dim_p = loc_p = float("nan")
    if seen.sum() >= 2 and rate > 0:
        norm = -math.expm1(-rate * lifetime)
        ks_p = float(stats.kstest(times[seen],
                                  lambda t: -np.expm1(-rate * np.asarray(t)) / norm).pvalue)
        counts = np.bincount(dims[seen], minlength=sides.size)
        pos = props > 0
        if pos.sum() >= 2:
            dim_p = float(stats.chisquare(counts[pos], props[pos] * seen.sum()).pvalue)
        u = (locs[seen] - lo[dims[seen]]) / sides[dims[seen]]
        loc_p = float(stats.kstest(u, "uniform").pvalue)
    return FirstCutCheck(lower=lo, upper=hi, lifetime=lifetime, times=times, dims=dims,
                         locations=locs, rate=rate, side_proportions=props, ks_pvalue=ks_p,
                         dim_pvalue=dim_p, location_pvalue=loc_p)


def restricted_cell_counts(arrays: dict, n_samples: int, sub_lower, sub_upper) -> np.ndarray:
    """Count the cells in a sub-box of each Mondrian of a forest, without restricting.

    A cut splits a cell of the restriction exactly when its node's box overlaps
    the sub-box and its location lies strictly inside the sub-box's range in the
    cut's dimension, so the restriction has ``1 +`` (number of such cuts) cells.

    Parameters
    ----------
    arrays : dict of str to ndarray
        The forest, as returned by :func:`grow_forest`.
    n_samples : int
        The number of Mondrians in the forest.
    sub_lower, sub_upper : ndarray of shape (D,)
        The sub-box.

    Returns
    -------
    ndarray of int, shape (n_samples,)
        The number of cells of each Mondrian's restriction to the sub-box.
    """
    internal = np.flatnonzero(arrays["split_dim"] >= 0)
    d = arrays["split_dim"][internal]
    x = arrays["split_loc"][internal]
    overlap = np.all((arrays["node_lower"][internal] < sub_upper)
                     & (arrays["node_upper"][internal] > sub_lower), axis=1)
    crosses = overlap & (sub_lower[d] < x) & (x < sub_upper[d])
    return 1 + np.bincount(arrays["root"][internal[crosses]], minlength=n_samples)


@dataclass(frozen=True)
class ProjectivityCheck:
    """Cell counts in a sub-box: restricted from the big box vs sampled directly.

    Made by :func:`projectivity_check`.

    Parameters
    ----------
    restricted : ndarray of int, shape (n_samples,)
        Cells in the sub-box of Mondrians sampled on the big box and restricted.
    direct : ndarray of int, shape (n_samples,)
        Cells of Mondrians sampled on the sub-box directly.
    expected : float
        ``prod_d (1 + lifetime * s_d)`` for the sub-box's sides ``s_d``: the mean that
        both should have.
    pvalue : float
        Chi-square two-sample (homogeneity) p-value of the two count distributions
        (counts pooled into bins with at least 5 expected per sample).
    """

    restricted: np.ndarray
    direct: np.ndarray
    expected: float
    pvalue: float


def two_sample_count_pvalue(a, b, min_expected: float = 5.0) -> float:
    """Test whether two samples of non-negative integers share a distribution.

    A chi-square homogeneity test: values are pooled into consecutive bins holding
    at least ``min_expected`` counts in each sample's expectation.

    Parameters
    ----------
    a, b : array-like of int
        The two samples (non-negative integers, e.g. cell counts).
    min_expected : float, default=5.0
        The smallest expected count per bin and sample.

    Returns
    -------
    float
        The p-value; ``nan`` if fewer than two bins remain.
    """
    a = np.asarray(a, dtype=np.intp)
    b = np.asarray(b, dtype=np.intp)
    top = int(max(a.max(), b.max())) + 1
    ca, cb = np.bincount(a, minlength=top), np.bincount(b, minlength=top)
    total = ca + cb
    need = min_expected * (a.size + b.size) / min(a.size, b.size)
    edges, acc = [], 0
    for v in range(top):  # loop over distinct count values (small), not over samples
        acc += total[v]
        if acc >= need:
            edges.append(v + 1)
            acc = 0
    if not edges:
        return float("nan")
    edges[-1] = top  # fold the sparse tail into the last bin
    edges = [0] + edges
    ta = np.add.reduceat(ca, edges[:-1])
    tb = np.add.reduceat(cb, edges[:-1])
    if ta.size < 2:
        return float("nan")
    return float(stats.chi2_contingency(np.stack([ta, tb]), correction=False).pvalue)


@fill_doc
def projectivity_check(lower, upper, sub_lower, sub_upper, lifetime, n_samples=500,
                       random_state=None) -> ProjectivityCheck:
    """Compare cell counts in a sub-box: Mondrians on the box restricted vs sampled there.

    Projectivity says a Mondrian on the box restricted to a sub-box is a Mondrian
    on the sub-box with the same lifetime, so both count distributions agree.

    Parameters
    ----------
    lower, upper : sequence of float, length D
        The big box.
    sub_lower, sub_upper : sequence of float, length D
        The sub-box; it must lie inside the big box.
    lifetime : float
        The lifetime (>= 0).
    n_samples : int, default=500
        The number of Mondrians of each kind (>= 1).
    %(random_state)s

    Returns
    -------
    ProjectivityCheck
        Both samples of counts, their theoretical mean and the test's p-value.

    Raises
    ------
    InputError
        If a box, the lifetime or the number of samples is invalid or too large.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    sec. 2.3.
    """
    lo, hi = check_box(lower, upper)
    s_lo, s_hi = check_box(sub_lower, sub_upper, "sub-box")
    if s_lo.size != lo.size:
        raise InputError(f"The sub-box must have {lo.size} dimensions, got {s_lo.size}.")
    if np.any(s_lo < lo) or np.any(s_hi > hi):
        raise InputError("The sub-box must lie inside the box.")
    lifetime = check_lifetime(lifetime)
    n = _check_n_samples(n_samples)
    _mc_guard(lo, hi, lifetime, n)
    guard_cells(lo, hi, lifetime, MAX_CELLS)
    rng = check_random_state(random_state)
    big = grow_forest(lo, hi, lifetime, n, rng)
    restricted = restricted_cell_counts(big, n, s_lo, s_hi)
    small = grow_forest(s_lo, s_hi, lifetime, n, rng)
    direct = np.bincount(small["root"][small["split_dim"] < 0], minlength=n)
    return ProjectivityCheck(restricted=restricted, direct=direct,
                             expected=float(np.prod(1.0 + lifetime * (s_hi - s_lo))),
                             pvalue=two_sample_count_pvalue(restricted, direct))


@fill_doc
def forest_cell_counts(lower, upper, lifetime, n_samples, random_state=None) -> np.ndarray:
    """Count the cells of each of ``n_samples`` independent Mondrians on the box.

    Parameters
    ----------
    lower, upper : sequence of float, length D
        The box.
    lifetime : float
        The lifetime (>= 0).
    n_samples : int
        The number of Mondrians (>= 1).
    %(random_state)s

    Returns
    -------
    ndarray of int, shape (n_samples,)
        The number of cells of each Mondrian.

    Raises
    ------
    InputError
        If the box, lifetime or number of samples is invalid or too large.
    """
    lo, hi = check_box(lower, upper)
    lifetime = check_lifetime(lifetime)
    n = _check_n_samples(n_samples)
    _mc_guard(lo, hi, lifetime, n)
    a = grow_forest(lo, hi, lifetime, n, check_random_state(random_state))
    return np.bincount(a["root"][a["split_dim"] < 0], minlength=n)


