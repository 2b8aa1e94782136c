"""Page runs that take turns: at most ``n`` at once in the server, the others in line.

Streamlit runs each session's script in a thread of one process, and Python runs one
thread at a time (the GIL). Twenty students opening twenty new links at once start
twenty script threads that hand the GIL to each other after every NumPy call that
releases it: measured on the Partition GPs and Kernel vs forest pages, each link then
cost 1.4-2.6x its CPU alone (1.7 million context switches in 27 s for 20 links;
bench/RESULTS.md, "Server CPU per new link"). In line, first come first served, each
link costs what it costs alone and the last one ends sooner, since the server's CPU
goes to the pages and not to switching between them.

This module has no Streamlit in it (the page's waiting note is
:func:`explorer_ui.compute.taking_turns`), so it is tested with plain threads.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable


class Turns:
    """At most ``n`` holders at once; the others wait in the order they came.

    Parameters
    ----------
    n : int
        Holders at once (at least 1).
    """

    def __init__(self, n: int):
        if n < 1:
            raise ValueError(f"Turns needs n >= 1 holders at once, got {n}.")
        self.n = n
        self._free = n
        self._line: deque[object] = deque()
        self._cond = threading.Condition()

    def acquire(self, on_wait: Callable[[int, float], None] | None = None,
                every: float = 1.0) -> None:
        """Wait for a turn; while waiting, call ``on_wait(ahead, seconds)`` first and then
        at least every ``every`` seconds (outside the lock), with how many go before this
        one (the holders now and those in line ahead) and how long it has waited. An
        exception from ``on_wait`` (a session stopped or rerun while it waits) leaves the
        line, and the turn is not taken."""
        me = object()
        start = time.monotonic()
        with self._cond:
            if self._free > 0 and not self._line:
                self._free -= 1
                return
            self._line.append(me)
        try:
            while True:
                with self._cond:
                    if self._free > 0 and self._line[0] is me:
                        self._line.popleft()
                        self._free -= 1
                        # the next in line may have a free turn too (n > 1)
                        self._cond.notify_all()
                        return
                    ahead = self._line.index(me) + self.n - self._free
                if on_wait is not None:
                    on_wait(ahead, time.monotonic() - start)
                with self._cond:
                    if not (self._free > 0 and self._line[0] is me):
                        self._cond.wait(every)
        except BaseException:
            with self._cond:
                if me in self._line:
                    self._line.remove(me)
                    self._cond.notify_all()
            raise

    def release(self) -> None:
        """End a turn: the first in line takes it."""
        with self._cond:
            if self._free >= self.n:
                raise RuntimeError("Turns.release called more often than acquire.")
            self._free += 1
            self._cond.notify_all()

    @property
    def waiting(self) -> int:
        """How many are in line now."""
        with self._cond:
            return len(self._line)
