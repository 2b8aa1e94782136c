"""The kernel-convergence page's claims, checked at its defaults with mondrian_core directly.

Same points, lifetime, trees, seed and seed offsets as the page
(explorer_ui.defaults_kernel_convergence).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from explorer_ui import defaults_kernel_convergence as D
from mondrian_core import datasets as ds
from mondrian_core._validation import check_random_state
from mondrian_core.errors import InputError
from mondrian_core.experiments.kernel_convergence import (
    METHODS,
    cumulative_kernels,
    feature_counts,
    feature_variances,
    kernel_error_curves,
    ridge_rmse_curves,
    uniform_error_curves,
)
from mondrian_core.figures.kernel import kernel_heatmaps_figure
from mondrian_core.kernel import (
    MondrianFeatures,
    RandomFourierFeatures,
    block_one_hot_columns,
    laplace_kernel,
)

MONDRIAN = METHODS[0]
#: Two-sided 1-in-100 quantile of Student's t with (repetitions - 1) degrees of freedom
#: (4.6 for 5 repetitions): the repetitions of Figure 5 are independent, so their spread
#: gives the standard error, itself estimated from few values (hence t, not normal).
T = stats.t.ppf(1 - 0.01 / 2, D.REPEATS5 - 1)


@pytest.fixture(scope="module")
def X():
    return ds.uniform_box(D.N_POINTS, random_state=D.SEED).X


@pytest.fixture(scope="module")
def K(X):
    return laplace_kernel(X, lifetime=D.LIFETIME)


def _mondrian(X, n_trees, lifetime=D.LIFETIME):
    return MondrianFeatures(lifetime, n_trees,
                            random_state=D.SEED + D.SEED_OFFSET_TREES).fit(X).kernel(X)


def test_the_difference_fades_on_one_colour_scale(X, K):
    """Claim 1 (the main chart and the tour): max |Mondrian - Laplace| falls from M = 1
    to 50 to 500, on a colour scale that stays [-1, 1]. Each entry of the M-tree kernel
    is a binomial fraction with variance k(1 - k) / M <= 1 / (4M); over the N^2 entries a
    Bonferroni z of 1-in-1,000 bounds the largest deviation for M = 50 and 500 (where the
    binomial is near normal)."""
    z = stats.norm.ppf(1 - 0.001 / (2 * K.size))
    worst = {}
    for m in (1, D.N_TREES, 500):
        Km = _mondrian(X, m)
        worst[m] = np.abs(Km - K).max()
        fig = kernel_heatmaps_figure(K, Km, n_trees=m)
        assert (fig.data[2].zmin, fig.data[2].zmax) == (-1.0, 1.0)
        if m >= D.N_TREES:
            assert worst[m] <= z * np.sqrt(0.25 / m), (m, worst[m])
    assert worst[1] > worst[D.N_TREES] > worst[500]
    assert worst[1] > 0.9  # one tree: solid blocks, off by about 1 (tour step 1)


def _figure5_errors(X, K):
    """Figure 5's draws at the defaults (same random stream as kernel_error_curves), kept
    as the mean squared and the largest error over all pairs, per repetition and count."""
    counts = feature_counts(D.M_MAX5)
    rng = check_random_state(D.SEED + D.SEED_OFFSET_FIGURE5)
    iu = np.triu_indices(X.shape[0], k=1)
    mse = {m: np.empty((D.REPEATS5, len(counts))) for m in METHODS}
    worst = {m: np.empty((D.REPEATS5, len(counts))) for m in METHODS}
    for r in range(D.REPEATS5):
        for method in METHODS:
            for c, (_, Km) in enumerate(cumulative_kernels(method, X, None, D.LIFETIME,
                                                           counts, rng)):
                err = Km[iu] - K[iu]
                mse[method][r, c] = np.mean(err ** 2)
                worst[method][r, c] = np.abs(err).max()
    return np.asarray(counts), mse, worst, K[iu]


@pytest.fixture(scope="module")
def fig5(X, K):
    return _figure5_errors(X, K)


def test_the_stream_is_the_pages_figure_5(X, fig5):
    counts, _, worst, _ = fig5
    curves = kernel_error_curves(X, D.LIFETIME, feature_counts(D.M_MAX5), D.REPEATS5,
                                 random_state=D.SEED + D.SEED_OFFSET_FIGURE5)
    for method in METHODS:
        np.testing.assert_array_equal(curves.errors[method], worst[method])


def test_the_mean_squared_error_falls_like_one_over_m(fig5):
    """Claim 2: each tree is an independent unbiased estimate with variance k(1 - k), so
    the mean squared error over pairs has expectation mean k(1 - k) / M: M times it is
    the same at the smallest and the largest M. Checked per count with a t-test over
    the independent repetitions, and as a ratio: MSE(M=1) / MSE(M=50) ~ 50, i.e. the
    RMS error falls by sqrt(50)."""
    counts, mse, _, k = fig5
    per_tree = np.mean(k * (1 - k))
    scaled = mse[MONDRIAN] * counts  # (repetitions, counts)
    for c in (0, len(counts) - 1):
        values = scaled[:, c]
        se = values.std(ddof=1) / np.sqrt(values.size)
        assert abs(values.mean() - per_tree) <= T * se, (counts[c], values, per_tree)
    small, big = mse[MONDRIAN][:, 0], mse[MONDRIAN][:, -1]
    log_ratio = np.log(small.mean() / big.mean())
    # delta method: the variance of the log of a mean is its squared coefficient of
    # variation divided by the number of repetitions
    se = np.sqrt(small.var(ddof=1) / small.mean() ** 2 / small.size
                 + big.var(ddof=1) / big.mean() ** 2 / big.size)
    assert abs(log_ratio - np.log(counts[-1] / counts[0])) <= T * se, (log_ratio, se)


def test_figure_5_max_error_falls_like_one_over_sqrt_m_from_m_10(fig5):
    """Figure 5's own y-value, the largest error over all pairs: it falls from the
    smallest M to the largest, and from M = 10 on (below that it saturates near 1) by
    sqrt(M_big / 10), within T standard errors of the per-repetition log ratios."""
    counts, _, worst, _ = fig5
    for method in METHODS:
        assert worst[method][:, -1].mean() < worst[method][:, 0].mean(), method
    at10 = int(np.flatnonzero(counts == 10)[0])
    for method in (MONDRIAN, METHODS[1]):
        logs = np.log(worst[method][:, at10] / worst[method][:, -1])
        se = logs.std(ddof=1) / np.sqrt(logs.size)
        expected = 0.5 * np.log(counts[-1] / 10)
        assert abs(logs.mean() - expected) <= T * se, (method, np.exp(logs), se)


def test_fourier_features_are_worst_at_m_10_because_of_their_variance(fig5):
    """Claim 3 (the Figure 5 expander): at M = 10 random Fourier features have the
    largest error, and M times their mean squared error (the per-feature variance) is
    many times the Mondrian kernel's, which is mean k(1 - k)."""
    counts, mse, worst, k = fig5
    at10 = int(np.flatnonzero(counts == 10)[0])
    rff = METHODS[2]
    for method in METHODS[:2]:
        assert worst[rff][:, at10].mean() > worst[method][:, at10].mean()
    # a Fourier feature's estimate 2 cos(w.x + b) cos(w.x' + b) has variance
    # (1 + k(2 delta)) / 2 + 1/2 - k^2 >= 1/2 for every pair; a tree's is k(1 - k)
    rff_var = (mse[rff][:, at10] * 10).mean()
    assert rff_var >= 0.5
    assert rff_var > 10 * np.mean(k * (1 - k))


