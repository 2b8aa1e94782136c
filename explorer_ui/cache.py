"""Results shared by every session of the server, computed once per key.

Streamlit runs each session's script in a thread of one process. ``st.cache_data`` already
lets one thread compute a key while the others wait, but it cannot show the computation's
progress to the waiting sessions, bounds entries and not bytes, and copies (unpickles) a
value on every hit. :class:`SharedResults` is for the few results that are large, slow and
read-only (the pages' slow results, :data:`explorer_ui.compute.RESULTS`, and the built charts,
:data:`explorer_ui.figure_cache.FIGURES`): single flight per key, a bound on entries *and*
bytes, a time to live, and a progress value that waiting sessions can show. Pages do not
use it directly: :func:`explorer_ui.compute.cached_with_progress` does.
"""
from __future__ import annotations

import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

#: Seconds a cached result lives (``ttl`` of every st.cache_data / st.cache_resource of
#: the pages and of the shared stores): a lecture's length, so results computed for a
#: class are dropped afterwards while the entry bounds cap memory during it.
CACHE_TTL = 3600.0


def approx_nbytes(obj, _seen: set | None = None, _depth: int = 0) -> int:
    """Bytes held by ``obj``: its NumPy arrays' and sparse matrices' buffers, strings, and
    the containers and attributes that reach them (each object counted once).

    An estimate for a cache's byte bound: the arrays dominate every result cached here;
    small Python objects are counted by ``sys.getsizeof`` alone.
    """
    seen = set() if _seen is None else _seen
    if id(obj) in seen or _depth > 12:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        base = obj.base if isinstance(obj.base, np.ndarray) else None
        if base is not None:  # a view: count the array it looks into, once
            return approx_nbytes(base, seen, _depth + 1)
        if obj.dtype == object:
            return obj.nbytes + sum(approx_nbytes(v, seen, _depth + 1) for v in obj.flat)
        return obj.nbytes
    if sp.issparse(obj):
        return sum(approx_nbytes(getattr(obj, name), seen, _depth + 1)
                   for name in ("data", "indices", "indptr", "row", "col", "offsets")
                   if isinstance(getattr(obj, name, None), np.ndarray))
    if isinstance(obj, (str, bytes, bytearray, int, float, complex, bool)) or obj is None:
        return sys.getsizeof(obj)
    total = sys.getsizeof(obj)
    if isinstance(obj, dict):
        items = [v for kv in obj.items() for v in kv]
    elif isinstance(obj, (list, tuple, set, frozenset)):
        items = list(obj)
    else:
        items = list(getattr(obj, "__dict__", {}).values())
        for cls in type(obj).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if hasattr(obj, name):
                    items.append(getattr(obj, name))
    return total + sum(approx_nbytes(v, seen, _depth + 1) for v in items)


@dataclass
class _Flight:
    """One computation in progress: the others wait on ``done``."""
    done: threading.Event = field(default_factory=threading.Event)
    fraction: float = 0.0
    error: BaseException | None = None
    abandoned: bool = False
    value: object = None
    has_value: bool = False


@dataclass
class _Entry:
    value: object
    nbytes: int
    stored: float


class SharedResults:
    """A per-process store of slow, read-only results: each key computed once.

    Parameters
    ----------
    max_entries : int
        At most this many results are kept (least recently used dropped first).
    max_bytes : int
        ... and at most this many bytes (:func:`approx_nbytes`) in all. A single result
        larger than this is returned but not kept.
    ttl : float
        Seconds a result is kept after it was computed.
    sizeof : callable, optional
        Bytes of a result (default :func:`approx_nbytes`).
    slots : threading.Semaphore, optional
        Held while computing: a semaphore shared by several stores bounds how many heavy
        computations run at once (their working memory), the others queue.

    Notes
    -----
    :meth:`get` with a key being computed by another thread waits for it instead of
    computing again (single flight). If the computing thread raises, the waiting ones
    raise the same error (an :class:`~mondrian_core.errors.InputError` says the same to
    every student); if it is stopped (its user left or pressed Stop: Streamlit raises
    an exception that does not derive from ``Exception``), one waiting thread takes over.
    """

    def __init__(self, max_entries: int, max_bytes: int, ttl: float,
                 sizeof: Callable[[object], int] = approx_nbytes,
                 slots: threading.Semaphore | None = None):
        self.max_entries, self.max_bytes, self.ttl = max_entries, max_bytes, ttl
        self.sizeof = sizeof
        self.slots = slots
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._flights: dict[Hashable, _Flight] = {}
        self.computed = 0  # computations finished, for tests and the benchmark

    def __len__(self) -> int:
        with self._lock:
            self._expire(time.monotonic())
            return len(self._entries)

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(e.nbytes for e in self._entries.values())

    def _expire(self, now: float) -> None:
        for key in [k for k, e in self._entries.items() if now - e.stored > self.ttl]:
            del self._entries[key]

    def _store(self, key, value) -> None:
        nbytes = self.sizeof(value)
        if nbytes > self.max_bytes:
            return
        self._entries[key] = _Entry(value, nbytes, time.monotonic())
        total = sum(e.nbytes for e in self._entries.values())
        while len(self._entries) > self.max_entries or total > self.max_bytes:
            _, dropped = self._entries.popitem(last=False)
            total -= dropped.nbytes

    def get(self, key: Hashable, compute: Callable[[Callable[[float], None]], object],
            progress: Callable[[float], None] | None = None,
            wait_poll: float = 0.25):
        """The result for ``key``: stored, or waited for, or ``compute(report)``.

        ``compute`` is called with a function taking the fraction done (0..1);
        ``progress(fraction)``, if given, is called with it, whether this thread computes
        or waits for another (every ``wait_poll`` seconds while waiting).
        """
        while True:
            with self._lock:
                self._expire(time.monotonic())
                entry = self._entries.get(key)
                if entry is not None:
                    self._entries.move_to_end(key)
                    return entry.value
                flight = self._flights.get(key)
                leader = flight is None
                if leader:
                    flight = self._flights[key] = _Flight()
            if leader:
                return self._lead(key, flight, compute, progress, wait_poll)
            while not flight.done.wait(wait_poll):
                if progress is not None:
                    progress(flight.fraction)
            if flight.error is not None:
                raise flight.error
            # done: stored (found on the next pass), too large to keep, or abandoned
            if not flight.abandoned:
                with self._lock:
                    entry = self._entries.get(key)
                if entry is not None:
                    return entry.value
                if flight.has_value:  # too large to keep: each waiting session gets it once
                    return flight.value

    def _lead(self, key, flight: _Flight, compute, progress, wait_poll):
        def report(fraction: float) -> None:
            flight.fraction = min(max(float(fraction), 0.0), 1.0)
            if progress is not None:
                progress(flight.fraction)

        holding = False
        try:
            while self.slots is not None and not holding:
                holding = self.slots.acquire(timeout=wait_poll)
                if not holding and progress is not None:
                    progress(0.0)  # queued: the bar shows it, and Stop still works
            value = compute(report)
        except Exception as err:
            flight.error = err
            raise
        except BaseException:
            flight.abandoned = True  # stopped by Streamlit: another waiting thread takes over
            raise
        else:
            flight.value, flight.has_value = value, True
            with self._lock:
                self._store(key, value)
                self.computed += 1
            return value
        finally:
            if holding:
                self.slots.release()
            with self._lock:
                self._flights.pop(key, None)
            flight.done.set()
