"""The lifetime sweep: exact ridge regression / Bayesian linear regression in the
Mondrian feature space for every lifetime in [0, terminal], from one set of Mondrians.

Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
Section 4 (Figure 4) and Supplement B.

Model
-----
``y = Phi_t w + eps`` with ``w ~ N(0, prior_variance I)``, ``eps ~ N(0, noise_variance I)``
and ``Phi_t`` the Mondrian features at lifetime ``t`` (one ``1/sqrt(M)`` per tree per
row). With ``K_t = Phi_t Phi_t^T`` and ``S_t = prior_variance K_t + noise_variance I``

* the ridge solution is the posterior mean, and the fitted values at any point are
  ``prior_variance * K_t(x, X) alpha_t`` with ``alpha_t = S_t^{-1} y``;
* ``log p(y | t) = -1/2 y^T alpha_t - 1/2 log det S_t - N/2 log(2 pi)``.

Where the work is
-----------------
The trees are sampled to the terminal lifetime first, so every cut event is known in
advance; :mod:`mondrian_core._sweep_walk` walks them in blocks (cell space while there
are fewer cells than points, the dual ``N x N`` system after), each block costing one
factorisation, with the kernels of :mod:`mondrian_core._sweep_kernels`.

What is kept per event is the cheaper form: the ``C`` cell values in cell space, the
``N`` entries of ``alpha`` in the dual; :attr:`LifetimePath.alphas` expands rows on
demand.

New training points (:meth:`LifetimePath.partial_fit`) extend the trees by the
conditional Mondrian and keep the old event order (new cuts merged in). From the state
at which every new point sits only in cells holding no old point, the system is block
diagonal and each state is the old path's plus an ``n x n`` term (updated, never
refactorised); before it the states are recomputed by the walk above on the extended
trees (:func:`lifetime_path_on_trees`), since no per-event factorisation is kept
(:mod:`mondrian_core._sweep_online`).

Validation (and any new) points are placed with the conditional Mondrian extension
(Roy and Teh 2009), drawn once for all lifetimes: along its path through each tree a
point branches off into a cell of its own at a time ``birth + Exp(rate)`` (rate = the
linear distance from the node's box) if that is before the node's cut; from then on
it shares no cell with the training points in that tree
(:func:`~mondrian_core.tree_extension.place_points`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from mondrian_core._docstrings import docfiller, fill_doc, params
from mondrian_core._sweep_kernels import (
    MIN_NOISE_RATIO,
    Clock,
    as_rows,
    cholesky,
    indicator,
    singular_error,
    tri_solve,
)
from mondrian_core._sweep_online import update_path
from mondrian_core._sweep_walk import EventWalk
from mondrian_core._validation import (
    check_count,
    check_lifetime,
    check_points,
    check_random_state,
    check_real,
    check_ridge_scale,
    check_sweep_hooks,
    check_target,
    check_validation_pair,
    round_down,
)
from mondrian_core.cost import check_path_cost
from mondrian_core.errors import InputError
from mondrian_core.process import expected_cells, max_lifetime
from mondrian_core.tree_extension import Placement, place_points

__all__ = ["LifetimePath", "lifetime_path", "lifetime_path_on_trees", "place_points",
           "lifetime_for_cells"]

#: Refuse paths whose stored solutions (``min(C_k, N)`` floats per event) would exceed this.
MAX_STORED = 150_000_000
#: Refuse paths whose dense system (side ``min(C, N)`` at the terminal lifetime) is larger.
MAX_DENSE_SIDE = 16_000
#: States per chunk of validation predictions (dense blocks of ``VAL_CHUNK`` states).
VAL_CHUNK = 40


def lifetime_for_cells(X, n_cells=60.0) -> float:
    """Return the lifetime at which a Mondrian of the data's box has ``n_cells`` cells.

    The expected number of cells of a Mondrian process with lifetime ``lambda`` on a
    box with sides ``a_d`` is ``prod_d (1 + lambda a_d)`` (see
    :func:`~mondrian_core.process.expected_cells`); solved for ``lambda`` by Brent's
    method. A sensible default terminal lifetime for the sweep.

    Parameters
    ----------
    X : array-like of shape (N, D)
        The points; their bounding box is used.
    n_cells : float, default=60.0
        The expected number of cells wanted.

    Returns
    -------
    float
        The lifetime; ``1.0`` when the box is a single point or ``n_cells <= 1``.
    """
    X = np.asarray(X, dtype=float).reshape(len(X), -1)
    lo, hi = X.min(axis=0), X.max(axis=0)
    if not np.any(hi > lo) or n_cells <= 1:
        return 1.0
    return max_lifetime(lo, hi, n_cells)


# --------------------------------------------------------------- the path


#: Per-event predictive (mean, std) kept by :meth:`LifetimePath.predict_moments`.
MAX_MOMENTS = 2048


@dataclass
class LifetimePath:
    """The exact ridge / Bayesian-linear-regression path over lifetimes.

    Made by :func:`lifetime_path`.

    Parameters
    ----------
    lifetimes : ndarray of shape (E+1,)
        ``tau_0 = 0 < tau_1 < ...``: the cut times; the features are constant on
        ``[tau_c, tau_{c+1})``.
    n_features : ndarray of shape (E+1,)
        The number of Mondrian features (non-empty cells over all trees) at each event.
    train_rmse, val_rmse : ndarray of shape (E+1,)
        Root mean squared errors of the ridge fit on the training and validation
        points; ``val_rmse`` is NaN without validation data.
    log_marginal_likelihood : ndarray of shape (E+1,)
        ``log p(y_train | X_train, lifetime)`` at each event (natural log).
    trees : MondrianTrees
        The Mondrians (grown to ``terminal_lifetime``).
    alphas : array-like of shape (E+1, N)
        ``S_t^{-1} y`` at each event; rows are computed on demand from what the sweep
        keeps (the cell values while there are fewer cells than training points, the
        rows themselves after), and ``alphas.cell_values(c)`` gives the cells' values
        whose sums over the trees are the predictions.
    X_train : ndarray of shape (N, D)
        The training points.
    y_train : ndarray of shape (N,)
        The training targets.
    noise_variance, prior_variance : float
        ``sigma_n^2`` and ``sigma_w^2`` of the model.
    terminal_lifetime : float
        The largest lifetime of the sweep.
    extension_seed : int
        Seed of the conditional Mondrian placement of new points.
    event_nodes : ndarray of int, shape (E,)
        The node cut at each event.
    seconds : ndarray of shape (E+1,), optional
        Wall-clock seconds from the call's start until each event's numbers were
        known (events of one block become known together): the sweep's curve in
        the paper's Figure 8.
    X_val, y_val : ndarray of shape (N_val, D) and (N_val,), optional
        The validation data of ``val_rmse`` (kept so that :meth:`partial_fit` can
        extend it); None without validation data.
    _cache, _moments : dict
        Remembered placements and predictive moments (internal).

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    sec. 4 and Supplement B.
    """

    lifetimes: np.ndarray
    n_features: np.ndarray
    train_rmse: np.ndarray
    val_rmse: np.ndarray
    log_marginal_likelihood: np.ndarray
    trees: object
    alphas: np.ndarray
    X_train: np.ndarray
    y_train: np.ndarray
    noise_variance: float
    prior_variance: float
    terminal_lifetime: float
    extension_seed: int
    event_nodes: np.ndarray
    seconds: np.ndarray = None
    X_val: np.ndarray = None
    y_val: np.ndarray = None
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    _moments: dict = field(default_factory=dict, repr=False, compare=False)

    # ---- lookups
    def index(self, lifetime: float) -> int:
        """Return the index ``c`` of the interval ``[tau_c, tau_{c+1})`` holding ``lifetime``.

        Parameters
        ----------
        lifetime : float
            A lifetime in ``[0, terminal_lifetime]``.

        Returns
        -------
        int
            The event index.

        Raises
        ------
        InputError
            If ``lifetime`` is not a number in ``[0, terminal_lifetime]``.
        """
        lifetime = check_lifetime(lifetime)
        if lifetime > self.terminal_lifetime:
            raise InputError(
                f"lifetime must be in [0, {self.terminal_lifetime:g}] (the terminal "
                f"lifetime of the sweep), got {lifetime:g}.")
        return int(np.searchsorted(self.lifetimes, lifetime, side="right") - 1)

    @property
    def best_index(self) -> int:
        """Event index with the smallest validation RMSE (train RMSE if no validation)."""
        score = self.val_rmse if np.isfinite(self.val_rmse).any() else self.train_rmse
        return int(np.nanargmin(score))

    @property
    def best_lifetime(self) -> float:
        """The lifetime of :attr:`best_index`."""
        return float(self.lifetimes[self.best_index])

    @docfiller({"points": params(place_points.__doc__, "X", section=True)})
    def place(self, X) -> Placement:
        """Return the placement of new points (cached by content; the sweep's seed).

        %(points)s

        Returns
        -------
        Placement
            As :func:`place_points` with ``extension_seed``.
        """
        X = as_rows(X, self.X_train.shape[1], "X")
        key = (X.shape, hash(X.tobytes()))
        # read once into a local: a path is shared by the app's sessions (threads), and
        # another one may clear the cache between a store and a second lookup
        placement = self._cache.get(key)
        if placement is None:
            placement = place_points(self.trees, X, self.extension_seed)
            if len(self._cache) > 8:
                self._cache.clear()
            self._cache[key] = placement
        return placement

    def predict_moments(self, X, c: int, include_noise: bool = False):
        """``predict(X, lifetimes[c], return_std=True, include_noise)``, remembered.

        A lifetime posterior's mixture predictive asks for the same events again when
        only the prior changes; at most ``MAX_MOMENTS`` results are kept per path (each
        two arrays of ``len(X)`` floats).

        Parameters
        ----------
        X : array-like of shape (n, D)
            The points.
        c : int
            The event index (see :meth:`index`).
        include_noise : bool, default=False
            Add the observation noise to the variance.

        Returns
        -------
        mean : ndarray of shape (n,)
            The predictive mean at ``lifetimes[c]``.
        std : ndarray of shape (n,)
            The predictive standard deviation at ``lifetimes[c]``.
        """
        X = as_rows(X, self.X_train.shape[1], "X")
        key = (X.shape, hash(X.tobytes()), int(c), bool(include_noise))
        moments = self._moments.get(key)  # once: the path may be shared by threads
        if moments is None:
            moments = self.predict(X, self.lifetimes[c], return_std=True,
                                   include_noise=include_noise)
            if len(self._moments) >= MAX_MOMENTS:
                self._moments.clear()
            self._moments[key] = moments
        return moments

    def partial_fit(self, X_new, y_new, random_state=None, block_size=None, progress=None,
                    timings=None) -> LifetimePath:
        """Return the path with new training points added (online, Supplement C).

        (a) The trees are extended to ``X_new`` by one conditional Mondrian draw
        (:meth:`MondrianTrees.extended <mondrian_core.trees.MondrianTrees.extended>`), so
        they are distributed as trees sampled on all points; node ids are kept and the
        old event order is kept, the new cuts merged into it (``O(E)``; only the new
        cuts are sorted). (b) The
        per-event numbers are those of :func:`lifetime_path_on_trees` on the extended
        trees, the targets ``[y_train, y_new]`` (used as given: the sweep does not centre
        ``y``, so no old number moves because of a new mean), the same variances,
        validation data and ``extension_seed``; they equal a sweep from scratch on those
        trees to rounding.

        How (b) is computed. At lifetime ``t`` a new point may share cells with old
        points (*attached*) or, in every tree, sit only in cells that hold no old point
        (*detached*: it branched off, e.g. a point far outside the old data). Once all
        new points are detached (from state ``K`` on) the ridge system is block
        diagonal, old rows x old cells and new rows x new cells, so every number is the
        old path's at the same lifetime plus an ``n x n`` term (the chain rule
        ``p(y, y_new) = p(y) p(y_new | y)`` with ``y_new`` independent of ``y``):
        ``log p`` adds ``log N(y_new; 0, S_new)``, ``S_new = prior_variance K_new +
        noise_variance I``; the residual sum of squares adds ``noise_variance^2
        ||S_new^{-1} y_new||^2``; the old cells keep their values and the new cells get
        ``(prior_variance / M)`` times the sums of ``S_new^{-1} y_new`` over their rows.
        ``S_new`` changes only at cuts of new cells (then one ``n x n`` Cholesky), so
        the states from ``K`` on cost ``O(C)`` each (writing their solutions; an old
        state stored in the dual form costs one sparse product over its ``N M``
        cell memberships, 64 states at a time) plus ``O(n^3)`` per such cut, and reuse
        the old path's solutions, log marginal likelihood and errors; the old systems
        are never refactorised. The states before ``K`` (all of them when a new point
        lies in an old point's leaf, the usual case for points inside the data) are
        **recomputed** by the block walk of :func:`lifetime_path` on the extended trees:
        the path keeps no factorisation of its per-event systems, and a low-rank
        update of an attached state by the new rows needs that state's inverse applied
        to them (``A_k^{-1} Psi_new^T``), which without a stored factor (one ``C x C``
        or ``N x N`` per block) costs as much as the walk itself. Validation errors are
        recomputed at every state (the validation points' placement changes with the
        trees).

        Parameters
        ----------
        X_new : array-like of shape (n, D)
            The new training points.
        y_new : array-like of shape (n,)
            Their targets.
        random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
            Seeds the conditional Mondrian draw that extends the trees.
        block_size : int, optional
            Events per factorisation of the recomputed states (default: measured).
        progress : callable, optional
            Called with the fraction of events done (0..1).
        timings : dict, optional
            Filled with the seconds spent in each stage (``"update detached"`` for the
            states updated from the old path).

        Returns
        -------
        LifetimePath
            A new path over ``vstack([X_train, X_new])``; this one is unchanged.

        Raises
        ------
        InputError
            If ``X_new`` or ``y_new`` is invalid (other dimension, lengths that differ,
            non-finite values), the path was not made by this module, or the enlarged
            path cannot fit (see :func:`lifetime_path`).
        """
        return update_path(self, X_new, y_new, random_state, block_size, progress, timings,
                           check_fits=_check_fits, val_chunk=VAL_CHUNK)

    @docfiller({"lifetime": params(index.__doc__, "lifetime", section=True)})
    def coef(self, lifetime):
        """Return the ridge weights of the cells alive at ``lifetime``.

        %(lifetime)s

        Returns
        -------
        nodes : ndarray of int
            The alive cells' node ids ordered by tree, then node id (the column
            order of ``MondrianFeatures.transform``).
        weights : ndarray of float
            The posterior mean ``w = prior_variance * Phi^T alpha`` of their features.
        """
        c = self.index(lifetime)
        nodes, v = self.alphas.cell_values(c)
        order = np.lexsort((nodes, self.trees.tree[nodes]))
        # w = sqrt(M) v: the features are 1/sqrt(M) per tree, the cell values sum over trees
        return nodes[order], np.sqrt(self.trees.n_trees) * v[order]

    @fill_doc
    def predict(self, X, lifetime, return_std=False, include_noise=False):
        """Return the predictive mean (posterior mean of ``Phi_t(x) w``) at ``lifetime``.

        New points are placed by the conditional Mondrian extension at ``lifetime``
        itself (a point may branch off into a cell of its own between the last cut
        ``tau_c`` and ``lifetime``); the training cells are those of ``[tau_c,
        tau_{c+1})``.

        Parameters
        ----------
        X : array-like of shape (n, D)
            The points.
        lifetime : float
            A lifetime in ``[0, terminal_lifetime]``.
        return_std : bool, default=False
            Also return the exact predictive standard deviation at that lifetime (one
            Cholesky factorisation of the ``C x C`` cell-space system, or of the
            ``N x N`` dual one when there are more cells than training points).
        include_noise : bool, default=False
            Add the observation noise (the predictive of ``y`` rather than ``f``).

        %(predict_returns)s
        """
        c = self.index(lifetime)
        nodes, alive = self.place(X).at(float(lifetime))
        values = self.alphas.node_values(c)
        mean = np.where(alive, values[nodes], 0.0).sum(axis=0)
        if not return_std:
            return mean
        M, N = self.trees.n_trees, self.y_train.size
        s2n, s2p = self.noise_variance, self.prior_variance
        n_nodes = self.trees.parent.shape[0]
        train_nodes = self.trees.nodes_at(float(self.lifetimes[c]))
        cells = self.alphas.cells(c)
        if cells.size < N:
            # var f(x) = s2n psi(x)^T (Psi^T Psi + rho I)^{-1} psi(x), rho = M s2n / s2p
            col = np.full(n_nodes, -1, dtype=np.int64)
            col[cells] = np.arange(cells.size)
            Pt = indicator(col[train_nodes], np.ones_like(train_nodes, dtype=bool), cells.size)
            A = (Pt.T @ Pt).toarray()
            A[np.diag_indices_from(A)] += M * s2n / s2p
            inside = alive & (col[nodes] >= 0)
            Px = indicator(np.where(inside, col[nodes], 0), inside, cells.size)
            chol, info = cholesky(A)
            if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
                raise singular_error(s2n, s2p)
            V = tri_solve(chol, Px.T.toarray())
            var = s2n * np.einsum("ij,ij->j", V, V)
            # a tree in which x sits in a cell of its own adds its prior variance s2p / M
            var += s2p / M * (M - inside.sum(axis=0))
        else:
            Px = indicator(nodes, alive, n_nodes)
            Pt = indicator(train_nodes, np.ones_like(train_nodes, dtype=bool), n_nodes)
            Kxt = (Px @ Pt.T).toarray() / M
            S = (Pt @ Pt.T).toarray() * (s2p / M)
            S[np.diag_indices_from(S)] += s2n
            chol, info = cholesky(S)
            if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
                raise singular_error(s2n, s2p)
            V = tri_solve(chol, Kxt.T)
            var = s2p - s2p ** 2 * np.einsum("ij,ij->j", V, V)
        var = np.maximum(var, 0.0) + (s2n if include_noise else 0.0)
        return mean, np.sqrt(var)



def lifetime_path(X_train, y_train, X_val=None, y_val=None, terminal_lifetime=1.0, n_trees=50,
                  noise_variance=0.1, prior_variance=1.0, random_state=None, block_size=None,
                  progress=None, timings=None) -> LifetimePath:
    """Exact ridge regression in the Mondrian feature space for every lifetime.

    Samples ``n_trees`` Mondrians of ``X_train`` up to ``terminal_lifetime`` (exactly as
    ``MondrianFeatures(terminal_lifetime, n_trees, random_state).fit(X_train)``) and walks
    their cut events in time order, keeping the ridge solution (= posterior mean of
    Bayesian linear regression with weight prior variance ``prior_variance`` and noise
    variance ``noise_variance``) and the log marginal likelihood exact at every event.

    Parameters
    ----------
    X_train : array-like of shape (N, D)
        Training points (at least 2).
    y_train : array-like of shape (N,)
        Training targets (finite).
    X_val, y_val : array-like of shape (N_val, D) and (N_val,), optional
        Validation data; their RMSE is recorded at every event.
    terminal_lifetime : float, default=1.0
        Largest lifetime of the sweep (> 0, units of inverse ``X``);
        :func:`lifetime_for_cells` gives a sensible one.
    n_trees : int, default=50
        Number of Mondrians ``M``.
    noise_variance, prior_variance : float, default=0.1 and 1.0
        ``sigma_n^2`` and ``sigma_w^2`` (ridge penalty ``sigma_n^2 / sigma_w^2``, at
        least ``MIN_NOISE_RATIO``).
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`); the
        trees are those of ``MondrianFeatures`` with the same seed.
    block_size : int, optional
        Events per factorisation (default: measured while sweeping, see the module
        notes).
    progress : callable, optional
        Called with the fraction of events done (0..1), e.g. a progress bar.
    timings : dict, optional
        Filled with the seconds spent in each stage (for ``bench/``).

    Returns
    -------
    LifetimePath
        The fit statistics at every event, and what predictions at any lifetime need.

    Raises
    ------
    InputError
        If the data or a parameter is invalid, or the path cannot fit: more than
        ``MAX_STORED`` stored numbers (``min(C, N)`` per event) or a dense system of
        side ``min(C, N)`` above ``MAX_DENSE_SIDE``; the message names the largest
        terminal lifetime that fits.

    Notes
    -----
    The ridge system is solved in the space of the ``C`` alive cells while ``C < N``
    and in the dual ``N x N`` space after (see the module notes); both are exact.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    sec. 4.2.1 and Supplement B.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import lifetime_path
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(80, 2))
    >>> y = np.sin(4 * X[:, 0]) + 0.1 * rng.standard_normal(80)
    >>> path = lifetime_path(X[:60], y[:60], X[60:], y[60:], terminal_lifetime=6.0,
    ...                      n_trees=10, random_state=0)
    >>> bool(path.lifetimes[0] == 0.0 and path.lifetimes[-1] < 6.0)
    True
    >>> path.predict(X[60:], path.best_lifetime).shape
    (20,)
    >>> longer = path.partial_fit(X[:5] + 0.01, y[:5], random_state=1)  # online
    >>> longer.y_train.size
    65
    """
    from mondrian_core.trees import sample_mondrian_trees

    X_train = np.ascontiguousarray(check_points(X_train, "X_train", min_samples=2))
    D = X_train.shape[1]
    y = check_target(y_train, X_train, "y_train")
    has_val = check_validation_pair(X_val, y_val)
    if has_val:
        X_val = as_rows(X_val, D, "X_val")
        y_val = check_target(y_val, X_val, "y_val")
    for name, v in (("terminal_lifetime", terminal_lifetime), ("noise_variance", noise_variance),
                    ("prior_variance", prior_variance)):
        check_real(v, name, strict=True)
    M = check_count(n_trees, "n_trees")
    s2n, s2p = float(noise_variance), float(prior_variance)
    if s2n < MIN_NOISE_RATIO * s2p:
        raise singular_error(s2n, s2p)
    check_ridge_scale(y, s2n, s2p)

    with np.errstate(over="ignore"):
        cells = expected_cells(X_train.min(axis=0), X_train.max(axis=0), float(terminal_lifetime))
    check_path_cost(X_train.shape[0], M, cells)
    check_sweep_hooks(block_size, progress, timings)
    clock = Clock(timings)
    t_start = time.perf_counter()
    rng = check_random_state(random_state)
    trees = sample_mondrian_trees(X_train, M, float(terminal_lifetime), random_state=rng)
    ext_seed = int(rng.integers(2**63 - 1))
    clock("trees")
    return _path_on_trees(trees, y, X_val if has_val else None, y_val if has_val else None,
                          s2n, s2p, ext_seed, block_size, progress, clock, t_start)


def lifetime_path_on_trees(trees, y_train, X_val=None, y_val=None, noise_variance=0.1,
                           prior_variance=1.0, extension_seed=0, block_size=None,
                           progress=None, timings=None) -> LifetimePath:
    """The lifetime sweep of :func:`lifetime_path` on given trees (no sampling).

    Runs the same event walk on ``trees`` (e.g. trees grown online by
    :meth:`MondrianTrees.extended <mondrian_core.trees.MondrianTrees.extended>`) and
    their fitted points ``trees.X_fit``: the reference a :meth:`LifetimePath.partial_fit`
    is compared with, and a way to re-run a sweep with other variances on one set of
    trees. ``lifetime_path(X, y, ..., random_state=s)`` equals this function on the trees
    it sampled with its ``extension_seed``.

    Parameters
    ----------
    trees : MondrianTrees
        The Mondrians; their terminal lifetime is the sweep's.
    y_train : array-like of shape (N,)
        Targets of the fitted points ``trees.X_fit`` (used as given, zero prior mean).
    X_val, y_val : array-like of shape (N_val, D) and (N_val,), optional
        Validation data; their RMSE is recorded at every event.
    noise_variance, prior_variance : float, default=0.1 and 1.0
        ``sigma_n^2`` and ``sigma_w^2`` (see :func:`lifetime_path`).
    extension_seed : int, default=0
        Seed of the conditional Mondrian placement of new points (``>= 0``).
    block_size : int, optional
        Events per factorisation (default: measured while sweeping).
    progress : callable, optional
        Called with the fraction of events done (0..1).
    timings : dict, optional
        Filled with the seconds spent in each stage.

    Returns
    -------
    LifetimePath
        The path over every event of ``trees``.

    Raises
    ------
    InputError
        If ``trees`` is not a ``MondrianTrees``, a datum or parameter is invalid, or the
        path cannot fit (see :func:`lifetime_path`).
    """
    from mondrian_core.trees import MondrianTrees

    if not isinstance(trees, MondrianTrees):
        raise InputError("trees must be MondrianTrees (from sample_mondrian_trees or "
                         f"MondrianTrees.extended), got {type(trees).__name__}.")
    y = check_target(y_train, trees.X_fit, "y_train")
    if y.size < 2:
        raise InputError("The sweep needs at least 2 training points; the trees hold "
                         f"{y.size}.")
    has_val = check_validation_pair(X_val, y_val)
    if has_val:
        X_val = as_rows(X_val, trees.n_features_in, "X_val")
        y_val = check_target(y_val, X_val, "y_val")
    s2n = check_real(noise_variance, "noise_variance", strict=True)
    s2p = check_real(prior_variance, "prior_variance", strict=True)
    if s2n < MIN_NOISE_RATIO * s2p:
        raise singular_error(s2n, s2p)
    check_ridge_scale(y, s2n, s2p)
    seed = check_count(extension_seed, "extension_seed", minimum=0)
    check_sweep_hooks(block_size, progress, timings)
    return _path_on_trees(trees, y, X_val if has_val else None, y_val if has_val else None,
                          s2n, s2p, seed, block_size, progress, Clock(timings),
                          time.perf_counter())


def _path_on_trees(trees, y, X_val, y_val, s2n, s2p, ext_seed, block_size, progress, clock,
                   t_start):
    """The sweep over every event of ``trees`` (arguments already checked)."""
    M, N = trees.n_trees, y.size
    events = np.asarray(trees.events(), dtype=np.int64)
    times = trees.split_time[events]
    _check_fits(N, M, times)
    lifetimes = np.concatenate([[0.0], times])
    placement = place_points(trees, X_val, ext_seed) if X_val is not None else None
    clock("place validation")
    sweep = EventWalk(trees, events, y, s2n, s2p, placement, y_val, block_size, clock, t_start,
                      VAL_CHUNK)
    sweep.run(progress)
    return LifetimePath(
        lifetimes=lifetimes, n_features=M + np.arange(events.size + 1),
        train_rmse=sweep.train_rmse(), val_rmse=sweep.val_rmse,
        log_marginal_likelihood=sweep.log_marginal_likelihood(), trees=trees,
        alphas=sweep.solutions(lifetimes), X_train=trees.X_fit, y_train=y, noise_variance=s2n,
        prior_variance=s2p, terminal_lifetime=float(trees.lifetime),
        extension_seed=ext_seed, event_nodes=events, seconds=sweep.seconds,
        X_val=X_val, y_val=y_val)



def _check_fits(N, M, times):
    """Refuse, before any work, a sweep whose solutions or dense system cannot fit."""
    E = times.size
    k = np.arange(E + 1)
    stored = np.cumsum(np.minimum(M + k, N))  # stored[e]: floats kept by a sweep of e events
    side = np.minimum(M + k, N)  # side of the dense system at state k
    ok = (stored <= MAX_STORED) & (side <= MAX_DENSE_SIDE)
    if ok.all():
        return
    fits = int(np.argmin(ok)) - 1  # events that fit; the sweep must stop before the next one
    advice = (f"a terminal lifetime of at most {round_down(times[fits]):g}, " if fits >= 1
              else "")
    raise InputError(
        f"This sweep has {E:,} cut events on {N:,} training points with {M} trees, too many "
        f"to keep: it needs {int(stored[-1]):,} stored numbers (limit {MAX_STORED:,}) and a "
        f"dense {int(side[-1]):,} x {int(side[-1]):,} system (limit {MAX_DENSE_SIDE:,}); use "
        f"{advice}fewer trees or fewer points.")
