"""Partition-kernel GPs: GP regression with Random Forest and Fast Cluster kernels.

Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for big
data from random partitions". Widgets, layout and text only.

Claims shown at the defaults (``explorer_ui/defaults_partition_gp.py``; checked over 10
seeds by ``tests/claims/test_partition_gp.py``):

1. On 1-D data with jumps, the GP posterior means of the Random Forest and Fast Cluster
   kernels are piecewise constant, jump where the data jump and lie closer to the true
   function than the RBF GP's, whose one length scale cannot both follow the jumps and
   ignore the noise (the paper's Figure 1).
2. The closed-form preconditioner
   :math:`B = \\frac{1}{m}\\sum_\\rho (K_\\rho + sI)^{-1}` makes conjugate gradients on
   :math:`(K + sI)\\alpha = y` converge in fewer iterations than plain CG, for each of
   the three partition kernels, and saves more iterations at a smaller noise variance.

Variants, labelled on the page: the Random Forest kernel's depth cap ``h`` is this app's
(the paper's kernel has no hyper-parameters); the test log-likelihood is a mean per-point
density, not the paper's joint one.
"""
from __future__ import annotations

import streamlit as st

from explorer_ui import defaults_partition_gp as D
from explorer_ui.cache import CACHE_TTL
from explorer_ui.compute import cached_with_progress, requested
from explorer_ui.data import data_key, data_params, data_source_picker, split
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
from mondrian_core import BUNDLED_DATASETS, toy_jumps_1d
from mondrian_core.datasets import toy_jumps_function
from mondrian_core.experiments.gp_experiments import (
    PARTITION_KERNELS,
    cg_histories,
    compare_kernels,
    distance_to_truth,
    fitted_partitions,
    kernel_pca_embeddings,
    partition_count_curves,
    posterior_curves,
    sorted_kernel_matrix,
)
from mondrian_core.experiments.grids import line_grid
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

TOUR = Tour("partition-gp", [
    Step("Posteriors that jump with the data",
         "The toy function jumps three times. The Random Forest and Fast Cluster GPs "
         "(top row) have piecewise-constant posterior means that jump where the data "
         "jump and stay flat in between. The RBF GP (bottom right) has one length scale for "
         "the whole line, chosen by its marginal likelihood (its panel title gives it): "
         "short, and it follows the jumps but wiggles with the noise; long, and it "
         "smooths the jumps away. The caption under the chart gives each mean's distance "
         "from the true function."),
    Step("Shallow partitions: $h = 1$",
         "With $h = 1$ a Random Forest partition is the tree cut at depth 0 or 1: at "
         "most two cells, split where the tree's first split falls. At this seed those "
         "splits fall near $x = 0.8$ and the Random Forest mean (top left) misses the "
         "other two jumps. ($h$ is this app's depth cap; the paper's kernel cuts the full "
         "tree at a uniform depth.) Fast Cluster partitions are as coarse (one or two "
         "centres), but their boundaries fall at random places, so their average still "
         "makes a staircase that follows the data; the Mondrian kernel does not use $h$.",
         {"h": 1}),
    Step("Few partitions: $m = 5$",
         "With only $m = 5$ partitions the kernel $k(x, x')$, the fraction of "
         "partitions that put $x$ and $x'$ together, takes only the values "
         "$0, 0.2, \\dots, 1$. The posterior means are made of a few visible steps; at "
         "this seed the Mondrian mean (bottom left) is the roughest: each of its five "
         "partitions cuts $[0, 1]$ at random places, blind to the data.",
         {"m": 5}),
    Step("A shorter lifetime for the Mondrian kernel",
         "At lifetime $\\lambda = 3$ the Mondrian kernel approaches the Laplace kernel "
         "$e^{-3|x - x'|}$: few cuts, long-range correlation. Its posterior (bottom left) "
         "is smoother and closer to the truth than at $\\lambda = 20$ (in each of 10 "
         "seeds: this app's measurement, tests/claims); the other panels do not use "
         "$\\lambda$ and do not change.",
         {"lam": 3.0}),
    Step("Small noise: more CG iterations",
         "With noise variance $s = 0.01$ the partition-kernel means chase the noise "
         "between the jumps, and the system $(K + sI)\\alpha = y$ is worse conditioned: "
         "the fits' CG iterations, listed under the chart, roughly double (1.5 to 3 times "
         "those at $s = 0.1$ in each of 10 seeds: this app's measurement). The "
         "preconditioner below the chart saves more iterations here than at $s = 0.1$.",
         {"noise": 0.01}),
])


