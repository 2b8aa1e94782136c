"""The event walk of the lifetime sweep: every state's ridge solution, exactly.

Model and notation as in :mod:`mondrian_core.sweep` (Balog, Lakshminarayanan,
Ghahramani, Roy and Teh (2016), "The Mondrian Kernel", Section 4 and Supplement B).

The algorithm (why this one)
----------------------------
All events are known in advance (the trees are sampled to the terminal lifetime
first), so they are handled in blocks, and each block costs one factorisation of
whichever system is smaller at its start.

*Cell space (while C < N).* With ``Psi`` the 0/1 indicators of the ``C`` alive cells
(``Phi = Psi / sqrt(M)``) and ``rho = M noise_variance / prior_variance``, the cell
values ``v = A^{-1} Psi^T y``, ``A = Psi^T Psi + rho I`` (``C x C``), give every
prediction (a point's value is the sum of its cells' values over the trees), and
``y^T S^{-1} y = (y^T y - y^T Psi v) / noise_variance``, ``log det S = N log
noise_variance + log det A - C log rho`` (Woodbury, the determinant lemma). An event
deletes cell ``j`` and adds its children ``a``, ``b``. A block factorises the ``C0 x C0``
matrix ``A0`` of its first state once; the state after its ``k``-th event is ``A0``
bordered, per event, by the children (their overlaps with the base cells and with one
another) and by a Lagrange multiplier holding ``v_j = 0``: a KKT system whose
leading ``3k`` rows are that state. The Schur complement ``Z`` of ``A0`` in it is
formed once per block; an unpivoted 3 x 3 block LDL^T of ``Z`` (its leading blocks are
non-singular: KKT systems of a positive definite matrix with independent constraints)
gives every state's ``log det`` and quadratic form as prefix sums and every state's
``v`` from one triangular solve and one product. Deleting the multiplier rows is exact,
so the states match the dense formulas to rounding. Base cells are ordered by the
event that cuts them (latest first), so the deleted cells' columns are the factor's
last rows, and only the smaller child of each event has its overlaps counted (the
larger child's are the parent's minus the smaller's). Per block: one ``C0^3/3``
Cholesky, ``O(C0^2)`` per event, and no ``N x N`` matrix.

*Dual space (once C >= N).* The same blocks on ``S = prior_variance K + noise_variance
I`` (``N x N``): an event changes ``K`` by ``-(1/M)(1_a 1_b^T + 1_b 1_a^T)``, which is
``(1/2M)(d d^T - p p^T)`` with ``d = 1_a - 1_b`` and ``p = 1_a + 1_b`` (the parent's
indicator): adding ``d`` and then removing ``p`` passes through a positive definite
matrix. The Woodbury identity on ``S`` at the block's start, in these columns, has a
capacitance whose leading blocks are all non-singular, so its LU without row exchanges
(one LAPACK call when partial pivoting exchanges none, else an unpivoted 2 x 2 block
LDL^T) gives every event's ``alpha = S^{-1} y``, ``log det S`` and quadratic form;
``S`` is updated by a rank-2B ``syr2k`` and refactorised per block.

Block sizes are measured, not fixed: after each block the next one has
``sqrt(fixed / quadratic)`` times its events (at most twice as many), where *fixed* is
the time spent per block regardless of its length (the factorisation, rebuilding the
base system) and *quadratic* the time of the parts growing as the square of its length
(the capacitance and its LDL); that minimises ``fixed / B + q B`` per event. The walk
runs on one BLAS thread (:func:`mondrian_core._blas.single_blas_thread`): it is many
mid-sized products and solves, on which threads only contend, and OpenBLAS's threaded
``dpotrf`` crashed the interpreter on 16,000 x 16,000 matrices.

What is kept per event is the cheaper form: the ``C`` cell values in cell space, the
``N`` entries of ``alpha`` in the dual; :attr:`LifetimePath.alphas` expands rows on
demand.
"""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from scipy.linalg import blas, lapack

from mondrian_core._blas import single_blas_thread
from mondrian_core._sweep_kernels import (
    LOG_2PI,
    ValCursor,
    block_ldl,
    cholesky,
    node_points,
    shared_cell_counts,
    singular_error,
    val_block,
)

