"""The Mondrian process page's claims, checked at its defaults with mondrian_core directly.

Same box, lifetime, seed and sample sizes as the page (explorer_ui.defaults_mondrian_process),
and the same seed offsets as the page's cached calls (seed + 1 clocks, + 2 projectivity,
+ 4 and + 5 the cell counts at lambda and 2 lambda).
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from explorer_ui import defaults_mondrian_process as D
from mondrian_core import (
    expected_cells,
    first_cut_check,
    projectivity_check,
    sample_mondrian_process,
)
from mondrian_core.process import forest_cell_counts, grow_forest

BOX = ([0.0, 0.0], [D.WIDTH, D.HEIGHT])
#: A check "passes" when its p-value is above this level (the page's captions say so).
LEVEL = 0.01
#: Two-sided z for a 1-in-1,000 false alarm on a mean.
Z = stats.norm.ppf(1 - 0.001 / 2)


def _counts(lifetime, k):
    """The page's cell counts at its lifetime (k = 0) or twice it (k = 1)."""
    return forest_cell_counts(*BOX, lifetime, D.N_COUNT, D.SEED + D.SEED_OFFSET_CELL_COUNTS + k)


def test_the_mean_number_of_cells_is_the_expectation_at_lambda_and_2_lambda():
    """Claim 1: mean cells = prod_d (1 + lambda a_d), within Z standard errors of the
    sample mean (the standard error from the samples' own spread)."""
    for k, lifetime in enumerate((D.LIFETIME, 2 * D.LIFETIME)):
        c = _counts(lifetime, k)
        expected = expected_cells(*BOX, lifetime)
        se = c.std(ddof=1) / np.sqrt(c.size)
        assert abs(c.mean() - expected) <= Z * se, (lifetime, c.mean(), expected, se)


def test_doubling_the_lifetime_multiplies_the_cells_by_less_than_four():
    """The predict-then-reveal answer: prod (1 + 2 lambda a_d) / prod (1 + lambda a_d)
    lies between 2 and 4 at the defaults, and the samples agree: the ratio of the two
    sample means is below 4 by more than its standard error times Z (delta method)."""
    ratio = expected_cells(*BOX, 2 * D.LIFETIME) / expected_cells(*BOX, D.LIFETIME)
    assert 2 < ratio < 4
    a, b = _counts(D.LIFETIME, 0), _counts(2 * D.LIFETIME, 1)
    r = b.mean() / a.mean()
    se = r * np.sqrt(a.var(ddof=1) / a.size / a.mean() ** 2
                     + b.var(ddof=1) / b.size / b.mean() ** 2)
    assert r + Z * se < 4, (r, se)
    assert abs(r - ratio) <= Z * se


def test_the_default_sample_is_close_to_the_expectation():
    """The tour's step 2 says the default sample has 17 cells against 16 expected: its
    count lies within one standard deviation of the cell count's distribution."""
    sample = sample_mondrian_process(*BOX, D.LIFETIME, D.SEED)
    spread = _counts(D.LIFETIME, 0).std(ddof=1)
    assert abs(sample.n_cells - expected_cells(*BOX, D.LIFETIME)) <= spread
    assert sample.n_cells == 17  # the number step 2 quotes for this seed
    first = sample.cut_times[0]
    assert f"{first:.2f}" == "0.06"  # step 1 quotes the first cut's time
    assert first < 0.5 < sample.cut_times[1]  # step 1: one cut at t = 0.5
    assert sample.cut_dims[0] == 0  # ... and it is vertical (it cuts the width)


def test_the_competing_clocks_check_passes():
    """Claim 2: first-cut times ~ Exp(a_1 + a_2), dimensions ~ a_d / (a_1 + a_2)."""
    check = first_cut_check(*BOX, D.LIFETIME, int(D.N_CLOCK), D.SEED + D.SEED_OFFSET_CLOCKS)
    assert check.ks_pvalue > LEVEL
    assert check.dim_pvalue > LEVEL
    # and on the tour's 2 x 1 box (step 3)
    check = first_cut_check([0, 0], [2.0, D.HEIGHT], D.LIFETIME, int(D.N_CLOCK),
                            D.SEED + D.SEED_OFFSET_CLOCKS)
    assert check.ks_pvalue > LEVEL and check.dim_pvalue > LEVEL
    assert check.rate == 3.0


