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
  (each tree's ridge leaf value, rescaled). This is the paper's "forest" (in quotes
  there): per-tree ridge leaves, no hierarchical smoothing, unlike the online
  Mondrian forest of Lakshminarayanan et al. (2014).

The forest objective is the kernel objective plus the trees' disagreement: with
``ybar_n = (1/M) sum_m yhat_n^(m) = phi_n . w`` (the same prediction in both models),

    (1/M) sum_m (y_n - yhat_n^(m))^2 = (y_n - ybar_n)^2 + (1/M) sum_m (yhat_n^(m) - ybar_n)^2

(the ambiguity decomposition of Krogh and Vedelsby 1995), so summed over the rows
``forest(w) = kernel(w) + disagreement(w)`` (:func:`disagreement`): the forest fit pays
for trees that disagree, the joint fit does not, and needs its ridge penalty more.

The paper fits the kernel's weights not exactly but by stochastic gradient descent
along its lifetime sweep (:func:`paper_sgd_path`, one epoch after every cut), which is
where its Figure 10 and this module's exact weights part.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDRegressor

from mondrian_core._docstrings import docfiller, fill_doc, params, sections
from mondrian_core._linalg import ridge_weights
from mondrian_core._validation import check_points, check_random_state, check_real, check_target
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


@docfiller({"data": params(fit_kernel_weights.__doc__, "Phi", "y")})
def fit_forest_weights(Phi, y, ratio: float, n_trees: int) -> np.ndarray:
    """Fit independent per-tree ridge leaf values, ``S_c / (n_c + ratio) / sqrt(M)``.

    Parameters
    ----------
    %(data)s
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


@docfiller({"features": params(fit_kernel_weights.__doc__, "Phi")})
def tree_predictions(Phi, w, n_trees: int) -> np.ndarray:
    """Return each tree's prediction ``sqrt(M) * w[cell]`` for every row.

    Parameters
    ----------
    %(features)s
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


@docfiller({"data": params(fit_kernel_weights.__doc__, "Phi", "y"),
            "w": params(tree_predictions.__doc__, "w")})
def objectives(Phi, y, w, ratio: float, n_trees: int) -> tuple[float, float]:
    """Evaluate both objectives at weights ``w``: loss of the average, average of losses.

    Parameters
    ----------
    %(data)s
    %(w)s
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


@docfiller({"passed_on": params(tree_predictions.__doc__, "Phi", "w", "n_trees")})
def disagreement(Phi, w, n_trees: int) -> float:
    """Return the trees' disagreement ``sum_n (1/M) sum_m (yhat_n^(m) - ybar_n)^2``.

    The spread of the M trees' predictions around their average, summed over the
    rows: the forest objective minus the kernel objective (module docstring).

    Parameters
    ----------
    %(passed_on)s

    Returns
    -------
    float
        The disagreement (>= 0).

    References
    ----------
    Krogh and Vedelsby (1995), "Neural network ensembles, cross validation, and active
    learning", NIPS (the ambiguity decomposition).
    """
    trees = tree_predictions(Phi, w, n_trees)
    return float(np.sum(np.var(trees, axis=1)))


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


#: The weights question's rule: standard deviations within 25% of each other are "the same".
SPREAD_TOLERANCE = 0.25


def spread_verdict(kernel_weights, forest_weights, tolerance=SPREAD_TOLERANCE) -> str:
    """Say whose weights spread wider: ``"kernel"``, ``"forest"`` or ``"same"``.

    Parameters
    ----------
    kernel_weights, forest_weights : array-like
        The two fits' weights.
    tolerance : float, default=0.25
        The larger standard deviation at most ``1 + tolerance`` times the smaller
        counts as ``"same"``.

    Returns
    -------
    str
        ``"kernel"``, ``"forest"`` or ``"same"``.
    """
    tolerance = check_real(tolerance, "tolerance")
    sk, sf = float(np.std(kernel_weights)), float(np.std(forest_weights))
    if max(sk, sf) <= (1 + tolerance) * min(sk, sf):
        return "same"
    return "kernel" if sk > sf else "forest"


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
    disagreements : dict
        ``disagreements[fit]``: the trees' disagreement (:func:`disagreement`) at that
        fit's weights, the forest objective minus the kernel objective.
    n_trees : int
        Number of trees M.
    n_train : int
        Number of training points N.
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
    disagreements: dict
    n_trees: int
    n_train: int

    @property
    def forest_leaf_values(self) -> np.ndarray:
        """The forest's weights as each tree's leaf values, ``sqrt(M)`` times the weights.

        The scale the paper's code stores them in for its Figure 10.
        """
        return self.forest_weights * np.sqrt(self.n_trees)

    @property
    def spread_ratio(self) -> float:
        """The larger of the two weight standard deviations over the smaller (>= 1)."""
        sk, sf = float(np.std(self.kernel_weights)), float(np.std(self.forest_weights))
        return max(sk, sf) / min(sk, sf) if min(sk, sf) > 0 else float("inf")

    @property
    def points_per_cell(self) -> float:
        """Mean number of training points per cell, ``N M / C``: 1 once every point is alone."""
        return self.n_train * self.n_trees / max(self.kernel_weights.size, 1)

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

    def wider(self, tolerance=SPREAD_TOLERANCE) -> str:
        """Say whose weights spread wider: ``"kernel"``, ``"forest"`` or ``"same"``.

        The rule the page states: ``"same"`` when the two standard deviations are
        within ``tolerance`` of each other (the larger at most ``1 + tolerance``
        times the smaller), else the fit with the larger one.

        Parameters
        ----------
        tolerance : float, default=0.25
            Relative difference of the standard deviations still called "the same".

        Returns
        -------
        str
            ``"kernel"``, ``"forest"`` or ``"same"``.
        """
        return spread_verdict(self.kernel_weights, self.forest_weights, tolerance)


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


@fill_doc
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
    %(random_state)s

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


@docfiller({"data": params(kernel_vs_forest_path.__doc__, "X_train", "X_test"),
            "model": params(kernel_vs_forest_path.__doc__, "n_trees", "noise_variance",
                            "random_state"),
            "raises_references": sections(kernel_vs_forest_path.__doc__, "Raises",
                                          "References")})
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
    %(data)s
    lifetime : float
        The lifetime, in ``[0, terminal_lifetime]``.
    %(model)s
    terminal_lifetime : float, optional
        The lifetime the Mondrians are sampled to; default ``lifetime``.

    Returns
    -------
    KernelForestWeights
        Both fits' weights, objectives and errors.

    %(raises_references)s
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
    values, losses, spread = {}, {}, {}
    for name, w in (("kernel", wk), ("forest", wf)):
        k_obj, f_obj = objectives(Phi, yc, w, ratio, n_trees)
        values[name] = {"kernel": k_obj, "forest": f_obj}
        spread[name] = disagreement(Phi, w, n_trees)
        trees = tree_predictions(Phi, w, n_trees)
        losses[name] = (float(np.mean((yc - Phi @ w) ** 2)),
                        float(np.mean((yc[:, None] - trees) ** 2)))
    return KernelForestWeights(
        float(lifetime), wk, wf, values,
        _rmse(Phi_test @ _pad(wk, Phi_test.shape[1]) + mean, y_test),
        _rmse(Phi_test @ _pad(wf, Phi_test.shape[1]) + mean, y_test),
        losses["kernel"], losses["forest"], spread, int(n_trees), int(Phi.shape[0]))


# ----------------------------------------------------------------- the paper's SGD
#: The paper's step sizes: scikit-learn's SGDRegressor defaults, which their code keeps
#: (inverse scaling, ``eta_t = eta0 / t ** power_t``, ``t`` counted from 1 in every call).
PAPER_SGD_STEP = {"learning_rate": "invscaling", "eta0": 0.01, "power_t": 0.25}


def sgd_epoch(Z, y, w, alpha, random_state=None) -> np.ndarray:
    """Run one epoch of SGD on the ridge objective from ``w``, as the paper's code does.

    scikit-learn's ``SGDRegressor(alpha=alpha, fit_intercept=False)`` with one pass over
    the shuffled rows (the paper's ``n_iter=1``), its default inverse-scaling step sizes
    (:data:`PAPER_SGD_STEP`) and warm-started at ``w``. It minimises
    ``mean_n (y_n - Z_n w)^2 / 2 + alpha ||w||^2 / 2``, i.e. the ridge objective
    ``||y - Z w||^2 + N alpha ||w||^2`` up to a factor.

    Parameters
    ----------
    Z : sparse matrix of shape (N, C)
        Features.
    y : array-like of shape (N,)
        Centred targets.
    w : array-like of shape (C,)
        The starting weights.
    alpha : float
        The ``alpha`` of scikit-learn (>= 0).
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Seeds the shuffle.

    Returns
    -------
    ndarray of shape (C,)
        The weights after the epoch.

    References
    ----------
    Balog et al. (2016), "The Mondrian Kernel", UAI, sec. 4.2.1 and 8.3; their code
    (GitHub matejbalog/mondrian-kernel, ``mondrian_kernel.py``,
    ``evaluate_all_lifetimes``).
    """
    alpha = check_real(alpha, "alpha")
    seed = int(check_random_state(random_state).integers(2**31 - 1))
    sgd = SGDRegressor(alpha=alpha, fit_intercept=False, max_iter=1, tol=None,
                       random_state=seed, **PAPER_SGD_STEP)
    with warnings.catch_warnings():
        # one epoch is the paper's choice, not a failure to converge
        warnings.simplefilter("ignore", ConvergenceWarning)
        # a copy: scikit-learn updates coef_init in place
        sgd.fit(Z, np.asarray(y, dtype=float), coef_init=np.array(w, dtype=float))
    return sgd.coef_


@docfiller({"lifetimes": params(KernelForestPath.__doc__, "lifetimes")})
@dataclass(frozen=True)
class PaperSGDPath:
    """The kernel fitted the paper's way, by SGD along the lifetime sweep, at some lifetimes.

    Made by :func:`paper_sgd_path`.

    Parameters
    ----------
    %(lifetimes)s
    test_rmse, train_rmse : ndarray of shape (L,)
        Test and train RMSE of the SGD weights at each lifetime.
    weights : list of ndarray
        The SGD weights at each lifetime, in the column order of
        ``MondrianFeatures.transform`` (comparable with :class:`KernelForestWeights`).
    n_epochs : ndarray of int, shape (L,)
        SGD epochs run up to each lifetime (one per cut).
    alpha : float
        The ``alpha`` of scikit-learn used.
    """

    lifetimes: np.ndarray
    test_rmse: np.ndarray
    train_rmse: np.ndarray
    weights: list
    n_epochs: np.ndarray
    alpha: float

    def weights_at(self, lifetime) -> np.ndarray:
        """Return the weights at the read lifetime nearest ``lifetime``.

        Parameters
        ----------
        lifetime : float
            A lifetime.

        Returns
        -------
        ndarray
            The SGD weights there.
        """
        return self.weights[int(np.argmin(np.abs(np.log(self.lifetimes / float(lifetime)))))]


@docfiller({"data": params(kernel_vs_forest_path.__doc__, "X_train", "X_test"),
            "n_trees": params(kernel_vs_forest_path.__doc__, "n_trees"),
            "raises": sections(kernel_vs_forest_path.__doc__, "Raises")})
def paper_sgd_path(X_train, y_train, X_test, y_test, lifetimes, n_trees=50,
                   noise_variance=0.1, prior_variance=1.0, alpha=None, random_state=None,
                   progress: Callable[[float], None] | None = None) -> PaperSGDPath:
    """Fit the kernel's weights as the paper's code does: one SGD epoch after every cut.

    Samples the Mondrians exactly as :func:`kernel_vs_forest_path` (same
    ``random_state``, ``n_trees`` and largest lifetime, same trees) and walks their cuts
    in time order. At each cut the split cell's weight is copied to its two children
    (the cell's own weight set to 0) and one :func:`sgd_epoch` runs over all training
    rows from the previous weights, as in the paper's lifetime sweep (sec. 4.2.1). At
    each of ``lifetimes`` the weights are read and scored. So the exact and the SGD
    kernel differ only in how the weights are found.

    Parameters
    ----------
    %(data)s
    lifetimes : array-like of float
        Lifetimes (>= 0) at which to read and score the weights.
    %(n_trees)s
    noise_variance, prior_variance : float, default=0.1 and 1.0
        Both positive; the exact fits' ridge penalty is their ratio.
    alpha : float, optional
        The ``alpha`` of scikit-learn. Default ``ratio / N``: the same ridge objective as
        the exact kernel fit, so only the optimisation differs. The paper's code passes
        its ridge ``delta`` itself, a penalty N times stronger; at its ``delta = 1e-4``
        both are small.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Seeds the trees (as :func:`kernel_vs_forest_path`) and the epochs' shuffles.
    progress : callable, optional
        Called with the fraction of cuts done.

    Returns
    -------
    PaperSGDPath
        Errors and weights at each lifetime.

    %(raises)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 4.2.1 and 8.3 (Figures 9 and 10).
    """
    X_train, y_train, X_test, y_test = _check(X_train, y_train, X_test, y_test,
                                              noise_variance, prior_variance)
    ratio = noise_variance / prior_variance
    lifetimes = np.sort(np.asarray(lifetimes, dtype=float))
    if lifetimes.size == 0 or lifetimes[0] < 0:
        raise InputError("give at least one lifetime, all >= 0.")
    feats = _features(X_train, n_trees, float(lifetimes[-1]), random_state)
    trees = feats.trees_
    N, M = X_train.shape[0], trees.n_trees
    alpha = ratio / N if alpha is None else check_real(alpha, "alpha")
    rng = check_random_state(random_state)
    mean = float(y_train.mean())
    yc = y_train - mean
    nodes = trees.nodes_at(0.0).T.copy()               # (N, M): each point's cell per tree
    data, indptr = np.full(N * M, 1.0 / np.sqrt(M)), np.arange(0, N * M + 1, M)

    def features():
        # a fresh index array each time: the solver may sort a matrix's indices in place
        return sp.csr_matrix((data, nodes.ravel().copy(), indptr), shape=(N, trees.n_nodes))

    w = np.zeros(trees.n_nodes)
    events = trees.events()
    out = {k: [] for k in ("test", "train", "w", "epochs")}
    k = 0
    for lam in lifetimes:
        while k < events.size and trees.split_time[events[k]] <= lam:
            j = events[k]
            m = trees.tree[j]
            for child in (trees.left[j], trees.right[j]):
                nodes[trees.order[m, trees.start[child]:trees.stop[child]], m] = child
                w[child] = w[j]   # the split cell's weight to both children: same predictions
            w[j] = 0.0
            w = sgd_epoch(features(), yc, w, alpha, rng)
            k += 1
            if progress is not None and k % 200 == 0:
                progress(k / max(events.size, 1))
        cols, _ = feats.cells(X_train, lifetime=lam)
        w_col = np.zeros(feats.n_cells(lam))
        w_col[cols.ravel()] = w[nodes.ravel()]
        Phi_test = feats.transform(X_test, lifetime=lam)
        out["test"].append(_rmse(Phi_test @ _pad(w_col, Phi_test.shape[1]) + mean, y_test))
        out["train"].append(_rmse(features() @ w + mean, y_train))
        out["w"].append(w_col)
        out["epochs"].append(k)
    if progress is not None:
        progress(1.0)
    return PaperSGDPath(lifetimes, np.asarray(out["test"]), np.asarray(out["train"]),
                        out["w"], np.asarray(out["epochs"]), float(alpha))
