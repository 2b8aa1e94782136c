"""Online Mondrian forest runs and uncertainty maps for the "Online Mondrian forest" page.

* :func:`online_run` streams a 2-D data set into a Mondrian forest in
  mini-batches (``partial_fit``), recording after each batch one tree's
  partition (which splits are new, what operation each new point caused), the
  forest's test score, and the scores of scikit-learn's RandomForest and
  ExtraTrees retrained from scratch on the data so far (the slides'
  "periodically re-trained batch versions").
* :func:`online_kernel_forest` streams one data set in mini-batches into the online
  Mondrian kernel (ridge regression on :class:`~mondrian_core.MondrianFeatures`,
  extended by ``partial_fit`` and updated as in Supplement C of Balog et al. 2016)
  and into an online :class:`~mondrian_core.forest.MondrianForestRegressor`, and
  records both fits on a grid after every batch.
* :func:`uncertainty_maps` trains on a part of the input space and predicts on a
  larger grid: the Mondrian forest's predictive standard deviation against the
  spread of the trees of RandomForest and ExtraTrees (the slides' uncertainty
  comparison; Lakshminarayanan et al. 2016).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

from mondrian_core._blas import single_blas_thread
from mondrian_core._docstrings import docfiller, fill_doc, params
from mondrian_core._forest_fit import fit_forest, predict_forest
from mondrian_core._validation import check_count, check_points, check_random_state
from mondrian_core.errors import InputError
from mondrian_core.experiments.grids import plane_grid
from mondrian_core.forest import (
    EXTEND,
    INSERT_ABOVE,
    NO_CHANGE,
    OPERATION_NAMES,
    SPLIT_LEAF,
    MondrianForestClassifier,
    MondrianForestRegressor,
)
from mondrian_core.kernel import MondrianFeatures


@dataclass(frozen=True)
class TreeSnapshot:
    """One tree of the forest after a mini-batch (2-D inputs).

    Parameters
    ----------
    leaf_boxes : ndarray of shape (n_leaves, 2, 2)
        Each leaf's box: lower row, upper row.
    segments : ndarray of shape (n_splits, 4)
        ``x0, y0, x1, y1`` of each split inside its node's box.
    new_segment : ndarray of bool, shape (n_splits,)
        True for splits created in this batch.
    new_points : ndarray of shape (b, 2)
        The batch.
    operations : ndarray of int, shape (b,)
        The operation each new point caused in this tree (``NO_CHANGE``,
        ``EXTEND``, ``INSERT_ABOVE``, ``SPLIT_LEAF``).
    """
    leaf_boxes: np.ndarray        # (n_leaves, 2, 2): lower row, upper row
    segments: np.ndarray          # (n_splits, 4): x0, y0, x1, y1 of each split inside its box
    new_segment: np.ndarray       # (n_splits,) bool: split created in this batch
    new_points: np.ndarray        # (b, 2): the batch
    operations: np.ndarray        # (b,) int: operation each new point caused in this tree

    def operation_counts(self) -> dict:
        """Return how many of the batch's points caused each operation in this tree.

        Returns
        -------
        dict of str to int
            The operation's name (``OPERATION_NAMES`` without its gloss in brackets) ->
            the number of points, in the order of ``OPERATION_NAMES``.
        """
        return {name.split(" (")[0]: int(np.count_nonzero(self.operations == code))
                for code, name in OPERATION_NAMES.items()}


@dataclass(frozen=True)
class OnlineRun:
    """An online Mondrian forest run against batch forests retrained on the data so far.

    Made by :func:`online_run`.

    Parameters
    ----------
    task : {"classification", "regression"}
        The task.
    n_seen : ndarray of int, shape (steps,)
        Points seen after each batch.
    scores : dict of str to ndarray
        Method -> test accuracy (classification) or RMSE after each batch.
    snapshots : list of TreeSnapshot
        Tree 0 after each batch.
    operation_counts : ndarray of int, shape (steps, 4)
        Operations over all trees in each batch, by code.
    score_name : str
        "test accuracy" or "test RMSE".
    """

    task: str                     # "classification" or "regression"
    n_seen: np.ndarray            # (steps,) points seen after each batch
    scores: dict                  # method -> (steps,) accuracy (classification) or RMSE
    snapshots: list               # TreeSnapshot per step (tree 0)
    operation_counts: np.ndarray  # (steps, 4): operations over all trees in each batch
    score_name: str


def _snapshot(model, tree, batch, ops, n_nodes_before) -> TreeSnapshot:
    """Tree ``tree`` seen in the plane of the first two inputs: leaf boxes' shadows and
    the splits on those two inputs (splits on further inputs do not show in the plane)."""
    s = model.tree_structure(tree)
    leaf = s["is_leaf"]
    boxes = np.stack([s["lower"][leaf][:, :2], s["upper"][leaf][:, :2]], axis=1)
    inner = ~leaf & (s["split_dim"] < 2)
    d, loc = s["split_dim"][inner], s["split_loc"][inner]
    lo, up = s["lower"][inner], s["upper"][inner]
    seg = np.where((d == 0)[:, None],
                   np.column_stack([loc, lo[:, 1], loc, up[:, 1]]),
                   np.column_stack([lo[:, 0], loc, up[:, 0], loc]))
    return TreeSnapshot(boxes, seg, s["ids"][inner] >= n_nodes_before, batch[:, :2], ops)


@fill_doc
def add_distractors(X, n_distractors, random_state=None, *, reference=None) -> np.ndarray:
    """Append ``n_distractors`` irrelevant inputs, uniform and independent of everything.

    Distractor ``j`` is uniform over the range of input ``j mod D`` of ``reference``
    (default ``X``), so it is as wide as a real input and a Mondrian cuts it as often
    (cut dimensions are drawn in proportion to the box's sides). The splits of a
    Mondrian tree ignore the labels, so such inputs take cuts away from the real ones:
    the slides' "catch" (Lakshminarayanan, Roy and Teh 2014, sec. 8).

    Parameters
    ----------
    X : array-like of shape (N, D)
        Inputs.
    n_distractors : int
        Number of irrelevant inputs to append (>= 0).
    %(random_state)s
    reference : array-like of shape (M, D), optional
        Whose ranges the distractors span (e.g. the training inputs, for a test set).

    Returns
    -------
    ndarray of shape (N, D + n_distractors)
        ``X`` with the distractors as its last columns.
    """
    X = check_points(X, "X")
    k = check_count(n_distractors, "n_distractors", minimum=0, maximum=MAX_DISTRACTORS)
    ref = X if reference is None else check_points(reference, "reference",
                                                   n_features=X.shape[1])
    lo, hi = ref.min(axis=0), ref.max(axis=0)
    cols = np.arange(k) % X.shape[1]
    u = check_random_state(random_state).random((X.shape[0], k))
    return np.hstack([X, lo[cols] + u * (hi - lo)[cols]])


#: Most irrelevant inputs :func:`online_run` adds.
MAX_DISTRACTORS = 20


def _baselines(task, n_estimators, seed):
    if task == "classification":
        return {"RandomForest": RandomForestClassifier(n_estimators, random_state=seed),
                "ExtraTrees": ExtraTreesClassifier(n_estimators, random_state=seed)}
    return {"RandomForest": RandomForestRegressor(n_estimators, random_state=seed),
            "ExtraTrees": ExtraTreesRegressor(n_estimators, random_state=seed)}


def _score(task, y_true, y_pred):
    if task == "classification":
        return float(np.mean(y_true == y_pred))
    return float(np.sqrt(np.mean((y_true - y_pred) ** 2)))


@fill_doc
def online_run(X, y, task, *, X_test, y_test, batch_size=20, n_estimators=10, lifetime=5.0,
               n_distractors=0, random_state=None) -> OnlineRun:
    """Stream ``(X, y)`` in mini-batches into a Mondrian forest; compare with batch forests.

    RandomForest and ExtraTrees (``n_estimators`` trees each) are refitted on
    all points seen so far after every batch.

    Parameters
    ----------
    X : array-like of shape (N, 2)
        The stream's inputs, in order.
    y : array-like of shape (N,)
        Labels or targets.
    task : {"classification", "regression"}
        The task.
    X_test, y_test : array-like of shape (N_test, 2) and (N_test,)
        Test data for the scores.
    batch_size : int, default=20
        Points per mini-batch, between 1 and N.
    n_estimators : int, default=10
        Trees per forest.
    lifetime : float, default=5.0
        The Mondrian forest's lifetime (units of inverse ``X``).
    n_distractors : int, default=0
        Irrelevant uniform inputs appended to the training and test inputs
        (:func:`add_distractors`, drawn from their own generator, so the same
        ``random_state`` gives the same forests' randomness with and without them).
        The snapshots show the plane of the two real inputs.
    %(random_state)s

    Returns
    -------
    OnlineRun
        Scores, tree snapshots and operation counts after each batch.

    Raises
    ------
    InputError
        If the inputs are not 2-D, the task is unknown or the batch size is out of
        range.

    References
    ----------
    Lakshminarayanan, Roy and Teh (2014), "Mondrian Forests: Efficient Online Random
    Forests", NIPS.
    """
    X, X_test = np.asarray(X, float), np.asarray(X_test, float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise InputError("the online view needs 2-D inputs (two feature columns).")
    if task not in ("classification", "regression"):
        raise InputError(f"task must be classification or regression, got {task!r}.")
    if not 1 <= batch_size <= len(X):
        raise InputError(f"batch size must be between 1 and {len(X)}.")
    rng = check_random_state(random_state)
    seed = int(rng.integers(2**31 - 1))
    if n_distractors:
        noise = np.random.default_rng([seed, 1])  # apart from the forests' draws
        X_test = add_distractors(X_test, n_distractors, noise, reference=X)
        X = add_distractors(X, n_distractors, noise)
    if task == "classification":
        model = MondrianForestClassifier(n_estimators, lifetime, random_state=rng)
        classes = np.unique(np.concatenate([y, y_test]))
    else:
        model = MondrianForestRegressor(n_estimators, lifetime, random_state=rng)
    baselines = _baselines(task, n_estimators, seed)
    scores = {"Mondrian forest (online)": []} | {k: [] for k in baselines}
    n_seen, snaps, counts = [], [], []
    for start in range(0, len(X), batch_size):
        stop = min(start + batch_size, len(X))
        before = len(model.trees_.tree) if hasattr(model, "trees_") else 0
        if task == "classification":
            model.partial_fit(X[start:stop], y[start:stop], classes=classes)
        else:
            model.partial_fit(X[start:stop], y[start:stop])
        ops = model.last_operations_
        counts.append(np.bincount(ops.ravel(), minlength=4)[:4])
        snaps.append(_snapshot(model, 0, X[start:stop], ops[:, 0].astype(int), before))
        scores["Mondrian forest (online)"].append(_score(task, y_test, model.predict(X_test)))
        for name, est in baselines.items():
            fit_forest(est, X[:stop], y[:stop])
            scores[name].append(_score(task, y_test, predict_forest(est, X_test)))
        n_seen.append(stop)
    return OnlineRun(task, np.asarray(n_seen), {k: np.asarray(v) for k, v in scores.items()},
                     snaps, np.asarray(counts),
                     "test accuracy" if task == "classification" else "test RMSE")


def _edge_index(grid, index, lo, up):
    """For grid indices ``index``: the index itself inside ``[lo, up]``, else the first
    grid point beyond the nearer edge, on the same side as the point."""
    above = np.searchsorted(grid, up, side="right")     # first grid point > up
    below = np.searchsorted(grid, lo, side="left") - 1  # last grid point < lo
    x = grid[index]
    return np.where(x > up, above, np.where(x < lo, below, index))


#: The uncertainty question's rule: a forest "grows more uncertain" far outside its
#: training box when its mean spread there (at least one box side away) exceeds its mean
#: spread at the nearest points of the box's border by more than 25%.
GROWTH_FAR, GROWTH_TOLERANCE = 1.0, 0.25


@dataclass(frozen=True)
class UncertaintyMaps:
    """Predictive mean and spread of three forests on a grid (made by :func:`uncertainty_maps`).

    Parameters
    ----------
    grid_x, grid_y : ndarray of shape (G,)
        The grid's coordinates.
    std : dict of str to ndarray
        Method -> (G, G) standard deviation map.
    mean : dict of str to ndarray
        Method -> (G, G) predictive mean map.
    train_box : ndarray of shape (2, 2)
        Lower and upper corners of the training region.
    """

    grid_x: np.ndarray            # (G,)
    grid_y: np.ndarray            # (G,)
    std: dict                     # method -> (G, G) standard deviation map
    mean: dict                    # method -> (G, G) predictive mean map
    train_box: np.ndarray         # (2, 2): lower, upper of the training region

    def distance_from_box(self) -> np.ndarray:
        """Return each grid point's distance outside the training box.

        Per axis in units of the box's side, the largest over the axes; 0 inside.

        Returns
        -------
        ndarray of shape (G, G)
            Distances, laid out like the maps.
        """
        lo, up = self.train_box
        side = np.where(up > lo, up - lo, 1.0)
        dx = np.maximum(np.maximum(lo[0] - self.grid_x, self.grid_x - up[0]), 0) / side[0]
        dy = np.maximum(np.maximum(lo[1] - self.grid_y, self.grid_y - up[1]), 0) / side[1]
        return np.maximum(dy[:, None], dx[None, :])

    def growth(self, far=GROWTH_FAR) -> dict:
        """Return each method's spread far from the training box over that at its border.

        Each grid point at least ``far`` outside the box (:meth:`distance_from_box`) is
        compared with the first grid point outside the box on its way there, moving along
        each axis only as far as the box's edge (the grid point nearest to its clamped
        coordinates, taken just outside the box): a forest whose outer cells reach to
        infinity predicts the same at both.

        Parameters
        ----------
        far : float, default=1.0
            Grid points at least this far are "far outside".

        Returns
        -------
        dict of str to float
            Method -> mean std far outside / mean std at the matching border points.

        Raises
        ------
        InputError
            If the grid has no point that far outside the box.
        """
        far_out = self.distance_from_box() >= far
        if not far_out.any():
            raise InputError("the map has no grid point far outside the training box; train "
                             "on a smaller region.")
        iy, ix = np.nonzero(far_out)
        lo, up = self.train_box
        bx = _edge_index(self.grid_x, ix, lo[0], up[0])
        by = _edge_index(self.grid_y, iy, lo[1], up[1])
        return {k: float(v[iy, ix].mean() / max(v[by, bx].mean(), 1e-300))
                for k, v in self.std.items()}

    def growing(self, tolerance=GROWTH_TOLERANCE) -> list:
        """Return the methods that grow more uncertain far outside the training box.

        Parameters
        ----------
        tolerance : float, default=0.25
            A method grows when its :meth:`growth` exceeds ``1 + tolerance``.

        Returns
        -------
        list of str
            The methods, in the maps' order.
        """
        return [k for k, r in self.growth().items() if r > 1 + tolerance]


@fill_doc
def uncertainty_maps(X, y, *, train_lower, train_upper, grid_lower, grid_upper, resolution=80,
                     n_estimators=10, lifetime=5.0, random_state=None) -> UncertaintyMaps:
    """Train inside a region and map the forests' predictive spread over a larger grid.

    Mondrian forest: the predictive std of the function value (without the
    observation noise, like the forests' spread) from
    :meth:`MondrianForestRegressor.predict` (grows away from the data). RandomForest /
    ExtraTrees: the standard
    deviation of their trees' predictions (the usual forest spread), which
    stays what it is at the border of the data however far one goes.

    Parameters
    ----------
    X : array-like of shape (N, 2)
        Inputs; only those inside ``[train_lower, train_upper]`` are trained on.
    y : array-like of shape (N,)
        Targets.
    train_lower, train_upper : sequence of float, length 2
        The training region.
    grid_lower, grid_upper : sequence of float, length 2
        The grid's box.
    resolution : int, default=80
        Grid points per axis.
    n_estimators : int, default=10
        Trees per forest.
    lifetime : float, default=5.0
        The Mondrian forest's lifetime.
    %(random_state)s

    Returns
    -------
    UncertaintyMaps
        Mean and standard deviation maps per method.

    Raises
    ------
    InputError
        If fewer than 5 points fall in the training region.

    References
    ----------
    Lakshminarayanan, Roy and Teh (2016), "Mondrian Forests for Large-Scale
    Regression when Uncertainty Matters", AISTATS.
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    lo, up = np.asarray(train_lower, float), np.asarray(train_upper, float)
    inside = np.all((X >= lo) & (X <= up), axis=1)
    if inside.sum() < 5:
        raise InputError("fewer than 5 training points fall in the training region; enlarge it.")
    rng = check_random_state(random_state)
    seed = int(rng.integers(2**31 - 1))
    gx, gy, G = plane_grid(grid_lower, grid_upper, resolution)
    Xt, yt = X[inside], y[inside]
    mf = MondrianForestRegressor(n_estimators, lifetime, random_state=rng).fit(Xt, yt)
    mean, std = mf.predict(G, return_std=True, include_noise=False)
    means, stds = {"Mondrian forest": mean}, {"Mondrian forest": std}
    for name, est in _baselines("regression", n_estimators, seed).items():
        fit_forest(est, Xt, yt)
        per_tree = _tree_predictions(est, G)
        means[name], stds[name] = per_tree.mean(axis=0), per_tree.std(axis=0)
    shape = (resolution, resolution)
    return UncertaintyMaps(gx, gy, {k: v.reshape(shape) for k, v in stds.items()},
                           {k: v.reshape(shape) for k, v in means.items()}, np.stack([lo, up]))


def _tree_predictions(forest, X) -> np.ndarray:
    """Every tree's prediction of a fitted one-output scikit-learn regression forest.

    ``tree.predict`` checks its input and converts it to float32 for each tree (a
    twentieth of a map's time over 20 trees); the compiled ``tree_.predict`` on the
    float32 input once gives the same numbers (tested against ``tree.predict``)."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    return np.stack([tree.tree_.predict(X32)[:, 0] for tree in forest.estimators_])


class OnlineKernelRidge:
    """Bayesian linear (ridge) regression on Mondrian features, updated as points arrive.

    Supplement C of Balog et al. (2016): the Mondrian kernel learns online because
    :meth:`MondrianFeatures.partial_fit <mondrian_core.MondrianFeatures.partial_fit>`
    extends the same trees to new points without moving an earlier point out of its
    cell, so the earlier rows of the feature matrix ``Phi`` keep their columns and the
    cells born with the new points only append columns. The sufficient statistics
    ``A = Phi^T Phi + delta^2 I`` (``delta^2 = noise_variance / prior_variance``),
    ``Phi^T y`` and ``Phi^T 1`` are therefore updated exactly: append ``delta^2`` on
    the diagonal for each new column, then add the new rows' outer products (a
    rank-``b`` update for a batch of ``b`` points). The weights are re-solved from
    ``A`` by a Cholesky factorisation after each batch (the supplement updates the
    factor by rank-one steps instead; the solution is the same). The batch learners'
    ridge solve (``_linalg.ridge_weights``) would rebuild ``Phi^T Phi`` from every point
    seen at each batch, so this class keeps its own system and factor, which
    :meth:`predict` reuses for the variances; the tests check both give the same weights.

    Parameters
    ----------
    lifetime : float, default=5.0
        Lifetime of the Mondrian partitions (units of inverse ``X``).
    n_trees : int, default=10
        Number of Mondrian partitions M.
    noise_variance : float, default=0.05
        Observation noise ``sigma^2``.
    prior_variance : float, default=1.0
        Prior variance of the function (the weights' prior variance; the features
        are scaled ``1/sqrt(M)``).
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Seeds the partitions (see :func:`~mondrian_core.check_random_state`).

    Attributes
    ----------
    features_ : MondrianFeatures
        The partitions, extended by every :meth:`partial_fit`.
    weights_ : ndarray of shape (C,)
        The posterior mean weights of the centred targets.
    y_mean_ : float
        Mean of the targets seen so far (the prior mean of the function).
    n_seen_ : int
        Number of points seen.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 4.2.1 and Supplement C.
    """

    def __init__(self, lifetime=5.0, n_trees=10, noise_variance=0.05, prior_variance=1.0,
                 random_state=None):
        self.lifetime, self.n_trees = lifetime, n_trees
        self.noise_variance, self.prior_variance = noise_variance, prior_variance
        self.random_state = random_state

    @property
    def ratio(self) -> float:
        """The ridge penalty ``delta^2 = noise_variance / prior_variance``.

        Returns
        -------
        float
            The ratio.
        """
        return float(self.noise_variance) / float(self.prior_variance)

    def partial_fit(self, X, y):
        """Extend the partitions to ``X`` and update the ridge solution.

        Parameters
        ----------
        X : array-like of shape (b, D)
            The new points.
        y : array-like of shape (b,)
            Their targets.

        Returns
        -------
        OnlineKernelRidge
            The updated model.
        """
        X, y = np.asarray(X, float), np.asarray(y, float)
        if not hasattr(self, "features_"):
            self.features_ = MondrianFeatures(self.lifetime, self.n_trees,
                                              random_state=self.random_state)
            self._A = np.zeros((0, 0))
            self._Phi_y, self._Phi_1 = np.zeros(0), np.zeros(0)
            self.n_seen_, self._y_sum = 0, 0.0
        self.features_.partial_fit(X)
        # the fitted rows in order: earlier points, then this batch; only its rows are read
        Phi_new = self.features_.transform(self.features_.X_fit_)[self.n_seen_:]
        c_old, c = len(self._Phi_y), Phi_new.shape[1]
        A = np.zeros((c, c))
        A[:c_old, :c_old] = self._A
        A[np.arange(c_old, c), np.arange(c_old, c)] = self.ratio  # new cells: prior only
        self._A = A + (Phi_new.T @ Phi_new).toarray()
        self._Phi_y = np.concatenate([self._Phi_y, np.zeros(c - c_old)]) + Phi_new.T @ y
        self._Phi_1 = (np.concatenate([self._Phi_1, np.zeros(c - c_old)])
                       + np.asarray(Phi_new.sum(axis=0)).ravel())
        self.n_seen_ += len(y)
        self._y_sum += float(y.sum())
        self.y_mean_ = self._y_sum / self.n_seen_
        self._chol = cho_factor(self._A, lower=True, check_finite=False)
        # Phi^T (y - mean) from the running sums: centring stays exact online
        self.weights_ = cho_solve(self._chol, self._Phi_y - self.y_mean_ * self._Phi_1,
                                  check_finite=False)
        return self

    def predict(self, X, return_std=False):
        """Return the posterior mean (and standard deviation) of the function at ``X``.

        Parameters
        ----------
        X : array-like of shape (n, D)
            Test points (placed in the partitions by the conditional Mondrian).
        return_std : bool, default=False
            Also return the posterior standard deviation of the function value
            (without the observation noise). A test point alone in a new cell of a
            tree gets that cell's prior variance.

        Returns
        -------
        mean : ndarray of shape (n,)
            The posterior mean.
        std : ndarray of shape (n,)
            Only with ``return_std=True``.
        """
        Phi = self.features_.transform(np.asarray(X, float))
        c = len(self.weights_)
        old, new = Phi[:, :c], Phi[:, c:]
        mean = self.y_mean_ + old @ self.weights_
        if not return_std:
            return mean
        dense = old.toarray()
        # sigma^2 phi^T A^{-1} phi on the fitted cells, prior variance on new ones
        var = self.noise_variance * np.einsum("ij,ji->i", dense,
                                              cho_solve(self._chol, dense.T, check_finite=False))
        var += self.prior_variance * np.asarray(new.multiply(new).sum(axis=1)).ravel()
        return mean, np.sqrt(np.maximum(var, 0.0))


@dataclass(frozen=True)
class StreamFits:
    """The online kernel's and the online forest's fits after every batch of a stream.

    Made by :func:`online_kernel_forest`.

    Parameters
    ----------
    X : ndarray of shape (N, 1)
        The stream's inputs, in arrival order.
    y : ndarray of shape (N,)
        Their targets.
    grid : ndarray of shape (G,)
        Where the fits are evaluated.
    n_seen : ndarray of int, shape (steps,)
        Points seen after each batch.
    kernel_mean, kernel_std : ndarray of shape (steps, G)
        The Mondrian kernel's posterior mean and std of the function.
    forest_mean, forest_std : ndarray of shape (steps, G)
        The Mondrian forest's predictive mean and std of the function.
    n_features : ndarray of int, shape (steps,)
        The kernel's feature columns (non-empty cells of all trees) after each batch.
    f : ndarray of shape (G,) or None
        The true function on the grid, if known.
    kernel : OnlineKernelRidge or None
        The online kernel after the last batch (to check it against a batch fit).
    """

    X: np.ndarray
    y: np.ndarray
    grid: np.ndarray
    n_seen: np.ndarray
    kernel_mean: np.ndarray
    kernel_std: np.ndarray
    forest_mean: np.ndarray
    forest_std: np.ndarray
    n_features: np.ndarray
    f: np.ndarray | None = None
    # the model, not what the figures show: left out of comparisons and figure cache keys
    kernel: OnlineKernelRidge | None = field(default=None, compare=False, repr=False)


@fill_doc
def online_kernel_forest(X, y, *, grid, batch_size=20, n_trees=10, lifetime=10.0,
                         noise_variance=0.05, prior_variance=1.0, f=None,
                         left_to_right=False, random_state=None) -> StreamFits:
    """Stream 1-D data in mini-batches into the online Mondrian kernel and forest.

    Both models see the same batches in the same order and share the noise and
    prior variances; both extend their trees (never rebuild them). The kernel is
    :class:`OnlineKernelRidge` (all trees' cells fitted jointly), the forest a
    :class:`~mondrian_core.forest.MondrianForestRegressor` (each tree fitted
    alone, hierarchical smoothing, averaged).

    Parameters
    ----------
    X : array-like of shape (N, 1)
        The stream's inputs, in arrival order.
    y : array-like of shape (N,)
        Their targets.
    grid : array-like of shape (G,)
        Inputs at which both fits are recorded.
    batch_size : int, default=20
        Points per mini-batch, between 1 and N.
    n_trees : int, default=10
        Trees of each model.
    lifetime : float, default=10.0
        Lifetime of both models' Mondrians (units of inverse ``X``).
    noise_variance : float, default=0.05
        Observation noise variance of both models.
    prior_variance : float, default=1.0
        Prior variance of the function in both models.
    f : array-like of shape (G,), optional
        The true function on the grid, kept for the figure.
    left_to_right : bool, default=False
        Stream the points sorted by ``X`` (like a sensor sweeping along the axis), so
        that every batch arrives beyond the points seen so far.
    %(random_state)s

    Returns
    -------
    StreamFits
        Both fits after every batch.

    Raises
    ------
    InputError
        If the inputs are not 1-D or the batch size is out of range.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, Supplement C; Lakshminarayanan, Roy and Teh (2016), "Mondrian Forests for
    Large-Scale Regression when Uncertainty Matters", AISTATS.
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    if X.ndim != 2 or X.shape[1] != 1:
        raise InputError("the kernel-and-forest stream needs 1-D inputs (one feature column).")
    if not 1 <= batch_size <= len(X):
        raise InputError(f"batch size must be between 1 and {len(X)}.")
    grid = np.asarray(grid, float).ravel()
    if left_to_right:
        order = np.argsort(X[:, 0], kind="stable")
        X, y = X[order], y[order]
    rng = check_random_state(random_state)
    kernel = OnlineKernelRidge(lifetime, n_trees, noise_variance, prior_variance,
                               random_state=int(rng.integers(2**31 - 1)))
    forest = MondrianForestRegressor(n_trees, lifetime, random_state=int(rng.integers(2**31 - 1)),
                                     noise_variance=noise_variance,
                                     prior_variance=prior_variance)
    out = {k: [] for k in ("n_seen", "km", "ks", "fm", "fs", "nf")}
    with single_blas_thread():  # small factorisations: BLAS threads only contend
        _stream_into(kernel, forest, X, y, grid, batch_size, out)
    return StreamFits(X, y, grid, np.asarray(out["n_seen"]), np.asarray(out["km"]),
                      np.asarray(out["ks"]), np.asarray(out["fm"]), np.asarray(out["fs"]),
                      np.asarray(out["nf"]), None if f is None else np.asarray(f, float),
                      kernel)


def _stream_into(kernel, forest, X, y, grid, batch_size, out):
    for start in range(0, len(X), batch_size):
        stop = min(start + batch_size, len(X))
        kernel.partial_fit(X[start:stop], y[start:stop])
        forest.partial_fit(X[start:stop], y[start:stop])
        km, ks = kernel.predict(grid[:, None], return_std=True)
        fm, fs = forest.predict(grid[:, None], return_std=True, include_noise=False)
        for key, value in zip(out, (stop, km, ks, fm, fs, len(kernel.weights_))):
            out[key].append(value)


@docfiller({"passed_on": params(uncertainty_maps.__doc__, "resolution", "n_estimators",
                                 "lifetime", "random_state")})
def uncertainty_maps_in_region(X, y, region, *, margin=0.5, resolution=80, n_estimators=10,
                               lifetime=5.0, random_state=None):
    """:func:`uncertainty_maps` trained on a part of the data's bounding box.

    Parameters
    ----------
    X : array-like of shape (N, 2)
        Inputs.
    y : array-like of shape (N,)
        Targets.
    region : pair of pairs of float
        Lower and upper corners of the training region, as fractions of the data's
        bounding box (``((0, 0), (0.5, 1))`` is the left half).
    margin : float, default=0.5
        The grid extends the bounding box by this fraction of its width on every side.
    %(passed_on)s

    Returns
    -------
    maps : UncertaintyMaps
        The maps.
    inside : ndarray of bool, shape (N,)
        Which points were trained on.

    Raises
    ------
    InputError
        If fewer than 5 points fall in the training region.
    """
    X = np.asarray(X, float)
    box_lo, box_hi = X.min(axis=0), X.max(axis=0)
    width = box_hi - box_lo
    lo = box_lo + np.asarray(region[0], float) * width
    up = box_lo + np.asarray(region[1], float) * width
    maps = uncertainty_maps(X, y, train_lower=lo, train_upper=up,
                            grid_lower=box_lo - margin * width, grid_upper=box_hi + margin * width,
                            resolution=resolution, n_estimators=n_estimators, lifetime=lifetime,
                            random_state=random_state)
    return maps, np.all((X >= lo) & (X <= up), axis=1)


#: Largest ``batches * C**3`` (C: expected kernel features) of one kernel stream: a few
#: seconds of Cholesky factorisations on one core.
STREAM_KERNEL_BUDGET = 2e10


def check_stream_cost(n_points, batch_size, n_trees, lifetime, width):
    """Raise :class:`InputError` if the online kernel's stream would be too slow for a page.

    Each batch refactorises the ``C x C`` matrix ``A``; a 1-D Mondrian of lifetime
    ``lifetime`` on an interval of length ``width`` has ``1 + lifetime * width`` cells
    on average, so ``C`` is about ``n_trees * (1 + lifetime * width)``.

    Parameters
    ----------
    n_points : int
        Points streamed.
    batch_size : int
        Points per batch (>= 1).
    n_trees : int
        Trees of the kernel.
    lifetime : float
        Their lifetime.
    width : float
        Length of the interval the points fill.

    Raises
    ------
    InputError
        If ``batches * C**3`` exceeds :data:`STREAM_KERNEL_BUDGET`; the message says what
        to lower.
    """
    batches = -(-int(n_points) // max(int(batch_size), 1))
    features = n_trees * (1.0 + lifetime * width)
    if batches * features ** 3 > STREAM_KERNEL_BUDGET:
        raise InputError(
            f"The 1-D stream's kernel would have about {features:,.0f} features, refitted "
            f"after each of {batches} batches: too slow here. Lower the lifetime or the "
            "number of trees, or raise the batch size, to see it.")


__all__ = ["OnlineKernelRidge", "OnlineRun", "StreamFits", "TreeSnapshot", "UncertaintyMaps",
           "STREAM_KERNEL_BUDGET", "check_stream_cost", "online_kernel_forest", "online_run",
           "uncertainty_maps", "uncertainty_maps_in_region",
           "NO_CHANGE", "EXTEND", "INSERT_ABOVE", "SPLIT_LEAF"]
