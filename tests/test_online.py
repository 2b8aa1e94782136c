"""Online runs and uncertainty maps (the online forest page's core), and their figures."""
from __future__ import annotations

import numpy as np

from mondrian_core.datasets import regression_surface_2d, two_moons
from mondrian_core.experiments.online import online_run, uncertainty_maps
from mondrian_core.figures import forest as figs


def test_online_run_records_every_batch():
    train, test = two_moons(90, random_state=0), two_moons(40, random_state=1)
    run = online_run(train.X, train.y, "classification", X_test=test.X, y_test=test.y,
                     batch_size=20, n_estimators=3, lifetime=4.0, random_state=0)
    np.testing.assert_array_equal(run.n_seen, [20, 40, 60, 80, 90])
    # every (point, tree) insertion caused exactly one operation
    np.testing.assert_array_equal(run.operation_counts.sum(axis=1), np.diff(run.n_seen,
                                                                            prepend=0) * 3)
    for snap, n in zip(run.snapshots, np.diff(run.n_seen, prepend=0)):
        assert len(snap.new_points) == len(snap.operations) == n
        # a binary tree: leaves = splits + 1
        assert len(snap.leaf_boxes) == len(snap.segments) + 1
    # the splits flagged new are exactly those the batch added, one per inserted split
    assert run.snapshots[0].new_segment.all()
    for before, after in zip(run.snapshots, run.snapshots[1:]):
        added = len(after.segments) - len(before.segments)
        assert after.new_segment.sum() == added
        assert added == np.isin(after.operations, [2, 3]).sum()
    for name, scores in run.scores.items():
        assert scores.shape == run.n_seen.shape and np.all((0 <= scores) & (scores <= 1)), name
    assert len(figs.tree_partition(run.snapshots[2], train.X[:60], train.y[:60]).data) > 0
    assert len(figs.online_scores(run, 2).data) == 3
    assert len(figs.operation_counts(run, 2).data) == 4


def test_uncertainty_grows_away_from_the_training_region_for_the_mondrian_forest_only():
    data = regression_surface_2d(400, random_state=2)
    maps = uncertainty_maps(data.X, data.y, train_lower=(0, 0), train_upper=(0.5, 1),
                            grid_lower=(-0.5, -0.5), grid_upper=(1.5, 1.5), resolution=41,
                            n_estimators=5, lifetime=5.0, random_state=3)
    gx, gy = np.meshgrid(maps.grid_x, maps.grid_y)
    inside = (gx >= 0.05) & (gx <= 0.45) & (gy >= 0.05) & (gy <= 0.95)
    far = gx >= 1.2
    mf = maps.std["Mondrian forest"]
    assert mf[far].mean() > 2 * mf[inside].mean()
    for name in ("RandomForest", "ExtraTrees"):
        # constant beyond the data's border in x1 (cells extend to infinity)
        right = maps.std[name][:, maps.grid_x > 0.6]
        np.testing.assert_allclose(right, right[:, :1] * np.ones_like(right))
    assert len(figs.uncertainty_maps_figure(maps, data.X).data) == 6
