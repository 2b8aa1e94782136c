"""DebiasedMondrianForestRegressor and its pointwise path against the theory of Cattaneo,
Klusowski and Underwood (2023/2026) and against slow obvious versions.

Tolerances come from the Monte Carlo error of each check (z = 4 standard errors, a false
alarm about once in 16,000 runs) or, for quadrature, from the next term of the
expansion; every seed is fixed.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import mondrian_core as mc
from mondrian_core.errors import InputError
from mondrian_core.experiments.inference import (
    coverage_repetitions,
    coverage_summary,
    grown_cells_at,
    leading_bias,
    limit_bias,
    regression_function,
    theory_sd,
)
from mondrian_core.forest.debiased import (
    VARIANCE_CONSTANT_1D,
    child_keys,
    debias_weights,
    default_lifetime_ratios,
    descend,
    forest_at_point,
    node_cut,
    polynomial_lifetime,
    sample_cells_at,
    variance_constant,
)

Z = 4.0


# ---------------------------------------------------------------- weights and constants
def test_variance_constant_one_dimension_is_the_papers():
    assert VARIANCE_CONSTANT_1D == pytest.approx(0.409137, abs=1e-6)
    for d in (1, 2, 3):
        assert variance_constant(d) == pytest.approx(VARIANCE_CONSTANT_1D ** d, rel=1e-12)


def test_weights_for_the_default_ratios_solve_the_jackknife_by_hand():
    """Cattaneo, Klusowski and Underwood (2023), sec. 4's system solved by hand: a = (1,
    1.5) gives omega = (-0.8, 1.8); the others to their printed digits."""
    np.testing.assert_allclose(debias_weights(default_lifetime_ratios(1)), [-0.8, 1.8])
    np.testing.assert_allclose(debias_weights(default_lifetime_ratios(2)),
                               [0.197, -1.44, 2.243], atol=6e-4)
    np.testing.assert_allclose(debias_weights([1.0, 1.05]), [-9.756, 10.756], atol=6e-4)


@pytest.mark.parametrize("ratios", [(1.0, 2.0, 3.0), (1.0, 1.5, 2.0, 2.5)])
def test_weights_for_arithmetic_ratios_are_the_lagrange_weights_at_zero(ratios):
    """sum_r omega_r z_r^s = 1{s=0} with z_r = a_r^-2 makes omega the Lagrange basis of
    the nodes z_r evaluated at 0: omega_r = prod_{k != r} z_k / (z_k - z_r)."""
    a = np.asarray(ratios)
    z = a ** -2.0
    want = [np.prod([z[k] / (z[k] - z[r]) for k in range(a.size) if k != r])
            for r in range(a.size)]
    got = debias_weights(a)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    s = np.arange(a.size)[:, None]
    np.testing.assert_allclose((a[None, :] ** (-2.0 * s)) @ got, np.eye(a.size)[0], atol=1e-10)
    # the transposed system (the paper's and its code's) gives other weights here
    transposed = np.linalg.solve((a[None, :] ** (-2.0 * s)).T, np.eye(a.size)[0])
    assert not np.allclose(transposed, got, atol=1e-3)


@pytest.mark.parametrize("ratios, table", [
    (default_lifetime_ratios(1), ("2.03", "3.75", "6.53")),
    (default_lifetime_ratios(2), ("3.35", "9.98", "27.6")),
    ((1.0, 1.05), ("1.65", "2.47", "3.46")),
])
def test_debiased_variance_ratio_matches_reference_values(ratios, table):
    """Sigma_d / Sigma (the constant of Cattaneo, Klusowski and Underwood 2023, Theorem
    4.1, over Theorem 3.1's), computed independently of this code, to the rounding of
    their last printed digit."""
    for d, printed in zip((1, 2, 3), table):
        ratio = variance_constant(d, ratios) / variance_constant(d)
        decimals = len(printed.split(".")[1])
        assert abs(ratio - float(printed)) <= 0.5 * 10.0 ** -decimals


# ---------------------------------------------------------------- pointwise cells
@pytest.mark.parametrize("how", ["pointwise", "grown", "lazy trees"])
def test_cells_of_a_point_have_exponential_half_widths(how):
    """The cell of x under a Mondrian of lifetime lambda on the unit cube has half-widths
    min(Exp(lambda), boundary distance), independent across sides (Mourtada, Gaiffas and
    Scornet 2020): checked for the pointwise sampler, for whole trees grown by
    sample_mondrian_process (the slow obvious version) and for the estimator's lazy
    trees, by a Kolmogorov-Smirnov test on each side at level 1e-4."""
    x, lifetime, B = np.array([0.3, 0.6]), 4.0, 400
    if how == "pointwise":
        lo, hi = sample_cells_at(x, lifetime, B, random_state=1)
    elif how == "grown":
        lo, hi = grown_cells_at(x, lifetime, B, random_state=2)
    else:
        roots = np.random.default_rng(3).integers(0, 2**63, B, dtype=np.uint64)
        _, lo, hi = descend(x[None], roots, lifetime)
        lo, hi = lo[:, 0], hi[:, 0]
    for j in range(2):
        for width, reach in ((x[j] - lo[:, j], x[j]), (hi[:, j] - x[j], 1 - x[j])):
            # the atom at the boundary: its frequency within binomial error
            atom = np.exp(-lifetime * reach)
            at = np.mean(np.isclose(width, reach))
            assert abs(at - atom) <= Z * np.sqrt(atom * (1 - atom) / B)
            inner = width[~np.isclose(width, reach)]
            # below the face: Exp(lifetime) conditioned on staying below it
            def cdf(t, mass=1 - atom):
                return -np.expm1(-lifetime * np.asarray(t)) / mass
            assert stats.kstest(inner, cdf).pvalue > 1e-4
    # sides independent: the two half-widths of dimension 0 uncorrelated
    r = np.corrcoef(x[0] - lo[:, 0], hi[:, 0] - x[0])[0, 1]
    assert abs(r) < Z / np.sqrt(B)


def _slow_forest_at_point(U, y, cells, omega, level):
    """The estimator and interval at one point, written out tree by tree."""
    n = U.shape[0]
    w = np.zeros(n)
    estimates = []
    for lo, hi in cells:
        B = lo.shape[0]
        wr = np.zeros(n)
        for b in range(B):
            members = [i for i in range(n) if np.all(lo[b] <= U[i]) and np.all(U[i] <= hi[b])]
            for i in members:
                wr[i] += 1.0 / len(members) / B
        estimates.append(wr @ y)
        w += wr * omega[len(estimates) - 1]
    est = float(np.dot(omega, estimates))
    lo, hi = cells[0]
    s2 = 0.0
    for b in range(lo.shape[0]):
        members = [i for i in range(n) if np.all(lo[b] <= U[i]) and np.all(U[i] <= hi[b])]
        if members:
            s2 += np.mean((y[members] - est) ** 2) / lo.shape[0]
    half = stats.norm.ppf(0.5 + level / 2) * np.sqrt(s2 * (w @ w))
    return est, est - half, est + half


def test_pointwise_path_equals_the_obvious_loops():
    rng = np.random.default_rng(4)
    U, y = rng.random((80, 2)), rng.normal(size=80)
    x = np.array([0.4, 0.55])
    cells = [sample_cells_at(x, lam, 7, rng) for lam in (2.0, 3.0)]  # some cells empty
    omega = debias_weights([1.0, 1.5])
    got = forest_at_point(U, y, cells, omega, 0.9)
    want = _slow_forest_at_point(U, y, cells, omega, 0.9)
    np.testing.assert_allclose([got.estimate, got.lower, got.upper], want, rtol=1e-12)


@pytest.mark.parametrize("debias_order", [0, 1])
def test_predict_std_is_sigma_hat_times_the_weights_norm(debias_order):
    """predict_std(x) = sqrt(sigma_hat^2(x) sum_i w_i(x)^2), the slow loops' interval
    half-width over its normal quantile, whatever the level."""
    rng = np.random.default_rng(6)
    X = rng.random((70, 2))
    y = X[:, 0] ** 2 + rng.normal(scale=0.2, size=70)
    model = mc.DebiasedMondrianForestRegressor(lifetime=3.0, n_estimators=5,
                                               debias_order=debias_order,
                                               random_state=1).fit(X, y)
    lower, upper = model.box_
    U = (X - lower) / (upper - lower)
    Q = rng.random((6, 2))
    leaf_sets = model.cells(Q)
    for level in (0.8, 0.95):
        want = []
        for p in range(Q.shape[0]):
            cells = [(lo[:, p], hi[:, p]) for lo, hi in leaf_sets]
            _, lo_p, hi_p = _slow_forest_at_point(U, y, cells, model.omega_, level)
            want.append((hi_p - lo_p) / (2 * stats.norm.ppf(0.5 + level / 2)))
        np.testing.assert_allclose(model.predict_std(Q), want, rtol=1e-10, atol=1e-12)
    assert np.all(model.predict_std(Q) > 0)


# ---------------------------------------------------------------- lazy trees
def _grow_whole(key, lower, upper, born, lifetime, leaves):
    """Every leaf of the tree with root ``key``, by recursion over all its nodes."""
    wait, dim, loc = node_cut(np.array([key]), lower[None], upper[None])
    if born + wait[0] >= lifetime:
        leaves.append((lower, upper))
        return
    d, c = dim[0], loc[0]
    left_hi, right_lo = upper.copy(), lower.copy()
    left_hi[d], right_lo[d] = c, c
    for right, (lo, hi) in ((False, (lower, left_hi)), (True, (right_lo, upper))):
        child = child_keys(np.array([key]), np.array([right]))[0]
        _grow_whole(child, lo, hi, born + wait[0], lifetime, leaves)


def test_estimator_equals_cell_averages_of_its_whole_trees():
    """Grow each lazy tree whole (every node, by recursion with the same hashed draws),
    then compute predict and the interval from the leaves' boxes the obvious way."""
    rng = np.random.default_rng(5)
    X = rng.random((60, 2)) * [2.0, 1.0] + [1.0, -1.0]
    y = np.sin(3 * X[:, 0]) + rng.normal(scale=0.3, size=60)
    model = mc.DebiasedMondrianForestRegressor(lifetime=2.5, n_estimators=4, debias_order=1,
                                               random_state=0).fit(X, y)
    lower, upper = model.box_
    U = (X - lower) / (upper - lower)
    Q = rng.random((9, 2)) * [2.0, 1.0] + [1.0, -1.0]
    V = (Q - lower) / (upper - lower)
    # the leaves of whole trees, from the roots the estimator drew
    leaf_sets = model.cells(Q)
    pred = model.predict(Q)
    lo_ci, hi_ci = model.confidence_interval(Q, level=0.9)
    for p in range(Q.shape[0]):
        cells = [(lo[:, p], hi[:, p]) for lo, hi in leaf_sets]
        want = _slow_forest_at_point(U, y, cells, model.omega_, 0.9)
        np.testing.assert_allclose([pred[p], lo_ci[p], hi_ci[p]], want, rtol=1e-10, atol=1e-12)
    # the cells the estimator reports are leaves of the whole trees
    forest = model._forests[0]
    for b in range(2):
        leaves = []
        _grow_whole(forest.roots[b], np.zeros(2), np.ones(2), 0.0, forest.lifetime, leaves)
        assert abs(sum(np.prod(top - bottom) for bottom, top in leaves) - 1.0) < 1e-12
        lo, hi = leaf_sets[0]
        for p in range(Q.shape[0]):
            hits = [k for k, (bottom, top) in enumerate(leaves)
                    if np.all(bottom <= V[p]) and np.all(V[p] <= top)]
            assert any(np.allclose(leaves[k][0], lo[b, p]) and np.allclose(leaves[k][1], hi[b, p])
                       for k in hits)


def test_points_outside_the_box_are_clipped_to_it():
    rng = np.random.default_rng(6)
    X, y = rng.random((50, 2)), rng.normal(size=50)
    model = mc.DebiasedMondrianForestRegressor(3.0, 10, random_state=0).fit(X, y)
    far = np.array([[-5.0, 0.5], [0.5, 9.0]])
    np.testing.assert_array_equal(model.predict(far),
                                  model.predict(np.clip(far, model.box_[0], model.box_[1])))


def test_empty_cell_rate_is_the_empty_share_of_uniform_points():
    """empty_cell_rate_ (exact volumes of the non-empty leaves) against the fraction of
    empty cells seen by uniform probe points (binomial error over trees x probes, with
    the probes' cells correlated within a tree: bounded by the per-tree error)."""
    rng = np.random.default_rng(7)
    X, y = rng.random((300, 2)), rng.normal(size=300)
    model = mc.DebiasedMondrianForestRegressor(12.0, 50, box=([0, 0], [1, 1]),
                                               random_state=1).fit(X, y)
    probes = rng.random((2000, 2))
    seen = model.empty_cell_fraction(probes).mean()
    p = model.empty_cell_rate_
    assert p > 0.01
    assert abs(seen - p) <= Z * np.sqrt(p * (1 - p) / 2000) + Z * np.sqrt(p * (1 - p) / 50)


# ---------------------------------------------------------------- bias
def test_limit_bias_matches_reference_values_and_the_expansion():
    """Exact bias (n, B -> infinity) at d = 1, computed independently of this code: -0.0447
    at lambda = 10 and -0.01214 at 20; beyond, B_1 / lambda^2 + B_2 / lambda^4 with the next term
    B_3 / lambda^6 (B_r = (-1)^r pi^(2r) / (r + 1)) as the tolerance."""
    assert limit_bias(10.0, 1) == pytest.approx(-0.0447, abs=5e-5)
    # the reference -0.01214 is the cell without its truncation at the cube's faces (that
    # gives -0.0121378); a half-width reaches a face with probability e^-10, which moves
    # the bias by 6e-6, to -0.0121320
    assert limit_bias(20.0, 1) == pytest.approx(-0.01214, abs=1e-5)
    B = [(-1) ** r * np.pi ** (2 * r) / (r + 1) for r in (1, 2, 3)]
    for lam in (20.0, 40.0, 80.0):
        for d in (1, 2):
            two_terms = d * (B[0] / lam ** 2 + B[1] / lam ** 4)
            assert abs(limit_bias(lam, d) - two_terms) <= 2 * d * abs(B[2]) / lam ** 6
    # debiased: omega_bar B_2 / lambda^4 to within the next term (Cattaneo, Klusowski and
    # Underwood 2023, Theorem 4.2: -0.444 * pi^4 / 3 / 20^4 = -9.0e-5)
    assert leading_bias(20.0, 1, debias_order=1) == pytest.approx(-9.0e-5, abs=1e-6)
    assert limit_bias(20.0, 1, debias_order=1) == pytest.approx(-9.3e-5, abs=1e-6)


@pytest.mark.parametrize("J, slope", [(0, -2.0), (1, -4.0)])
def test_bias_falls_like_lambda_to_the_minus_2J_plus_2(J, slope):
    lam = np.geomspace(20, 160, 5)
    b = np.array([limit_bias(v, 1, debias_order=J) for v in lam])
    fitted = np.polyfit(np.log(lam), np.log(np.abs(b)), 1)[0]
    # the next term changes the local slope by about 2 B_{J+2} / (B_{J+1} lambda^2)
    assert fitted == pytest.approx(slope, abs=0.02)
    np.testing.assert_allclose(b * lam ** (2 * J + 2),
                               leading_bias(lam, 1, debias_order=J) * lam ** (2 * J + 2),
                               rtol=0.05)


def test_monte_carlo_bias_of_the_forest_follows_B1_over_lambda_squared():
    """The pointwise forest on noise-free data (n = 20,000, many trees): its bias at the
    centre matches the exact limit within Monte Carlo error at lambda = 5, 10, 20, and
    its log-log slope is -2 within the error the fit inherits."""
    lams = np.array([5.0, 10.0, 20.0])
    means, ses = [], []
    x = np.array([0.5])
    for i, lam in enumerate(lams):
        rng = np.random.default_rng([8, i])
        per_fit = []
        for _ in range(8):
            U = rng.random((20_000, 1))
            y = regression_function(U)
            cells = sample_cells_at(x, lam, 150, rng)
            per_fit.append(forest_at_point(U, y, [cells], [1.0]).estimate - 1.0)
        means.append(np.mean(per_fit))
        ses.append(np.std(per_fit, ddof=1) / np.sqrt(len(per_fit)))
        assert abs(means[-1] - limit_bias(lam, 1)) <= Z * ses[-1] + 1e-4
    means, ses = np.array(means), np.array(ses)
    fitted = np.polyfit(np.log(lams), np.log(-means), 1)[0]
    slope_se = np.sqrt(np.sum((ses / means) ** 2)) / np.log(2)
    assert abs(fitted - (-2.0)) <= Z * slope_se + 0.05  # 0.05: B_2's effect at lambda = 5


# ---------------------------------------------------------------- variance
@pytest.mark.parametrize("d, lam, n, J", [(1, 20.0, 10_000, 0), (1, 20.0, 10_000, 1),
                                          (2, 10.0, 20_000, 0), (2, 10.0, 20_000, 1)])
def test_variance_constant_by_monte_carlo(d, lam, n, J):
    """n / lambda^d sum_i w_i^2 (Var(mu_hat | X, T) at unit noise) tends to V_d (the
    double sum; ((4 - 4 log 2) / 3)^d for J = 0) plus the B-tree term
    (1/B) sum_r omega_r^2 (a_r^d - (2 l_rr)^d), since E[1/N_r] ~ (a_r lambda)^d / n."""
    B, R = 40, 60 if d == 2 else 120
    a = default_lifetime_ratios(J)
    omega = debias_weights(a)
    x = np.full(d, 0.5)
    rng = np.random.default_rng([9, d, J])
    values = []
    for _ in range(R):
        U = rng.random((n, d))
        cells = [sample_cells_at(x, lam * ar, B, rng) for ar in a]
        values.append(forest_at_point(U, np.zeros(n), cells, omega).sum_w2 * n / lam ** d)
    values = np.array(values)
    ell2 = 2 * (2 * a / 3) * (1 - np.log(2))
    target = variance_constant(d, a) + np.sum(omega ** 2 * (a ** d - ell2 ** d)) / B
    assert abs(values.mean() - target) <= Z * values.std(ddof=1) / np.sqrt(R)


# ---------------------------------------------------------------- coverage, reference run
def test_debiased_intervals_cover_95_percent_in_one_dimension():
    """d = 1, lambda = 10, n = 1000, B = 100, J = 1: coverage within binomial error."""
    R = 300
    stack = coverage_repetitions(0, R, d=1, n=1000, lifetime=10.0, n_trees=100,
                                 debias_order=1, seed=11, smoothed=False)
    coverage = coverage_summary(stack)["coverage"][1]
    assert abs(coverage - 0.95) <= Z * np.sqrt(0.95 * 0.05 / R)


# a reference Monte Carlo (mu = sum_j sin(pi x_j) at the centre, sigma = 1, n = 1000,
# B = 100, a_r = 1.5^r), run independently of this code when the estimator was specified;
# it is not the simulation table of Cattaneo, Klusowski and Underwood (2023):
# (d, lambda, J, bias, sd, coverage, width or None), 200 repetitions
REFERENCE_RUN = [(1, 10.0, 0, -0.043, 0.067, 0.920, 0.252), (1, 10.0, 1, -0.0005, 0.094, 0.965, 0.364),
         (2, 5.0, 0, -0.246, 0.070, 0.055, None), (2, 5.0, 1, -0.099, 0.142, 0.86, None)]


@pytest.mark.parametrize("d, lam", [(1, 10.0), (2, 5.0)])
def test_the_reference_run_is_reproduced_within_its_monte_carlo_error(d, lam):
    """200 fresh repetitions against the reference run's 200: each difference within Z times the
    standard error of a difference of two independent estimates."""
    R = 200
    stack = coverage_repetitions(0, R, d=d, n=1000, lifetime=lam, n_trees=100,
                                 debias_order=1, seed=12, smoothed=False)
    summary = coverage_summary(stack)
    for row in [r for r in REFERENCE_RUN if r[:2] == (d, lam)]:
        J, bias, sd, coverage, width = row[2:]
        est = stack.estimate[:, J]
        w = stack.upper[:, J] - stack.lower[:, J]
        my_sd = est.std(ddof=1)
        assert abs(est.mean() - stack.truth - bias) <= Z * np.sqrt(2) * my_sd / np.sqrt(R)
        assert abs(my_sd - sd) <= Z * np.sqrt(2) * my_sd / np.sqrt(2 * (R - 1))
        p = (summary["coverage"][J] + coverage) / 2
        assert abs(summary["coverage"][J] - coverage) <= Z * np.sqrt(2 * p * (1 - p) / R)
        if width is not None:
            assert abs(w.mean() - width) <= Z * np.sqrt(2) * w.std(ddof=1) / np.sqrt(R)
        # and the theory's sd (Theorem 3.1 / 4.1) within the same error
        assert abs(my_sd - theory_sd(lam, d, 1000, debias_order=J)) <= (
            Z * my_sd / np.sqrt(2 * (R - 1)) + 0.1 * my_sd)  # 0.1: finite-n, empty cells


# ---------------------------------------------------------------- selectors
def test_polynomial_selector_finds_the_oracle_lifetime():
    """For mu = sin(pi x), sigma = 1, n = 1000: the AIMSE's minimiser with the true
    integral of (mu'')^2 / 4 = pi^4 / 8 and sigma^2 = 1, against the selector over 10
    seeds (tolerance: the seeds' spread, plus the quartic's own approximation of mu'')."""
    n, V = 1000, VARIANCE_CONSTANT_1D
    oracle = (4 * (np.pi ** 4 / 8) / (V / n)) ** 0.2
    # the quartic's least-squares fit of sin(pi x) on a fine grid: its exact integral
    t = np.linspace(0, 1, 20_001)
    coef = np.polynomial.polynomial.polyfit(t, np.sin(np.pi * t), 4)
    g = np.polynomial.polynomial.polyder(coef, 2)
    integral = np.trapezoid(np.polynomial.polynomial.polyval(t, g) ** 2, t)
    projected = (4 * (integral / 4) / (V / n)) ** 0.2
    picks = []
    for seed in range(10):
        rng = np.random.default_rng([13, seed])
        U = rng.random((n, 1))
        y = regression_function(U) + rng.normal(size=n)
        picks.append(polynomial_lifetime(U, y, 0, [1.0]))
    spread = np.std(picks, ddof=1) / np.sqrt(len(picks))
    assert abs(np.mean(picks) - projected) <= Z * spread
    assert projected == pytest.approx(oracle, rel=0.1)


def test_gcv_picks_the_minimum_of_its_scores():
    rng = np.random.default_rng(14)
    X = rng.random((400, 1))
    y = regression_function(X) + 0.5 * rng.normal(size=400)
    model = mc.DebiasedMondrianForestRegressor("gcv", 20, random_state=0).fit(X, y)
    grid, scores = model.selection_scores_.T
    assert np.all(np.isfinite(scores))
    assert model.lifetime_ == grid[np.argmin(scores)]
    # a U-shape: the ends are worse than the minimum by more than noise
    assert scores[0] > scores.min() * 1.05 and scores[-1] > scores.min() * 1.05


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("params, message", [
    ({"lifetime": "best"}, "'gcv' or 'polynomial'"),
    ({"lifetime": -1.0}, "lifetime"),
    ({"debias_order": 9}, "debias_order"),
    ({"debias_order": 1, "lifetime_ratios": [1.0]}, "lifetime_ratios must hold"),
    ({"debias_order": 1, "lifetime_ratios": [1.0, 1.0]}, "distinct positive"),
    ({"box": ([0.2, 0.2], [1.0, 1.0])}, "box must hold every training point"),
    ({"box": 3}, "pair"),
    ({"n_estimators": 0}, "n_estimators"),
])
def test_bad_parameters_say_what_to_change(params, message):
    X = np.random.default_rng(0).random((30, 2))
    with pytest.raises(InputError, match=message):
        mc.DebiasedMondrianForestRegressor(**params).fit(X, X[:, 0])


def test_bad_level_and_new_points_say_what_to_change():
    X = np.random.default_rng(0).random((30, 2))
    model = mc.DebiasedMondrianForestRegressor(n_estimators=5).fit(X, X[:, 0])
    with pytest.raises(InputError, match="level"):
        model.confidence_interval(X, level=1.5)
    with pytest.raises(InputError, match="features"):
        model.predict(X[:, :1])
    with pytest.raises(InputError, match="unit cube"):
        sample_cells_at([1.5], 1.0, 3)


def test_the_docstring_example_runs():
    import doctest

    from mondrian_core.forest import debiased

    result = doctest.testmod(debiased)
    assert result.attempted > 0 and result.failed == 0


def test_chunked_walks_give_the_same_forest(monkeypatch):
    """Large inputs are walked in chunks of points; the answers are those of one walk
    (to rounding: products over chunks of other shapes sum in another order)."""
    from mondrian_core.forest import debiased

    rng = np.random.default_rng(15)
    X, y, Q = rng.random((400, 2)), rng.normal(size=400), rng.random((50, 2))

    def answers():
        model = mc.DebiasedMondrianForestRegressor(6.0, 20, debias_order=1,
                                                   random_state=3).fit(X, y)
        return (model.predict(Q), *model.confidence_interval(Q), model.empty_cell_rate_)

    whole = answers()
    monkeypatch.setattr(debiased, "_CHUNK_PAIRS", 300)
    for a, b in zip(answers(), whole, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
