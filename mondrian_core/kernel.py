"""The Mondrian kernel and the two Rahimi-Recht maps for the same Laplace kernel.

* :func:`laplace_kernel` - ``exp(-lifetime * ||x - y||_1)``, dense.
* :class:`MondrianFeatures` - one-hot cell indicators of ``n_trees`` Mondrian
  partitions, scaled ``1/sqrt(n_trees)`` (Balog et al. 2016, *The Mondrian
  Kernel*, Section 3): ``Z Z^T`` is the Mondrian kernel, the fraction of trees
  that put two points in one cell, an unbiased estimate of the Laplace kernel.
* :class:`RandomFourierFeatures` - ``sqrt(2/R) cos(w.x + b)`` with product-Cauchy
  frequencies (Rahimi and Recht 2007, *Random Features for Large-Scale Kernel
  Machines*).
* :class:`RandomBinningFeatures` - one-hot bins of ``P`` randomly shifted regular
  grids with Gamma(2, 1/lifetime) pitches (Rahimi and Recht 2007, Section 4).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from mondrian_core._docstrings import docfiller, params
from mondrian_core._linalg import one_hot_csr
from mondrian_core._validation import (
    MAX_DENSE_ENTRIES,
    check_count,
    check_dense_size,
    check_lifetime,
    check_points,
    check_random_state,
)
from mondrian_core.errors import InputError
from mondrian_core.trees import sample_mondrian_trees

__all__ = [
    "laplace_kernel",
    "MondrianFeatures",
    "RandomFourierFeatures",
    "RandomBinningFeatures",
    "block_one_hot_columns",
]

_SEED_MAX = 2**63 - 1
#: Entries of one chunk of bin coordinates in RandomBinningFeatures (32 MB).
_KEY_CHUNK = 4_000_000


def laplace_kernel(X, Y=None, lifetime=1.0) -> np.ndarray:
    """Compute the Laplace kernel ``exp(-lifetime * ||x - y||_1)`` as a dense matrix.

    The limit of the Mondrian kernel as the number of trees grows (Balog et al.
    2016, Section 3).

    Parameters
    ----------
    X : array-like of shape (N, D)
        The first points.
    Y : array-like of shape (N2, D), optional
        The second points; default ``X``.
    lifetime : float >= 0, default=1.0
        The inverse length-scale (the Mondrian lifetime), in units of inverse ``X``.

    Returns
    -------
    ndarray of shape (N, N2)
        The kernel matrix, entries in ``(0, 1]``.

    Raises
    ------
    InputError
        If the points are not finite 2-D arrays with the same number of features,
        the lifetime is negative, or the matrix would exceed ``MAX_DENSE_ENTRIES``.

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 3.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import laplace_kernel
    >>> K = laplace_kernel(np.array([[0.0, 0.0], [1.0, 0.5]]), lifetime=2.0)
    >>> np.round(K, 4)
    array([[1.    , 0.0498],
           [0.0498, 1.    ]])
    """
    lifetime = check_lifetime(lifetime)
    X = check_points(X)
    Y = X if Y is None else check_points(Y, "Y", n_features=X.shape[1])
    check_dense_size(X.shape[0], Y.shape[0])
    return np.exp(-lifetime * cdist(X, Y, metric="cityblock"))


def block_one_hot_columns(Z) -> np.ndarray:
    """Return the column of the single non-zero of each block (tree or grid) of each row.

    Parameters
    ----------
    Z : sparse matrix of shape (N, C)
        The output of :class:`MondrianFeatures` (blocks are trees) or
        :class:`RandomBinningFeatures` (blocks are grids): the same number of
        non-zeros in every row, one per block.

    Returns
    -------
    ndarray of int64, shape (N, n_blocks)
        Two rows share a cell of block ``b`` iff their entries in column ``b`` are
        equal.

    Raises
    ------
    ValueError
        If the rows have different numbers of non-zeros.
    """
    Z = sp.csr_matrix(Z)
    n = Z.shape[0]
    counts = np.diff(Z.indptr)
    if n == 0:
        return np.zeros((0, 0), dtype=np.int64)
    if not np.all(counts == counts[0]):
        raise ValueError("every row must have the same number of non-zeros")
    return Z.indices.reshape(n, counts[0]).astype(np.int64)


class MondrianFeatures(TransformerMixin, BaseEstimator):
    """Mondrian kernel features: one-hot cells of ``n_trees`` Mondrian partitions.

    ``fit`` samples ``n_trees`` independent Mondrian partitions of the training
    points up to ``lifetime`` (restricted to the data's extent by projectivity,
    :func:`mondrian_core.trees.sample_mondrian_trees`). ``transform`` maps a
    point to the concatenation of the one-hot indicators of its cell in each
    tree, scaled ``1/sqrt(n_trees)``, so ``Z @ Z.T`` is the Mondrian kernel
    (Balog et al. 2016, *The Mondrian Kernel*, eq. (2)), an unbiased estimate
    of the Laplace kernel ``exp(-lifetime * ||x - x'||_1)``.

    Parameters
    ----------
    lifetime : float, default=1.0
        Terminal lifetime (inverse kernel width, units of inverse ``X``) of the
        Mondrian partitions, >= 0. The kernel is ``exp(-lifetime * ||x - x'||_1)``.
    n_trees : int, default=50
        Number M of independent partitions (non-zeros per row), >= 1. The kernel
        estimate's standard deviation shrinks like ``1/sqrt(M)``.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Seeds the trees and the extension of new points (see
        :func:`~mondrian_core.check_random_state`).

    Attributes
    ----------
    trees_ : mondrian_core.trees.MondrianTrees
        The sampled partitions (flat arrays).
    cut_times_ : ndarray
        Sorted times at which any tree gains a cut (the lifetime-sweep events).
    n_features_in_ : int
        Number of features of the points seen in ``fit``.
    X_fit_ : ndarray of shape (N, D)
        The points seen in ``fit``; transforming exactly them needs no extension.
    extension_seed_ : int
        Seed of the conditional Mondrian extension used by ``transform`` for
        points not seen in ``fit``, so transforming the same array twice gives
        the same matrix.

    See Also
    --------
    RandomFourierFeatures : Rahimi-Recht Fourier map for the same Laplace kernel.
    RandomBinningFeatures : Rahimi-Recht binning map for the same Laplace kernel.
    laplace_kernel : The limit as ``n_trees`` grows.

    Notes
    -----
    Columns. At lifetime ``t`` the first ``n_cells(t)`` columns are the
    non-empty cells of the fitted points, ordered by tree (the same for every
    call). The rows of one ``transform`` call that were not seen in ``fit`` are
    placed by one conditional Mondrian draw for all of them
    (:meth:`MondrianTrees.extend_jointly <mondrian_core.trees.MondrianTrees.extend_jointly>`):
    a row may land in a fitted cell or in a new cell holding only new rows; each
    new cell gets one column appended after the fitted ones (numbered by first
    appearance, row by row), never a fitted column. So the kernel between any two
    rows of one call, new or fitted, is right in distribution, and
    ``transform(X_train) @ transform(X_new)[:, :C].T`` (``C = n_cells(t)``) is
    the kernel between fitted and new points.

    Across separate calls. Each call is its own draw, seeded by
    ``extension_seed_`` (the same array gives the same matrix), so the kernel
    between a new row of one call and a new row of another call is not that of
    one Mondrian: to compare new points with each other, transform them
    together (as :meth:`kernel` does with ``X`` and ``Y`` stacked).

    References
    ----------
    M. Balog, B. Lakshminarayanan, Z. Ghahramani, D. M. Roy and Y. W. Teh,
    "The Mondrian Kernel", UAI 2016.
    D. M. Roy and Y. W. Teh, "The Mondrian Process", NIPS 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import MondrianFeatures
    >>> X = np.random.default_rng(0).uniform(size=(100, 2))
    >>> features = MondrianFeatures(lifetime=3.0, n_trees=20, random_state=0).fit(X)
    >>> Phi = features.transform(X)
    >>> Phi.shape == (100, features.n_cells())  # one column per cell of any tree
    True
    >>> bool(np.allclose(Phi.sum(axis=1), np.sqrt(20)))
    True
    """

    def __init__(self, lifetime=1.0, n_trees=50, random_state=None):
        self.lifetime = lifetime
        self.n_trees = n_trees
        self.random_state = random_state

    def fit(self, X, y=None):
        """Sample the Mondrian partitions of ``X``.

        Parameters
        ----------
        X : array-like of shape (N, D)
            Training points (finite).
        y : None
            Ignored; present for scikit-learn's API.

        Returns
        -------
        MondrianFeatures
            The fitted estimator.

        Raises
        ------
        InputError
            If ``X``, ``lifetime`` or ``n_trees`` is invalid, or the trees would not
            fit in memory.
        """
        lifetime = check_lifetime(self.lifetime)
        n_trees = check_count(self.n_trees, "n_trees")
        X = check_points(X, estimator=self)
        rng = check_random_state(self.random_state)
        self.trees_ = sample_mondrian_trees(X, n_trees, lifetime, random_state=rng)
        self.extension_seed_ = int(rng.integers(_SEED_MAX))
        self.X_fit_ = X
        self.cut_times_ = np.sort(self.trees_.split_time[self.trees_.left >= 0])
        self._columns = {}
        self._online_rng = rng
        return self

    def partial_fit(self, X, y=None):
        """Extend the same trees to the points ``X`` (online learning, Supplement C).

        The first call fits. Later calls grow the fitted Mondrians to hold ``X`` by one
        joint conditional Mondrian draw (:meth:`MondrianTrees.extended
        <mondrian_core.trees.MondrianTrees.extended>`): the trees are then distributed as
        a fit on every point seen so far. Columns keep their meaning: a column stands for
        the cell holding the same earlier points (possibly grown to hold new ones), and
        cells holding only new points get columns appended after the earlier ones, at
        every lifetime.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The new points.
        y : ignored
            Accepted for API consistency.

        Returns
        -------
        MondrianFeatures
            The estimator, with ``trees_``, ``X_fit_`` and ``cut_times_`` updated.

        References
        ----------
        M. Balog, B. Lakshminarayanan, Z. Ghahramani, D. M. Roy and Y. W. Teh,
        "The Mondrian Kernel", UAI 2016, Supplement C.
        """
        if not hasattr(self, "trees_"):
            return self.fit(X)
        X = check_points(X, estimator=self, reset=False)
        self.trees_ = self.trees_.extended(X, random_state=self._online_rng)
        self.X_fit_ = self.trees_.X_fit
        self.cut_times_ = np.sort(self.trees_.split_time[self.trees_.left >= 0])
        self._columns = {}
        return self

    def _time(self, lifetime) -> float:
        if lifetime is None:
            return float(self.trees_.lifetime)
        t = check_lifetime(lifetime)
        if t > self.trees_.lifetime:
            raise InputError(f"lifetime must be at most the terminal lifetime "
                             f"{self.trees_.lifetime:g} used in fit; got {t:g}.")
        return t

    def _column_of_node(self, t: float) -> tuple[np.ndarray, int]:
        key = float(t)
        columns = self._columns.get(key)  # once: another thread may clear the dict
        if columns is None:
            trees = self.trees_
            alive = np.flatnonzero(trees.alive_at(t))
            # a cell's column follows the earlier points it holds (its origin): cells of
            # the first fit by tree, then cells added online in the order they appeared
            origin = trees.origin[alive]
            base = origin < trees.n_base_nodes
            alive = alive[np.lexsort((origin, np.where(base, trees.tree[alive], 0), ~base))]
            col = np.full(trees.n_nodes, -1, dtype=np.int64)
            col[alive] = np.arange(alive.size)
            columns = (col, int(alive.size))
            if len(self._columns) > 16:
                self._columns.clear()
            self._columns[key] = columns
        return columns

    def n_cells(self, lifetime=None) -> int:
        """Return the number of fitted (non-empty) cells over all trees at ``lifetime``.

        Parameters
        ----------
        lifetime : float, optional
            A lifetime in ``[0, self.lifetime]``; default the terminal lifetime.

        Returns
        -------
        int
            The number of columns the fitted points occupy.
        """
        check_is_fitted(self)
        return self._column_of_node(self._time(lifetime))[1]

    def cells(self, X, lifetime=None) -> tuple[np.ndarray, np.ndarray]:
        """Return the column of each point's cell in each tree.

        Parameters
        ----------
        X : array-like of shape (N, D)
            Points to place.
        lifetime : float, optional
            A lifetime in ``[0, self.lifetime]``; default the terminal lifetime.

        Returns
        -------
        columns : ndarray of int64, shape (N, n_trees)
            The column of each point's cell (numbered as in :meth:`transform`).
        branched : ndarray of bool, shape (N, n_trees)
            True where the point's cell in that tree is a new one (holding no fitted
            point); how new rows are placed jointly is said in the class docstring.
        """
        check_is_fitted(self)
        X = check_points(X, estimator=self, reset=False)
        t = self._time(lifetime)
        col, n_cells = self._column_of_node(t)
        trees = self.trees_
        if X.shape == self.X_fit_.shape and np.array_equal(X, self.X_fit_):
            nodes = trees.nodes_at(t)
            new_cell = np.full(nodes.shape, -1)
        else:
            nodes, new_cell = trees.extend_jointly(X, time=t, random_state=self.extension_seed_)
        b = new_cell.T >= 0
        cols = np.where(b, n_cells + new_cell.T, col[nodes.T])  # (N, M)
        return cols, b

    def transform(self, X, lifetime=None):
        """Mondrian features of ``X`` at ``lifetime`` (default: the terminal one).

        Parameters
        ----------
        X : array-like of shape (N, D)
            Points to map; rows not seen in ``fit`` are placed by the conditional
            Mondrian extension.
        lifetime : float in [0, terminal lifetime], optional
            The lifetime at which to read the partitions; default the terminal one.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (N, n_cells(lifetime) + n_new_cells)
            Exactly one non-zero ``1/sqrt(n_trees)`` per tree per row.

        Raises
        ------
        InputError
            If ``X`` has the wrong number of features or ``lifetime`` is out of range.
        """
        cols, branched = self.cells(X, lifetime)
        n_cols = int(cols.max()) + 1 if branched.any() else self.n_cells(lifetime)
        return one_hot_csr(cols, n_cols, 1.0 / np.sqrt(self.trees_.n_trees))

    def kernel(self, X, Y=None, lifetime=None) -> np.ndarray:
        """Return the Mondrian kernel matrix (fraction of trees sharing a cell), dense.

        Parameters
        ----------
        X : array-like of shape (N, D)
            The first points.
        Y : array-like of shape (N2, D), optional
            The second points; default ``X``.
        lifetime : float, optional
            A lifetime in ``[0, self.lifetime]``; default the terminal lifetime.

        Returns
        -------
        ndarray of shape (N, N2)
            Entries in ``{0, 1/M, ..., 1}``.
        """
        check_is_fitted(self)
        X = check_points(X, estimator=self, reset=False)
        Y = X if Y is None else check_points(Y, "Y", estimator=self, reset=False)
        check_dense_size(X.shape[0], Y.shape[0])
        if Y is X:
            Z = self.transform(X, lifetime)
            return (Z @ Z.T).toarray()
        Z = self.transform(np.vstack([X, Y]), lifetime)
        return (Z[: X.shape[0]] @ Z[X.shape[0]:].T).toarray()


class RandomFourierFeatures(TransformerMixin, BaseEstimator):
    """Random Fourier features for the Laplace kernel ``exp(-lifetime ||x-y||_1)``.

    ``z(x) = sqrt(2 / R) cos(W^T x + b)`` with the entries of ``W`` (D, R)
    independent Cauchy(0, lifetime), the spectral density of the Laplace kernel
    (a product of 1-D ``exp(-lifetime |d|)``), and ``b ~ U[0, 2 pi)``; then
    ``E[z(x) . z(y)] = k(x, y)`` (Rahimi and Recht 2007, *Random Features for
    Large-Scale Kernel Machines*, Section 3).

    Parameters
    ----------
    lifetime : float, default=1.0
        Inverse kernel width (the Cauchy scale), in units of inverse ``X``, >= 0.
    n_components : int, default=100
        Number R of features (all non-zero), >= 1.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`); the same
        seed gives the same features.

    Attributes
    ----------
    random_weights_ : ndarray of shape (D, R)
        The frequencies ``W``, independent Cauchy(0, lifetime) entries.
    random_offset_ : ndarray of shape (R,)
        The phases ``b``, uniform on ``[0, 2 pi)``.
    n_features_in_ : int
        Number of features of the points seen in ``fit``.

    See Also
    --------
    sklearn.kernel_approximation.RBFSampler : The same construction for the RBF kernel.
    MondrianFeatures : Mondrian kernel features for the same Laplace kernel.
    RandomBinningFeatures : Random binning features for the same Laplace kernel.

    References
    ----------
    A. Rahimi and B. Recht, "Random Features for Large-Scale Kernel Machines",
    NIPS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import RandomFourierFeatures, laplace_kernel
    >>> X = np.random.default_rng(0).uniform(size=(50, 2))
    >>> Z = RandomFourierFeatures(lifetime=2.0, n_components=4000, random_state=0).fit(X).transform(X)
    >>> Z.shape
    (50, 4000)
    >>> bool(np.abs(Z @ Z.T - laplace_kernel(X, lifetime=2.0)).max() < 0.1)
    True
    """

    def __init__(self, lifetime=1.0, n_components=100, random_state=None):
        self.lifetime = lifetime
        self.n_components = n_components
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # X @ W works on CSR/CSC as it is
        return tags

    def fit(self, X, y=None):
        """Draw the frequencies and phases.

        Parameters
        ----------
        X : array-like of shape (N, D)
            Training points; only their number of features is used.
        y : None
            Ignored; present for scikit-learn's API.

        Returns
        -------
        RandomFourierFeatures
            The fitted estimator.

        Raises
        ------
        InputError
            If ``X``, ``lifetime`` or ``n_components`` is invalid, or the frequency
            matrix (D x n_components) would exceed ``MAX_DENSE_ENTRIES``.
        """
        lifetime = check_lifetime(self.lifetime)
        r = check_count(self.n_components, "n_components")
        X = check_points(X, estimator=self, accept_sparse=True)
        d = X.shape[1]
        if d * r > MAX_DENSE_ENTRIES:
            raise InputError(
                f"{r:,} components on {d:,} features need a {d:,} x {r:,} matrix of frequencies "
                f"(limit {MAX_DENSE_ENTRIES:,} entries); use n_components of at most "
                f"{MAX_DENSE_ENTRIES // d:,}.")
        rng = check_random_state(self.random_state)
        with np.errstate(over="ignore"):
            weights = lifetime * rng.standard_cauchy((d, r))
        if not np.all(np.isfinite(weights)):
            raise InputError(f"The lifetime {lifetime:g} is too large: the random frequencies "
                             "overflow to infinity; use a smaller lifetime or rescale X.")
        self.random_weights_ = weights
        self.random_offset_ = rng.uniform(0.0, 2.0 * np.pi, r)
        return self

    def transform(self, X) -> np.ndarray:
        """Map ``X`` to its random Fourier features.

        Parameters
        ----------
        X : array-like of shape (N, D)
            Points to map.

        Returns
        -------
        ndarray of shape (N, n_components)
            Dense features ``sqrt(2 / R) cos(X W + b)``.

        Raises
        ------
        InputError
            If ``X`` is invalid or has the wrong number of features.
        """
        check_is_fitted(self)
        X = check_points(X, estimator=self, reset=False, accept_sparse=True)
        check_dense_size(X.shape[0], self.random_weights_.shape[1], "feature matrix")
        with np.errstate(over="ignore", invalid="ignore"):
            proj = np.asarray(X @ self.random_weights_) + self.random_offset_
        if not np.all(np.isfinite(proj)):
            raise InputError(f"The phases w.x + b overflow for these points (lifetime "
                             f"{self.lifetime!r} times X is beyond float range); use a smaller "
                             "lifetime or rescale X.")
        np.cos(proj, out=proj)
        proj *= np.sqrt(2.0 / self.random_weights_.shape[1])
        return proj


class RandomBinningFeatures(TransformerMixin, BaseEstimator):
    """Random binning features for the Laplace kernel ``exp(-lifetime ||x-y||_1)``.

    ``n_grids`` regular grids; in grid ``p`` and dimension ``d`` the pitch is
    ``delta ~ Gamma(2, scale=1/lifetime)`` (density ``delta * k''(delta)``) and
    the shift ``u ~ U[0, delta)``; a point's bin is
    ``floor((x - u) / delta)`` in every dimension. Two points share a bin of a
    grid with probability ``prod_d exp(-lifetime |x_d - y_d|)``, so the
    one-hot bin indicators scaled ``1/sqrt(n_grids)`` give an unbiased estimate
    of the Laplace kernel (Rahimi and Recht 2007, Section 4).

    Parameters
    ----------
    lifetime : float, default=1.0
        Inverse kernel width, in units of inverse ``X``; must be > 0.
    n_grids : int, default=50
        Number P of grids (non-zeros per row), >= 1.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        A seed or generator (see :func:`~mondrian_core.check_random_state`); the same
        seed gives the same features.

    Attributes
    ----------
    pitch_ : ndarray of shape (n_grids, D)
        Each grid's bin width in each dimension, Gamma(2, 1/lifetime).
    shift_ : ndarray of shape (n_grids, D)
        Each grid's offset in each dimension, uniform on ``[0, pitch)``.
    n_bins_ : int
        Number of non-empty bins of the fitted points (the first columns).
    n_features_in_ : int
        Number of features of the points seen in ``fit``.

    See Also
    --------
    MondrianFeatures : Mondrian kernel features for the same Laplace kernel.
    RandomFourierFeatures : Random Fourier features for the same Laplace kernel.

    Notes
    -----
    Columns are the non-empty bins of the fitted points (grid by grid); bins
    first met in ``transform`` get new columns appended after them, one per
    distinct new bin, like :class:`MondrianFeatures`. Bins are identified by a
    random 64-bit hash of (grid, integer bin coordinates); two different bins
    collide with probability about ``2**-64`` per pair.

    References
    ----------
    A. Rahimi and B. Recht, "Random Features for Large-Scale Kernel Machines",
    NIPS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian_core import RandomBinningFeatures
    >>> X = np.random.default_rng(0).uniform(size=(100, 2))
    >>> Z = RandomBinningFeatures(lifetime=3.0, n_grids=20, random_state=0).fit(X).transform(X)
    >>> Z.shape[0], int(Z.getnnz(axis=1).max())
    (100, 20)
    """

    def __init__(self, lifetime=1.0, n_grids=50, random_state=None):
        self.lifetime = lifetime
        self.n_grids = n_grids
        self.random_state = random_state

    def fit(self, X, y=None):
        """Draw the grids and number the fitted points' bins.

        Parameters
        ----------
        X : array-like of shape (N, D)
            Training points.
        y : None
            Ignored; present for scikit-learn's API.

        Returns
        -------
        RandomBinningFeatures
            The fitted estimator.

        Raises
        ------
        InputError
            If ``X``, ``lifetime`` (must be > 0) or ``n_grids`` is invalid, or the
            grids would need more than ``MAX_DENSE_ENTRIES`` bins or parameters.
        """
        self._fit_columns(X)
        return self

    @docfiller({"fit": params(fit.__doc__, "X", "y")})
    def fit_transform(self, X, y=None):
        """Fit to ``X`` and return its features: ``fit(X).transform(X)``, hashing ``X`` once.

        Parameters
        ----------
        %(fit)s

        Returns
        -------
        scipy.sparse.csr_matrix of shape (N, n_bins_)
            One non-zero ``1/sqrt(n_grids)`` per grid per row.

        Raises
        ------
        InputError
            As :meth:`fit`.
        """
        columns = self._fit_columns(X)
        return one_hot_csr(columns, self.n_bins_, 1.0 / np.sqrt(self.pitch_.shape[0]))

    def _fit_columns(self, X):
        """Fit, and return each fitted row's column in each grid, ``(N, n_grids)``."""
        lifetime = check_lifetime(self.lifetime, positive=True)
        p = check_count(self.n_grids, "n_grids")
        X = check_points(X, estimator=self)
        n, d = X.shape
        if max(n, d + 1) * p > MAX_DENSE_ENTRIES:
            raise InputError(
                f"{p:,} grids on {n:,} points of {d:,} features are too many (limit "
                f"{MAX_DENSE_ENTRIES:,} bins or grid parameters); use n_grids of at most "
                f"{MAX_DENSE_ENTRIES // max(n, d + 1):,}.")
        rng = check_random_state(self.random_state)
        self.pitch_ = rng.gamma(2.0, 1.0 / lifetime, size=(p, d))
        self.shift_ = rng.random((p, d)) * self.pitch_
        self._salt = rng.integers(0, 2**63, size=(p, d + 1), dtype=np.uint64) * 2 + 1
        keys = self._keys(X)
        self._fitted_keys = np.unique(keys)  # sorted
        # order columns grid by grid (then by key) for readability
        grid_of = np.empty(self._fitted_keys.size, dtype=np.int64)
        pos = np.searchsorted(self._fitted_keys, keys)
        grid_of[pos] = np.broadcast_to(np.arange(p), keys.shape)
        rank = np.lexsort((np.arange(grid_of.size), grid_of))
        self._key_column = np.empty_like(rank)
        self._key_column[rank] = np.arange(rank.size)
        self.n_bins_ = int(self._fitted_keys.size)
        return self._key_column[pos]

    def _keys(self, X) -> np.ndarray:
        """(N, P) uint64 hash of (grid, bin coordinates), in chunks of rows (the bin
        coordinates are N x P x D)."""
        p, d = self.pitch_.shape
        out = np.empty((X.shape[0], p), dtype=np.uint64)
        step = max(1, _KEY_CHUNK // (p * d))
        for a in range(0, X.shape[0], step):
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                bins = np.floor((X[a:a + step, None, :] - self.shift_[None]) / self.pitch_[None])
            if not np.all(np.abs(bins) < 2.0**62):
                raise InputError(f"The lifetime {self.lifetime!r} is too large for the scale of "
                                 "X: bin numbers overflow 64-bit integers; use a smaller lifetime "
                                 "or rescale X.")
            bins = bins.astype(np.int64)
            with np.errstate(over="ignore"):
                h = (bins.astype(np.uint64) * self._salt[None, :, :-1]).sum(axis=2,
                                                                            dtype=np.uint64)
                h += self._salt[None, :, -1]
                h ^= h >> np.uint64(31)
                h *= np.uint64(0x9E3779B97F4A7C15)
            out[a:a + step] = h
        return out

    def transform(self, X):
        """Map ``X`` to its random binning features.

        Parameters
        ----------
        X : array-like of shape (N, D)
            Points to map.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (N, n_bins_ + n_new_bins)
            One non-zero ``1/sqrt(n_grids)`` per grid per row; bins first met here
            get columns after the fitted ones.

        Raises
        ------
        InputError
            If ``X`` is invalid or has the wrong number of features.
        """
        check_is_fitted(self)
        X = check_points(X, estimator=self, reset=False)
        check_dense_size(X.shape[0], self.pitch_.shape[0], "matrix of bins")
        keys = self._keys(X)
        fk = self._fitted_keys
        pos = np.minimum(np.searchsorted(fk, keys), fk.size - 1)
        known = fk[pos] == keys
        cols = np.where(known, self._key_column[pos], -1)
        if not known.all():
            new_keys, inv = np.unique(keys[~known], return_inverse=True)
            cols[~known] = self.n_bins_ + inv.reshape(-1)
            n_cols = self.n_bins_ + new_keys.size
        else:
            n_cols = self.n_bins_
        return one_hot_csr(cols, n_cols, 1.0 / np.sqrt(self.pitch_.shape[0]))
