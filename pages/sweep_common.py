"""Widgets shared by the "Lifetime sweep" and "Lifetime posterior" pages: the data
source, the split and the cached sweep. Widgets, layout and text only."""
from __future__ import annotations

from collections import OrderedDict

import streamlit as st

from mondrian_core import lifetime_path
from mondrian_core.sweep import lifetime_for_cells
from mondrian_core.datasets import (BUNDLED_DATASETS, laplace_gp, load_bundled, load_csv,
                                    read_csv_table, train_val_test_split)
from mondrian_core.figures.sweep import split_sizes
from pages.common import seed_control, show_figure, url_choice, url_number, url_slider

SOURCES = ["Synthetic 1-D Laplace GP", "Synthetic 2-D Laplace GP", "Bundled data set", "Upload a CSV"]


@st.cache_data(max_entries=8, show_spinner=False)
def _synthetic(n, n_dims, lifetime, noise_std, seed):
    return laplace_gp(n, n_dims=n_dims, lifetime=lifetime, noise_std=noise_std, random_state=seed)


@st.cache_data(max_entries=4, show_spinner=False)
def _bundled(name):
    return load_bundled(name, standardize=True).standardize(target=True)


@st.cache_data(max_entries=4, show_spinner=False)
def _csv(data: bytes, target):
    table = read_csv_table(data)
    dataset, notices = load_csv(data, target_column=target, standardize=True)
    return table.numeric_columns, dataset.standardize(target=True), notices


@st.cache_data(max_entries=8, show_spinner=False)
def _split(_dataset, key, seed):
    return train_val_test_split(_dataset, (0.6, 0.2, 0.2), random_state=seed)


def pick_data(container):
    """Data source widgets; returns (train, val, test, name, true_lifetime, key, seed)."""
    source = url_choice("Data", "data", SOURCES, default=SOURCES[0], container=container)
    seed = seed_control("seed", default=0, container=container)
    if source.startswith("Synthetic"):
        n_dims = 1 if "1-D" in source else 2
        n = url_slider("Points (train + validation + test)", "n", min_value=50,
                       max_value=2500 if n_dims == 2 else 5000, step=50,
                       default=500 if n_dims == 1 else 1000, container=container)
        true = url_number("True lifetime \u03bb* of the Laplace kernel", "true_lifetime",
                          min_value=0.1, max_value=100.0, default=5.0, step=0.5, container=container)
        noise = url_number("Noise standard deviation", "noise_std", min_value=0.0, max_value=2.0,
                           default=0.1, step=0.05, container=container)
        data = _synthetic(n, n_dims, true, noise, seed)
        key = ("synthetic", n, n_dims, true, noise, seed)
        true_lifetime = true
    elif source == "Bundled data set":
        name = url_choice("Data set", "bundled", list(BUNDLED_DATASETS), default="gapminder",
                          container=container)
        container.caption(BUNDLED_DATASETS[name][1] + "; inputs and target standardised.")
        data = _bundled(name)
        key = ("bundled", name)
        true_lifetime = None
    else:
        upload = container.file_uploader("CSV file (header row, numeric columns)", type=["csv", "txt"],
                                         key="csv_file")
        if upload is None:
            st.info("Upload a CSV file in the sidebar to run the sweep on your own data: a header "
                    "row, numeric columns; the last numeric column is the target unless you choose "
                    "another.")
            st.stop()
        raw = upload.getvalue()
        numeric, _, _ = _csv(raw, None)
        target = container.selectbox("Target column", numeric, index=len(numeric) - 1, key="csv_target")
        _, data, notices = _csv(raw, target)
        for note in notices:
            container.caption(note)
        key = ("csv", hash(raw), target)
        true_lifetime = None
    train, val, test = _split(data, key, seed)
    return train, val, test, data.name, true_lifetime, key, seed


def model_controls(container, train, data_key):
    """Mondrian sweep settings; returns a dict of keyword arguments.

    The default terminal lifetime gives each tree about 60 cells on average.
    """
    default_terminal = float(f"{lifetime_for_cells(train.X, 60):.2g}")
    n_trees = url_slider("Mondrian trees M", "trees", min_value=5, max_value=100, default=50,
                         step=5, container=container)
    terminal = url_number("Terminal lifetime \u039b (sweep 0 \u2192 \u039b)",
                          f"terminal_{data_key[0]}", min_value=0.1, max_value=200.0,
                          default=default_terminal, step=1.0, container=container,
                          help="The largest lifetime swept. The default gives each tree about 60 cells.")
    noise_var = url_number("Noise variance \u03c3\u00b2\u2099", "noise_var", min_value=1e-4,
                           max_value=10.0, default=0.01, step=0.01, format="%.4f",
                           container=container)
    prior_var = url_number("Weight prior variance \u03c3\u00b2_w", "prior_var", min_value=1e-3,
                           max_value=100.0, default=1.0, step=0.1, container=container)
    return dict(n_trees=n_trees, terminal_lifetime=terminal, noise_variance=noise_var,
                prior_variance=prior_var)


@st.cache_resource(show_spinner=False)
def _store():
    """Per-server store of slow results (swept paths, Figure 8 searches): a resource, so
    a path is not copied on every rerun (it is large and read-only, and a slider move
    must answer from it within 200 ms). Kept by hand rather than with ``st.cache_data``
    because the computation reports to a progress bar created outside it."""
    return {}


def cached_with_progress(kind, key, compute, text, max_entries=4):
    """``compute(progress)`` once per ``key`` (a few kept per ``kind``), with a progress bar."""
    store = _store().setdefault(kind, OrderedDict())
    if key in store:
        store.move_to_end(key)
        return store[key]
    bar = st.progress(0.0, text=text)
    try:
        value = compute(lambda f: bar.progress(min(float(f), 1.0), text=f"{text} {min(f, 1.0):.0%}"))
    finally:
        bar.empty()
    store[key] = value
    while len(store) > max_entries:
        store.popitem(last=False)
    return value


def run_sweep(train, val, key, settings, seed):
    """The cached sweep, with a progress bar while it runs."""
    return cached_with_progress(
        "sweep", (key, tuple(sorted(settings.items())), seed),
        lambda progress: lifetime_path(train.X, train.y, val.X, val.y, random_state=seed,
                                       progress=progress, **settings),
        "Sweeping the lifetime: walking the cut events\u2026")


def show_split(train, val, test, name):
    show_figure(split_sizes({"train": train.n_samples, "validation": val.n_samples,
                             "test": test.n_samples}), "split", params={"data": name})
    st.caption(f"**{name}**: {train.n_samples} train / {val.n_samples} validation / "
               f"{test.n_samples} test points (random 60/20/20 split from the seed). The sweep "
               "fits on train, picks the lifetime on validation; test is held out.")


