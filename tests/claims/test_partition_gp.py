"""The "Partition-kernel GPs" page's claims hold at its defaults (Davies and Ghahramani 2014).

Same data, seed and settings as the page (``explorer_ui/defaults_partition_gp.py``),
computed with ``mondrian_core`` directly.
"""
from __future__ import annotations

import numpy as np
import pytest

from explorer_ui import defaults_partition_gp as D
from mondrian_core import toy_jumps_1d
from mondrian_core.datasets import toy_jumps_function
from mondrian_core.experiments.gp_experiments import (
    PARTITION_KERNELS,
    cg_histories,
    distance_to_truth,
    fitted_partitions,
    posterior_curves,
)


@pytest.fixture(scope="module")
def toy():
    d = toy_jumps_1d(n=D.N_POINTS, random_state=D.SEED)
    grid = np.linspace(*D.GRID)[:, None]
    return d.X, d.y, grid, toy_jumps_function(grid.ravel())


@pytest.fixture(scope="module")
def fitted(toy):
    X, y, _, _ = toy
    return {k: fitted_partitions(k, X, y, n_partitions=D.N_PARTITIONS, max_level=D.MAX_LEVEL,
                                 lifetime=D.LIFETIME, random_state=D.SEED)
            for k in PARTITION_KERNELS}


@pytest.fixture(scope="module")
def means(toy, fitted):
    X, y, grid, _ = toy
    out = {k: posterior_curves(k, X, y, grid, noise_variance=D.NOISE_VARIANCE,
                               random_state=D.SEED, partitions=P)["mean"]
           for k, P in fitted.items()}
    out["RBF"] = posterior_curves("RBF", X, y, grid, random_state=D.SEED)["mean"]
    return out


@pytest.mark.parametrize("kind", ["Random Forest", "Fast Cluster"])
def test_partition_posterior_mean_is_closer_to_the_truth_than_the_rbf(toy, means, kind):
    _, _, grid, truth = toy
    assert distance_to_truth(means[kind], grid, truth) < distance_to_truth(means["RBF"], grid,
                                                                           truth)


def test_random_forest_posterior_mean_is_piecewise_constant(toy, means):
    """Between two neighbouring grid points the Random Forest mean changes only where some
    partition has a cell boundary; the RBF mean changes everywhere."""
    _, _, grid, _ = toy
    inside = (grid.ravel() >= 0) & (grid.ravel() <= 1)
    # 1e-9: well above rounding in the CG solution's O(1) values, far below any step
    steps = {k: np.abs(np.diff(means[k][inside])) > 1e-9 for k in ("Random Forest", "RBF")}
    assert steps["RBF"].all()
    assert steps["Random Forest"].mean() < 0.75  # flat on at least a quarter of the grid


@pytest.mark.parametrize("kind", list(PARTITION_KERNELS))
def test_preconditioned_cg_needs_fewer_iterations(toy, fitted, kind):
    X, y, _, _ = toy
    hist = cg_histories(kind, X, y, noise_variance=D.NOISE_VARIANCE, random_state=D.SEED,
                        tol=D.CG_TOL, partitions=fitted[kind])
    plain, pre = hist["no preconditioner"], hist["preconditioner B"]
    assert pre[-1] <= D.CG_TOL and plain[-1] <= D.CG_TOL  # both converged
    assert len(pre) < len(plain)
