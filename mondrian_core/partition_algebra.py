"""Matrix-free algebra of m-approximate random partition kernels.

With m partitions rho_1..rho_m of N points, K_rho[i, j] = I[rho(i) = rho(j)] and
the m-approximate kernel is K = (1/m) sum_r K_rho_r (Davies and Ghahramani 2014,
Section 3.3). Everything here costs O(mN) time and memory; no N x N matrix is formed.

- ``K v``: per partition, the sums of v within clusters (``np.bincount``), read
  back at every point (their Eq. 8), averaged over partitions.
- ``(K_rho + s I)^{-1} v`` in closed form. K_rho is block diagonal with all-ones
  blocks J_c (n_c x n_c), and by Sherman-Morrison

      (J_c + s I)^{-1} = (1/s) (I - J_c / (s + n_c)),

  i.e. ((K_rho + s I)^{-1} v)_i = (1/s) (v_i - sum_{j in rho(i)} v_j / (s + |rho(i)|)).
  (The paper's Eq. 10 prints the second term without the factor 1/s; that is
  only right for s = 1.)

The preconditioner, and the scaling we settled on
-------------------------------------------------
The systems solved are A = K + s I with K = (1/m) sum_r K_rho and s the noise
variance. Since A = (1/m) sum_r (K_rho + s I) is the *average* of the
per-partition systems, the consistent approximate inverse is the average of
their inverses,

    B = (1/m) sum_r (K_rho + s I)^{-1},        with sigma = s (the noise variance).

Why this scaling: (i) if all partitions coincide, B = A^{-1} exactly; (ii) the
matrix inverse is operator convex, so B >= A^{-1} (in the Loewner order), hence
every eigenvalue of B A is >= 1; on vectors that sum to zero within every
cluster of every partition, B A = I exactly, so only the (at most C = total
clusters) cluster-indicator directions carry eigenvalues above 1. Without it the
spectrum of A runs from s up to ~(largest cluster sizes)/1, i.e. kappa(A) ~ N/s.

The paper's B = m sum_r (K_rho + sigma I)^{-1} is m**2 times ours (for a matrix
normalised by 1/m); preconditioned CG is invariant to a positive scalar factor
on B, so that factor only matters where B is used as an approximate inverse
(e.g. a starting guess B y or a Richardson step), where m**2 B would be wildly
off. What does matter for CG is sigma: the paper's "small constant to ensure
invertibility" makes B ~ (1/sigma) I on the complement above, so B A is no longer
the identity there and the iteration count grows; sigma = s is the right choice
(``tests/test_gp.py`` checks that the iterations drop with sigma = s on the page's
systems, and that a much smaller sigma does worse).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from mondrian_core._blas import single_blas_thread
from mondrian_core._docstrings import docfiller, params, sections
from mondrian_core._threads import thread_map
from mondrian_core._validation import check_n_jobs
from mondrian_core.errors import InputError


def _labels(labels, name):
    """Integer cluster labels (whole numbers, within int64), else an InputError."""
    try:
        array = np.asarray(labels)
        as_int = array.astype(np.int64)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be an integer array of cluster labels.") from None
    if array.dtype.kind not in "biu" and not (array.dtype.kind == "f"
                                              and np.array_equal(as_int, array)):
        raise InputError(f"{name} must hold whole numbers (cluster labels), got "
                         f"{array.dtype} values.")
    return as_int

__all__ = ["PartitionAlgebra"]

#: Fewest points per block of the threaded products (smaller blocks cost more in
#: thread hand-offs than they save).
_MIN_BLOCK_ROWS = 20_000


class PartitionAlgebra:
    """O(mN) products with an m-approximate partition kernel on fixed points.

    Parameters
    ----------
    labels : ndarray of int, shape (m, N)
        ``labels[r, i]`` is the cluster of point i in partition r (any integers;
        only equality within a row matters).
    n_jobs : int, default=1
        Threads for the products with the cluster indicators (blocks of points in
        parallel); results do not depend on it beyond rounding of the cluster sums.

    Attributes
    ----------
    m, n : int
        The number of partitions and of points.
    ids : ndarray of int, shape (m, N)
        Global cluster ids in ``[0, n_clusters)``.
    n_clusters : int
        The number of (partition, cluster) pairs holding at least one point.
    sizes : ndarray of int, shape (n_clusters,)
        The number of points in each cluster.
    cluster_keys : ndarray of int, shape (n_clusters,)
        Sorted keys ``offset[r] + label - min_label[r]`` (used by :meth:`lookup` to
        place new points).

    Raises
    ------
    InputError
        If ``labels`` is not a non-empty 2-D integer array.

    References
    ----------
    Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for big
    data from random partitions", sec. 3.3.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import PartitionAlgebra
    >>> labels = np.array([[0, 0, 1], [0, 1, 1]])  # two partitions of three points
    >>> algebra = PartitionAlgebra(labels)
    >>> algebra.kernel_matmat(np.eye(3))  # the fraction of partitions two points share
    array([[1. , 0.5, 0. ],
           [0.5, 1. , 0.5],
           [0. , 0.5, 1. ]])
    """

    def __init__(self, labels: np.ndarray, n_jobs: int = 1):
        self.n_jobs = check_n_jobs(n_jobs)
        labels = _labels(labels, "labels")
        if labels.ndim != 2 or labels.shape[0] == 0 or labels.shape[1] == 0:
            raise InputError("labels must be a non-empty (m, N) integer array: one row of "
                             "cluster labels per partition, one column per point.")
        self.m, self.n = labels.shape
        # key(r, l) = offset[r] + (l - row_min[r]): one integer per (partition, label)
        self._row_min = labels.min(axis=1)
        self._row_range = labels.max(axis=1) - self._row_min + 1
        self._offsets = np.concatenate(([0], np.cumsum(self._row_range)[:-1]))
        keys = labels - (self._row_min - self._offsets)[:, None]
        total = int(self._row_range.sum())
        if total <= 4 * labels.size + 1024:
            # labels in compact ranges (Fast Cluster, forests): O(mN), no sort
            counts = np.bincount(keys.ravel(), minlength=total)
            present = counts > 0
            id_type = np.int32 if total < 2**31 else np.int64  # ids read by every product
            self._dense_map = (np.cumsum(present) - 1).astype(id_type)
            self._dense_map[~present] = -1
            self.cluster_keys = np.flatnonzero(present)
            # every label used (the usual case): keys are the ids already
            self.ids = keys.astype(id_type) if present.all() else self._dense_map[keys]
            self.sizes = counts[present]
        else:  # scattered labels (e.g. global node ids): sort once
            self._dense_map = None
            self.cluster_keys, inverse = np.unique(keys, return_inverse=True)
            self.ids = inverse.reshape(self.m, self.n)
            self.sizes = None
        self.n_clusters = len(self.cluster_keys)
        if self.n_clusters < 2**31 and self.ids.dtype != np.int32:
            self.ids = self.ids.astype(np.int32)  # half the memory traffic of every product
        if self.sizes is None:
            self.sizes = np.bincount(self.ids.ravel(), minlength=self.n_clusters)
        self._flat = self.ids.ravel()
        # clusters are numbered partition by partition: partition r owns ids
        # [part_start[r], part_start[r + 1])
        part_of_cluster = np.searchsorted(self._offsets, self.cluster_keys, side="right") - 1
        self.part_start = np.searchsorted(part_of_cluster, np.arange(self.m + 1))
        self._Phi = None
        self._row_blocks = None

    # ------------------------------------------------------------- products
    def cluster_sums(self, v: np.ndarray) -> np.ndarray:
        """Return the sum of ``v`` within every cluster (``Phi^T v``, Phi the indicators).

        Parameters
        ----------
        v : array-like of shape (N,)
            A vector over the points.

        Returns
        -------
        ndarray of shape (n_clusters,)
            The sums.
        """
        v = np.asarray(v, dtype=np.float64).ravel()
        return np.bincount(self._flat, weights=np.tile(v, self.m), minlength=self.n_clusters)

    @docfiller({"vector": params(cluster_sums.__doc__, "v", section=True)})
    def kernel_matvec_bincount(self, v: np.ndarray) -> np.ndarray:
        """Return ``K v`` by Eq. 8 literally: cluster sums by ``np.bincount``, read back.

        %(vector)s

        Returns
        -------
        ndarray of shape (N,)
            ``K v``.
        """
        sums = self.cluster_sums(v)
        return sums[self.ids].sum(axis=0) / self.m

    @docfiller({"same": sections(kernel_matvec_bincount.__doc__, "Parameters", "Returns")})
    def kernel_matvec(self, v: np.ndarray) -> np.ndarray:
        """Return ``K v`` with ``K = (1/m) sum_r K_rho``, in O(mN): ``Phi (Phi^T v) / m``.

        The same sums as :meth:`kernel_matvec_bincount` (cluster sums, then each
        point reads its clusters' sums), through two sparse products with the
        cluster indicators, which are about three times faster than the gather.

        %(same)s
        """
        v = np.asarray(v, dtype=np.float64).ravel()
        return self._read_clusters(self._sum_clusters(v)) / self.m

    def _blocks(self):
        """The indicators by blocks of points, one block per thread: ``(start, Phi_b,
        Phi_b^T)``, the transpose a CSC view (as fast a product, no copy)."""
        if self._row_blocks is None:
            if self.n_jobs <= 1 or self.n < 2 * _MIN_BLOCK_ROWS:
                Phi = self.indicators()
                self._row_blocks = [(0, Phi, Phi.T)]
            else:
                k = min(self.n_jobs, self.n // _MIN_BLOCK_ROWS)
                edges = np.linspace(0, self.n, k + 1).astype(np.intp)
                parts = thread_map(lambda ab: self._indicator_rows(*ab),
                                   list(zip(edges[:-1], edges[1:])), self.n_jobs)
                self._row_blocks = [(a, P, P.T) for a, P in zip(edges[:-1], parts)]
        return self._row_blocks

    def _sum_clusters(self, v):
        """``Phi^T v`` (v of shape (N,) or (N, k)), block by block."""
        blocks = self._blocks()
        if len(blocks) == 1:
            return blocks[0][2] @ v
        sums = thread_map(lambda b: b[2] @ v[b[0]:b[0] + b[1].shape[0]], blocks, self.n_jobs)
        return np.sum(sums, axis=0)

    def _read_clusters(self, s):
        """``Phi s`` (s of shape (C,) or (C, k)), block by block."""
        blocks = self._blocks()
        if len(blocks) == 1:
            return blocks[0][1] @ s
        return np.concatenate(thread_map(lambda b: b[1] @ s, blocks, self.n_jobs))

    def indicators(self) -> sp.csr_matrix:
        """Return the cluster indicators Phi, with ``K = Phi Phi^T / m``.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (N, n_clusters)
            One 1 per partition per row.
        """
        if self._Phi is None:
            self._Phi = self._indicator_rows(0, self.n)
        return self._Phi

    def _indicator_rows(self, start, stop):
        """Rows ``start:stop`` of the indicators, built from the ids without a check pass."""
        n = stop - start
        idx_dtype = np.int32 if max(self.n_clusters, n * self.m) < 2**31 else np.int64
        indices = np.ascontiguousarray(self.ids[:, start:stop].T, dtype=idx_dtype).ravel()
        indptr = np.arange(0, n * self.m + 1, self.m, dtype=idx_dtype)
        return sp.csr_matrix((np.ones(n * self.m), indices, indptr),
                             shape=(n, self.n_clusters), copy=False)

    def kernel_matmat(self, V: np.ndarray) -> np.ndarray:
        """Return ``K V`` for a block of vectors, through the sparse indicators.

        Parameters
        ----------
        V : ndarray of shape (N, k)
            The vectors, as columns.

        Returns
        -------
        ndarray of shape (N, k)
            ``K V``.
        """
        V = np.asarray(V, dtype=np.float64)
        return self._read_clusters(self._sum_clusters(V)) / self.m

    def block_inverse_matvec(self, v: np.ndarray, sigma: float, partition: int) -> np.ndarray:
        """Return ``(K_rho + sigma I)^{-1} v`` for one partition (Sherman-Morrison).

        Parameters
        ----------
        v : array-like of shape (N,)
            A vector over the points.
        sigma : float
            The shift (> 0).
        partition : int
            The partition r, in ``[0, m)``.

        Returns
        -------
        ndarray of shape (N,)
            The solution, in closed form.
        """
        ids = self.ids[partition]
        sums = np.bincount(ids, weights=v, minlength=self.n_clusters)
        return (v - (sums / (sigma + self.sizes))[ids]) / sigma

    def preconditioner_matvec(self, v: np.ndarray, sigma: float) -> np.ndarray:
        """Return ``B v`` with ``B = (1/m) sum_r (K_rho + sigma I)^{-1}``, in O(mN).

        Parameters
        ----------
        v : array-like of shape (N,)
            A vector over the points.
        sigma : float
            The shift (> 0); the noise variance is the right choice (module docstring).

        Returns
        -------
        ndarray of shape (N,)
            ``B v``.
        """
        v = np.asarray(v, dtype=np.float64).ravel()
        scaled = self._sum_clusters(v) / (sigma + self.sizes)
        return (v - self._read_clusters(scaled) / self.m) / sigma

    def cluster_gram(self) -> np.ndarray:
        """G = Phi^T Phi (C x C, dense): G[c, c'] = number of points in both clusters.

        Only the upper triangle (c <= c') is filled, block row by block row: partition
        r's rows are the counts of its clusters against those of partitions r, r+1, ...
        (one ``bincount`` over N (m - r) pairs), O(N m^2 / 2) in all.

        Returns
        -------
        ndarray of shape (C, C)
            The upper triangle of the cluster co-occurrence counts.
        """
        C, start = self.n_clusters, self.part_start
        G = np.zeros((C, C))
        for r in range(self.m):
            a, b = start[r], start[r + 1]
            width = C - a
            rows = (self.ids[r].astype(np.int64) - a) * width
            later = self.ids[r:] - np.int32(a)       # column offsets from a, (m - r, N)
            counts = np.bincount((later + rows).ravel(), minlength=(b - a) * width)
            G[a:b, a:] = counts.reshape(b - a, width)
        return G

    def woodbury_factor(self, noise_variance: float):
        """Return the Cholesky factor (upper) of m s I + Phi^T Phi, the cluster-space system.

        Parameters
        ----------
        noise_variance : float
            The noise variance s.

        Returns
        -------
        tuple
            ``(U, upper)`` as from :func:`scipy.linalg.cho_factor`.
        """
        G = self.cluster_gram()
        G[np.diag_indices_from(G)] += self.m * float(noise_variance)
        with single_blas_thread():  # multithreaded dpotrf has crashed on large matrices
            return sla.cho_factor(G, lower=False, overwrite_a=True, check_finite=False)

    def woodbury_matvec(self, v: np.ndarray, noise_variance: float, factor) -> np.ndarray:
        """Return (K + s I)^{-1} v exactly, by Woodbury in the C-dimensional cluster space.

            (Phi Phi^T / m + s I)^{-1} = (1/s) (I - Phi (m s I + Phi^T Phi)^{-1} Phi^T).

        Parameters
        ----------
        v : ndarray of shape (N,)
            The vector.
        noise_variance : float
            The noise variance s.
        factor : tuple
            The :meth:`woodbury_factor` for ``noise_variance``.

        Returns
        -------
        ndarray of shape (N,)
            ``(K + s I)^{-1} v``.
        """
        v = np.asarray(v, dtype=np.float64).ravel()
        w = sla.cho_solve(factor, self._sum_clusters(v), check_finite=False)
        return (v - self._read_clusters(w)) / float(noise_variance)

    # ------------------------------------------------------------- operators
    def system_operator(self, noise_variance: float) -> LinearOperator:
        """Return ``A = K + s I`` as a symmetric ``LinearOperator``.

        Parameters
        ----------
        noise_variance : float
            The shift s (> 0), the GP's noise variance.

        Returns
        -------
        scipy.sparse.linalg.LinearOperator
            The N x N system matrix, matrix-free.
        """
        s = float(noise_variance)

        def matvec(v):
            v = np.asarray(v, dtype=np.float64).ravel()
            return self.kernel_matvec(v) + s * v

        return LinearOperator((self.n, self.n), matvec=matvec, rmatvec=matvec, dtype=np.float64)

    def preconditioner(self, noise_variance: float, sigma: float | None = None,
                       scale: float = 1.0) -> LinearOperator:
        """Return the averaged per-partition inverse B (module docstring) as an operator.

        Parameters
        ----------
        noise_variance : float
            The GP's noise variance s.
        sigma : float, optional
            The preconditioner's shift; default ``noise_variance``.
        scale : float, default=1.0
            Multiplies B (``scale = m**2`` reproduces the paper's Eq. 9
            normalisation; CG does not depend on it).

        Returns
        -------
        scipy.sparse.linalg.LinearOperator
            The N x N preconditioner, matrix-free.
        """
        sig = float(noise_variance if sigma is None else sigma)

        def matvec(v):
            return scale * self.preconditioner_matvec(v, sig)

        return LinearOperator((self.n, self.n), matvec=matvec, rmatvec=matvec, dtype=np.float64)

    def exact_preconditioner(self, noise_variance: float, factor=None) -> LinearOperator:
        """(K + s I)^{-1} through the cluster-space factor (see :meth:`woodbury_matvec`).

        Costs O(N m^2 + C^3) once and O(mN + C^2) per product, C x C memory: worth it
        when C (all clusters) is well below N. As a CG preconditioner it is the exact
        inverse, so CG stops after one or two iterations (rounding).

        Parameters
        ----------
        noise_variance : float
            The noise variance s.
        factor : tuple, optional
            A :meth:`woodbury_factor` for ``noise_variance`` (computed if absent).

        Returns
        -------
        scipy.sparse.linalg.LinearOperator
            The exact inverse of K + s I.
        """
        s = float(noise_variance)
        factor = self.woodbury_factor(s) if factor is None else factor

        def matvec(v):
            return self.woodbury_matvec(v, s, factor)

        return LinearOperator((self.n, self.n), matvec=matvec, rmatvec=matvec, dtype=np.float64)

    def centred_kernel_operator(self) -> LinearOperator:
        """Return ``H K H``, ``H = I - 11^T/N``, the centred Gram matrix of kernel PCA.

        Returns
        -------
        scipy.sparse.linalg.LinearOperator
            The N x N operator, matrix-free.
        """

        def matvec(v):
            v = np.asarray(v, dtype=np.float64).ravel()
            w = self.kernel_matvec(v - v.mean())
            return w - w.mean()

        return LinearOperator((self.n, self.n), matvec=matvec, rmatvec=matvec, dtype=np.float64)

    # ------------------------------------------------------------- new points
    def lookup(self, labels_new: np.ndarray) -> np.ndarray:
        """Return the global ids of new points' clusters.

        Parameters
        ----------
        labels_new : ndarray of int, shape (m, N_new)
            The new points' labels, from the same partitions.

        Returns
        -------
        ndarray of int, shape (m, N_new)
            Cluster ids; -1 where the cluster holds no fitted point.

        Raises
        ------
        InputError
            If ``labels_new`` does not have one row per partition.
        """
        labels_new = _labels(labels_new, "labels_new")
        if labels_new.ndim != 2 or labels_new.shape[0] != self.m:
            raise InputError(f"labels_new must have {self.m} rows (one per partition).")
        shifted = labels_new - self._row_min[:, None]
        valid = (shifted >= 0) & (shifted < self._row_range[:, None])
        keys = np.where(valid, shifted + self._offsets[:, None], 0)
        if self._dense_map is not None:
            return np.where(valid, self._dense_map[keys], -1)
        pos = np.minimum(np.searchsorted(self.cluster_keys, keys), self.n_clusters - 1)
        return np.where(valid & (self.cluster_keys[pos] == keys), pos, -1)
