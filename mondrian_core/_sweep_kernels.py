"""The linear-algebra kernels of the lifetime sweep and the validation cursor.

Shared by the event walk (:mod:`mondrian_core._sweep_walk`), the online update
(:mod:`mondrian_core._sweep_online`) and the path's predictions
(:mod:`mondrian_core.sweep`): the Cholesky factor on a safe number of BLAS threads, an
unpivoted block LDL^T of the walk's indefinite capacitance matrices, sparse indicators of
points' cells, and the cursor that follows validation points down their paths as the
lifetime grows (Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian
Kernel", Section 4 and Supplement B).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lapack

from mondrian_core._blas import single_blas_thread
from mondrian_core._validation import check_points
from mondrian_core.errors import InputError

if TYPE_CHECKING:
    from mondrian_core.tree_extension import Placement

LOG_2PI = float(np.log(2.0 * np.pi))
#: Factorisations of larger matrices run on one BLAS thread: OpenBLAS's threaded dpotrf
#: crashed the interpreter at 16,000-20,000 (two threads), so half of that with a margin.
SAFE_THREADED_SIDE = 8_000
#: Smallest noise_variance / prior_variance (below it the dual system is singular in floats).
MIN_NOISE_RATIO = 1e-8


def tri_solve(chol, B):
    """``L^{-1} B`` for the lower Cholesky factor ``chol`` (``B`` copied to Fortran order)."""
    out, info = lapack.dtrtrs(chol, np.asfortranarray(B), lower=1)
    return out


def indicator(nodes, alive, n_nodes):
    """Sparse (n, n_nodes) counts of the alive node of each point in each tree."""
    M, n = nodes.shape
    rows = np.broadcast_to(np.arange(n), (M, n))[alive]
    return sp.csr_matrix((np.ones(rows.size), (rows, nodes[alive])), shape=(n, n_nodes))


#: Most entries of a dense copy of a point-cell incidence in :func:`shared_cell_counts`.
DENSE_GRAM_ENTRIES = 2**22


def shared_cell_counts(Psi):
    """``Psi Psi^T`` as a dense array: for each pair of points, the cells they share.

    Integer counts, so exact either way: by a sparse product, whose work is the pairs
    sharing each cell, or (when that is most pairs in most trees, as at a sweep's start,
    where every point is in each tree's root) by one dense BLAS product.
    """
    n, c = Psi.shape
    size = np.bincount(Psi.indices, minlength=c).astype(float)  # points per cell
    if n * c <= DENSE_GRAM_ENTRIES and 8.0 * (size @ size) >= float(n) * n * c:
        P = Psi.toarray()
        return P @ P.T
    return (Psi @ Psi.T).toarray()


def singular_error(s2n, s2p):
    """The error for a ridge system too close to singular to factorise."""
    return InputError(
        f"The noise variance {s2n:g} is too small next to the weight prior variance {s2p:g}: "
        f"the ridge system is numerically singular. Use a noise variance of at least "
        f"{MIN_NOISE_RATIO * s2p:g}.")


def as_rows(X, n_features, name):
    """Points by the one validation layer, C-contiguous (the walks read rows)."""
    return np.ascontiguousarray(check_points(X, name, n_features=n_features))


def node_points(trees, nodes):
    """Flat training-point indices of each node in ``nodes`` and the CSR indptr."""
    lengths = (trees.stop[nodes] - trees.start[nodes]).astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    base = trees.tree[nodes].astype(np.int64) * trees.order.shape[1] + trees.start[nodes]
    flat = np.repeat(base - indptr[:-1], lengths) + np.arange(indptr[-1])
    return trees.order.ravel()[flat], indptr


def cholesky(A):
    """Lower Cholesky factor of ``A``; one BLAS thread above ``SAFE_THREADED_SIDE``."""
    if A.shape[0] > SAFE_THREADED_SIDE:
        with single_blas_thread():
            chol, info = lapack.dpotrf(A, lower=1, clean=1)
    else:
        chol, info = lapack.dpotrf(A, lower=1, clean=1)
    return chol, info


class Clock:
    """Accumulates the seconds between calls under a stage name (no-op without a dict)."""

    def __init__(self, store):
        self.store = store
        self.last = time.perf_counter()

    def __call__(self, name):
        if self.store is not None:
            now = time.perf_counter()
            self.store[name] = self.store.get(name, 0.0) + now - self.last
            self.last = now


def block_ldl(Z, p):
    """Unpivoted block LDL^T of the symmetric (indefinite) ``Z`` with ``p x p`` pivots.

    Returns the unit lower-triangular ``L``, the inverses of the pivots ``D_i`` and
    ``log|det D_i|``. No pivoting is needed: every leading block of ``Z`` is
    non-singular (its system is a positive definite one bordered by independent
    constraints, or one by the determinant lemma). Recursive halving puts the work
    in matrix products; the unblocked loop runs on blocks of at most 16 pivots.
    """
    A = np.array(Z, dtype=float)
    n = A.shape[0]
    b = n // p
    L = np.eye(n, order="F")
    Dinv = np.empty((b, p, p))
    logabs = np.empty(b)
    _ldl_into(A, p, L, Dinv, logabs)
    return L, Dinv, logabs


def _pivot_inverse(d):
    """``(inv(d), log|det d|)`` of a pivot; a 2 x 2 one in closed form (the walk's
    pivots, one per event: LAPACK's per-call overhead was most of the unblocked loop)."""
    if d.shape[0] != 2:
        return np.linalg.inv(d), np.linalg.slogdet(d)[1]
    (a, b), (c, e) = d.tolist()
    det = a * e - b * c
    if det == 0.0 or not np.isfinite(det):  # pragma: no cover - excluded by MIN_NOISE_RATIO
        return np.linalg.inv(d), np.linalg.slogdet(d)[1]
    return np.array([[e / det, -b / det], [-c / det, a / det]]), float(np.log(abs(det)))


def _times_pivot_inverses(W, Dinv, p):
    """``W blockdiag(Dinv)``: each ``p``-column block of ``W`` times its pivot's inverse.
    For 2 x 2 pivots as four scaled columns (a batched einsum over 2 x 2 blocks spends
    its time in per-block overhead)."""
    if p != 2:
        m, h = W.shape
        return np.einsum("mqa,qab->mqb", W.reshape(m, h // p, p), Dinv).reshape(m, h)
    w0, w1 = W[:, 0::2], W[:, 1::2]
    out = np.empty_like(W)
    out[:, 0::2] = w0 * Dinv[:, 0, 0] + w1 * Dinv[:, 1, 0]
    out[:, 1::2] = w0 * Dinv[:, 0, 1] + w1 * Dinv[:, 1, 1]
    return out


def _ldl_into(A, p, L, Dinv, logabs):
    """Block LDL^T of ``A`` (overwritten) into ``L``, ``Dinv``, ``logabs`` (views)."""
    n = A.shape[0]
    b = n // p
    if b <= 16:
        for i in range(b):
            s = slice(p * i, p * i + p)
            d = A[s, s]
            inv, logabs[i] = _pivot_inverse(d)
            Dinv[i] = inv
            if p * i + p < n:
                r = slice(p * i + p, n)
                col = A[r, s]
                low = col @ inv
                L[r, s] = low
                A[r, r] -= low @ col.T
        return
    h = (b // 2) * p
    _ldl_into(A[:h, :h], p, L[:h, :h], Dinv[:h // p], logabs[:h // p])
    # W = A21 L11^{-T} = L21 D1, then L21 = W D1^{-1} and A22 -= L21 W^T
    W = lapack.dtrtrs(L[:h, :h], np.asfortranarray(A[h:, :h].T), lower=1, unitdiag=1)[0].T
    L21 = _times_pivot_inverses(W, Dinv[:h // p], p)
    L[h:, :h] = L21
    A22 = A[h:, h:] - L21 @ W.T
    _ldl_into(A22, p, L[h:, h:], Dinv[h // p:], logabs[h // p:])


class ValCursor:
    """Where each (tree, validation point) pair is on its path, moved forward in time.

    ``depth`` counts the path nodes born so far (>= 1: the root), ``node`` is the
    deepest of them and ``next_birth`` the birth time of the next (inf past the end).
    :meth:`advance` updates only the pairs that move, so following the path costs
    O(pairs) per call plus O(1) per node passed.
    """

    def __init__(self, placement: Placement):
        births, nodes = placement.births, placement.nodes
        M, n, self.levels = births.shape
        self._births, self._nodes = births.reshape(-1), nodes.reshape(-1)
        self.depth = np.ones((M, n), dtype=np.int64)
        self.node = nodes[..., 0].copy()
        self.next_birth = births[..., 1].copy() if self.levels > 1 else np.full((M, n), np.inf)

    def advance(self, time: float) -> np.ndarray:
        """Move every pair to its node at ``time``; return the next birth times."""
        L = self.levels
        while True:
            moving = np.flatnonzero(self.next_birth.reshape(-1) <= time)
            if not moving.size:
                return self.next_birth
            depth = self.depth.reshape(-1)[moving] + 1
            self.depth.reshape(-1)[moving] = depth
            base = moving * L
            self.node.reshape(-1)[moving] = self._nodes[base + depth - 1]
            self.next_birth.reshape(-1)[moving] = np.where(
                depth < L, self._births[base + np.minimum(depth, L - 1)], np.inf)


def val_block(placement, cursor, vals, row_of, times, out, chunk):
    """Validation predictions at each of ``times``, in chunks of ``chunk`` events.

    ``vals[row_of[node], s]`` is the value of cell ``node`` at ``times[s]`` (the sum of a
    point's cells' values over the trees is its prediction). ``cursor`` (a
    :class:`ValCursor`) is advanced to each chunk's start (calls come in increasing
    time); ``chunk`` bounds the dense blocks (the path's ``VAL_CHUNK``).
    """
    for s in range(0, times.size, chunk):
        _val_chunk(placement, cursor, np.ascontiguousarray(vals[:, s:s + chunk]), row_of,
                   times[s:s + chunk], out[s:s + chunk])


def _val_chunk(placement, cursor, vals, row_of, times, out):
    """Validation predictions at each of ``times`` given the cell values ``vals``.

    ``f(v, t) = sum_m [v not branched off by t] * value of v's cell at t in tree m``.
    Pairs (tree, point) whose cell does not change within the chunk go through one
    sparse product; only the few that change are gathered one event at a time.
    """
    t0, t1 = times[0], times[-1]
    b = times.size
    births, nodes_all, branch = placement.births, placement.nodes, placement.branch
    n_levels = births.shape[-1]
    M, n = branch.shape
    nxt = cursor.advance(t0)
    depth0, node0 = cursor.depth, cursor.node  # (M, n)
    dynamic = (nxt <= t1) | ((branch > t0) & (branch <= t1))
    static = ~dynamic & (branch > t1)
    # (point, tree) pairs in point order: the CSR rows directly, with no sort
    vv, mm = np.nonzero(static.T)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(vv, minlength=n), out=indptr[1:])
    P = sp.csr_matrix((np.ones(vv.size), row_of[node0[mm, vv]], indptr),
                      shape=(n, vals.shape[0]))
    acc = P @ vals
    mm, vv = np.nonzero(dynamic)
    if mm.size:
        d0 = depth0[mm, vv]
        depth = np.repeat(d0[:, None], b, axis=1)  # (n_dyn, b)
        for extra in range(n_levels):
            lev = d0 + extra
            ok = lev < n_levels
            nb = np.where(ok, births[mm, vv, np.minimum(lev, n_levels - 1)], np.inf)
            if not (nb <= t1).any():
                break
            depth += nb[:, None] <= times[None, :]
        nd = nodes_all[mm[:, None], vv[:, None], depth - 1]
        alive = branch[mm, vv][:, None] > times[None, :]
        g = np.where(alive, vals[row_of[nd], np.arange(b)], 0.0)
        Q = sp.csr_matrix((np.ones(vv.size), (vv, np.arange(vv.size))), shape=(n, vv.size))
        acc = acc + Q @ g
    out[:] = acc.T
