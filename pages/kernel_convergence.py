"""Kernel convergence: the Mondrian kernel against the Laplace kernel.

Claims the page shows at its defaults (checked by tests/claims/test_kernel_convergence.py
with the defaults of :mod:`explorer_ui.defaults_kernel_convergence`):

1. The Mondrian kernel approaches the Laplace kernel exp(-lambda ||x - x'||_1) as the
   number of trees M grows: on one fixed colour scale the difference fades from
   +-1 at M = 1 to about +-0.25 at M = 50 and +-0.05 at M = 500.
2. Like a Monte Carlo average, its error falls like 1/sqrt(M): the mean squared error
   over all pairs is mean k(1 - k) / M, and Figure 5's maximum error falls by about
   sqrt(50 / 10) from M = 10 to M = 50. (Below M ~ 10 the maximum error over 7,000 pairs
   saturates near 1, so the 1/sqrt(M) law shows from there on.)
3. At M = 10 random Fourier features are worst on Figure 5 (and near the predict-the-mean
   line on Figure 6): a Fourier feature's kernel estimate has variance ~ 1 for every
   pair, near or far, a Mondrian tree's only k(1 - k), ~ 0.02 on average here
   (measured by bench/figure5_ordering.py).

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
    feature_counts,
    kernel_error_curves,
    kernel_matrices,
    kernel_slice,
    laplace_link_pairs,
    ridge_rmse_curves,
)
from mondrian_core.figures.kernel import (
    kernel_error_figure,
    kernel_heatmaps_figure,
    kernel_slice_figure,
    laplace_link_figure,
    ridge_rmse_figure,
)

require_app_navigation()

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
         "difference has faded to pale speckles, at most about $0.26$ (the title).",
         {"m": 50}),
    Step("Five hundred trees",
         "Ten times as many trees: the difference is nearly white, at most about $0.05$. "
         "The error falls like $1/\\sqrt{M}$, the rate of a Monte Carlo average, since "
         "each tree is an independent unbiased estimate of "
         "$e^{-\\lambda \\lVert x - x' \\rVert_1}$.",
         {"m": 500}),
    Step("A smaller lifetime, a wider kernel",
         "With $\\lambda = 3$ the Mondrians make fewer cuts, so cells are larger and more "
         "pairs share one: the band of the kernel widens (left and middle). The Mondrian "
         "kernel still matches it, within about $0.08$ with 500 trees.",
         {"m": 500, "lam": 3.0}),
])


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner=False)
def _points(n: int, seed: int) -> np.ndarray:
    return ds.uniform_box(n, random_state=seed).X


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner="Sampling the Mondrian trees…")
def _kernels(n: int, lifetime: float, n_trees: int, seed: int):
    return kernel_matrices(_points(n, seed), lifetime, n_trees,
                           random_state=seed + D.SEED_OFFSET_TREES)


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner=False)
def _slice(lifetime: float, n_trees: int, seed: int):
    return kernel_slice(lifetime, feature_counts(n_trees), random_state=seed + 2)


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner=False)
def _link(n: int, lifetime: float, n_trees: int, seed: int):
    return laplace_link_pairs(_points(n, seed), lifetime, n_trees, n_pairs=400,
                              random_state=seed + 3)


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


page_header(
    "Kernel convergence",
    "The Mondrian kernel (Balog et al. 2016, Section 3) is the fraction of $M$ independent "
    "Mondrian partitions of lifetime $\\lambda$ that put two points in the same cell. A "
    "Mondrian cut separates $x$ and $x'$ at rate $\\lVert x - x' \\rVert_1$, so the chance "
    "that no cut does before $\\lambda$ is $e^{-\\lambda \\lVert x - x' \\rVert_1}$: the "
    "Laplace kernel. With more trees the Mondrian kernel converges to it, like a Monte "
    "Carlo average, with an error shrinking as $1/\\sqrt{M}$.",
    tour=TOUR,
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
with st.expander("Why random Fourier features come out worst at $M = 10$"):
    st.markdown(
        "A Mondrian tree or a binning grid almost never puts a far pair (kernel $\\approx 0$) "
        "in one cell, so its estimate there is exactly 0: the variance of one tree's "
        "estimate is $k(1-k)$, **0.021** averaged over all pairs at the defaults (72 % of "
        "pairs have $k < 0.01$). A Fourier feature $2\\cos(w^\\top x + b)\\cos(w^\\top x' + b)$ "
        "swings between $-1$ and $1$ for every pair, near or far: variance **1.00**, 47 "
        "times as much. With $M = 10$ that is an RMS error of 0.32 against 0.046, and a "
        "maximum over 7,140 pairs of 1.15 against 0.46; on Figure 6 (diabetes) the Fourier "
        "features' test RMSE at $M = 10$ is 69, next to predicting the mean (70), where the "
        "Mondrian kernel has 60. Measured by `python -m bench.figure5_ordering`.")

st.subheader("Regression error against non-zero features (Figure 6)")
with user_errors():
    curves6 = _figure6(dset, lam6, float(ridge6), m_max6, rep6, seed)
    show_figure(cached_figure(ridge_rmse_figure, curves6, dataset_name=dset),
                "ridge-rmse-vs-features",
                params=dict(data=dset, lam=lam6, ridge=ridge6, m=m_max6, reps=rep6, seed=seed))
st.caption(
    "Ridge regression on each feature map (80 % of the rows for training, at most 2,000; "
    "20 % for testing; standardised inputs), test RMSE against non-zero features per point. "
    "Test points get their Mondrian cells by the conditional Mondrian extension, not by "
    "refitting. Dashed: exact kernel ridge regression with the Laplace kernel ($N \\times N$ "
    "solve); the paper used the CPU data set, we offer the bundled real sets.")
