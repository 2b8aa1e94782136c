"""Builders marked ``validated_once``: their slimmed figures, built without Plotly's
second validation, give the same chart, description, CSV and display variants."""
from __future__ import annotations

import json

import numpy as np
import pytest

from explorer_ui.figure_cache import slim
from mondrian_core import datasets
from mondrian_core.experiments.inference import (
    clt_statistics,
    coverage_repetitions,
    coverage_summary,
    risk_vs_n,
)
from mondrian_core.experiments.kernel_convergence import (
    feature_counts,
    kernel_error_curves,
    kernel_matrices,
    kernel_slice,
    laplace_link_pairs,
    ridge_rmse_curves,
    uniform_error_curves,
)
from mondrian_core.experiments.online import (
    online_kernel_forest,
    online_run,
    uncertainty_maps_in_region,
)
from mondrian_core.figures import forest, gp, inference, kernel, online
from mondrian_core.figures.describe import chart_label, describe_figure, figure_csv
from mondrian_core.figures.theme import for_display


def _gp_figures():
    rng = np.random.default_rng(0)
    grid = np.linspace(-0.05, 1.05, 30)[:, None]
    X, y = rng.uniform(size=(20, 1)), rng.normal(size=20)
    panels = {k: dict(mean=rng.normal(size=30), std=rng.uniform(0.1, 1, 30),
                      samples=rng.normal(size=(30, 3)), label=f"{k} (m=100)")
              for k in ("Random Forest", "Fast Cluster", "Mondrian", "RBF")}
    yield gp.posterior_panels_figure(panels, X, y, grid, truth=np.sin(grid.ravel()))
    yield gp.kernel_heatmaps_figure({f"{k} kernel": rng.uniform(size=(12, 12))
                                     for k in ("A", "B", "C")})
    yield gp.kernel_pca_figure({k: rng.normal(size=(25, 2)) for k in ("PCA", "B", "C")},
                               rng.normal(size=25), colour_label="disease progression")


def _inference_figures():
    stack = coverage_repetitions(0, 4, n=200, lifetime=5.0, n_trees=10, seed=1)
    yield inference.coverage_stack_figure(stack, coverage_summary(stack),
                                          names=["plain", "debiased", "smoothed"])
    yield inference.clt_figure(clt_statistics(n=200, lifetime=5.0, n_trees=5, repetitions=12))
    yield inference.rates_figure(risk_vs_n([50, 100], repetitions=2))


def _online_figures():
    data = datasets.two_moons(80, noise=0.2, random_state=3)
    run = online_run(data.X[:60], data.y[:60], data.task, X_test=data.X[60:],
                     y_test=data.y[60:], batch_size=20, n_estimators=3, lifetime=3.0,
                     random_state=1)
    yield forest.tree_partition(run.snapshots[1], data.X[:40], data.y[:40])
    yield forest.online_scores(run, 1)
    yield forest.operation_counts(run, 1)
    stream = datasets.toy_jumps_1d(40, 0.1, random_state=2, width=0.05)
    grid = np.linspace(0, 1, 21)
    yield online.stream_fits_figure(
        online_kernel_forest(stream.X, stream.y, grid=grid, batch_size=20, n_trees=3,
                             lifetime=5.0, noise_variance=0.01, prior_variance=1.0,
                             f=np.sin(grid), left_to_right=True, random_state=0), 1)
    surface = datasets.regression_surface_2d(60, random_state=4)
    maps, inside = uncertainty_maps_in_region(surface.X, surface.y, ((0.0, 0.0), (0.5, 1.0)),
                                              resolution=10, n_estimators=3, lifetime=3.0,
                                              random_state=5)
    yield forest.uncertainty_maps_figure(maps, surface.X[inside])


def _kernel_figures():
    X = datasets.uniform_box(30, random_state=2).X
    K_lap, K_mon, order = kernel_matrices(X, 10.0, 5, random_state=3)
    yield kernel.kernel_heatmaps_figure(K_lap, K_mon, order, lifetime=10.0, n_trees=5)
    s, lap, est = kernel_slice(10.0, [1, 5, 20], n_grid=41, random_state=0)
    yield kernel.kernel_slice_figure(s, lap, est, lifetime=10.0)  # with animation frames
    lap_v, frac, _ = laplace_link_pairs(X, 5.0, 7, n_pairs=40, random_state=5)
    yield kernel.laplace_link_figure(lap_v, frac, 7)
    yield kernel.uniform_error_figure(
        uniform_error_curves(10.0, feature_counts(20), n_grid=5, n_draws=3, random_state=1))
    yield kernel.kernel_error_figure(
        kernel_error_curves(X[:20], 10.0, feature_counts(10), 2, random_state=7))
    data = datasets.load_bundled("diabetes")
    yield kernel.ridge_rmse_figure(
        ridge_rmse_curves(data.X[:60], data.y[:60], data.X[60:80], data.y[60:80], 0.3,
                          feature_counts(5), 2, ridge=1.0, random_state=8),
        dataset_name="diabetes")


def test_the_marked_builders():
    marked = {f"{module.__name__.rsplit('.', 1)[1]}.{name}"
              for module in (gp, inference, forest, online, kernel) for name in vars(module)
              if getattr(getattr(module, name), "validated_once", False)}
    assert marked == {
        "gp.posterior_panels_figure", "gp.kernel_heatmaps_figure", "gp.kernel_pca_figure",
        "inference.coverage_stack_figure", "inference.clt_figure", "inference.rates_figure",
        "forest.tree_partition", "forest.online_scores", "forest.operation_counts",
        "forest.uncertainty_maps_figure", "online.stream_fits_figure",
        *(f"kernel.{name}" for name in kernel.__all__)}


@pytest.mark.parametrize("fig", [*_gp_figures(), *_inference_figures(), *_online_figures(),
                                 *_kernel_figures()])
def test_slim_without_second_validation_is_the_same_figure(fig):
    assert len(fig.data) > 0
    checked, once = slim(fig), slim(fig, validate=False)
    assert json.loads(once.to_json()) == json.loads(checked.to_json())
    assert describe_figure(once, "chart") == describe_figure(checked, "chart")
    assert chart_label(once, "chart") == chart_label(checked, "chart")
    assert figure_csv(once) == figure_csv(checked)
    for projector, palette in ((True, "mondrian"), (False, "safe"), (True, "safe")):
        assert (json.loads(for_display(once, projector=projector, palette=palette).to_json())
                == json.loads(for_display(checked, projector=projector,
                                          palette=palette).to_json()))
