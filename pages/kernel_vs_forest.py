"""Kernel vs forest: the same Mondrian trees fitted jointly or tree by tree (Figures 9, 10).

The "forest" here is the paper's (written in quotes there, Balog et al. 2016, sec. 8.3):
each tree's leaves fitted by ridge alone, averaged (Proposition 5 of the supplement), with
no hierarchical smoothing, unlike the online page's Mondrian forest.

Claims shown at the defaults (``explorer_ui/defaults_kernel_vs_forest.py``; checked over
10 seeds by ``tests/claims/test_kernel_vs_forest.py``):

1. On the same Mondrian samples, the Mondrian kernel (all leaf weights fitted jointly)
   has a lower test error than the forest (each tree fitted alone) at small lifetimes, the
   two meet at the largest ones, and the kernel's best error is lower than the forest's
   best (Balog et al. 2016, section 8.3, Figure 9).
2. The weights question's answer is computed from the two weight vectors shown, by one
   rule stated on the page: "about the same" when their standard deviations are within
   25% of each other, else the wider one. At the kernel's best lifetime (the default) the
   exact joint fit's weights come out wider than the forest's, in every one of 10 seeds
   (this app's finding); the paper's Figure 10, fitted by SGD and with the forest's
   weights stored as leaf values, shows the kernel's more peaked. The page's SGD section
   reproduces the paper's training and shows where the two part.
3. The forest's objective is the kernel's plus the trees' disagreement (an identity,
   tested numerically): with a weak ridge penalty only the joint fit can chase the noise.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer_ui import defaults_kernel_vs_forest as D
from explorer_ui.cache import CACHE_TTL
from explorer_ui.compute import cached_with_progress
from explorer_ui.data import REGRESSION_KINDS, data_key, data_params, data_source_picker, split
from explorer_ui.figure_cache import cached_figure
from explorer_ui.lifetimes import lifetime_picker
from explorer_ui.navigation import require_app_navigation
from explorer_ui.sources import Source
from explorer_ui.tour import Step, Tour, predict_then_reveal
from explorer_ui.widgets import (
    page_header,
    seed_control,
    show_figure,
    url_number,
    url_slider,
    url_toggle,
    user_errors,
)
from mondrian_core.errors import InputError
from mondrian_core.experiments.kernel_vs_forest import (
    SPREAD_TOLERANCE,
    kernel_forest_weights,
    kernel_vs_forest_path,
    lifetime_grid,
    paper_sgd_path,
    spread_verdict,
)
from mondrian_core.figures import forest as figs

require_app_navigation()

MAX_POINTS = 3000

TOUR = Tour("kernel-vs-forest", [
    Step("Same trees, two fits",
         "Both models use the very same 30 Mondrian trees at every lifetime $\\lambda$. "
         "The kernel (blue) fits all leaf weights jointly, the forest (red) each tree "
         "alone: the kernel's test error (solid) is below the forest's at small "
         "lifetimes, and its best error is lower. At the largest lifetimes almost every "
         "training point has a cell of its own and the two fits coincide. (Over 10 seeds "
         "at these settings both hold every time; the kernel's best lifetime is the "
         "smaller one in at least 9 of them: this app's measurement, tests/claims.)"),
    Step("A weak penalty: the joint fit overfits",
         "With noise variance $\\sigma^2 = 0.1$ the ridge penalty is ten times weaker. "
         "At this seed the kernel's training error (dotted blue) drops far below its test "
         "error, and its test error rises *above* the forest's at middle lifetimes "
         "(over 10 seeds it does in most, not all); at the smallest lifetimes it still "
         "wins. Why: the forest's objective is the kernel's *plus a penalty on the trees' "
         "disagreement* (expander below), a second regulariser the joint fit lacks.",
         {"noise": 0.1}),
    Step("Three trees: little to combine",
         "With $M = 3$ trees the two curves lie close together: a joint fit of three "
         "coarse partitions can add up to little more than their average. The gap "
         "between the curves is smaller than with 30 trees (at every one of 10 seeds, "
         "this app's measurement).",
         {"trees": 3}),
    Step("A hundred trees",
         "With $M = 100$ trees the kernel's largest advantage over the forest grows "
         "(larger than with 30 trees at every one of 10 seeds, this app's measurement): "
         "a hundred coarse partitions, fitted jointly, already describe the data, while "
         "each tree of the forest is still only as good as its few cells.",
         {"trees": 100}),
    Step("Another data set: life expectancy",
         "On Gapminder (life expectancy against GDP and year), at this seed, the joint "
         "fit is far better at small lifetimes: the forest's coarse trees predict little "
         "more than the mean, while their joint fit already follows the trend. The "
         "curves meet at the largest lifetimes.",
         {"data_src": "gapminder"}),
])

SOURCES = [
    Source("The kernel reaches a lower test error than the \"forest\" on the same Mondrian "
           "samples, at smaller lifetimes (simpler partitions).",
           "Balog et al. (2016), sec. 8.3, Figure 9 (CPU data)"),
    Source("The paper's \"forest\" (in quotes there) has no hierarchical smoothing: each "
           "tree's leaves are a ridge fit alone; the forest objective is Proposition 5's.",
           "Balog et al. (2016), sec. 8.3; supplement, Proposition 5"),
    Source("The Mondrian kernel's weights are learned jointly in the primal, by SGD in the "
           "paper, one epoch after every cut of the lifetime sweep.",
           "Balog et al. (2016), sec. 4.2.2 and sec. 8; their code, matejbalog/mondrian-kernel, "
           "mondrian_kernel.py (evaluate_all_lifetimes)"),
    Source("The kernel's weights are more peaked around 0 than the forest's (SGD weights; "
           "forest weights stored as leaf values).",
           "Balog et al. (2016), sec. 8.3, Figure 10"),
    Source("Forest objective = kernel objective + the trees' disagreement "
           "$\\sum_n \\frac{1}{M}\\sum_m (\\hat y_n^{(m)} - \\bar y_n)^2$.",
           "ambiguity decomposition, Krogh and Vedelsby (1995); identity tested in "
           "tests/test_kernel_vs_forest.py"),
    Source("With exact ridge weights the kernel's spread wider than the forest's at the "
           "kernel's best lifetime; they become alike at large lifetimes.",
           "tests/claims/test_kernel_vs_forest.py, 10 seeds at the page's defaults", own=True),
    Source("At the defaults the kernel beats the forest at the smallest lifetime and the "
           "curves meet at the largest, in all of 10 seeds; with $\\sigma^2 = 0.1$ the "
           "kernel loses at middle lifetimes in most seeds; the gap shrinks with $M = 3$ and "
           "grows with $M = 100$.",
           "tests/claims/test_kernel_vs_forest.py, 10 seeds", own=True),
]


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _path(data, n_trees, terminal, n_lifetimes, noise, seed):
    train, test = split(data, "test", seed)
    return kernel_vs_forest_path(train.X, train.y, test.X, test.y,
                                 lifetime_grid(terminal, n_lifetimes), n_trees=n_trees,
                                 noise_variance=noise, prior_variance=D.PRIOR_VARIANCE, random_state=seed)


def _sgd(data, n_trees, terminal, n_lifetimes, noise, seed):
    """The paper's SGD on the same trees as ``_path``, once per setting for the server."""
    def compute(progress):
        train, test = split(data, "test", seed)
        return paper_sgd_path(train.X, train.y, test.X, test.y,
                              lifetime_grid(terminal, n_lifetimes), n_trees=n_trees,
                              noise_variance=noise, prior_variance=D.PRIOR_VARIANCE, random_state=seed,
                              progress=progress)

    return cached_with_progress(
        ("kernel vs forest: sgd", data_key(data), n_trees, terminal, n_lifetimes, noise, seed),
        compute, "Training the kernel by SGD, one epoch per cut:")


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner=False)
def _weights(data, n_trees, terminal, lifetime, noise, seed):
    train, test = split(data, "test", seed)
    return kernel_forest_weights(train.X, train.y, test.X, test.y, lifetime, n_trees=n_trees,
                                 noise_variance=noise, prior_variance=D.PRIOR_VARIANCE, random_state=seed,
                                 terminal_lifetime=terminal)