SOURCES = [
    Source("A random partition kernel is the probability that a random partition puts two "
           "points in the same cluster; with $m$ partitions, the fraction that do.",
           "Davies and Ghahramani (2014), sec. 3, Definitions 1 and 2"),
    Source("Random Forest kernel: a tree of a random forest cut at a depth "
           "$d \\sim \\mathcal{U}\\{0..h\\}$, $h$ the tree's height; no hyper-parameters.",
           "Davies and Ghahramani (2014), sec. 4.3.1, Algorithm 1"),
    Source("The depth cap $h$ of this app's Random Forest kernel slider.",
           "this app's addition (the paper's $h$ is each tree's own height)", own=True),
    Source("Fast Cluster kernel: a random subset of the dimensions, $2^s$ random centres, "
           "$s \\sim \\mathcal{U}\\{0..h\\}$, nearest centre; this app keeps each "
           "dimension with probability 1/2 (redrawn if none is kept).",
           "Davies and Ghahramani (2014), sec. 4.3.2, Algorithm 2"),
    Source("Partition-kernel posteriors are piecewise constant; the Random Forest and Fast "
           "Cluster kernels are non-stationary (the Mondrian kernel's limit, the Laplace "
           "kernel, is stationary).",
           "Davies and Ghahramani (2014), sec. 4.3.1 properties (1)-(2), sec. 4.3.2, "
           "Figure 1; Balog et al. (2016), Proposition 1"),
    Source("Products with the kernel cost $O(mN)$; GPs by conjugate gradients; a closed-form "
           "preconditioner from the per-partition inverses.",
           "Davies and Ghahramani (2014), sec. 3.3"),
    Source("The preconditioner as the average $\\frac{1}{m}\\sum_\\rho (K_\\rho + sI)^{-1}$ "
           "(the paper writes $m \\sum_\\rho (K_\\rho + \\sigma I)^{-1}$, small $\\sigma$).",
           "this app's scaling; CG's iterates do not change with a constant factor", own=True),
    Source("The Mondrian kernel tends to the Laplace kernel $e^{-\\lambda \\|x - x'\\|_1}$.",
           "Balog et al. (2016), sec. 3, Proposition 1"),
    Source("Test log-likelihood (joint) and MSE of partition kernels against RBF, RBF-ARD, "
           "linear on UCI sets (Figures 3, 4); error against $m$ on 'mpg' (Figure 5).",
           "Davies and Ghahramani (2014), sec. 5"),
    Source("This page scores the mean per-point log predictive density, not the joint one.",
           "this app's measure", own=True),
    Source("On the toy data the Random Forest and Fast Cluster means are closer to the truth "
           "than the RBF's; the Mondrian mean is closer at $\\lambda = 3$ than at 20; "
           "preconditioned CG takes fewer iterations, and saves more at $s = 0.01$.",
           "tests/claims/test_partition_gp.py, 10 seeds at the page's defaults", own=True),
]


# ---------------------------------------------------------------- cached core calls
@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _toy(n, seed):
    d = toy_jumps_1d(n=n, random_state=seed)
    return d.X, d.y


@st.cache_resource(max_entries=12, ttl=CACHE_TTL, show_spinner=False)
def _partitions(kind, X, y, m, h, lam, seed):
    """Fitted partitions shared by the posterior, kernel and CG views (not copied, so
    read-only). 12 = the three kernels at four settings: a Random Forest one at the
    largest settings (400 points, m = 300, h = 12) pickles to 12 MB."""
    return fitted_partitions(kind, X, y, n_partitions=m, max_level=h, lifetime=lam,
                             random_state=seed)


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def _curves(kind, X, y, grid, m, h, lam, noise, seed):
    return posterior_curves(kind, X, y, grid, noise_variance=noise, random_state=seed,
                            partitions=_partitions(kind, X, y, m, h, lam, seed))


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _rbf_curves(X, y, grid, seed):
    return posterior_curves("RBF", X, y, grid, random_state=seed)


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def _heatmap(kind, X, y, m, h, lam, seed):
    return sorted_kernel_matrix(kind, X, y, random_state=seed,
                                partitions=_partitions(kind, X, y, m, h, lam, seed))[0]


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def _histories(kind, X, y, m, h, lam, noise, seed):
    return cg_histories(kind, X, y, noise_variance=noise, random_state=seed, tol=D.CG_TOL,
                        partitions=_partitions(kind, X, y, m, h, lam, seed))


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _embeddings(X, y, m, seed):
    return kernel_pca_embeddings(X, y, n_partitions=m, random_state=seed)


