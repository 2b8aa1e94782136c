"""The "Partition-kernel GPs" page's claims, over 10 seeds (Davies and Ghahramani 2014).

Same data, settings and seeding as the page (``explorer_ui/defaults_partition_gp.py``),
computed with ``mondrian_core`` directly; each seed draws its own toy data and partitions,
as the page's seed does.
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

SEEDS = range(10)
SMALL_NOISE = 0.01  # the tour's last step


def _fit(kind, X, y, seed, lifetime=D.LIFETIME):
    return fitted_partitions(kind, X, y, n_partitions=D.N_PARTITIONS, max_level=D.MAX_LEVEL,
                             lifetime=lifetime, random_state=seed)


@pytest.fixture(scope="module")
def runs():
    """Per seed: the toy data, each kernel's fitted partitions, posterior means and the
    RBF's, and the distances to the truth."""
    grid = np.linspace(*D.GRID)[:, None]
    truth = toy_jumps_function(grid.ravel())
    out = []
    for seed in SEEDS:
        d = toy_jumps_1d(n=D.N_POINTS, random_state=seed)
        fitted = {k: _fit(k, d.X, d.y, seed) for k in PARTITION_KERNELS}
        means = {k: posterior_curves(k, d.X, d.y, grid, noise_variance=D.NOISE_VARIANCE,
                                     random_state=seed, partitions=P)["mean"]
                 for k, P in fitted.items()}
        means["RBF"] = posterior_curves("RBF", d.X, d.y, grid, random_state=seed)["mean"]
        out.append(dict(seed=seed, X=d.X, y=d.y, grid=grid, truth=truth, fitted=fitted,
                        means=means,
                        dist={k: distance_to_truth(v, grid, truth) for k, v in means.items()}))
    return out


@pytest.mark.parametrize("kind", ["Random Forest", "Fast Cluster"])
def test_partition_posterior_mean_is_closer_to_the_truth_than_the_rbf(runs, kind):
    for r in runs:
        assert r["dist"][kind] < r["dist"]["RBF"], (r["seed"], r["dist"])


def test_random_forest_posterior_mean_is_piecewise_constant(runs):
    """Between two neighbouring grid points the Random Forest mean changes only where some
    partition has a cell boundary; the RBF mean changes everywhere."""
    for r in runs:
        inside = (r["grid"].ravel() >= 0) & (r["grid"].ravel() <= 1)
        # 1e-9: well above rounding in the CG solution's O(1) values, far below any step
        steps = {k: np.abs(np.diff(r["means"][k][inside])) > 1e-9
                 for k in ("Random Forest", "RBF")}
        assert steps["RBF"].all()
        assert steps["Random Forest"].mean() < 0.75  # flat on at least a quarter of the grid


def test_mondrian_mean_is_closer_to_the_truth_at_a_shorter_lifetime(runs):
    """Tour step 4: lifetime 3 against the default 20."""
    for r in runs:
        P = _fit("Mondrian", r["X"], r["y"], r["seed"], lifetime=3.0)
        mean = posterior_curves("Mondrian", r["X"], r["y"], r["grid"],
                                noise_variance=D.NOISE_VARIANCE, random_state=r["seed"],
                                partitions=P)["mean"]
        assert distance_to_truth(mean, r["grid"], r["truth"]) < r["dist"]["Mondrian"]


@pytest.mark.parametrize("kind", list(PARTITION_KERNELS))
def test_preconditioner_saves_iterations_and_more_at_small_noise(runs, kind):
    """The question's answer ("fewer iterations") and tour step 5: at s = 0.01 plain and
    preconditioned CG need roughly twice the iterations of s = 0.1 (1.5 to 3 times), and
    the preconditioner saves more of them."""
    for r in runs:
        counts = {}
        for s in (D.NOISE_VARIANCE, SMALL_NOISE):
            hist = cg_histories(kind, r["X"], r["y"], noise_variance=s, random_state=r["seed"],
                                tol=D.CG_TOL, partitions=r["fitted"][kind])
            plain, pre = hist["no preconditioner"], hist["preconditioner B"]
            assert pre[-1] <= D.CG_TOL and plain[-1] <= D.CG_TOL  # both converged
            counts[s] = (len(plain) - 1, len(pre) - 1)
            assert counts[s][1] < counts[s][0]
        for which in (0, 1):
            assert 1.5 <= counts[SMALL_NOISE][which] / counts[D.NOISE_VARIANCE][which] <= 3
        saved = {s: c[0] - c[1] for s, c in counts.items()}
        assert saved[SMALL_NOISE] > saved[D.NOISE_VARIANCE], counts