page_header(
    "Kernel vs forest",
    "The Mondrian kernel and the Mondrian forest start from the same $M$ Mondrian trees. "
    "The forest fits each tree's leaf values alone and averages the trees' predictions; "
    "the kernel fits all leaf values (its features' weights) jointly, so that their "
    "*sum* predicts well (Balog et al. 2016, section 6 and section 8.3). Both use ridge "
    "regression with the same penalty $\\delta^2 = \\sigma^2 / \\sigma_w^2$ (noise over "
    "prior variance, here $\\sigma_w^2 = 1$), on the very same trees. Small lifetimes "
    "$\\lambda$ mean few, large cells; large lifetimes many small ones.\n\n"
    "**Which forest.** The \"forest\" here is the paper's, in quotes there: each tree's "
    "leaves are a ridge fit of that tree alone, averaged over trees (Proposition 5 of the "
    "supplement), with *no hierarchical smoothing*. The online page's Mondrian forest "
    "(Lakshminarayanan et al. 2014) smooths each leaf towards its ancestors; it is a "
    "different model.\n\n"
    "**Which training.** The exact ridge solution is this app's choice (a Cholesky solve, "
    "no optimisation error); the paper trains the kernel by stochastic gradient descent, "
    "one epoch after every cut. The sidebar's *SGD* switch runs the paper's training on "
    "the same trees beside the exact one.",
    tour=TOUR, sources=SOURCES,
)

