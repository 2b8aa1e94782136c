"""Tests of the Mondrian process sampler against theory (Balog et al. 2016, sec. 2).

Statistical tests use fixed seeds; p-value thresholds are 1e-3 and mean checks use
4 standard errors computed from the theoretical distribution.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats

from mondrian_core import (
    InputError,
    MondrianSample,
    expected_cells,
    extend_mondrian,
    first_cut_check,
    max_lifetime,
    projectivity_check,
    sample_mondrian_process,
)
from mondrian_core.process import (
    forest_cell_counts,
    grow_forest,
    restricted_cell_counts,
    two_sample_count_pvalue,
)

ALPHA = 1e-3


def truncated_exp_cdf(rate, lifetime):
    norm = -np.expm1(-rate * lifetime)
    return lambda t: -np.expm1(-rate * np.asarray(t)) / norm


def naive_sample(lower, upper, lifetime, rng, birth=0.0):
    """The obvious recursive sampler, one box at a time: list of (time, dim, loc)."""
    lower, upper = np.array(lower, float), np.array(upper, float)
    sides = upper - lower
    t = birth + rng.exponential(1.0 / sides.sum())
    if t >= lifetime:
        return []
    d = rng.choice(len(sides), p=sides / sides.sum())
    x = rng.uniform(lower[d], upper[d])
    lu, rl = upper.copy(), lower.copy()
    lu[d] = rl[d] = x
    return [(t, d, x)] + naive_sample(lower, lu, lifetime, rng, t) + naive_sample(rl, upper,
                                                                                  lifetime, rng, t)


# ----------------------------------------------------------------- structure


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cells_tile_the_box(seed):
    lo, hi = np.array([0.0, -1.0, 2.0]), np.array([1.5, 0.5, 2.5])
    s = sample_mondrian_process(lo, hi, 3.0, seed)
    cells = s.cells()
    assert cells.shape == (s.n_cells, 2, 3)
    assert np.all(cells[:, 0] >= lo) and np.all(cells[:, 1] <= hi)
    vol = np.prod(cells[:, 1] - cells[:, 0], axis=1)
    assert vol.sum() == pytest.approx(np.prod(hi - lo), rel=1e-12)
    # pairwise intersections have zero volume
    inter = np.clip(np.minimum(cells[:, None, 1], cells[None, :, 1])
                    - np.maximum(cells[:, None, 0], cells[None, :, 0]), 0, None).prod(axis=2)
    np.fill_diagonal(inter, 0)
    assert inter.max() == 0
    assert s.n_cells == s.cut_times.size + 1


def test_tree_arrays_are_consistent():
    s = sample_mondrian_process([0, 0], [2, 1], 4.0, 5)
    assert s.parent[0] == -1 and s.birth_time[0] == 0
    assert np.all(np.diff(s.cut_times) >= 0) and np.all(s.cut_times < s.lifetime)
    internal = np.flatnonzero(~s.is_leaf)
    for j in internal:
        a, b = s.left[j], s.right[j]
        assert s.parent[a] == j and s.parent[b] == j
        assert s.birth_time[a] == s.birth_time[b] == s.split_time[j] > s.birth_time[j]
        d, x = s.split_dim[j], s.split_loc[j]
        assert s.node_upper[a, d] == x == s.node_lower[b, d]
        assert s.node_lower[j, d] < x < s.node_upper[j, d]
    leaves = s.is_leaf
    assert np.all(s.left[leaves] == -1) and np.all(np.isinf(s.split_time[leaves]))


def test_cells_at_a_time_count_the_cuts_so_far():
    s = sample_mondrian_process([0, 0], [1, 1], 5.0, 3)
    for t in [0.0, *s.cut_times[:5], 2.0, 5.0]:
        cells = s.cells(t)
        assert len(cells) == 1 + np.count_nonzero(s.cut_times <= t)
        assert np.prod(cells[:, 1] - cells[:, 0], axis=1).sum() == pytest.approx(1.0)
    with pytest.raises(InputError, match="time"):
        s.cells(6.0)


def test_same_seed_same_sample_and_generators_accepted():
    a = sample_mondrian_process([0, 0], [1, 1], 4.0, 7)
    b = sample_mondrian_process([0, 0], [1, 1], 4.0, np.random.default_rng(7))
    np.testing.assert_array_equal(a.cut_times, b.cut_times)
    np.testing.assert_array_equal(a.cut_locations, b.cut_locations)


def test_zero_lifetime_and_degenerate_side():
    s = sample_mondrian_process([0, 0], [1, 1], 0.0, 0)
    assert s.n_cells == 1 and s.cut_times.size == 0
    s = sample_mondrian_process([0, 0], [1, 0], 5.0, 0)  # height 0: cuts only in x
    assert np.all(s.cut_dims == 0)


@pytest.mark.parametrize("args, match", [
    (([0, 0], [1], 1.0), "same length"),
    (([0, 1], [1, 0], 1.0), "not be below"),
    (([0, 0], [1, np.inf], 1.0), "finite"),
    (([0, 0], [1, 1], -1.0), "lifetime"),
    (([0, 0], [1, 1], "x"), "lifetime"),
])
def test_bad_input_is_refused(args, match):
    with pytest.raises(InputError, match=match):
        sample_mondrian_process(*args)


# ----------------------------------------------------------------- the guard


def test_lifetime_guard_names_the_largest_lifetime_that_fits():
    lo, hi = [0, 0], [2, 1]
    with pytest.raises(InputError) as err:
        sample_mondrian_process(lo, hi, 1000.0, max_cells=200_000)
    msg = str(err.value)
    suggested = float(re.search(r"at most ([0-9.e+]+)", msg).group(1))
    assert expected_cells(lo, hi, suggested) <= 200_000  # it fits ...
    assert expected_cells(lo, hi, suggested * 1.01) > 200_000  # ... and is nearly the largest
    sample_mondrian_process(lo, hi, suggested, 0, max_cells=200_000)  # and is accepted
    assert expected_cells(lo, hi, max_lifetime(lo, hi, 5000)) == pytest.approx(5000)


def test_extension_guard():
    s = sample_mondrian_process([0, 0], [1, 1], 100.0, 0)
    with pytest.raises(InputError, match="at most"):
        extend_mondrian(s, [-10, -10], [10, 10], 0)


# ----------------------------------------------------------------- competing clocks


def test_first_cut_time_dimension_and_location():
    lo, hi, lifetime = np.array([0.0, 0.0, 0.0]), np.array([2.0, 1.0, 0.5]), 1.0
    rate = 3.5
    rng = np.random.default_rng(11)
    n = 2000
    first = [sample_mondrian_process(lo, hi, lifetime, rng) for _ in range(n)]
    seen = [s for s in first if s.cut_times.size]
    times = np.array([s.cut_times[0] for s in seen])
    dims = np.array([s.cut_dims[0] for s in seen])
    locs = np.array([s.cut_locations[0] for s in seen])
    # censoring: P(no cut before the lifetime) = exp(-rate * lifetime)
    p0 = np.exp(-rate * lifetime)
    assert abs((n - len(seen)) / n - p0) < 4 * np.sqrt(p0 * (1 - p0) / n)
    assert stats.kstest(times, truncated_exp_cdf(rate, lifetime)).pvalue > ALPHA
    props = (hi - lo) / rate
    assert stats.chisquare(np.bincount(dims, minlength=3), props * len(seen)).pvalue > ALPHA
    u = (locs - lo[dims]) / (hi - lo)[dims]
    assert stats.kstest(u, "uniform").pvalue > ALPHA


def test_first_cut_check_matches_theory():
    check = first_cut_check([0, 0], [3, 1], 2.0, n_samples=5000, random_state=1)
    assert check.rate == 4.0
    np.testing.assert_allclose(check.side_proportions, [0.75, 0.25])
    assert min(check.ks_pvalue, check.dim_pvalue, check.location_pvalue) > ALPHA
    p0 = np.exp(-8.0)
    assert abs(check.censored_fraction - p0) < 4 * np.sqrt(p0 * (1 - p0) / 5000) + 1 / 5000


def test_cuts_on_an_interval_are_poisson():
    lam, length, n = 3.0, 2.0, 4000
    mu = lam * length
    cuts = forest_cell_counts([0.0], [length], lam, n, random_state=2) - 1
    assert abs(cuts.mean() - mu) < 4 * np.sqrt(mu / n)
    # Var(sample variance) of a Poisson(mu) is about (mu + 2 mu^2) / n
    assert abs(cuts.var(ddof=1) - mu) < 4 * np.sqrt((mu + 2 * mu**2) / n)
    top = 14
    obs = np.bincount(np.minimum(cuts, top), minlength=top + 1)
    exp = stats.poisson.pmf(np.arange(top + 1), mu) * n
    exp[-1] = stats.poisson.sf(top - 1, mu) * n
    assert stats.chisquare(obs, exp).pvalue > ALPHA


def test_public_sampler_on_an_interval_is_poisson_with_uniform_cuts():
    rng = np.random.default_rng(3)
    samples = [sample_mondrian_process([1.0], [2.5], 2.0, rng) for _ in range(1500)]
    counts = np.array([s.cut_times.size for s in samples])
    mu = 3.0
    assert abs(counts.mean() - mu) < 4 * np.sqrt(mu / counts.size)
    locs = np.concatenate([s.cut_locations for s in samples])
    assert stats.kstest((locs - 1.0) / 1.5, "uniform").pvalue > ALPHA


def test_vectorised_sampler_matches_naive_recursion():
    rng = np.random.default_rng(4)
    naive = np.array([len(naive_sample([0, 0], [1, 2], 1.5, rng)) + 1 for _ in range(1500)])
    fast = forest_cell_counts([0, 0], [1, 2], 1.5, 1500, random_state=5)
    assert two_sample_count_pvalue(naive, fast) > ALPHA
    expected = expected_cells([0, 0], [1, 2], 1.5)
    assert abs(fast.mean() - expected) < 4 * fast.std(ddof=1) / np.sqrt(fast.size)


# ----------------------------------------------------------------- projectivity


def test_restriction_keeps_exactly_the_cuts_that_cross_the_sub_box():
    s = sample_mondrian_process([0, 0], [2, 1], 4.0, 8)
    sub_lo, sub_hi = np.array([0.3, 0.2]), np.array([1.1, 0.9])
    r = s.restrict(sub_lo, sub_hi)
    assert isinstance(r, MondrianSample)
    cells = r.cells()
    assert np.prod(cells[:, 1] - cells[:, 0], axis=1).sum() == pytest.approx(0.8 * 0.7)
    # each restricted cell is the intersection of one original cell with the sub-box
    orig = s.cells()
    inter_lo = np.maximum(orig[:, 0], sub_lo)
    inter_hi = np.minimum(orig[:, 1], sub_hi)
    keep = np.all(inter_hi > inter_lo, axis=1)
    a = np.sort(np.concatenate([inter_lo[keep], inter_hi[keep]], axis=1), axis=0)
    b = np.sort(np.concatenate([cells[:, 0], cells[:, 1]], axis=1), axis=0)
    np.testing.assert_allclose(a, b)
    assert set(r.cut_times) <= set(s.cut_times)


def test_fast_restricted_counts_equal_restrict():
    rng = np.random.default_rng(9)
    arrays = grow_forest(np.zeros(2), np.ones(2), 5.0, 30, rng)
    sub_lo, sub_hi = np.array([0.1, 0.4]), np.array([0.6, 0.8])
    fast = restricted_cell_counts(arrays, 30, sub_lo, sub_hi)
    rng = np.random.default_rng(10)
    for _ in range(5):
        s = sample_mondrian_process([0, 0], [1, 1], 5.0, rng)
        big = _forest_from_sample(s)
        assert restricted_cell_counts(big, 1, sub_lo, sub_hi)[0] == s.restrict(sub_lo,
                                                                              sub_hi).n_cells
    assert fast.shape == (30,)


def _forest_from_sample(s):
    return dict(split_dim=s.split_dim, split_loc=s.split_loc, node_lower=s.node_lower,
                node_upper=s.node_upper, root=np.zeros(s.n_nodes, np.intp))


def test_projectivity_restriction_vs_direct():
    lo, hi = [0, 0], [2, 1]
    sub_lo, sub_hi = [0.5, 0.25], [1.25, 0.75]
    check = projectivity_check(lo, hi, sub_lo, sub_hi, 3.0, n_samples=3000, random_state=12)
    assert check.pvalue > ALPHA
    assert check.expected == pytest.approx((1 + 3 * 0.75) * (1 + 3 * 0.5))
    for counts in (check.restricted, check.direct):
        assert abs(counts.mean() - check.expected) < 4 * counts.std(ddof=1) / np.sqrt(counts.size)
    # the restriction's first cut is Exp(linear dimension of the sub-box), via restrict()
    rng = np.random.default_rng(13)
    t = np.array([sample_mondrian_process(lo, hi, 50.0, rng, max_cells=1e6)
                  .restrict(sub_lo, sub_hi).cut_times[0] for _ in range(400)])
    assert stats.kstest(t, truncated_exp_cdf(1.25, 50.0)).pvalue > ALPHA


def test_restrict_refuses_a_box_outside():
    s = sample_mondrian_process([0, 0], [1, 1], 2.0, 0)
    with pytest.raises(InputError, match="inside"):
        s.restrict([0.5, 0.5], [1.5, 1.0])


# ----------------------------------------------------------------- extension


@pytest.mark.parametrize("seed", range(5))
def test_extension_restricted_to_the_old_box_is_the_old_sample(seed):
    old = sample_mondrian_process([0.2, 0.3], [0.8, 0.6], 6.0, seed)
    new = extend_mondrian(old, [0, 0], [1.5, 1], seed + 100)
    back = new.restrict(old.lower, old.upper)
    np.testing.assert_array_equal(back.cut_times, old.cut_times)
    np.testing.assert_array_equal(back.cut_dims, old.cut_dims)
    np.testing.assert_array_equal(back.cut_locations, old.cut_locations)
    key = lambda c: np.lexsort(c.reshape(len(c), -1).T)  # noqa: E731
    a, b = back.cells(), old.cells()
    np.testing.assert_array_equal(a[key(a)], b[key(b)])
    # and it is a partition of the new box
    cells = new.cells()
    assert np.prod(cells[:, 1] - cells[:, 0], axis=1).sum() == pytest.approx(1.5)
    kept = new.source_node >= 0
    assert set(new.source_node[kept]) == set(range(old.n_nodes))


def test_extension_to_the_same_box_changes_nothing():
    old = sample_mondrian_process([0, 0], [1, 1], 4.0, 1)
    new = old.extend(old.lower, old.upper, 2)
    np.testing.assert_array_equal(new.cut_times, old.cut_times)
    assert new.n_nodes == old.n_nodes


def test_extension_is_distributed_as_a_direct_sample():
    small_lo, small_hi = [0.5, 0.2], [1.0, 0.6]
    big_lo, big_hi = np.array([0.0, 0.0]), np.array([1.5, 1.0])
    lifetime, n = 2.0, 1500
    rng = np.random.default_rng(21)
    ext = [extend_mondrian(sample_mondrian_process(small_lo, small_hi, lifetime, rng),
                           big_lo, big_hi, rng) for _ in range(n)]
    counts = np.array([e.n_cells for e in ext])
    direct = forest_cell_counts(big_lo, big_hi, lifetime, n, random_state=22)
    assert two_sample_count_pvalue(counts, direct) > ALPHA
    first = np.array([e.cut_times[0] for e in ext if e.cut_times.size])
    rate = 2.5
    p0 = np.exp(-rate * lifetime)
    assert abs((n - first.size) / n - p0) < 4 * np.sqrt(p0 * (1 - p0) / n) + 1 / n
    assert stats.kstest(first, truncated_exp_cdf(rate, lifetime)).pvalue > ALPHA
    dims = np.array([e.cut_dims[0] for e in ext if e.cut_times.size])
    assert stats.chisquare(np.bincount(dims, minlength=2),
                           np.array([1.5, 1.0]) / rate * first.size).pvalue > ALPHA
    locs = np.array([e.cut_locations[0] for e in ext if e.cut_times.size])
    u = (locs - big_lo[dims]) / (big_hi - big_lo)[dims]
    assert stats.kstest(u, "uniform").pvalue > ALPHA


def test_extension_refuses_a_smaller_box():
    s = sample_mondrian_process([0, 0], [1, 1], 2.0, 0)
    with pytest.raises(InputError, match="contain"):
        extend_mondrian(s, [0.1, 0], [1, 1], 0)


def test_extension_chain_keeps_the_old_sample_and_maps_to_it():
    from mondrian_core import extension_chain

    old = sample_mondrian_process([0.4, 0.4], [0.6, 0.7], 5.0, 3)
    chain = extension_chain(old, [0, 0], [1, 1], 4, 4)
    assert len(chain) == 4
    sizes = [np.prod(s.upper - s.lower) for s in chain]
    assert np.all(np.diff(sizes) > 0) and sizes[-1] == pytest.approx(1.0)
    for step in chain:
        back = step.restrict(old.lower, old.upper)
        np.testing.assert_array_equal(back.cut_times, old.cut_times)
        kept = step.source_node >= 0
        # every kept node has the old node's cut (same time, dimension and location)
        src = step.source_node[kept]
        np.testing.assert_array_equal(step.split_time[kept], old.split_time[src])
        np.testing.assert_array_equal(step.split_dim[kept], old.split_dim[src])
        assert set(src) == set(range(old.n_nodes))
