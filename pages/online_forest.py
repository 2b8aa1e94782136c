"""Online Mondrian forest: mini-batches, one tree's partition growing, accuracy, uncertainty."""
from __future__ import annotations

import numpy as np
import streamlit as st

from explorer_ui.cache import CACHE_TTL
from explorer_ui.data import PLANE_KINDS, data_params, data_source_picker
from explorer_ui.figure_cache import cached_figure
from explorer_ui.navigation import require_app_navigation
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
from mondrian_core.experiments.online import online_run, uncertainty_maps
from mondrian_core.figures import forest as figs

require_app_navigation()

#: Training regions for the uncertainty maps, as fractions of the data's bounding box.
REGIONS = {
    "left half": ((0.0, 0.0), (0.5, 1.0)),
    "centre square": ((0.25, 0.25), (0.75, 0.75)),
    "bottom-left quarter": ((0.0, 0.0), (0.5, 0.5)),
}
MAX_BATCHES = 100


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _run(data, batch, lifetime, n_trees, seed):
    train, test = datasets.train_val_test_split(data, (0.7, 0.3), random_state=seed)
    run = online_run(train.X, train.y, train.task, X_test=test.X, y_test=test.y,
                     batch_size=batch, n_estimators=n_trees, lifetime=lifetime,
                     random_state=seed)
    return run, train


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _maps(data, region, lifetime, n_trees, seed):
    box_lo, box_hi = data.X.min(axis=0), data.X.max(axis=0)
    width = box_hi - box_lo
    lo = box_lo + np.asarray(REGIONS[region][0]) * width
    up = box_lo + np.asarray(REGIONS[region][1]) * width
    maps = uncertainty_maps(data.X, data.y, train_lower=lo, train_upper=up,
                            grid_lower=box_lo - 0.5 * width, grid_upper=box_hi + 0.5 * width,
                            resolution=90, n_estimators=n_trees, lifetime=lifetime,
                            random_state=seed)
    inside = np.all((data.X >= lo) & (data.X <= up), axis=1)
    return maps, data.X[inside]


page_header(
    "Online Mondrian forest",
    "Points arrive in mini-batches and every tree is *extended*, never rebuilt: the "
    "conditional Mondrian (slides, \"Online training\") either **inserts a split above** an "
    "existing one, **extends a split** to the new range, or **splits a leaf**. The online "
    "trees have exactly the distribution of batch trees on all the data seen so far.",
)

with st.sidebar:
    data = data_source_picker("data", kinds=PLANE_KINDS, default="moons")
c1, c2, c3 = st.columns(3)
with c1:
    batch = url_slider("Mini-batch size (points)", "batch", min_value=5, max_value=200,
                       default=20, step=5)
with c2:
    n_trees = url_slider("Trees", "trees", min_value=1, max_value=30, default=10)
with c3:
    lifetime = url_slider("Lifetime λ (1 / input units)", "lifetime", min_value=0.5,
                          max_value=30.0, default=6.0, step=0.5)
seed = seed_control()

with user_errors():
    n_train = int(round(0.7 * data.n_samples))
    if n_train / batch > MAX_BATCHES:
        raise InputError(f"{n_train} training points in batches of {batch} make more than "
                         f"{MAX_BATCHES} batches (each retrains two forests): raise the batch "
                         f"size to at least {int(np.ceil(n_train / MAX_BATCHES))} or use fewer "
                         "points.")
    check_online_cost(n_train, batch, n_trees, train_fraction=0.7)
    with st.spinner("Streaming the data into the forest and retraining the baselines..."):
        run, train = _run(data, batch, lifetime, n_trees, seed)
n_steps = len(run.n_seen)
run_params = {**data_params(data.name), "batch": batch, "trees": n_trees, "lam": lifetime,
              "seed": seed}

st.subheader("One tree grows, batch by batch")
playing = st.toggle("Play (advance one batch every second)", key="play",
                    help="Pause to look at a batch; the step slider moves by hand too.")


