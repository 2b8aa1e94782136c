"""Page: the Mondrian process in 2-D, growing in time, with its tree and three checks.

Claims the page shows at its defaults (checked by tests/claims/test_mondrian_process.py
with the defaults of :mod:`explorer_ui.defaults_mondrian_process`):

1. The number of cells grows like the expectation prod_d (1 + lambda a_d): on the unit
   square at lambda = 3 the mean over many Mondrians is 16 (the default sample has 17),
   and doubling the lifetime multiplies it by (1 + 6)^2 / (1 + 3)^2 ~ 3, less than 4.
2. Competing clocks: the first cut comes after an Exp(a_1 + a_2) time and cuts
   dimension d with probability a_d / (a_1 + a_2) (the first-cut check passes).
3. Projectivity: a Mondrian restricted to a sub-box has the cell counts of a Mondrian
   sampled on the sub-box (the two-sample check passes).
4. Memorylessness: a box waits Exp(its linear dimension) for its cut whenever it was
   born. Claims 2-4 hold over the seeds 3-12 (p-values below 0.01 no more often than
   chance).

Widgets, layout and text only; the sampling lives in ``mondrian_core.process`` and
the pictures in ``mondrian_core.figures.process``.
"""
from __future__ import annotations

import streamlit as st

from explorer_ui import defaults_mondrian_process as D
from explorer_ui.cache import CACHE_TTL
from explorer_ui.figure_cache import cached_figure
from explorer_ui.navigation import require_app_navigation
from explorer_ui.sources import Source
from explorer_ui.tour import Step, Tour, predict_then_reveal
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
    cell_count_figure,
    extension_figure,
    first_cut_figure,
    growth_figure,
    projectivity_figure,
)
from mondrian_core.process import forest_cell_counts

require_app_navigation()

#: What the main chart shows, in the order of the tour.
VIEWS = {"growth": "Growth and its tree", "clocks": "Competing clocks",
         "projectivity": "Projectivity", "extension": "Extension"}

TOUR = Tour("mondrian-process", [
    Step("The first cut and its clocks",
         "The unit square carries two exponential clocks, one per dimension (not one per "
         "side: four sides, two clocks), each ringing at a rate equal to that side's length "
         "($a_1 = a_2 = 1$). At $t = 0.5$ one has rung in this sample (seed 3): a single "
         "vertical cut, made at $t = 0.06$. In the tree (right) the root's two rates are "
         "printed under it, the winner in red; grey is the future.",
         {"seed": D.SEED, "time": 0.5}),
    Step("Cells multiply as time runs",
         "Each cut starts two new boxes, each with its own clocks, so cuts come faster as "
         "time runs: by the lifetime $\\lambda = 3$ this sample (seed 3) has 17 cells, against "
         "$\\prod_d (1 + \\lambda a_d) = 16$ expected. Press \u25B6 Play under the chart "
         "to watch the partition and the tree grow together.",
         {"seed": D.SEED, "time": D.LIFETIME}),
    Step("Competing clocks, over 2,000 samples",
         "On a $2 \\times 1$ box the first cut comes after an "
         "$\\mathrm{Exp}(a_1 + a_2) = \\mathrm{Exp}(3)$ time (red curve over the blue "
         "histogram), and is vertical with probability $a_1 / (a_1 + a_2) = 2/3$ (right): "
         "the wider side's clock rings first more often.",
         {"seed": D.SEED, "width": 2.0, "view": "clocks"}),
    Step("Projectivity",
         "Restrict a Mondrian on the square to the blue sub-box: only the cuts that cross "
         "it remain (black), with their times. Over 500 samples its number of cells (blue "
         "bars) has the same distribution as a Mondrian sampled on the sub-box directly "
         "(red), with mean $\\prod_d (1 + \\lambda s_d) = 6.25$.",
         {"seed": D.SEED, "view": "projectivity"}),
    Step("Extension to a bigger box",
         "The conditional Mondrian grows the box to twice its width and height without "
         "changing anything inside the old box (yellow): old cuts are kept and extended "
         "(dotted), new cuts may land above old ones (red), and the new regions get fresh "
         "cuts (blue). Press \u25B6 Grow to step through the boxes.",
         {"seed": D.SEED, "view": "extension"}),
])

