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

The algorithm (why this one)
----------------------------
All events are known in advance (the trees are sampled to the terminal lifetime
first), so they are handled in blocks, and each block costs one factorisation of
whichever system is smaller at its start.

*Cell space (while C < N).* With ``Psi`` the 0/1 indicators of the ``C`` alive cells
(``Phi = Psi / sqrt(M)``) and ``rho = M noise_variance / prior_variance``, the cell
values ``v = A^{-1} Psi^T y``, ``A = Psi^T Psi + rho I`` (``C x C``), give every
prediction (a point's value is the sum of its cells' values over the trees), and
``y^T S^{-1} y = (y^T y - y^T Psi v) / noise_variance``, ``log det S = N log
noise_variance + log det A - C log rho`` (Woodbury, the determinant lemma). An event
deletes cell ``j`` and adds its children ``a``, ``b``. A block factorises the ``C0 x C0``
matrix ``A0`` of its first state once; the state after its ``k``-th event is ``A0``
bordered, per event, by the children (their overlaps with the base cells and with one
another) and by a Lagrange multiplier holding ``v_j = 0``: a KKT system whose
leading ``3k`` rows are that state. The Schur complement ``Z`` of ``A0`` in it is
formed once per block; an unpivoted 3 x 3 block LDL^T of ``Z`` (its leading blocks are
non-singular: KKT systems of a positive definite matrix with independent constraints)
gives every state's ``log det`` and quadratic form as prefix sums and every state's
``v`` from one triangular solve and one product. Deleting the multiplier rows is exact,
so the states match the dense formulas to rounding. Base cells are ordered by the
event that cuts them (latest first), so the deleted cells' columns are the factor's
last rows, and only the smaller child of each event has its overlaps counted (the
larger child's are the parent's minus the smaller's). Per block: one ``C0^3/3``
Cholesky, ``O(C0^2)`` per event, and no ``N x N`` matrix.

*Dual space (once C >= N).* The same blocks on ``S = prior_variance K + noise_variance
I`` (``N x N``): an event changes ``K`` by ``-(1/M)(1_a 1_b^T + 1_b 1_a^T)``; the
Woodbury identity on ``S`` at the block's start, with an unpivoted 2 x 2 block LDL^T of
its capacitance, gives every event's ``alpha = S^{-1} y``, ``log det S`` and quadratic
form; ``S`` is updated by a rank-2B ``syr2k`` and refactorised per block.

Block sizes are measured, not fixed: after each block the next one has
``sqrt(fixed / quadratic)`` times its events (at most twice as many), where *fixed* is
the time spent per block regardless of its length (the factorisation, rebuilding the
base system) and *quadratic* the time of the parts growing as the square of its length
(the capacitance and its LDL); that minimises ``fixed / B + q B`` per event. The walk
runs on one BLAS thread (:func:`mondrian_core._blas.single_blas_thread`): it is many
mid-sized products and solves, on which threads only contend, and OpenBLAS's threaded
``dpotrf`` crashed the interpreter on 16,000 x 16,000 matrices.

What is kept per event is the cheaper form: the ``C`` cell values in cell space, the
``N`` entries of ``alpha`` in the dual; :attr:`LifetimePath.alphas` expands rows on
demand.

New training points (:meth:`LifetimePath.partial_fit`) extend the trees by the
conditional Mondrian and keep the old event order (new cuts merged in). From the state
at which every new point sits only in cells holding no old point, the system is block
diagonal and each state is the old path's plus an ``n x n`` term (updated, never
refactorised); before it the states are recomputed by the walk above on the extended
trees (:func:`lifetime_path_on_trees`), since no per-event factorisation is kept.

