"""Partition-kernel GPs: GP regression with Random Forest and Fast Cluster kernels.

Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for big
data from random partitions". Widgets, layout and text only.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from explorer_ui.cache import CACHE_TTL
from explorer_ui.data import data_params, data_source_picker
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
from mondrian_core import BUNDLED_DATASETS, toy_jumps_1d, train_val_test_split
from mondrian_core.datasets import toy_jumps_function
from mondrian_core.experiments.gp_experiments import (
    PARTITION_KERNELS,
    cg_histories,
    compare_kernels,
    fitted_partitions,
    kernel_pca_embeddings,
    partition_count_curves,
    posterior_curves,
    sorted_kernel_matrix,
)
from mondrian_core.figures.gp import (
    cg_convergence_figure,
    comparison_figure,
    kernel_heatmaps_figure,
    kernel_pca_figure,
    partition_count_figure,
    posterior_panels_figure,
)

require_app_navigation()

KERNELS = list(PARTITION_KERNELS)
BASELINES = ["RBF", "RBF-ARD", "Linear"]
COMPARE_MAX = 1000  # points used by the kernel comparison (exact GPs are O(N^3))
COUNTS = [10, 20, 50, 100, 200, 400]  # partitions m for the paper's Figure 5


# ---------------------------------------------------------------- cached core calls
@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def toy(n, seed):
    d = toy_jumps_1d(n=n, random_state=seed)
    return d.X, d.y


@st.cache_resource(max_entries=12, ttl=CACHE_TTL, show_spinner=False)
def partitions(kind, X, y, m, h, lam, seed):
    """Fitted partitions shared by the posterior, kernel and CG views (not copied, so
    read-only). 12 = the three kernels at four settings: a Random Forest one at the
    largest settings (400 points, m = 300, h = 12) pickles to 12 MB."""
    return fitted_partitions(kind, X, y, n_partitions=m, max_level=h, lifetime=lam,
                             random_state=seed)


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def curves(kind, X, y, grid, m, h, lam, noise, seed):
    return posterior_curves(kind, X, y, grid, noise_variance=noise, random_state=seed,
                            partitions=partitions(kind, X, y, m, h, lam, seed))


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def rbf_curves(X, y, grid, seed):
    return posterior_curves("RBF", X, y, grid, random_state=seed)


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def heatmap(kind, X, y, m, h, lam, seed):
    return sorted_kernel_matrix(kind, X, y, random_state=seed,
                                partitions=partitions(kind, X, y, m, h, lam, seed))[0]


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def histories(kind, X, y, m, h, lam, noise, seed):
    return cg_histories(kind, X, y, noise_variance=noise, random_state=seed, tol=1e-8,
                        partitions=partitions(kind, X, y, m, h, lam, seed))


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def embeddings(X, y, m, seed):
    return kernel_pca_embeddings(X, y, n_partitions=m, random_state=seed)


def _compare_split(d, seed):
    """At most COMPARE_MAX points of ``d``, split 80/20 by the seed."""
    if d.n_samples > COMPARE_MAX:
        d = d.subset(train_val_test_split(d, (COMPARE_MAX / d.n_samples,
                                              1 - COMPARE_MAX / d.n_samples),
                                          random_state=seed, return_indices=True)[0])
    return train_val_test_split(d, (0.8, 0.2), random_state=seed)


def comparison(d, m, seed, progress=None):
    """Not cached by st.cache_data (it reports progress); kept in session_state."""
    train, test = _compare_split(d, seed)
    return compare_kernels(train.X, train.y, test.X, test.y, KERNELS + BASELINES,
                           n_partitions=m, random_state=seed, progress=progress)


def explained(title, text=None, heading=st.subheader):
    """A section: its heading, then a wide column for the chart beside a narrow one
    holding ``text`` (the explanation); returns both columns."""
    heading(title)
    left, right = st.columns([3, 1])
    if text:
        right.markdown(text)
    return left, right


def on_demand(label, button_key, state_key, compute):
    """A button that runs ``compute(progress)`` (with a progress bar) and keeps the result
    in session state under ``state_key``; returns the kept result, or None."""
    if st.button(label, key=button_key):
        bar = st.progress(0.0, text="Fitting GPs...")
        st.session_state[state_key] = compute(lambda f, text: bar.progress(f, text=text))
        bar.empty()
    return st.session_state.get(state_key)


def by_partition_count(d, seed, progress=None):
    """Figure 5's curves; kept in session_state like :func:`comparison`."""
    train, test = _compare_split(d, seed)
    return partition_count_curves(train.X, train.y, test.X, test.y, COUNTS,
                                  random_state=seed, progress=progress)


