"""Page: the Mondrian process in 2-D, growing in time, with its tree and three checks.

Widgets, layout and text only; the sampling lives in ``mondrian_core.process`` and
the pictures in ``mondrian_core.figures.process``.
"""
from __future__ import annotations

import streamlit as st

from explorer_ui.cache import CACHE_TTL
from explorer_ui.figure_cache import cached_figure
from explorer_ui.navigation import require_app_navigation
from explorer_ui.widgets import (
    page_header,
    section_errors,
    seed_control,
    show_figure,
    url_choice,
    url_range,
    url_slider,
    url_toggle,
    user_errors,
)
from mondrian_core import (
    expected_cells,
    extension_chain,
    first_cut_check,
    projectivity_check,
    sample_mondrian_process,
)
from mondrian_core.figures.process import (
    MAX_LABELLED_CUTS,
    extension_figure,
    first_cut_figure,
    growth_figure,
    projectivity_figure,
)

require_app_navigation()

# ----------------------------------------------------------------- cached core calls


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def _sample(width: float, height: float, lifetime: float, seed: int):
    return sample_mondrian_process([0.0, 0.0], [width, height], lifetime, seed)


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def _clocks(width, height, lifetime, seed, n_samples):
    return first_cut_check([0.0, 0.0], [width, height], lifetime, n_samples, seed + 1)


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def _projectivity(width, height, lifetime, seed, sub_x, sub_y, n_samples):
    return projectivity_check([0.0, 0.0], [width, height], [sub_x[0], sub_y[0]],
                              [sub_x[1], sub_y[1]], lifetime, n_samples, seed + 2)


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def _extension(width, height, lifetime, seed, grow, steps):
    sample = _sample(width, height, lifetime, seed)
    dx, dy = (grow - 1) * width / 2, (grow - 1) * height / 2
    return extension_chain(sample, [-dx, -dy], [width + dx, height + dy], steps, seed + 3)


def _pvalue(p: float) -> str:
    return "n/a" if p != p else f"{p:.3f}"  # nan: too few distinct outcomes to test


def _section(title: str):
    """A view's heading, then its chart column and its controls column."""
    st.subheader(title)
    return st.columns([4, 1])


# ----------------------------------------------------------------- controls

page_header(
    "Mondrian process",
    "A Mondrian process cuts a box with axis-aligned lines as time runs. Each box carries "
    "one exponential clock per side, ringing at a rate equal to the side's length; the "
    "first to ring cuts the box at a uniform place along that side, and both halves start "
    "again with the time that is left until the **lifetime** (Balog et al. 2016, sec. 2; "
    "Roy and Teh 2009).",
)

controls = st.container(border=True)
c1, c2, c3, c4 = controls.columns([3, 2, 2, 3])
lifetime = url_slider("Lifetime \u03bb", "lifetime", min_value=0.1, max_value=10.0,
                      default=3.0, step=0.1, container=c1,
                      help="Cuts that would appear after this time are ignored.")
width = url_slider("Box width", "width", min_value=0.2, max_value=2.0, default=1.0, step=0.1,
                   container=c2)
height = url_slider("Box height", "height", min_value=0.2, max_value=2.0, default=1.0,
                    step=0.1, container=c3)
seed = seed_control(container=c4)
c1.caption(f"Expected cells: \u220f(1 + \u03bb a_d) = "
           f"{expected_cells([0, 0], [width, height], lifetime):.1f}")

with user_errors():
    sample = _sample(width, height, lifetime, seed)

# ----------------------------------------------------------------- growth + tree


