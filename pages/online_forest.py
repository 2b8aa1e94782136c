"""Online Mondrian forest: mini-batches, one tree growing, the online kernel beside the forest.

Claims (checked by ``tests/claims/test_online_forest.py``, over 10 seeds where general):

1. The online Mondrian kernel (ridge regression on Mondrian features, extended by
   ``partial_fit`` and updated batch by batch as in Supplement C of Balog et al. 2016)
   ends, after the last batch, at exactly the batch ridge fit on all the points with
   the same trees.
2. On a stream that arrives from left to right, mid-stream (the default batch) both the
   online kernel and the online forest are confident where points have arrived and
   uncertain beyond them: their standard deviation of f right of the seen points is above
   twice the noise's, and below it on average over the seen points (10 seeds).
3. Each batch extends the tree, never rebuilds it: at the default batch most new points
   change nothing or stretch a range, a few add splits (drawn thick), and every earlier
   split stays.
4. (The question's answer, computed from the three maps shown by a rule stated on the
   page.) Trained inside a box, only the Mondrian forest grows uncertain away from it;
   RandomForest's and ExtraTrees' spread beyond the box is what it is at the box's border.
5. Mondrian splits ignore the labels, so irrelevant inputs take cuts away from the real
   ones and the forest's held-out accuracy drops (the sidebar's distractor switch).

On 210 points the online forest's held-out accuracy ends within a few test points of the
retrained RandomForest and ExtraTrees (each test point is about 1%), not above them: the
slides' "online matches batch" is about distribution, and this set is small.
"""
from __future__ import annotations

import streamlit as st

from explorer_ui import defaults_online_forest as D
from explorer_ui.cache import CACHE_TTL
from explorer_ui.data import PLANE_KINDS, data_params, data_source_picker, split
from explorer_ui.echo import plain
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
    url_toggle,
    user_errors,
)
from mondrian_core import datasets
from mondrian_core.cost import check_online_cost
from mondrian_core.errors import InputError
from mondrian_core.experiments.grids import line_grid, padded_box
from mondrian_core.experiments.online import (
    GROWTH_FAR,
    GROWTH_TOLERANCE,
    MAX_DISTRACTORS,
    check_stream_cost,
    online_kernel_forest,
    online_run,
    uncertainty_maps_in_region,
)
from mondrian_core.figures import forest as figs
from mondrian_core.figures import online as online_figs

require_app_navigation()

REGIONS = D.REGIONS