def test_fourier_features_are_worst_at_m_10_on_figure_6():
    """Claim 3 on Figure 6 (the paper, sec. 8.1: with few non-zero features per point,
    random binning and the Mondrian kernel outperform Fourier features): at the page's
    defaults the Fourier features' mean test RMSE at M = 10 is the highest of the three
    and within two of its own standard deviations of predicting the mean. Only the
    ordering of the means the chart shows is checked: with 3 repetitions a t-test on the
    gap would need t(2) = 9.9 at the 1 % level."""
    data = ds.load_bundled(D.DATASET6)
    train, test = ds.train_val_test_split(data, (0.8, 0.2), random_state=D.SEED)
    curves = ridge_rmse_curves(train.X, train.y, test.X, test.y, D.LIFETIME6,
                               feature_counts(D.M_MAX6), D.REPEATS6, ridge=float(D.RIDGE6),
                               random_state=D.SEED + D.SEED_OFFSET_FIGURE6)
    at10 = int(np.flatnonzero(curves.counts == 10)[0])
    rff = METHODS[2]
    for method in METHODS[:2]:
        assert curves.mean(rff)[at10] > curves.mean(method)[at10], method
    assert abs(curves.mean(rff)[at10] - curves.baseline_rmse) <= 2 * curves.std(rff)[at10]