@st.fragment
def growth_view(width: float, height: float, lifetime: float, seed: int) -> None:
    """The partition and its tree; the time slider reruns only this part."""
    sample = _sample(width, height, lifetime, seed)
    st.subheader("The partition growing in time, and its tree")
    ct, cf, cl, cn, cm = st.columns([4, 2, 2, 3, 1.3], vertical_alignment="bottom")
    if "time" in st.session_state:
        # re-assigned every run: the slider's range follows the lifetime, which makes it a new
        # widget for Streamlit, and a new widget would otherwise forget the time
        st.session_state["time"] = min(st.session_state["time"], lifetime)
    time = url_slider("Time t", "time", min_value=0.0, max_value=float(lifetime),
                      default=float(lifetime), step=0.01, container=ct,
                      help="The picture and the tree at this time (the link keeps it). "
                           "\u25B6 Play in the chart animates the growth from 0 in the browser.")
    fill = url_toggle("Colours", "fill", default=True, container=cf,
                      help="Paint some cells red, blue, yellow or grey, as Mondrian did.")
    labels = url_toggle("Labels", "labels", default=True, container=cl,
                        help=f"Label each cut with its time (up to {MAX_LABELLED_CUTS} cuts) and each "
                             "tree node with its two clock rates (up to 25 cuts).")
    # a click on a cell or a tree node (chart selection) picks the node to highlight
    chosen = st.session_state.get("growth_chart")
    points = (chosen or {}).get("selection", {}).get("points", []) if chosen else []
    picked = next((p.get("customdata") for p in points if p.get("customdata") is not None),
                  None)
    if isinstance(picked, list):
        picked = picked[0] if picked else None
    if picked is not None and picked != st.session_state.get("_picked"):
        st.session_state["_picked"] = picked
        if 0 <= int(picked) < sample.n_nodes:
            st.session_state["node"] = int(picked)
    if st.session_state.get("node") is not None and st.session_state["node"] >= sample.n_nodes:
        st.session_state["node"] = None
    node = cn.selectbox(
        "Highlighted node", [None] + list(range(sample.n_nodes)), key="node",
        format_func=lambda j: "none" if j is None else
        (f"node {j}: cut at t={sample.split_time[j]:.2f}" if sample.split_dim[j] >= 0
         else f"node {j}: leaf"),
        help="Or click a cell's dot in the picture, or a node in the tree.")
    cut_count = int((sample.cut_times <= time).sum())
    cm.metric("Cells at t", cut_count + 1)
    with st.spinner("Drawing the sample..."):
        fig = cached_figure(growth_figure, sample, time, fill=fill,
                            labels=labels and sample.cut_times.size <= MAX_LABELLED_CUTS,
                            selected_node=node)
    show_figure(fig, "partition-and-tree", key="growth_chart", on_select="rerun",
                selection_mode="points",
                params=dict(lifetime=lifetime, width=width, height=height, seed=seed, t=time))
    st.caption(
        "Mirrors the paper's Figure 1. **Left (a):** the cuts present at time t, each labelled "
        "with the time it appeared. **Right (b):** the same sample as a binary tree, time "
        "running down; each circle is a cut, with the rates of its two competing clocks (its "
        "box's width and height) below it and the winning clock in red; squares are cells left "
        "at the lifetime. Yellow dots mark the cells alive at time t. Press \u25B6 Play to watch "
        "both grow; click a grey dot (a cell) or a node to outline its box and circle its node."
    )
    if node is not None:
        lo, hi = sample.node_lower[node], sample.node_upper[node]
        text = (f"**Node {node}**: box [{lo[0]:.3f}, {hi[0]:.3f}] \u00d7 [{lo[1]:.3f}, "
                f"{hi[1]:.3f}], born at t = {sample.birth_time[node]:.3f}; clocks: width "
                f"{hi[0] - lo[0]:.3f}, height {hi[1] - lo[1]:.3f}. ")
        if sample.split_dim[node] >= 0:
            text += (f"The {'width' if sample.split_dim[node] == 0 else 'height'} clock rang "
                     f"first, at t = {sample.split_time[node]:.3f}: a cut at "
                     f"{'xy'[sample.split_dim[node]]} = {sample.split_loc[node]:.3f}.")
        else:
            text += "No clock rang before the lifetime: it is a cell of the final partition."
        st.markdown(text)

# ----------------------------------------------------------------- competing clocks


@st.fragment
def clocks_view(width: float, height: float, lifetime: float, seed: int) -> None:
    """The competing-clocks check."""
    a, b = _section("Competing clocks, checked")
    with b:
        n_clock = url_choice("Samples", "nclock", ["500", "2000", "10000"], default="2000",
                             widget="segmented",
                             help="Independent Mondrians on the current box.")
    with a:
        with section_errors(), st.spinner("Sampling first cuts..."):
            check = _clocks(width, height, lifetime, seed, int(n_clock))
            show_figure(cached_figure(first_cut_figure, check), "competing-clocks",
                        params=dict(lifetime=lifetime, width=width, height=height, seed=seed,
                                    samples=n_clock))
            b.metric("KS p-value (time)", _pvalue(check.ks_pvalue))
            b.metric("\u03c7\u00b2 p-value (dimension)", _pvalue(check.dim_pvalue))
    st.caption(
        f"Over many Mondrians on this {width:g} \u00d7 {height:g} box: the first cut comes after "
        f"an Exp(width + height = {width + height:g}) time (the density in red; samples with no "
        "cut before the lifetime are left out of the histogram), and is vertical with "
        "probability width / (width + height). Both follow from three facts about competing "
        "exponential clocks (sec. 2.1). p-values far below 0.01 would mean the sampler is wrong."
    )