Validation (and any new) points are placed with the conditional Mondrian extension
(Roy and Teh 2009), drawn once for all lifetimes: along its path through each tree a
point branches off into a cell of its own at a time ``birth + Exp(rate)`` (rate = the
linear distance from the node's box) if that is before the node's cut; from then on
it shares no cell with the training points in that tree.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.linalg import blas, lapack

from mondrian_core._blas import single_blas_thread
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
from mondrian_core.process import max_lifetime

__all__ = ["LifetimePath", "lifetime_path", "lifetime_path_on_trees", "place_points",
           "lifetime_for_cells"]

_LOG_2PI = float(np.log(2.0 * np.pi))
#: Refuse paths whose stored solutions (``min(C_k, N)`` floats per event) would exceed this.
MAX_STORED = 150_000_000
#: Refuse paths whose dense system (side ``min(C, N)`` at the terminal lifetime) is larger.
MAX_DENSE_SIDE = 16_000
#: Factorisations of larger matrices run on one BLAS thread: OpenBLAS's threaded dpotrf
#: crashed the interpreter at 16,000-20,000 (two threads), so half of that with a margin.
SAFE_THREADED_SIDE = 8_000
#: Largest border of a block (``3 x events x side`` floats, ~400 MB), whatever is measured.
MAX_BLOCK_FLOATS = 50_000_000
#: Smallest noise_variance / prior_variance (below it the dual system is singular in floats).
MIN_NOISE_RATIO = 1e-8


# --------------------------------------------------------------- placement


@dataclass(frozen=True)
class Placement:
    """Where new points sit in each tree, for every lifetime at once.

    ``nodes[m, i, d]`` is the ``d``-th node on point ``i``'s path in tree ``m``
    (``-1`` padding), ``births`` the times those nodes appear (``inf`` padding) and
    ``branch[m, i]`` the time the point branches off into a cell of its own
    (``inf`` if never). At lifetime ``t`` the point is in the deepest path node with
    ``birth <= t``, unless ``branch <= t``.
    """

    nodes: np.ndarray
    births: np.ndarray
    branch: np.ndarray

    def at(self, time: float):
        """``(nodes (M, n), alive (M, n))`` at lifetime ``time``."""
        depth = (self.births <= time).sum(axis=-1) - 1
        nodes = np.take_along_axis(self.nodes, depth[..., None], axis=-1)[..., 0]
        return nodes, self.branch > time


def place_points(trees, X, random_state=None) -> Placement:
    """Walk every tree with the conditional Mondrian extension for all lifetimes.

    Uses the same counter-based exponential clocks as
    :meth:`MondrianTrees.apply <mondrian_core.trees.MondrianTrees.apply>` (a hash of
    the seed, the node and the point), so ``place_points(trees, X, s).at(t)`` agrees
    with ``trees.apply(X, time=t, random_state=s)`` at every ``t`` at once. Each
    point is placed on its own, which is exact for the kernel between it and the
    training points, all that a ridge prediction needs. Vectorised over points and
    trees (one loop over depth).

    Parameters
    ----------
    trees : MondrianTrees
        The fitted trees.
    X : array-like of shape (n, D)
        The new points.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Seeds the exponential clocks (see :func:`~mondrian_core.check_random_state`).

    Returns
    -------
    Placement
        Each point's path through each tree and the time it branches off.

    References
    ----------
    Roy and Teh (2009), "The Mondrian Process". Lakshminarayanan, Roy and Teh (2014),
    "Mondrian Forests: Efficient Online Random Forests".
    """
    from mondrian_core.trees import hashed_exponential, row_hash

    X = np.asarray(X, dtype=float)
    seed = np.uint64(check_random_state(random_state).integers(2**63))
    point_hash = row_hash(X)
    M, n = trees.n_trees, X.shape[0]
    n_levels = int(trees.depth.max()) + 1
    node = np.repeat(np.asarray(trees.roots)[:, None], n, axis=1)
    active = np.ones((M, n), dtype=bool)
    nodes = np.full((M, n, n_levels), -1, dtype=np.int64)
    births = np.full((M, n, n_levels), np.inf)
    branch = np.full((M, n), np.inf)
    for d in range(n_levels):
        exp = hashed_exponential(np.broadcast_to(point_hash, (M, n)), node, seed)
        nodes[..., d] = np.where(active, node, -1)
        births[..., d] = np.where(active, trees.birth_time[node], np.inf)
        gap = (np.maximum(trees.lower[node] - X, 0.0) + np.maximum(X - trees.upper[node], 0.0))
        rate = gap.sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_branch = trees.birth_time[node] + np.where(rate > 0, exp / rate, np.inf)
        leaves = active & (t_branch < trees.split_time[node])
        branch[leaves] = t_branch[leaves]
        active &= ~leaves
        cut = trees.left[node] >= 0
        dim = np.maximum(trees.split_dim[node], 0)
        x_d = np.take_along_axis(np.broadcast_to(X, (M, n, X.shape[1])), dim[..., None], -1)[..., 0]
        child = np.where(x_d <= trees.split_loc[node], trees.left[node], trees.right[node])
        active &= cut
        node = np.where(active, child, node)
        if not active.any():
            break
    return Placement(nodes=nodes, births=births, branch=branch)


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

    def place(self, X) -> Placement:
        """Return the placement of new points (cached by content; the sweep's seed).

        Parameters
        ----------
        X : array-like of shape (n, D)
            The points.

        Returns
        -------
        Placement
            As :func:`place_points` with ``extension_seed``.
        """
        X = _as_2d(X, self.X_train.shape[1], "X")
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
        X = _as_2d(X, self.X_train.shape[1], "X")
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
        return _update_path(self, X_new, y_new, random_state, block_size, progress, timings)

    def coef(self, lifetime):
        """Return the ridge weights of the cells alive at ``lifetime``.

        Parameters
        ----------
        lifetime : float
            A lifetime in ``[0, terminal_lifetime]``.

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

        Returns
        -------
        mean : ndarray of shape (n,)
            The predictive mean.
        std : ndarray of shape (n,)
            The predictive standard deviation; only with ``return_std=True``.
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
            Pt = _indicator(col[train_nodes], np.ones_like(train_nodes, dtype=bool), cells.size)
            A = (Pt.T @ Pt).toarray()
            A[np.diag_indices_from(A)] += M * s2n / s2p
            inside = alive & (col[nodes] >= 0)
            Px = _indicator(np.where(inside, col[nodes], 0), inside, cells.size)
            chol, info = _factor(A)
            if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
                raise _singular(s2n, s2p)
            V = _tri_solve(chol, Px.T.toarray())
            var = s2n * np.einsum("ij,ij->j", V, V)
            # a tree in which x sits in a cell of its own adds its prior variance s2p / M
            var += s2p / M * (M - inside.sum(axis=0))
        else:
            Px = _indicator(nodes, alive, n_nodes)
            Pt = _indicator(train_nodes, np.ones_like(train_nodes, dtype=bool), n_nodes)
            Kxt = (Px @ Pt.T).toarray() / M
            S = (Pt @ Pt.T).toarray() * (s2p / M)
            S[np.diag_indices_from(S)] += s2n
            chol, info = _factor(S)
            if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
                raise _singular(s2n, s2p)
            V = _tri_solve(chol, Kxt.T)
            var = s2p - s2p ** 2 * np.einsum("ij,ij->j", V, V)
        var = np.maximum(var, 0.0) + (s2n if include_noise else 0.0)
        return mean, np.sqrt(var)


def _tri_solve(chol, B):
    out, info = lapack.dtrtrs(chol, np.asfortranarray(B), lower=1)
    return out


def _indicator(nodes, alive, n_nodes):
    """Sparse (n, n_nodes) counts of the alive node of each point in each tree."""
    M, n = nodes.shape
    rows = np.broadcast_to(np.arange(n), (M, n))[alive]
    return sp.csr_matrix((np.ones(rows.size), (rows, nodes[alive])), shape=(n, n_nodes))


def _singular(s2n, s2p):
    return InputError(
        f"The noise variance {s2n:g} is too small next to the weight prior variance {s2p:g}: "
        f"the ridge system is numerically singular. Use a noise variance of at least "
        f"{MIN_NOISE_RATIO * s2p:g}.")


def _as_2d(X, n_features, name):
    """Points by the one validation layer, C-contiguous (the walks read rows)."""
    return np.ascontiguousarray(check_points(X, name, n_features=n_features))


def _node_points(trees, nodes):
    """Flat training-point indices of each node in ``nodes`` and the CSR indptr."""
    lengths = (trees.stop[nodes] - trees.start[nodes]).astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    base = trees.tree[nodes].astype(np.int64) * trees.order.shape[1] + trees.start[nodes]
    flat = np.repeat(base - indptr[:-1], lengths) + np.arange(indptr[-1])
    return trees.order.ravel()[flat], indptr


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
    """
    from mondrian_core.trees import sample_mondrian_trees

    X_train = np.ascontiguousarray(check_points(X_train, "X_train", min_samples=2))
    D = X_train.shape[1]
    y = check_target(y_train, X_train, "y_train")
    has_val = check_validation_pair(X_val, y_val)
    if has_val:
        X_val = _as_2d(X_val, D, "X_val")
        y_val = check_target(y_val, X_val, "y_val")
    for name, v in (("terminal_lifetime", terminal_lifetime), ("noise_variance", noise_variance),
                    ("prior_variance", prior_variance)):
        check_real(v, name, strict=True)
    M = check_count(n_trees, "n_trees")
    s2n, s2p = float(noise_variance), float(prior_variance)
    if s2n < MIN_NOISE_RATIO * s2p:
        raise _singular(s2n, s2p)
    check_ridge_scale(y, s2n, s2p)

    check_path_cost(X_train, M, float(terminal_lifetime))
    check_sweep_hooks(block_size, progress, timings)
    clock = _Clock(timings)
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
        X_val = _as_2d(X_val, trees.n_features_in, "X_val")
        y_val = check_target(y_val, X_val, "y_val")
    s2n = check_real(noise_variance, "noise_variance", strict=True)
    s2p = check_real(prior_variance, "prior_variance", strict=True)
    if s2n < MIN_NOISE_RATIO * s2p:
        raise _singular(s2n, s2p)
    check_ridge_scale(y, s2n, s2p)
    seed = check_count(extension_seed, "extension_seed", minimum=0)
    check_sweep_hooks(block_size, progress, timings)
    return _path_on_trees(trees, y, X_val if has_val else None, y_val if has_val else None,
                          s2n, s2p, seed, block_size, progress, _Clock(timings),
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
    sweep = _Sweep(trees, events, y, s2n, s2p, placement, y_val, block_size, clock, t_start)
    sweep.run(progress)
    return LifetimePath(
        lifetimes=lifetimes, n_features=M + np.arange(events.size + 1),
        train_rmse=sweep.train_rmse(), val_rmse=sweep.val_rmse,
        log_marginal_likelihood=sweep.log_marginal_likelihood(), trees=trees,
        alphas=sweep.solutions(lifetimes), X_train=trees.X_fit, y_train=y, noise_variance=s2n,
        prior_variance=s2p, terminal_lifetime=float(trees.lifetime),
        extension_seed=ext_seed, event_nodes=events, seconds=sweep.seconds,
        X_val=X_val, y_val=y_val)


# --------------------------------------------------------------- online update


def _merged_events(old_events, trees, n_old):
    """The event order of extended trees from the old one: the new cut nodes (ids from
    ``n_old``; old nodes keep their ids and cut times) merged in by time, ties by id as
    :meth:`MondrianTrees.events` (an old id is smaller than every new one)."""
    fresh = np.flatnonzero(trees.left[n_old:] >= 0) + n_old
    fresh = fresh[np.lexsort((fresh, trees.split_time[fresh]))]
    at = np.searchsorted(trees.split_time[old_events], trees.split_time[fresh], side="right")
    return np.insert(np.asarray(old_events, dtype=np.int64), at, fresh)


def _rows_per_node(trees, rows):
    """Number of the rows flagged in ``rows`` (bool, N) held by each node."""
    cum = np.zeros((trees.n_trees, trees.n_samples + 1))
    np.cumsum(rows[trees.order], axis=1, out=cum[:, 1:])
    return np.rint(cum[trees.tree, trees.stop] - cum[trees.tree, trees.start]).astype(np.int64)


def _first_detached_state(trees, events, old_count, new_count):
    """The first state from which no new row shares a cell with an old row (E+1: none).

    A new row leaves the old rows of a tree when the lowest node on its path holding old
    rows is cut; if that node is its leaf, it never does.
    """
    E = events.size
    leaves = trees.left < 0
    if np.any(leaves & (old_count > 0) & (new_count > 0)):
        return E + 1
    par = trees.parent
    top = (old_count == 0) & (par >= 0)
    top[top] = old_count[par[top]] > 0  # new-only nodes whose parent holds old rows
    pos = np.full(trees.n_nodes, -1, dtype=np.int64)
    pos[events] = np.arange(E)
    return int(pos[par[top]].max()) + 1


def _update_path(path, X_new, y_new, random_state, block_size, progress, timings):
    """:meth:`LifetimePath.partial_fit` (see there for the algorithm)."""
    if not isinstance(path.alphas, _Solutions):
        raise InputError("partial_fit needs a path made by lifetime_path, "
                         "lifetime_path_on_trees or partial_fit (it reads their stored "
                         "solutions).")
    clock = _Clock(timings)
    t_start = time.perf_counter()
    X_new = _as_2d(X_new, path.X_train.shape[1], "X_new")
    y_new = check_target(y_new, X_new, "y_new")
    rng = check_random_state(random_state)
    old_trees = path.trees
    trees = old_trees.extended(X_new, random_state=rng)
    clock("extend trees")
    N0 = path.y_train.size
    y = np.concatenate([path.y_train, y_new])
    M, N = trees.n_trees, y.size
    events = _merged_events(path.event_nodes, trees, old_trees.n_nodes)
    E = events.size
    lifetimes = np.concatenate([[0.0], trees.split_time[events]])
    _check_fits(N, M, lifetimes[1:])
    s2n, s2p = path.noise_variance, path.prior_variance
    placement = (place_points(trees, path.X_val, path.extension_seed)
                 if path.X_val is not None else None)
    clock("place validation")
    is_old = np.arange(N) < N0
    old_count = _rows_per_node(trees, is_old)
    new_count = (trees.stop - trees.start) - old_count
    first = _first_detached_state(trees, events, old_count, new_count)
    # states 0 .. first-1: the block walk on the extended trees (no stored factor to update)
    scaled = None if progress is None else (lambda f: progress(f * (first - 1) / max(E, 1)))
    sweep = _Sweep(trees, events[:first - 1], y, s2n, s2p, placement, path.y_val, block_size,
                   clock, t_start)
    sweep.run(scaled)
    died = np.full(trees.n_nodes, E, dtype=np.int64)
    died[events] = np.arange(E)
    born = np.zeros(trees.n_nodes, dtype=np.int64)
    kids = trees.parent >= 0
    born[kids] = died[trees.parent[kids]] + 1
    n_primal = int(min(max(N - M, 0), E + 1))
    offsets = np.concatenate([[0], np.cumsum(M + np.arange(n_primal))])
    v_flat = np.empty(int(offsets[-1]))
    v_flat[:sweep.v_flat.size] = sweep.v_flat
    alpha_dual = np.empty((E + 1 - n_primal, N))
    if first > n_primal:
        alpha_dual[:first - n_primal] = sweep.alpha_dual
    out = dict(lml=np.empty(E + 1), train_rmse=np.empty(E + 1),
               val_rmse=np.full(E + 1, np.nan), seconds=np.empty(E + 1))
    out["lml"][:first] = sweep.log_marginal_likelihood()
    out["train_rmse"][:first] = sweep.train_rmse()
    out["val_rmse"][:first] = sweep.val_rmse
    out["seconds"][:first] = sweep.seconds
    if first <= E:
        _Detached(path, trees, events, lifetimes, y_new, new_count, born, died, n_primal,
                  offsets, v_flat, alpha_dual, placement, out, t_start).run(first, progress)
        clock("update detached")
    return LifetimePath(
        lifetimes=lifetimes, n_features=M + np.arange(E + 1), train_rmse=out["train_rmse"],
        val_rmse=out["val_rmse"], log_marginal_likelihood=out["lml"], trees=trees,
        alphas=_Solutions(trees, y, s2n, s2p, lifetimes, born, died, n_primal, offsets,
                          v_flat, alpha_dual),
        X_train=trees.X_fit, y_train=y, noise_variance=s2n, prior_variance=s2p,
        terminal_lifetime=path.terminal_lifetime, extension_seed=path.extension_seed,
        event_nodes=events, seconds=out["seconds"], X_val=path.X_val, y_val=path.y_val)


class _Detached:
    """The states from which every new row sits in cells of new rows only.

    The system is then block diagonal (old rows x old cells, new rows x new cells): each
    state is the old path's state at the same lifetime plus the ``n x n`` system of the
    new rows, ``S_new = prior_variance K_new + noise_variance I``, which changes only when
    a cell of new rows is cut (by ``-(prior_variance / M)`` between the rows of its two
    children, then one ``n x n`` Cholesky). States are handled in chunks: the old cell
    values of a chunk come from the old path's stored solutions by one sparse product.
    """

    CHUNK = 64

    def __init__(self, path, trees, events, lifetimes, y_new, new_count, born, died, n_primal,
                 offsets, v_flat, alpha_dual, placement, out, t_start):
        self.path, self.trees, self.events, self.lifetimes = path, trees, events, lifetimes
        self.y_new, self.new_count, self.born, self.died = y_new, new_count, born, died
        self.n_primal, self.offsets, self.v_flat = n_primal, offsets, v_flat
        self.alpha_dual, self.placement, self.out = alpha_dual, placement, out
        self.t_start = t_start
        self.N0 = path.y_train.size
        old = path.trees
        # (old nodes x old points) membership: a node's value in a dual state is the sum of
        # alpha over its points, a point's fit the sum of its alive cells' values
        pts, indptr = _node_points(old, np.arange(old.n_nodes))
        self.member = sp.csr_matrix((np.ones(pts.size), pts, indptr),
                                    shape=(old.n_nodes, self.N0))

    def _new_system(self, S):
        """``S_new^{-1} y_new``, its log-density term and residual sum of squares."""
        path = self.path
        chol, info = _factor(S)
        if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
            raise _singular(path.noise_variance, path.prior_variance)
        alpha = lapack.dtrtrs(chol, lapack.dtrtrs(chol, self.y_new, lower=1)[0], lower=1,
                              trans=1)[0]
        lml = (-0.5 * float(self.y_new @ alpha) - np.log(np.diag(chol)).sum()
               - 0.5 * self.y_new.size * _LOG_2PI)
        return alpha, lml, path.noise_variance ** 2 * float(alpha @ alpha)

    def _new_values(self, nodes, alpha):
        """Cell values of the new rows' cells (array over all nodes, 0 elsewhere)."""
        M, n = nodes.shape
        return np.bincount(nodes.ravel(), weights=np.broadcast_to(alpha, (M, n)).ravel(),
                           minlength=self.trees.n_nodes) * (self.path.prior_variance / M)

    def _old_values(self, ks):
        """Old cell values (old nodes x len(ks)) of old states ``ks`` (0 where not alive)."""
        path, sol = self.path, self.path.alphas
        n_old = path.trees.n_nodes
        vals = np.zeros((n_old, ks.size))
        alive = (sol.born[:, None] <= ks) & (ks <= sol.died[:, None])
        prim = np.flatnonzero(ks < sol.n_primal)
        for c in prim:  # stored cell values, ascending node id
            k = ks[c]
            vals[alive[:, c], c] = sol.v_flat[sol.offsets[k]:sol.offsets[k + 1]]
        dual = np.flatnonzero(ks >= sol.n_primal)
        if dual.size:
            A = sol.alpha_dual[ks[dual] - sol.n_primal].T
            scale = path.prior_variance / path.trees.n_trees
            vals[:, dual] = (self.member @ A) * scale * alive[:, dual]
        return vals

    def run(self, first, progress):
        path, trees, events, out = self.path, self.trees, self.events, self.out
        E, N0, M = events.size, self.N0, trees.n_trees
        N = N0 + self.y_new.size
        s2n, s2p = path.noise_variance, path.prior_variance
        sol = path.alphas
        n_old = path.trees.n_nodes
        nodes = trees.nodes_at(float(self.lifetimes[first]))[:, N0:]
        P = _indicator(nodes, np.ones_like(nodes, dtype=bool), trees.n_nodes)
        S = (P @ P.T).toarray() * (s2p / M)
        S[np.diag_indices_from(S)] += s2n
        alpha_n, lml_n, rss_n = self._new_system(S)
        new_vals = self._new_values(nodes, alpha_n)
        old_rss = N0 * path.train_rmse ** 2
        if self.placement is not None:
            cursor = _ValCursor(self.placement)
            row_of = np.arange(trees.n_nodes)
        for c0 in range(first, E + 1, self.CHUNK):
            states = np.arange(c0, min(c0 + self.CHUNK, E + 1))
            ks = np.searchsorted(path.lifetimes, self.lifetimes[states], side="right") - 1
            uk, inv = np.unique(ks, return_inverse=True)
            old_vals = self._old_values(uk)
            full = np.zeros((trees.n_nodes, states.size))
            full[:n_old] = old_vals[:, inv]  # the old cells hold no new row
            alpha_new = np.empty((states.size, self.y_new.size))
            for i, s in enumerate(states):
                if s > first and self.new_count[events[s - 1]] > 0:
                    # a cut of a cell of new rows: its children's rows part
                    j = events[s - 1]
                    pts, indptr = _node_points(trees, np.array([trees.left[j], trees.right[j]]))
                    ra, rb = pts[:indptr[1]] - N0, pts[indptr[1]:] - N0
                    S[np.ix_(ra, rb)] -= s2p / M
                    S[np.ix_(rb, ra)] -= s2p / M
                    nodes[trees.tree[j], ra] = trees.left[j]
                    nodes[trees.tree[j], rb] = trees.right[j]
                    alpha_n, lml_n, rss_n = self._new_system(S)
                    new_vals = self._new_values(nodes, alpha_n)
                k = ks[i]
                out["lml"][s] = path.log_marginal_likelihood[k] + lml_n
                out["train_rmse"][s] = np.sqrt(max(old_rss[k] + rss_n, 0.0) / N)
                full[:, i] += new_vals
                alpha_new[i] = alpha_n
            prim = states < self.n_primal
            if prim.any():
                sp_ = states[prim]
                alive = (self.born[:, None] <= sp_) & (sp_ <= self.died[:, None])
                self.v_flat[self.offsets[sp_[0]]:self.offsets[sp_[-1] + 1]] = (
                    full[:, prim].T[alive.T])
            if not prim.all():
                dual = np.flatnonzero(~prim)
                rows = self.alpha_dual[states[dual] - self.n_primal]
                kd = ks[dual]
                old_dual = kd >= sol.n_primal
                rows[old_dual, :N0] = sol.alpha_dual[kd[old_dual] - sol.n_primal]
                if not old_dual.all():  # alpha = (y - fit) / s2n from stored cell values
                    cols = dual[~old_dual]
                    fit = (self.member.T @ full[:n_old, cols]).T
                    rows[~old_dual, :N0] = (path.y_train - fit) / s2n
                rows[:, N0:] = alpha_new[dual]
                self.alpha_dual[states[dual] - self.n_primal] = rows
            if self.placement is not None:
                pred = np.empty((states.size, path.y_val.size))
                _val_block(self.placement, cursor, full, row_of, self.lifetimes[states], pred)
                out["val_rmse"][states] = np.sqrt(np.mean((pred - path.y_val) ** 2, axis=1))
            out["seconds"][states] = time.perf_counter() - self.t_start
            if progress is not None:
                progress(states[-1] / max(E, 1))


def _stored_numbers(N, M, n_events):
    """Floats the path keeps for ``n_events`` events: ``min(C_k, N)`` per event state.

    State ``k`` (after ``k`` events) has ``C_k = M + k`` cells; the primal states keep
    the ``C_k`` cell values, the dual states the ``N`` entries of ``alpha``.
    """
    k = np.arange(n_events + 1)
    return int(np.minimum(M + k, N).sum())


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


def _factor(A):
    """Lower Cholesky factor of ``A``; one BLAS thread above ``SAFE_THREADED_SIDE``."""
    if A.shape[0] > SAFE_THREADED_SIDE:
        with single_blas_thread():
            chol, info = lapack.dpotrf(A, lower=1, clean=1)
    else:
        chol, info = lapack.dpotrf(A, lower=1, clean=1)
    return chol, info


class _Sweep:
    """The event walk: primal (cell space) states while ``C < N``, dual ones after.

    State ``k`` is the model after the first ``k`` events. Per state it records the
    quadratic form ``y^T S^{-1} y``, ``log det S``, the training residual sum of
    squares, the validation RMSE and the solution (cell values ``v`` in the primal
    states, ``alpha`` in the dual ones).
    """

    def __init__(self, trees, events, y, s2n, s2p, placement, y_val, block_size, clock,
                 t_start):
        self.trees, self.events, self.y = trees, events, y
        self.s2n, self.s2p = s2n, s2p
        self.M, self.N, self.E = trees.n_trees, y.size, events.size
        self.rho = self.M * s2n / s2p  # ridge of the cell-space system Psi^T Psi + rho I
        self.placement, self.y_val = placement, y_val
        self.lifetimes = np.concatenate([[0.0], trees.split_time[events]])
        # where each (tree, validation point) is on its path: advanced with time
        self.val_cursor = _ValCursor(placement) if placement is not None else None
        self.fixed_block = int(block_size) if block_size else None
        self.clock, self.t_start = clock, t_start
        E, n_nodes = self.E, trees.parent.shape[0]
        # integer event bookkeeping: cell j is alive in states born[j] .. died[j]
        self.died = np.full(n_nodes, E, dtype=np.int64)
        self.died[events] = np.arange(E)
        self.born = np.zeros(n_nodes, dtype=np.int64)
        kids = trees.parent >= 0
        self.born[kids] = self.died[trees.parent[kids]] + 1
        self.n_pts = (trees.stop - trees.start).astype(float)
        ycum = np.zeros((self.M, self.N + 1))
        np.cumsum(y[trees.order], axis=1, out=ycum[:, 1:])
        self.ysum = ycum[trees.tree, trees.stop] - ycum[trees.tree, trees.start]
        self.yty = float(y @ y)
        # states 0 .. n_primal-1 are solved in cell space (C_k = M + k < N)
        self.n_primal = int(min(max(self.N - self.M, 0), E + 1))
        self.quad = np.empty(E + 1)    # y^T S^{-1} y
        self.logdet = np.empty(E + 1)  # log det S
        self.rss = np.empty(E + 1)     # training residual sum of squares
        self.val_rmse = np.full(E + 1, np.nan)
        self.seconds = np.empty(E + 1)
        self.offsets = np.concatenate([[0], np.cumsum(self.M + np.arange(self.n_primal))])
        self.v_flat = np.empty(int(self.offsets[-1]))
        self.alpha_dual = np.empty((E + 1 - self.n_primal, self.N))
        # (N, M): each point's cell per tree at the current block start
        # (int32: gathers of it are the sweep's main memory traffic at large N)
        self.point_cell = np.repeat(np.asarray(trees.roots, dtype=np.int32)[None, :], self.N,
                                    axis=0)

    # ------------------------------------------------------------------ common
    def _alive(self, nodes, states):
        """(len(states), len(nodes)) mask: node alive in state."""
        s = np.asarray(states)[:, None]
        return (self.born[nodes] <= s) & (s <= self.died[nodes])

    def _advance(self, kids):
        """Move each tree's points to the children of the events (in event order)."""
        pts, indptr = _node_points(self.trees, kids)
        owner = np.repeat(kids, np.diff(indptr))
        self.point_cell[pts, self.trees.tree[owner]] = owner

    def _validate(self, vals, row_of, states):
        if self.placement is None:
            return
        times = self.lifetimes[np.asarray(states)]
        pred = np.empty((len(states), self.y_val.size))
        _val_block(self.placement, self.val_cursor, vals, row_of, times, pred)
        self.val_rmse[states] = np.sqrt(np.mean((pred - self.y_val) ** 2, axis=1))

    def _next_block(self, k, last, b, fixed, quadratic, side):
        """Events in the next block: measured, ``sqrt(fixed cost / quadratic cost per b^2)``.

        Per event a block of ``b`` costs about ``fixed / b + q b`` (the factorisation
        at its start is shared; the capacitance and its LDL grow as ``b^2``), which is
        least at ``b = sqrt(fixed / q)``; the first blocks start small and grow by at
        most 2x per block while the measurements settle. The block's border
        (``side x 3b`` floats) stays under ``MAX_BLOCK_FLOATS``.
        """
        if self.fixed_block:
            b_new = self.fixed_block
        elif b == 0:
            b_new = 16
        else:
            q = max(quadratic, 1e-6) / b ** 2
            b_new = int(np.clip(np.sqrt(max(fixed, 1e-6) / q), 8, 2 * b))
        b_new = min(b_new, max(8, MAX_BLOCK_FLOATS // (3 * side)))
        return int(max(1, min(b_new, last - k)))

    # ------------------------------------------------------------------ primal
    def run(self, progress=None):
        # one BLAS thread: the walk is many mid-sized products and solves, on which
        # threads only contend (20x slower on a loaded 2-core machine), and no threaded
        # dpotrf can crash on a large system
        with single_blas_thread():
            if self.n_primal > 0:
                self._primal(progress)
            if self.n_primal <= self.E:
                self._dual(progress)

    def _primal(self, progress):
        trees, M, N, E, rho, clock = self.trees, self.M, self.N, self.E, self.rho, self.clock
        left, right = trees.left, trees.right
        n_nodes = trees.parent.shape[0]
        # base cells ordered by the event that cuts them, latest first: the cells a block
        # deletes are then the last rows of the factor, where solves against them are cheap
        cells = np.asarray(trees.roots, dtype=np.int64)
        cells = cells[np.lexsort((cells, -self.died[cells]))]
        A = np.full((M, M), float(N))  # Psi^T Psi: every point is in every root
        A[np.diag_indices(M)] += rho
        last = self.n_primal - 1  # last primal state
        k, b = 0, 0
        t_fixed = t_quad = t_psi = 0.0
        while True:
            t0 = time.perf_counter()
            C0 = cells.size
            chol, info = _factor(A)
            if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
                raise _singular(self.s2n, self.s2p)
            b0 = self.ysum[cells]
            z0 = lapack.dtrtrs(chol, b0, lower=1)[0]
            a0 = lapack.dtrtrs(chol, z0, lower=1, trans=1)[0]
            qp0 = float(b0 @ a0)
            ld0 = 2.0 * np.log(np.diag(chol)).sum()
            self._store_primal(k, qp0, ld0, a0, C0)
            self.v_flat[self.offsets[k]:self.offsets[k + 1]] = a0[np.argsort(cells)]
            clock("cholesky")
            pos = np.full(n_nodes, -1, dtype=np.int64)
            pos[cells] = np.arange(C0)
            self._validate(a0[:, None], pos, [k])
            self.seconds[k] = time.perf_counter() - self.t_start
            clock("validation")
            t_fixed = time.perf_counter() - t0
            if k == last:
                break
            b = self._next_block(k, last, b, t_fixed + t_psi, t_quad, C0)
            blk = self.events[k:k + b]
            kids = np.empty(2 * b, dtype=np.int64)
            kids[0::2], kids[1::2] = left[blk], right[blk]
            Gk, Qk = self._kid_overlaps(A, pos, blk, kids)  # Psi0^T Psi_k, Psi_k^T Psi_k
            Qk[np.diag_indices(2 * b)] += rho
            clock("overlaps")
            # border coordinates per event i: (multiplier of cell j_i = 0, child a, child b)
            ii = np.arange(b)
            in_base = pos[blk] >= 0
            Q = np.zeros((3 * b, 3 * b))
            q = np.arange(2 * b)
            kid_rows = 3 * (q // 2) + 1 + q % 2  # border row of kids[q]
            Q[np.ix_(kid_rows, kid_rows)] = Qk
            kid_pos = np.full(n_nodes, -1, dtype=np.int64)
            kid_pos[kids] = np.arange(2 * b)
            inner = np.flatnonzero(~in_base)  # cell j_i is a child made earlier in the block
            base = np.flatnonzero(in_base)
            r_in = kid_rows[kid_pos[blk[inner]]]
            Q[3 * inner, r_in] = Q[r_in, 3 * inner] = 1.0
            g = np.zeros(3 * b)
            g[kid_rows] = self.ysum[kids]
            t_mid = time.perf_counter()
            T, Vt_V, Vt_z, prim = self._border_gram(chol, A, Gk, z0, b0, pos[blk], base, inner,
                                                    r_in)
            Z = T.T @ (T.T @ Q).T - Vt_V  # Schur complement of A0, new border coordinates
            c = T.T @ g - Vt_z
            L, Dinv, logabs = _block_ldl(Z, 3)
            ct = lapack.dtrtrs(L, c, lower=1, unitdiag=1)[0]
            beta = np.einsum("iab,ib->ia", Dinv, ct.reshape(b, 3))
            dq = np.einsum("ia,ia->i", ct.reshape(b, 3), beta)
            Bmat = np.zeros((3 * b, b), order="F")
            for a in range(3):
                Bmat[3 * ii + a, ii] = beta[:, a]
            Xn = np.cumsum(lapack.dtrtrs(L, Bmat, lower=1, trans=1, unitdiag=1)[0], axis=1)
            t_quad = time.perf_counter() - t_mid
            clock("capacitance LDL")
            Xk = T @ Xn  # border solutions in the original coordinates
            W0 = a0[:, None] - lapack.dtrtrs(chol, np.asfortranarray(prim(Xn)), lower=1,
                                             trans=1)[0]
            univ = np.concatenate([cells, kids])
            vals = np.vstack([W0, Xk[kid_rows]])  # (C0 + 2b, b): every universe cell
            states = np.arange(k + 1, k + b + 1)
            alive = self._alive(univ, states)  # (b, C0 + 2b)
            vals *= alive.T  # cells not alive in a state hold 0 (constraint or unborn)
            clock("alpha")
            order = np.argsort(univ)
            stored = vals[order].T[alive[:, order]]
            self.v_flat[self.offsets[k + 1]:self.offsets[k + b + 1]] = stored
            qp = qp0 + np.cumsum(dq)
            ld = ld0 + np.cumsum(logabs)
            vv = np.einsum("ij,ij->j", vals, vals)
            for s in range(b):
                self._store_primal(k + 1 + s, qp[s], ld[s], None, M + k + 1 + s, vv[s])
            pos_u = np.full(n_nodes, -1, dtype=np.int64)
            pos_u[univ] = np.arange(univ.size)
            self._validate(vals, pos_u, states)
            self.seconds[k + 1:k + b + 1] = time.perf_counter() - self.t_start
            clock("validation")
            # next base: the universe system restricted to the cells alive at state k + b
            t_upd = time.perf_counter()
            keep = np.flatnonzero(alive[-1])
            keep = keep[np.lexsort((univ[keep], -self.died[univ[keep]]))]
            Au = np.empty((univ.size, univ.size))
            Au[:C0, :C0], Au[:C0, C0:], Au[C0:, :C0] = A, Gk, Gk.T
            Au[C0:, C0:] = Qk
            A = Au.take(keep, axis=0).take(keep, axis=1)
            cells = univ[keep]
            t_psi = time.perf_counter() - t_upd  # a per-block cost, like the factorisation
            clock("update A")
            k += b
            if progress is not None:
                progress(k / max(E, 1))

    def _kid_overlaps(self, A, pos, blk, kids):
        """``Psi0^T Psi_k`` and ``Psi_k^T Psi_k`` for the block's children ``k``.

        Only the smaller child of each event is counted: one ``bincount`` of its points'
        cells at the block's end (moving the points there), summed up from children to
        the cells they split (latest event first) to give its points in every base cell
        and every child. The larger child's counts are its parent's minus the smaller
        one's: ``Psi0^T 1_j = A0[:, j] - rho e_j`` for a base cell ``j``, the counts of
        ``j`` for a child made earlier in the block. All are integers: exact.
        """
        C0, b = A.shape[0], blk.size
        ii = np.arange(b)
        self._advance(kids)
        upos = pos.astype(np.int32)  # rows: base cells, then the children (small: cached)
        upos[kids] = C0 + np.arange(2 * b)
        sizes = self.n_pts[kids].reshape(b, 2)
        small = (sizes[:, 1] < sizes[:, 0]).astype(np.int64)
        q_small, q_other = 2 * ii + small, 2 * ii + 1 - small
        pts, indptr = _node_points(self.trees, kids[q_small])
        cells = upos[self.point_cell[pts]]  # (n, M): each point's cell at the block's end
        cells *= b
        cells += np.repeat(ii, np.diff(indptr)).astype(np.int32)[:, None]
        cnt = np.bincount(cells.ravel(), minlength=(C0 + 2 * b) * b)
        cnt = cnt.reshape(C0 + 2 * b, b).astype(float)
        for i in range(b - 1, -1, -1):
            cnt[upos[blk[i]]] = cnt[C0 + 2 * i] + cnt[C0 + 2 * i + 1]
        Gk = np.empty((C0, 2 * b))
        Qk = np.empty((2 * b, 2 * b))
        Gk[:, q_small], Qk[:, q_small] = cnt[:C0], cnt[C0:]
        base = np.flatnonzero(pos[blk] >= 0)
        pj = pos[blk[base]]
        Gk[:, q_other[base]] = A[:, pj] - Gk[:, q_small[base]]
        Gk[pj, q_other[base]] -= self.rho
        inner = np.flatnonzero(pos[blk] < 0)  # j is a child made earlier in the block
        for i in inner:  # in event order
            Gk[:, q_other[i]] = Gk[:, upos[blk[i]] - C0] - Gk[:, q_small[i]]
        Qk[:, q_other[base]] = Gk[pj].T - Qk[:, q_small[base]]
        for i in inner:
            Qk[:, q_other[i]] = Qk[:, upos[blk[i]] - C0] - Qk[:, q_small[i]]
        return Gk, Qk

    def _border_gram(self, chol, A, Gk, z0, b0, pos_j, base, inner, r_in):
        """``V^T V`` and ``V^T z0`` of the border, ``V = L^{-1} G``, in cheaper coordinates.

        The border of event ``i`` is (multiplier of ``j_i``, child a, child b). A unit
        upper-triangular change ``T`` of these coordinates (it keeps every leading block,
        every determinant and every quadratic form) replaces child b's column: for a
        base cell ``j`` by ``G_b + G_a + rho e_j = A0 e_j``, whose ``L^{-1}`` image is
        ``L^T e_j``; for a child ``j`` made earlier in the block by ``G_b + G_a - G_j =
        0``. Then only the children ``a`` need a full triangular solve, and the Gram
        entries with ``L^T e_j`` are known: ``(L^T e_j)^T L^{-1} x = x_j``, ``(L^T
        e_j)^T L^T e_k = A0[j, k]``. The multiplier columns ``L^{-1} e_j`` are zero above
        ``j``'s row (near the end: base cells are ordered by when they are cut).

        Returns ``T`` (sparse, new -> original coordinates), ``V'^T V'``, ``V'^T z0`` and
        a function giving ``V' X`` for border solutions ``X`` in the new coordinates.
        """
        C0, b = chol.shape[0], Gk.shape[1] // 2
        rho = self.rho
        nb = base.size
        ia, ic, i3 = 3 * np.arange(b) + 1, 3 * base, 3 * base + 2
        rows = np.concatenate([np.arange(3 * b), ic, ic + 1, 3 * inner + 1, r_in])
        cols = np.concatenate([np.arange(3 * b), i3, i3, 3 * inner + 2, 3 * inner + 2])
        data = np.concatenate([np.ones(3 * b), np.full(nb, rho), np.ones(nb),
                               np.ones(inner.size), -np.ones(inner.size)])
        T = sp.csr_matrix((data, (rows, cols)), shape=(3 * b, 3 * b))
        Va = lapack.dtrtrs(chol, np.asfortranarray(Gk[:, 0::2]), lower=1)[0]
        gram = np.zeros((3 * b, 3 * b))
        gram[np.ix_(ia, ia)] = Va.T @ Va
        vz = np.zeros(3 * b)
        vz[ia] = Va.T @ z0
        pj = pos_j[base]
        p = int(pj.min()) if nb else C0
        Vc = np.zeros((C0 - p, nb), order="F")
        if nb:
            Vc[pj - p, np.arange(nb)] = 1.0
            Vc = lapack.dtrtrs(chol[p:, p:], Vc, lower=1)[0]
            gram[np.ix_(ic, ic)] = Vc.T @ Vc
            gram[np.ix_(ic, ia)] = Vc.T @ Va[p:]
            gram[np.ix_(ia, ic)] = gram[np.ix_(ic, ia)].T
            gram[ic, i3] = gram[i3, ic] = 1.0
            gram[np.ix_(ia, i3)] = Gk[pj][:, 0::2].T
            gram[np.ix_(i3, ia)] = Gk[pj][:, 0::2]
            gram[np.ix_(i3, i3)] = A[np.ix_(pj, pj)]
            vz[ic] = Vc.T @ z0[p:]
            vz[i3] = b0[pj]
        R = chol[pj, :].T  # L^T e_j, (C0, nb)

        def prim(X):
            out = Va @ X[ia] + R @ X[i3]
            out[p:] += Vc @ X[ic]
            return out

        return T, gram, vz, prim

    def _store_primal(self, k, qp, ld, v, C, vv=None):
        """Quadratic form, log det S and RSS of primal state ``k`` from cell-space numbers.

        With ``A = Psi^T Psi + rho I`` (``Psi`` the 0/1 cell indicators), ``b = Psi^T y``
        and ``v = A^{-1} b``: ``y^T S^{-1} y = (y^T y - b^T v) / s2n``, ``log det S =
        N log s2n + log det A - C log rho`` and ``||y - Psi v||^2 = y^T y - b^T v -
        rho ||v||^2`` (Woodbury and the determinant lemma).
        """
        if vv is None:
            vv = float(v @ v)
        self.quad[k] = (self.yty - qp) / self.s2n
        self.logdet[k] = self.N * np.log(self.s2n) + ld - C * np.log(self.rho)
        self.rss[k] = max(self.yty - qp - self.rho * vv, 0.0)

    # ------------------------------------------------------------------ dual
    def _dual(self, progress):
        trees, M, N, E, clock = self.trees, self.M, self.N, self.E, self.clock
        s2n, s2p = self.s2n, self.s2p
        k = self.n_primal
        if k > 0:
            self._advance(np.concatenate([trees.left[self.events[k - 1:k]],
                                          trees.right[self.events[k - 1:k]]]))
        left, right = trees.left, trees.right
        n_nodes = trees.parent.shape[0]
        cells = np.flatnonzero((self.born <= k) & (k <= self.died))
        pos = np.full(n_nodes, -1, dtype=np.int64)
        pos[cells] = np.arange(cells.size)
        Psi = sp.csr_matrix((np.ones(N * M), pos[self.point_cell].ravel(),
                             np.arange(0, N * M + 1, M)), shape=(N, cells.size))
        S = np.asfortranarray((Psi @ Psi.T).toarray() * (s2p / M))
        S[np.diag_indices(N)] += s2n
        clock("dual start")
        Cinv = -M / s2p
        log_detC = 2.0 * np.log(s2p / M)
        b = 0
        t_quad = 0.0
        while True:
            t0 = time.perf_counter()
            chol, info = _factor(S)
            if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
                raise _singular(s2n, s2p)
            z0 = lapack.dtrtrs(chol, self.y, lower=1)[0]
            a0 = lapack.dtrtrs(chol, z0, lower=1, trans=1)[0]
            self._store_dual(k, float(self.y @ a0), 2.0 * np.log(np.diag(chol)).sum(), a0)
            clock("cholesky")
            self._validate_dual(a0[:, None], [k])
            self.seconds[k] = time.perf_counter() - self.t_start
            clock("validation")
            t_fixed = time.perf_counter() - t0
            if k == E:
                break
            b = self._next_block(k, E, b, t_fixed, t_quad, N)
            blk = self.events[k:k + b]
            kids = np.empty(2 * b, dtype=np.int64)
            kids[0::2], kids[1::2] = left[blk], right[blk]
            pts, indptr = _node_points(trees, kids)
            U = np.zeros((N, 2 * b), order="F")
            U[pts, np.repeat(np.arange(2 * b), np.diff(indptr))] = 1.0
            clock("indicators")
            V = lapack.dtrtrs(chol, U, lower=1)[0]  # L^{-1} U
            t_mid = time.perf_counter()
            Z = V.T @ V  # U^T S_0^{-1} U
            ii = np.arange(b)
            Z[2 * ii + 1, 2 * ii] += Cinv
            Z[2 * ii, 2 * ii + 1] += Cinv
            u = V.T @ z0  # U^T S_0^{-1} y
            L, Dinv, logabsdet = _block_ldl(Z, 2)
            cvec = lapack.dtrtrs(L, u, lower=1, unitdiag=1)[0]
            beta = np.einsum("iab,ib->ia", Dinv, cvec.reshape(b, 2))
            dq = np.einsum("ia,ia->i", cvec.reshape(b, 2), beta)
            # x_k = Z_k^{-1} u_k for every k: cumulative columns of L^{-T} blockdiag(beta)
            Bmat = np.zeros((2 * b, b), order="F")
            Bmat[2 * ii, ii], Bmat[2 * ii + 1, ii] = beta[:, 0], beta[:, 1]
            Xk = np.cumsum(lapack.dtrtrs(L, Bmat, lower=1, trans=1, unitdiag=1)[0], axis=1)
            t_quad = time.perf_counter() - t_mid
            clock("capacitance LDL")
            # alpha_k = alpha_0 - S_0^{-1} U x_k = alpha_0 - L^{-T} (V x_k)
            alph = a0[:, None] - lapack.dtrtrs(chol, np.asfortranarray(V @ Xk), lower=1,
                                               trans=1)[0]
            q0, ld0 = self.quad[k], self.logdet[k]
            ld = ld0 + np.cumsum(logabsdet + log_detC)
            qd = q0 - np.cumsum(dq)
            for s in range(b):
                self._store_dual(k + 1 + s, qd[s], ld[s], alph[:, s])
            clock("alpha")
            states = np.arange(k + 1, k + b + 1)
            self._validate_dual(alph, states)
            self.seconds[k + 1:k + b + 1] = time.perf_counter() - self.t_start
            clock("validation")
            # S <- S - (s2p/M) sum_i (1_a 1_b^T + 1_b 1_a^T), lower triangle only
            S = blas.dsyr2k(-s2p / M, np.asfortranarray(U[:, 0::2]),
                            np.asfortranarray(U[:, 1::2]), beta=1.0, c=S, lower=1,
                            overwrite_c=1)
            clock("update S")
            k += b
            if progress is not None:
                progress(k / E)

    def _store_dual(self, k, quad, logdet, alpha):
        self.quad[k], self.logdet[k] = quad, logdet
        self.rss[k] = self.s2n ** 2 * float(alpha @ alpha)
        self.alpha_dual[k - self.n_primal] = alpha

    def _validate_dual(self, alph, states):
        """Validation RMSE of dual states: cell values ``v = (s2p/M) sum of alpha``."""
        if self.placement is None:
            return
        states = np.asarray(states)
        nodes = np.flatnonzero((self.born <= states[-1]) & (states[0] <= self.died))
        pts, indptr = _node_points(self.trees, nodes)
        A = sp.csr_matrix((np.ones(pts.size), pts, indptr), shape=(nodes.size, self.N))
        row_of = np.full(self.trees.parent.shape[0], -1, dtype=np.int64)
        row_of[nodes] = np.arange(nodes.size)
        # cell values chunk by chunk: each a C-ordered block for the chunk's products
        for s in range(0, states.size, VAL_CHUNK):
            part = np.ascontiguousarray(alph[:, s:s + VAL_CHUNK])
            self._validate((A @ part) * (self.s2p / self.M), row_of, states[s:s + VAL_CHUNK])

    # ------------------------------------------------------------------ results
    def train_rmse(self):
        return np.sqrt(self.rss / self.N)

    def log_marginal_likelihood(self):
        return -0.5 * self.quad - 0.5 * self.logdet - 0.5 * self.N * _LOG_2PI

    def solutions(self, lifetimes):
        return _Solutions(self.trees, self.y, self.s2n, self.s2p, lifetimes, self.born,
                          self.died, self.n_primal, self.offsets, self.v_flat,
                          self.alpha_dual)


class _Solutions:
    """``alphas`` of a path, kept in the cheaper of two forms and expanded on demand.

    Primal states (``C_k < N``) keep the ``C_k`` cell values ``v`` (the prediction at a
    point is the sum over trees of its cells' values; ``alpha = (y - Psi v) / s2n``),
    dual states the ``N`` entries of ``alpha`` (``v = (s2p / M)`` times the sum of
    ``alpha`` over a cell's points). Indexing returns rows of the ``(E+1, N)`` matrix
    ``alpha``.
    """

    def __init__(self, trees, y, s2n, s2p, lifetimes, born, died, n_primal, offsets, v_flat,
                 alpha_dual):
        self.trees, self.y, self.s2n, self.s2p = trees, y, s2n, s2p
        self.lifetimes, self.born, self.died = lifetimes, born, died
        self.n_primal, self.offsets = n_primal, offsets
        self.v_flat, self.alpha_dual = v_flat, alpha_dual

    @property
    def shape(self):
        return (self.lifetimes.size, self.y.size)

    def __len__(self):
        return self.lifetimes.size

    @property
    def ndim(self):
        return 2

    def __array__(self, dtype=None, copy=None):
        out = np.stack([self.alpha(c) for c in range(len(self))])
        return out if dtype is None else out.astype(dtype)

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            return self.alpha(int(key))
        if isinstance(key, tuple):
            return self[key[0]][key[1:]] if len(key) > 1 else self[key[0]]
        rows = np.arange(len(self))[key]
        return np.stack([self.alpha(int(c)) for c in rows]) if rows.ndim else self.alpha(rows)

    def cells(self, c):
        """Node ids of the cells alive in state ``c`` (ascending)."""
        return np.flatnonzero((self.born <= c) & (c <= self.died))

    def cell_values(self, c):
        """``(nodes, v)``: the alive cells of state ``c`` and their values."""
        c = int(c) % len(self)
        nodes = self.cells(c)
        if c < self.n_primal:
            return nodes, self.v_flat[self.offsets[c]:self.offsets[c + 1]]
        alpha = self.alpha_dual[c - self.n_primal]
        train = self.trees.nodes_at(self.lifetimes[c])
        sums = np.bincount(train.ravel(), weights=np.tile(alpha, self.trees.n_trees),
                           minlength=self.trees.parent.shape[0])
        return nodes, sums[nodes] * (self.s2p / self.trees.n_trees)

    def node_values(self, c):
        """Cell values of state ``c`` in an array indexed by node id (0 elsewhere)."""
        nodes, v = self.cell_values(c)
        full = np.zeros(self.trees.parent.shape[0])
        full[nodes] = v
        return full

    def alpha(self, c):
        c = int(c) % len(self)
        if c >= self.n_primal:
            return self.alpha_dual[c - self.n_primal]
        fitted = self.node_values(c)[self.trees.nodes_at(self.lifetimes[c])].sum(axis=0)
        return (self.y - fitted) / self.s2n


class _Clock:
    """Accumulates the seconds between calls under a stage name (no-op without a dict)."""

    def __init__(self, store):
        self.store = store
        self.last = time.perf_counter()

    def __call__(self, name):
        if self.store is not None:
            now = time.perf_counter()
            self.store[name] = self.store.get(name, 0.0) + now - self.last
            self.last = now


def _block_ldl(Z, p):
    """Unpivoted block LDL^T of the symmetric (indefinite) ``Z`` with ``p x p`` pivots.

    Returns the unit lower-triangular ``L``, the inverses of the pivots ``D_i`` and
    ``log|det D_i|``. No pivoting is needed: every leading block of ``Z`` is
    non-singular (its system is a positive definite one bordered by independent
    constraints, or one by the determinant lemma). Recursive halving puts the work
    in matrix products; the unblocked loop runs on blocks of at most 16 pivots.
    """
    A = np.array(Z, dtype=float)
    n = A.shape[0]
    b = n // p
    L = np.eye(n, order="F")
    Dinv = np.empty((b, p, p))
    logabs = np.empty(b)
    _ldl_into(A, p, L, Dinv, logabs)
    return L, Dinv, logabs


def _ldl_into(A, p, L, Dinv, logabs):
    """Block LDL^T of ``A`` (overwritten) into ``L``, ``Dinv``, ``logabs`` (views)."""
    n = A.shape[0]
    b = n // p
    if b <= 16:
        for i in range(b):
            s = slice(p * i, p * i + p)
            d = A[s, s]
            inv = np.linalg.inv(d)
            Dinv[i] = inv
            logabs[i] = np.linalg.slogdet(d)[1]
            if p * i + p < n:
                r = slice(p * i + p, n)
                col = A[r, s]
                low = col @ inv
                L[r, s] = low
                A[r, r] -= low @ col.T
        return
    h = (b // 2) * p
    _ldl_into(A[:h, :h], p, L[:h, :h], Dinv[:h // p], logabs[:h // p])
    # W = A21 L11^{-T} = L21 D1, then L21 = W D1^{-1} and A22 -= L21 W^T
    W = lapack.dtrtrs(L[:h, :h], np.asfortranarray(A[h:, :h].T), lower=1, unitdiag=1)[0].T
    L21 = np.einsum("mqa,qab->mqb", W.reshape(n - h, h // p, p), Dinv[:h // p]).reshape(n - h, h)
    L[h:, :h] = L21
    A22 = A[h:, h:] - L21 @ W.T
    _ldl_into(A22, p, L[h:, h:], Dinv[h // p:], logabs[h // p:])


#: States per chunk of validation predictions (see :func:`_val_chunk`).
VAL_CHUNK = 40


class _ValCursor:
    """Where each (tree, validation point) pair is on its path, moved forward in time.

    ``depth`` counts the path nodes born so far (>= 1: the root), ``node`` is the
    deepest of them and ``next_birth`` the birth time of the next (inf past the end).
    :meth:`advance` updates only the pairs that move, so following the path costs
    O(pairs) per call plus O(1) per node passed.
    """

    def __init__(self, placement: Placement):
        births, nodes = placement.births, placement.nodes
        M, n, self.levels = births.shape
        self._births, self._nodes = births.reshape(-1), nodes.reshape(-1)
        self.depth = np.ones((M, n), dtype=np.int64)
        self.node = nodes[..., 0].copy()
        self.next_birth = births[..., 1].copy() if self.levels > 1 else np.full((M, n), np.inf)

    def advance(self, time: float) -> np.ndarray:
        """Move every pair to its node at ``time``; return the next birth times."""
        L = self.levels
        while True:
            moving = np.flatnonzero(self.next_birth.reshape(-1) <= time)
            if not moving.size:
                return self.next_birth
            depth = self.depth.reshape(-1)[moving] + 1
            self.depth.reshape(-1)[moving] = depth
            base = moving * L
            self.node.reshape(-1)[moving] = self._nodes[base + depth - 1]
            self.next_birth.reshape(-1)[moving] = np.where(
                depth < L, self._births[base + np.minimum(depth, L - 1)], np.inf)


def _val_block(placement, cursor, vals, row_of, times, out, chunk=None):
    """Validation predictions at each of ``times``, in chunks of ``chunk`` events.

    ``vals[row_of[node], s]`` is the value of cell ``node`` at ``times[s]`` (the sum of a
    point's cells' values over the trees is its prediction). ``cursor`` (a
    :class:`_ValCursor`) is advanced to each chunk's start (calls come in increasing
    time). ``chunk`` defaults to :data:`VAL_CHUNK`.
    """
    chunk = chunk or VAL_CHUNK
    for s in range(0, times.size, chunk):
        _val_chunk(placement, cursor, np.ascontiguousarray(vals[:, s:s + chunk]), row_of,
                   times[s:s + chunk], out[s:s + chunk])


def _val_chunk(placement, cursor, vals, row_of, times, out):
    """Validation predictions at each of ``times`` given the cell values ``vals``.

    ``f(v, t) = sum_m [v not branched off by t] * value of v's cell at t in tree m``.
    Pairs (tree, point) whose cell does not change within the chunk go through one
    sparse product; only the few that change are gathered one event at a time.
    """
    t0, t1 = times[0], times[-1]
    b = times.size
    births, nodes_all, branch = placement.births, placement.nodes, placement.branch
    n_levels = births.shape[-1]
    M, n = branch.shape
    nxt = cursor.advance(t0)
    depth0, node0 = cursor.depth, cursor.node  # (M, n)
    dynamic = (nxt <= t1) | ((branch > t0) & (branch <= t1))
    static = ~dynamic & (branch > t1)
    # (point, tree) pairs in point order: the CSR rows directly, with no sort
    vv, mm = np.nonzero(static.T)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(vv, minlength=n), out=indptr[1:])
    P = sp.csr_matrix((np.ones(vv.size), row_of[node0[mm, vv]], indptr),
                      shape=(n, vals.shape[0]))
    acc = P @ vals
    mm, vv = np.nonzero(dynamic)
    if mm.size:
        d0 = depth0[mm, vv]
        depth = np.repeat(d0[:, None], b, axis=1)  # (n_dyn, b)
        for extra in range(n_levels):
            lev = d0 + extra
            ok = lev < n_levels
            nb = np.where(ok, births[mm, vv, np.minimum(lev, n_levels - 1)], np.inf)
            if not (nb <= t1).any():
                break
            depth += nb[:, None] <= times[None, :]
        nd = nodes_all[mm[:, None], vv[:, None], depth - 1]
        alive = branch[mm, vv][:, None] > times[None, :]
        g = np.where(alive, vals[row_of[nd], np.arange(b)], 0.0)
        Q = sp.csr_matrix((np.ones(vv.size), (vv, np.arange(vv.size))), shape=(n, vv.size))
        acc = acc + Q @ g
    out[:] = acc.T
