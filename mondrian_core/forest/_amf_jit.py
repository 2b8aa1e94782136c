"""Compiled per-point work of the Aggregated Mondrian forests (optional: numba).

The aggregation is sequential (each point's losses read the weights and statistics the
points before it left), so a stream costs a few steps per node of each point's paths:
the walk, the conditional-Mondrian insertion, the charges and ``w̄`` up the paths, and
at prediction the mixture's coefficients down them. In Python numbers that is
0.2-0.5 us a node (~150 nodes a point at 10 trees); these functions run the same steps
compiled, when numba is installed (``pip install mondrian-explorer[fast]``).

They are the Python path of :mod:`mondrian_core.forest.amf` and
:meth:`TreeStore._extend_point <mondrian_core.forest.tree_store.TreeStore._extend_point>`
step for step: the same arithmetic in the same order, and the same random numbers in
the same order (standard exponentials and uniforms drawn 256 at a time from the same
generator, taken from the end of each block, as ``tree_store._Draws`` does), so the
store grows bit for bit as the Python path grows it one point at a time
(``tests/test_amf_jit.py``). The kernels learn every call one point at a time; the
Python path inserts large calls of the regressor or of ``split_pure=True`` by the joint
draw instead (another random sequence, the same law).

``MONDRIAN_CORE_JIT=0`` in the environment turns them off.
"""
from __future__ import annotations

import os

import numpy as np

_BLOCK = 256

_kernels = None  # the compiled functions, once loaded; False: unavailable


def kernels():
    """Return the compiled kernels' namespace, or None without numba (or with
    ``MONDRIAN_CORE_JIT=0``). The first call compiles (or loads numba's cache)."""
    global _kernels
    if _kernels is None:
        if os.environ.get("MONDRIAN_CORE_JIT", "1") == "0":
            _kernels = False
        else:
            try:
                from mondrian_core.forest import _amf_kernels
            except ImportError:  # numba is not installed
                _kernels = False
            else:
                _kernels = _amf_kernels
    return _kernels or None


class Draws:
    """The kernels' blocks of standard exponentials and uniforms (the state that makes
    them draw as ``tree_store._Draws`` does): ``exps``, ``unis`` and ``left``, how many
    of each block are still unused."""

    def __init__(self):
        self.exps = np.zeros(_BLOCK)
        self.unis = np.zeros(_BLOCK)
        self.left = np.zeros(2, dtype=np.int64)
