"""Built charts shared by every session: a warm visit sends a stored figure.

Building a Plotly figure (every shape and trace validated by Plotly) costs more server
CPU than everything else in a visit of a computed link. :func:`cached_figure` builds each
figure once per distinct input, keyed by a digest of the builder's arguments (their
content, not their identity: ``st.cache_data`` hands every run a fresh copy), and slims it
once for the wire: float arrays are sent as 32-bit floats (7 significant digits, far
below what a chart can show), which halves the bytes of every array-heavy chart.
"""
from __future__ import annotations

import base64
import dataclasses
import hashlib

import numpy as np
import plotly.graph_objects as go

from explorer_ui.cache import CACHE_TTL, SharedResults


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


def _to_float32(node):
    if isinstance(node, np.ndarray):
        return node.astype(np.float32) if node.dtype == np.float64 else node
    if isinstance(node, dict) and node.get("dtype") == "f8" and "bdata" in node:
        # Plotly's typed-array form of a NumPy array (base64 of its bytes)
        values = np.frombuffer(base64.b64decode(node["bdata"]), dtype="<f8")
        return {**node, "dtype": "f4",
                "bdata": base64.b64encode(values.astype("<f4").tobytes()).decode("ascii")}
    if isinstance(node, dict):
        return {k: _to_float32(v) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        return type(node)(_to_float32(v) for v in node)
    return node


def slim(fig: go.Figure, *, validate: bool = True) -> go.Figure:
    """``fig`` with every 64-bit float array (traces, error bars, markers, animation
    frames) as a 32-bit one: a new figure. ``validate=False`` skips Plotly's second
    validation of what ``fig`` already passed once (for builders marked
    ``validated_once``: the same chart, tested)."""
    return go.Figure(_to_float32(fig.to_dict()), _validate=validate)


def _json_size(fig: go.Figure) -> int:
    return len(fig.to_json())


# A few hundred charts (each page shows 2-5, most under 100 KB once slimmed), an hour.
FIGURES = SharedResults(max_entries=400, max_bytes=96 * 2**20, ttl=CACHE_TTL, sizeof=_json_size)


def cached_figure(builder, *args, **kwargs) -> go.Figure:
    """``slim(builder(*args, **kwargs))``, built once per distinct content of the
    arguments for the whole server. The figure is shared: treat it as read-only."""
    validate = not getattr(builder, "validated_once", False)
    try:
        key = (builder.__module__, builder.__qualname__, digest(*args, **kwargs))
    except _Unkeyable:
        return slim(builder(*args, **kwargs), validate=validate)
    return FIGURES.get(key, lambda report: slim(builder(*args, **kwargs), validate=validate))