# ----------------------------------------------------------------- projectivity


@st.fragment
def projectivity_view(width: float, height: float, lifetime: float, seed: int) -> None:
    """The projectivity check on a user-set sub-box."""
    sample = _sample(width, height, lifetime, seed)
    a, b = _section("Projectivity: the process seen on a sub-box")
    with b:
        sub_x = url_range("Sub-box x range", "subx", min_value=0.0, max_value=float(width),
                          default=(0.25 * width, 0.75 * width), step=0.01)
        sub_y = url_range("Sub-box y range", "suby", min_value=0.0, max_value=float(height),
                          default=(0.25 * height, 0.75 * height), step=0.01)
        n_proj = url_choice("Samples", "nproj", ["200", "500", "2000"], default="500",
                            widget="segmented", help="Independent Mondrians for the histogram.")
    with a:
        with section_errors(), st.spinner("Sampling and restricting..."):
            restricted = sample.restrict([sub_x[0], sub_y[0]], [sub_x[1], sub_y[1]])
            proj = _projectivity(width, height, lifetime, seed, tuple(sub_x), tuple(sub_y),
                                 int(n_proj))
            show_figure(cached_figure(projectivity_figure, sample, restricted, proj), "projectivity",
                        params=dict(lifetime=lifetime, width=width, height=height, seed=seed,
                                    subx=f"{sub_x[0]:g}-{sub_x[1]:g}",
                                    suby=f"{sub_y[0]:g}-{sub_y[1]:g}", samples=n_proj))
            b.metric("Two-sample p-value", _pvalue(proj.pvalue))
    st.caption(
        "Left: the sample above (grey) and the cuts that cross the blue sub-box (black), which "
        "keep their times. Right: over many samples, the number of cells inside the sub-box "
        "when a Mondrian on the whole box is restricted to it (blue) and when a Mondrian is "
        "sampled on the sub-box directly (red). They agree (projectivity, sec. 2.3 and "
        "Figure 2): cuts that miss the sub-box do not change when the first crossing cut comes."
    )

# ----------------------------------------------------------------- extension


@st.fragment
def extension_view(width: float, height: float, lifetime: float, seed: int) -> None:
    """The conditional Mondrian growing the box."""
    sample = _sample(width, height, lifetime, seed)
    a, b = _section("Extension: growing the box (conditional Mondrian)")
    with b:
        grow = url_slider("Grow the box by", "grow", min_value=1.0, max_value=3.0, default=2.0,
                          step=0.1, help="The new box is this many times wider and taller, "
                                         "centred on the old one (yellow).")
        steps = url_slider("Steps", "steps", min_value=1, max_value=10, default=5,
                           help="Intermediate boxes; each step extends the previous one.")
    with a:
        with section_errors(), st.spinner("Extending..."):
            chain = _extension(width, height, lifetime, seed, grow, steps)
            show_figure(cached_figure(extension_figure, sample, chain), "extension",
                        params=dict(lifetime=lifetime, width=width, height=height, seed=seed,
                                    grow=grow, steps=steps))
            b.metric("Cells: old \u2192 new", f"{sample.n_cells} \u2192 {chain[-1].n_cells}")
    st.caption(
        "The conditional Mondrian (Roy and Teh 2009; sec. 2.4 and the Mondrian forest slides' "
        "online cartoon) extends the sample to a larger box without changing it inside the old "
        "box: old cuts (black) are kept and extended (dotted); a new cut may be inserted above "
        "an old one (red) when the clock of the new region rings before the old cut's time; the "
        "new regions get fresh cuts (blue). Press \u25B6 Grow to step through the boxes. The "
        "result is distributed exactly as a Mondrian sampled on the big box."
    )

# ----------------------------------------------------------------- the page

for view in (growth_view, clocks_view, projectivity_view, extension_view):
    view(width, height, lifetime, seed)