@st.fragment(run_every=1.0 if playing else None)
def growing_tree():
    if "step" in st.session_state:
        advance = 1 if st.session_state.get("play") else 0
        st.session_state["step"] = max(1, min(st.session_state["step"] + advance, n_steps))
    step = url_slider("After batch", "step", min_value=1, max_value=n_steps,
                      default=min(5, n_steps), step=1,
                      help="Which mini-batch has just arrived.") - 1
    seen = run.n_seen[step]
    lo = train.X.min(axis=0) - 0.05 * np.ptp(train.X, axis=0)
    hi = train.X.max(axis=0) + 0.05 * np.ptp(train.X, axis=0)
    show_figure(cached_figure(figs.tree_partition, run.snapshots[step], train.X[:seen], train.y[:seen],
                                    task=run.task, box=(lo, hi)),
                "tree", params={**run_params, "step": step + 1})
    left, right = st.columns([3, 2])
    with left:
        ops = run.snapshots[step].operations
        st.markdown(
            f"**{seen} of {len(train.X)} training points seen.** The diamonds are the batch "
            "that just arrived, coloured by what each did to this tree; thick red lines are the splits "
            "it created. Cells are drawn over the extent of their own points only: a "
            "Mondrian tree commits to a split only within the range of its data, which is "
            "what makes the online extension exact.")
    with right:
        st.markdown("**This batch, in this tree:**\n" + "\n".join(
            f"- {figs.OPERATION_NAMES[k]}: **{int(np.sum(ops == k))}**" for k in range(4)))
        st.caption("Whatever a point does, it costs one walk from the root to (at most) a "
                   "leaf: time proportional to the depth of the tree.")
        if st.session_state.get("play") and step + 1 == n_steps:
            st.info("Reached the last batch: pause, or lower the step to replay.")
    sc, oc = st.columns(2)
    with sc:
        show_figure(cached_figure(figs.online_scores, run, step), "scores",
                    params={**run_params, "step": step + 1})
        best = {k: v[step] for k, v in run.scores.items()}
        st.caption(
            f"{run.score_name[0].upper() + run.score_name[1:]} on the "
            f"{data.n_samples - len(train.X)} held-out "
            f"points (30% of the set) after {seen} points: "
            + ", ".join(f"{k} {v:.3f}" for k, v in best.items())
            + ". RandomForest and ExtraTrees are retrained from scratch on all points so far "
              "after each batch (the slides' \"periodically re-trained batch versions\"); "
              "the Mondrian forest only extends its trees.")
    with oc:
        show_figure(cached_figure(figs.operation_counts, run, step), "operations",
                    params={**run_params, "step": step + 1})
        st.caption("Per batch, how many (point, tree) insertions caused each operation, "
                   "summed over all trees.")


growing_tree()

st.subheader("Uncertainty away from the training data")
region = url_choice("Training region", "region", list(REGIONS), default="left half",
                    help="Part of the data's bounding box whose points are used for training.")
show_data = url_toggle("Show training points", "showpts", default=True)
if data.task == "regression":
    map_data, which = data, "the chosen data set"
else:
    map_data, which = datasets.regression_surface_2d(600, random_state=seed), (
        "the 2-D regression surface (the chosen set is a classification set)")
with user_errors():
    with st.spinner("Fitting the three forests..."):
        maps, X_in = _maps(map_data, region, lifetime, n_trees, seed)
    show_figure(cached_figure(figs.uncertainty_maps_figure, maps, X_in if show_data else None),
                "uncertainty-maps",
                params={**(data_params(data.name) if map_data is data else {"data": map_data.name}),
                        "region": region, "trees": n_trees, "lam": lifetime, "seed": seed})
st.markdown(
    f"Regression on {which}, trained only on the points inside the dashed box; the map "
    "extends the data's box by half its width on every side. Shown is the standard deviation "
    "of the predicted function value (without observation noise). The Mondrian forest's "
    "averages over every way a test point can branch off into a new leaf, more likely the "
    "farther it is from the data, so it rises towards the prior's level away from the box. "
    "RandomForest and ExtraTrees (the spread of their trees' predictions) stay as "
    "confident far away as at the border of the data, because their cells extend to "
    "infinity. This mirrors the slides' uncertainty comparison (Lakshminarayanan et al. 2016).")