# ----------------------------------------------------------------- over ten seeds

#: Two-sided 1-in-100 t quantile for the mean of ten seeds (or draws).
T10 = stats.t.ppf(1 - 0.01 / 2, 9)


def _two_digits(x: float) -> float:
    return float(f"{x:.2g}")


def _page_difference(seed, lifetime, n_trees):
    """The main chart's largest |Mondrian - Laplace| at a seed, drawn as the page draws
    it (points from the seed, trees from seed + SEED_OFFSET_TREES)."""
    X = ds.uniform_box(D.N_POINTS, random_state=seed).X
    Km = MondrianFeatures(lifetime, n_trees,
                          random_state=seed + D.SEED_OFFSET_TREES).fit(X).kernel(X)
    return np.abs(Km - laplace_kernel(X, lifetime=lifetime)).max()


@pytest.fixture(scope="module")
def differences():
    return {key: np.array([_page_difference(s, *key) for s in D.MEASURED_SEEDS])
            for key in D.MAX_DIFFERENCE}


def test_the_tours_numbers_are_the_seeds_mean_and_spread(differences):
    """The tour quotes MAX_DIFFERENCE: the mean and s.d. over the seeds, to two digits."""
    assert len(D.MEASURED_SEEDS) >= 10
    for key, (mean, sd) in D.MAX_DIFFERENCE.items():
        values = differences[key]
        assert _two_digits(values.mean()) == mean, (key, values.mean())
        assert _two_digits(values.std(ddof=1)) == sd, (key, values.std(ddof=1))


def test_from_50_to_500_trees_the_largest_difference_falls_like_one_over_sqrt_m(differences):
    """Tour step 3: the per-seed log ratio of the largest difference at M = 50 and 500
    has a mean within T10 standard errors of log sqrt(10) (the 1/sqrt(M) rate)."""
    logs = np.log(differences[(10.0, 50)] / differences[(10.0, 500)])
    se = logs.std(ddof=1) / np.sqrt(logs.size)
    assert abs(logs.mean() - 0.5 * np.log(10)) <= T10 * se, (np.exp(logs), se)
    assert (logs > 0).all()  # and it falls at every seed


@pytest.fixture(scope="module")
def uniform_curves():
    return uniform_error_curves(D.LIFETIME, feature_counts(D.UNIFORM_M_MAX), n_grid=D.GRID_SIDE,
                                n_draws=D.UNIFORM_DRAWS,
                                random_state=D.SEED + D.SEED_OFFSET_UNIFORM)