def _comparison(d, m, seed, progress):
    """The kernels' test scores (at most COMPARE_MAX points, split by the seed)."""
    train, test = split(d, "compare", seed, max_points=COMPARE_MAX)
    return compare_kernels(train.X, train.y, test.X, test.y, KERNELS + BASELINES,
                           n_partitions=m, random_state=seed, progress=progress)


def _by_partition_count(d, seed, progress):
    """Figure 5's curves, on the comparison's split."""
    train, test = split(d, "compare", seed, max_points=COMPARE_MAX)
    return partition_count_curves(train.X, train.y, test.X, test.y, COUNTS,
                                  random_state=seed, progress=progress)


def _on_request(label, button_key, key, compute):
    """``compute(progress)``'s result once this session asked for it (a button), else None."""
    if requested(label, button_key, key):
        return cached_with_progress(key, compute, "Fitting GPs...")
    return None


# ---------------------------------------------------------------- page
page_header(
    "Partition-kernel GPs",
    "A **random partition kernel** is the probability that a random partition $\\rho$ "
    "puts two points in the same cluster; with $m$ sampled partitions it is the fraction "
    "of them that do (Davies and Ghahramani 2014):\n\n"
    "$$k(x, x') = \\frac{1}{m} \\sum_{\\rho=1}^{m} \\mathbb{1}[x \\text{ and } x' "
    "\\text{ in the same cell of } \\rho].$$\n\n"
    "The **Random Forest** kernel cuts a tree of a random forest at a random depth "
    "$d \\sim \\mathcal{U}\\{0, \\dots, h\\}$, where in the paper $h$ is the tree's own "
    "height, so the kernel has no hyper-parameters (sec. 4.3.1); *this app adds a cap*: "
    "the sidebar's $h$ limits the depth, so that small $h$ can be explored. The **Fast "
    "Cluster** kernel keeps each dimension with probability 1/2 (redrawn if none is "
    "kept) and assigns points to the nearest of $2^s$ random centres "
    "($s \\sim \\mathcal{U}\\{0, \\dots, h\\}$) on the kept dimensions; the **Mondrian** "
    "kernel takes the cells of a Mondrian process at a lifetime $\\lambda$ (its limit is "
    "the Laplace kernel $e^{-\\lambda \\|x - x'\\|_1}$). Products with any of them cost "
    "$O(mN)$, so GPs are fit by conjugate gradients without forming the $N \\times N$ "
    "matrix.",
    tour=TOUR, sources=SOURCES,
)

side = st.sidebar
side.markdown("**Data**")
n_points = url_slider("Toy 1-D data with jumps: points $N$", "n", min_value=30,
                      max_value=400, default=D.N_POINTS, step=10, container=side)
side.caption("The real data set below feeds the kernel PCA and comparison views.")
# Filled where the real-data views start: a bad or missing CSV then stops only those
# views, and the toy views above them are still drawn.
real_box = side.container()
side.markdown("**Kernels**")
m = url_slider("Number of partitions $m$", "m", min_value=5, max_value=300,
               default=D.N_PARTITIONS, step=5, container=side,
               help="More partitions: the $m$-approximate kernel settles (its entries "
                    "have variance at most $1/(4m)$).")
h = url_slider("Depth parameter $h$ (for Random Forest: this app's cap)", "h", min_value=0,
               max_value=12, default=D.MAX_LEVEL, container=side,
               help="Random Forest: depth $d \\sim \\mathcal{U}\\{0..h\\}$, a cap this app "
                    "adds (the paper's kernel uses each tree's own height and has no "
                    "hyper-parameters); Fast Cluster: $2^s$ centres, "
                    "$s \\sim \\mathcal{U}\\{0..h\\}$, as in the paper.")
noise = url_slider("Noise variance $s$ (standardised $y$)", "noise", min_value=0.01,
                   max_value=1.0, default=D.NOISE_VARIANCE, step=0.01, container=side,
                   help="Noise of the partition-kernel GPs, relative to the variance "
                        "of $y$. The RBF baseline optimises its own.")
lam = url_slider("Mondrian lifetime $\\lambda$", "lam", min_value=1.0, max_value=100.0,
                 default=D.LIFETIME, step=1.0, container=side,
                 help="The Mondrian kernel tends to the Laplace kernel "
                      "$e^{-\\lambda |x - x'|}$ as $m$ grows ($x$ in $[0, 1]$).")
cg_kind = url_choice("Kernel of the CG view", "cgk", KERNELS, default=D.CG_KERNEL,
                     container=side)
m_real = url_slider("Partitions $m$ for the real-data views", "mr", min_value=10,
                    max_value=300, default=D.REAL_PARTITIONS, step=10, container=side,
                    help="Fast Cluster uses $h = 8$, Random Forest each tree's full depth.")