side = st.sidebar
data = data_source_picker("data", kinds=REGRESSION_KINDS, default=D.DATA,
                          standardize_target=True, container=side, max_points=MAX_POINTS)
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
with_sgd = url_toggle(
    "Also train the kernel by SGD, as the paper does (slow)", "sgd", default=False,
    container=side,
    help="One epoch of scikit-learn's SGDRegressor after every cut, warm-started, with "
         "the paper's step sizes, on the same trees (Balog et al. 2016, sec. 4.2.2). "
         "Thousands of epochs: seconds to a minute, once per setting.")
paper_scale = url_toggle(
    "Forest weights as leaf values (the paper's Figure 10)", "paper_scale", default=False,
    container=side,
    help="The paper's code stores each forest weight as the tree's leaf value, "
         "\u221aM times the weight that predicts like the kernel's.")
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

sgd = None
if with_sgd:
    with user_errors():
        sgd = _sgd(data, n_trees, terminal, n_lifetimes, noise, seed)

show_figure(cached_figure(figs.kernel_vs_forest_rmse, path, lifetime, sgd=sgd, height=430),
            "rmse-vs-lifetime", main=True,
            params={**data_params(data), "M": n_trees, "lam_max": terminal,
                    "nlam": n_lifetimes, "noise_var": noise, "seed": seed, "sgd": int(with_sgd)})
wins = int(path.kernel_wins.sum())
gap = path.forest_test_rmse - path.kernel_test_rmse
st.markdown(
    f"In this run: best test RMSE **kernel {path.kernel_test_rmse[best_k]:.3f}** at "
    f"$\\lambda = {path.lifetimes[best_k]:.3g}$, **forest {path.forest_test_rmse[best_f]:.3f}** "
    f"at $\\lambda = {path.lifetimes[best_f]:.3g}$; the kernel is at least as good at "
    f"{wins} of the {len(grid)} lifetimes, ahead by {gap[0]:+.3f} at the smallest and "
    f"{gap[-1]:+.3f} at the largest.")
