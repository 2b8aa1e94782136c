"""The Aggregated Mondrian forests' per-point work, compiled by numba.

What they compute and why they match the Python path draw for draw: the docstring of
:mod:`mondrian_core.forest._amf_jit`, which imports this module only when numba is
installed. Functions at module level, so that numba's on-disk cache finds them again in
a new process (functions made inside another function compile again each time).
"""
import math

import numpy as np
from numba import njit

_LOG2 = math.log(2.0)
_BLOCK = 256

# Bounds checked: an index out of range raises IndexError instead of writing outside an
# array of a server that a class shares (~10% of the compiled work, ~2% of a call:
# bench/RESULTS.md, "amf7").
jit = njit(cache=True, nogil=True, boundscheck=True)


@jit
def exponential(rng, exps, left):
    """The next standard exponential: taken from the end of a block of 256 drawn at
    once, as ``tree_store._Draws.exponential`` does."""
    if left[0] == 0:
        exps[:] = rng.standard_exponential(_BLOCK)
        left[0] = _BLOCK
    left[0] -= 1
    return exps[left[0]]


@jit
def uniform(rng, unis, left):
    """The next uniform on [0, 1), from the end of a block of 256 (``_Draws.uniform``)."""
    if left[1] == 0:
        unis[:] = rng.random(_BLOCK)
        left[1] = _BLOCK
    left[1] -= 1
    return unis[left[1]]


@jit
def walk(x, j, left, right, sdim, sloc, path):
    """The path from node j to its leaf, written into ``path``; returns its length
    (-1 if ``path`` lacks the one spare item an insertion may need)."""
    L = 0
    while True:
        if L == path.size - 1:
            return -1
        path[L] = j
        L += 1
        c = left[j]
        if c < 0:
            return L
        j = c if x[sdim[j]] <= sloc[j] else right[j]


@jit
def learn_point(x, ps, y, label, classify, step, dirichlet, split_pure, lifetime,
                roots, tree, parent, left, right, sdim, stime, sloc, lower, upper,
                stats, n, lw, lwt, rng, exps, unis, left_draws, paths, lengths,
                gaps, rates, split_at, split_time, split_gaps, split_rate):
    """Insert one point into every tree and charge its paths; return the new number
    of nodes, or -1 if ``paths`` is too short (nothing changed then)."""
    M, D = roots.size, x.size
    K = ps.size
    # the walks first: a path too long for the buffer changes nothing
    for m in range(M):
        L = walk(x, roots[m], left, right, sdim, sloc, paths[m])
        if L < 0:
            return -1
        lengths[m] = L
    # each tree's clocks, top-down along the suffix of its path whose boxes the
    # point lies outside (TreeStore._extend_point)
    for m in range(M):
        path, L = paths[m], lengths[m]
        split_at[m] = -1
        leaf = path[L - 1]
        inside = True
        for dd in range(D):
            if not lower[leaf, dd] <= x[dd] <= upper[leaf, dd]:
                inside = False
                break
        if inside:
            continue
        k = L
        while k:  # the outside suffix, from the leaf up (_outside_suffix)
            j = path[k - 1]
            r = 0.0
            for dd in range(D):
                xd, lo = x[dd], lower[j, dd]
                if xd < lo:
                    v = lo - xd
                else:
                    v = xd - upper[j, dd]
                    if v < 0.0:
                        v = 0.0
                gaps[k - 1, dd] = v
                r += v
            if r == 0.0:
                break
            rates[k - 1] = r
            k -= 1
        f = L
        ring_time = 0.0
        for i in range(k, L):
            j = path[i]
            if not split_pure:  # a node holding only the point's label stays whole
                pure = True
                for c in range(K):
                    if ps[c] == 0.0 and stats[j, c] != 0.0:
                        pure = False
                        break
                if pure:
                    continue
            birth = stime[path[i - 1]] if i else 0.0
            wait = exponential(rng, exps, left_draws)
            r = rates[i]
            end = stime[j]
            if lifetime < end:
                end = lifetime
            if wait < r * (end - birth):
                f = i
                ring_time = birth + wait / r
                break
        for i in range(k, f):  # boxes the point lies outside grow to it
            j = path[i]
            for dd in range(D):
                xd = x[dd]
                if xd < lower[j, dd]:
                    lower[j, dd] = xd
                elif xd > upper[j, dd]:
                    upper[j, dd] = xd
        if f < L:  # the ringing node's gaps, kept for its split
            for dd in range(D):
                split_gaps[m, dd] = gaps[f, dd]
            split_rate[m] = rates[f]
            split_time[m] = ring_time
            split_at[m] = f
    # the point's statistics join the nodes above its cell or split
    for m in range(M):
        f = split_at[m] if split_at[m] >= 0 else lengths[m]
        path = paths[m]
        for i in range(f):
            j = path[i]
            for c in range(K):
                if ps[c] != 0.0:
                    stats[j, c] += ps[c]
    # the splits: ids n .. n+k-1 in tree order, their leaves n+k .. n+2k-1
    k = 0
    for m in range(M):
        if split_at[m] >= 0:
            k += 1
    i = 0
    for m in range(M):
        f = split_at[m]
        if f < 0:
            continue
        path = paths[m]
        j = path[f]
        node, leaf = n + i, n + k + i
        for dd in range(D):  # _write_split
            xd, lo, up = x[dd], lower[j, dd], upper[j, dd]
            lower[node, dd] = xd if xd < lo else lo
            upper[node, dd] = xd if xd > up else up
            lower[leaf, dd] = xd
            upper[leaf, dd] = xd
        for c in range(K):
            stats[node, c] = stats[j, c] + ps[c]
            stats[leaf, c] = ps[c]
        i += 1
    i = 0
    for m in range(M):  # _link_splits
        f = split_at[m]
        if f < 0:
            continue
        path = paths[m]
        j = path[f]
        target, acc = uniform(rng, unis, left_draws) * split_rate[m], 0.0
        dd = -1
        for c in range(D):
            acc += split_gaps[m, c]
            if acc > target:
                dd = c
                break
        if dd < 0:  # rounding at the end of the sum: the last dimension with a gap
            for c in range(D):
                if split_gaps[m, c] > 0.0:
                    dd = c
        below = x[dd] < lower[j, dd]
        node, leaf = n + i, n + k + i
        tree[node] = m
        tree[leaf] = m
        p = parent[j]
        parent[node] = p
        parent[leaf] = node
        parent[j] = node
        if below:
            left[node], right[node] = leaf, j
        else:
            left[node], right[node] = j, leaf
        left[leaf] = -1
        right[leaf] = -1
        sdim[leaf] = -1
        sdim[node] = dd
        stime[node] = split_time[m]
        stime[leaf] = np.inf
        base = x[dd] if below else upper[j, dd]
        sloc[node] = base + split_gaps[m, dd] * uniform(rng, unis, left_draws)
        sloc[leaf] = np.nan
        if p < 0:
            roots[m] = node
        elif left[p] == j:
            left[p] = node
        else:
            right[p] = node
        # the path after the insertion: to the split, then its new leaf
        path[f] = node
        path[f + 1] = leaf
        lengths[m] = f + 2
        i += 1
    n0 = n
    n = n + 2 * k
    # each new split holds the points of the old node below it: its log-weight
    for s in range(n0, n0 + k):
        c = left[s]
        lw[s] = lw[c if c < n0 else right[s]]
        lw[s + k] = 0.0
        lwt[s + k] = 0.0
    # charges from each node's statistics before the point, then w̄ up the path
    a_k = dirichlet * K
    for m in range(M):
        path, L = paths[m], lengths[m]
        child = path[L - 1]
        cur = 0.0
        for i in range(L - 1, -1, -1):
            v = path[i]
            if classify:
                nb = 0.0
                for c in range(K):
                    nb += stats[v, c] - ps[c]
                count = stats[v, label] - ps[label]
                loss = -math.log((count + dirichlet) / (nb + a_k))
            else:
                nb = stats[v, 0] - ps[0]
                r = (stats[v, 1] - ps[1]) / max(nb, 1.0) - y
                loss = 0.5 * r * r
            charge = step * loss if nb > 0 else 0.0
            a = lw[v] - charge
            lw[v] = a
            if i == L - 1:
                cur = a
            else:
                b = lwt[left[v] + right[v] - child] + cur
                if a > b:
                    cur = a + math.log1p(math.exp(b - a)) - _LOG2
                else:
                    cur = b + math.log1p(math.exp(a - b)) - _LOG2
            lwt[v] = cur
            child = v
    return n