# ---------------------------------------------------------------- page
page_header(
    "Partition-kernel GPs",
    "A **random partition kernel** is the probability that a random partition puts two "
    "points in the same cluster; with *m* sampled partitions it is the fraction of them "
    "that do (Davies and Ghahramani 2014). The **Random Forest** kernel cuts a tree of a "
    "random forest at a random depth d ~ U{0..h}; the **Fast Cluster** kernel assigns "
    "points to the nearest of 2^s random centres (s ~ U{0..h}) on a random half of the "
    "dimensions; the **Mondrian** kernel takes the cells of a Mondrian process at a "
    "lifetime \u03bb (its limit is the Laplace kernel). Products with any of them cost "
    "O(mN), so GPs are fit by conjugate gradients without forming the N x N matrix.",
)

with st.sidebar:
    st.subheader("1-D toy views")
    m = url_slider("Number of partitions m", "m", min_value=5, max_value=300, default=100,
                   step=5, help="More partitions: the m-approximate kernel settles "
                                "(its entries have variance at most 1/(4m)).")
    h = url_slider("Depth parameter h", "h", min_value=0, max_value=12, default=6,
                   help="Random Forest: depth d ~ U{0..h}; Fast Cluster: 2^s centres, "
                        "s ~ U{0..h}.")
    noise = url_slider("Noise variance s (standardised y)", "noise", min_value=0.01,
                       max_value=1.0, default=0.1, step=0.01,
                       help="Noise of the partition-kernel GPs, relative to the variance "
                            "of y. The RBF baseline optimises its own.")
    lam = url_slider("Mondrian lifetime \u03bb", "lam", min_value=1.0, max_value=100.0,
                     default=20.0, step=1.0,
                     help="Mondrian kernel \u2192 Laplace kernel exp(-\u03bb|x - x'|) as m grows "
                          "(x in [0, 1]).")
    n_points = url_slider("Toy data: points", "n", min_value=30, max_value=400, default=150,
                          step=10)
    seed = seed_control()