def test_proposition_2_the_largest_error_over_the_grid_falls_like_one_over_sqrt_m(
        uniform_curves):
    """The uniform-convergence chart at its defaults: the largest error over the grid's
    pairs falls at every step of M from 10 on (mean of the draws), and from M = 10 to
    M = 500 by sqrt(50): the per-draw log ratio's mean lies within T10 standard errors
    of log sqrt(50), i.e. sqrt(M) times the error stays level."""
    assert D.UNIFORM_DRAWS >= 10
    counts = uniform_curves.counts
    errors = uniform_curves.errors[MONDRIAN]
    assert uniform_curves.n_points == D.GRID_SIDE ** 2
    at10 = int(np.flatnonzero(counts == 10)[0])
    assert (np.diff(errors.mean(axis=0)[at10:]) < 0).all()
    logs = np.log(errors[:, at10] / errors[:, -1])
    se = logs.std(ddof=1) / np.sqrt(logs.size)
    assert abs(logs.mean() - 0.5 * np.log(counts[-1] / 10)) <= T10 * se, (np.exp(logs), se)


def test_fourier_features_are_worst_at_m_10_over_ten_seeds():
    """Claim 4 over the seeds: at M = 10 the largest error over all pairs of the page's
    points is higher for random Fourier features than for the Mondrian kernel and for
    random binning; the paired differences' mean exceeds T10 standard errors."""
    gaps = {method: [] for method in METHODS[:2]}
    for seed in D.MEASURED_SEEDS:
        X = ds.uniform_box(D.N_POINTS, random_state=seed).X
        curves = kernel_error_curves(X, D.LIFETIME, [10], 1,
                                     random_state=seed + D.SEED_OFFSET_FIGURE5)
        for method in gaps:
            gaps[method].append(curves.errors[METHODS[2]][0, 0] - curves.errors[method][0, 0])
    for method, values in gaps.items():
        values = np.asarray(values)
        assert values.mean() > T10 * values.std(ddof=1) / np.sqrt(values.size), (method, values)


def _member_variances(X, seed, n_members=200):
    """Per-pair variance of one member's kernel estimate, from n_members independent
    members (the slow, obvious way), averaged over the pairs: (tree, Fourier)."""
    iu, ju = np.triu_indices(X.shape[0], k=1)
    cols = block_one_hot_columns(
        MondrianFeatures(D.LIFETIME, n_members, random_state=seed).fit(X).transform(X))
    tree = (cols[iu] == cols[ju]).astype(float)  # (pairs, members)
    rff = RandomFourierFeatures(D.LIFETIME, n_members, random_state=seed).fit(X)
    z = rff.transform(X) * np.sqrt(n_members / 2.0)  # cos(w.x + b), one column a member
    fourier = 2 * z[iu] * z[ju]
    return tree.var(axis=1, ddof=1).mean(), fourier.var(axis=1, ddof=1).mean()


def test_the_expanders_variances_match_the_members_spread():
    """feature_variances (k(1 - k) per tree, 1 - k^2/2 per Fourier feature) against the
    spread of 200 independent members, at ten seeds on 40 of the page's kind of points:
    each formula lies within T10 standard errors of the seeds' mean."""
    measured, formula = [], []
    for seed in D.MEASURED_SEEDS:
        X = ds.uniform_box(40, random_state=seed).X
        var = feature_variances(laplace_kernel(X, lifetime=D.LIFETIME))
        measured.append(_member_variances(X, seed))
        formula.append((var.tree, var.fourier))
    measured, formula = np.asarray(measured), np.asarray(formula)
    gap = measured - formula  # (seeds, [tree, Fourier])
    se = gap.std(axis=0, ddof=1) / np.sqrt(gap.shape[0])
    assert (np.abs(gap.mean(axis=0)) <= T10 * se).all(), (gap.mean(axis=0), se)
    assert (formula[:, 1] >= 0.5).all() and (formula[:, 1] > 10 * formula[:, 0]).all()


def test_the_new_recipes_say_what_to_change():
    """feature_variances and uniform_error_curves refuse bad input with an InputError."""
    for bad in (np.ones((2, 3)), 2 * np.eye(3), np.ones((1, 1))):
        with pytest.raises(InputError):
            feature_variances(bad)
    with pytest.raises(InputError, match="n_grid"):
        uniform_error_curves(D.LIFETIME, [1, 2], n_grid=1000)
    with pytest.raises(InputError, match="n_draws"):
        uniform_error_curves(D.LIFETIME, [1, 2], n_draws=1)