TOUR = Tour("online-forest", [
    Step("The first batch",
         f"The first {D.BATCH} points build tree 1 from scratch: every split is new (thick "
         "red) and every point is a diamond, since they all just arrived. A cell covers only "
         "its own points' extent: a point alone in its leaf is a mere dot, a few points "
         "sharing a leaf make a small box, and boxes grow as more points arrive.",
         {"step": 1}),
    Step("A batch extends the tree",
         f"After {D.TOUR_STEP} batches (at these settings, seed {D.SEED}) most new points "
         "land inside existing cells or only stretch a cell's range (grey and yellow "
         "diamonds). A few branch off, each drawing a new thick red split: above a whole "
         "group of cells (blue) or from a leaf (red). Every earlier split is still there: "
         "the tree is extended, never rebuilt.",
         {"step": D.TOUR_STEP}),
    Step("All the data",
         "After the last batch the tree holds every training point. By projectivity it has "
         "the same distribution as a tree built in one go on all of them, in any order of "
         "arrival.",
         {"step": 11}),
    Step("A short lifetime",
         r"With lifetime $\lambda = 1$ the Mondrian stops early: a few large cells, and "
         "most points of the batch (grey diamonds) change nothing. A longer lifetime means "
         "finer cells and more splits per batch; at this seed the forest's accuracy "
         "suffers.",
         {"step": D.TOUR_STEP, "lifetime": 1.0}),
    Step("Irrelevant features: the catch",
         f"Mondrian splits ignore the labels: a cut falls in a dimension with probability "
         f"proportional to the cell's side, useful or not. With {D.DISTRACTORS} irrelevant "
         "uniform features as wide as the real ones, most cuts are wasted on them and the "
         "Mondrian forest's held-out accuracy (scores chart) drops; the caption under it "
         "compares with no distractors. RandomForest and ExtraTrees choose their splits by "
         "the labels; over 10 seeds they lost less on average, but by less than the seeds' "
         "spread (this app's measurement).",
         {"step": 11, "distract": True}),
    Step("Kernel and forest on one stream",
         "Scroll to the 1-D stream: points arrive from left to right. After three batches "
         "both the online kernel and the online forest are confident over the seen points "
         "and their band widens to the right, where nothing has arrived yet.",
         {"step": 3}),
])


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _run(train, test, batch, lifetime, n_trees, seed, k_irr=0):
    return online_run(train.X, train.y, train.task, X_test=test.X, y_test=test.y,
                      batch_size=batch, n_estimators=n_trees, lifetime=lifetime,
                      n_distractors=k_irr, random_state=seed)


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _stream(n, batch, lifetime, n_trees, seed):
    stream = datasets.toy_jumps_1d(n, D.STREAM_NOISE, random_state=seed, width=D.STREAM_WIDTH)
    grid = line_grid(*D.GRID).ravel()
    return online_kernel_forest(stream.X, stream.y, grid=grid, batch_size=batch,
                                n_trees=n_trees, lifetime=lifetime,
                                noise_variance=D.NOISE_VARIANCE, prior_variance=D.PRIOR_VARIANCE,
                                f=datasets.toy_jumps_function(grid, width=D.STREAM_WIDTH),
                                left_to_right=True, random_state=seed)


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _maps(data, region, lifetime, n_trees, seed):
    maps, inside = uncertainty_maps_in_region(data.X, data.y, REGIONS[region],
                                              resolution=D.MAP_RESOLUTION, n_estimators=n_trees,
                                              lifetime=lifetime, random_state=seed)
    return maps, data.X[inside]


SOURCES = [
    Source("Online training by the conditional Mondrian: insert a split above, extend a "
           "split, split a leaf; the online trees are distributed as batch trees on all the "
           "data seen (projectivity).",
           "Lakshminarayanan, Roy and Teh (2014), sec. 3-4; slides \"Online training\""),
    Source("The Mondrian kernel can be learned online: new cells append columns and the "
           "ridge fit is updated.", "Balog et al. (2016), Supplement C"),
    Source("The Mondrian forest's uncertainty grows away from the training data; "
           "RandomForest's and ExtraTrees' does not.",
           "Lakshminarayanan, Roy and Teh (2016), sec. 5 and Figure 1; slides' uncertainty "
           "comparison"),
    Source("Mondrian splits are independent of the labels, so irrelevant features hurt.",
           "Lakshminarayanan, Roy and Teh (2014), sec. 8 (\"catch\" in the slides)"),
    Source("Regression smoothing: node means as a Brownian motion with increments linear in "
           "time (theirs: a sigmoid of time), which makes the branch-off average exact.",
           "this app's variant of Lakshminarayanan, Roy and Teh (2016), sec. 3", own=True),
    Source("Classification: interpolated Kneser-Ney smoothing of the hierarchical "
           "normalized stable process; a node inserted above $j$ gets $j$'s tables "
           "$\\min(c_{jk}, 1)$.",
           "Lakshminarayanan, Roy and Teh (2014), sec. 5; this app's reading for the "
           "inserted node", own=True),
    Source("The question's answer: only the Mondrian forest grows more uncertain far "
           "outside the box, at the defaults in each of 10 seeds; irrelevant features lower "
           "the Mondrian forest's accuracy (beyond three standard errors over 10 seeds), on "
           "average more than RandomForest's and ExtraTrees' but within the seeds' spread.",
           "tests/claims/test_online_forest.py", own=True),
]