st.caption("The paper's Figure 9 (CPU data) found the joint fit reaching a low error at "
           "smaller lifetimes, because several trees' coarse cells add up to a detailed "
           "prediction. Blue: kernel (all trees fitted jointly, exact ridge), red: \"forest\" "
           "(each tree's ridge alone, no smoothing); solid: test, dotted: train; target "
           "standardised. With a small noise variance $\\sigma^2$ the joint fit can overfit "
           "at middle lifetimes (tour step 2)."
           + (" Teal, dashed: the kernel trained by SGD as in the paper's code, on the same "
              "trees." if sgd is not None else ""))

with user_errors():
    with st.spinner("Fitting both models at this lifetime..."):
        w = _weights(data, n_trees, terminal, lifetime, noise, seed)

ws = w.weight_summary()
verdict = w.wider()
ANSWERS = {"kernel": 0, "forest": 1, "same": 2}
rule = (f"The rule: *about the same* when the two standard deviations are within "
        f"{SPREAD_TOLERANCE:.0%} of each other, else the wider one. Here: kernel "
        f"{ws['kernel']['std']:.3g}, forest {ws['forest']['std']:.3g} (ratio {w.spread_ratio:.2f}). ")
cells = (f"At $\\lambda = {lifetime:.4g}$ the {n_trees} trees have {w.kernel_weights.size:,} "
         f"cells, {w.points_per_cell:.1f} training points per cell on average. ")
if verdict == "kernel":
    why = ("Each forest weight is one tree's shrunk mean of $y$ in a cell (divided by "
           "$\\sqrt{M}$), so it is never larger than the targets allow. With several points "
           "per cell the joint fit only needs the *sum* over trees to fit, so it uses "
           "larger weights, of opposite signs in different trees, that partly cancel: one "
           "tree of the kernel alone predicts worse (training MSE "
           f"{w.kernel_train_losses[1]:.3g}, against {w.forest_train_losses[1]:.3g} for one "
           "tree of the forest).")
elif verdict == "same":
    why = ("With few points per cell the two fits approach the same ridge solution (they "
           "are equal once every training point has a cell of its own in every tree), so "
           "their weights become alike.")
else:
    why = ("Here the forest's weights come out wider. The joint fit does not need any one "
           "tree to fit alone (training MSE of one tree: kernel "
           f"{w.kernel_train_losses[1]:.3g}, forest {w.forest_train_losses[1]:.3g}), so "
           "nothing forces its weights to be large, and at these settings they are not.")
if predict_then_reveal(
        "kvf_weights",
        f"Both models predict $\\varphi(x)^\\top w$ with the same features at "
        f"$\\lambda = {lifetime:.4g}$. Whose weights $w$ spread wider around 0? "
        f"(*About the same* means standard deviations within {SPREAD_TOLERANCE:.0%} of "
        "each other.)",
        ["The kernel's (joint fit)", "The forest's (each tree alone)", "About the same"],
        ANSWERS[verdict],
        rule + cells + why + " The paper's Figure 10 found the kernel's weights more "
        "peaked; the section below the chart shows where the two findings part."):
    h_left, h_right = st.columns([3, 2])
    sgd_w = sgd.weights_at(lifetime) if sgd is not None else None
    with h_left:
        show_figure(cached_figure(figs.weight_histograms, w, sgd_weights=sgd_w,
                                  paper_scale=paper_scale,
                                  height=460 if sgd_w is None else 560), "weights",
                    params={**data_params(data), "M": n_trees, "lam": lifetime,
                            "lam_max": terminal, "noise_var": noise, "seed": seed,
                            "sgd": int(with_sgd), "paper_scale": int(paper_scale)})
    with h_right:
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

