"""Built charts shared by every session: a warm visit sends a stored figure.

Building a Plotly figure (every shape and trace validated by Plotly) costs more server
CPU than everything else in a visit of a computed link. :func:`cached_figure` builds each
figure once per distinct input, keyed by a digest of the builder's arguments (their
content, not their identity: ``st.cache_data`` hands every run a fresh copy), and slims it
once for the wire: float arrays are sent as 32-bit floats (7 significant digits, far
below what a chart can show), which halves the bytes of every array-heavy chart.
"""
from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import plotly.graph_objects as go

from explorer_ui.cache import SharedResults


class _Unkeyable(Exception):
    """An argument whose content cannot be digested: the figure is built uncached."""


def _feed(h, obj, depth=0) -> None:
    if depth > 20:
        raise _Unkeyable("too deep")
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        h.update(f"{type(obj).__name__}:{obj!r};".encode())
    elif isinstance(obj, np.generic):
        h.update(f"{obj.dtype}:{obj!r};".encode())
    elif isinstance(obj, np.ndarray):
        if obj.dtype == object:
            h.update(f"O{obj.shape};".encode())
            for v in obj.flat:
                _feed(h, v, depth + 1)
        else:
            h.update(f"nd{obj.dtype.str}{obj.shape};".encode())
            h.update(np.ascontiguousarray(obj).view(np.uint8).data)
    elif isinstance(obj, (list, tuple)):
        h.update(f"{type(obj).__name__}{len(obj)}[".encode())
        for v in obj:
            _feed(h, v, depth + 1)
        h.update(b"]")
    elif isinstance(obj, dict):
        h.update(f"dict{len(obj)}{{".encode())
        for k, v in obj.items():
            _feed(h, k, depth + 1)
            _feed(h, v, depth + 1)
        h.update(b"}")
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        h.update(f"dc:{type(obj).__module__}.{type(obj).__qualname__}(".encode())
        for f in dataclasses.fields(obj):
            if not f.compare:  # memos (e.g. remembered predictions), not content
                continue
            h.update(f.name.encode())
            _feed(h, getattr(obj, f.name), depth + 1)
        h.update(b")")
    else:
        raise _Unkeyable(type(obj).__qualname__)


def digest(*args, **kwargs) -> str:
    """A digest of the content of ``args`` and ``kwargs`` (arrays by their bytes,
    dataclasses by the fields they compare); raises ``_Unkeyable`` for other objects."""
    h = hashlib.blake2b(digest_size=20)
    _feed(h, args)
    _feed(h, kwargs)
    return h.hexdigest()


def slim(fig: go.Figure) -> go.Figure:
    """Send ``fig``'s 64-bit float arrays (its traces' and its animation frames') as 32-bit
    ones (in place; returns ``fig``)."""
    for trace in [*fig.data, *(t for frame in fig.frames or () for t in frame.data)]:
        for name in ("x", "y", "z", "width", "base", "marker.size",
                     "marker.color", "line.color", "text"):
            owner, attr = trace, name
            if "." in name:
                parent, attr = name.split(".")
                owner = getattr(trace, parent, None)
                if owner is None:
                    continue
            value = getattr(owner, attr, None) if attr in owner else None
            if isinstance(value, np.ndarray) and value.dtype == np.float64:
                owner[attr] = value.astype(np.float32)
    return fig


def _json_size(fig: go.Figure) -> int:
    return len(fig.to_json())


# A few hundred charts (each page shows 2-5, most under 100 KB once slimmed), an hour.
FIGURES = SharedResults(max_entries=400, max_bytes=96 * 2**20, ttl=3600.0, sizeof=_json_size)


def cached_figure(builder, *args, **kwargs) -> go.Figure:
    """``slim(builder(*args, **kwargs))``, built once per distinct content of the
    arguments for the whole server. The figure is shared: treat it as read-only."""
    try:
        key = (builder.__module__, builder.__qualname__, digest(*args, **kwargs))
    except _Unkeyable:
        return slim(builder(*args, **kwargs))
    return FIGURES.get(key, lambda report: slim(builder(*args, **kwargs)))