page_header(
    "Online Mondrian forest",
    "Points arrive in mini-batches and every tree is *extended*, never rebuilt: the "
    "conditional Mondrian (slides, \"Online training\") either **inserts a split above** an "
    "existing one, **extends a split** to the new range, or **splits a leaf**. The online "
    "trees have exactly the distribution of batch trees on all the data seen so far "
    "(projectivity of the Mondrian process). The same holds for the Mondrian kernel "
    "(Balog et al. 2016, Supplement C): its features are the cells of such trees, so its "
    "ridge fit can be updated as points arrive.\n\n"
    "**Which forest.** This page's Mondrian forest is the smoothed one of Lakshminarayanan "
    "et al. (leaves shrunk towards their ancestors); the kernel-vs-forest page's "
    "\"forest\" is Balog et al.'s per-tree ridge without smoothing.",
    tour=TOUR, sources=SOURCES,
)

side = st.sidebar
with side:
    data = data_source_picker("data", kinds=PLANE_KINDS, default=D.DATA)
side.markdown("**Online forest**")
batch = url_slider("Mini-batch size (points)", "batch", min_value=5, max_value=200,
                   default=D.BATCH, step=5, container=side)
n_trees = url_slider("Trees $M$", "trees", min_value=1, max_value=30, default=D.TREES,
                     container=side)
lifetime = url_slider(r"Lifetime $\lambda$ (1 / input units)", "lifetime", min_value=0.5,
                      max_value=30.0, default=D.LIFETIME, step=0.5, container=side)
playing = side.toggle("Play (one batch a second)", key="play",
                      help="Pause to look at a batch; the step slider moves by hand too.")
step_box = side.container()  # the step slider, drawn by the fragment below
side.markdown("**Uncertainty maps**")
region = url_choice("Training region", "region", list(REGIONS), default=D.REGION,
                    container=side,
                    help="Part of the data's bounding box whose points are used for training.")
show_data = url_toggle("Show training points", "showpts", default=True, container=side)
side.markdown("**The catch: irrelevant features**")
distract = url_toggle(
    "Add irrelevant features", "distract", default=False, container=side,
    help="Appends uniform random inputs, as wide as the real ones, to the streamed data "
         "(training and test). Mondrian cuts ignore the labels, so some fall on them.")
n_distract = url_slider("Irrelevant features $k$", "k_irr", min_value=1,
                        max_value=MAX_DISTRACTORS, default=D.DISTRACTORS, container=side,
                        disabled=not distract)
k_irr = n_distract if distract else 0
seed = seed_control(default=D.SEED, container=side)

with user_errors():
    train, test = split(data, "test", seed)
    n_train = train.n_samples
    check_online_cost(n_train, batch, n_trees, train_fraction=D.TRAIN_FRACTION)
    with st.spinner("Streaming the data into the forest and retraining the baselines..."):
        run = _run(train, test, batch, lifetime, n_trees, seed, k_irr)
        clean_run = _run(train, test, batch, lifetime, n_trees, seed) if k_irr else None
stream, stream_error = None, None
try:  # a stream too slow for these settings leaves the rest of the page working
    check_stream_cost(len(train.X), batch, n_trees, lifetime, D.STREAM_WIDTH)
    with st.spinner("Streaming the 1-D data into the online kernel and forest..."):
        stream = _stream(len(train.X), batch, lifetime, n_trees, seed)
except InputError as err:
    stream_error = str(err)
n_steps = len(run.n_seen)
run_params = {**data_params(data), "batch": batch, "trees": n_trees, "lam": lifetime,
              "k_irr": k_irr, "seed": seed}


def stream_chart(step):
    """The 1-D stream's two fits after batch ``step`` (0-based), with its caption."""
    show_figure(cached_figure(online_figs.stream_fits_figure, stream,
                              min(step, len(stream.n_seen) - 1)),
                "kernel-vs-forest-stream", params={**run_params, "step": step + 1})
    st.caption(
        f"A 1-D stream of {len(stream.X)} points with jumps (true function dashed), arriving "
        f"from left to right in the same {n_steps} batches. Both models extend their trees; "
        "the kernel then updates its ridge fit (band: $\\pm 2$ posterior std of $f$).")


