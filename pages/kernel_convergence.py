"""Kernel convergence: the Mondrian kernel against the Laplace kernel.

Widgets, layout and text only; the numbers come from ``mondrian_core.kernel`` and
``mondrian_core.experiments.kernel_convergence``, the charts from ``mondrian_core.figures.kernel``.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from explorer_ui.cache import CACHE_TTL
from explorer_ui.figure_cache import cached_figure
from explorer_ui.navigation import require_app_navigation
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
    kernel_slice,
    laplace_link_pairs,
    ridge_rmse_curves,
    serpentine_order,
)
from mondrian_core.figures.kernel import (
    kernel_error_figure,
    kernel_heatmaps_figure,
    kernel_slice_figure,
    laplace_link_figure,
    ridge_rmse_figure,
)
from mondrian_core.kernel import MondrianFeatures, laplace_kernel

require_app_navigation()


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner=False)
def points(n: int, seed: int) -> np.ndarray:
    return ds.uniform_box(n, random_state=seed).X


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner="Sampling the Mondrian trees…")
def kernels(n: int, lifetime: float, n_trees: int, seed: int):
    X = points(n, seed)
    K_lap = laplace_kernel(X, lifetime=lifetime)
    K_mon = MondrianFeatures(lifetime, n_trees, random_state=seed + 1).fit(X).kernel(X)
    return K_lap, K_mon, serpentine_order(X)


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner=False)
def slice_data(lifetime: float, n_trees: int, seed: int):
    return kernel_slice(lifetime, feature_counts(n_trees), random_state=seed + 2)


@st.cache_data(max_entries=20, ttl=CACHE_TTL, show_spinner=False)
def link_data(n: int, lifetime: float, n_trees: int, seed: int):
    return laplace_link_pairs(points(n, seed), lifetime, n_trees, n_pairs=400,
                              random_state=seed + 3)


def _progress_bar():
    """A progress bar created inside the cached function (so cache replays stay valid)."""
    bar = st.progress(0.0, text="Starting…")

    def progress(fraction, text):
        bar.progress(min(max(fraction, 0.0), 1.0), text=text)

    return bar, progress


@st.cache_data(max_entries=10, ttl=CACHE_TTL, show_spinner=False)
def figure5(n: int, lifetime: float, m_max: int, repeats: int, seed: int):
    bar, progress = _progress_bar()
    curves = kernel_error_curves(points(n, seed), lifetime, feature_counts(m_max), repeats,
                                 random_state=seed + 4, progress=progress)
    bar.empty()
    return curves


@st.cache_data(max_entries=10, ttl=CACHE_TTL, show_spinner=False)
def figure6(name: str, lifetime: float, ridge: float, m_max: int, repeats: int, seed: int):
    bar, progress = _progress_bar()
    data = ds.load_bundled(name)
    train, test = ds.train_val_test_split(data, (0.8, 0.2), random_state=seed)
    curves = ridge_rmse_curves(train.X, train.y, test.X, test.y, lifetime, feature_counts(m_max),
                               repeats, ridge=ridge, random_state=seed + 5, progress=progress)
    bar.empty()
    return curves


page_header(
    "Kernel convergence",
    "The Mondrian kernel (Balog et al. 2016, Section 3) is the fraction of M independent "
    "Mondrian partitions of lifetime λ that put two points in the same cell. A Mondrian "
    "cut separates x and x′ at rate ‖x − x′‖₁, so the chance that no cut does before λ is "
    "exp(−λ‖x − x′‖₁): the Laplace kernel. With more trees the Mondrian kernel converges "
    "to it, like a Monte Carlo average, with error shrinking as 1/√M.",
)

side = st.sidebar
side.header("Points and kernel")
n = url_slider("Points N (uniform in the unit square)", "n", min_value=20, max_value=400,
               default=120, step=10, container=side)
lifetime = url_slider("Lifetime λ (inverse kernel width, 1/length)", "lam", min_value=0.5,
                      max_value=30.0, default=10.0, step=0.5, container=side)
n_trees = url_slider("Trees M", "m", min_value=1, max_value=500, default=50, container=side)
seed = seed_control("seed", container=side)

with user_errors():
    K_lap, K_mon, order = kernels(n, lifetime, n_trees, seed)

st.subheader("Kernel matrices")
col_fig, col_text = st.columns([4, 1])
with col_fig:
    show_figure(cached_figure(kernel_heatmaps_figure, K_lap, K_mon, order, lifetime=lifetime,
                              n_trees=n_trees),
                "kernel-heatmaps", params=dict(n=n, lam=lifetime, m=n_trees, seed=seed))
with col_text:
    st.markdown(
        "Rows and columns follow a snake path through the square, so nearby points sit "
        "next to each other and the kernel shows as a band of blocks. The Mondrian kernel "
        "takes the values 0, 1/M, …, 1; the difference (right) is noise that fades as M "
        "grows. Raise λ to make the kernel more local.")

st.subheader("A slice through the kernel")
col_fig, col_text = st.columns([3, 1])
with col_fig, user_errors():
    s, lap, est = slice_data(lifetime, n_trees, seed)
    show_figure(cached_figure(kernel_slice_figure, s, lap, est, lifetime=lifetime), "kernel-slice",
                params=dict(lam=lifetime, m=n_trees, seed=seed))
with col_text:
    st.markdown(
        "k(x₀, x) for x₀ = (0.5, 0.5) and x moving along the horizontal line through it. "
        "Each tree contributes a box around x₀, so the Mondrian kernel is a **step "
        "function**; press ▶ or drag the M slider under the chart to see the steps "
        "approach the exponential exp(−λ|x − x₀|) as trees are added.")

st.subheader("The Mondrian–Laplace link")
col_fig, col_text = st.columns([3, 1])
with col_fig, user_errors():
    lap_v, frac, _ = link_data(n, lifetime, n_trees, seed)
    show_figure(cached_figure(laplace_link_figure, lap_v, frac, n_trees), "laplace-link",
                params=dict(n=n, lam=lifetime, m=n_trees, seed=seed))
with col_text:
    st.markdown(
        "For up to 400 random pairs of the points: the fraction of the M trees that keep "
        "the pair in one cell, against exp(−λ‖x − x′‖₁). The points scatter around the "
        "identity with the binomial spread of a fraction of M trees (grey band), which is "
        "the Monte Carlo error of the Mondrian kernel.")

st.subheader("Error against non-zero features (the paper's Figure 5)")
c1, c2, c3 = st.columns(3)
m_max5 = url_slider("Largest M", "m5", min_value=5, max_value=200, default=50, container=c1)
rep5 = url_slider("Repetitions", "r5", min_value=1, max_value=10, default=5, container=c2)
c3.markdown(f"N = {n} points, λ = {lifetime:g} (from the sidebar). The paper used "
            "N = 100, λ = 10.")
col_fig, col_text = st.columns([3, 1])
with col_fig, user_errors():
    curves5 = figure5(n, lifetime, m_max5, rep5, seed)
    show_figure(cached_figure(kernel_error_figure, curves5), "kernel-error-vs-features",
                params=dict(n=n, lam=lifetime, m=m_max5, reps=rep5, seed=seed))
with col_text:
    st.markdown(
        "Maximum absolute error over all pairs of points, against the number of non-zero "
        "features per point: M trees (Mondrian), M grids (random binning, Rahimi & Recht) "
        "or M frequencies (random Fourier features, all non-zero). Per non-zero feature, "
        "the Mondrian kernel and random binning are ahead of Fourier features; all fall "
        "roughly like 1/√M (dotted).")

st.subheader("Regression error against non-zero features (the paper's Figure 6)")
c1, c2, c3, c4, c5 = st.columns(5)
names = list(ds.BUNDLED_DATASETS)
dset = url_choice("Data set", "d6", names, default="diabetes", container=c1,
                  format_func=lambda k: ds.BUNDLED_DATASETS[k][1])
lam6 = url_slider("Lifetime λ", "lam6", min_value=0.05, max_value=3.0, default=0.3, step=0.05,
                  container=c2)
ridge6 = url_choice("Ridge penalty", "ridge6", ["0.01", "0.1", "1", "10"], default="1",
                    container=c3)
m_max6 = url_slider("Largest M", "m6", min_value=5, max_value=200, default=50, container=c4)
rep6 = url_slider("Repetitions", "r6", min_value=1, max_value=5, default=3, container=c5)
col_fig, col_text = st.columns([3, 1])
with col_fig, user_errors():
    curves6 = figure6(dset, lam6, float(ridge6), m_max6, rep6, seed)
    show_figure(cached_figure(ridge_rmse_figure, curves6, dataset_name=dset), "ridge-rmse-vs-features",
                params=dict(data=dset, lam=lam6, ridge=ridge6, m=m_max6, reps=rep6, seed=seed))
with col_text:
    st.markdown(
        "Ridge regression on each feature map (80 % of the rows for training, at most "
        "2,000, 20 % for testing; standardised inputs), test RMSE against non-zero "
        "features per point. "
        "Test points get their Mondrian cells by the conditional Mondrian extension, not "
        "by refitting. The dashed line is exact kernel ridge regression with the Laplace "
        "kernel (an N × N solve); the paper ran this on the CPU data set, we offer the "
        "bundled real sets.")
