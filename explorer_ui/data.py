"""A data-source picker shared by the pages: synthetic draws, bundled real sets, a CSV.

Widgets and layout only; the data come from :mod:`mondrian_core.datasets`. Simple
choices (source, N, lifetime, noise, seed, bundled set) live in the URL through the
``explorer_ui.widgets`` helpers, under names prefixed with the picker's ``key``; an uploaded
file and its column choices stay in the session (a link cannot carry a file).

Use::

    from explorer_ui.data import data_source_picker
    data = data_source_picker("data", kinds=("gp1d", "gp2d", "diabetes", "csv"),
                              container=st.sidebar)
    # data is a mondrian_core.datasets.Dataset
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import NamedTuple

import streamlit as st

from explorer_ui.cache import CACHE_TTL
from explorer_ui.echo import plain
from explorer_ui.widgets import clamp_state, url_choice, url_number, url_slider, user_errors
from mondrian_core import datasets as ds
from mondrian_core.errors import InputError

#: Every source the picker knows, with the label shown to the user.
SOURCE_LABELS: dict[str, str] = {
    "gp1d": "Laplace GP draw, 1-D",
    "gp2d": "Laplace GP draw, 2-D",
    "jumps": "Toy 1-D with jumps",
    "surface2d": "2-D surface with a step",
    "moons": "Two moons (classes)",
    "spirals": "Two spirals (classes)",
    "xor": "XOR (classes)",
    **{name: f"Real: {name}" for name in ds.BUNDLED_DATASETS},
    "csv": "Upload CSV",
}

#: Regression sources (what the lifetime and GP pages use).
REGRESSION_KINDS = ("gp1d", "gp2d", "jumps", "surface2d", *ds.BUNDLED_DATASETS, "csv")
#: 2-D sources for the online forest page.
PLANE_KINDS = ("moons", "spirals", "xor", "surface2d", "gp2d")



class SyntheticDefaults(NamedTuple):
    """What the picker offers for a synthetic source: its largest N, and the N and noise
    it starts from (the data seed starts at 0)."""

    max_n: int
    n: int
    noise: float


#: Per synthetic source, its picker's range and defaults: the one place they live (a
#: page's defaults module reads its data's N and noise from here).
SYNTHETIC: dict[str, SyntheticDefaults] = {
    "gp1d": SyntheticDefaults(20_000, 500, 0.1),
    "gp2d": SyntheticDefaults(ds.MAX_GP_POINTS, 1000, 0.1),
    "jumps": SyntheticDefaults(5000, 150, 0.15),
    "surface2d": SyntheticDefaults(20_000, 400, 0.1),
    "moons": SyntheticDefaults(20_000, 300, 0.15),
    "spirals": SyntheticDefaults(20_000, 300, 0.05),
    "xor": SyntheticDefaults(20_000, 300, 0.1),
}

#: How the pages split a data set at random (by the page's seed): the fractions of the
#: rows in each part, in the order :func:`split` returns them, by what the held-out rows
#: are for. The rule: a page that picks a setting on held-out data splits in three
#: (train / validation / test), one that only scores fits on held-out data in two
#: (train / test). The train fractions differ between pages as they were first drawn;
#: changing one moves that page's pictures and the numbers its tour and claims quote.
SPLITS: dict[str, tuple[float, ...]] = {
    # the lifetime sweep and posterior: fit on train, pick the lifetime on validation,
    # test held out
    "validate": (0.6, 0.2, 0.2),
    # kernel vs forest, the online forest: every fit along a path or a stream scored on test
    "test": (0.7, 0.3),
    # kernel convergence's Figure 6, the partition-kernel GPs' comparisons: methods fitted
    # on train (exact solvers, so few rows) and compared on test
    "compare": (0.8, 0.2),
}


def data_key(data: ds.Dataset) -> tuple:
    """What identifies ``data``'s content in a server-wide cache key: its name, its shape
    and digests of its arrays (two uploads with one name and shape stay apart)."""
    return (data.name, data.n_samples, data.n_features, hash(data.X.tobytes()),
            hash(data.y.tobytes()))


def split(data: ds.Dataset, purpose: str, seed: int, *, max_points: int | None = None):
    """The page's random split of ``data`` for ``purpose`` (a key of :data:`SPLITS`).

    Parameters
    ----------
    data : Dataset
        The data set.
    purpose : {"validate", "test", "compare"}
        What the held-out rows are for; sets the fractions (:data:`SPLITS`).
    seed : int
        The page's seed: the same seed, the same split.
    max_points : int, optional
        Split only this many rows, drawn at random by the same seed (for the exact
        solvers); default: all.

    Returns
    -------
    tuple of Dataset
        (train, validation, test) or (train, test).
    """
    if max_points is not None and data.n_samples > max_points:
        share = max_points / data.n_samples
        keep = ds.train_val_test_split(data, (share, 1 - share), random_state=seed,
                                       return_indices=True)[0]
        data = data.subset(keep)
    return ds.train_val_test_split(data, SPLITS[purpose], random_state=seed)


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner="Drawing the data\u2026")
def _synthetic(kind: str, n: int, noise: float, lifetime: float, seed: int) -> ds.Dataset:
    if kind in ("gp1d", "gp2d"):
        data = ds.laplace_gp(n, 1 if kind == "gp1d" else 2, lifetime, noise, random_state=seed)
    else:
        make = {"jumps": ds.toy_jumps_1d, "surface2d": ds.regression_surface_2d,
                "moons": ds.two_moons, "spirals": ds.two_spirals, "xor": ds.xor_blobs}[kind]
        data = make(n, noise, random_state=seed)
    return dataclasses.replace(data, seed=seed)


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def _bundled(name: str, standardize: bool, standardize_target: bool) -> ds.Dataset:
    data = ds.load_bundled(name, standardize=standardize)
    return data.standardize(target=True) if standardize_target else data


@st.cache_data(max_entries=4, ttl=CACHE_TTL, show_spinner="Reading the CSV\u2026")
def _csv_columns(raw: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    table = ds.read_csv_table(raw)
    return table.numeric_columns, table.text_columns


@st.cache_data(max_entries=4, ttl=CACHE_TTL, show_spinner=False)
def _csv(raw: bytes, features: tuple[str, ...], target: str, name: str, standardize: bool,
         standardize_target: bool):
    data, notices = ds.load_csv(raw, list(features), target, name=name, standardize=standardize)
    if standardize_target:
        data = data.standardize(target=True)
    return data, notices


def data_source_picker(key: str = "data", kinds: Sequence[str] = REGRESSION_KINDS,
                       default: str | None = None, *, container=st,
                       standardize: bool = True, standardize_target: bool = False,
                       default_lifetime: float = 5.0, stop_if_missing: bool = True,
                       seed: int | None = None, max_points: int | None = None):
    """Widgets choosing a data set; returns a :class:`~mondrian_core.datasets.Dataset`.

    Parameters
    ----------
    key : str
        Prefix of the widget keys and URL parameters (two pickers on a page need
        different keys).
    kinds : sequence of str
        Sources offered, among :data:`SOURCE_LABELS` (e.g. :data:`REGRESSION_KINDS`,
        :data:`PLANE_KINDS`).
    default : str, optional
        The source first shown (default: the first of ``kinds``).
    container : streamlit container
        Where the widgets go (``st``, ``st.sidebar``, a column, ...).
    standardize, standardize_target : bool
        z-score the features / the target of real and uploaded sets (synthetic sets
        are left in their units: X in [0, 1]^D, unit prior variance).
    default_lifetime : float
        The Laplace-GP draw's default lifetime.
    stop_if_missing : bool
        With "Upload CSV" and no file yet: show how to upload and ``st.stop()``
        (default), or return ``None``.
    seed : int, optional
        The synthetic draws' seed, when the page already has one seed for everything
        (then no "Data seed" widget is shown); default: a "Data seed" widget.
    max_points : int, optional
        The most points the page can use: the synthetic N sliders stop there (and say
        so), so that the picker never offers a size the page refuses.

    Notes
    -----
    Problems with the data (a bad CSV, too many points for an exact 2-D draw) are
    shown as a short ``st.error`` and the script stops there; any other widget
    still works. Notices (rows dropped, defaults chosen) are shown as ``st.info``.
    """
    kinds = tuple(kinds)
    unknown = [k for k in kinds if k not in SOURCE_LABELS]
    if unknown or not kinds:
        raise ValueError(f"Unknown data sources {unknown}; choose among {list(SOURCE_LABELS)}.")
    if default is not None and default not in kinds:
        raise ValueError(f"default {default!r} is not among kinds {kinds}.")
    source = url_choice("Data", f"{key}_src", kinds, default=default or kinds[0],
                        container=container, format_func=SOURCE_LABELS.get)
    with user_errors():
        if source in SYNTHETIC:
            data = _synthetic_widgets(key, source, container, default_lifetime, seed,
                                      max_points)
        elif source in ds.BUNDLED_DATASETS:
            data = _bundled(source, standardize, standardize_target)
        else:
            data = _csv_widgets(key, container, standardize, standardize_target)
            if data is None:
                if stop_if_missing:
                    st.stop()
                return None
    _describe(data, container)
    return data


def _synthetic_widgets(key, source, container, default_lifetime, seed=None, max_points=None):
    max_n, default_n, default_noise = SYNTHETIC[source]
    page_limit = max_points is not None and max_points < max_n
    if page_limit:  # the page's own limit: the slider stops there and says why
        max_n = max(int(max_points) // 10 * 10, 30)
        default_n = min(default_n, max_n)
        clamp_state(f"{key}_{source}_n", max_n)
    n = url_slider("Points N", f"{key}_{source}_n", min_value=20, max_value=max_n,
                   default=default_n, step=10, container=container,
                   help=f"At most {max_n:,} points on this page." if page_limit else None)
    cols = container.columns(2)
    noise_label = ("Input noise (std)" if source in ("moons", "spirals", "xor")
                   else "Noise std of y")
    noise = url_number(noise_label, f"{key}_{source}_noise", min_value=0.0, max_value=2.0,
                       default=default_noise, step=0.05, container=cols[0])
    seed_widget = seed is None
    if seed_widget:
        seed = url_number("Data seed", f"{key}_seed", min_value=0, max_value=999_999,
                          default=0, step=1, container=cols[1], help="Same seed, same data.")
    lifetime = 0.0
    if source in ("gp1d", "gp2d"):
        lifetime = url_number(
            "True lifetime $\\lambda^*$", f"{key}_{source}_lifetime", min_value=0.1,
            max_value=200.0, default=float(default_lifetime), step=0.5,
            container=cols[0] if seed_widget else cols[1],  # beside the noise without a seed
            help="The draw's Laplace kernel is exp(-\u03bb* \u2016x - x'\u2016\u2081); "
                 "X is uniform on the unit box, f has prior variance 1.")
    return _synthetic(source, int(n), float(noise), float(lifetime), int(seed))


def _csv_widgets(key, container, standardize, standardize_target):
    upload = container.file_uploader(
        f"CSV file (at most {ds.CSV_MAX_BYTES / 1e6:g} MB, {ds.CSV_MAX_ROWS:,} rows, "
        f"{ds.CSV_MAX_COLUMNS:,} columns)",
        type=["csv", "txt", "tsv"], key=f"{key}_file",
        help="A header row, then one row per point; numbers with '.' as decimal point. "
             "Comma, semicolon, tab or | separated. The file is only read as text.")
    if upload is None:
        st.info("Upload a CSV file (in the data panel) with a header row and at least "
                f"{ds.CSV_MIN_ROWS} rows of numbers; then choose the feature and target columns. "
                "An example: `data/gapminder_2007.csv` in the repository.")
        return None
    raw = upload.getvalue()
    numeric, text = _csv_columns(raw)
    if len(numeric) < 2:
        raise InputError(
            f"The file has {len(numeric)} numeric column(s) ({', '.join(numeric) or 'none'}) "
            f"and {len(text)} text column(s) ({', '.join(text) or 'none'}); a data set needs at "
            "least one numeric feature and a numeric target. Use '.' as the decimal point.")
    # Column choices depend on the file: reset them when another file arrives.
    file_id = (upload.name, len(raw), hash(raw))
    if st.session_state.get(f"{key}_csv_id") != file_id:
        st.session_state[f"{key}_csv_id"] = file_id
        st.session_state[f"{key}_target"] = numeric[-1]
        st.session_state[f"{key}_prev_target"] = numeric[-1]
        st.session_state[f"{key}_features"] = list(numeric[:-1])
    target = container.selectbox("Target column (y)", numeric, key=f"{key}_target")
    candidates = [c for c in numeric if c != target]
    previous = st.session_state.get(f"{key}_prev_target", target)
    st.session_state[f"{key}_prev_target"] = target
    candidate_set = set(candidates)  # a membership test per column: linear in the columns
    chosen = [c for c in st.session_state.get(f"{key}_features", []) if c in candidate_set]
    all_before = set(st.session_state.get(f"{key}_features", [])) == set(numeric) - {previous}
    # "all other columns" stays all when the target changes; a hand-made choice is kept
    st.session_state[f"{key}_features"] = candidates if (all_before or not chosen) else chosen
    features = container.multiselect("Feature columns (X)", candidates, key=f"{key}_features")
    if not features:
        raise InputError("Choose at least one feature column.")
    # the name titles charts (Plotly reads a subset of HTML) and captions: letters,
    # digits and a few signs only
    name = re.sub(r"[^\w .()+-]+", "_", upload.name.rsplit(".", 1)[0])[:60].strip() or "uploaded CSV"
    data, notices = _csv(raw, tuple(features), target, name, standardize, standardize_target)
    for note in notices:
        (container.warning if note.startswith("Dropped") else container.info)(plain(note))
    return data


def _describe(data: ds.Dataset, container) -> None:
    text = f"{data.description} (N = {data.n_samples:,} points, D = {data.n_features}"
    if data.standardized:
        text += "; features" + (" and target" if data.y_raw is not None else "")
        text += " standardised to mean 0, std 1"
    container.caption(plain(text + ")"))


def data_params(data: ds.Dataset) -> dict:
    """What identifies a data set in an exported chart's file name: its name, and for a
    synthetic draw N, the noise, the data seed (and the true lifetime)."""
    out = {"data": data.name}
    if data.seed is not None:
        out.update(n=data.n_samples, noise=data.noise_std, dseed=data.seed,
                   lam_true=data.true_lifetime)
    return {k: v for k, v in out.items() if v is not None}