with st.expander("Where this page and the paper's Figure 10 part", expanded=with_sgd):
    st.markdown(
        "The paper (sec. 8.3) finds the kernel's weights *more peaked around 0* than the "
        "forest's. Two things differ from the exact fits above, both in the paper's code "
        "(GitHub matejbalog/mondrian-kernel, `mondrian_kernel.py`, `evaluate_all_lifetimes`; "
        "read for this page, not copied):\n\n"
        "1. **Training.** The kernel's weights are not solved for: after every cut the "
        "split cell's weight is copied to its two children and scikit-learn's "
        "`SGDRegressor(alpha=delta, fit_intercept=False, n_iter=1)` runs *one* epoch from "
        "there, with its default step sizes $\\eta_t = 0.01 / t^{0.25}$ (sec. 4.2.2). "
        "Started at 0 and stopped after one pass per cut, it need not reach the ridge "
        "solution: its weights differ from the exact ones, more at small lifetimes, where "
        "few cuts mean few epochs.\n"
        "2. **Scale.** The forest's weights are stored as `w_tree / np.sqrt(M)` where "
        "`w_tree` solves the tree's ridge on features $1/\\sqrt{M}$: that is the tree's "
        "leaf value, $\\sqrt{M}$ times the weight that predicts like the kernel's "
        f"($\\sqrt{{{n_trees}}}$ here). Drawn on that scale the "
        "forest's weights look wider.\n\n"
        "This page's SGD uses the paper's epochs and step sizes, on the same trees as the "
        "exact fits, with scikit-learn's `alpha` set to $\\delta^2 / N$ so that it "
        "minimises the same ridge objective as the exact kernel: only the optimisation "
        "differs. (The paper passes its ridge constant itself as `alpha`, a penalty $N$ "
        "times stronger, immaterial at its $\\delta = 10^{-4}$ but not at this page's "
        "$\\sigma^2$.) Switch on *SGD* and *leaf values* in the sidebar to see both.")
    VERDICTS = {"kernel": "kernel wider", "forest": "forest wider", "same": "about the same"}
    leaf = w.forest_leaf_values
    rows = [("exact ridge", "normalised (page)", w.kernel_weights, w.forest_weights),
            ("exact ridge", "leaf values (paper)", w.kernel_weights, leaf)]
    if sgd is not None:
        sw = sgd.weights_at(lifetime)
        rows += [("SGD (paper)", "normalised (page)", sw, w.forest_weights),
                 ("SGD (paper)", "leaf values (paper)", sw, leaf)]
    st.markdown(f"**Whose weights spread wider at $\\lambda = {lifetime:.4g}$**, by this "
                "page's rule, as each of the two differences is switched on:")
    st.dataframe(
        [{"kernel fit": a, "forest weights": b, "kernel std": float(kw.std()),
          "forest std": float(fw.std()), "verdict": VERDICTS[spread_verdict(kw, fw)]}
         for a, b, kw, fw in rows],
        hide_index=True, column_config={"kernel std": st.column_config.NumberColumn(
            format="%.3g"), "forest std": st.column_config.NumberColumn(format="%.3g")})
    if sgd is None:
        st.info("Switch on *Also train the kernel by SGD* in the sidebar to add the "
                "paper's training to this table and to the charts.", icon=":material/info:")
    else:
        k = int(abs(sgd.lifetimes - lifetime).argmin())
        st.markdown(
            f"In this run at $\\lambda = {lifetime:.4g}$ ({sgd.n_epochs[k]:,} SGD epochs so "
            f"far): test RMSE exact kernel {w.kernel_test_rmse:.3f}, SGD kernel "
            f"{sgd.test_rmse[k]:.3f}, forest {w.forest_test_rmse:.3f}. The last row is "
            "the paper's Figure 10 set-up; the first is this page's.")

