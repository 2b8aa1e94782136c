"""The one place that limits BLAS threads.

The library's linear algebra is mostly thin products, triangular solves and CG vector
updates: on them BLAS threads only contend, badly so on a loaded 2-core machine where
a server runs one script thread per user (a 300 x 300 triangular solve took 26 ms with
two BLAS threads and 1.6 ms with one). OpenBLAS's multithreaded ``dpotrf`` also crashed
the interpreter on 16,000 x 16,000 matrices.
"""
from __future__ import annotations

import os
import sys
import threading
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController, threadpool_limits

_ENV_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

# Finding the loaded BLAS libraries costs ~7 ms (a walk of every shared object), as
# much as the small products it guards: the controller is kept, and found again when
# modules were imported since (a new extension may have brought its own BLAS).
_controller: tuple[int, ThreadpoolController] | None = None
# The limit is the process's, not a thread's: the first caller in sets it, the last one
# out restores it (else a caller leaving first would give the others back their threads,
# and the last would restore a limit of 1 for good).
_lock = threading.Lock()
_inside = 0
_limiter = None


@contextmanager
def single_blas_thread():
    """A context manager under which BLAS runs on one thread (restored on exit).

    Safe for concurrent callers: BLAS stays on one thread until the last of them leaves.
    """
    global _controller, _inside, _limiter
    with _lock:
        if _inside == 0:
            n_modules = len(sys.modules)
            if _controller is None or _controller[0] != n_modules:
                _controller = (n_modules, ThreadpoolController())
            _limiter = _controller[1].limit(limits=1, user_api="blas")
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                _limiter.restore_original_limits()
                _limiter = None


def pin_blas_threads_for_process() -> None:
    """One BLAS thread for the whole process: for a server running many users' scripts.

    Sets the environment variables (for libraries not yet loaded) and limits the BLAS
    libraries already loaded. Call it once, before the work starts.
    """
    for var in _ENV_VARS:
        os.environ.setdefault(var, "1")
    threadpool_limits(1)
