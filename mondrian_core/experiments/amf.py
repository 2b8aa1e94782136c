"""The aggregated Mondrian forest page's computations: one stream of a 1-D signal.

A Donoho-Johnstone signal arrives point by point. :func:`amf_signal_run` learns it
with an :class:`~mondrian_core.AMFRegressor` (no lifetime) and with fixed-lifetime
:class:`~mondrian_core.MondrianForestRegressor` forests at a too-small and a too-large
lifetime, and records: the fits and the posterior-weighted depth of the pruning along
x, one tree's nodes with their aggregation weights, and one tree's running
test-then-train loss against the best pruning of that tree in hindsight.

The best pruning at horizon ``t`` minimises ``L_T(t)``, the sum over the pruning's
leaves ``v`` of their cumulative losses ``-log w_v / step`` (each node charged with the
points that reached it, predicted from the points before them: the same losses the
aggregation weighs). Context-tree weighting's bound for an exp-concave loss
(Mourtada, Gaïffas and Scornet 2021, sections 3 and 5) compares the mixture with
``L_T + |T| log 2 / step`` for every pruning ``T`` (``|T|``: its nodes that are not
leaves of the full tree): the best pruning is taken with that price. (Without it the
full tree wins trivially: a leaf is never charged with the point that created it, so
leaves holding one point have no loss.)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mondrian_core._validation import check_count, check_random_state, check_real
from mondrian_core.datasets.synthetic import DJ_SIGNALS, donoho_johnstone
from mondrian_core.errors import InputError
from mondrian_core.forest import AMFRegressor, MondrianForestRegressor
from mondrian_core.trees import nodes_by_depth

#: Largest stream the page's run accepts (points x trees of the forests).
MAX_STREAM_WORK = 400_000


@dataclass
class AMFSignalRun:
    """What :func:`amf_signal_run` records.

    Parameters
    ----------
    signal : str
        The signal's name.
    X, y : ndarray
        The stream, (n, 1) and (n,), in arrival order.
    grid, truth : ndarray
        The grid on [0, 1] and the noise-free (scaled) signal on it.
    amf : ndarray
        The AMF forest's fit on the grid.
    fixed : dict of float to ndarray
        Each fixed lifetime's forest fit on the grid.
    depth, leaf_depth : ndarray
        The posterior-weighted depth and the leaves' depth on the grid.
    tree : dict or None
        One tree's ``tree_weights`` after the stream.
    t : ndarray or None
        The horizons of the running losses.
    amf_loss, best_loss : ndarray or None
        That tree's cumulative test-then-train loss and the best pruning's (with its
        prior price) at each horizon.
    """

    signal: str
    X: np.ndarray
    y: np.ndarray
    grid: np.ndarray
    truth: np.ndarray
    amf: np.ndarray
    fixed: dict
    depth: np.ndarray
    leaf_depth: np.ndarray
    tree: dict
    t: np.ndarray
    amf_loss: np.ndarray
    best_loss: np.ndarray

    def mse(self, fit) -> float:
        """Return the mean squared distance of a fit on the grid to the noise-free signal.

        Parameters
        ----------
        fit : ndarray
            Values on ``grid``.

        Returns
        -------
        float
            The mean of ``(fit - truth)^2`` over the grid.
        """
        return float(np.mean((fit - self.truth) ** 2))

    @property
    def regret(self) -> np.ndarray:
        """The tree's cumulative loss minus the best pruning's, at each horizon.

        The best pruning pays its prior price (see :func:`amf_signal_run`).
        """
        return self.amf_loss - self.best_loss

    def largest_excess(self) -> tuple[int, float]:
        """Return where the tree's cumulative loss is furthest above the comparator.

        Returns
        -------
        horizon : int
            The number of points seen there.
        excess : float
            By how much :attr:`regret` exceeds 0 there (at most 0: never above).
        """
        i = int(np.argmax(self.regret))
        return int(self.t[i]), float(self.regret[i])

    @property
    def exp_concave_step(self) -> float:
        """The largest step at which the regret bound holds for this stream's targets.

        The square loss ``(ŷ - y)^2 / 2`` is exp-concave at step ``η`` for predictions
        and targets within ``±B`` when ``η <= 1 / (8 B^2)`` (the condition of the paper's
        regret bound); here ``B = max |y|``, which bounds the node means too.
        """
        return 1.0 / (8.0 * float(np.max(np.abs(self.y))) ** 2)


def best_pruning_losses(left, right, depth, loss, roots, penalty=0.0):
    """Return the least total leaf loss over the prunings of each tree.

    ``min_T sum_{v leaf of T} (loss_v) + penalty * (number of T's nodes that are not
    leaves of the full tree)``, by the recursion ``B_v = loss_v`` at a leaf and
    ``B_v = penalty + min(loss_v, B_left + B_right)`` above.

    Parameters
    ----------
    left, right : ndarray of int
        Children (-1 at a leaf).
    depth : ndarray of int
        Node depths.
    loss : ndarray
        Each node's cumulative loss.
    roots : ndarray of int
        The trees' roots.
    penalty : float, default=0.0
        The price of each choice point (``log 2 / step`` for the prior's bound).

    Returns
    -------
    ndarray
        ``B`` at each root.
    """
    best = np.asarray(loss, dtype=float).copy()
    for nodes in reversed(nodes_by_depth(depth)):
        inner = nodes[left[nodes] >= 0]
        best[inner] = penalty + np.minimum(best[inner], best[left[inner]] + best[right[inner]])
    return best[roots]


def amf_signal_run(signal="doppler", n=600, noise_std=0.3, n_trees=10, step=1.0,
                   lifetimes=(4.0, 400.0), n_grid=400, n_checkpoints=60,
                   random_state=None, regret=True) -> AMFSignalRun:
    """Stream a noisy Donoho-Johnstone signal into AMF and fixed-lifetime forests.

    Parameters
    ----------
    signal : {"heavisine", "bumps", "blocks", "doppler"}, default="doppler"
        The signal (scaled to standard deviation 1 on [0, 1]).
    n : int, default=600
        Stream length; x uniform on [0, 1].
    noise_std : float, default=0.3
        Noise standard deviation (>= 0).
    n_trees : int, default=10
        Trees of each forest.
    step : float, default=1.0
        AMF's learning rate.
    lifetimes : pair of float, default=(4.0, 400.0)
        The fixed-lifetime forests' lifetimes (too small, too large).
    n_grid : int, default=400
        Grid points on [0, 1] for the fits and the depth.
    n_checkpoints : int, default=60
        Horizons at which the best pruning in hindsight is computed.
    random_state : int, numpy.random.Generator or None, default=None
        Randomness of the stream and the trees.
    regret : bool, default=True
        Whether to run the single tree point by point (``tree``, ``t``, ``amf_loss``,
        ``best_loss``; None without).

    Returns
    -------
    AMFSignalRun
        ``X, y`` (the stream), ``grid, truth``, ``amf`` (the forest's fit on the grid),
        ``fixed`` (lifetime -> fit), ``depth`` (posterior-weighted depth on the grid), ``leaf_depth``
        (the depth of the leaf at each grid point, averaged over the trees),
        ``tree`` (:meth:`~mondrian_core.AMFRegressor.tree_weights` of the single tree
        run point by point), ``t`` (horizons), ``amf_loss`` (that tree's cumulative
        test-then-train loss ``(prediction - y)^2 / 2``) and ``best_loss`` (the best
        pruning in hindsight, paying the prior's ``log 2 / step`` per choice).

    Raises
    ------
    InputError
        If an argument is invalid or the run is too large.
    """
    if signal not in DJ_SIGNALS:
        raise InputError(f"signal must be one of {', '.join(DJ_SIGNALS)}; got {signal!r}.")
    n = check_count(n, "n", minimum=20)
    n_trees = check_count(n_trees, "n_trees")
    noise_std = check_real(noise_std, "noise_std")
    step = check_real(step, "step", strict=True)
    if n * (n_trees + 1) > MAX_STREAM_WORK:
        raise InputError(f"{n:,} points into {n_trees} trees is too much for one run (limit "
                         f"{MAX_STREAM_WORK:,} points x trees); use fewer points or trees.")
    rng = check_random_state(random_state)
    grid = np.linspace(0.0, 1.0, n_grid)
    scale = 1.0 / float(np.std(donoho_johnstone(signal, grid)))
    x = rng.random(n)
    y = scale * donoho_johnstone(signal, x) + noise_std * rng.standard_normal(n)
    X, G = x[:, None], grid[:, None]
    seed = int(rng.integers(2**31))
    forest = AMFRegressor(n_trees, step=step, random_state=seed).partial_fit(X, y)
    fixed = {float(lam): MondrianForestRegressor(n_trees, lifetime=lam, random_state=seed)
             .fit(X, y).predict(G) for lam in lifetimes}
    depth, leaf_depth = forest.weighted_depth(G, return_leaf_depth=True)
    run = AMFSignalRun(signal=signal, X=X, y=y, grid=grid,
                       truth=scale * donoho_johnstone(signal, grid), amf=forest.predict(G),
                       fixed=fixed, depth=depth, leaf_depth=leaf_depth, tree=None, t=None,
                       amf_loss=None, best_loss=None)
    if regret:
        run.tree, run.t, run.amf_loss, run.best_loss = _tree_regret(X, y, step, seed,
                                                                    n_checkpoints)
    return run


def _tree_regret(X, y, step, seed, n_checkpoints):
    """One tree, point by point: its nodes' weights at the end, the horizons, its
    cumulative test-then-train loss and the best pruning's (with its price) there."""
    n = len(y)
    tree = AMFRegressor(1, step=step, random_state=seed)
    t_marks = np.unique(np.linspace(1, n, n_checkpoints).round().astype(int))
    losses = np.zeros(n)
    best = []
    tree.partial_fit(X[:1], y[:1])
    for i in range(1, n + 1):
        if i < n:
            losses[i] = 0.5 * (tree.predict(X[i:i + 1])[0] - y[i]) ** 2
        if i in t_marks:
            a = tree.trees_.arrays()
            node_loss = -tree.log_weight_[:a["left"].size] / step
            best.append(best_pruning_losses(a["left"], a["right"], a["depth"], node_loss,
                                            a["roots"], penalty=math.log(2) / step)[0])
        if i < n:
            tree.partial_fit(X[i:i + 1], y[i:i + 1])
    cumulative = np.cumsum(losses)
    return tree.tree_weights(0), t_marks, cumulative[t_marks - 1], np.array(best)


def stretch_mean(grid, values, stretch) -> float:
    """The mean of ``values`` (one per point of ``grid``) over ``stretch = (lo, hi)``.

    How the page and its claims compare the weighted depth where a signal is rough
    with where it is smooth.

    Parameters
    ----------
    grid : array-like of shape (n,)
        The points along x.
    values : array-like of shape (n,)
        A value per point (e.g. the weighted depth).
    stretch : tuple of float
        ``(lo, hi)``, both included.

    Returns
    -------
    float
        The mean of the values inside the stretch.

    Examples
    --------
    >>> stretch_mean(np.linspace(0, 1, 5), np.arange(5.0), (0.0, 0.5))
    1.0
    """
    grid = np.asarray(grid, dtype=float)
    inside = (grid >= stretch[0]) & (grid <= stretch[1])
    return float(np.asarray(values, dtype=float)[inside].mean())