#: Largest border of a block (``3 x events x side`` floats, ~400 MB), whatever is measured.
MAX_BLOCK_FLOATS = 50_000_000
#: The fewest events per block. The rule of ``_next_block`` reads the capacitance step's
#: time as quadratic in the block, but on small blocks most of it is per-event work, so
#: left alone it settles on small blocks and refactorises often: at N = 300 with 300
#: trees it chose 8 events (about a thousand N x N Cholesky factorisations); 64 took
#: about 40% less time (bench/RESULTS.md, "Server CPU per new link").
MIN_BLOCK = 64


class EventWalk:
    """The event walk: primal (cell space) states while ``C < N``, dual ones after.

    State ``k`` is the model after the first ``k`` events. Per state it records the
    quadratic form ``y^T S^{-1} y``, ``log det S``, the training residual sum of
    squares, the validation RMSE and the solution (cell values ``v`` in the primal
    states, ``alpha`` in the dual ones).
    """

    def __init__(self, trees, events, y, s2n, s2p, placement, y_val, block_size, clock,
                 t_start, val_chunk):
        self.trees, self.events, self.y = trees, events, y
        self.s2n, self.s2p = s2n, s2p
        self.M, self.N, self.E = trees.n_trees, y.size, events.size
        self.rho = self.M * s2n / s2p  # ridge of the cell-space system Psi^T Psi + rho I
        self.placement, self.y_val = placement, y_val
        self.lifetimes = np.concatenate([[0.0], trees.split_time[events]])
        # where each (tree, validation point) is on its path: advanced with time
        self.val_cursor = ValCursor(placement) if placement is not None else None
        self.fixed_block = int(block_size) if block_size else None
        self.clock, self.t_start = clock, t_start
        self.val_chunk = val_chunk  # states per dense block of validation predictions
        E, n_nodes = self.E, trees.parent.shape[0]
        # integer event bookkeeping: cell j is alive in states born[j] .. died[j]
        self.died = np.full(n_nodes, E, dtype=np.int64)
        self.died[events] = np.arange(E)
        self.born = np.zeros(n_nodes, dtype=np.int64)
        kids = trees.parent >= 0
        self.born[kids] = self.died[trees.parent[kids]] + 1
        self.n_pts = (trees.stop - trees.start).astype(float)
        ycum = np.zeros((self.M, self.N + 1))
        np.cumsum(y[trees.order], axis=1, out=ycum[:, 1:])
        self.ysum = ycum[trees.tree, trees.stop] - ycum[trees.tree, trees.start]
        self.yty = float(y @ y)
        # states 0 .. n_primal-1 are solved in cell space (C_k = M + k < N)
        self.n_primal = int(min(max(self.N - self.M, 0), E + 1))
        self.quad = np.empty(E + 1)    # y^T S^{-1} y
        self.logdet = np.empty(E + 1)  # log det S
        self.rss = np.empty(E + 1)     # training residual sum of squares
        self.val_rmse = np.full(E + 1, np.nan)
        self.seconds = np.empty(E + 1)
        self.offsets = np.concatenate([[0], np.cumsum(self.M + np.arange(self.n_primal))])
        self.v_flat = np.empty(int(self.offsets[-1]))
        self.alpha_dual = np.empty((E + 1 - self.n_primal, self.N))
        # (N, M): each point's cell per tree at the current block start
        # (int32: gathers of it are the sweep's main memory traffic at large N)
        self.point_cell = np.repeat(np.asarray(trees.roots, dtype=np.int32)[None, :], self.N,
                                    axis=0)

    # ------------------------------------------------------------------ common
    def _alive(self, nodes, states):
        """(len(states), len(nodes)) mask: node alive in state."""
        s = np.asarray(states)[:, None]
        return (self.born[nodes] <= s) & (s <= self.died[nodes])

    def _advance(self, kids):
        """Move each tree's points to the children of the events (in event order)."""
        pts, indptr = node_points(self.trees, kids)
        owner = np.repeat(kids, np.diff(indptr))
        self.point_cell[pts, self.trees.tree[owner]] = owner

    def _validate(self, vals, row_of, states):
        if self.placement is None:
            return
        times = self.lifetimes[np.asarray(states)]
        pred = np.empty((len(states), self.y_val.size))
        val_block(self.placement, self.val_cursor, vals, row_of, times, pred,
                  self.val_chunk)
        self.val_rmse[states] = np.sqrt(np.mean((pred - self.y_val) ** 2, axis=1))

    def _next_block(self, k, last, b, fixed, quadratic, side):
        """Events in the next block: measured, ``sqrt(fixed cost / quadratic cost per b^2)``.

        Per event a block of ``b`` costs about ``fixed / b + q b`` (the factorisation
        at its start is shared; the capacitance and its LDL grow as ``b^2``), which is
        least at ``b = sqrt(fixed / q)``, at least ``MIN_BLOCK``; blocks grow by at most
        2x per block while the measurements settle. The block's border
        (``side x 3b`` floats) stays under ``MAX_BLOCK_FLOATS``.
        """
        if self.fixed_block:
            b_new = self.fixed_block
        elif b == 0:
            b_new = MIN_BLOCK
        else:
            q = max(quadratic, 1e-6) / b ** 2
            b_new = int(np.clip(np.sqrt(max(fixed, 1e-6) / q), MIN_BLOCK, 2 * b))
        b_new = min(b_new, max(8, MAX_BLOCK_FLOATS // (3 * side)))
        return int(max(1, min(b_new, last - k)))

    # ------------------------------------------------------------------ primal
    def run(self, progress=None):
        # one BLAS thread: the walk is many mid-sized products and solves, on which
        # threads only contend (20x slower on a loaded 2-core machine), and no threaded
        # dpotrf can crash on a large system
        with single_blas_thread():
            if self.n_primal > 0:
                self._primal(progress)
            if self.n_primal <= self.E:
                self._dual(progress)

    def _primal(self, progress):
        trees, M, N, E, rho, clock = self.trees, self.M, self.N, self.E, self.rho, self.clock
        left, right = trees.left, trees.right
        n_nodes = trees.parent.shape[0]
        # base cells ordered by the event that cuts them, latest first: the cells a block
        # deletes are then the last rows of the factor, where solves against them are cheap
        cells = np.asarray(trees.roots, dtype=np.int64)
        cells = cells[np.lexsort((cells, -self.died[cells]))]
        A = np.full((M, M), float(N))  # Psi^T Psi: every point is in every root
        A[np.diag_indices(M)] += rho
        last = self.n_primal - 1  # last primal state
        k, b = 0, 0
        t_fixed = t_quad = t_psi = 0.0
        while True:
            t0 = time.perf_counter()
            C0 = cells.size
            chol, info = cholesky(A)
            if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
                raise singular_error(self.s2n, self.s2p)
            b0 = self.ysum[cells]
            z0 = lapack.dtrtrs(chol, b0, lower=1)[0]
            a0 = lapack.dtrtrs(chol, z0, lower=1, trans=1)[0]
            qp0 = float(b0 @ a0)
            ld0 = 2.0 * np.log(np.diag(chol)).sum()
            self._store_primal(k, qp0, ld0, a0, C0)
            self.v_flat[self.offsets[k]:self.offsets[k + 1]] = a0[np.argsort(cells)]
            clock("cholesky")
            pos = np.full(n_nodes, -1, dtype=np.int64)
            pos[cells] = np.arange(C0)
            self._validate(a0[:, None], pos, [k])
            self.seconds[k] = time.perf_counter() - self.t_start
            clock("validation")
            t_fixed = time.perf_counter() - t0
            if k == last:
                break
            b = self._next_block(k, last, b, t_fixed + t_psi, t_quad, C0)
            blk = self.events[k:k + b]
            kids = np.empty(2 * b, dtype=np.int64)
            kids[0::2], kids[1::2] = left[blk], right[blk]
            Gk, Qk = self._kid_overlaps(A, pos, blk, kids)  # Psi0^T Psi_k, Psi_k^T Psi_k
            Qk[np.diag_indices(2 * b)] += rho
            clock("overlaps")
            Q, g, kid_rows, base, inner, r_in = self._border(pos, blk, kids, Qk)
            t_mid = time.perf_counter()
            T, Vt_V, Vt_z, prim = self._border_gram(chol, A, Gk, z0, b0, pos[blk], base, inner,
                                                    r_in)
            Z = T.T @ (T.T @ Q).T - Vt_V  # Schur complement of A0, new border coordinates
            dq, logabs, Xn = _prefix_solutions(Z, T.T @ g - Vt_z, 3)
            t_quad = time.perf_counter() - t_mid
            clock("capacitance LDL")
            Xk = T @ Xn  # border solutions in the original coordinates
            W0 = a0[:, None] - lapack.dtrtrs(chol, np.asfortranarray(prim(Xn)), lower=1,
                                             trans=1)[0]
            univ = np.concatenate([cells, kids])
            vals = np.vstack([W0, Xk[kid_rows]])  # (C0 + 2b, b): every universe cell
            states = np.arange(k + 1, k + b + 1)
            alive = self._alive(univ, states)  # (b, C0 + 2b)
            vals *= alive.T  # cells not alive in a state hold 0 (constraint or unborn)
            clock("alpha")
            order = np.argsort(univ)
            stored = vals[order].T[alive[:, order]]
            self.v_flat[self.offsets[k + 1]:self.offsets[k + b + 1]] = stored
            qp = qp0 + np.cumsum(dq)
            ld = ld0 + np.cumsum(logabs)
            vv = np.einsum("ij,ij->j", vals, vals)
            for s in range(b):
                self._store_primal(k + 1 + s, qp[s], ld[s], None, M + k + 1 + s, vv[s])
            pos_u = np.full(n_nodes, -1, dtype=np.int64)
            pos_u[univ] = np.arange(univ.size)
            self._validate(vals, pos_u, states)
            self.seconds[k + 1:k + b + 1] = time.perf_counter() - self.t_start
            clock("validation")
            t_upd = time.perf_counter()
            A, cells = self._next_base(A, Gk, Qk, univ, alive[-1])
            t_psi = time.perf_counter() - t_upd  # a per-block cost, like the factorisation
            clock("update A")
            k += b
            if progress is not None:
                progress(k / max(E, 1))

    def _border(self, pos, blk, kids, Qk):
        """The block's border in its coordinates, per event ``i`` (multiplier of cell
        ``j_i = 0``, child a, child b): the matrix ``Q`` (children's overlaps plus the
        constraints), the right-hand side ``g``, the border row of each child, and the
        events whose cell is a base cell or (``inner``) a child made earlier in the
        block, with that child's row ``r_in``."""
        b = blk.size
        in_base = pos[blk] >= 0
        Q = np.zeros((3 * b, 3 * b))
        q = np.arange(2 * b)
        kid_rows = 3 * (q // 2) + 1 + q % 2  # border row of kids[q]
        Q[np.ix_(kid_rows, kid_rows)] = Qk
        kid_pos = np.full(self.trees.parent.shape[0], -1, dtype=np.int64)
        kid_pos[kids] = np.arange(2 * b)
        inner = np.flatnonzero(~in_base)  # cell j_i is a child made earlier in the block
        base = np.flatnonzero(in_base)
        r_in = kid_rows[kid_pos[blk[inner]]]
        Q[3 * inner, r_in] = Q[r_in, 3 * inner] = 1.0
        g = np.zeros(3 * b)
        g[kid_rows] = self.ysum[kids]
        return Q, g, kid_rows, base, inner, r_in

    def _next_base(self, A, Gk, Qk, univ, alive):
        """The next block's base: the system of the block's cells (base cells, then its
        children) restricted to those ``alive`` at its last state, ordered by the event
        that cuts them (latest first)."""
        C0 = A.shape[0]
        keep = np.flatnonzero(alive)
        keep = keep[np.lexsort((univ[keep], -self.died[univ[keep]]))]
        Au = np.empty((univ.size, univ.size))
        Au[:C0, :C0], Au[:C0, C0:], Au[C0:, :C0] = A, Gk, Gk.T
        Au[C0:, C0:] = Qk
        return Au.take(keep, axis=0).take(keep, axis=1), univ[keep]

    def _kid_overlaps(self, A, pos, blk, kids):
        """``Psi0^T Psi_k`` and ``Psi_k^T Psi_k`` for the block's children ``k``.

        Only the smaller child of each event is counted: one ``bincount`` of its points'
        cells at the block's end (moving the points there), summed up from children to
        the cells they split (latest event first) to give its points in every base cell
        and every child. The larger child's counts are its parent's minus the smaller
        one's: ``Psi0^T 1_j = A0[:, j] - rho e_j`` for a base cell ``j``, the counts of
        ``j`` for a child made earlier in the block. All are integers: exact.
        """
        C0, b = A.shape[0], blk.size
        ii = np.arange(b)
        self._advance(kids)
        upos = pos.astype(np.int32)  # rows: base cells, then the children (small: cached)
        upos[kids] = C0 + np.arange(2 * b)
        sizes = self.n_pts[kids].reshape(b, 2)
        small = (sizes[:, 1] < sizes[:, 0]).astype(np.int64)
        q_small, q_other = 2 * ii + small, 2 * ii + 1 - small
        pts, indptr = node_points(self.trees, kids[q_small])
        cells = upos[self.point_cell[pts]]  # (n, M): each point's cell at the block's end
        cells *= b
        cells += np.repeat(ii, np.diff(indptr)).astype(np.int32)[:, None]
        cnt = np.bincount(cells.ravel(), minlength=(C0 + 2 * b) * b)
        cnt = cnt.reshape(C0 + 2 * b, b).astype(float)
        for i in range(b - 1, -1, -1):
            cnt[upos[blk[i]]] = cnt[C0 + 2 * i] + cnt[C0 + 2 * i + 1]
        Gk = np.empty((C0, 2 * b))
        Qk = np.empty((2 * b, 2 * b))
        Gk[:, q_small], Qk[:, q_small] = cnt[:C0], cnt[C0:]
        base = np.flatnonzero(pos[blk] >= 0)
        pj = pos[blk[base]]
        Gk[:, q_other[base]] = A[:, pj] - Gk[:, q_small[base]]
        Gk[pj, q_other[base]] -= self.rho
        inner = np.flatnonzero(pos[blk] < 0)  # j is a child made earlier in the block
        for i in inner:  # in event order
            Gk[:, q_other[i]] = Gk[:, upos[blk[i]] - C0] - Gk[:, q_small[i]]
        Qk[:, q_other[base]] = Gk[pj].T - Qk[:, q_small[base]]
        for i in inner:
            Qk[:, q_other[i]] = Qk[:, upos[blk[i]] - C0] - Qk[:, q_small[i]]
        return Gk, Qk

    def _border_gram(self, chol, A, Gk, z0, b0, pos_j, base, inner, r_in):
        """``V^T V`` and ``V^T z0`` of the border, ``V = L^{-1} G``, in cheaper coordinates.

        The border of event ``i`` is (multiplier of ``j_i``, child a, child b). A unit
        upper-triangular change ``T`` of these coordinates (it keeps every leading block,
        every determinant and every quadratic form) replaces child b's column: for a
        base cell ``j`` by ``G_b + G_a + rho e_j = A0 e_j``, whose ``L^{-1}`` image is
        ``L^T e_j``; for a child ``j`` made earlier in the block by ``G_b + G_a - G_j =
        0``. Then only the children ``a`` need a full triangular solve, and the Gram
        entries with ``L^T e_j`` are known: ``(L^T e_j)^T L^{-1} x = x_j``, ``(L^T
        e_j)^T L^T e_k = A0[j, k]``. The multiplier columns ``L^{-1} e_j`` are zero above
        ``j``'s row (near the end: base cells are ordered by when they are cut).

        Returns ``T`` (sparse, new -> original coordinates), ``V'^T V'``, ``V'^T z0`` and
        a function giving ``V' X`` for border solutions ``X`` in the new coordinates.
        """
        C0, b = chol.shape[0], Gk.shape[1] // 2
        rho = self.rho
        nb = base.size
        ia, ic, i3 = 3 * np.arange(b) + 1, 3 * base, 3 * base + 2
        rows = np.concatenate([np.arange(3 * b), ic, ic + 1, 3 * inner + 1, r_in])
        cols = np.concatenate([np.arange(3 * b), i3, i3, 3 * inner + 2, 3 * inner + 2])
        data = np.concatenate([np.ones(3 * b), np.full(nb, rho), np.ones(nb),
                               np.ones(inner.size), -np.ones(inner.size)])
        T = sp.csr_matrix((data, (rows, cols)), shape=(3 * b, 3 * b))
        Va = lapack.dtrtrs(chol, np.asfortranarray(Gk[:, 0::2]), lower=1)[0]
        gram = np.zeros((3 * b, 3 * b))
        gram[np.ix_(ia, ia)] = Va.T @ Va
        vz = np.zeros(3 * b)
        vz[ia] = Va.T @ z0
        pj = pos_j[base]
        p = int(pj.min()) if nb else C0
        Vc = np.zeros((C0 - p, nb), order="F")
        if nb:
            Vc[pj - p, np.arange(nb)] = 1.0
            Vc = lapack.dtrtrs(chol[p:, p:], Vc, lower=1)[0]
            gram[np.ix_(ic, ic)] = Vc.T @ Vc
            gram[np.ix_(ic, ia)] = Vc.T @ Va[p:]
            gram[np.ix_(ia, ic)] = gram[np.ix_(ic, ia)].T
            gram[ic, i3] = gram[i3, ic] = 1.0
            gram[np.ix_(ia, i3)] = Gk[pj][:, 0::2].T
            gram[np.ix_(i3, ia)] = Gk[pj][:, 0::2]
            gram[np.ix_(i3, i3)] = A[np.ix_(pj, pj)]
            vz[ic] = Vc.T @ z0[p:]
            vz[i3] = b0[pj]
        R = chol[pj, :].T  # L^T e_j, (C0, nb)

        def prim(X):
            out = Va @ X[ia] + R @ X[i3]
            out[p:] += Vc @ X[ic]
            return out

        return T, gram, vz, prim

    def _store_primal(self, k, qp, ld, v, C, vv=None):
        """Quadratic form, log det S and RSS of primal state ``k`` from cell-space numbers.

        With ``A = Psi^T Psi + rho I`` (``Psi`` the 0/1 cell indicators), ``b = Psi^T y``
        and ``v = A^{-1} b``: ``y^T S^{-1} y = (y^T y - b^T v) / s2n``, ``log det S =
        N log s2n + log det A - C log rho`` and ``||y - Psi v||^2 = y^T y - b^T v -
        rho ||v||^2`` (Woodbury and the determinant lemma).
        """
        if vv is None:
            vv = float(v @ v)
        self.quad[k] = (self.yty - qp) / self.s2n
        self.logdet[k] = self.N * np.log(self.s2n) + ld - C * np.log(self.rho)
        self.rss[k] = max(self.yty - qp - self.rho * vv, 0.0)

    # ------------------------------------------------------------------ dual
    def _dual(self, progress):
        trees, M, N, E, clock = self.trees, self.M, self.N, self.E, self.clock
        s2n, s2p = self.s2n, self.s2p
        k = self.n_primal
        if k > 0:
            self._advance(np.concatenate([trees.left[self.events[k - 1:k]],
                                          trees.right[self.events[k - 1:k]]]))
        left, right = trees.left, trees.right
        n_nodes = trees.parent.shape[0]
        cells = np.flatnonzero((self.born <= k) & (k <= self.died))
        pos = np.full(n_nodes, -1, dtype=np.int64)
        pos[cells] = np.arange(cells.size)
        Psi = sp.csr_matrix((np.ones(N * M), pos[self.point_cell].ravel(),
                             np.arange(0, N * M + 1, M)), shape=(N, cells.size))
        S = np.asfortranarray(shared_cell_counts(Psi) * (s2p / M))
        S[np.diag_indices(N)] += s2n
        clock("dual start")
        gamma = 2.0 * M / s2p  # the capacitance's diagonal, C^{-1} = gamma diag(1, -1)
        log_detC = 2.0 * np.log(s2p / (2.0 * M))
        b = 0
        t_quad = 0.0
        while True:
            t0 = time.perf_counter()
            chol, info = cholesky(S)
            if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
                raise singular_error(s2n, s2p)
            z0 = lapack.dtrtrs(chol, self.y, lower=1)[0]
            a0 = lapack.dtrtrs(chol, z0, lower=1, trans=1)[0]
            self._store_dual(k, float(self.y @ a0), 2.0 * np.log(np.diag(chol)).sum(), a0)
            clock("cholesky")
            self._validate_dual(a0[:, None], [k])
            self.seconds[k] = time.perf_counter() - self.t_start
            clock("validation")
            t_fixed = time.perf_counter() - t0
            if k == E:
                break
            b = self._next_block(k, E, b, t_fixed, t_quad, N)
            blk = self.events[k:k + b]
            kids = np.empty(2 * b, dtype=np.int64)
            kids[0::2], kids[1::2] = left[blk], right[blk]
            pts, indptr = node_points(trees, kids)
            U = np.zeros((N, 2 * b), order="F")
            U[pts, np.repeat(np.arange(2 * b), np.diff(indptr))] = 1.0
            clock("indicators")
            V = lapack.dtrtrs(chol, U, lower=1)[0]  # L^{-1} U
            t_mid = time.perf_counter()
            # per event the columns (1_a - 1_b, 1_a + 1_b): the same update as
            # (s2p / 2M) diag(1, -1), each state reached through a positive definite one
            W = np.empty_like(V, order="F")
            np.subtract(V[:, 0::2], V[:, 1::2], out=W[:, 0::2])
            np.add(V[:, 0::2], V[:, 1::2], out=W[:, 1::2])
            Z = W.T @ W  # W^T S_0^{-1} W in the new columns
            Z[np.diag_indices(2 * b)] += np.tile([gamma, -gamma], b)
            u = W.T @ z0  # W^T S_0^{-1} y
            dq, logabsdet, Xk = _prefix_solutions_unpivoted(Z, u)
            t_quad = time.perf_counter() - t_mid
            clock("capacitance LDL")
            # alpha_k = alpha_0 - S_0^{-1} (U T) x_k = alpha_0 - L^{-T} (W x_k)
            alph = a0[:, None] - lapack.dtrtrs(chol, np.asfortranarray(W @ Xk), lower=1,
                                               trans=1)[0]
            q0, ld0 = self.quad[k], self.logdet[k]
            ld = ld0 + np.cumsum(logabsdet + log_detC)
            qd = q0 - np.cumsum(dq)
            self._store_dual(slice(k + 1, k + b + 1), qd, ld, alph.T)
            clock("alpha")
            states = np.arange(k + 1, k + b + 1)
            self._validate_dual(alph, states)
            self.seconds[k + 1:k + b + 1] = time.perf_counter() - self.t_start
            clock("validation")
            # S <- S - (s2p/M) sum_i (1_a 1_b^T + 1_b 1_a^T), lower triangle only
            S = blas.dsyr2k(-s2p / M, np.asfortranarray(U[:, 0::2]),
                            np.asfortranarray(U[:, 1::2]), beta=1.0, c=S, lower=1,
                            overwrite_c=1)
            clock("update S")
            k += b
            if progress is not None:
                progress(k / E)

    def _store_dual(self, k, quad, logdet, alpha):
        """Store state ``k`` (an index, or a slice of states with ``alpha`` a row each)."""
        self.quad[k], self.logdet[k] = quad, logdet
        self.rss[k] = self.s2n ** 2 * np.einsum("...i,...i->...", alpha, alpha)
        rows = (slice(k.start - self.n_primal, k.stop - self.n_primal) if isinstance(k, slice)
                else k - self.n_primal)
        self.alpha_dual[rows] = alpha

    def _validate_dual(self, alph, states):
        """Validation RMSE of dual states: cell values ``v = (s2p/M) sum of alpha``."""
        if self.placement is None:
            return
        states = np.asarray(states)
        nodes = np.flatnonzero((self.born <= states[-1]) & (states[0] <= self.died))
        pts, indptr = node_points(self.trees, nodes)
        A = sp.csr_matrix((np.ones(pts.size), pts, indptr), shape=(nodes.size, self.N))
        row_of = np.full(self.trees.parent.shape[0], -1, dtype=np.int64)
        row_of[nodes] = np.arange(nodes.size)
        # cell values chunk by chunk: each a C-ordered block for the chunk's products
        for s in range(0, states.size, self.val_chunk):
            part = np.ascontiguousarray(alph[:, s:s + self.val_chunk])
            self._validate((A @ part) * (self.s2p / self.M), row_of, states[s:s + self.val_chunk])

    # ------------------------------------------------------------------ results
    def train_rmse(self):
        return np.sqrt(self.rss / self.N)

    def log_marginal_likelihood(self):
        return -0.5 * self.quad - 0.5 * self.logdet - 0.5 * self.N * LOG_2PI

    def solutions(self, lifetimes):
        return Solutions(self.trees, self.y, self.s2n, self.s2p, lifetimes, self.born,
                          self.died, self.n_primal, self.offsets, self.v_flat,
                          self.alpha_dual)


class Solutions:
    """``alphas`` of a path, kept in the cheaper of two forms and expanded on demand.

    Primal states (``C_k < N``) keep the ``C_k`` cell values ``v`` (the prediction at a
    point is the sum over trees of its cells' values; ``alpha = (y - Psi v) / s2n``),
    dual states the ``N`` entries of ``alpha`` (``v = (s2p / M)`` times the sum of
    ``alpha`` over a cell's points). Indexing returns rows of the ``(E+1, N)`` matrix
    ``alpha``.
    """

    def __init__(self, trees, y, s2n, s2p, lifetimes, born, died, n_primal, offsets, v_flat,
                 alpha_dual):
        self.trees, self.y, self.s2n, self.s2p = trees, y, s2n, s2p
        self.lifetimes, self.born, self.died = lifetimes, born, died
        self.n_primal, self.offsets = n_primal, offsets
        self.v_flat, self.alpha_dual = v_flat, alpha_dual

    @property
    def shape(self):
        return (self.lifetimes.size, self.y.size)

    def __len__(self):
        return self.lifetimes.size

    @property
    def ndim(self):
        return 2

    def __array__(self, dtype=None, copy=None):
        out = np.stack([self.alpha(c) for c in range(len(self))])
        return out if dtype is None else out.astype(dtype)

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            return self.alpha(int(key))
        if isinstance(key, tuple):
            return self[key[0]][key[1:]] if len(key) > 1 else self[key[0]]
        rows = np.arange(len(self))[key]
        return np.stack([self.alpha(int(c)) for c in rows]) if rows.ndim else self.alpha(rows)

    def cells(self, c):
        """Node ids of the cells alive in state ``c`` (ascending)."""
        return np.flatnonzero((self.born <= c) & (c <= self.died))

    def cell_values(self, c):
        """``(nodes, v)``: the alive cells of state ``c`` and their values."""
        c = int(c) % len(self)
        nodes = self.cells(c)
        if c < self.n_primal:
            return nodes, self.v_flat[self.offsets[c]:self.offsets[c + 1]]
        alpha = self.alpha_dual[c - self.n_primal]
        train = self.trees.nodes_at(self.lifetimes[c])
        sums = np.bincount(train.ravel(), weights=np.tile(alpha, self.trees.n_trees),
                           minlength=self.trees.parent.shape[0])
        return nodes, sums[nodes] * (self.s2p / self.trees.n_trees)

    def node_values(self, c):
        """Cell values of state ``c`` in an array indexed by node id (0 elsewhere)."""
        nodes, v = self.cell_values(c)
        full = np.zeros(self.trees.parent.shape[0])
        full[nodes] = v
        return full

    def alpha(self, c):
        c = int(c) % len(self)
        if c >= self.n_primal:
            return self.alpha_dual[c - self.n_primal]
        fitted = self.node_values(c)[self.trees.nodes_at(self.lifetimes[c])].sum(axis=0)
        return (self.y - fitted) / self.s2n


def _prefix_solutions(Z, c, p):
    """Every leading system of the block-bordered ``Z`` at once.

    With the unpivoted block LDL^T of ``Z`` (``p x p`` pivots, one per event), the
    leading ``p k`` rows of ``Z x = c`` are the state after ``k`` events: returns the
    per-event decrements of the quadratic form ``c^T Z^{-1} c`` (``dq``), the pivots'
    ``log|det|`` (their prefix sums are the states' log-determinants) and the states'
    solutions ``x_k`` as the columns of cumulative sums of ``L^{-T} blockdiag(beta)``.
    """
    b = Z.shape[0] // p
    ii = np.arange(b)
    L, Dinv, logabs = block_ldl(Z, p)
    ct = lapack.dtrtrs(L, c, lower=1, unitdiag=1)[0]
    beta = np.einsum("iab,ib->ia", Dinv, ct.reshape(b, p))
    dq = np.einsum("ia,ia->i", ct.reshape(b, p), beta)
    Bmat = np.zeros((p * b, b), order="F")
    for a in range(p):
        Bmat[p * ii + a, ii] = beta[:, a]
    return dq, logabs, np.cumsum(lapack.dtrtrs(L, Bmat, lower=1, trans=1, unitdiag=1)[0],
                                 axis=1)


def _prefix_solutions_unpivoted(Z, c):
    """Return what :func:`_prefix_solutions` does (``p = 2``) from one LU of ``Z``.

    Every leading block of the dual's capacitance in the columns ``(1_a - 1_b, 1_a +
    1_b)`` of each event is non-singular (each is a positive definite state's), so its
    LU without row exchanges exists; when LAPACK's partial pivoting exchanges no row it
    is that LU (and ``|L| <= 1``: as stable as the pivoted one), with no Python per
    event. The leading determinants are the prefix products of ``U``'s diagonal, the
    quadratic form's decrements ``ct_i^2 / u_ii`` with ``ct = L^{-1} c``, and the
    leading ``m`` rows' solution is ``U^{-1}`` times ``ct`` with its entries past ``m``
    zeroed; summed per event (pairs of pivots). If LAPACK exchanged rows: the 2 x 2
    block LDL^T.
    """
    lu, piv, info = lapack.dgetrf(Z)
    if info != 0 or np.any(piv != np.arange(piv.size)):
        return _prefix_solutions(Z, c, 2)
    d = np.diag(lu)
    ct = lapack.dtrtrs(lu, c, lower=1, unitdiag=1)[0]
    m = ct * ct / d
    # x_k = U^{-1} (ct with its entries past event k's zeroed): one solve for all k
    n = ct.size
    B = np.where(np.arange(n)[:, None] <= np.arange(1, n, 2), ct[:, None], 0.0)
    X = lapack.dtrtrs(lu, B)[0]
    return m[0::2] + m[1::2], np.log(np.abs(d[0::2] * d[1::2])), X
