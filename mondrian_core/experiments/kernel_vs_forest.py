"""Mondrian kernel vs Mondrian forest on the same Mondrian samples.

Balog et al., "The Mondrian Kernel" (UAI 2016), section 6, section 8.3
(Figures 9 and 10) and Proposition 5 of the supplement. With ``Phi`` the
normalised one-hot cell features of M Mondrian trees (one non-zero
``1/sqrt(M)`` per tree per row), both models predict ``Phi @ w`` but fit ``w``
differently (``r = noise_variance / prior_variance``, targets centred):

* kernel (joint fit, "loss of the average")::

      min_w  sum_n (y_n - phi_n . w)^2 + r ||w||^2

* forest (each tree alone, "average of the losses", Proposition 5)::

      min_w  sum_n (1/M) sum_m (y_n - yhat_n^(m))^2 + r ||w||^2,
      yhat_n^(m) = sqrt(M) * w[cell of x_n in tree m]

  whose minimiser is, cell by cell, ``w_c = sum(y in c) / (n_c + r) / sqrt(M)``
  (each tree's ridge leaf value, rescaled).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from mondrian_core._linalg import ridge_weights
from mondrian_core._validation import check_points, check_real, check_target
from mondrian_core.errors import InputError


def _csr(Phi) -> sp.csr_matrix:
    Phi = sp.csr_matrix(Phi, dtype=float)
    Phi.sort_indices()
    return Phi


def fit_kernel_weights(Phi, y, ratio: float) -> np.ndarray:
    """Fit the joint ridge weights ``argmin ||y - Phi w||^2 + ratio ||w||^2``.

    Solved by Cholesky in the primal (C x C) or the dual (N x N), whichever is
    smaller.

    Parameters
    ----------
    Phi : sparse matrix of shape (N, C)
        Mondrian features (one non-zero ``1/sqrt(M)`` per tree per row).
    y : array-like of shape (N,)
        Centred targets.
    ratio : float
        The ridge penalty ``noise_variance / prior_variance`` (> 0).

    Returns
    -------
    ndarray of shape (C,)
        The weights of the kernel model.
    """
    return ridge_weights(_csr(Phi), y, ratio)


def fit_forest_weights(Phi, y, ratio: float, n_trees: int) -> np.ndarray:
    """Fit independent per-tree ridge leaf values, ``S_c / (n_c + ratio) / sqrt(M)``.

    Parameters
    ----------
    Phi : sparse matrix of shape (N, C)
        Mondrian features (one non-zero ``1/sqrt(M)`` per tree per row).
    y : array-like of shape (N,)
        Centred targets.
    ratio : float
        The ridge penalty ``noise_variance / prior_variance``.
    n_trees : int
        Number of trees M.

    Returns
    -------
    ndarray of shape (C,)
        The weights of the forest model (Proposition 5's minimiser).
    """
    Phi = _csr(Phi)
    y = np.asarray(y, dtype=float)
    scale = np.sqrt(n_trees)
    counts = np.asarray(Phi.sum(axis=0)).ravel() * scale   # points per cell
    sums = (Phi.T @ y) * scale                              # sum of y per cell
    return sums / (counts + ratio) / scale


def tree_predictions(Phi, w, n_trees: int) -> np.ndarray:
    """Return each tree's prediction ``sqrt(M) * w[cell]`` for every row.

    Parameters
    ----------
    Phi : sparse matrix of shape (N, C)
        Mondrian features (one non-zero ``1/sqrt(M)`` per tree per row).
    w : array-like of shape (C,)
        Weights.
    n_trees : int
        Number of trees M.

    Returns
    -------
    ndarray of shape (N, M)
        Tree predictions, trees in column order.

    Raises
    ------
    InputError
        If a row does not have one non-zero per tree.
    """
    Phi = _csr(Phi)
    N = Phi.shape[0]
    per_row = np.diff(Phi.indptr)
    if not np.all(per_row == n_trees):
        raise InputError("every row of the features must have one non-zero per tree.")
    return np.sqrt(n_trees) * np.asarray(w)[Phi.indices].reshape(N, n_trees)


def objectives(Phi, y, w, ratio: float, n_trees: int) -> tuple[float, float]:
    """Evaluate both objectives at weights ``w``: loss of the average, average of losses.

    Parameters
    ----------
    Phi : sparse matrix of shape (N, C)
        Mondrian features (one non-zero ``1/sqrt(M)`` per tree per row).
    y : array-like of shape (N,)
        Centred targets.
    w : array-like of shape (C,)
        Weights.
    ratio : float
        The ridge penalty.
    n_trees : int
        Number of trees M.

    Returns
    -------
    kernel : float
        The kernel objective ``||y - Phi w||^2 + ratio ||w||^2``.
    forest : float
        The forest objective, the trees' mean squared loss summed over rows plus
        the same penalty.
    """
    Phi = _csr(Phi)
    y = np.asarray(y, dtype=float)
    penalty = ratio * float(np.dot(w, w))
    kernel = float(np.sum((y - Phi @ w) ** 2)) + penalty
    trees = tree_predictions(Phi, w, n_trees)
    forest = float(np.mean(np.sum((y[:, None] - trees) ** 2, axis=0))) + penalty
    return kernel, forest


def lifetime_grid(largest, n_lifetimes, span=300.0) -> np.ndarray:
    """Return ``n_lifetimes`` lifetimes log-spaced from ``largest / span`` to ``largest``.

    The lifetimes of the kernel-vs-forest curve (the paper's Figure 9 spans a range
    of lifetimes on a log scale).

    Parameters
    ----------
    largest : float
        The largest lifetime (> 0).
    n_lifetimes : int
        How many lifetimes (>= 1).
    span : float, default=300.0
        Ratio of the largest to the smallest lifetime.

    Returns
    -------
    ndarray of shape (n_lifetimes,)
        The lifetimes, increasing.
    """
    return np.geomspace(largest / span, largest, int(n_lifetimes))


def _pad(w, n_columns):
    return np.concatenate([w, np.zeros(max(0, n_columns - w.size))])


def _rmse(a, b):
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


@dataclass(frozen=True)
class KernelForestPath:
    """Test and train RMSE of the two fits at each lifetime (paper's Figure 9).

    Made by :func:`kernel_vs_forest_path`.

    Parameters
    ----------
    lifetimes : ndarray of shape (L,)
        The lifetimes, sorted.
    kernel_test_rmse, forest_test_rmse : ndarray of shape (L,)
        Test RMSE of the kernel and forest fits.
    kernel_train_rmse, forest_train_rmse : ndarray of shape (L,)
        Training RMSE of the two fits.
    n_features : ndarray of int, shape (L,)
        Number of Mondrian features (cells over all trees) at each lifetime.
    """

    lifetimes: np.ndarray
    kernel_test_rmse: np.ndarray
    forest_test_rmse: np.ndarray
    kernel_train_rmse: np.ndarray
    forest_train_rmse: np.ndarray
    n_features: np.ndarray

    @property
    def best_kernel_index(self) -> int:
        """Index of the lifetime where the kernel's test RMSE is lowest."""
        return int(np.argmin(self.kernel_test_rmse))

    @property
    def best_forest_index(self) -> int:
        """Index of the lifetime where the forest's test RMSE is lowest."""
        return int(np.argmin(self.forest_test_rmse))

    @property
    def kernel_wins(self) -> np.ndarray:
        """Whether the kernel's test RMSE is at most the forest's, at each lifetime.

        Equal to rounding counts: the two fits coincide at the largest lifetimes.
        """
        return self.kernel_test_rmse <= self.forest_test_rmse + 1e-9


@dataclass(frozen=True)
class KernelForestWeights:
    """The weights each fit learns at one lifetime, and both objectives of both fits.

    The paper's Figure 10; made by :func:`kernel_forest_weights`.

    Parameters
    ----------
    lifetime : float
        The lifetime.
    kernel_weights, forest_weights : ndarray of shape (C,)
        The weights of the joint (kernel) and per-tree (forest) fits.
    objective_values : dict
        ``objective_values[fit][objective]``, fit and objective in ("kernel", "forest").
    kernel_test_rmse, forest_test_rmse : float
        Test RMSE of the two fits.
    kernel_train_losses, forest_train_losses : tuple of float
        Mean squared error of the average prediction and average over trees of each
        tree's mean squared error, on the training set.
    """

    lifetime: float
    kernel_weights: np.ndarray
    forest_weights: np.ndarray
    #: objective values: [fit][objective], fit and objective in ("kernel", "forest")
    objective_values: dict
    kernel_test_rmse: float
    forest_test_rmse: float
    #: mean squared error of the average prediction / average over trees of each tree's MSE
    kernel_train_losses: tuple
    forest_train_losses: tuple

    def weight_summary(self, near=0.05) -> dict:
        """Summarise each fit's weights: their spread and how many are near zero.

        Parameters
        ----------
        near : float, default=0.05
            "Near zero" means within ``near`` times the largest absolute weight of
            either fit.

        Returns
        -------
        dict
            ``{"kernel": {...}, "forest": {...}}``, each with ``std`` (standard
            deviation of the weights) and ``near_zero`` (their share near zero).
        """
        lim = max(np.abs(self.kernel_weights).max(initial=0),
                  np.abs(self.forest_weights).max(initial=0))
        return {name: {"std": float(np.std(w)),
                       "near_zero": float(np.mean(np.abs(w) <= near * lim)) if lim > 0 else 1.0}
                for name, w in (("kernel", self.kernel_weights), ("forest", self.forest_weights))}


def _features(X_train, n_trees, terminal, random_state):
    from mondrian_core.kernel import MondrianFeatures

    return MondrianFeatures(lifetime=terminal, n_trees=n_trees,
                            random_state=random_state).fit(X_train)


def _check(X_train, y_train, X_test, y_test, noise_variance, prior_variance):
    """Training and test data and the two variances, by the one validation layer."""
    X_train = check_points(X_train, "X_train", min_samples=2)
    X_test = check_points(X_test, "X_test", n_features=X_train.shape[1])
    y_train = check_target(y_train, X_train, "y_train")
    y_test = check_target(y_test, X_test, "y_test")
    check_real(noise_variance, "noise_variance", strict=True)
    check_real(prior_variance, "prior_variance", strict=True)
    return X_train, y_train, X_test, y_test


def kernel_vs_forest_path(X_train, y_train, X_test, y_test, lifetimes, n_trees=50,
                          noise_variance=0.1, prior_variance=1.0, random_state=None
                          ) -> KernelForestPath:
    """Compute Figure 9: RMSE against lifetime of the kernel and forest on the same Mondrians.

    One :class:`MondrianFeatures` is fitted up to ``max(lifetimes)``; at each
    lifetime both models are fitted on its features (test points outside the
    training cells fall in new cells, whose weights are 0 in both models).

    Parameters
    ----------
    X_train, y_train : array-like of shape (N, D) and (N,)
        Training data (at least 2 rows).
    X_test, y_test : array-like of shape (N_test, D) and (N_test,)
        Test data.
    lifetimes : array-like of float
        Lifetimes (>= 0) at which to fit both models.
    n_trees : int, default=50
        Number of Mondrian trees M.
    noise_variance, prior_variance : float, default=0.1 and 1.0
        Both positive; the ridge penalty is their ratio.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`).

    Returns
    -------
    KernelForestPath
        Train and test RMSE of both fits at each lifetime.

    Raises
    ------
    InputError
        If the data or a parameter is invalid.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 6 and 8.3 and Proposition 5 of the supplement.
    """
    X_train, y_train, X_test, y_test = _check(X_train, y_train, X_test, y_test,
                                              noise_variance, prior_variance)
    lifetimes = np.sort(np.asarray(lifetimes, dtype=float))
    if lifetimes.size == 0 or lifetimes[0] < 0:
        raise InputError("give at least one lifetime, all >= 0.")
    ratio = noise_variance / prior_variance
    feats = _features(X_train, n_trees, float(lifetimes[-1]), random_state)
    mean = y_train.mean()
    yc = y_train - mean
    out = {k: [] for k in ("kt", "ft", "kr", "fr", "nf")}
    for lam in lifetimes:
        Phi = feats.transform(X_train, lifetime=lam)
        Phi_test = feats.transform(X_test, lifetime=lam)
        wk = fit_kernel_weights(Phi, yc, ratio)
        wf = fit_forest_weights(Phi, yc, ratio, n_trees)
        for key, w in (("k", wk), ("f", wf)):
            out[key + "t"].append(_rmse(Phi_test @ _pad(w, Phi_test.shape[1]) + mean, y_test))
            out[key + "r"].append(_rmse(Phi @ w + mean, y_train))
        out["nf"].append(Phi.shape[1])
    return KernelForestPath(lifetimes, *(np.asarray(out[k]) for k in ("kt", "ft", "kr", "fr")),
                            np.asarray(out["nf"]))


def kernel_forest_weights(X_train, y_train, X_test, y_test, lifetime, n_trees=50,
                          noise_variance=0.1, prior_variance=1.0, random_state=None,
                          terminal_lifetime=None) -> KernelForestWeights:
    """Compute Figure 10: the weights each model learns at ``lifetime``, both objectives.

    The Mondrians are sampled up to ``terminal_lifetime`` (default ``lifetime``)
    and cut at ``lifetime``: with the same ``random_state``, ``n_trees`` and
    ``terminal_lifetime = max(lifetimes)`` they are the very samples of
    :func:`kernel_vs_forest_path`.

    Parameters
    ----------
    X_train, y_train : array-like of shape (N, D) and (N,)
        Training data (at least 2 rows).
    X_test, y_test : array-like of shape (N_test, D) and (N_test,)
        Test data.
    lifetime : float
        The lifetime, in ``[0, terminal_lifetime]``.
    n_trees : int, default=50
        Number of Mondrian trees M.
    noise_variance, prior_variance : float, default=0.1 and 1.0
        Both positive; the ridge penalty is their ratio.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`).
    terminal_lifetime : float, optional
        The lifetime the Mondrians are sampled to; default ``lifetime``.

    Returns
    -------
    KernelForestWeights
        Both fits' weights, objectives and errors.

    Raises
    ------
    InputError
        If the data or a parameter is invalid.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 6 and 8.3 and Proposition 5 of the supplement.
    """
    X_train, y_train, X_test, y_test = _check(X_train, y_train, X_test, y_test,
                                              noise_variance, prior_variance)
    terminal = float(lifetime if terminal_lifetime is None else terminal_lifetime)
    if not 0 <= lifetime <= terminal:
        raise InputError(f"lifetime must lie in [0, {terminal:g}], got {lifetime:g}.")
    feats = _features(X_train, n_trees, terminal, random_state)
    return weights_from_features(feats, X_train, y_train, X_test, y_test, lifetime, n_trees,
                                 noise_variance / prior_variance)


def weights_from_features(feats, X_train, y_train, X_test, y_test, lifetime, n_trees, ratio
                          ) -> KernelForestWeights:
    """Compute :func:`kernel_forest_weights` from already fitted features.

    Parameters
    ----------
    feats : MondrianFeatures
        Fitted on ``X_train`` up to a terminal lifetime >= ``lifetime``.
    X_train, y_train : array-like of shape (N, D) and (N,)
        Training data (at least 2 rows).
    X_test, y_test : array-like of shape (N_test, D) and (N_test,)
        Test data.
    lifetime : float
        The lifetime at which to read the features.
    n_trees : int
        Number of trees of ``feats``.
    ratio : float
        The ridge penalty ``noise_variance / prior_variance``.

    Returns
    -------
    KernelForestWeights
        Both fits' weights, objectives and errors.
    """
    mean = float(np.mean(y_train))
    yc = np.asarray(y_train, float) - mean
    Phi = feats.transform(X_train, lifetime=lifetime)
    Phi_test = feats.transform(X_test, lifetime=lifetime)
    wk = fit_kernel_weights(Phi, yc, ratio)
    wf = fit_forest_weights(Phi, yc, ratio, n_trees)
    values = {}
    losses = {}
    for name, w in (("kernel", wk), ("forest", wf)):
        k_obj, f_obj = objectives(Phi, yc, w, ratio, n_trees)
        values[name] = {"kernel": k_obj, "forest": f_obj}
        trees = tree_predictions(Phi, w, n_trees)
        losses[name] = (float(np.mean((yc - Phi @ w) ** 2)),
                        float(np.mean((yc[:, None] - trees) ** 2)))
    return KernelForestWeights(
        float(lifetime), wk, wf, values,
        _rmse(Phi_test @ _pad(wk, Phi_test.shape[1]) + mean, y_test),
        _rmse(Phi_test @ _pad(wf, Phi_test.shape[1]) + mean, y_test),
        losses["kernel"], losses["forest"])
