"""Kernel convergence: the Mondrian kernel against the Laplace kernel.

Claims the page shows at its defaults (checked by tests/claims/test_kernel_convergence.py
with the defaults of :mod:`explorer_ui.defaults_kernel_convergence`, over the seeds 0-9):

1. The Mondrian kernel approaches the Laplace kernel exp(-lambda ||x - x'||_1) as the
   number of trees M grows: on one fixed colour scale the difference fades; its largest
   value averages about 1 at M = 1, 0.20 at M = 50 and 0.059 at M = 500 over the seeds
   (defaults_kernel_convergence.MAX_DIFFERENCE), a factor 3.4 from 50 to 500, against
   sqrt(10) = 3.2 for 1/sqrt(M) (consistent within the seeds' spread).
2. Proposition 2 (Balog et al. 2016, sec. 3.2): the largest error over a grid covering
   the square falls towards 0, and sqrt(M) times its mean over 10 draws stays level
   from M = 10 to 500 (the 1/sqrt(M) rate of a Monte Carlo average, on a fixed grid).
3. The mean squared error over all pairs is mean k(1 - k) / M (each tree an independent
   0/1 estimate), and Figure 5's maximum error falls by about sqrt(50 / 10) from M = 10
   to M = 50.
4. At M = 10 random Fourier features are worst on Figure 5: a Fourier feature's kernel
   estimate ranges over [-2, 2] with variance 1 - k^2 / 2 >= 1/2 for every pair, a
   Mondrian tree's only k(1 - k) (the expander computes both at the page's settings).

Widgets, layout and text only; the numbers come from ``mondrian_core.kernel`` and
``mondrian_core.experiments.kernel_convergence``, the charts from ``mondrian_core.figures.kernel``.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from explorer_ui import defaults_kernel_convergence as D
from explorer_ui.cache import CACHE_TTL
from explorer_ui.compute import cached_with_progress
from explorer_ui.data import split
from explorer_ui.figure_cache import cached_figure
from explorer_ui.navigation import require_app_navigation
from explorer_ui.sources import Source
from explorer_ui.tour import Step, Tour, predict_then_reveal
from explorer_ui.widgets import (
    page_header,
    seed_control,
    show_figure,
    url_choice,
    url_slider,
    user_errors,
)
from mondrian_core import datasets as ds
from mondrian_core.experiments.kernel_convergence import (
    METHODS,
    feature_counts,
    feature_variances,
    kernel_error_curves,
    kernel_matrices,
    kernel_slice,
    laplace_link_pairs,
    ridge_rmse_curves,
    uniform_error_curves,
)
from mondrian_core.figures.kernel import (
    kernel_error_figure,
    kernel_heatmaps_figure,
    kernel_slice_figure,
    laplace_link_figure,
    ridge_rmse_figure,
    uniform_error_figure,
)

require_app_navigation()

_D50, _S50 = D.MAX_DIFFERENCE[(10.0, 50)]
_D500, _S500 = D.MAX_DIFFERENCE[(10.0, 500)]
_D3, _S3 = D.MAX_DIFFERENCE[(3.0, 500)]
_SEEDS = f"seeds {D.MEASURED_SEEDS[0]}\u2013{D.MEASURED_SEEDS[-1]}"

TOUR = Tour("kernel-convergence", [
    Step("One tree",
         "With $M = 1$ the Mondrian kernel is a single partition: 1 for two points in the "
         "same cell, 0 otherwise, so the middle panel is a row of solid blocks. Against the "
         "smooth Laplace kernel (left) it is off by up to $\\pm 1$: the difference (right) "
         "is saturated red and blue.",
         {"m": 1}),
    Step("Fifty trees",
         "Averaging $M = 50$ independent partitions gives the values $0, 1/50, \\dots, 1$: "
         "the middle panel now looks like the Laplace band, and on the same colour scale the "
         "difference has faded to pale speckles. The title gives this draw's largest "
         f"difference; over {_SEEDS} it averages {_D50:.2g} (s.d. {_S50:.2g}).",
         {"m": 50}),
    Step("Five hundred trees",
         "Ten times as many trees: the difference is nearly white. Over "
         f"{_SEEDS} the largest difference averages {_D500:.2g} (s.d. {_S500:.2g}), "
         f"{_D50 / _D500:.1f} times less than at $M = 50$, where $\\sqrt{{10}} \\approx 3.2$ "
         "is the rate $1/\\sqrt{M}$ of a Monte Carlo average (each tree is an independent "
         "unbiased estimate of $e^{-\\lambda \\lVert x - x' \\rVert_1}$). One seed can be "
         "off by more: compare the title.",
         {"m": 500}),
    Step("A smaller lifetime, a wider kernel",
         "With $\\lambda = 3$ the Mondrians make fewer cuts, so cells are larger and more "
         "pairs share one: the band of the kernel widens (left and middle). The Mondrian "
         f"kernel still matches it: with 500 trees the largest difference averages {_D3:.2g} "
         f"(s.d. {_S3:.2g}) over {_SEEDS}.",
         {"m": 500, "lam": 3.0}),
])

#: Each claim the page makes, and where it comes from (the *Sources* expander).
SOURCES = [
    Source("The Mondrian kernel: the fraction of $M$ independent Mondrians of lifetime "
           "$\\lambda$ that put $x$ and $x'$ in one cell; its expectation is the Laplace "
           "kernel $e^{-\\lambda \\lVert x - x' \\rVert_1}$ (by projectivity).",
           "Balog et al. (2016), secs. 3.1-3.2, Proposition 1"),
    Source("Pointwise, the Mondrian kernel converges at the standard Monte Carlo rate "
           "$O(M^{-1/2})$.", "Balog et al. (2016), sec. 3.2"),
    Source("Uniform convergence on a bounded domain: "
           "$P[\\sup |k_M - k| > \\delta] = O(M^{2/3} e^{-M \\delta^2 / (12 D + 2)})$.",
           "Balog et al. (2016), sec. 3.2, Proposition 2; proof in the supplement, sec. A"),
    Source("Over 10 draws the largest error on a 16 x 16 grid of the square times "
           "$\\sqrt{M}$ stays level from $M = 10$ to 500 ($\\lambda = 10$).",
           "tests/claims/test_kernel_convergence.py, 10 draws", own=True),
    Source(f"The main chart's largest difference: {_D50:.2g} at $M = 50$ and {_D500:.2g} at "
           f"$M = 500$ on average ($N = {D.N_POINTS}$, $\\lambda = 10$), a ratio "
           "consistent with $\\sqrt{10}$ within the seeds' spread.",
           f"tests/claims/test_kernel_convergence.py, {_SEEDS}", own=True),
    Source("Figure 5 (maximum error over all pairs of 100 points in the unit square, "
           "$\\lambda = 10$) and Figure 6 (test error of ridge regression on the CPU data); "
           "per non-zero feature the Mondrian kernel and random binning beat Fourier features.",
           "Balog et al. (2016), sec. 8.1, Figures 5 and 6"),
    Source("Random Fourier features and random binning.", "Rahimi and Recht (2007)"),
    Source("Why Fourier features are worse per non-zero feature: variance $1 - k^2/2$ per "
           "frequency against $k(1 - k)$ per tree.",
           "this page's derivation (mondrian_core.experiments.kernel_convergence."
           "feature_variances); tests/claims, 10 seeds", own=True),
    Source("Figure 6 here uses the bundled real data sets (the paper: CPU), solves the "
           "ridge regressions exactly (the paper: SGD) and places test points by the "
           "conditional Mondrian extension.",
           "this app's variant; Balog et al. (2016), sec. 8 (CPU, SGD) and sec. 2.4 (extension)", own=True),
]


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner=False)
def _points(n: int, seed: int) -> np.ndarray:
    return ds.uniform_box(n, random_state=seed).X


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner="Sampling the Mondrian trees…")
def _kernels(n: int, lifetime: float, n_trees: int, seed: int):
    return kernel_matrices(_points(n, seed), lifetime, n_trees,
                           random_state=seed + D.SEED_OFFSET_TREES)


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner=False)
def _slice(lifetime: float, n_trees: int, seed: int):
    return kernel_slice(lifetime, feature_counts(n_trees), random_state=seed + D.SEED_OFFSET_SLICE)


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner=False)
def _link(n: int, lifetime: float, n_trees: int, seed: int):
    return laplace_link_pairs(_points(n, seed), lifetime, n_trees, n_pairs=400,
                              random_state=seed + D.SEED_OFFSET_LINK)


def _figure5(n: int, lifetime: float, m_max: int, repeats: int, seed: int):
    return cached_with_progress(
        ("kernel convergence: figure 5", n, lifetime, m_max, repeats, seed),
        lambda progress: kernel_error_curves(
            _points(n, seed), lifetime, feature_counts(m_max), repeats,
            random_state=seed + D.SEED_OFFSET_FIGURE5, progress=progress),
        "Starting…")


def _figure6(name: str, lifetime: float, ridge: float, m_max: int, repeats: int, seed: int):
    def compute(progress):
        train, test = split(ds.load_bundled(name), "compare", seed)
        return ridge_rmse_curves(train.X, train.y, test.X, test.y, lifetime,
                                 feature_counts(m_max), repeats, ridge=ridge,
                                 random_state=seed + D.SEED_OFFSET_FIGURE6, progress=progress)

    return cached_with_progress(
        ("kernel convergence: figure 6", name, lifetime, ridge, m_max, repeats, seed), compute,
        "Starting…")


def _uniform(lifetime: float, seed: int):
    return cached_with_progress(
        ("kernel convergence: proposition 2", lifetime, seed),
        lambda progress: uniform_error_curves(
            lifetime, feature_counts(D.UNIFORM_M_MAX), n_grid=D.GRID_SIDE,
            n_draws=D.UNIFORM_DRAWS, random_state=seed + D.SEED_OFFSET_UNIFORM,
            progress=progress),
        "Starting…")


page_header(
    "Kernel convergence",
    "The Mondrian kernel (Balog et al. 2016, Section 3) is the fraction of $M$ independent "
    "Mondrian partitions of lifetime $\\lambda$ that put two points in the same cell. A "
    "Mondrian cut separates $x$ and $x'$ at rate $\\lVert x - x' \\rVert_1$, so the chance "
    "that no cut does before $\\lambda$ is $e^{-\\lambda \\lVert x - x' \\rVert_1}$: the "
    "Laplace kernel (sec. 3.2, Proposition 1). Each tree is an independent unbiased 0/1 "
    "estimate, so at a fixed pair the average of $M$ trees has standard deviation "
    "$\\sqrt{k(1 - k)/M}$: the $1/\\sqrt{M}$ rate of any Monte Carlo average. "
    "Proposition 2 says more: the convergence is **uniform** over a bounded domain, the "
    "largest error over all pairs tends to 0 too (the chart *Uniform convergence* below).",
    tour=TOUR,
    sources=SOURCES,
)

side = st.sidebar
side.subheader("Data")
n = url_slider("Points $N$ (uniform in the unit square)", "n", min_value=20, max_value=400,
               default=D.N_POINTS, step=10, container=side)
names = list(ds.BUNDLED_DATASETS)
dset = url_choice("Figure 6 data set", "d6", names, default=D.DATASET6, container=side,
                  format_func=lambda k: ds.BUNDLED_DATASETS[k][1])
side.subheader("Kernel")
lifetime = url_slider("Lifetime $\\lambda$ (inverse kernel width)", "lam", min_value=0.5,
                      max_value=30.0, default=D.LIFETIME, step=0.5, container=side)
n_trees = url_slider("Trees $M$", "m", min_value=1, max_value=500, default=D.N_TREES,
                     container=side)
with side.expander("Figure 5 settings"):
    m_max5 = url_slider("Largest $M$", "m5", min_value=5, max_value=200, default=D.M_MAX5)
    rep5 = url_slider("Repetitions", "r5", min_value=1, max_value=10, default=D.REPEATS5)
with side.expander("Figure 6 settings"):
    lam6 = url_slider("Lifetime $\\lambda$", "lam6", min_value=0.05, max_value=3.0,
                      default=D.LIFETIME6, step=0.05)
    ridge6 = url_choice("Ridge penalty", "ridge6", ["0.01", "0.1", "1", "10"],
                        default=D.RIDGE6)
    m_max6 = url_slider("Largest $M$", "m6", min_value=5, max_value=200, default=D.M_MAX6)
    rep6 = url_slider("Repetitions", "r6", min_value=1, max_value=5, default=D.REPEATS6)
side.divider()
seed = seed_control("seed", default=D.SEED, container=side)

with user_errors():
    K_lap, K_mon, order = _kernels(n, lifetime, n_trees, seed)

show_figure(cached_figure(kernel_heatmaps_figure, K_lap, K_mon, order, lifetime=lifetime,
                          n_trees=n_trees),
            "kernel-heatmaps", params=dict(n=n, lam=lifetime, m=n_trees, seed=seed), main=True)
st.caption(
    "Rows and columns follow a snake path through the square, so nearby points sit next to "
    "each other and the kernel shows as a band of blocks. The Mondrian kernel takes the "
    "values $0, 1/M, \\dots, 1$; the difference (right, on one scale for every $M$) is noise "
    "that fades as $M$ grows.")

st.subheader("A slice through the kernel")
with user_errors():
    s, lap, est = _slice(lifetime, n_trees, seed)
    show_figure(cached_figure(kernel_slice_figure, s, lap, est, lifetime=lifetime), "kernel-slice",
                params=dict(lam=lifetime, m=n_trees, seed=seed))
st.caption(
    "$k(x_0, x)$ for $x_0 = (0.5, 0.5)$ and $x$ on the horizontal line through it. Each tree "
    "contributes a box around $x_0$, so the Mondrian kernel is a **step function**; press "
    "\u25B6 or drag the $M$ slider under the chart to see the steps approach "
    "$e^{-\\lambda |x - x_0|}$.")

st.subheader("The Mondrian–Laplace link")
with user_errors():
    lap_v, frac, _ = _link(n, lifetime, n_trees, seed)
    show_figure(cached_figure(laplace_link_figure, lap_v, frac, n_trees), "laplace-link",
                params=dict(n=n, lam=lifetime, m=n_trees, seed=seed))
st.caption(
    "For up to 400 random pairs: the fraction of the $M$ trees that keep the pair in one "
    "cell, against $e^{-\\lambda \\lVert x - x' \\rVert_1}$. The points scatter around the "
    "identity with the binomial spread of a fraction of $M$ trees (grey band), the Monte "
    "Carlo error of the Mondrian kernel.")

st.subheader("Uniform convergence (Proposition 2)")
with user_errors():
    curves_u = _uniform(lifetime, seed)
    show_figure(cached_figure(uniform_error_figure, curves_u), "uniform-convergence",
                params=dict(lam=lifetime, grid=D.GRID_SIDE, draws=D.UNIFORM_DRAWS, seed=seed))
_from10, _to, _fall, _rate = curves_u.fall_from(METHODS[0], 10)
_m_top = int(curves_u.counts[-1])
st.caption(
    "Proposition 2 (sec. 3.2; proof in the supplement, sec. A): on a bounded domain the "
    "probability that the largest error over **all** pairs, $\\sup |k_M - k|$, exceeds any "
    "$\\delta > 0$ vanishes as $M$ grows. Here the supremum over the unit square is "
    f"approximated by the maximum over the pairs of a {D.GRID_SIDE} \u00d7 {D.GRID_SIDE} grid, "
    f"for {D.UNIFORM_DRAWS} independent draws of the trees (thin lines; $\\lambda = {lifetime:g}$). "
    f"Their mean falls from {_from10:.2f} at $M = 10$ to {_to:.3f} at "
    f"$M = {_m_top}$: {_fall:.1f} times, against "
    f"$\\sqrt{{{_m_top} / 10}} = {_rate:.1f}$ for the dotted "
    "$1/\\sqrt{M}$ line. (At $\\lambda = 10$, over 10 draws, $\\sqrt{M}$ times the mean "
    "stays level from $M = 10$ to 500: tests/claims, this app's own check.)")

st.subheader("Error against non-zero features (Figure 5)")
if predict_then_reveal(
        "four_times_trees",
        "Take four times as many trees. By how much does the Mondrian kernel's largest "
        "error over all pairs shrink?",
        ["about 4 times", "about 2 times", "it stays the same"], 1,
        "Each tree is an independent unbiased estimate of the kernel, so the error of their "
        "average falls like $1/\\sqrt{M}$, the rate of any Monte Carlo average: "
        "$\\sqrt{4} = 2$. On the chart the curves run parallel to the dotted "
        "$1/\\sqrt{M}$ line from about $M = 10$ (below it one pair's error can reach 1)."):
    with user_errors():
        curves5 = _figure5(n, lifetime, m_max5, rep5, seed)
        show_figure(cached_figure(kernel_error_figure, curves5), "kernel-error-vs-features",
                    params=dict(n=n, lam=lifetime, m=m_max5, reps=rep5, seed=seed))
    st.caption(
        f"Maximum absolute error over all pairs of the $N = {n}$ points "
        f"($\\lambda = {lifetime:g}$; the paper: $N = 100$, $\\lambda = 10$), against the "
        "non-zero features per point: $M$ trees (Mondrian), $M$ grids (random binning) or "
        "$M$ frequencies (random Fourier features, all non-zero).")
st.subheader("Regression error against non-zero features (Figure 6)")
with user_errors():
    curves6 = _figure6(dset, lam6, float(ridge6), m_max6, rep6, seed)
    show_figure(cached_figure(ridge_rmse_figure, curves6, dataset_name=dset),
                "ridge-rmse-vs-features",
                params=dict(data=dset, lam=lam6, ridge=ridge6, m=m_max6, reps=rep6, seed=seed))
st.caption(
    "Ridge regression on each feature map, solved exactly (the paper: stochastic gradient "
    "descent, sec. 8) (80 % of the rows for training, at most 2,000; "
    "20 % for testing; standardised inputs), test RMSE against non-zero features per point. "
    "Test points get their Mondrian cells by the conditional Mondrian extension, not by "
    "refitting. Dashed: exact kernel ridge regression with the Laplace kernel ($N \\times N$ "
    "solve); the paper used the CPU data set, we offer the bundled real sets.")

with st.expander("Why random Fourier features come out worst at $M = 10$"):
    var = feature_variances(K_lap)
    rms_tree, rms_fourier = var.rms_error(10)
    text = (
        "A Mondrian tree or a binning grid almost never puts a far pair (kernel "
        "$\\approx 0$) in one cell, so its estimate there is exactly 0: one tree's estimate "
        f"has variance $k(1-k)$, **{var.tree:.3f}** averaged over the {var.n_pairs:,} pairs of "
        f"the $N = {n}$ points at $\\lambda = {lifetime:g}$ ({var.fraction_far:.0%} of pairs "
        "have $k < 0.01$). A Fourier feature $2\\cos(w^\\top x + b)\\cos(w^\\top x' + b)$ "
        "ranges over $[-2, 2]$ for every pair, near or far; its variance is $1 - k^2/2$, "
        f"between 1/2 and 1: **{var.fourier:.2f}** here, {var.fourier / var.tree:.0f} times "
        f"as much. With $M = 10$ that is an RMS error of {rms_fourier:.2f} against "
        f"{rms_tree:.3f}.")
    fourier10 = curves6.mean_at(METHODS[2], 10)
    if fourier10 is not None:
        text += (
            f" On Figure 6 ({ds.BUNDLED_DATASETS[dset][1]}, $\\lambda = {lam6:g}$, mean of "
            f"{rep6} repetitions) the Fourier features' test RMSE at $M = 10$ is "
            f"{fourier10:.3g}, against {curves6.baseline_rmse:.3g} for "
            f"predicting the mean and {curves6.mean_at(METHODS[0], 10):.3g} for the Mondrian kernel.")
    st.markdown(text)
