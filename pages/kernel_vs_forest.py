"""Kernel vs forest: the same Mondrian trees fitted jointly or tree by tree (Figures 9, 10).

Claims shown at the defaults (``explorer_ui/defaults_kernel_vs_forest.py``; checked by
``tests/claims/test_kernel_vs_forest.py``):

1. On the same Mondrian samples, the Mondrian kernel (all leaf weights fitted jointly)
   has a test error no larger than the Mondrian forest (each tree fitted alone) at every
   lifetime of the curve, and reaches its best test error at a smaller lifetime, i.e. with
   simpler partitions (Balog et al. 2016, section 8.3, Figure 9).
2. At the kernel's best lifetime the joint fit's weights spread wider than the forest's:
   one tree of the kernel is a poor predictor on its own; only the sum over trees fits.
   (The paper's Figure 10, with weights fitted by SGD, found the kernel's weights more
   peaked around 0; with the exact ridge solutions here they are not.)

At a small noise variance (a weak ridge penalty) the joint fit interpolates the training
data at middle lifetimes and loses to the forest there: the page says so, and the tour
shows it.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer_ui import defaults_kernel_vs_forest as D
from explorer_ui.cache import CACHE_TTL
from explorer_ui.data import REGRESSION_KINDS, data_params, data_source_picker, split
from explorer_ui.figure_cache import cached_figure
from explorer_ui.lifetimes import lifetime_picker
from explorer_ui.navigation import require_app_navigation
from explorer_ui.tour import Step, Tour, predict_then_reveal
from explorer_ui.widgets import (
    page_header,
    seed_control,
    show_figure,
    url_number,
    url_slider,
    user_errors,
)
from mondrian_core.errors import InputError
from mondrian_core.experiments.kernel_vs_forest import (
    kernel_forest_weights,
    kernel_vs_forest_path,
    lifetime_grid,
)
from mondrian_core.figures import forest as figs

require_app_navigation()

MAX_POINTS = 3000

TOUR = Tour("kernel-vs-forest", [
    Step("Same trees, two fits",
         "Both models use the very same 30 Mondrian trees at every lifetime $\\lambda$. "
         "The kernel (blue) fits all leaf weights jointly, the forest (red) each tree "
         "alone: the kernel's test error (solid) is below the forest's at small and "
         "middle lifetimes, and it reaches its best at a smaller $\\lambda$, i.e. with "
         "coarser partitions. At the largest lifetimes almost every training point has "
         "a cell of its own and the two fits coincide."),
    Step("A weak penalty: the joint fit overfits",
         "With noise variance $\\sigma^2 = 0.1$ the ridge penalty is ten times weaker. "
         "The kernel's training error (dotted blue) falls below 0.15 by "
         "$\\lambda \\approx 0.3$ and its test error rises *above* the forest's between "
         "about $\\lambda = 0.1$ and $0.4$; at small lifetimes it still wins. The joint "
         "fit needs its penalty more than the averaging forest does.",
         {"noise": 0.1}),
    Step("Three trees: little to combine",
         "With $M = 3$ trees the two curves nearly coincide: a joint fit of three "
         "coarse partitions can add up to little more than their average. The gain of "
         "the kernel grows with the number of trees it can combine.",
         {"trees": 3}),
    Step("A hundred trees",
         "With $M = 100$ trees the kernel's advantage at small lifetimes grows to about "
         "0.2 in test RMSE (0.15 with 30 trees): a hundred coarse partitions, fitted "
         "jointly, already describe the data, while each tree of the forest is still "
         "only as good as its few cells.",
         {"trees": 100}),
    Step("Another data set: life expectancy",
         "On Gapminder (life expectancy against GDP and year) the joint fit is far "
         "better at every small lifetime: the forest's coarse trees predict little more "
         "than the mean, while their joint fit already follows the trend. The curves "
         "meet only at the largest lifetimes.",
         {"data_src": "gapminder"}),
])


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _path(data, n_trees, terminal, n_lifetimes, noise, seed):
    train, test = split(data, "test", seed)
    return kernel_vs_forest_path(train.X, train.y, test.X, test.y,
                                 lifetime_grid(terminal, n_lifetimes), n_trees=n_trees,
                                 noise_variance=noise, prior_variance=1.0, random_state=seed)


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner=False)
def _weights(data, n_trees, terminal, lifetime, noise, seed):
    train, test = split(data, "test", seed)
    return kernel_forest_weights(train.X, train.y, test.X, test.y, lifetime, n_trees=n_trees,
                                 noise_variance=noise, prior_variance=1.0, random_state=seed,
                                 terminal_lifetime=terminal)


page_header(
    "Kernel vs forest",
    "The Mondrian kernel and the Mondrian forest start from the same $M$ Mondrian trees. "
    "The forest fits each tree's leaf values alone and averages the trees' predictions; "
    "the kernel fits all leaf values (its features' weights) jointly, so that their "
    "*sum* predicts well (Balog et al. 2016, section 6 and section 8.3). Both use ridge "
    "regression with the same penalty $\\delta^2 = \\sigma^2 / \\sigma_w^2$ (noise over "
    "prior variance, here $\\sigma_w^2 = 1$), on the very same trees. Small lifetimes "
    "$\\lambda$ mean few, large cells; large lifetimes many small ones.",
    tour=TOUR,
)

side = st.sidebar
data = data_source_picker("data", kinds=REGRESSION_KINDS, default=D.DATA,
                          standardize_target=True, container=side)
n_trees = url_slider("Trees $M$", "trees", min_value=2, max_value=100, default=D.N_TREES,
                     container=side)
terminal = url_number("Largest lifetime $\\lambda$ (1 / input units)", "terminal",
                      min_value=0.01, max_value=100.0, default=D.LARGEST_LIFETIME, step=0.5,
                      container=side,
                      help="The curve runs over a 300-fold range of lifetimes up to this one.")
noise = url_number("Noise variance $\\sigma^2$ (prior variance 1)", "noise", min_value=1e-4,
                   max_value=10.0, default=D.NOISE_VARIANCE, step=0.05, format="%.4f",
                   container=side,
                   help="Ridge penalty $\\delta^2 = \\sigma^2 / \\sigma_w^2$, the same for both "
                        "fits. Small values let the joint fit interpolate the training data.")
n_lifetimes = url_slider("Lifetimes on the curve", "nlam", min_value=5, max_value=40,
                         default=D.N_LIFETIMES, container=side)
weights_box = side.container()  # the weights' lifetime: its choices come from the curve
seed = seed_control(default=D.SEED, container=side)

with user_errors():
    if data.task != "regression":
        raise InputError("Choose a regression data set: both models here are ridge regressions.")
    if data.n_samples > MAX_POINTS:
        raise InputError(f"{data.n_samples:,} points are more than this page's {MAX_POINTS:,} "
                         "(the kernel fit solves a dense system): lower N, or upload at most "
                         f"{MAX_POINTS:,} rows.")
    with st.spinner("Sampling the Mondrians and fitting both models at every lifetime..."):
        path = _path(data, n_trees, terminal, n_lifetimes, noise, seed)

grid = [f"{t:.4g}" for t in path.lifetimes]
best_k, best_f = path.best_kernel_index, path.best_forest_index
lifetime = lifetime_picker(
    "Lifetime $\\lambda$ for the weights", "lam", grid, grid[best_k], container=weights_box,
    help="One of the curve's lifetimes, marked by the dashed line; by default the one "
         "where the kernel's test error is lowest.")

show_figure(cached_figure(figs.kernel_vs_forest_rmse, path, lifetime, height=430),
            "rmse-vs-lifetime", main=True,
            params={**data_params(data.name), "M": n_trees, "lam_max": terminal,
                    "nlam": n_lifetimes, "noise_var": noise, "seed": seed})
wins = int(path.kernel_wins.sum())
st.markdown(
    f"Best test RMSE: **kernel {path.kernel_test_rmse[best_k]:.3f}** at "
    f"$\\lambda = {path.lifetimes[best_k]:.3g}$, **forest {path.forest_test_rmse[best_f]:.3f}** "
    f"at $\\lambda = {path.lifetimes[best_f]:.3g}$; the kernel is at least as good at "
    f"{wins} of the {len(grid)} lifetimes.")
st.caption("The paper's Figure 9 (CPU data): the joint fit reaches a low error at smaller "
           "lifetimes, because several trees' coarse cells add up to a detailed "
           "prediction. Blue: kernel (all trees fitted jointly), red: forest (each tree "
           "fitted alone); solid: test, dotted: train; target standardised. With a small "
           "noise variance $\\sigma^2$ the joint fit can overfit at middle lifetimes, "
           "where the forest's averaging protects it.")

with user_errors():
    with st.spinner("Fitting both models at this lifetime..."):
        w = _weights(data, n_trees, terminal, lifetime, noise, seed)

if predict_then_reveal(
        "kvf_weights",
        f"Both models predict $\\varphi(x)^\\top w$ with the same features at "
        f"$\\lambda = {lifetime:.4g}$. Whose weights $w$ spread wider around 0?",
        ["The kernel's (joint fit)", "The forest's (each tree alone)", "About the same"], 0,
        "Each forest weight is one tree's shrunk mean of $y$ in a cell (divided by "
        "$\\sqrt{M}$), so it is never larger than the targets allow. The joint fit only "
        "needs the *sum* over trees to fit, so it uses larger weights, of opposite signs "
        "in different trees, that partly cancel: one tree of the kernel alone predicts "
        f"badly (training MSE {w.kernel_train_losses[1]:.3g}, against "
        f"{w.forest_train_losses[1]:.3g} for one tree of the forest). At the largest "
        "lifetimes, where most cells hold a single point, the two fits and their weights "
        "become alike. The paper's Figure "
        "10, with weights fitted by stochastic gradient descent, found the kernel's "
        "weights more peaked around 0; the exact ridge solutions here differ."):
    h_left, h_right = st.columns([3, 2])
    with h_left:
        show_figure(cached_figure(figs.weight_histograms, w), "weights",
                    params={**data_params(data.name), "M": n_trees, "lam": lifetime,
                            "lam_max": terminal, "noise_var": noise, "seed": seed})
    with h_right:
        ws = w.weight_summary()
        st.markdown(
            f"**Weights at $\\lambda = {lifetime:.4g}$** (the paper's Figure 10): one per "
            f"non-empty cell ({w.kernel_weights.size} cells over {n_trees} trees), "
            "normalised as $w = [w^{(1)} \\dots w^{(M)}] / \\sqrt{M}$ so that both models "
            "predict $\\varphi(x)^\\top w$. Same bins, same axes.")
        st.markdown(
            f"- kernel: std **{ws['kernel']['std']:.3g}**, "
            f"{100 * ws['kernel']['near_zero']:.0f}% of the weights within 5% of the "
            "largest $|w|$ from 0\n"
            f"- forest: std **{ws['forest']['std']:.3g}**, "
            f"{100 * ws['forest']['near_zero']:.0f}% within 5% of the largest $|w|$ from 0")

with st.expander("Two objectives: loss of the average, average of the losses"):
    st.markdown(
        "With $\\hat y_n^{(m)} = \\sqrt{M}\\, w[\\text{cell of } x_n \\text{ in tree } m]$ "
        "the prediction of tree $m$, both models predict the average "
        "$\\hat y_n = \\frac{1}{M} \\sum_m \\hat y_n^{(m)}$ and use the penalty "
        "$\\delta^2 \\|w\\|^2$ ($\\delta^2 = \\sigma^2 / \\sigma_w^2$). They differ in "
        "where the average sits (section 6; Proposition 5 of the supplement):")
    st.latex(r"\text{kernel:}\quad \min_w \sum_n \Big(y_n - \tfrac{1}{M}\sum_m \hat y_n^{(m)}"
             r"\Big)^2 + \delta^2 \|w\|^2")
    st.latex(r"\text{forest:}\quad \min_w \sum_n \tfrac{1}{M}\sum_m \big(y_n - \hat y_n^{(m)}"
             r"\big)^2 + \delta^2 \|w\|^2")
    ov = w.objective_values
    table = pd.DataFrame(
        {"kernel weights (joint fit)": [ov["kernel"]["kernel"], ov["kernel"]["forest"],
                                        w.kernel_train_losses[0], w.kernel_train_losses[1],
                                        w.kernel_test_rmse],
         "forest weights (tree by tree)": [ov["forest"]["kernel"], ov["forest"]["forest"],
                                           w.forest_train_losses[0], w.forest_train_losses[1],
                                           w.forest_test_rmse]},
        index=["kernel objective (loss of the average)",
               "forest objective (average of the losses)",
               "train MSE of the average prediction", "train MSE of one tree (mean over trees)",
               "test RMSE"])
    st.dataframe(table.style.format("{:.4g}"), width="stretch")
    st.markdown(
        f"In this run at $\\lambda = {lifetime:.4g}$: the kernel's weights give the kernel "
        f"objective **{ov['kernel']['kernel']:.4g}**, below the forest weights' "
        f"{ov['forest']['kernel']:.4g}; the forest's weights give the forest objective "
        f"**{ov['forest']['forest']:.4g}**, below the kernel weights' "
        f"{ov['kernel']['forest']:.4g}. Each fit is the minimiser of its own objective. "
        "The kernel objective is the loss of the actual prediction; the forest's is not "
        "(Ren et al. 2015's global refinement of a forest fits the trees jointly, which is "
        "what the Mondrian kernel does).")