with user_errors():
    X, y = toy(n_points, seed)
    grid = np.linspace(-0.05, 1.05, 300)[:, None]

    # -------------------------------------------------------- posteriors (Figure 1)
    left, _ = explained(
        "GP posteriors on 1-D data with jumps",
        "**What it shows.** Posterior mean (blue), a band of two posterior standard "
        "deviations of *f* (exact, computed in the kernel's finite cluster-indicator "
        "feature space) and three posterior samples, as in the paper's Figure 1.\n\n"
        "**Look for:** partition-kernel posteriors are *piecewise constant* and "
        "*non-stationary*: they jump where the data jump and their uncertainty varies "
        "from place to place, while the RBF must trade smoothness against the jumps. "
        "Move *m* to watch the m-approximation settle; small *h* gives coarse "
        "partitions and a stiff fit.", heading=st.header)
    with left:
        with st.spinner("Fitting the GPs..."):
            panels = {k: curves(k, X, y, grid, m, h, lam, noise, seed) for k in KERNELS}
            panels["RBF"] = rbf_curves(X, y, grid, seed)
        show_figure(cached_figure(posterior_panels_figure, panels, X, y, grid,
                                            truth=toy_jumps_function(grid.ravel())),
                    "posteriors", params=dict(n=n_points, m=m, h=h, lam=lam, noise=noise, seed=seed))

    # -------------------------------------------------------- kernel matrices
    left, _ = explained(
        "Kernel matrices",
        "**What it shows.** k(x_i, x_j) for the toy points sorted by x: white = never "
        "together, black = always together.\n\n**Look for:** blocks along the "
        "diagonal (clusters), edges that line up with the jumps for the supervised "
        "Random Forest kernel, and graininess that fades as *m* grows.", heading=st.header)
    with left:
        mats = {f"{k} kernel": heatmap(k, X, y, m, h, lam, seed) for k in KERNELS}
        show_figure(cached_figure(kernel_heatmaps_figure, mats), "kernel-matrices",
                    params=dict(n=n_points, m=m, h=h, lam=lam, seed=seed))

    # -------------------------------------------------------- CG convergence
    left, right = explained("Conjugate gradients and the preconditioner", heading=st.header)
    with right:
        cg_kind = url_choice("Kernel", "cgk", KERNELS, default="Fast Cluster")
        st.markdown(
            "**What it shows.** Relative residual of CG on (K + sI) alpha = y against "
            "iteration, with and without the preconditioner "
            "B = (1/m) sum_rho (K_rho + sI)^-1, each term in closed form (Sherman-Morrison "
            "on the all-ones blocks).\n\n**Scaling.** The paper writes B = m sum_rho "
            "(K_rho + sigma I)^-1 with a *small* sigma; for K = (1/m) sum K_rho the "
            "consistent choice is the *average* with sigma = s, which equals A^-1 when all "
            "partitions agree and makes every eigenvalue of BA at least 1. (A constant "
            "factor such as the paper's m^2 does not change CG's iterates.) Lower noise "
            "means a worse-conditioned system and a bigger gain.")
    with left:
        hist = histories(cg_kind, X, y, m, h, lam, noise, seed)
        show_figure(cached_figure(cg_convergence_figure, hist, tol=1e-8), "cg",
                    params=dict(kernel=cg_kind, n=n_points, m=m, h=h, lam=lam, noise=noise,
                                seed=seed))

    # -------------------------------------------------------- real data
    st.header("Real data")
    d = data_source_picker("real", kinds=(*BUNDLED_DATASETS, "csv"), default="diabetes")
    data_name = d.name
    m_real = url_slider("Partitions m for the real-data views", "mr", min_value=10,
                        max_value=300, default=100, step=10,
                        help="Fast Cluster uses h = 8, Random Forest each tree's full depth.")

    left, _ = explained(
        "Kernel PCA (the paper's Figure 2)",
        "**What it shows.** The top two components of linear PCA and of kernel PCA "
        "with the Fast Cluster and Random Forest kernels (centred kernel, Lanczos "
        "eigensolver on an O(mN) operator), points coloured by the target.\n\n"
        "**Look for:** the supervised Random Forest embedding orders the points by "
        "the target (a colour gradient), the unsupervised ones need not.")
    with left:
        with st.spinner("Kernel PCA..."):
            emb = embeddings(d.X, d.y, m_real, seed)
        show_figure(cached_figure(kernel_pca_figure, emb, d.y, colour_label=d.target_name or "y"),
                    "kernel-pca", params={**data_params(d.name, "real"), "m": m_real, "seed": seed})

    left, _ = explained(
        "Test log-likelihood and MSE (the paper's Figures 3 and 4)",
        "**What it shows.** GPs with each kernel fit on a random 80% of the set and "
        f"scored on the other 20% (at most {COMPARE_MAX:,} points in all): mean log "
        "predictive density of the test targets "
        "(noise included) and mean squared error of the posterior mean. The "
        "partition kernels choose only the noise (the Mondrian kernel also its "
        "lifetime) by the evidence; RBF, RBF with "
        "one length scale per input (ARD) and linear optimise all hyper-parameters "
        "by the marginal likelihood (1 restart; the paper used 20).\n\n"
        "**Look for:** whether the hyper-parameter-free partition kernels keep up "
        "with tuned standard kernels. The Random Forest kernel is fit on the same "
        "training targets, so its evidence favours a small noise and its "
        "predictive bands can be over-confident (on the tips set, for example).")
    with left:
        rows = on_demand("Compare kernels (RBF-ARD takes up to a minute)", "compare",
                         f"compared::{data_name}::{d.n_samples}::{d.n_features}::{m_real}::{seed}",
                         lambda progress: comparison(d, m_real, seed, progress=progress))
        if rows:
            show_figure(cached_figure(comparison_figure, rows), "kernel-comparison",
                        params={**data_params(d.name, "real"), "m": m_real, "seed": seed})
            st.dataframe(
                [{"kernel": r["kernel"], "test log-lik": round(r["test_log_lik"], 4),
                  "test MSE": round(r["mse"], 4), "fit time (s)": round(r["seconds"], 2)}
                 for r in rows], hide_index=True)
        else:
            st.info("Press the button to fit and score all kernels on this data set.")

    left, _ = explained(
        "Test error against the number of partitions (the paper's Figure 5)",
        "**What it shows.** The Random Forest and Fast Cluster GPs of the comparison "
        f"above (same split), refitted with m = {', '.join(map(str, COUNTS))} "
        "partitions: mean test log-likelihood and MSE. The paper did this on the "
        "'mpg' set.\n\n**Look for:** how few partitions each kernel needs; the "
        "paper found the Random Forest kernel near its best with few partitions and "
        "Fast Cluster improving until about m = 200.")
    with left:
        by_m = on_demand("Fit the GPs at every m", "by_m",
                         f"by_m::{data_name}::{d.n_samples}::{d.n_features}::{seed}",
                         lambda progress: by_partition_count(d, seed, progress=progress))
        if by_m:
            show_figure(cached_figure(partition_count_figure, by_m, dataset_name=data_name),
                        "test-error-vs-m", params={**data_params(d.name, "real"), "seed": seed})
        else:
            st.info("Press the button to fit the two partition-kernel GPs at each m.")
