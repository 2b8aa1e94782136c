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
A cut event (node ``j`` -> children ``a``, ``b``) changes ``K`` by
``-(1/M)(1_a 1_b^T + 1_b 1_a^T)``: a symmetric, *indefinite* rank-2 change supported on
node ``j``'s points. All events are known in advance (the trees are sampled to the
terminal lifetime first), so events are handled in blocks of ``B``: one Cholesky
factorisation of ``S_0`` (the dual ``N x N`` matrix at the block's start) and the
Woodbury identity ``S_k = S_0 + U_k C_k U_k^T`` for the ``k``-th event of the block,
``U_k = [1_a1, 1_b1, ..., 1_ak, 1_bk]`` and ``C_k`` block diagonal with
``-(prior_variance/M) [[0, 1], [1, 0]]``. The capacitance
``Z = C^{-1} + U^T S_0^{-1} U`` of the whole block is formed once; an unpivoted 2 x 2
block LDL^T of it gives every leading minor at once (``det S_k = det S_0 det C_k
det Z_k`` by the determinant lemma, and ``Z_k`` is non-singular because ``S_k`` is
positive definite), the quadratic forms ``y^T S_k^{-1} y`` as prefix sums, and
``alpha_k`` for every ``k`` from one matrix product. ``S`` itself is kept up to date
by a symmetric rank-2B BLAS update (``syr2k``) and refactorised at every block start,
which also resets rounding drift. Cost per block: one ``N^3/3`` Cholesky, one solve
with ``2B`` right-hand sides, ``O(N B^2)``; with ``B`` about ``N/10`` the whole path
costs a few Cholesky factorisations of the terminal ``N x N`` matrix. (The primal
``C x C`` alternative with the paper's Cholesky up/down-dates costs ``O(C^2)`` per
event with ``C`` up to ~3,300 > N in the benchmark set-up, and rank-one Cholesky
up/down-dates have no vectorised LAPACK routine.)

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

from mondrian_core._validation import (
    check_count,
    check_lifetime,
    check_points,
    check_random_state,
    check_real,
    check_target,
    round_down,
)
from mondrian_core.errors import InputError
from mondrian_core.process import max_lifetime

__all__ = ["LifetimePath", "lifetime_path", "place_points", "lifetime_for_cells"]

_LOG_2PI = float(np.log(2.0 * np.pi))
#: Refuse paths whose stored solutions (N x (events+1) floats) would exceed this.
MAX_STORED = 40_000_000
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
    alphas : ndarray of shape (E+1, N)
        ``S_t^{-1} y`` at each event (what predictions at any lifetime need).
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
        t = float(self.lifetimes[c])
        trees = self.trees
        alive = np.flatnonzero((trees.birth_time <= t) & (trees.split_time > t))
        alive = alive[np.lexsort((alive, trees.tree[alive]))]
        nodes = trees.nodes_at(t)
        sums = np.bincount(nodes.ravel(), weights=np.tile(self.alphas[c], trees.n_trees),
                           minlength=trees.parent.shape[0])
        return alive, self.prior_variance / np.sqrt(trees.n_trees) * sums[alive]

    def _cross_kernel(self, X, lifetime):
        """Sparse ``Phi_t(X) Phi_t(X_train)^T`` factors: (Px, Pt) with rows of node ids."""
        nodes, alive = self.place(X).at(lifetime)
        train_nodes = self.trees.nodes_at(lifetime)
        return nodes, alive, train_nodes

    def predict(self, X, lifetime, return_std=False, include_noise=False):
        """Return the predictive mean (posterior mean of ``Phi_t(x) w``) at ``lifetime``.

        Parameters
        ----------
        X : array-like of shape (n, D)
            The points.
        lifetime : float
            A lifetime in ``[0, terminal_lifetime]``.
        return_std : bool, default=False
            Also return the exact predictive standard deviation at that lifetime
            (one ``N x N`` Cholesky factorisation).
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
        t = float(self.lifetimes[c])
        nodes, alive, train_nodes = self._cross_kernel(X, t)
        n_nodes = self.trees.parent.shape[0]
        sums = np.bincount(train_nodes.ravel(), weights=np.tile(self.alphas[c], self.trees.n_trees),
                           minlength=n_nodes)
        scale = self.prior_variance / self.trees.n_trees
        mean = scale * np.where(alive, sums[nodes], 0.0).sum(axis=0)
        if not return_std:
            return mean
        Px = _indicator(nodes, alive, n_nodes)
        Pt = _indicator(train_nodes, np.ones_like(train_nodes, dtype=bool), n_nodes)
        Kxt = (Px @ Pt.T).toarray() / self.trees.n_trees
        S = (Pt @ Pt.T).toarray() * scale
        S[np.diag_indices_from(S)] += self.noise_variance
        chol, info = lapack.dpotrf(S, lower=1)
        if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
            raise _singular(self.noise_variance, self.prior_variance)
        V = _tri_solve(chol, Kxt.T)
        var = self.prior_variance - self.prior_variance ** 2 * np.einsum("ij,ij->j", V, V)
        var = np.maximum(var, 0.0) + (self.noise_variance if include_noise else 0.0)
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
        Events per factorisation (default about ``N/8``, between 16 and 256).
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
        If the data or a parameter is invalid, or the path would store more than
        ``MAX_STORED`` numbers (the message gives a terminal lifetime that fits).

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    sec. 4.2.1 and Supplement B.
    """
    from mondrian_core.trees import sample_mondrian_trees

    X_train = np.ascontiguousarray(check_points(X_train, "X_train", min_samples=2))
    D = X_train.shape[1]
    y = check_target(y_train, X_train, "y_train")
    has_val = X_val is not None and y_val is not None
    if has_val:
        X_val = _as_2d(X_val, D, "X_val")
        y_val = check_target(y_val, X_val, "y_val")
    for name, v in (("terminal_lifetime", terminal_lifetime), ("noise_variance", noise_variance),
                    ("prior_variance", prior_variance)):
        check_real(v, name, strict=True)
    M, N = check_count(n_trees, "n_trees"), X_train.shape[0]
    s2n, s2p = float(noise_variance), float(prior_variance)
    if s2n < MIN_NOISE_RATIO * s2p:
        raise _singular(s2n, s2p)

    clock = _Clock(timings)
    t_start = time.perf_counter()
    seconds = np.empty(0)
    rng = check_random_state(random_state)
    trees = sample_mondrian_trees(X_train, M, float(terminal_lifetime), random_state=rng)
    ext_seed = int(rng.integers(2**63 - 1))
    clock("trees")
    events = np.asarray(trees.events(), dtype=np.int64)
    E = events.size
    seconds = np.empty(E + 1)
    times = trees.split_time[events]
    if N * (E + 1) > MAX_STORED:
        fits = MAX_STORED // N - 1  # events that fit; the sweep must stop before the next one
        advice = (f"a terminal lifetime of at most {round_down(times[fits]):g}, " if fits >= 1
                  else "")
        raise InputError(
            f"This sweep has {E:,} cut events on {N:,} training points, too many to store "
            f"({N * (E + 1):,} numbers, limit {MAX_STORED:,}); use {advice}fewer trees or "
            f"at most {max(2, MAX_STORED // (E + 1)):,} points.")
    lifetimes = np.concatenate([[0.0], times])
    B = int(block_size) if block_size else int(np.clip(N // 8, 16, 256))

    alphas = np.empty((E + 1, N))
    quad = np.empty(E + 1)
    logdet = np.empty(E + 1)
    val_pred = np.full((E + 1, X_val.shape[0] if has_val else 0), np.nan)
    placement, n_levels = None, 0
    if has_val:
        placement = place_points(trees, X_val, ext_seed)
        n_levels = placement.births.shape[-1]
    clock("place validation")
    # S = s2n I + s2p K_0, K_0 = 1 1^T (every tree's root holds every point)
    S = np.full((N, N), s2p, order="F")
    S[np.diag_indices(N)] += s2n
    left, right = trees.left, trees.right
    n_nodes = trees.parent.shape[0]
    Cinv = -M / s2p
    log_detC = 2.0 * np.log(s2p / M)
    k = 0  # events done
    while True:
        chol, info = lapack.dpotrf(S, lower=1, clean=1)
        if info != 0:  # pragma: no cover - excluded by MIN_NOISE_RATIO
            raise _singular(s2n, s2p)
        z0 = lapack.dtrtrs(chol, y, lower=1)[0]
        a0 = lapack.dtrtrs(chol, z0, lower=1, trans=1)[0]
        alphas[k] = a0
        quad[k] = y @ a0
        logdet[k] = 2.0 * np.log(np.diag(chol)).sum()
        clock("cholesky")
        if has_val:
            _val_block(trees, placement, n_levels, a0[:, None], lifetimes[k:k + 1],
                       val_pred[k:k + 1], s2p / M, n_nodes)
        clock("validation")
        seconds[k] = time.perf_counter() - t_start
        if k == E:
            break
        blk = events[k:k + B]
        b = blk.size
        # U: indicators of the children of each event, (N, 2b)
        kids = np.empty(2 * b, dtype=np.int64)
        kids[0::2], kids[1::2] = left[blk], right[blk]
        pts, indptr = _node_points(trees, kids)
        U = np.zeros((N, 2 * b), order="F")
        U[pts, np.repeat(np.arange(2 * b), np.diff(indptr))] = 1.0
        clock("indicators")
        V = lapack.dtrtrs(chol, U, lower=1)[0]  # L^{-1} U
        Z = blas.dsyrk(1.0, V, trans=1, lower=1)  # U^T S_0^{-1} U (lower triangle)
        ii = np.arange(b)
        Z[2 * ii + 1, 2 * ii] += Cinv
        u = V.T @ z0  # U^T S_0^{-1} y
        clock("capacitance")
        L, Dinv, logabsdet, cvec = _block_ldl(Z, u)
        clock("block LDL")
        beta = np.einsum("iab,ib->ia", Dinv, cvec.reshape(b, 2))
        dq = np.einsum("ia,ia->i", cvec.reshape(b, 2), beta)
        quad[k + 1:k + 1 + b] = quad[k] - np.cumsum(dq)
        logdet[k + 1:k + 1 + b] = logdet[k] + np.cumsum(logabsdet + log_detC)
        # x_k = Z_k^{-1} u_k for every k: cumulative columns of L^{-T} blockdiag(beta)
        Bmat = np.zeros((2 * b, b), order="F")
        Bmat[2 * ii, ii], Bmat[2 * ii + 1, ii] = beta[:, 0], beta[:, 1]
        Y = lapack.dtrtrs(L, Bmat, lower=1, trans=1, unitdiag=1)[0]
        Xk = np.cumsum(Y, axis=1)
        # alpha_k = alpha_0 - S_0^{-1} U x_k = alpha_0 - L^{-T} (V x_k)
        alph = a0[:, None] - lapack.dtrtrs(chol, np.asfortranarray(V @ Xk), lower=1, trans=1)[0]
        alphas[k + 1:k + 1 + b] = alph.T
        clock("alpha")
        if has_val:
            _val_block(trees, placement, n_levels, alph, lifetimes[k + 1:k + 1 + b],
                       val_pred[k + 1:k + 1 + b], s2p / M, n_nodes)
        clock("validation")
        seconds[k + 1:k + 1 + b] = time.perf_counter() - t_start
        # S <- S - (s2p/M) sum_i (1_a 1_b^T + 1_b 1_a^T), lower triangle only
        S = blas.dsyr2k(-s2p / M, np.asfortranarray(U[:, 0::2]), np.asfortranarray(U[:, 1::2]),
                        beta=1.0, c=S, lower=1, overwrite_c=1)
        clock("update S")
        k += b
        if progress is not None:
            progress(k / E)
    lml = -0.5 * quad - 0.5 * logdet - 0.5 * N * _LOG_2PI
    train_rmse = s2n * np.sqrt(np.mean(alphas ** 2, axis=1))
    val_rmse = (np.sqrt(np.mean((val_pred - y_val) ** 2, axis=1)) if has_val
                else np.full(E + 1, np.nan))
    return LifetimePath(
        lifetimes=lifetimes, n_features=M + np.arange(E + 1), train_rmse=train_rmse,
        val_rmse=val_rmse, log_marginal_likelihood=lml, trees=trees, alphas=alphas,
        X_train=X_train, y_train=y, noise_variance=s2n, prior_variance=s2p,
        terminal_lifetime=float(terminal_lifetime), extension_seed=ext_seed, event_nodes=events,
        seconds=seconds)


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


def _block_ldl(Z, u):
    """Unpivoted 2x2-block LDL^T of the symmetric (indefinite) capacitance ``Z``.

    Only the lower triangle of ``Z`` is read. Returns the unit lower-triangular
    ``L``, the inverses of the 2x2 pivots ``D_i``, ``log|det D_i|`` and
    ``c = L^{-1} u``. No pivoting is needed: every leading block ``Z_k`` is
    non-singular because ``S_k`` is positive definite (determinant lemma).
    """
    n = Z.shape[0]
    b = n // 2
    A = np.tril(Z) + np.tril(Z, -1).T
    c = np.array(u, dtype=float)
    L = np.eye(n, order="F")
    Dinv = np.empty((b, 2, 2))
    logabs = np.empty(b)
    for i in range(b):
        p = slice(2 * i, 2 * i + 2)
        d = A[p, p]
        det = d[0, 0] * d[1, 1] - d[0, 1] * d[1, 0]
        inv = np.array([[d[1, 1], -d[0, 1]], [-d[1, 0], d[0, 0]]]) / det
        Dinv[i] = inv
        logabs[i] = np.log(abs(det))
        if 2 * i + 2 < n:
            r = slice(2 * i + 2, n)
            col = A[r, p]
            low = col @ inv
            L[r, p] = low
            A[r, r] -= low @ col.T
            c[r] -= low @ c[p]
    return L, Dinv, logabs, c


def _val_block(trees, placement, n_levels, alph, times, out, scale, n_nodes, chunk=40):
    """Validation predictions at each of ``times``, in chunks of ``chunk`` events."""
    for s in range(0, times.size, chunk):
        _val_chunk(trees, placement, n_levels, alph[:, s:s + chunk], times[s:s + chunk],
                   out[s:s + chunk], scale, n_nodes)


def _val_chunk(trees, placement, n_levels, alph, times, out, scale, n_nodes):
    """Validation predictions at each of ``times`` given ``alph`` (N, len(times)).

    ``f(v, t) = scale * sum_m [v not branched off by t] * sum of alph over the training
    points of v's node at t in tree m``. Node sums come from one sparse product; pairs
    (tree, point) whose node does not change within the block go through one sparse
    product too, and only the few that change are gathered one event at a time.
    """
    t0, t1 = times[0], times[-1]
    b = times.size
    rel = np.flatnonzero((trees.birth_time <= t1) & (trees.split_time > t0))
    pts, indptr = _node_points(trees, rel)
    A = sp.csr_matrix((np.ones(pts.size), pts, indptr), shape=(rel.size, alph.shape[0]))
    sums = A @ alph  # (n_rel, b)
    row_of = np.full(n_nodes, -1, dtype=np.int64)
    row_of[rel] = np.arange(rel.size)
    births, nodes_all, branch = placement.births, placement.nodes, placement.branch
    M, n = branch.shape
    depth0 = (births <= t0).sum(axis=-1)  # (M, n), >= 1
    node0 = np.take_along_axis(nodes_all, (depth0 - 1)[..., None], -1)[..., 0]
    nxt = np.take_along_axis(births, np.minimum(depth0, n_levels - 1)[..., None], -1)[..., 0]
    nxt = np.where(depth0 < n_levels, nxt, np.inf)
    dynamic = (nxt <= t1) | ((branch > t0) & (branch <= t1))
    static = ~dynamic & (branch > t1)
    mm, vv = np.nonzero(static)
    P = sp.csr_matrix((np.ones(vv.size), (vv, row_of[node0[mm, vv]])), shape=(n, rel.size))
    acc = P @ sums
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
        g = np.where(alive, sums[row_of[nd], np.arange(b)], 0.0)
        Q = sp.csr_matrix((np.ones(vv.size), (vv, np.arange(vv.size))), shape=(n, vv.size))
        acc = acc + Q @ g
    out[:] = (scale * acc).T
