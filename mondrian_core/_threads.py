"""The one place that runs library work on several threads (``n_jobs``).

NumPy's products and reductions and SciPy's sparse products release the GIL, so
threads over independent pieces (partitions, blocks of rows) use several cores
without copying data to processes. Every computation stays on one BLAS thread
(:mod:`mondrian_core._blas`): the threads here are the only parallelism.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor


def thread_map(fn, items, n_jobs: int) -> list:
    """``[fn(item) for item in items]``, on ``n_jobs`` threads when more than one.

    Results come back in the order of ``items``; an exception in one call is raised
    here.
    """
    items = list(items)
    if n_jobs <= 1 or len(items) <= 1:
        return [fn(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(n_jobs, len(items))) as pool:
        return list(pool.map(fn, items))