#: Each claim the page makes, and where it comes from (the *Sources* expander).
SOURCES = [
    Source("One exponential clock per dimension, at a rate equal to that side's length; the "
           "first to ring cuts uniformly along its side, and both halves restart.",
           "Balog et al. (2016), sec. 2.2; Roy and Teh (2009)"),
    Source("Competing clocks: the first cut comes after an $\\mathrm{Exp}(\\sum_d a_d)$ time, "
           "in dimension $d$ with probability $a_d / \\sum_d a_d$; the clocks that did not ring "
           "run on unchanged (memorylessness).",
           "Balog et al. (2016), sec. 2.1, properties (1)-(3) of competing exponential clocks"),
    Source("The sample as a binary tree, time running down, two clock rates under each node.",
           "Balog et al. (2016), Figure 1"),
    Source("Expected number of cells $\\prod_d (1 + \\lambda a_d)$.",
           "Mourtada, Gaïffas and Scornet (2020), \"Minimax optimal rates for Mondrian trees "
           "and forests\", Ann. Statist. 48(4) ($(1 + \\lambda)^D$ on the unit cube)"),
    Source("Projectivity: a Mondrian restricted to a sub-box is a Mondrian on the sub-box.",
           "Balog et al. (2016), sec. 2.3 and Figure 2; Roy (2011)"),
    Source("Only the data's bounding box needs sampling; the conditional Mondrian extends a "
           "sample to a larger box (online learning).",
           "Balog et al. (2016), secs. 2.4, 3.1 and 5; Roy and Teh (2009); Lakshminarayanan et al. "
           "(2014)"),
    Source("Projectivity gives the Laplace kernel as the Mondrian kernel's limit.",
           "Balog et al. (2016), sec. 3.2, Proposition 1"),
    Source("At the defaults the sampler passes the first-cut, projectivity and cell-count "
           "checks, and memorylessness holds (the wait after time $s$, given no cut yet, is "
           "again $\\mathrm{Exp}(\\sum_d a_d)$).",
           "tests/claims/test_mondrian_process.py, seeds 3-12", own=True),
    Source("Seed 3's sample: first cut at $t = 0.06$, 17 cells at $\\lambda = 3$ (the tour).",
           "this seed only; tests/claims/test_mondrian_process.py", own=True),
]

# ----------------------------------------------------------------- cached core calls


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def _sample(width: float, height: float, lifetime: float, seed: int):
    return sample_mondrian_process([0.0, 0.0], [width, height], lifetime, seed)


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def _clocks(width, height, lifetime, seed, n_samples):
    return first_cut_check([0.0, 0.0], [width, height], lifetime, n_samples,
                            seed + D.SEED_OFFSET_CLOCKS)


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def _projectivity(width, height, lifetime, seed, sub_x, sub_y, n_samples):
    return projectivity_check([0.0, 0.0], [width, height], [sub_x[0], sub_y[0]],
                              [sub_x[1], sub_y[1]], lifetime, n_samples,
                              seed + D.SEED_OFFSET_PROJECTIVITY)


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def _extension(width, height, lifetime, seed, grow, steps):
    sample = _sample(width, height, lifetime, seed)
    dx, dy = (grow - 1) * width / 2, (grow - 1) * height / 2
    return extension_chain(sample, [-dx, -dy], [width + dx, height + dy], steps,
                           seed + D.SEED_OFFSET_EXTENSION)


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner=False)
def _cell_counts(width, height, lifetime, seed):
    """Cells of many Mondrians at the lifetime and at twice it (independent draws)."""
    box = ([0.0, 0.0], [width, height])
    counts = {t: forest_cell_counts(*box, t, D.N_COUNT, seed + D.SEED_OFFSET_CELL_COUNTS + k)
              for k, t in enumerate((lifetime, 2 * lifetime))}
    return counts, {t: expected_cells(*box, t) for t in counts}


def _pvalue(p: float) -> str:
    return "n/a" if p != p else f"{p:.3f}"  # nan: too few distinct outcomes to test


_PREV_LIFETIME = "_process_prev_lifetime"
#: Widgets of one view only; kept in the session while another view is shown.
_VIEW_KEYS = ("time", "fill", "labels", "node", "nclock", "subx", "suby", "nproj", "grow",
              "steps")


