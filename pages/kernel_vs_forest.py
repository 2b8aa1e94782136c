"""Kernel vs forest: the same Mondrian trees fitted jointly or tree by tree (Figures 9, 10)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from explorer_ui.cache import CACHE_TTL
from explorer_ui.data import REGRESSION_KINDS, data_params, data_source_picker
from explorer_ui.figure_cache import cached_figure
from explorer_ui.navigation import require_app_navigation
from explorer_ui.widgets import (
    page_header,
    seed_control,
    show_figure,
    url_choice,
    url_number,
    url_slider,
    user_errors,
)
from mondrian_core import datasets
from mondrian_core.errors import InputError
from mondrian_core.experiments.kernel_vs_forest import kernel_forest_weights, kernel_vs_forest_path
from mondrian_core.figures import forest as figs

require_app_navigation()

MAX_POINTS = 3000


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _split(data, seed):
    return datasets.train_val_test_split(data, (0.7, 0.3), random_state=seed)


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _path(data, n_trees, terminal, n_lifetimes, noise, seed):
    train, test = _split(data, seed)
    lifetimes = np.geomspace(terminal / 300, terminal, n_lifetimes)
    return kernel_vs_forest_path(train.X, train.y, test.X, test.y, lifetimes, n_trees=n_trees,
                                 noise_variance=noise, prior_variance=1.0, random_state=seed)


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner=False)
def _weights(data, n_trees, terminal, lifetime, noise, seed):
    train, test = _split(data, seed)
    return kernel_forest_weights(train.X, train.y, test.X, test.y, lifetime, n_trees=n_trees,
                                 noise_variance=noise, prior_variance=1.0, random_state=seed,
                                 terminal_lifetime=terminal)


page_header(
    "Kernel vs forest",
    "The Mondrian kernel and the Mondrian forest start from the same M Mondrian trees. "
    "The forest fits each tree's leaf values alone and averages the trees' predictions; "
    "the kernel fits all leaf values (its features' weights) jointly, so that their "
    "*sum* predicts well (Balog et al. 2016, section 6 and section 8.3). Both use ridge "
    "regression with the same penalty, on the very same trees.",
)

with st.sidebar:
    data = data_source_picker("data", kinds=REGRESSION_KINDS, default="diabetes",
                              standardize_target=True)

c1, c2, c3, c4 = st.columns(4)
with c1:
    n_trees = url_slider("Trees M", "trees", min_value=2, max_value=100, default=30)
with c2:
    terminal = url_number("Largest lifetime λ (1 / input units)", "terminal", min_value=0.01,
                          max_value=100.0, default=2.0, step=0.5,
                          help="The curve runs over 300-fold range of lifetimes up to this one.")
with c3:
    noise = url_number("Noise variance σ² (prior variance 1)", "noise", min_value=1e-4,
                       max_value=10.0, default=0.1, step=0.05, format="%.4f",
                       help="Ridge penalty δ² = σ² / prior variance, the same for both fits.")
with c4:
    n_lifetimes = url_slider("Lifetimes on the curve", "nlam", min_value=5, max_value=40,
                             default=16)
seed = seed_control()

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
if st.session_state.get("lam") not in grid and "lam" in st.session_state:
    st.session_state["lam"] = grid[n_lifetimes // 2]  # the curve's grid changed
lifetime = float(url_choice("Lifetime for the weights (λ)", "lam", grid,
                            default=grid[n_lifetimes // 2], widget="select_slider",
                            help="One of the curve's lifetimes; marked by the dashed line."))
with user_errors():
    with st.spinner("Fitting both models at this lifetime..."):
        w = _weights(data, n_trees, terminal, lifetime, noise, seed)

left, right = st.columns([3, 2])
with left:
    show_figure(cached_figure(figs.kernel_vs_forest_rmse, path, lifetime, height=480), "rmse-vs-lifetime",
                params={**data_params(data.name), "M": n_trees, "lam_max": terminal,
                        "nlam": n_lifetimes, "noise_var": noise, "seed": seed})
with right:
    best_k = int(np.argmin(path.kernel_test_rmse))
    best_f = int(np.argmin(path.forest_test_rmse))
    st.markdown(
        "**Test error against lifetime** (the paper's Figure 9), target standardised; "
        "solid: test, dotted: train; the dashed line marks the weights' lifetime below. "
        "Small lifetimes mean few, large cells; large lifetimes many small ones. At "
        "every lifetime both models use the same trees.")
    st.markdown(
        f"- kernel: best test RMSE **{path.kernel_test_rmse[best_k]:.3f}** at "
        f"λ = {path.lifetimes[best_k]:.3g}\n"
        f"- forest: best test RMSE **{path.forest_test_rmse[best_f]:.3f}** at "
        f"λ = {path.lifetimes[best_f]:.3g}")
    st.caption("What to look for: the joint fit reaches a low error at smaller lifetimes "
               "(simpler partitions), because several trees' coarse cells can add up to a "
               "detailed prediction; the forest needs each tree to be good on its own.")

h_left, h_right = st.columns([3, 2])
with h_left:
    show_figure(cached_figure(figs.weight_histograms, w), "weights",
                params={**data_params(data.name), "M": n_trees, "lam": lifetime,
                        "lam_max": terminal, "noise_var": noise, "seed": seed})
with h_right:
    st.markdown(
        f"**Weights at λ = {lifetime:.4g}** (the paper's Figure 10): one per non-empty cell "
        f"({w.kernel_weights.size} cells over {n_trees} trees), normalised as "
        "w = [w⁽¹⁾ … w⁽ᴹ⁾] / √M so that both models predict φ(x)·w. Same bins, same axes.")
    ws = w.weight_summary()
    st.markdown(
        f"- kernel: std **{ws['kernel']['std']:.3g}**, "
        f"{100 * ws['kernel']['near_zero']:.0f}% of the weights within 5% of the largest |w| "
        "from 0\n"
        f"- forest: std **{ws['forest']['std']:.3g}**, "
        f"{100 * ws['forest']['near_zero']:.0f}% within 5% of the largest |w| from 0")
    st.caption("The paper (CPU data, weights fitted by stochastic gradient descent) found the "
               "kernel's weights more peaked around 0: the joint fit reaches extreme "
               "predictions by adding up several smaller weights. The weights here are the "
               "exact ridge solutions; compare the two histograms for this data set and "
               "lifetime: the joint fit can also spread its weights wider, with opposite "
               "signs in different trees cancelling.")

st.subheader("Two objectives: loss of the average, average of the losses")
st.markdown(
    "With ŷₙ⁽ᵐ⁾ = √M w[cell of xₙ in tree m] the prediction of tree m, both models predict "
    "the average ŷₙ = (1/M) Σₘ ŷₙ⁽ᵐ⁾ and use the penalty δ²‖w‖² (δ² = σ² / prior "
    "variance). They differ in where the average sits (section 6; Proposition 5 of the "
    "supplement):")
st.latex(r"\text{kernel:}\quad \min_w \sum_n \Big(y_n - \tfrac{1}{M}\sum_m \hat y_n^{(m)}\Big)^2"
         r" + \delta^2 \|w\|^2")
st.latex(r"\text{forest:}\quad \min_w \sum_n \tfrac{1}{M}\sum_m \big(y_n - \hat y_n^{(m)}\big)^2"
         r" + \delta^2 \|w\|^2")
ov = w.objective_values
table = pd.DataFrame(
    {"kernel weights (joint fit)": [ov["kernel"]["kernel"], ov["kernel"]["forest"],
                                    w.kernel_train_losses[0], w.kernel_train_losses[1],
                                    w.kernel_test_rmse],
     "forest weights (tree by tree)": [ov["forest"]["kernel"], ov["forest"]["forest"],
                                       w.forest_train_losses[0], w.forest_train_losses[1],
                                       w.forest_test_rmse]},
    index=["kernel objective (loss of the average)", "forest objective (average of the losses)",
           "train MSE of the average prediction", "train MSE of one tree (mean over trees)",
           "test RMSE"])
st.dataframe(table.style.format("{:.4g}"), width="stretch")
st.markdown(
    f"In this run at λ = {lifetime:.4g}: the kernel's weights give the kernel objective "
    f"**{ov['kernel']['kernel']:.4g}**, below the forest weights' "
    f"{ov['forest']['kernel']:.4g}; the forest's weights give the forest objective "
    f"**{ov['forest']['forest']:.4g}**, below the kernel weights' "
    f"{ov['kernel']['forest']:.4g}. Each fit is the minimiser of its own objective. "
    f"Mean squared training error of a single tree: kernel weights "
    f"{w.kernel_train_losses[1]:.3g}, forest weights {w.forest_train_losses[1]:.3g}; of the "
    f"average of the trees (what the prediction pays): kernel {w.kernel_train_losses[0]:.3g}, "
    f"forest {w.forest_train_losses[0]:.3g}. The kernel objective is the loss of the actual "
    "prediction; the forest's is not (Ren et al. 2015's global refinement of a forest fits "
    "the trees jointly, which is what the Mondrian kernel does).")