def kernel_explained():
    with st.expander("How the kernel learns online (Supplement C)"):
        st.markdown(
            "After `partial_fit` every earlier point stays in its cell, so the features "
            r"$\Phi$ of earlier points keep their columns and the new cells only append "
            r"columns. With $\delta^2 = \sigma^2 / \sigma_w^2$ the regularised covariance "
            "is updated, not recomputed:")
        st.latex(r"A \leftarrow \begin{pmatrix} A & 0 \\ 0 & \delta^2 I_k \end{pmatrix}"
                 r" + \Phi_{\mathrm{new}}^\top \Phi_{\mathrm{new}}, \qquad "
                 r"b \leftarrow b + \Phi_{\mathrm{new}}^\top y_{\mathrm{new}}, \qquad "
                 r"\hat w = A^{-1} b")
        st.markdown(
            "for $k$ new cells and a batch $\\Phi_{\\mathrm{new}}$. After the last batch "
            r"$\hat w$ equals the batch ridge fit on all points with the same trees "
            r"(to $10^{-8}$, checked by the tests). The forest fits each tree's leaves "
            "alone and averages the trees; the kernel fits all cells jointly.")


@st.fragment(run_every=1.0 if playing else None)
def growing_tree():
    if "step" in st.session_state:
        advance = 1 if st.session_state.get("play") else 0
        st.session_state["step"] = max(1, min(st.session_state["step"] + advance, n_steps))
    step = url_slider("After batch", "step", min_value=1, max_value=n_steps,
                      default=min(D.STEP, n_steps), step=1, container=step_box,
                      help="Which mini-batch has just arrived (both streams).") - 1
    seen = run.n_seen[step]
    lo, hi = padded_box(train.X)
    show_figure(cached_figure(figs.tree_partition, run.snapshots[step], train.X[:seen],
                              train.y[:seen], task=run.task, box=(lo, hi)),
                "tree", params={**run_params, "step": step + 1}, main=True)
    counts = run.snapshots[step].operation_counts()
    st.caption(
        f"**Batch {step + 1} of {n_steps}: {seen} of {len(train.X)} points seen** (dots, "
        "coloured by class). Diamonds: the batch just arrived, coloured by what each point did "
        "to this tree; thick red: splits it created. Cells cover only their own points' "
        "extent. In this tree: "
        + ", ".join(f"{name} {n}" for name, n in counts.items()) + "."
        + (f" With {k_irr} irrelevant features the cells are boxes in {2 + k_irr} "
           "dimensions: drawn are their shadows on this plane, and only the cuts on the two "
           "real inputs." if k_irr else ""))
    if st.session_state.get("play") and step + 1 == n_steps:
        st.info("Reached the last batch: pause, or lower the step to replay.")

    st.subheader("The online kernel beside the online forest")
    if stream is None:
        st.warning(plain(stream_error))
    else:
        stream_chart(step)
    kernel_explained()
    sc, oc = st.columns(2)
    with sc:
        show_figure(cached_figure(figs.online_scores, run, step), "scores",
                    params={**run_params, "step": step + 1})
        st.caption(
            f"Held-out {run.score_name} ({data.n_samples - len(train.X)} points). "
            "RandomForest and ExtraTrees are retrained from scratch on all points so far "
            "after each batch; the Mondrian forest only extends its trees. On so few points "
            "the three differ by a few test points, either way."
            + (_distractor_note(run, clean_run, step) if clean_run is not None else ""))
    with oc:
        show_figure(cached_figure(figs.operation_counts, run, step), "operations",
                    params={**run_params, "step": step + 1})
        st.caption("Per batch, the (point, tree) insertions by operation, all trees. "
                   "Each costs one walk from the root: time proportional to the depth.")


def _distractor_note(run, clean_run, step):
    """The scores with and without the distractors, after this batch (from both runs)."""
    pairs = ", ".join(f"{name} {clean_run.scores[name][step]:.3f} \u2192 {run.scores[name][step]:.3f}"
                      for name in run.scores)
    return (f" **With {k_irr} irrelevant features** (same seed), {run.score_name} after "
            f"this batch, without \u2192 with: {pairs}.")