def _time_follows_lifetime(lifetime: float) -> None:
    """A time at the old lifetime moves to the new one (the picture grows with the
    lifetime); any other time is clamped into [0, lifetime]."""
    prev = st.session_state.get(_PREV_LIFETIME)
    if "time" in st.session_state:
        t = st.session_state["time"]
        if prev is not None and prev != lifetime and abs(t - prev) < 1e-9:
            t = float(lifetime)
        # re-assigned every run: the slider's range follows the lifetime, which makes it
        # a new widget for Streamlit, and a new widget would otherwise forget the time
        st.session_state["time"] = min(t, float(lifetime))
        if "time" in st.query_params:
            st.query_params["time"] = str(st.session_state["time"])
    st.session_state[_PREV_LIFETIME] = lifetime


# ----------------------------------------------------------------- controls

page_header(
    "Mondrian process",
    "A Mondrian process cuts a box with axis-aligned lines as time runs. Each box carries "
    "one exponential clock per **dimension** (two for a rectangle, not one per side), ringing "
    "at a rate equal to that side's length $a_d$; the first to ring cuts the box at a uniform "
    "place along its side, and both halves start again, each with its own clocks, with the "
    "time that is left until the **lifetime** $\\lambda$ (Balog et al. 2016, secs. 2.1-2.2; "
    "Roy and Teh 2009). On average a box ends with $\\prod_d (1 + \\lambda a_d)$ cells "
    "(Mourtada, Gaïffas and Scornet 2020, *Ann. Statist.*: $(1 + \\lambda)^D$ on the unit "
    "cube; a box's sides rescale it).\n\n"
    "**Memorylessness.** An exponential clock does not age: the time to a box's next cut does "
    "not depend on how long the box has already lived. So the process can be grown one cut "
    "at a time, stopped at any time $t$, and continued later from exactly that state: the "
    "partition at a larger lifetime only *adds* cuts (the lifetime sweep reuses one sample for "
    "every $\\lambda$).\n\n"
    "**Projectivity** (sec. 2.3): restricted to a sub-box, a Mondrian is a Mondrian on the "
    "sub-box. Three consequences: only the data's bounding box ever needs to be sampled "
    "(secs. 2.4 and 3.1); two points are separated before $\\lambda$ with probability "
    "$1 - e^{-\\lambda \\lVert x - x' \\rVert_1}$, so the Mondrian kernel's limit is the "
    "Laplace kernel (sec. 3.2, Proposition 1; the *Kernel convergence* page); and new data "
    "outside the box are met by extending the sample, not redrawing it, which makes online "
    "learning possible (sec. 5; the *Online forest* page). Choose what the chart shows in the "
    "sidebar.",
    tour=TOUR,
    sources=SOURCES,
)

for key in _VIEW_KEYS:  # a hidden view's widgets keep their values
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]

side = st.sidebar
side.subheader("Box")
width = url_slider("Width $a_1$", "width", min_value=0.2, max_value=2.0, default=D.WIDTH,
                   step=0.1, container=side)
height = url_slider("Height $a_2$", "height", min_value=0.2, max_value=2.0, default=D.HEIGHT,
                    step=0.1, container=side)
side.subheader("Process")
lifetime = url_slider("Lifetime $\\lambda$", "lifetime", min_value=0.1, max_value=10.0,
                      default=D.LIFETIME, step=0.1, container=side,
                      help="Cuts that would appear after this time are ignored.")
side.markdown(f"Expected cells $\\prod_d (1 + \\lambda a_d) = "
              f"{expected_cells([0, 0], [width, height], lifetime):.1f}$")
view = url_choice("Show", "view", list(VIEWS), default="growth", widget="radio",
                  format_func=VIEWS.get, container=side)
_time_follows_lifetime(lifetime)

if view == "growth":
    time = url_slider("Time $t$", "time", min_value=0.0, max_value=float(lifetime),
                      default=float(lifetime), step=0.01, container=side,
                      help="The picture and the tree at this time (the link keeps it). "
                           "\u25B6 Play in the chart animates the growth from 0.")
    row = side.columns(2)
    fill = url_toggle("Colours", "fill", default=True, container=row[0],
                      help="Paint some cells red, blue, yellow or grey, as Mondrian did.")
    labels = url_toggle("Labels", "labels", default=True, container=row[1],
                        help=f"Label each cut with its time (up to {MAX_LABELLED_CUTS} cuts) "
                             "and the first tree nodes with their two clock rates.")
    node_slot = side.container()  # the node picker needs the sample, drawn after the seed
