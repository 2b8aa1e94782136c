"""Widgets shared by the "Lifetime sweep" and "Lifetime posterior" pages: the data
source, the split and the cached sweep. Widgets, layout and text only."""
from __future__ import annotations

import streamlit as st

from explorer_ui.compute import cached_with_progress
from explorer_ui.data import (
    REGRESSION_KINDS,
    SPLITS,
    data_key,
    data_params,
    data_source_picker,
    split,
)
from explorer_ui.echo import plain
from explorer_ui.widgets import (
    clamp_state,
    kept_number,
    seed_control,
    show_figure,
    url_number,
    url_slider,
)
from mondrian_core import lifetime_path
from mondrian_core.cost import (
    MIN_SWEEP_POINTS,
    SWEEP_BUDGET_SECONDS,
    check_sweep_cost,
    largest_sweep_cells,
    largest_sweep_points,
    largest_sweep_trees,
    sweep_seconds,
)
from mondrian_core.figures.sweep import split_sizes
from mondrian_core.sweep import lifetime_for_cells

#: The sweep pages fit on train and pick the lifetime on validation (``SPLITS["validate"]``).
TRAIN_FRACTION = SPLITS["validate"][0]


def terminal_lifetime(X, cells) -> float:
    """The sweep's terminal lifetime for ``cells`` expected cells per tree on ``X``'s box,
    to 3 significant digits (it is shown, and a link should reopen the same sweep)."""
    return float(f"{lifetime_for_cells(X, cells):.3g}")


#: Most Mondrian trees a sweep page offers (the cost check still refuses slow sweeps).
MAX_TREES = 1000
#: Most expected cells per tree a sweep page offers.
MAX_CELLS = 400


def sweep_sizes(trees: int, cells: int) -> tuple[int, int]:
    """The Mondrian trees and cells per tree the model's sliders will hold this run.

    The sliders sit below the data's widgets, whose largest N depends on them, so the
    page reads them once before drawing anything and passes them to :func:`pick_data`
    and :func:`model_controls`: the session's values (checked by the sliders in the last
    run), else the link's when in the sliders' range, else ``trees`` and ``cells`` (the
    page's defaults). A link's pair that no data set could sweep within the budget is
    refused by its sliders, so the defaults stand in for it here.
    """
    n_trees, trees_linked = kept_number("trees", trees, min_value=5, max_value=MAX_TREES)
    n_cells, cells_linked = kept_number("cells", cells, min_value=5, max_value=MAX_CELLS)
    if sweep_seconds(MIN_SWEEP_POINTS, n_trees, n_cells) > SWEEP_BUDGET_SECONDS:
        n_cells = cells if cells_linked else n_cells
        if trees_linked and sweep_seconds(MIN_SWEEP_POINTS, n_trees, n_cells) > SWEEP_BUDGET_SECONDS:
            n_trees = trees
    return n_trees, n_cells


def pick_data(container, sizes, *, default_seed, default_lifetime, seed_container=None):
    """Data source (the shared picker) and a seeded train/validation/test split
    (``SPLITS["validate"]``).

    One seed draws everything random: the synthetic data, the split and the Mondrians
    (the picker shows no "Data seed" of its own). The seed widget goes in
    ``seed_container`` (e.g. a container at the bottom of the sidebar, made before the
    model settings) or, by default, right after the data widgets.

    ``sizes`` are the trees and cells per tree of this run (:func:`sweep_sizes`): the
    synthetic N sliders stop at the most points a sweep of that size can use within the
    time budget. ``default_seed`` and ``default_lifetime`` (the synthetic data's true
    lifetime) are the page's defaults.

    Returns (train, val, test, data, key, seed); ``data`` is the whole set (its name,
    true lifetime and what identifies it in exports), ``key`` identifies it for caching.
    """
    data_box = container.container()
    seed_box = container.container() if seed_container is None else seed_container
    # the seed is drawn first (the data depend on it) but shown where seed_box sits
    seed = seed_control("seed", default=default_seed, container=seed_box)
    seed_box.caption("The seed draws the data, the split and the Mondrians.")
    fits = largest_sweep_points(*sizes)
    data = data_source_picker("data", kinds=REGRESSION_KINDS, container=data_box,
                              standardize=True, standardize_target=True, seed=seed,
                              default_lifetime=default_lifetime,
                              max_points=int(fits / TRAIN_FRACTION))
    key = data_key(data)
    train, val, test = split(data, "validate", seed)
    return train, val, test, data, key, seed