with st.expander("Two objectives: the forest's is the kernel's plus the trees' disagreement"):
    st.markdown(
        "With $\\hat y_n^{(m)} = \\sqrt{M}\\, w[\\text{cell of } x_n \\text{ in tree } m]$ "
        "the prediction of tree $m$, both models predict the average "
        "$\\bar y_n = \\frac{1}{M} \\sum_m \\hat y_n^{(m)} = \\varphi(x_n)^\\top w$ and use "
        "the penalty $\\delta^2 \\|w\\|^2$ ($\\delta^2 = \\sigma^2 / \\sigma_w^2$). They "
        "differ in where the average sits (section 6; Proposition 5 of the supplement):")
    st.latex(r"\text{kernel:}\quad K(w) = \sum_n \big(y_n - \bar y_n\big)^2 + \delta^2 \|w\|^2")
    st.latex(r"\text{forest:}\quad F(w) = \sum_n \tfrac{1}{M}\sum_m \big(y_n - \hat y_n^{(m)}"
             r"\big)^2 + \delta^2 \|w\|^2")
    st.markdown(
        "For each $n$, the mean of the squares about $y_n$ is the square of the mean's "
        "distance plus the spread about the mean: "
        "$\\frac{1}{M}\\sum_m (y_n - \\hat y_n^{(m)})^2 = (y_n - \\bar y_n)^2 + "
        "\\frac{1}{M}\\sum_m (\\hat y_n^{(m)} - \\bar y_n)^2$ (the cross term "
        "$\\frac{2}{M}\\sum_m (y_n - \\bar y_n)(\\bar y_n - \\hat y_n^{(m)})$ vanishes). "
        "Summed over $n$, with the same penalty on both sides:")
    st.latex(r"F(w) = K(w) + \underbrace{\sum_n \tfrac{1}{M}\sum_m \big(\hat y_n^{(m)} - "
             r"\bar y_n\big)^2}_{D(w):\ \text{the trees' disagreement}}")
    st.markdown(
        "So the forest is the kernel with one more penalty, on the trees disagreeing "
        "(Krogh and Vedelsby 1995's ambiguity decomposition). The joint fit may let trees "
        "disagree, one tree's error cancelling another's, which is how it fits more with "
        "coarse cells, and why with a weak ridge penalty it can chase the noise where the "
        "forest cannot (tour step 2).")
    ov = w.objective_values
    table = pd.DataFrame(
        {"kernel weights (joint fit)": [ov["kernel"]["kernel"], ov["kernel"]["forest"],
                                        w.disagreements["kernel"],
                                        w.kernel_train_losses[0], w.kernel_train_losses[1],
                                        w.kernel_test_rmse],
         "forest weights (tree by tree)": [ov["forest"]["kernel"], ov["forest"]["forest"],
                                           w.disagreements["forest"],
                                           w.forest_train_losses[0], w.forest_train_losses[1],
                                           w.forest_test_rmse]},
        index=["kernel objective K (loss of the average)",
               "forest objective F (average of the losses)",
               "disagreement D = F \u2212 K",
               "train MSE of the average prediction", "train MSE of one tree (mean over trees)",
               "test RMSE"])
    st.dataframe(table.style.format("{:.4g}"), width="stretch")
    st.markdown(
        f"In this run at $\\lambda = {lifetime:.4g}$: the kernel's weights give "
        f"$K$ = **{ov['kernel']['kernel']:.4g}**, below the forest weights' "
        f"{ov['forest']['kernel']:.4g}; the forest's weights give $F$ = "
        f"**{ov['forest']['forest']:.4g}**, below the kernel weights' "
        f"{ov['kernel']['forest']:.4g}: each fit minimises its own objective. The kernel's "
        f"weights buy their lower $K$ with a disagreement of "
        f"{w.disagreements['kernel']:.4g} against the forest's {w.disagreements['forest']:.4g}. "
        "The kernel objective is the loss of the actual prediction; the forest's is not "
        "(Ren et al. 2015's global refinement of a forest fits the trees jointly, which is "
        "what the Mondrian kernel does).")
