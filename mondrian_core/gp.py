"""Gaussian-process regression and kernel PCA with random partition kernels, matrix-free.

Davies and Ghahramani (2014), Sections 2.2 and 3.3: with an m-approximate random
partition kernel K = (1/m) sum_r K_rho, a product K v costs O(mN), so the GP's
linear system (K + s I) alpha = y is solved by conjugate gradients (SciPy's
``cg`` on a ``LinearOperator``) with the per-partition preconditioner of
:mod:`mondrian_core.partition_algebra`, and kernel PCA by a Lanczos eigensolver
(``eigsh``) on the centred kernel as a ``LinearOperator``.

The kernel has a finite feature map: K = F F^T with F = Phi / sqrt(m), Phi the
(N x C) cluster indicators (C = clusters over all partitions). The GP is thus
Bayesian linear regression f(x) = F(x) w, w ~ N(0, I_C), which makes the
predictive variance and posterior samples exact and cheap (see ``predict``).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from scipy.sparse.linalg import cg, eigsh
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from mondrian_core._blas import single_blas_thread
from mondrian_core._validation import check_random_state, finite_squares
from mondrian_core.errors import InputError
from mondrian_core.partition_algebra import PartitionAlgebra
from mondrian_core.partitions import check_partition_points

__all__ = ["PartitionGP", "PartitionKernelPCA", "cg_residual_history", "MAX_WOODBURY_CLUSTERS"]

#: Largest number of clusters C (over all partitions) for which ``PartitionGP`` factors
#: the C x C cluster-space system (512 MB) to precondition CG with the exact inverse.
MAX_WOODBURY_CLUSTERS = 8192


def _single_threaded_blas(method):
    """Run ``method`` with one BLAS thread: its dense algebra is on small or thin
    matrices, where BLAS threads only contend (badly on a shared machine)."""
    import functools

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with single_blas_thread():
            return method(*args, **kwargs)

    return wrapper


def _woodbury_pays(n: int, m: int, n_clusters: int) -> bool:
    """Whether factoring the cluster space beats CG with the averaged preconditioner.

    Estimated times in nanoseconds, constants measured on a 2-core AMD EPYC (single
    BLAS thread): CG takes about 1.5 sqrt(N) iterations of four sparse products of
    m N non-zeros at ~1.2 ns each; the factor costs the Gram matrix's N m^2 / 2
    counted pairs at ~4.6 ns and a C^3 / 3 flop Cholesky at ~30 flop/ns. Either way
    the answer is the same (to CG's tolerance); only the time differs.
    """
    if n_clusters >= n or n_clusters > MAX_WOODBURY_CLUSTERS:
        return False
    cg = 1.5 * np.sqrt(n) * 4 * m * n * 1.2
    woodbury = 4.6 * n * m**2 / 2 + n_clusters**3 / 3 / 30
    return woodbury < cg


def _fit_partitions(partitions, X, y=None):
    """A fitted clone of ``partitions`` (supervised samplers get y)."""
    return clone(partitions).fit(X, y)


def cg_residual_history(operator, b, *, preconditioner=None, tol=1e-6, maxiter=None,
                        record=True):
    """Solve ``operator x = b`` by SciPy's CG and record ||b - A x_k|| / ||b|| per iteration.

    Returns ``(x, residuals, info)``; ``residuals[0] = 1`` (x_0 = 0). The true residual
    is recomputed at each iteration (one extra product), so the curves of different
    preconditioners are comparable. With ``record=False`` only the iterations are
    counted (``residuals`` then holds NaN for each iteration, 1 first and the true
    final residual last).
    """
    b = np.asarray(b, dtype=np.float64).ravel()
    norm_b = np.linalg.norm(b) or 1.0
    history = [1.0]

    def record_fn(xk):
        history.append(np.linalg.norm(b - operator.matvec(xk)) / norm_b if record else np.nan)

    # CG's work is vector updates and dot products: BLAS threads only contend
    # (badly so on a loaded machine), so run them single-threaded.
    with single_blas_thread():
        x, info = cg(operator, b, rtol=tol, atol=0.0, M=preconditioner, callback=record_fn,
                     maxiter=maxiter)
    if not record and len(history) > 1:
        history[-1] = np.linalg.norm(b - operator.matvec(x)) / norm_b
    return x, np.asarray(history), info


class PartitionGP(RegressorMixin, BaseEstimator):
    """GP regression with an m-approximate random partition kernel plus noise.

    Prior f ~ GP(0, k) with k the partition kernel of ``partitions`` (unit
    variance, so y is standardised first when ``normalize_y``), y = f + eps,
    eps ~ N(0, noise_variance). ``fit`` solves (K + s I) alpha = y by
    conjugate gradients with K v in O(mN) and, if ``preconditioner``, the
    averaged per-partition inverse B = (1/m) sum_r (K_rho + s I)^{-1}
    (sigma = s; see :mod:`mondrian_core.partition_algebra` for why that scaling
    and not the paper's m sum_r (K_rho + sigma I)^{-1}).

    Parameters
    ----------
    partitions : an unfitted partition sampler (FastClusterPartitions,
        RandomForestPartitions, MondrianPartitions); ``fit`` fits a clone on (X, y).
    noise_variance : float > 0, default 0.1
        s, in units of the standardised targets when ``normalize_y``.
    preconditioner : bool, default True
        Precondition CG. When the clusters of all partitions number C < N,
        C <= ``MAX_WOODBURY_CLUSTERS`` and the estimated cost is lower than CG's
        (large N), with the exact inverse through a Cholesky factor of the C x C
        system m s I + Phi^T Phi (Woodbury; O(N m^2 + C^3) once, so CG stops after an
        iteration or two and predictive variances reuse the factor); otherwise with
        the averaged per-partition inverse B.
    tol : float, default 1e-6
        CG stops at ||y - A alpha|| <= tol ||y||.
    normalize_y : bool, default True
    max_dense : int, default 3000
        Exact predictive variances and samples use a dense Cholesky factor in the
        smaller of the data space (N x N) and the cluster space (C x C) when that
        size is at most ``max_dense``; otherwise one preconditioned CG solve per
        test point at tolerance 1e-10 (exact to that tolerance, slower).
    record_residuals : bool, default True
        Record the true relative residual after every CG iteration (one extra
        kernel product per iteration) in ``residuals_``, for convergence plots.
    fit_partitions : bool, default True
        False: ``partitions`` is already fitted and is used as it is (not copied),
        e.g. to share one set of partitions between several views.

    Attributes
    ----------
    partitions_ : the fitted sampler.
    alpha_ : (N,) the CG solution (K + s I)^{-1} y (standardised y).
    n_iter_ : int, CG iterations of the last solve.
    residuals_ : array, relative residual after each CG iteration of ``fit``.
    residual_ : float, the final relative residual ||y - A alpha|| / ||y||.

    References
    ----------
    A. Davies and Z. Ghahramani (2014), "The Random Forest Kernel and other
    kernels for big data from random partitions"; C. E. Rasmussen and
    C. K. I. Williams (2006), Gaussian Processes for Machine Learning, Alg. 2.1.
    """

    def __init__(self, partitions, noise_variance=0.1, preconditioner=True, tol=1e-6,
                 normalize_y=True, max_dense=3000, record_residuals=True, fit_partitions=True):
        self.partitions = partitions
        self.noise_variance = noise_variance
        self.preconditioner = preconditioner
        self.tol = tol
        self.normalize_y = normalize_y
        self.max_dense = max_dense
        self.record_residuals = record_residuals
        self.fit_partitions = fit_partitions

    # ----------------------------------------------------------------- fit
    @_single_threaded_blas
    def fit(self, X, y):
        """Fit the partitions on (X, y) and solve for alpha by (preconditioned) CG."""
        for name in ("noise_variance", "tol"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float, np.number)) and 0 < value < np.inf):
                raise InputError(f"{name} must be a positive number, got {value!r}.")
        X = check_partition_points(X, min_samples=2)
        y = np.asarray(y, dtype=np.float64).ravel()
        if y.shape[0] != X.shape[0] or not finite_squares(y):
            raise InputError("y must hold one finite value per training point, small enough to "
                             "square (|y| < 1e150); remove NaN/inf rows or rescale y.")
        if self.normalize_y:
            self._y_mean, self._y_std = y.mean(), (y.std() or 1.0)
        else:
            self._y_mean, self._y_std = 0.0, 1.0
        z = (y - self._y_mean) / self._y_std
        if self.fit_partitions:
            self.partitions_ = _fit_partitions(self.partitions, X, y)
        else:
            check_is_fitted(self.partitions, "n_labels_")
            self.partitions_ = self.partitions
        self.algebra_ = PartitionAlgebra(self.partitions_.labels(X))
        s = float(self.noise_variance)
        self.operator_ = self.algebra_.system_operator(s)
        A = self.algebra_
        self._factor = None
        if not self.preconditioner:
            self.precond_ = None
        elif _woodbury_pays(A.n, A.m, A.n_clusters):
            # the cluster space is small: precondition with the exact inverse (Woodbury)
            self._factor = A.woodbury_factor(s)
            self.precond_ = A.exact_preconditioner(s, self._factor)
        else:
            self.precond_ = A.preconditioner(s)
        self.alpha_, self.residuals_, info = cg_residual_history(
            self.operator_, z, preconditioner=self.precond_, tol=self.tol,
            maxiter=20 * X.shape[0], record=self.record_residuals)
        if info != 0:
            raise InputError(f"Conjugate gradients did not reach tol={self.tol} in {info} "
                             "iterations; raise noise_variance or tol.")
        self.n_iter_ = len(self.residuals_) - 1
        self.residual_ = float(self.residuals_[-1])
        self.X_train_, self.y_train_ = X, z
        self._chol = None
        return self

    # ----------------------------------------------------------------- helpers
    def _ids(self, X):
        X = check_partition_points(X)
        return self.algebra_.lookup(self.partitions_.labels(X))

    def _cross_kernel(self, ids_new) -> np.ndarray:
        """K(X_train, X_new) dense (N, n): count of partitions that agree, / m."""
        A = self.algebra_
        from scipy import sparse as sp
        m, n = ids_new.shape
        rows, cols = np.nonzero(ids_new.T >= 0)
        Phi_new = sp.csr_matrix((np.ones(rows.size), (rows, ids_new.T[rows, cols])),
                                shape=(n, A.n_clusters))
        return (A.indicators() @ Phi_new.T).toarray() / m

    def _data_cholesky(self):
        """Cholesky factor of K + s I (N x N), cached."""
        if self._chol is None:
            K = self._cross_kernel(self.algebra_.ids)
            K[np.diag_indices_from(K)] += self.noise_variance
            self._chol = sla.cho_factor(K, lower=True)
        return self._chol

    def _solve_many(self, R: np.ndarray) -> np.ndarray:
        """(K + s I)^{-1} R for a block R (N, k): dense Cholesky or CG per column."""
        if self.algebra_.n <= self.max_dense:
            return sla.cho_solve(self._data_cholesky(), R)
        out = np.empty_like(R)
        for j in range(R.shape[1]):
            out[:, j], info = cg(self.operator_, R[:, j], rtol=1e-10, atol=0.0, M=self.precond_,
                                 maxiter=50 * self.algebra_.n)
        return out

    def _latent_mean(self, ids_new):
        sums = np.append(self.algebra_.cluster_sums(self.alpha_), 0.0)  # -1 -> 0
        return sums[ids_new].sum(axis=0) / self.algebra_.m

    def _cluster_counts(self, ids_new):
        """(C, n) dense: how many partitions put new point j in fitted cluster c (0/1)."""
        counts = np.zeros((self.algebra_.n_clusters, ids_new.shape[1]))
        for r in range(ids_new.shape[0]):  # loop over partitions, not points
            seen = ids_new[r] >= 0
            np.add.at(counts, (ids_new[r][seen], np.flatnonzero(seen)), 1.0)
        return counts

    def _latent_var(self, ids_new):
        """Exact var f(x*) = 1 - k*^T (K + s I)^{-1} k* (standardised units)."""
        A, s = self.algebra_, float(self.noise_variance)
        m = A.m
        n_unseen = (ids_new < 0).sum(axis=0)
        if self._factor is not None:
            # the fit's factor U of m s I + Phi^T Phi: var = s |U^-T counts|^2 + unseen / m
            V = sla.solve_triangular(self._factor[0], self._cluster_counts(ids_new), trans="T",
                                     lower=False, check_finite=False)
            return s * (V**2).sum(axis=0) + n_unseen / m
        if A.n_clusters < A.n and A.n_clusters <= self.max_dense:
            # weight space: var = f*^T (I + F^T F / s)^{-1} f* + (#unseen) / m,
            # F = Phi / sqrt(m); clusters without training points keep prior variance.
            Phi = A.indicators()
            P = (Phi.T @ Phi).toarray() / (m * s)
            P[np.diag_indices_from(P)] += 1.0
            L = sla.cholesky(P, lower=True)
            V = sla.solve_triangular(L, self._cluster_counts(ids_new) / np.sqrt(m), lower=True)
            return (V**2).sum(axis=0) + n_unseen / m
        Kx = self._cross_kernel(ids_new)
        if A.n <= self.max_dense:
            L = self._data_cholesky()[0]
            V = sla.solve_triangular(L, Kx, lower=True)
            return 1.0 - (V**2).sum(axis=0)
        return 1.0 - np.einsum("ij,ij->j", Kx, self._solve_many(Kx))

    # ----------------------------------------------------------------- public
    @_single_threaded_blas
    def predict(self, X, return_std=False):
        """Posterior mean of f at X (and its exact standard deviation, noise excluded).

        The standard deviation is that of the latent function f(x*); add
        ``noise_variance * y_std**2`` to its square for the predictive of a new y.
        """
        check_is_fitted(self, "alpha_")
        ids = self._ids(X)
        mean = self._y_mean + self._y_std * self._latent_mean(ids)
        if not return_std:
            return mean
        var = np.clip(self._latent_var(ids), 0.0, None)
        return mean, self._y_std * np.sqrt(var)

    def noise_std(self) -> float:
        """Noise standard deviation in the units of y."""
        return float(np.sqrt(self.noise_variance) * self._y_std)

    def log_predictive_density(self, X, y) -> np.ndarray:
        """log N(y_i | mean_i, var_f(x_i) + noise) for each test point (units of y)."""
        mean, std = self.predict(X, return_std=True)
        var = std**2 + self.noise_std() ** 2
        y = np.asarray(y, dtype=np.float64).ravel()
        return -0.5 * (np.log(2 * np.pi * var) + (y - mean) ** 2 / var)

    @_single_threaded_blas
    def sample_y(self, X, n_samples=3, random_state=None):
        """Posterior samples of f at X, shape (len(X), n_samples), exact.

        Pathwise conditioning (Matheron's rule): draw f from the prior through the
        finite feature map (one N(0, 1) weight per cluster, including clusters
        that only new points fall in) and noise eps ~ N(0, s I); then
        f_post(X) = f(X) + K(X, X_train) (K + s I)^{-1} (y - f(X_train) - eps)
        has exactly the posterior distribution.
        """
        check_is_fitted(self, "alpha_")
        rng = check_random_state(random_state)
        A, s = self.algebra_, float(self.noise_variance)
        ids_new = self._ids(X)
        # unseen clusters of new points get their own weights after the C fitted ones
        labels_new = self.partitions_.labels(check_partition_points(X))
        unseen = ids_new < 0
        keys = labels_new[unseen] + (np.nonzero(unseen)[0].astype(np.int64) << 32)
        _, extra = np.unique(keys, return_inverse=True)
        ids_all = ids_new.copy()
        ids_all[unseen] = A.n_clusters + extra
        n_weights = A.n_clusters + (extra.max() + 1 if extra.size else 0)
        W = rng.standard_normal((n_weights, n_samples))
        scale = 1.0 / np.sqrt(A.m)
        f_train = W[A.ids].sum(axis=0) * scale          # (N, k)
        f_new = W[ids_all].sum(axis=0) * scale          # (n, k)
        eps = rng.standard_normal((A.n, n_samples)) * np.sqrt(s)
        R = self._solve_many(self.y_train_[:, None] - f_train - eps)
        f_post = f_new + self._cross_kernel(ids_new).T @ R
        return self._y_mean + self._y_std * f_post


class PartitionKernelPCA(TransformerMixin, BaseEstimator):
    """Kernel PCA with a random partition kernel, by a matrix-free eigensolver.

    The centred Gram matrix H K H (H = I - 11^T/N) is a ``LinearOperator`` with
    O(mN) products; ``scipy.sparse.linalg.eigsh`` (Lanczos, a refined power
    iteration as the paper's Section 2.2 suggests) finds its top components. The
    embedding of the fitted points is u_k sqrt(lambda_k) (Figure 2 of Davies and
    Ghahramani 2014).

    Parameters
    ----------
    partitions : an unfitted partition sampler; fit on (X, y) (y only used by
        supervised samplers such as RandomForestPartitions).
    n_components : int, default 2
    tol : float, default 1e-6, eigsh's relative accuracy.

    Attributes
    ----------
    eigenvalues_ : (n_components,), decreasing.
    embedding_ : (N, n_components).
    n_matvec_ : number of kernel products used.
    """

    def __init__(self, partitions, n_components=2, tol=1e-6):
        self.partitions = partitions
        self.n_components = n_components
        self.tol = tol

    @_single_threaded_blas
    def fit(self, X, y=None):
        X = check_partition_points(X)
        k = int(self.n_components)
        if not 1 <= k < X.shape[0] - 1:
            raise InputError(f"n_components must be between 1 and N - 2 = {X.shape[0] - 2}; use "
                             f"fewer components or at least {max(k, 1) + 2} points.")
        self.partitions_ = _fit_partitions(self.partitions, X, y)
        labels = self.partitions_.labels(X)
        if np.all(labels == labels[:, :1]):  # one cluster everywhere: the centred kernel is 0
            self.eigenvalues_, self.embedding_ = np.zeros(k), np.zeros((X.shape[0], k))
            self.n_matvec_ = 0
            return self
        algebra = PartitionAlgebra(labels)
        op = algebra.centred_kernel_operator()
        count = [0]
        base = op.matvec

        def matvec(v):
            count[0] += 1
            return base(v)

        from scipy.sparse.linalg import LinearOperator
        counted = LinearOperator(op.shape, matvec=matvec, rmatvec=matvec, dtype=np.float64)
        v0 = check_random_state(0).standard_normal(X.shape[0])
        with single_blas_thread():
            vals, vecs = eigsh(counted, k=k, which="LA", tol=self.tol, v0=v0)
        order = np.argsort(vals)[::-1]
        vals, vecs = np.clip(vals[order], 0.0, None), vecs[:, order]
        # fix signs so the same seed gives the same picture
        signs = np.sign(vecs[np.argmax(np.abs(vecs), axis=0), np.arange(k)])
        vecs = vecs * np.where(signs == 0, 1.0, signs)
        self.eigenvalues_ = vals
        self.embedding_ = vecs * np.sqrt(vals)
        self.n_matvec_ = count[0]
        return self

    def fit_transform(self, X, y=None):
        return self.fit(X, y).embedding_
