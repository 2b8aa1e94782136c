"""Aggregated Mondrian forest: online trees with no lifetime, averaged over every pruning.

Claims (checked at the defaults over 10 seeds by ``tests/claims/test_amf.py``):

1. On the doppler signal the posterior-weighted depth of the pruning is larger where the
   signal is rough (x in [0.1, 0.4]) than where it is smooth (x in [0.6, 0.9]), and a
   larger share of the trees' own leaf depth there; with three times the noise and step
   0.3 it is smaller in both stretches (at step 1, larger).
2. AMF's fit is closer to the signal than the fixed-lifetime forest's at a too-small
   (4) and at a too-large (400) lifetime on the same stream.
3. One tree's cumulative test-then-train loss ends below that of the best pruning in
   hindsight plus the prior's log 2 per node where it splits or stops (the regret bound's comparator).
"""
from __future__ import annotations

import streamlit as st

from explorer_ui import defaults_amf as D
from explorer_ui.cache import CACHE_TTL
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
from mondrian_core.experiments.amf import amf_signal_run, stretch_mean
from mondrian_core.figures import amf as figs

require_app_navigation()

SOURCES = [
    Source("Each tree grows online with an infinite lifetime and predicts with the exact "
           "posterior mixture over all its prunings, computed along one path by context-tree "
           "weighting.",
           "Mourtada, Gaïffas and Scornet (2021), sec. 3; Willems, Shtarkov and Tjalkens (1995)"),
    Source("The mixture's cumulative loss is at most that of any pruning plus its prior "
           r"price $|T| \log 2 / \eta$ (for an exp-concave loss), so AMF adapts to the "
           "signal's unknown smoothness.",
           "Mourtada, Gaïffas and Scornet (2021), sec. 4-5"),
    Source("On doppler the weighted depth is larger where the signal is rough than where it "
           "is smooth, and drops with more noise at a smaller step; AMF fits closer than "
           "fixed lifetimes 4 and 400; one tree ends below the best pruning plus its prior "
           "price.",
           "tests/claims/test_amf.py, the page's defaults, 10 seeds", own=True),
    Source("The test signals heavisine, bumps, blocks and doppler.",
           "Donoho and Johnstone (1994), Table 1"),
]

TOUR = Tour("amf", [
    Step("Depth follows roughness",
         "A noisy doppler signal arrives point by point. Every tree keeps splitting (no "
         "lifetime), and the aggregation decides how deep to trust it: the blue curve, the "
         "posterior-weighted depth, is high on the left, where the signal oscillates fast, "
         "and low on the right, where it is smooth.",
         {"signal": "doppler"}),
    Step("Blocks: depth at the jumps",
         "Blocks is piecewise constant. The weighted depth now rises at the jumps and "
         "falls on the flat stretches between them: a flat stretch is predicted as well "
         "by one wide cell as by many small ones, and the wide one has the larger prior.",
         {"signal": "blocks"}),
    Step("No lifetime to choose",
         "Scroll to the second chart: on the same stream, a Mondrian forest with lifetime 4 "
         "is far too coarse and one with lifetime 400 too fine (it follows the noise); "
         "AMF, with no lifetime, is closer to the signal than both.",
         {"signal": "heavisine"}),
    Step("More noise, a smaller step",
         "Three times the noise with the step lowered to 0.3: fine cells now pay for the "
         "noise they follow, so the weighted depth drops in both stretches while the "
         "trees' own leaves (dotted) stay as deep. Keep the step at 1 instead and the "
         "aggregation cuts deeper than before and fits worse than lifetime 400: the "
         "regret bound asks for a step below 1 / (8 B²) for targets within ±B.",
         {"signal": "doppler", "noise": D.MORE_NOISE, "eta": D.MORE_NOISE_STEP}),
])


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _run(signal, n, noise, trees, eta, seed):
    return amf_signal_run(signal, n, noise, trees, eta, D.LIFETIMES, random_state=seed)


page_header(
    "Aggregated Mondrian forest",
    "A Mondrian forest needs a lifetime, and a stream gives no validation set to choose "
    "it. **Aggregated Mondrian forests** (Mourtada, Gaïffas and Scornet 2021) grow each "
    "tree online with an *infinite* lifetime and predict with the exact Bayesian mixture "
    "over **every pruning** of the tree: each node keeps a weight "
    r"$w_v = e^{-\eta L_v}$ from the losses $L_v$ of its own predictions on the points "
    r"that reached it, and the prior $2^{-|T|}$ over prunings makes the mixture a "
    "recursion along one root-to-leaf path (context-tree weighting). The regret against "
    "the best pruning chosen in hindsight is bounded, so the trees cut deep only where "
    "the data ask for it.",
    tour=TOUR,
    sources=SOURCES,
)

side = st.sidebar
side.markdown("**Stream**")
signal = url_choice("Signal (Donoho and Johnstone)", "signal", list(D.SIGNALS),
                    default=D.SIGNAL, container=side)
n = url_slider("Points", "n", min_value=100, max_value=1500, default=D.N, step=100,
               container=side)
noise = url_slider("Noise standard deviation", "noise", min_value=0.0, max_value=1.5,
                   default=D.NOISE, step=0.05, container=side,
                   help="The signal is scaled to standard deviation 1.")
side.markdown("**Forest**")
trees = url_slider("Trees $M$", "trees", min_value=1, max_value=20, default=D.TREES,
                   container=side)
