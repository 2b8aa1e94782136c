"""The Kernel convergence page's builders are marked ``validated_once``: their slimmed
figures, built without Plotly's second validation, are the same chart, description, CSV
and display variants as the validated ones (the check of
tests/test_figures_validated_once.py, on these six builders)."""
from __future__ import annotations

import pytest

from mondrian_core import datasets as ds
from mondrian_core.experiments.kernel_convergence import (
    feature_counts,
    kernel_error_curves,
    kernel_matrices,
    kernel_slice,
    laplace_link_pairs,
    ridge_rmse_curves,
    uniform_error_curves,
)
from mondrian_core.figures import kernel
from tests.test_figures_validated_once import (
    test_slim_without_second_validation_is_the_same_figure as same_figure_either_way,
)


def _kernel_figures():
    X = ds.uniform_box(30, random_state=2).X
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
    data = ds.load_bundled("diabetes")
    yield kernel.ridge_rmse_figure(
        ridge_rmse_curves(data.X[:60], data.y[:60], data.X[60:80], data.y[60:80], 0.3,
                          feature_counts(5), 2, ridge=1.0, random_state=8),
        dataset_name="diabetes")


def test_every_kernel_builder_is_marked():
    builders = [getattr(kernel, name) for name in kernel.__all__]
    assert len(builders) == 6
    assert all(getattr(b, "validated_once", False) for b in builders)


@pytest.mark.parametrize("fig", list(_kernel_figures()))
def test_slim_without_second_validation_is_the_same_kernel_figure(fig):
    assert len(fig.data) > 0
    same_figure_either_way(fig)