@jit
def learn_rows(X, PS, Y, classify, step, dirichlet, split_pure, lifetime,
               roots, tree, parent, left, right, sdim, stime, sloc, lower, upper,
               stats, n, lw, lwt, rng, exps, unis, left_draws, paths):
    """Learn the rows of X in order; return (new number of nodes, rows learnt):
    fewer rows than N when ``paths`` is too short for the next one."""
    M, D = roots.size, X.shape[1]
    width = paths.shape[1]
    lengths = np.empty(M, dtype=np.int64)
    gaps = np.empty((width, D))
    rates = np.empty(width)
    split_at = np.empty(M, dtype=np.int64)
    split_time = np.empty(M)
    split_gaps = np.empty((M, D))
    split_rate = np.empty(M)
    for r in range(X.shape[0]):
        y = Y[r]
        label = int(y) if classify else 0
        got = learn_point(X[r], PS[r], y, label, classify, step, dirichlet, split_pure,
                          lifetime, roots, tree, parent, left, right, sdim, stime, sloc,
                          lower, upper, stats, n, lw, lwt, rng, exps, unis, left_draws,
                          paths, lengths, gaps, rates, split_at, split_time, split_gaps,
                          split_rate)
        if got < 0:
            return n, r
        n = got
    return n, X.shape[0]


@jit
def predict_rows(X, classify, dirichlet, roots, left, right, sdim, sloc, stats, lw,
                 lwt, out):
    """The forest's aggregated prediction at each row of X into ``out`` (N,
    n_outputs): down each tree's path, node ``v``'s estimate weighted by
    ``c_v = a_v prod_{u above v} (1 - a_u)``, ``a_v = w_v / (2 w̄_v)`` (1 at the
    leaf); the trees averaged."""
    M, K = roots.size, stats.shape[1]
    a_k = dirichlet * K
    for r in range(X.shape[0]):
        x = X[r]
        row = out[r]
        row[:] = 0.0
        for m in range(M):
            j = roots[m]
            keep = 1.0
            while True:
                child = left[j]
                if child < 0:
                    w = keep
                else:
                    a = 0.5 * math.exp(lw[j] - lwt[j])
                    w = keep * a
                    keep *= 1.0 - a
                if classify:
                    s = 0.0
                    for c in range(K):
                        s += stats[j, c]
                    for c in range(K):
                        row[c] += w * ((stats[j, c] + dirichlet) / (s + a_k))
                else:
                    row[0] += w * (stats[j, 1] / max(stats[j, 0], 1.0))
                if child < 0:
                    break
                j = child if x[sdim[j]] <= sloc[j] else right[j]
        for c in range(row.size):
            row[c] /= M
