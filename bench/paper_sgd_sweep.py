"""The paper's approximate lifetime sweep, re-implemented as a timing baseline.

Balog et al. (2016) sweep the lifetime by growing M Mondrians cut by cut (a heap of
pending cuts over the training and test points) and, after every cut, running ONE
epoch of stochastic gradient descent on the ridge objective over all training points,
warm-started from the previous weights (the split cell's weight copied to both
children). This module does the same work per event as their code
(``evaluate_all_lifetimes(..., mondrian_kernel=True)`` in their ``mondrian_kernel.py``):

* the feature matrix of all points (training then test) is one CSR matrix with M
  entries ``1/sqrt(M)`` per row; a cut rewrites the column index of the split cell's
  points in that tree and the matrix is rebuilt without copying its arrays;
* the two children's first cuts are drawn from their points' bounding boxes
  (time ``birth + Exp(sum of sides)``, dimension proportional to side, location
  uniform) and pushed on the heap if before the terminal lifetime;
* scikit-learn's ``SGDRegressor(alpha=delta, fit_intercept=False)`` runs one epoch
  (their ``n_iter=1``; ``max_iter=1, tol=None`` today) with its default inverse-scaling
  learning rate (``eta0=0.01, power_t=0.25``) from ``coef_init`` = the previous weights
  (:func:`mondrian_core.experiments.kernel_vs_forest.sgd_epoch`, which the kernel-vs-forest
  page runs along the exact trees' cuts);
* train and test predictions are recomputed (sparse products) and their errors stored.

Targets are centred by the training mean, as theirs. Written from the paper's
description and their published algorithm; none of their code is copied here.
"""
from __future__ import annotations

import heapq
import time

import numpy as np
import scipy.sparse as sp

from mondrian_core.experiments.kernel_vs_forest import sgd_epoch


def _sample_cut(rng, lower, upper, birth):
    extent = upper - lower
    rate = extent.sum()
    if rate <= 0:
        return np.inf, -1, 0.0
    dim = int(rng.choice(extent.size, p=extent / rate))
    return birth + rng.exponential(1.0 / rate), dim, lower[dim] + extent[dim] * rng.random()


def paper_sgd_sweep(X, y, X_test, y_test, n_trees, lifetime_max, delta, seed=0):
    """Run the approximate sweep; returns a dict of per-event times, seconds and RMSEs."""
    rng = np.random.default_rng(seed)
    X, X_test = np.asarray(X, float), np.asarray(X_test, float)
    N, M = X.shape[0], int(n_trees)
    X_all = np.vstack([X, X_test])
    n_all = X_all.shape[0]
    y_mean = float(np.mean(y))
    y_train = np.asarray(y, float) - y_mean
    t_start = time.perf_counter()
    indptr = np.arange(0, M * n_all + 1, M, dtype=np.int32)
    indices = np.tile(np.arange(M, dtype=np.int32), n_all)  # as scipy makes from a list
    data = np.full(M * n_all, 1.0 / np.sqrt(M))
    members = [np.arange(n_all) for _ in range(M)]  # points of each feature
    lower, upper = X_all.min(axis=0), X_all.max(axis=0)
    heap = []
    for m in range(M):
        t, d, loc = _sample_cut(rng, lower, upper, 0.0)
        if t < lifetime_max:
            heapq.heappush(heap, (t, m, m, d, loc))
    C = M
    w = np.zeros(M)
    times, seconds, train_rmse, test_rmse = [], [], [], []
    while heap:
        t, m, c, d, loc = heapq.heappop(heap)
        pts = members[c]
        left, right = pts[X_all[pts, d] <= loc], pts[X_all[pts, d] > loc]
        members[c] = None
        members += [left, right]
        indices[left * M + m] = C
        indices[right * M + m] = C + 1
        Z = sp.csr_matrix((data, indices, indptr), shape=(n_all, C + 2), copy=False)
        for child, P in ((C, left), (C + 1, right)):
            tc, dc, lc = _sample_cut(rng, X_all[P].min(axis=0), X_all[P].max(axis=0), t)
            if tc < lifetime_max:
                heapq.heappush(heap, (tc, m, child, dc, lc))
        C += 2
        w = np.append(w, [w[c], w[c]])
        w[c] = 0.0
        Z_train, Z_test = Z[:N], Z[N:]
        w = sgd_epoch(Z_train, y_train, w, delta, rng)
        train_rmse.append(np.sqrt(np.mean((y_mean + Z_train @ w - y) ** 2)))
        test_rmse.append(np.sqrt(np.mean((y_mean + Z_test @ w - y_test) ** 2)))
        times.append(t)
        seconds.append(time.perf_counter() - t_start)
    return {"times": np.array(times), "seconds": np.array(seconds),
            "n_features": M + len(times),  # alive: each cut replaces one cell by two
            "train_rmse": np.array(train_rmse), "test_rmse": np.array(test_rmse)}
