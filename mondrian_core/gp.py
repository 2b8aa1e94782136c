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

from mondrian_core._blas import single_blas_thread
from mondrian_core._docstrings import docfiller, params, sections
from mondrian_core._validation import (
    check_count,
    check_flag,
    check_is_fitted,
    check_n_jobs,
    check_random_state,
    check_real,
    check_target,
)
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


def _check_sampler(partitions) -> None:
    if not (hasattr(partitions, "fit") and hasattr(partitions, "labels")):
        raise InputError(
            "partitions must be a partition sampler such as FastClusterPartitions(), "
            f"RandomForestPartitions() or MondrianPartitions(); got {partitions!r}.")


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
    _check_sampler(partitions)
    return clone(partitions).fit(X, y)


def cg_residual_history(operator, b, *, preconditioner=None, tol=1e-6, maxiter=None,
                        record=True):
    """Solve ``operator x = b`` by SciPy's CG, recording the relative residual.

    The true residual ``||b - A x_k|| / ||b||`` is recomputed at each iteration (one
    extra product), so the curves of different preconditioners are comparable.

    Parameters
    ----------
    operator : scipy.sparse.linalg.LinearOperator
        The symmetric positive definite N x N matrix A.
    b : array-like of shape (N,)
        The right-hand side.
    preconditioner : scipy.sparse.linalg.LinearOperator, optional
        An approximate inverse of A (SciPy's ``M``).
    tol : float, default=1e-6
        Stop when the relative residual is at most ``tol``.
    maxiter : int, optional
        The most iterations (SciPy's default otherwise).
    record : bool, default=True
        Record the residual after each iteration; False only counts the iterations
        (``residuals`` then holds NaN for each iteration, 1 first and the true final
        residual last).

    Returns
    -------
    x : ndarray of shape (N,)
        The solution.
    residuals : ndarray
        ``residuals[0] = 1`` (x_0 = 0), then one entry per iteration.
    info : int
        SciPy's flag: 0 on convergence, else the number of iterations made.
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
    partitions : estimator
        An unfitted partition sampler (FastClusterPartitions,
        RandomForestPartitions, MondrianPartitions); ``fit`` fits a clone on (X, y).
    noise_variance : float > 0, default=0.1
        The noise variance s, in units of the standardised targets when
        ``normalize_y``.
    preconditioner : bool, default=True
        Precondition CG. When the clusters of all partitions number C < N,
        C <= ``MAX_WOODBURY_CLUSTERS`` and the estimated cost is lower than CG's
        (large N), with the exact inverse through a Cholesky factor of the C x C
        system m s I + Phi^T Phi (Woodbury; O(N m^2 + C^3) once, so CG stops after an
        iteration or two and predictive variances reuse the factor); otherwise with
        the averaged per-partition inverse B.
    tol : float, default=1e-6
        CG stops at ||y - A alpha|| <= tol ||y||.
    normalize_y : bool, default=True
        Standardise y (mean 0, standard deviation 1) before fitting, since the
        kernel has unit variance; predictions are in the units of y either way.
    max_dense : int, default=3000
        Exact predictive variances and samples use a dense Cholesky factor in the
        smaller of the data space (N x N) and the cluster space (C x C) when that
        size is at most ``max_dense``; otherwise one preconditioned CG solve per
        test point at tolerance 1e-10 (exact to that tolerance, slower).
    record_residuals : bool, default=True
        Record the true relative residual after every CG iteration (one extra
        kernel product per iteration) in ``residuals_``, for convergence plots.
    fit_partitions : bool, default=True
        False: ``partitions`` is already fitted and is used as it is (not copied),
        e.g. to share one set of partitions between several views.

    Attributes
    ----------
    partitions_ : estimator
        The fitted sampler.
    algebra_ : mondrian_core.PartitionAlgebra
        The kernel's matrix-free algebra on the training points.
    operator_ : scipy.sparse.linalg.LinearOperator
        The system ``K + s I``.
    precond_ : scipy.sparse.linalg.LinearOperator or None
        The preconditioner, if any.
    alpha_ : ndarray of shape (N,)
        The CG solution ``(K + s I)^{-1} y`` (standardised y).
    n_iter_ : int
        CG iterations of the last solve.
    residuals_ : ndarray
        Relative residual after each CG iteration of ``fit``.
    residual_ : float
        The final relative residual ``||y - A alpha|| / ||y||``.
    X_train_ : ndarray of shape (N, D)
        The training points.
    n_features_in_ : int
        Number of features of the points seen in ``fit``.
    y_train_ : ndarray of shape (N,)
        The standardised training targets.

    References
    ----------
    A. Davies and Z. Ghahramani (2014), "The Random Forest Kernel and other
    kernels for big data from random partitions"; C. E. Rasmussen and
    C. K. I. Williams (2006), Gaussian Processes for Machine Learning, Alg. 2.1.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import MondrianPartitions, PartitionGP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(200, 2))
    >>> y = np.sin(4 * X[:, 0]) + 0.1 * rng.standard_normal(200)
    >>> gp = PartitionGP(MondrianPartitions(n_partitions=50, lifetime=4.0, random_state=0))
    >>> gp = gp.fit(X, y)
    >>> mean, std = gp.predict(X[:5], return_std=True)
    >>> mean.shape, bool(np.all(std > 0)), bool(gp.score(X, y) > 0.8)
    ((5,), True, True)
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
        """Fit the partitions on ``(X, y)`` and solve for alpha by (preconditioned) CG.

        Parameters
        ----------
        X : array-like of shape (N, D)
            Training points (at least 2).
        y : array-like of shape (N,)
            Targets (finite).

        Returns
        -------
        PartitionGP
            The fitted GP.

        Raises
        ------
        InputError
            If the data or a parameter is invalid, or CG does not converge.
        """
        for name in ("noise_variance", "tol"):
            check_real(getattr(self, name), name, strict=True)
        max_dense = check_count(self.max_dense, "max_dense", minimum=0)
        for name in ("preconditioner", "normalize_y", "record_residuals", "fit_partitions"):
            check_flag(getattr(self, name), name)
        _check_sampler(self.partitions)
        X = check_partition_points(X, self, reset=True, min_samples=2)
        y = check_target(y, X, estimator=self)
        if self.normalize_y:
            self._y_mean, self._y_std = y.mean(), (y.std() or 1.0)
        else:
            self._y_mean, self._y_std = 0.0, 1.0
        z = (y - self._y_mean) / self._y_std
        if self.fit_partitions:
            self.partitions_ = _fit_partitions(self.partitions, X, y)
        else:
            if not hasattr(self.partitions, "n_labels_"):
                raise InputError("fit_partitions=False uses the partitions as given, but they "
                                 "are not fitted: fit them first, or pass "
                                 "fit_partitions=True.")
            self.partitions_ = self.partitions
        self.algebra_ = PartitionAlgebra(self.partitions_.labels(X))
        self._max_dense = max_dense
        A = self.algebra_
        # the cluster space is small: precondition with the exact inverse (Woodbury);
        # the factor is arrays (it pickles), the preconditioner is built from it on demand
        self._woodbury = (A.woodbury_factor(float(self.noise_variance))
                          if self.preconditioner and _woodbury_pays(A.n, A.m, A.n_clusters)
                          else None)
        self.alpha_, self.residuals_, info = cg_residual_history(
            self._operator(), z, preconditioner=self._preconditioner(), tol=self.tol,
            maxiter=20 * X.shape[0], record=self.record_residuals)
        if info != 0:
            raise InputError(f"Conjugate gradients did not reach tol={self.tol} in {info} "
                             "iterations; raise noise_variance or tol.")
        self.n_iter_ = len(self.residuals_) - 1
        self.residual_ = float(self.residuals_[-1])
        self.X_train_, self.y_train_ = X, z
        # factors computed on first use by predict(return_std=True) / sample_y; the
        # dict itself never changes identity, so predicting leaves the fitted state alone
        self._factors = {}
        return self

    # ----------------------------------------------------------------- helpers
    def _operator(self):
        """A = K + s I, built on demand (operators hold closures, which do not pickle)."""
        return self.algebra_.system_operator(float(self.noise_variance))

    def _preconditioner(self):
        if not self.preconditioner:
            return None
        s = float(self.noise_variance)
        if self._woodbury is not None:
            return self.algebra_.exact_preconditioner(s, self._woodbury)
        return self.algebra_.preconditioner(s)

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
        """Cholesky factor of K + s I (N x N), computed once (two threads may both
        compute it; they store the same factor)."""
        chol = self._factors.get("data")
        if chol is None:
            K = self._cross_kernel(self.algebra_.ids)
            K[np.diag_indices_from(K)] += self.noise_variance
            chol = self._factors["data"] = sla.cho_factor(K, lower=True)
        return chol

    def _solve_many(self, R: np.ndarray) -> np.ndarray:
        """(K + s I)^{-1} R for a block R (N, k): dense Cholesky or CG per column."""
        if self.algebra_.n <= self._max_dense:
            return sla.cho_solve(self._data_cholesky(), R)
        out = np.empty_like(R)
        operator, precond = self._operator(), self._preconditioner()
        for j in range(R.shape[1]):
            out[:, j], info = cg(operator, R[:, j], rtol=1e-10, atol=0.0, M=precond,
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

    def _latent_var(self, ids_new, cross=None):
        """Exact var f(x*) = 1 - k*^T (K + s I)^{-1} k* (standardised units); ``cross``
        keeps the cross kernel for a later use on the same points."""
        A, s = self.algebra_, float(self.noise_variance)
        m = A.m
        n_unseen = (ids_new < 0).sum(axis=0)
        if self._woodbury is not None:
            # the fit's factor U of m s I + Phi^T Phi: var = s |U^-T counts|^2 + unseen / m
            V = sla.solve_triangular(self._woodbury[0], self._cluster_counts(ids_new),
                                     trans="T", lower=False, check_finite=False)
            return s * (V**2).sum(axis=0) + n_unseen / m
        if A.n_clusters < A.n and A.n_clusters <= self._max_dense:
            # weight space: var = f*^T (I + F^T F / s)^{-1} f* + (#unseen) / m,
            # F = Phi / sqrt(m); clusters without training points keep prior variance.
            Phi = A.indicators()
            P = (Phi.T @ Phi).toarray() / (m * s)
            P[np.diag_indices_from(P)] += 1.0
            L = sla.cholesky(P, lower=True)
            V = sla.solve_triangular(L, self._cluster_counts(ids_new) / np.sqrt(m), lower=True)
            return (V**2).sum(axis=0) + n_unseen / m
        Kx = self._cross_kernel_kept(ids_new, cross)
        if A.n <= self._max_dense:
            L = self._data_cholesky()[0]
            V = sla.solve_triangular(L, Kx, lower=True)
            return 1.0 - (V**2).sum(axis=0)
        return 1.0 - np.einsum("ij,ij->j", Kx, self._solve_many(Kx))

    # ----------------------------------------------------------------- public
    @_single_threaded_blas
    def predict(self, X, return_std=False):
        """Return the posterior mean of f at X (and its exact standard deviation).

        Parameters
        ----------
        X : array-like of shape (n, D)
            Test points.
        return_std : bool, default=False
            Also return the standard deviation of the latent function f(x*), noise
            excluded; add ``noise_std()**2`` to its square for a new y.

        Returns
        -------
        mean : ndarray of shape (n,)
            The posterior mean, in the units of y.
        std : ndarray of shape (n,)
            The posterior standard deviation of f; only with ``return_std=True``.
        """
        check_is_fitted(self, "alpha_")
        X = check_partition_points(X, self)
        return self._predict_labels(self.partitions_.labels(X), return_std)

    def _predict_labels(self, labels, return_std, cross=None):
        """:meth:`predict` given the points' labels in the fitted partitions."""
        ids = self.algebra_.lookup(labels)
        mean = self._y_mean + self._y_std * self._latent_mean(ids)
        if not return_std:
            return mean
        var = np.clip(self._latent_var(ids, cross), 0.0, None)
        return mean, self._y_std * np.sqrt(var)

    def noise_std(self) -> float:
        """Return the noise standard deviation in the units of y.

        Returns
        -------
        float
            ``sqrt(noise_variance)`` times the targets' scale.
        """
        check_is_fitted(self, "alpha_")
        return float(np.sqrt(self.noise_variance) * self._y_std)

    def log_predictive_density(self, X, y) -> np.ndarray:
        """Return the log predictive density of each test point.

        ``log N(y_i | mean_i, var_f(x_i) + noise)``, with densities in the units of y.

        Parameters
        ----------
        X : array-like of shape (n, D)
            Test points.
        y : array-like of shape (n,)
            Their targets.

        Returns
        -------
        ndarray of shape (n,)
            The natural log of each point's predictive density.
        """
        mean, std = self.predict(X, return_std=True)
        var = std**2 + self.noise_std() ** 2
        y = check_target(y, mean[:, None])
        return -0.5 * (np.log(2 * np.pi * var) + (y - mean) ** 2 / var)

    @_single_threaded_blas
    def sample_y(self, X, n_samples=3, random_state=None):
        """Draw exact posterior samples of f at X.

        Pathwise conditioning (Matheron's rule): draw f from the prior through the
        finite feature map (one N(0, 1) weight per cluster, including clusters
        that only new points fall in) and noise eps ~ N(0, s I); then
        f_post(X) = f(X) + K(X, X_train) (K + s I)^{-1} (y - f(X_train) - eps)
        has exactly the posterior distribution.

        Parameters
        ----------
        X : array-like of shape (n, D)
            Points.
        n_samples : int, default=3
            Number of samples.
        random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
            A seed or generator (see :func:`~mondrian_core.check_random_state`).

        Returns
        -------
        ndarray of shape (n, n_samples)
            The samples, in the units of y.
        """
        check_is_fitted(self, "alpha_")
        n_samples = check_count(n_samples, "n_samples")
        rng = check_random_state(random_state)
        X = check_partition_points(X, self)
        return self._sample_labels(self.partitions_.labels(X), n_samples, rng)

    @docfiller({"sample_args": params(sample_y.__doc__, "X", "n_samples", "random_state")})
    @_single_threaded_blas
    def predict_and_sample(self, X, n_samples=3, random_state=None):
        """Return ``predict(X, return_std=True)`` and ``sample_y(X, n_samples, random_state)``.

        The points are placed in the partitions once for both (for the Mondrian kernel a
        conditional draw on ``X``, seeded at ``fit``, so the two see the same cells): the
        same numbers as the two calls, at the cost of one placement.

        Parameters
        ----------
        %(sample_args)s

        Returns
        -------
        mean : ndarray of shape (n,)
            The posterior mean, in the units of y.
        std : ndarray of shape (n,)
            The posterior standard deviation of f.
        samples : ndarray of shape (n, n_samples)
            The posterior samples, in the units of y.
        """
        check_is_fitted(self, "alpha_")
        n_samples = check_count(n_samples, "n_samples")
        rng = check_random_state(random_state)
        labels = self.partitions_.labels(check_partition_points(X, self))
        cross = {}  # K(X_train, X) once for the variances and the samples
        return (*self._predict_labels(labels, True, cross),
                self._sample_labels(labels, n_samples, rng, cross))

    def _cross_kernel_kept(self, ids_new, cross):
        """:meth:`_cross_kernel`, kept in the dict ``cross`` (None: not kept)."""
        if cross is None:
            return self._cross_kernel(ids_new)
        if "K" not in cross:
            cross["K"] = self._cross_kernel(ids_new)
        return cross["K"]

    def _sample_labels(self, labels_new, n_samples, rng, cross=None):
        """:meth:`sample_y` given the points' labels in the fitted partitions."""
        A, s = self.algebra_, float(self.noise_variance)
        ids_new = A.lookup(labels_new)
        # unseen clusters of new points get their own weights after the C fitted ones
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
        f_post = f_new + self._cross_kernel_kept(ids_new, cross).T @ R
        return self._y_mean + self._y_std * f_post