def model_controls(container, train, sizes, *, trees, cells, noise_variance, prior_variance):
    """Mondrian sweep settings; returns them as a dict: ``n_trees``, ``cells``,
    ``terminal_lifetime``, ``noise_variance``, ``prior_variance``.

    The terminal lifetime is chosen through the expected number of cells per tree it
    gives on the training data's box, so one setting suits every data set. ``sizes`` are
    the trees and cells per tree the sliders hold (:func:`sweep_sizes`); the keyword
    arguments are the page's defaults.
    """
    # the sliders stop where the sweep would pass the time budget (the refusal's limit)
    # and say why: trees as many as fit with the current cells, cells as many as fit
    # with the trees chosen
    n, budget = train.n_samples, SWEEP_BUDGET_SECONDS
    current_cells = sizes[1]
    trees_top = max(min(MAX_TREES, largest_sweep_trees(n, current_cells, budget) // 5 * 5), 10)
    clamp_state("trees", trees_top)
    n_trees = url_slider("Mondrian trees $M$", "trees", min_value=5, max_value=trees_top,
                         default=min(trees, trees_top), step=5, container=container,
                         help="Many trees are slow on many points: the page refuses, "
                              "up front, a sweep that would take more than half a minute."
                              + (f" With the current cells per tree on these {n:,} training "
                                 f"points it stops at {trees_top:,} trees (fewer cells allow "
                                 "more)." if trees_top < MAX_TREES else ""))
    cells_top = max(min(MAX_CELLS, largest_sweep_cells(n, n_trees, budget) // 5 * 5), 10)
    clamp_state("cells", cells_top)
    cells = url_slider("Cells per tree at the terminal lifetime (expected)", "cells",
                       min_value=5, max_value=cells_top, default=min(cells, cells_top), step=5,
                       container=container,
                       help="Sets the terminal lifetime $\\Lambda$: a Mondrian of the data's "
                            "box has this many cells on average at $\\Lambda$."
                            + (f" With {n_trees:,} trees on {n:,} training points it stops "
                               f"at {cells_top:,}: more would take over {budget:g} s (fewer "
                               "trees allow more cells)." if cells_top < MAX_CELLS else ""))
    terminal = terminal_lifetime(train.X, cells)
    container.caption(f"Terminal lifetime $\\Lambda = {terminal:g}$ (the sweep covers "
                      "$0 \\to \\Lambda$).")
    noise_var = url_number("Noise variance $\\sigma_n^2$", "noise_var", min_value=1e-4,
                           max_value=10.0, default=noise_variance, step=0.01, format="%.4f",
                           container=container)
    prior_var = url_number("Weight prior variance $\\sigma_w^2$", "prior_var", min_value=1e-3,
                           max_value=100.0, default=prior_variance, step=0.1,
                           container=container)
    return dict(n_trees=n_trees, cells=cells, terminal_lifetime=terminal,
                noise_variance=noise_var, prior_variance=prior_var)


def run_sweep(train, val, key, settings, seed, *, validate=True):
    """The sweep for ``settings`` (:func:`model_controls`), computed once per server with a
    progress bar; refused up front (an ``InputError`` naming the largest size that fits)
    if it would take minutes. ``validate=False`` skips the validation error at every
    event (over half the sweep's time) for a page that does not show it."""
    model = {k: v for k, v in settings.items() if k != "cells"}  # cells set the terminal
    X_val, y_val = (val.X, val.y) if validate else (None, None)
    return cached_with_progress(
        ("lifetime sweep", key, tuple(sorted(settings.items())), seed)
        + (() if validate else ("without validation",)),
        lambda progress: lifetime_path(train.X, train.y, X_val, y_val, random_state=seed,
                                       progress=progress, **model),
        "Sweeping the lifetime: walking the cut events\u2026",
        check=lambda: check_sweep_cost(train.n_samples, settings["n_trees"], settings["cells"],
                                       train_fraction=TRAIN_FRACTION))


def figure_params(data, settings, seed, **more):
    """What a sweep chart depends on, for its exported file name: the data, the sweep's
    settings, the seed (split and Mondrians) and ``more``."""
    return {**data_params(data), "M": settings["n_trees"], "lam_max": settings["terminal_lifetime"],
            "noise_var": settings["noise_variance"], "prior_var": settings["prior_variance"],
            **more,
            "seed": seed}


def show_split(train, val, test, data, seed):
    split_text = "/".join(f"{100 * f:.0f}" for f in SPLITS["validate"])
    show_figure(split_sizes({"train": train.n_samples, "validation": val.n_samples,
                             "test": test.n_samples}), "split",
                params={**data_params(data), "seed": seed})
    st.caption(f"**{plain(data.name)}**: {train.n_samples} train / {val.n_samples} validation / "
               f"{test.n_samples} test points (random {split_text} split from the seed). The sweep "
               "fits on train, picks the lifetime on validation; test is held out.")


