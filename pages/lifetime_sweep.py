"""Lifetime sweep: one set of Mondrians, every kernel width, exact ridge at each cut
(Balog et al. 2016, Section 4, Figures 4, 7 and 8)."""
from __future__ import annotations

import numpy as np
import streamlit as st

from explorer_ui.cache import CACHE_TTL
from explorer_ui.figure_cache import cached_figure
from explorer_ui.navigation import require_app_navigation
from explorer_ui.sweep import (
    cached_with_progress,
    figure_params,
    model_controls,
    pick_data,
    run_sweep,
    show_split,
)
from explorer_ui.widgets import page_header, show_figure, url_positive_float, user_errors
from mondrian_core.experiments.width_search import figure8_traces
from mondrian_core.figures.sweep import (
    error_vs_time,
    fitted_function_1d,
    n_features_vs_lifetime,
    prediction_surface_2d,
    rmse_vs_lifetime,
    tree_cut_segments,
)

require_app_navigation()

page_header(
    "Lifetime sweep",
    "The Mondrian process only ever *adds* cuts as time runs, so the Mondrian features for "
    "every lifetime \u03bb (inverse kernel width) come from one set of trees grown to the "
    "terminal lifetime: at each cut one feature (the split cell) is deleted and two are "
    "appended (the paper's Figure 4). This page walks all cuts once and keeps the ridge "
    "solution **exact** at every cut, so the validation error is known for every \u03bb at "
    "about the cost of one fit. Move the lifetime slider: the answer comes from the stored "
    "path, without refitting.",
)

side = st.sidebar
with user_errors():
    train, val, test, name, true_lifetime, key, seed = pick_data(side)
    side.divider()
    settings = model_controls(side, train)

show_split(train, val, test, name, seed)
with user_errors():
    path = run_sweep(train, val, key, settings, seed)

n_events = path.lifetimes.size - 1
st.caption(f"Swept {n_events:,} cut events of {settings['n_trees']} Mondrians from \u03bb = 0 to "
           f"{settings['terminal_lifetime']:g} in {path.seconds[-1]:.2f} s; features grew from "
           f"{path.n_features[0]} to {path.n_features[-1]:,}.")


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner=False)
def _grid_2d(key, lo0, hi0, lo1, hi1, n=70):
    gx, gy = np.linspace(lo0, hi0, n), np.linspace(lo1, hi1, n)
    return gx, gy, np.column_stack([np.repeat(gx, n), np.tile(gy, n)])


