"""The debiased Mondrian forest's constants: the generalized jackknife over lifetimes,
the asymptotic variance constant, the interval's normal quantile and the plug-in lifetime.

Helpers of :mod:`mondrian_core.forest.debiased`, which re-exports the public ones; kept
apart so the estimator's module holds the trees and the estimator (Cattaneo, Klusowski
and Underwood 2023, sec. 3-6).

References
----------
Cattaneo, Klusowski and Underwood, "Inference with Mondrian Random Forests", arXiv
2310.09702 (2023); J. R. Stat. Soc. B 88(3) (2026).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.polynomial import polynomial as P
from scipy.stats import norm

from mondrian_core._validation import check_count
from mondrian_core.errors import InputError

__all__ = ["MAX_DEBIAS_ORDER", "VARIANCE_CONSTANT_1D", "check_ratios", "debias_weights",
           "default_lifetime_ratios", "normal_quantile", "polynomial_lifetime",
           "variance_constant"]

#: ``(4 - 4 log 2) / 3``: the variance constant of one dimension (Theorem 3.1).
VARIANCE_CONSTANT_1D = (4.0 - 4.0 * np.log(2.0)) / 3.0
#: The most debiasing orders (the paper uses J in {0, 1, 2}; beyond, the weights explode).
MAX_DEBIAS_ORDER = 4


# ------------------------------------------------------------------ weights, constants
def default_lifetime_ratios(debias_order: int) -> np.ndarray:
    """The lifetime ratios ``a_r = 1.5^r``, ``r = 0..J`` (the authors' code's choice).

    Parameters
    ----------
    debias_order : int
        The debiasing order J.

    Returns
    -------
    ndarray of shape (J + 1,)
        The ratios, ``a_0 = 1``.
    """
    return 1.5 ** np.arange(check_count(debias_order, "debias_order", minimum=0) + 1.0)


def check_ratios(ratios, debias_order: int) -> np.ndarray:
    """Validate ``lifetime_ratios`` for order ``debias_order``: ``None`` gives 1.5**r.

    Raises :class:`~mondrian_core.errors.InputError` unless they are ``debias_order + 1``
    distinct positive numbers.
    """
    if ratios is None:
        return default_lifetime_ratios(debias_order)
    try:
        a = np.asarray(ratios, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        a = np.array([np.nan])
    if (a.size != debias_order + 1 or not np.all(np.isfinite(a)) or np.any(a <= 0)
            or len(np.unique(a)) != a.size):
        raise InputError(
            f"lifetime_ratios must hold debias_order + 1 = {debias_order + 1} distinct "
            f"positive numbers (one lifetime multiple per forest, the first usually 1); got "
            f"{ratios!r}. Leave it None for 1.5**r.")
    return a


def debias_weights(lifetime_ratios) -> np.ndarray:
    """The generalized jackknife's weights ``omega`` for lifetimes ``a_r * lambda``.

    They solve ``sum_r omega_r a_r^(-2s) = 1{s = 0}`` for ``s = 0..J`` (Cattaneo,
    Klusowski and Underwood, sec. 4), solved as written: row ``s`` of the matrix holds
    ``a_r^(-2s)`` over ``r``. (Written as ``A^-1 e_0`` with ``A`` transposed, as in the
    paper and its code, the result is right only for geometric ratios or J <= 1.)

    Parameters
    ----------
    lifetime_ratios : array-like of shape (J + 1,)
        Distinct positive ratios ``a_r``.

    Returns
    -------
    ndarray of shape (J + 1,)
        The weights; they sum to 1.

    Raises
    ------
    InputError
        If the ratios are not distinct positive numbers.
    """
    a = np.asarray(lifetime_ratios, dtype=float).reshape(-1)
    a = check_ratios(a, a.size - 1)
    s = np.arange(a.size)[:, None]
    A = a[None, :] ** (-2.0 * s)
    e0 = np.zeros(a.size)
    e0[0] = 1.0
    return np.linalg.solve(A, e0)


def variance_constant(d: int, lifetime_ratios=(1.0,), omega=None) -> float:
    """The asymptotic variance constant ``V`` of the (debiased) forest.

    At unit noise and density: ``Var(mu_hat(x)) ~ lambda^d / n * sigma^2(x) / f(x) * V``.

    ``V = sum_r sum_r' omega_r omega_r' (l_rr' + l_r'r)^d`` with ``l_rr' = (2 a_r / 3)
    (1 - (a_r / a_r') log(a_r' / a_r + 1))`` (Cattaneo, Klusowski and Underwood, Theorem
    4.1); for J = 0 it is ``((4 - 4 log 2) / 3)^d`` (Theorem 3.1).

    Parameters
    ----------
    d : int
        The dimension.
    lifetime_ratios : array-like, default=(1.0,)
        The ratios ``a_r``.
    omega : array-like or None, default=None
        The weights; None for :func:`debias_weights` of the ratios.

    Returns
    -------
    float
        The constant.
    """
    d = check_count(d, "d")
    a = np.asarray(lifetime_ratios, dtype=float).reshape(-1)
    w = debias_weights(a) if omega is None else np.asarray(omega, dtype=float)
    ratio = a[:, None] / a[None, :]
    ell = (2.0 * a[:, None] / 3.0) * (1.0 - ratio * np.log(1.0 / ratio + 1.0))
    return float(w @ (ell + ell.T) ** d @ w)


@lru_cache(maxsize=64)
def normal_quantile(level: float) -> float:
    """``z`` with ``P(|N(0, 1)| <= z) = level`` (scipy's ppf costs a millisecond a call)."""
    return float(norm.ppf(0.5 + level / 2))


# ------------------------------------------------------------------ lifetime selection
def polynomial_lifetime(U, y, debias_order: int, lifetime_ratios) -> float:
    """The lifetime minimising the asymptotic integrated MSE, with a polynomial plug-in.

    ``AIMSE(lambda) = omega_bar^2 / (J + 2)^2 lambda^(-4J-4) int (sum_j d_j^(2J+2) mu)^2
    + lambda^d sigma^2 / n V`` (Cattaneo, Klusowski and Underwood, sec. 6; uniform X,
    homoscedastic noise), with ``mu`` a least-squares polynomial without interactions
    (1 and ``x_j^k``, ``k = 1..2J+4``) whose derivatives are taken exactly, ``sigma^2``
    its residual variance and ``V`` :func:`variance_constant`. Minimised in closed form:
    ``lambda^(4J+4+d) = (4J+4) C_bias / (d C_var)``.

    Parameters
    ----------
    U : ndarray of shape (n, d)
        Training points in the unit cube.
    y : ndarray of shape (n,)
        Responses.
    debias_order : int
        J.
    lifetime_ratios : array-like of shape (J + 1,)
        The ratios ``a_r``.

    Returns
    -------
    float
        The lifetime, clipped to ``[0.5, n^(1/d)]``.

    Raises
    ------
    InputError
        If there are too few points for the polynomial.
    """
    n, d = U.shape
    J = debias_order
    degree = 2 * J + 4
    dof = n - degree * d - 1
    if dof <= 0:
        raise InputError(f"lifetime='polynomial' fits {degree * d + 1} coefficients and "
                         f"needs more than that many points (got {n}); give a lifetime.")
    design = np.hstack([np.ones((n, 1))] + [U ** k for k in range(1, degree + 1)])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    sigma2 = float(np.sum((y - design @ coef) ** 2) / dof)
    derivs, means = [], []
    for j in range(d):
        poly = np.concatenate([[0.0], coef[1 + np.arange(degree) * d + j]])
        g = P.polyder(poly, 2 * J + 2)
        derivs.append(g)
        means.append(float(np.diff(P.polyval([0.0, 1.0], P.polyint(g)))[0]))
    integral = sum(float(np.diff(P.polyval([0.0, 1.0], P.polyint(P.polymul(g, g))))[0])
                   for g in derivs)
    integral += sum(means) ** 2 - sum(v * v for v in means)
    a = np.asarray(lifetime_ratios, dtype=float)
    omega = debias_weights(a)
    omega_bar = float(omega @ a ** (-2.0 * J - 2.0))
    c_bias = omega_bar ** 2 / (J + 2) ** 2 * integral
    c_var = sigma2 / n * variance_constant(d, a, omega)
    top = n ** (1.0 / d)
    if c_bias <= 0 or c_var <= 0:
        return 0.5 if c_bias <= 0 else top
    lam = ((4 * J + 4) * c_bias / (d * c_var)) ** (1.0 / (4 * J + 4 + d))
    return float(np.clip(lam, 0.5, top))