elif view == "clocks":
    n_clock = url_choice("Samples", "nclock", ["500", "2000", "10000"], default=D.N_CLOCK,
                         widget="segmented", container=side,
                         help="Independent Mondrians on the current box.")
elif view == "projectivity":
    lo_f, hi_f = D.SUB_FRACTION
    sub_x = url_range("Sub-box $x$ range", "subx", min_value=0.0, max_value=float(width),
                      default=(lo_f * width, hi_f * width), step=0.01, container=side)
    sub_y = url_range("Sub-box $y$ range", "suby", min_value=0.0, max_value=float(height),
                      default=(lo_f * height, hi_f * height), step=0.01, container=side)
    n_proj = url_choice("Samples", "nproj", ["200", "500", "2000"], default=D.N_PROJ,
                        widget="segmented", container=side,
                        help="Independent Mondrians for the histogram.")
else:
    grow = url_slider("Grow the box by", "grow", min_value=1.0, max_value=3.0,
                      default=D.GROW, step=0.1, container=side,
                      help="The new box is this many times wider and taller, centred on the "
                           "old one (yellow).")
    steps = url_slider("Steps", "steps", min_value=1, max_value=10, default=D.STEPS,
                       container=side,
                       help="Intermediate boxes; each step extends the previous one.")
side.divider()
seed = seed_control(default=D.SEED, container=side)

with user_errors():
    sample = _sample(width, height, lifetime, seed)

box = dict(lifetime=lifetime, width=width, height=height, seed=seed)

# ----------------------------------------------------------------- the main chart


def growth_view() -> None:
    """The partition and its tree, with the node picked in the chart or the sidebar."""
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
    node = node_slot.selectbox(
        "Highlighted node", [None] + list(range(sample.n_nodes)), key="node",
        format_func=lambda j: "none" if j is None else
        (f"node {j}: cut at t={sample.split_time[j]:.2f}" if sample.split_dim[j] >= 0
         else f"node {j}: leaf"),
        help="Or click a cell's dot in the picture, or a node in the tree.")
    with st.spinner("Drawing the sample..."):
        fig = cached_figure(growth_figure, sample, time, fill=fill,
                            labels=None if labels else False,  # None: the builder's rule
                            selected_node=node)
    show_figure(fig, "partition-and-tree", key="growth_chart", on_select="rerun",
                selection_mode="points", main=True, params=dict(box, t=time))
    cells = int((sample.cut_times <= time).sum()) + 1
    st.markdown(f"**{cells} cells** at $t = {time:.2f}$; expected "
                f"$\\prod_d (1 + t\\,a_d) = {expected_cells([0, 0], [width, height], time):.1f}$.")
    st.caption(
        "Mirrors the paper's Figure 1. **Left:** the cuts present at time $t$, each labelled "
        "with the time it appeared. **Right:** the same sample as a tree, time running down; "
        "under the first cuts their two clock rates (width, height), the winner in red (hover "
        "for the others); yellow dots "
        "are the cells alive at $t$. Click a dot or a node to outline its box.")
    if node is not None:
        lo, hi = sample.node_lower[node], sample.node_upper[node]
        text = (f"**Node {node}**: box $[{lo[0]:.3f}, {hi[0]:.3f}] \\times [{lo[1]:.3f}, "
                f"{hi[1]:.3f}]$, born at t = {sample.birth_time[node]:.3f}; clocks: width "
                f"{hi[0] - lo[0]:.3f}, height {hi[1] - lo[1]:.3f}. ")
        if sample.split_dim[node] >= 0:
            text += (f"The {'width' if sample.split_dim[node] == 0 else 'height'} clock rang "
                     f"first, at t = {sample.split_time[node]:.3f}: a cut at "
                     f"${'xy'[sample.split_dim[node]]} = {sample.split_loc[node]:.3f}$.")
        else:
            text += "No clock rang before the lifetime: it is a cell of the final partition."
        st.markdown(text)