def test_the_projectivity_check_passes():
    """Claim 3: restricted and direct cell counts on the default sub-box agree."""
    lo, hi = D.SUB_FRACTION
    proj = projectivity_check(*BOX, [lo * D.WIDTH, lo * D.HEIGHT], [hi * D.WIDTH, hi * D.HEIGHT],
                              D.LIFETIME, int(D.N_PROJ), D.SEED + D.SEED_OFFSET_PROJECTIVITY)
    assert proj.pvalue > LEVEL
    assert proj.expected == 6.25  # the tour's step 4 quotes it: (1 + 3 * 0.5)^2
    for counts in (proj.restricted, proj.direct):
        se = counts.std(ddof=1) / np.sqrt(counts.size)
        assert abs(counts.mean() - proj.expected) <= Z * se


# ----------------------------------------------------------------- over ten seeds

#: The page's default seed and the nine after it.
SEEDS = range(D.SEED, D.SEED + 10)


def _at_most(n_tests: int, level: float = 0.001) -> int:
    """The largest number of p-values below LEVEL, out of ``n_tests`` independent ones,
    that a correct sampler exceeds with probability below ``level`` (binomial tail)."""
    return int(stats.binom.ppf(1 - level, n_tests, LEVEL))


def test_the_checks_pass_over_ten_seeds():
    """The captions say a p-value far below 0.01 would mean a wrong sampler: over ten
    seeds, the first-cut (time, dimension) and projectivity p-values fall below 0.01 no
    more often than independent uniform p-values would (a binomial 1-in-1,000 tail)."""
    lo, hi = D.SUB_FRACTION
    pvalues = []
    for seed in SEEDS:
        check = first_cut_check(*BOX, D.LIFETIME, int(D.N_CLOCK), seed + 1)
        proj = projectivity_check(*BOX, [lo * D.WIDTH, lo * D.HEIGHT],
                                  [hi * D.WIDTH, hi * D.HEIGHT], D.LIFETIME, int(D.N_PROJ),
                                  seed + 2)
        pvalues += [check.ks_pvalue, check.dim_pvalue, proj.pvalue]
    pvalues = np.asarray(pvalues)
    assert np.isfinite(pvalues).all()
    assert (pvalues < LEVEL).sum() <= _at_most(pvalues.size), pvalues


def test_memorylessness_a_box_waits_the_same_whenever_it_was_born():
    """The page's memorylessness: a box born at time b waits Exp(its linear dimension)
    for its cut, whatever b (only the lifetime truncates the wait). For every cut box
    of 200 Mondrians per seed, the wait's probability transform under that truncated
    exponential is uniform, both for boxes born early (b < lambda / 3) and late;
    each group's KS p-value falls below 0.01 no more often than chance allows."""
    pvalues = []
    for seed in SEEDS:
        a = grow_forest(np.asarray(BOX[0]), np.asarray(BOX[1]), D.LIFETIME, 200,
                        np.random.default_rng(seed))
        cut = a["split_dim"] >= 0
        rate = (a["node_upper"] - a["node_lower"]).sum(axis=1)[cut]
        birth = a["birth_time"][cut]
        wait = a["split_time"][cut] - birth
        u = np.expm1(-rate * wait) / np.expm1(-rate * (D.LIFETIME - birth))
        early = birth < D.LIFETIME / 3
        assert early.sum() > 100 and (~early).sum() > 100  # both groups are tested
        pvalues += [stats.kstest(u[early], "uniform").pvalue,
                    stats.kstest(u[~early], "uniform").pvalue]
    pvalues = np.asarray(pvalues)
    assert (pvalues < LEVEL).sum() <= _at_most(pvalues.size), pvalues