@st.fragment
def explore():
    """The slider and the views it drives (reruns alone when the slider moves)."""
    t_lo = float(path.lifetimes[1] / 2) if n_events else path.terminal_lifetime / 10
    lo, hi = np.log10(t_lo), np.log10(path.terminal_lifetime)
    best = path.best_lifetime
    if "log_lifetime" not in st.session_state:
        start = url_positive_float("lifetime") or max(best, t_lo)
        st.session_state.log_lifetime = float(np.clip(np.log10(max(start, t_lo)), lo, hi))
    st.session_state.log_lifetime = float(np.clip(st.session_state.log_lifetime, lo, hi))
    cols = st.columns([3, 1, 1, 1.4], vertical_alignment="bottom")
    log_t = cols[0].slider("Lifetime \u03bb (log\u2081\u2080 scale)", min_value=lo, max_value=hi,
                           step=(hi - lo) / 400, key="log_lifetime", format="%.2f",
                           help="Slide to any lifetime; the path answers without refitting.")
    lifetime = float(10 ** log_t)
    st.query_params["lifetime"] = f"{lifetime:.4g}"
    c = path.index(lifetime)
    cols[1].metric("\u03bb", f"{lifetime:.3g}")
    cols[2].metric("features", f"{path.n_features[c]:,}")
    cols[3].metric("val. RMSE", f"{path.val_rmse[c]:.3f}",
                   delta=f"{path.val_rmse[c] - path.val_rmse[path.best_index]:+.3f} vs best",
                   delta_color="inverse")
    left, right = st.columns([3, 2])
    with left:
        show_figure(cached_figure(rmse_vs_lifetime, path, lifetime, true_lifetime), "rmse",
                    params=figure_params(name, settings, seed, lam=lifetime))
        st.caption(
            "Train error (blue) falls as cuts refine the partitions; validation error (red) is "
            f"lowest at \u03bb = {best:.3g} (star): smaller \u03bb underfits (wide kernel), larger "
            "overfits. For synthetic data the dotted line is the lifetime the data were drawn with; "
            "the paper's Figure 7 recovers it within an order of magnitude.")
    with right:
        show_figure(cached_figure(n_features_vs_lifetime, path, lifetime), "features",
                    params=figure_params(name, settings, seed, lam=lifetime))
        st.caption("Each cut deletes the split cell's feature and appends one per child: the "
                   "number of features grows by one per cut.")
    D = train.X.shape[1]
    if D == 1:
        grid = np.linspace(train.X.min(), train.X.max(), 400)[:, None]
        mean = path.predict(grid, lifetime)
        show_figure(cached_figure(fitted_function_1d, grid, mean, train.X, train.y, val.X, val.y,
                                       title=f"Ridge fit at \u03bb = {lifetime:.3g}"),
                    "fit", params=figure_params(name, settings, seed, lam=lifetime))
        st.caption("The posterior-mean (ridge) function at the slider's lifetime: piecewise "
                   "constant, an average of the trees' cell values.")
    elif D == 2:
        lo_, hi_ = train.X.min(axis=0), train.X.max(axis=0)
        gx, gy, G = _grid_2d(key, lo_[0], hi_[0], lo_[1], hi_[1])
        Z = path.predict(G, lifetime).reshape(gx.size, gy.size).T
        segs = tree_cut_segments(path.trees, 0, lifetime, lo_, hi_)
        show_figure(cached_figure(prediction_surface_2d, gx, gy, Z, train.X, segs,
                                          title=f"Prediction surface at \u03bb = {lifetime:.3g} "
                                                "with tree 1's cuts"),
                    "surface", params=figure_params(name, settings, seed, lam=lifetime))
        st.caption("Colour: the ridge prediction; black lines: the cuts of the first Mondrian "
                   "made by this lifetime (the prediction averages all trees' cells).")
    else:
        st.caption(f"The data have {D} inputs: no fitted-function picture, but the curves above "
                   "are exact for every lifetime.")
    if test.n_samples:
        test_rmse = float(np.sqrt(np.mean((path.predict(test.X, best) - test.y) ** 2)))
        st.caption(f"Held-out test RMSE at the best validation lifetime {best:.3g}: **{test_rmse:.4f}**.")


explore()

st.subheader("Figure 8: the sweep against retraining")
st.markdown(
    "Random Fourier features and random binning approximate the same Laplace kernel, but "
    "their features must be rebuilt and the model retrained for every lifetime tried. "
    "Here they search the lifetime by doubling/halving from \u03bb = 1, then bisection, "
    "with the same number of non-zero features per point as the Mondrian kernel "
    f"(M = {settings['n_trees']}); the curves show the best validation error found so far "
    "against computation time, measured live on this machine.")


def _figure8(progress):
    return figure8_traces(path, train.X, train.y, val.X, val.y, settings["n_trees"],
                          noise_variance=settings["noise_variance"],
                          prior_variance=settings["prior_variance"], random_state=seed,
                          progress=progress)


if st.button("Run the retraining searches (Figure 8)", key="fig8"):
    st.session_state.fig8_on = True
if st.session_state.get("fig8_on"):
    with user_errors():
        traces = cached_with_progress("figure8", (key, tuple(sorted(settings.items())), seed),
                                      _figure8, "Retraining at each candidate lifetime:")
    show_figure(cached_figure(error_vs_time, traces), "figure8-error-vs-time",
                params=figure_params(name, settings, seed))
    target = float(np.min(traces[0].val_rmse))
    rows = []
    for tr in traces:
        reach = tr.time_to_reach(target)
        rows.append({"method": tr.method, "best validation RMSE": f"{np.min(tr.val_rmse):.4f}",
                     "at \u03bb": f"{tr.lifetimes[int(np.argmin(tr.val_rmse))]:.3g}",
                     "lifetimes tried": int(tr.lifetimes.size),
                     "total time (s)": f"{tr.seconds[-1]:.2f}",
                     "time to reach the sweep's best (s)":
                         "not reached" if not np.isfinite(reach) else f"{reach:.2f}"})
    st.dataframe(rows, hide_index=True)
    st.caption("The sweep's curve steps down as blocks of cut events are evaluated; each dot of "
               "the other methods is one full rebuild and refit at one lifetime.")
