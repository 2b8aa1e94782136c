"""Linear algebra shared by the learners: one ridge solve, one one-hot feature builder."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve

__all__ = ["as_dense", "kernel_ridge_coefficients", "one_hot_csr", "ridge_weights"]


def as_dense(A) -> np.ndarray:
    """Return ``A`` as a dense float array (a new array).

    Parameters
    ----------
    A : array-like or sparse matrix
        The matrix.

    Returns
    -------
    ndarray
        Its entries, dense.
    """
    return A.toarray() if sp.issparse(A) else np.array(A, dtype=float)


def kernel_ridge_coefficients(K, y, ratio: float) -> np.ndarray:
    """Return ``(K + ratio I)^{-1} y`` by a Cholesky factorisation.

    Parameters
    ----------
    K : array-like or sparse matrix of shape (N, N)
        A positive semi-definite kernel matrix.
    y : array-like of shape (N,)
        The targets.
    ratio : float
        The ridge penalty (> 0).

    Returns
    -------
    ndarray of shape (N,)
        The dual coefficients.
    """
    A = as_dense(K)
    A[np.diag_indices_from(A)] += ratio
    return cho_solve(cho_factor(A, lower=True, check_finite=False), np.asarray(y, float),
                     check_finite=False)


def ridge_weights(Phi, y, ratio: float) -> np.ndarray:
    """Return the ridge weights ``(Phi^T Phi + ratio I)^{-1} Phi^T y``.

    Solved in the smaller of the two spaces: the ``C x C`` primal system when there are
    no more features C than rows N, else the ``N x N`` dual one,
    ``Phi^T (Phi Phi^T + ratio I)^{-1} y`` (the push-through identity); both are exact.

    Parameters
    ----------
    Phi : array-like or sparse matrix of shape (N, C)
        The features of the training rows.
    y : array-like of shape (N,)
        The targets.
    ratio : float
        The ridge penalty (``noise_variance / prior_variance`` in the Bayesian reading).

    Returns
    -------
    ndarray of shape (C,)
        The weights.
    """
    y = np.asarray(y, dtype=float)
    n, c = Phi.shape
    if c <= n:
        A = as_dense(Phi.T @ Phi)
        A[np.diag_indices_from(A)] += ratio
        return cho_solve(cho_factor(A, lower=True, check_finite=False), Phi.T @ y,
                         check_finite=False)
    return Phi.T @ kernel_ridge_coefficients(Phi @ Phi.T, y, ratio)


def one_hot_csr(cols: np.ndarray, n_columns: int, value: float) -> sp.csr_matrix:
    """Return the CSR matrix whose row i is ``value`` at the columns ``cols[i, :]``.

    Parameters
    ----------
    cols : ndarray of int, shape (N, B)
        The non-zero columns of each row (one per tree or partition).
    n_columns : int
        The number of columns.
    value : float
        The value of every non-zero (``1 / sqrt(B)`` for the kernels' feature maps).

    Returns
    -------
    scipy.sparse.csr_matrix of shape (N, n_columns)
        The one-hot rows.
    """
    n, b = cols.shape
    indptr = np.arange(0, n * b + 1, b, dtype=np.int64)
    data = np.full(n * b, value)
    return sp.csr_matrix((data, np.ascontiguousarray(cols).reshape(-1), indptr),
                         shape=(n, n_columns))
