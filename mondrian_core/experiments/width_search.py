"""Kernel-width search by retraining: the baseline of the paper's Figure 8.

Balog et al. (2016), "The Mondrian Kernel", Section 8.2: random Fourier features and
random binning must be rebuilt and retrained for every lifetime tried. Starting from
one lifetime, each step either doubles the largest or halves the smallest lifetime
tried so far, whichever side looks more promising; once the best lifetime is
bracketed, a bisection (in log-lifetime) refines it. The Mondrian sweep instead
evaluates every lifetime in one pass (:func:`~mondrian_core.sweep.lifetime_path`).
All methods use the same number of non-zero features per point (``n_trees``
Mondrians, ``n_trees`` Fourier components, ``n_trees`` binning grids).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from mondrian_core._linalg import ridge_weights
from mondrian_core.errors import InputError
from mondrian_core.kernel import RandomBinningFeatures, RandomFourierFeatures

__all__ = ["SearchTrace", "ridge_validation_rmse", "doubling_bisection_search",
           "retrained_search", "sweep_trace", "figure8_traces", "Figure8AtScale",
           "figure8_at_scale"]


@dataclass(frozen=True)
class SearchTrace:
    """One method's search: the lifetimes tried, their errors and when each was known.

    Parameters
    ----------
    method : str
        The method's name (legend text).
    lifetimes : ndarray
        The lifetimes tried, in order.
    val_rmse : ndarray
        The validation RMSE at each.
    seconds : ndarray
        Wall-clock seconds from the search's start at which each was known.
    fits : ndarray, optional
        The work done when each was known, counted in from-scratch fits: feature maps
        built and ridge systems solved for one lifetime (a retrained search: 1, 2,
        3, ...; the sweep: 1 for every lifetime, its one pass over the trees). Default:
        one fit per entry. A count, not a cost: the sweep's one pass costs more than
        one fit at a small lifetime (the wall-clock ``seconds`` say how much).
    """

    method: str
    lifetimes: np.ndarray
    val_rmse: np.ndarray
    seconds: np.ndarray
    fits: np.ndarray | None = None

    def fits_to_reach(self, rmse: float) -> float:
        """Return the work done, in fits, until an error of at most ``rmse`` was known.

        Parameters
        ----------
        rmse : float
            The validation RMSE to reach.

        Returns
        -------
        float
            The count in ``fits`` at the first entry reaching ``rmse``, or ``inf``.
        """
        fits = np.arange(1, self.val_rmse.size + 1) if self.fits is None else self.fits
        return self._when_reached(rmse, fits)

    def _when_reached(self, rmse, values) -> float:
        """``values`` at the first entry whose error is ``<= rmse``; ``inf`` if none."""
        hit = np.flatnonzero(self.val_rmse <= rmse)
        return float(values[hit[0]]) if hit.size else float("inf")

    @property
    def best_index(self) -> int:
        """The entry with the smallest validation RMSE (the first, on ties)."""
        return int(np.argmin(self.val_rmse))

    @property
    def best_so_far(self) -> np.ndarray:
        """The smallest validation RMSE found up to each step."""
        return np.minimum.accumulate(self.val_rmse)

    def time_to_reach(self, rmse: float) -> float:
        """Return the seconds until the validation RMSE first reached ``rmse``.

        Parameters
        ----------
        rmse : float
            The target error.

        Returns
        -------
        float
            Seconds until an error ``<= rmse`` was known; ``inf`` if never.
        """
        return self._when_reached(rmse, self.seconds)


def ridge_validation_rmse(Phi, y, Phi_val, y_val, noise_variance, prior_variance) -> float:
    """Return the validation RMSE of ridge regression on features.

    Solves in the primal (``C x C``) or the dual (``N x N``), whichever is smaller.

    Parameters
    ----------
    Phi : ndarray or sparse matrix of shape (N, C)
        Training features.
    y : ndarray of shape (N,)
        Training targets.
    Phi_val : ndarray or sparse matrix of shape (N_val, C_val)
        Validation features; columns beyond ``C`` (cells only validation points
        occupy) get weight zero.
    y_val : ndarray of shape (N_val,)
        Validation targets.
    noise_variance, prior_variance : float
        The ridge penalty is their ratio.

    Returns
    -------
    float
        The validation RMSE.
    """
    ratio = noise_variance / prior_variance
    N, C = Phi.shape
    if sp.issparse(Phi):
        Phi, Phi_val = sp.csr_matrix(Phi), sp.csr_matrix(Phi_val)
    if Phi_val.shape[1] > C:
        # cells/bins that only validation points occupy come after the fitted ones and
        # carry no training point: their ridge weight is zero
        Phi_val = Phi_val[:, :C]
    pred = Phi_val @ ridge_weights(Phi, y, ratio)
    return float(np.sqrt(np.mean((np.ravel(pred) - y_val) ** 2)))


def doubling_bisection_search(evaluate, start=1.0, max_evals=12, max_lifetime=None):
    """Search the lifetime minimising ``evaluate(lifetime)`` as in Section 8.2.

    Doubling/halving until the best lifetime tried has a worse neighbour on both
    sides, then bisection in log-lifetime between the best and its neighbours.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(lifetime) -> float``, the score to minimise.
    start : float, default=1.0
        The first lifetime tried.
    max_evals : int, default=12
        The most evaluations.
    max_lifetime : float, optional
        Never double beyond this.

    Returns
    -------
    lifetimes : ndarray
        The lifetimes in the order tried.
    scores : ndarray
        Their scores.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 8.2.
    """
    tried: dict[float, float] = {}

    def ev(lam):
        if lam not in tried and len(tried) < max_evals:
            tried[lam] = float(evaluate(lam))

    ev(float(start))
    while len(tried) < max_evals:
        lams = sorted(tried)
        best = min(lams, key=tried.get)
        lo, hi = lams[0], lams[-1]
        if best == hi and (max_lifetime is None or 2 * hi <= max_lifetime):
            ev(2 * hi)
            if best == lo and len(lams) == 1:
                ev(lo / 2)
            continue
        if best == lo:
            ev(lo / 2)
            continue
        i = lams.index(best)
        left, right = lams[i - 1] if i > 0 else None, lams[i + 1] if i + 1 < len(lams) else None
        cands = [np.sqrt(best * n) for n in (left, right) if n is not None]
        cands = [c for c in cands if c not in tried and not np.isclose(c, best, rtol=1e-6)]
        if not cands:
            break
        for c in cands:
            ev(float(c))
    order = list(tried)
    return np.array(order), np.array([tried[k] for k in order])


def retrained_search(make_features, X, y, X_val, y_val, noise_variance=0.1, prior_variance=1.0,
                     start=1.0, max_evals=12, max_lifetime=None, method="", progress=None):
    """Time a doubling-then-bisection search that rebuilds features at each lifetime.

    Parameters
    ----------
    make_features : callable
        ``make_features(lifetime)`` returns an unfitted transformer (e.g.
        ``RandomFourierFeatures(lifetime=..., n_components=M, random_state=seed)``).
    X, y : ndarray of shape (N, D) and (N,)
        Training data.
    X_val, y_val : ndarray of shape (N_val, D) and (N_val,)
        Validation data.
    noise_variance, prior_variance : float, default=0.1 and 1.0
        The ridge penalty is their ratio.
    start : float, default=1.0
        The first lifetime tried.
    max_evals : int, default=12
        The most lifetimes tried.
    max_lifetime : float, optional
        Never double beyond this.
    method : str, default=""
        The method's name in the trace.
    progress : callable, optional
        Called with the fraction of ``max_evals`` done after each evaluation.

    Returns
    -------
    SearchTrace
        The lifetimes tried, their validation RMSE and when each was known.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 8.2.
    """
    t0 = time.perf_counter()
    stamps = []

    def evaluate(lam):
        feats = make_features(lam).fit(X)
        err = ridge_validation_rmse(feats.transform(X), y, feats.transform(X_val), y_val,
                                    noise_variance, prior_variance)
        stamps.append(time.perf_counter() - t0)
        if progress is not None:
            progress(len(stamps) / max_evals)
        return err

    lams, errs = doubling_bisection_search(evaluate, start, max_evals, max_lifetime)
    return SearchTrace(method, lams, errs, np.array(stamps), fits=np.arange(1, lams.size + 1))


def sweep_trace(path, method="Mondrian sweep") -> SearchTrace:
    """Return the sweep as a search trace: every event's lifetime, error and time.

    Parameters
    ----------
    path : LifetimePath
        A sweep with validation data.
    method : str, default="Mondrian sweep"
        The method's name in the trace.

    Returns
    -------
    SearchTrace
        One entry per event of the sweep.

    Raises
    ------
    InputError
        If the sweep has no validation data.
    """
    if not np.isfinite(path.val_rmse).any():
        raise InputError("The sweep has no validation data; Figure 8 needs a validation set.")
    return SearchTrace(method, path.lifetimes, path.val_rmse, path.seconds,
                       fits=np.ones(path.lifetimes.size, dtype=int))


def figure8_traces(path, X, y, X_val, y_val, n_trees, noise_variance=0.1, prior_variance=1.0,
                   max_evals=12, random_state=None, progress=None) -> list[SearchTrace]:
    """Compute Figure 8: the sweep against retrained Fourier and binning searches.

    Each method uses ``n_trees`` non-zero features per point.

    Parameters
    ----------
    path : LifetimePath
        The sweep, with validation data.
    X, y : ndarray of shape (N, D) and (N,)
        Training data (those of the sweep).
    X_val, y_val : ndarray of shape (N_val, D) and (N_val,)
        Validation data.
    n_trees : int
        Fourier components and binning grids of the retrained searches.
    noise_variance, prior_variance : float, default=0.1 and 1.0
        The ridge penalty is their ratio.
    max_evals : int, default=12
        The most lifetimes each retrained search tries.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Seeds the retrained feature maps.
    progress : callable, optional
        Called with the fraction done as the retrained searches go.

    Returns
    -------
    list of SearchTrace
        ``[sweep, Fourier, binning]`` (validation error against seconds).

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 8.2.
    """
    makers = [("random Fourier features",
               lambda lam: RandomFourierFeatures(lam, n_components=n_trees,
                                                 random_state=random_state)),
              ("random binning",
               lambda lam: RandomBinningFeatures(lam, n_grids=n_trees, random_state=random_state))]
    traces = [sweep_trace(path)]
    for i, (label, make) in enumerate(makers):
        step = None if progress is None else (lambda f, i=i: progress((i + min(f, 1.0)) / 2))
        traces.append(retrained_search(make, X, y, X_val, y_val, noise_variance=noise_variance,
                                       prior_variance=prior_variance, max_evals=max_evals,
                                       method=label, progress=step))
    return traces


@dataclass(frozen=True)
class Figure8AtScale:
    """Figure 8 on a data set large enough for a refit to cost something.

    Parameters
    ----------
    traces : list of SearchTrace
        ``[sweep, Fourier, binning]``, each timed in the same process, one after the other.
    description : str
        The data set's description.
    n_train, n_val, n_dims : int
        Training and validation points, inputs.
    n_trees : int
        Mondrian trees, Fourier components and binning grids (non-zero features per point).
    terminal_lifetime : float
        The sweep's largest lifetime.
    """

    traces: list
    description: str
    n_train: int
    n_val: int
    n_dims: int
    n_trees: int
    terminal_lifetime: float


def figure8_at_scale(n_points=8400, n_dims=8, noise_std=0.1, n_trees=50, n_cells=100,
                     noise_variance=0.01, prior_variance=1.0, max_evals=12, random_state=0,
                     progress=None) -> Figure8AtScale:
    """Run Figure 8 on Friedman's first function: the sweep against retrained searches.

    Draws :func:`~mondrian_core.datasets.friedman1` (features and target standardised),
    splits it 60/20/20 (the test part is unused), sweeps the lifetime with ``n_trees``
    Mondrians up to the lifetime giving ``n_cells`` cells per tree, then runs the
    retrained Fourier and binning searches (:func:`figure8_traces`), all in this process.

    Parameters
    ----------
    n_points : int, default=8400
        Points drawn (60% train, 20% validation).
    n_dims : int, default=8
        Inputs (the first five matter).
    noise_std : float, default=0.1
        Noise of the target before standardising.
    n_trees : int, default=50
        Non-zero features per point of every method.
    n_cells : float, default=100
        Expected cells per tree at the sweep's terminal lifetime.
    noise_variance, prior_variance : float, default=0.01 and 1.0
        The ridge penalty is their ratio.
    max_evals : int, default=12
        The most lifetimes each retrained search tries.
    random_state : int, default=0
        Seeds the data, the split, the Mondrians and the retrained feature maps.
    progress : callable, optional
        Called with the fraction done (the sweep is counted as 40% of the work).

    Returns
    -------
    Figure8AtScale
        The three traces and what they were run on.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 8.2 and Figure 8.
    """
    from mondrian_core.datasets import friedman1, train_val_test_split
    from mondrian_core.sweep import lifetime_for_cells, lifetime_path

    data = friedman1(n_points, n_dims, noise_std, random_state=random_state).standardize(target=True)
    train, val, _ = train_val_test_split(data, (0.6, 0.2, 0.2), random_state=random_state)
    terminal = float(f"{lifetime_for_cells(train.X, n_cells):.3g}")
    share = 0.4

    def part(lo, hi):
        return None if progress is None else (lambda f: progress(lo + (hi - lo) * min(f, 1.0)))

    path = lifetime_path(train.X, train.y, val.X, val.y, terminal_lifetime=terminal,
                         n_trees=n_trees, noise_variance=noise_variance,
                         prior_variance=prior_variance, random_state=random_state,
                         progress=part(0.0, share))
    traces = figure8_traces(path, train.X, train.y, val.X, val.y, n_trees,
                            noise_variance=noise_variance, prior_variance=prior_variance,
                            max_evals=max_evals, random_state=random_state,
                            progress=part(share, 1.0))
    return Figure8AtScale(traces=traces, description=data.description, n_train=train.n_samples,
                          n_val=val.n_samples, n_dims=n_dims, n_trees=n_trees,
                          terminal_lifetime=terminal)