growing_tree()

st.subheader("Uncertainty away from the training data")
if data.task == "regression":
    map_data, which = data, "the chosen data set"
else:
    map_data, which = datasets.regression_surface_2d(D.MAP_POINTS, random_state=seed), (
        "the 2-D regression surface (the chosen set is a classification set)")
with user_errors():
    with st.spinner("Fitting the three forests..."):
        maps, X_in = _maps(map_data, region, lifetime, n_trees, seed)
    growth = maps.growth()
growing = maps.growing()
names = list(growth)
OPTIONS = ["Only the Mondrian forest", "All three", "None of them"]
SETS = [["Mondrian forest"], names, []]
if growing in SETS:
    options, answer = OPTIONS + ["Only RandomForest and ExtraTrees"], SETS.index(growing)
else:  # a combination the three usual choices miss: it becomes the fourth choice
    options, answer = OPTIONS + ["Only " + " and ".join(growing)], 3
ratios = ", ".join(f"{name} \u00d7{r:.2f}" for name, r in growth.items())
if predict_then_reveal(
        "far",
        "Three forests (Mondrian, RandomForest, ExtraTrees) are trained only on the points "
        "inside the dashed box. Far outside it (at least one box side away), which of them "
        "are *more uncertain* than at the nearest points of the box's border? (More "
        f"uncertain: their spread there is more than {GROWTH_TOLERANCE:.0%} above.)",
        options, answer,
        f"Far outside against the border point on the same way out, in these maps: {ratios}. "
        "The **Mondrian forest**: a test point far away branches off into a new, empty "
        "leaf near the root of every tree, the farther the likelier and the higher up, so "
        "its prediction falls back towards the prior and its standard deviation rises. "
        "**RandomForest and ExtraTrees** split only where their training points are, so "
        "their outer cells reach to infinity: beyond the box every point gets the "
        "prediction, and the spread, of the border point it passes "
        f"(\u00d71 up to rounding). (Far: at least {GROWTH_FAR:g} box side away; "
        "the maps' standard deviations, averaged over those points.)"):
    show_figure(cached_figure(figs.uncertainty_maps_figure, maps,
                              X_in if show_data else None),
                "uncertainty-maps",
                params={**(data_params(data) if map_data is data
                           else {"data": map_data.name}),
                        "region": region, "trees": n_trees, "lam": lifetime, "seed": seed})
    st.caption(
        f"Regression on {which}, trained inside the dashed box; the map extends the data's "
        "box by half its width on every side. Shown: the standard deviation of the predicted "
        "function value (no observation noise), as in the slides' uncertainty comparison. "
        "Read each panel against itself: RandomForest's and ExtraTrees' stripes carry the "
        "level at the box's border outwards unchanged, while the Mondrian forest darkens "
        "with distance.")

st.caption(
    "**Credits.** The regression forest's hierarchical smoothing is a variant of "
    "Lakshminarayanan, Roy and Teh (AISTATS 2016): node means follow a Brownian motion with "
    "increments linear in time (theirs: a sigmoid of time), which gives every leaf the prior "
    r"$\mathcal{N}(m, \sigma_w^2)$ and makes the average over where a test point branches off "
    "exact (they approximate it). When a test point branches off above node $j$, a new node "
    "is inserted above $j$ with children $j$ and an empty leaf; the classifier gives it the "
    "counts every internal node of the Kneser-Ney model has, the tables of its children: "
    r"$\mathrm{tab}_j$, i.e. $\min(c_{jk}, 1)$ of $j$ (the empty leaf adds none). The "
    "authors' code gives the new node $j$'s own counts instead, which weighs $j$'s labels "
    "more: GitHub balajiln/mondrianforest, `src/mondrianforest.py` (commit 50a1787), "
    "`MondrianTree.predict_class`, where `pred_prob_tmp` is computed from "
    "`self.cnt[node_id]`.")