eta = url_slider(r"Step $\eta$ of the weights", "eta", min_value=0.1, max_value=4.0,
                 default=D.STEP, step=0.1, container=side,
                 help="The weights are exp(-η × past squared errors / 2).")
seed = seed_control(default=D.SEED, container=side)

with user_errors():
    with st.spinner("Streaming the signal into the forests, point by point..."):
        run = _run(signal, n, noise, trees, eta, seed)
params = {"signal": signal, "n": n, "noise": noise, "trees": trees, "eta": eta, "seed": seed}

# no chart here has a title: its name is what a screen reader announces, so it says
# what the chart shows
show_figure(cached_figure(figs.weighted_depth_figure, run),
            "signal-and-the-weighted-depth-along-x", params=params, main=True)
rough, smooth = (stretch_mean(run.grid, run.depth, s) for s in (D.ROUGH, D.SMOOTH))
leaf_rough, leaf_smooth = (stretch_mean(run.grid, run.leaf_depth, s)
                           for s in (D.ROUGH, D.SMOOTH))
st.caption(
    f"**Top:** {n} noisy points of the {signal} signal (grey), the signal (dashed) and "
    f"AMF's fit ({trees} trees, red). **Bottom:** the depth of the pruning at each x, "
    "weighted by its posterior probability and averaged over the trees: "
    f"{rough:.1f} on average over x in [{D.ROUGH[0]:g}, {D.ROUGH[1]:g}] against "
    f"{smooth:.1f} over [{D.SMOOTH[0]:g}, {D.SMOOTH[1]:g}], where the trees' own leaves "
    f"(dotted) are {leaf_rough:.1f} and {leaf_smooth:.1f} deep. The trees split everywhere "
    "alike (their splits ignore y); the aggregation uses their depth where the signal "
    "changes fast.")

st.subheader("No lifetime to choose")
show_figure(cached_figure(figs.fits_figure, run), "fits-of-AMF-and-fixed-lifetime-forests",
            params=params)
small, large = (run.mse(f) for f in run.fixed.values())
st.caption(
    f"The same stream into Mondrian forests of {trees} trees at a fixed lifetime "
    f"{D.LIFETIMES[0]:g} (too coarse: mean squared error to the signal {small:.3f}) and "
    f"{D.LIFETIMES[1]:g} (too fine: {large:.3f}), against AMF ({run.mse(run.amf):.3f}), "
    "which needed no lifetime.")

st.subheader("One tree, shaded by its aggregation weights")
show_figure(cached_figure(figs.tree_weights_figure, run.tree),
            "posterior-weight-of-each-node-of-one-tree", params=params)
st.caption(
    "A tree grown point by point (each node at the centre of its points' range, root at "
    "the top, depths up to 14 drawn), each node shaded by the posterior probability that "
    "the pruning stops there, so that the node's own mean predicts for its points. The "
    "darkest nodes sit deep under the fast oscillations on the left; under the smooth "
    "right-hand part the weight spreads over shallower nodes.")

st.subheader("Regret against the best pruning in hindsight")
if predict_then_reveal(
        "regret",
        "Each point is predicted first, then learnt. Against the single best pruning of "
        "the tree chosen after the whole stream (charged log 2 for each node where it "
        "chooses, to split or to stop, the prior's price), how does the tree's cumulative "
        "loss end up?",
        ["Far above it: hindsight is a big advantage", "At or below it",
         "Exactly equal to it"],
        1,
        "Context-tree weighting mixes every pruning with its prior weight, and for an "
        "exp-concave loss the mixture's cumulative loss is at most any pruning's plus "
        r"its price $|T| \log 2 / \eta$: it never falls behind the best pruning by more "
        "than that price, found without hindsight."):
    show_figure(cached_figure(figs.regret_figure, run),
                "cumulative-loss-of-AMF-and-the-best-pruning", params=params)
    gap = run.regret[-1]
    at, excess = run.largest_excess()
    early = (f"Earlier it was above it, by up to {excess:.1f} after {at} points: the bound "
             f"holds for an exp-concave loss, and the square loss is one only for "
             f"$\\eta \\le 1/(8B^2)$ with targets within $\\pm B$, here "
             f"{run.exp_concave_step:.2g}, below this page's $\\eta$ = {eta:g}. "
             if excess > 0 and gap <= 0 else
             "" if gap > 0 else "It stayed at or below it all along. ")
    st.caption(
        f"Cumulative loss $(\\hat y - y)^2/2$ of one tree's mixture (red) and of the best "
        f"pruning at each horizon plus $\\log 2 / \\eta$ per node where it chooses to split "
        f"or stop, i.e. per node that is not a leaf of the full tree (dashed). After {n} "
        f"points AMF is {abs(gap):.1f} {'below' if gap <= 0 else 'above'} it. {early}"
        "With large targets or a larger step $\\eta$ (try bumps, or $\\eta$ = 4) the red "
        "curve ends above the dashed one.")

st.caption(
    "**Credits.** As in onelearn and River, where the paper is silent: a leaf is not "
    "charged with the point that creates it, a split inserted above a node inherits its "
    "weight, and a test point outside the trees' boxes is predicted from the leaf its "
    "splits lead to. The node estimates here are the paper's (counts before the point), "
    "where River's and onelearn's classifier scores already count it.")