class PartitionKernelPCA(TransformerMixin, BaseEstimator):
    """Kernel PCA with a random partition kernel, by a matrix-free eigensolver.

    The centred Gram matrix H K H (H = I - 11^T/N) is a ``LinearOperator`` with
    O(mN) products; ``scipy.sparse.linalg.eigsh`` (Lanczos, a refined power
    iteration as the paper's Section 2.2 suggests) finds its top components. The
    embedding of the fitted points is u_k sqrt(lambda_k) (Figure 2 of Davies and
    Ghahramani 2014); ``transform`` projects any points on the same components,
    ``sum_i alpha_ik k_c(x, x_i)`` with ``alpha_k = u_k / sqrt(lambda_k)`` and
    ``k_c`` the kernel centred on the fitted points (O(m) per point and component),
    so ``transform(X_fit)`` is the embedding.

    Parameters
    ----------
    partitions : estimator
        An unfitted partition sampler; a clone is fit on (X, y) (y only used by
        supervised samplers such as RandomForestPartitions).
    n_components : int, default=2
        Number of components, between 1 and N - 2.
    tol : float, default=1e-6
        ``eigsh``'s relative accuracy.
    n_jobs : int or None, default=None
        Threads for the kernel products (blocks of points in parallel): None is one,
        -1 every core. Give the partition sampler its own ``n_jobs`` to label the
        points in parallel too.

    Attributes
    ----------
    partitions_ : estimator
        The fitted sampler.
    algebra_ : mondrian_core.PartitionAlgebra
        The kernel's matrix-free algebra on the fitted points (what ``transform``
        reads new points' clusters against).
    eigenvalues_ : ndarray of shape (n_components,)
        The top eigenvalues of the centred kernel matrix, decreasing.
    embedding_ : ndarray of shape (N, n_components)
        The fitted points' coordinates ``u_k sqrt(lambda_k)``.
    dual_coef_ : ndarray of shape (N, n_components)
        ``alpha_k = u_k / sqrt(lambda_k)``, the weights that map a point's centred
        kernel row to its coordinates (zero for a zero eigenvalue).
    n_matvec_ : int
        Number of kernel products used.
    n_features_in_ : int
        Number of features of the points seen in ``fit``.

    References
    ----------
    A. Davies and Z. Ghahramani (2014), "The Random Forest Kernel and other kernels
    for big data from random partitions", sec. 2.2 and Figure 2.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import MondrianPartitions, PartitionKernelPCA, two_spirals
    >>> data = two_spirals(n=200, random_state=0)
    >>> kpca = PartitionKernelPCA(MondrianPartitions(n_partitions=50, lifetime=3.0, random_state=0))
    >>> kpca.fit_transform(data.X).shape
    (200, 2)
    """

    def __init__(self, partitions, n_components=2, tol=1e-6, n_jobs=None):
        self.partitions = partitions
        self.n_components = n_components
        self.tol = tol
        self.n_jobs = n_jobs

    @_single_threaded_blas
    def fit(self, X, y=None):
        """Fit the partitions and find the top components of the centred kernel.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The points.
        y : array-like of shape (N,), optional
            Targets, for supervised samplers.

        Returns
        -------
        PartitionKernelPCA
            The fitted estimator.

        Raises
        ------
        InputError
            If the points are invalid or ``n_components`` is not in ``[1, N - 2]``.
        """
        k = check_count(self.n_components, "n_components")
        check_real(self.tol, "tol")
        n_jobs = check_n_jobs(self.n_jobs)
        _check_sampler(self.partitions)
        X = check_partition_points(X, self, reset=True, min_samples=k + 2)
        self.partitions_ = _fit_partitions(self.partitions, X, y)
        labels = self.partitions_.labels(X)
        self.algebra_ = algebra = PartitionAlgebra(labels, n_jobs=n_jobs)
        n = X.shape[0]
        if np.all(labels == labels[:, :1]):  # one cluster everywhere: the centred kernel is 0
            vals, vecs, self.n_matvec_ = np.zeros(k), np.zeros((n, k)), 0
        else:
            vals, vecs, self.n_matvec_ = self._top_components(algebra, k, n)
        self.eigenvalues_ = vals
        self.embedding_ = vecs * np.sqrt(vals)
        positive = vals > 0
        self.dual_coef_ = np.where(positive, vecs / np.sqrt(np.where(positive, vals, 1.0)), 0.0)
        # centring on the fitted points: column means of K alpha, row means of K, and
        # the grand mean (see transform)
        self._K_alpha_mean = algebra.kernel_matmat(self.dual_coef_).mean(axis=0)
        self._K_row_mean = algebra.kernel_matvec(np.full(n, 1.0 / n))
        return self

    def _top_components(self, algebra, k, n):
        from scipy.sparse.linalg import LinearOperator

        op = algebra.centred_kernel_operator()
        count = [0]
        base = op.matvec

        def matvec(v):
            count[0] += 1
            return base(v)

        counted = LinearOperator(op.shape, matvec=matvec, rmatvec=matvec, dtype=np.float64)
        v0 = check_random_state(0).standard_normal(n)
        with single_blas_thread():
            vals, vecs = eigsh(counted, k=k, which="LA", tol=self.tol, v0=v0)
        order = np.argsort(vals)[::-1]
        vals, vecs = np.clip(vals[order], 0.0, None), vecs[:, order]
        # fix signs so the same seed gives the same picture
        signs = np.sign(vecs[np.argmax(np.abs(vecs), axis=0), np.arange(k)])
        vecs = vecs * np.where(signs == 0, 1.0, signs)
        return vals, vecs, count[0]

    def transform(self, X):
        """Project points on the fitted components.

        ``sum_i alpha_ik k_c(x, x_i)`` with ``k_c(x, x') = k(x, x') - r(x) - r(x') + g``
        (r the mean of k over the fitted points, g its grand mean); a point's cluster
        that holds no fitted point contributes 0 to k.

        Parameters
        ----------
        X : array-like of shape (n, D)
            The points.

        Returns
        -------
        ndarray of shape (n, n_components)
            Their coordinates; ``transform(X_fit)`` is ``embedding_`` up to rounding.
        """
        check_is_fitted(self, "dual_coef_")
        X = check_partition_points(X, self)
        A = self.algebra_
        ids = A.lookup(self.partitions_.labels(X))          # (m, n), -1: no fitted point
        n = A.n
        W = np.column_stack([self.dual_coef_, np.full(n, 1.0 / n)])
        sums = np.vstack([A.indicators().T @ W, np.zeros((1, W.shape[1]))])  # row -1 -> 0
        cross = np.zeros((X.shape[0], W.shape[1]))
        for r in range(A.m):  # loop over partitions, not points
            cross += sums[ids[r]]
        cross /= A.m
        K_alpha, row_mean = cross[:, :-1], cross[:, -1]
        alpha_sum = self.dual_coef_.sum(axis=0)
        grand = self._K_row_mean.mean()
        return (K_alpha - row_mean[:, None] * alpha_sum[None, :] - self._K_alpha_mean[None, :]
                + grand * alpha_sum[None, :])

    @docfiller({"fit_params": sections(fit.__doc__, "Parameters")})
    def fit_transform(self, X, y=None):
        """Fit and return the embedding of the fitted points.

        Equal to ``transform(X)`` up to rounding.

        %(fit_params)s

        Returns
        -------
        ndarray of shape (N, n_components)
            ``embedding_``.
        """
        return self.fit(X, y).embedding_
