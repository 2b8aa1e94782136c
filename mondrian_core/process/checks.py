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

from mondrian_core._validation import check_box, check_count, check_lifetime, check_random_state
from mondrian_core.errors import InputError
from mondrian_core.process.sampler import MAX_CELLS, NodeBuilder, cell_count, grow, guard_cells

#: Largest expected total number of cells of a Monte Carlo check (all samples).
MAX_MONTE_CARLO_CELLS = 2_000_000



def _check_n_samples(n_samples) -> int:
    return check_count(n_samples, "The number of samples")


def grow_forest(lo, hi, lifetime, n, rng, max_depth=None) -> dict:
    """``n`` independent Mondrians on the same box, grown together (flat arrays)."""
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

    ``times`` are ``inf`` where no cut appeared before the lifetime (censored);
    ``dims`` and ``locations`` are ``-1`` / ``nan`` there. ``rate`` is the box's linear
    dimension, ``side_proportions`` the sides divided by it. ``ks_pvalue`` tests the
    observed times against ``Exp(rate)`` truncated to the lifetime, ``dim_pvalue``
    (chi-square) the dimensions against ``side_proportions``, ``location_pvalue``
    (KS) the locations, rescaled to ``[0, 1]`` along their side, against uniform.
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
        return int(self.times.size)

    @property
    def censored_fraction(self) -> float:
        return float(np.mean(~np.isfinite(self.times)))


def first_cut_check(lower, upper, lifetime, n_samples=2000, random_state=None) -> FirstCutCheck:
    """Sample ``n_samples`` Mondrians on the box and test their first cut against theory.

    The root of each sample is drawn by the same code as :func:`sample_mondrian_process`
    (children are not grown, as only the first cut matters).
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
    """Cells in the sub-box of each sample of a forest, without building restrictions.

    A cut splits a cell of the restriction exactly when its node's box overlaps
    the sub-box and its location lies strictly inside the sub-box's range in the
    cut's dimension, so the restriction has ``1 +`` (number of such cuts) cells.
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

    ``expected`` is ``prod_d (1 + lifetime * s_d)`` for the sub-box's sides ``s_d``;
    ``pvalue`` is a chi-square two-sample (homogeneity) test of the two count
    distributions (counts pooled into bins with at least 5 expected per sample).
    """

    restricted: np.ndarray
    direct: np.ndarray
    expected: float
    pvalue: float


def two_sample_count_pvalue(a, b, min_expected: float = 5.0) -> float:
    """Chi-square homogeneity test of two samples of non-negative integers.

    Values are pooled into consecutive bins holding at least ``min_expected``
    counts in each sample's expectation; ``nan`` if fewer than two bins remain.
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


def projectivity_check(lower, upper, sub_lower, sub_upper, lifetime, n_samples=500,
                       random_state=None) -> ProjectivityCheck:
    """Number of cells in a sub-box: Mondrians on the box restricted, vs on the sub-box."""
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


def forest_cell_counts(lower, upper, lifetime, n_samples, random_state=None) -> np.ndarray:
    """Number of cells of each of ``n_samples`` independent Mondrians on the box."""
    lo, hi = check_box(lower, upper)
    lifetime = check_lifetime(lifetime)
    n = _check_n_samples(n_samples)
    _mc_guard(lo, hi, lifetime, n)
    a = grow_forest(lo, hi, lifetime, n, check_random_state(random_state))
    return np.bincount(a["root"][a["split_dim"] < 0], minlength=n)