seed = seed_control(default=D.SEED, container=side)

with user_errors():
    X, y = _toy(n_points, seed)
    grid = line_grid(*D.GRID)
    truth = toy_jumps_function(grid.ravel())

    # -------------------------------------------------------- posteriors (Figure 1): main
    with st.spinner("Fitting the GPs..."):
        panels = {k: _curves(k, X, y, grid, m, h, lam, noise, seed) for k in KERNELS}
        panels["RBF"] = _rbf_curves(X, y, grid, seed)
    show_figure(cached_figure(posterior_panels_figure, panels, X, y, grid, truth=truth,
                              height=330),
                "posteriors", main=True,
                params=dict(n=n_points, m=m, h=h, lam=lam, noise=noise, seed=seed))
    errors = {k: distance_to_truth(p["mean"], grid, truth) for k, p in panels.items()}
    st.markdown(
        "Distance of each posterior mean from the true function (RMS on $[0, 1]$): "
        + ", ".join(f"{k} **{e:.2f}**" for k, e in errors.items())
        + ". Preconditioned CG iterations of the fits: "
        + ", ".join(f"{k} {p['n_iter']}" for k, p in panels.items() if p["n_iter"] is not None)
        + ".")
    st.caption("The paper's Figure 1: partition-kernel posteriors are piecewise constant, "
               "and the Random Forest and Fast Cluster kernels are non-stationary: "
               "$k(x, x')$ depends on where $x$ and $x'$ lie (the trees' cuts and the "
               "centres follow the data), not only on $x - x'$. (Every posterior's "
               "uncertainty varies from place to place, the RBF's too; and the Mondrian "
               "kernel's limit, the Laplace kernel, is stationary.) The RBF trades "
               "smoothness against the jumps.")
    with st.expander("What the panels show"):
        st.markdown(
            "Posterior mean (blue), a band of two posterior standard deviations of $f$ "
            "(exact, computed in the kernel's finite cluster-indicator feature space), "
            "three posterior samples, the true function (dotted) and the data. The "
            "partition kernels use the noise variance $s$ of the sidebar; the RBF "
            "optimises its amplitude, length scale and noise by the marginal likelihood. "
            "Move $m$ to watch the $m$-approximation settle; a small $h$ gives coarse "
            "partitions and a stiff fit.")

    # -------------------------------------------------------- CG convergence: the question
    st.subheader("Conjugate gradients and the preconditioner")
    if predict_then_reveal(
            "pgp_cg",
            f"CG solves $(K + sI)\\alpha = y$ for the {cg_kind} kernel to a relative "
            "residual of $10^{-8}$. With the closed-form preconditioner "
            "$B = \\frac{1}{m}\\sum_\\rho (K_\\rho + sI)^{-1}$, does it need...",
            ["fewer iterations", "about as many", "more iterations"], 0,
            "Each term $(K_\\rho + sI)^{-1}$ is exact for one partition (a "
            "block-diagonal matrix of all-ones blocks, inverted in closed form by "
            "Sherman-Morrison), so their average is close to $(K + sI)^{-1}$ when the "
            "partitions agree and every eigenvalue of $B(K + sI)$ is at least 1: the "
            "system CG sees is much better conditioned. Each iteration still costs "
            "$O(mN)$."):
        hist = _histories(cg_kind, X, y, m, h, lam, noise, seed)
        left, right = st.columns([3, 1])
        with left:
            show_figure(cached_figure(cg_convergence_figure, hist, tol=D.CG_TOL), "cg",
                        params=dict(kernel=cg_kind, n=n_points, m=m, h=h, lam=lam,
                                    noise=noise, seed=seed))
        with right:
            # a history holds the starting residual, then one per iteration
            st.markdown("\n".join(f"- {name}: **{len(r) - 1}** iterations"
                                  for name, r in hist.items()))
            st.caption("Lower noise $s$ means a worse-conditioned system (the smallest "
                       "eigenvalue of $K + sI$ is about $s$) and, at this page's defaults, a "
                       "bigger saving (each of 10 seeds at $s = 0.01$ against $0.1$: this "
                       "app's measurement).")
        with st.expander("The preconditioner's scaling"):
            st.markdown(
                "The paper writes $B = m \\sum_\\rho (K_\\rho + \\sigma I)^{-1}$ with a "
                "*small* $\\sigma$; for $K = \\frac{1}{m}\\sum_\\rho K_\\rho$ the consistent "
                "choice is the *average* with $\\sigma = s$, which equals "
                "$(K + sI)^{-1}$ when all partitions agree and makes every eigenvalue of "
                "$B(K + sI)$ at least 1. (A constant factor such as the paper's $m^2$ "
                "does not change CG's iterates.)")

    # -------------------------------------------------------- kernel matrices
    st.subheader("Kernel matrices")
    mats = {f"{k} kernel": _heatmap(k, X, y, m, h, lam, seed) for k in KERNELS}
    show_figure(cached_figure(kernel_heatmaps_figure, mats), "kernel-matrices",
                params=dict(n=n_points, m=m, h=h, lam=lam, seed=seed))
    st.caption("$k(x_i, x_j)$ for the toy points sorted by $x$: white = never together, "
               "black = always together. Look for blocks along the diagonal (clusters), "
               "edges that line up with the jumps for the supervised Random Forest "
               "kernel, and graininess that fades as $m$ grows.")

    # -------------------------------------------------------- real data
    st.subheader("Real data")
    d = data_source_picker("real", kinds=(*BUNDLED_DATASETS, "csv"), default=D.REAL_DATA,
                           container=real_box)
    data_name = d.name
    with st.spinner("Kernel PCA..."):
        emb = _embeddings(d.X, d.y, m_real, seed)
    show_figure(cached_figure(kernel_pca_figure, emb, d.y, colour_label=d.target_name or "y"),
                "kernel-pca", params={**data_params(d), "m": m_real, "seed": seed})
    st.caption("The paper's Figure 2: the top two components of linear PCA and of kernel "
               "PCA with the Fast Cluster and Random Forest kernels (centred kernel, "
               "Lanczos eigensolver on an $O(mN)$ operator), points coloured by the "
               "target. Look for whether the supervised Random Forest embedding orders the "
               "points by the target (a colour gradient); the unsupervised ones need not.")

    st.markdown("**Test log-likelihood and MSE** (the paper's Figures 3 and 4; here the "
                "log-likelihood is this app's *mean per-point* density, not the paper's joint "
                "one)")
    rows = _on_request("Compare kernels (RBF-ARD takes up to a minute)", "compare",
                       ("partition gp: comparison", data_key(d), m_real, seed),
                       lambda progress: _comparison(d, m_real, seed, progress))
    if rows:
        show_figure(cached_figure(comparison_figure, rows), "kernel-comparison",
                    params={**data_params(d), "m": m_real, "seed": seed})
        st.dataframe(
            [{"kernel": r["kernel"], "mean test log-lik per point": round(r["test_log_lik"], 4),
              "test MSE": round(r["mse"], 4), "fit time (s)": round(r["seconds"], 2)}
             for r in rows], hide_index=True)
    else:
        st.info("Press the button to fit and score all kernels on this data set.")
    with st.expander("How the kernels are compared"):
        st.markdown(
            "GPs with each kernel are fit on a random 80% of the set and scored on the "
            f"other 20% (at most {COMPARE_MAX:,} points in all): the mean over test points of "
            "each one's marginal log predictive density (noise included) and the mean "
            "squared error of the posterior mean. *A variant*: the paper's Figures 3 and 4 "
            "score the *joint* predictive density of all test targets, with their "
            "covariances (sec. 5); the per-point mean ignores those covariances and is "
            "comparable across test-set sizes. The partition kernels choose only the noise (the Mondrian "
            "kernel also its lifetime) by the evidence; RBF, RBF with one length scale "
            "per input (ARD) and linear optimise all hyper-parameters by the marginal "
            "likelihood (1 restart; the paper used 20). Look for whether the "
            "hyper-parameter-free partition kernels keep up with tuned standard kernels. "
            "The Random Forest kernel is fit on the same training targets, so its "
            "evidence favours a small noise and its predictive bands can be "
            "over-confident (on the tips set, for example).")

    st.markdown("**Test error against the number of partitions** (the paper's Figure 5)")
    by_m = _on_request("Fit the GPs at every m", "by_m",
                       ("partition gp: by m", data_key(d), seed),
                       lambda progress: _by_partition_count(d, seed, progress))
    if by_m:
        show_figure(cached_figure(partition_count_figure, by_m, dataset_name=data_name),
                    "test-error-vs-m", params={**data_params(d), "seed": seed})
    else:
        st.info("Press the button to fit the two partition-kernel GPs at each m.")
    st.caption("The Random Forest and Fast Cluster GPs of the comparison (same split), "
               f"refitted with $m$ = {', '.join(map(str, COUNTS))} partitions. The paper "
               "(on the 'mpg' set) found the Random Forest kernel near its best with few "
               "partitions and Fast Cluster improving until about $m = 200$.")
