"""The one lifetime picker: a slider over a grid of lifetimes, kept in the URL, that
snaps any other value (a link's, or one left from another grid) to the nearest offered.

Pages with a lifetime chosen among computed ones use it: the Lifetime sweep page (a
grid of short values along the stored path, :func:`sweep_lifetimes`) and the Kernel vs
forest page (the lifetimes of its curve).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import streamlit as st

from explorer_ui.widgets import url_choice, url_positive_float

#: Mantissas of the lifetimes a sweep offers: about ten per decade, each short to read.
_MANTISSAS = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8)


def nice_lifetimes(lo: float, hi: float) -> list[str]:
    """Short labels of lifetimes from ``lo`` to ``hi`` (about ten per decade), as strings.

    ``hi`` itself closes the list, so the terminal lifetime can be picked."""
    out = []
    for exp in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in _MANTISSAS:
            v = float(f"{m * 10.0 ** exp:.3g}")
            if lo <= v < hi * (1 - 1e-9):
                out.append(f"{v:g}")
    out.append(f"{float(f'{hi:.3g}'):g}")
    return list(dict.fromkeys(out))


def nearest(labels: Sequence[str], value: float) -> str:
    """The label in ``labels`` nearest to ``value`` on a log scale."""
    logs = np.log([float(s) for s in labels])
    return labels[int(np.argmin(np.abs(logs - np.log(value))))]


def sweep_lifetimes(path) -> tuple[list[str], str]:
    """The lifetimes a sweep's picker offers, from just before the path's first cut to its
    terminal lifetime, and the one it starts at: the best validation lifetime."""
    first = float(path.lifetimes[1]) if path.lifetimes.size > 1 else path.terminal_lifetime / 10
    labels = nice_lifetimes(first / 2, path.terminal_lifetime)
    return labels, nearest(labels, max(path.best_lifetime, first / 2))


def lifetime_picker(label: str, key: str, labels: Sequence[str], default: str, *,
                    container=st, help: str | None = None) -> float:
    """A select slider over ``labels`` (lifetimes as short strings), starting at
    ``default``; returns the chosen lifetime.

    Kept in the URL as ``key``. A link's value is snapped to the nearest offered one (a
    value that is not a positive number gets a notice and the default); so is the
    session's value when the grid changes (another data set, another terminal lifetime).
    """
    labels = list(labels)
    state = st.session_state
    if key not in state and key in st.query_params:
        wanted = url_positive_float(key)  # a notice if it is not a positive number
        state[key] = default if wanted is None else nearest(labels, wanted)
    if key in state and state[key] not in labels:
        try:
            state[key] = nearest(labels, float(state[key]))
        except (TypeError, ValueError):
            state[key] = default
    return float(url_choice(label, key, labels, default=default, widget="select_slider",
                            container=container, help=help))