def clocks_view() -> None:
    """The competing-clocks check."""
    with section_errors(), st.spinner("Sampling first cuts..."):
        check = _clocks(width, height, lifetime, seed, int(n_clock))
        show_figure(cached_figure(first_cut_figure, check), "competing-clocks", main=True,
                    params=dict(box, samples=n_clock))
        st.markdown(f"KS $p$-value (time) **{_pvalue(check.ks_pvalue)}**; "
                    f"$\\chi^2$ $p$-value (dimension) **{_pvalue(check.dim_pvalue)}**.")
    st.caption(
        f"Over many Mondrians on this ${width:g} \\times {height:g}$ box: the first cut comes "
        f"after an $\\mathrm{{Exp}}(a_1 + a_2 = {width + height:g})$ time (samples with no cut "
        "before the lifetime are left out), and is vertical with probability "
        "$a_1 / (a_1 + a_2)$ (sec. 2.1). $p$-values far below 0.01 would mean the sampler "
        "is wrong. The clocks are memoryless: of the boxes still uncut at any time $s$, the "
        "wait from $s$ to their first cut has the same $\\mathrm{Exp}(a_1 + a_2)$ law, which is "
        "why a sample can be stopped and grown on later.")


def projectivity_view() -> None:
    """The projectivity check on a user-set sub-box."""
    with section_errors(), st.spinner("Sampling and restricting..."):
        restricted = sample.restrict([sub_x[0], sub_y[0]], [sub_x[1], sub_y[1]])
        proj = _projectivity(width, height, lifetime, seed, tuple(sub_x), tuple(sub_y),
                             int(n_proj))
        show_figure(cached_figure(projectivity_figure, sample, restricted, proj),
                    "projectivity", main=True,
                    params=dict(box, subx=f"{sub_x[0]:g}-{sub_x[1]:g}",
                                suby=f"{sub_y[0]:g}-{sub_y[1]:g}", samples=n_proj))
        st.markdown(f"Two-sample $p$-value **{_pvalue(proj.pvalue)}**.")
    st.caption(
        "Left: the sample (grey) and the cuts that cross the blue sub-box (black), which keep "
        "their times. Right: cells in the sub-box over many samples, restricted from the box "
        "(blue) or sampled on the sub-box (red): the same distribution (sec. 2.3, Figure 2).")


def extension_view() -> None:
    """The conditional Mondrian growing the box."""
    with section_errors(), st.spinner("Extending..."):
        chain = _extension(width, height, lifetime, seed, grow, steps)
        show_figure(cached_figure(extension_figure, sample, chain), "extension", main=True,
                    params=dict(box, grow=grow, steps=steps))
        st.markdown(f"Cells: **{sample.n_cells}** in the old box, **{chain[-1].n_cells}** in "
                    "the grown one.")
    st.caption(
        "The conditional Mondrian (Roy and Teh 2009; sec. 2.4) extends the sample without "
        "changing it inside the old box (yellow); the result is distributed exactly as a "
        "Mondrian sampled on the big box. \u25B6 Grow steps through the boxes.")


{"growth": growth_view, "clocks": clocks_view, "projectivity": projectivity_view,
 "extension": extension_view}[view]()

# ----------------------------------------------------------------- predict, then reveal

if predict_then_reveal(
        "double_lifetime",
        "Double the lifetime, from $\\lambda$ to $2\\lambda$. How many times as many cells "
        "does a Mondrian on this box have, on average?",
        ["2 times", "fewer than 4 times", "4 times (area grows like $\\lambda^2$)"], 1,
        "The expectation is $\\prod_d (1 + \\lambda a_d)$: each side's factor "
        "$1 + \\lambda a_d$ less than doubles when $\\lambda$ doubles, so in 2-D the count "
        "grows by less than 4 (on the unit square at $\\lambda = 3$: $49 / 16 \\approx 3$). "
        "The histograms below are 1,000 Mondrians at each lifetime."):
    with section_errors(), st.spinner("Sampling 2,000 Mondrians..."):
        counts, expected = _cell_counts(width, height, lifetime, seed)
        show_figure(cached_figure(cell_count_figure, counts, expected), "cell-counts",
                    params=box)
