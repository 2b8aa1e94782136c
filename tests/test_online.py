"""Online runs, the online kernel, uncertainty maps (the online forest page's core), and
their figures."""
from __future__ import annotations

import numpy as np
import pytest

from mondrian_core import MondrianFeatures
from mondrian_core._linalg import ridge_weights
from mondrian_core.datasets import regression_surface_2d, toy_jumps_1d, two_moons
from mondrian_core.errors import InputError
from mondrian_core.experiments.online import (
    OnlineKernelRidge,
    check_stream_cost,
    online_kernel_forest,
    online_run,
    uncertainty_maps,
)
from mondrian_core.figures import forest as figs
from mondrian_core.figures import online as online_figs
from mondrian_core.figures.theme import MIN_FONT, font_sizes


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


def _jumps_stream(n=120, seed=4):
    data = toy_jumps_1d(n, 0.15, random_state=seed)
    order = np.argsort(data.X[:, 0])
    return data.X[order], data.y[order]


def test_partial_fit_keeps_earlier_rows_in_their_columns():
    """The premise of the online kernel (Supplement C): extending the trees moves no
    earlier point out of its cell, so earlier rows only gain zero columns."""
    X, _ = _jumps_stream()
    feats = MondrianFeatures(lifetime=12.0, n_trees=8, random_state=0).fit(X[:40])
    before = feats.transform(X[:40]).toarray()
    feats.partial_fit(X[40:])  # all to the right: many new cells
    after = feats.transform(feats.X_fit_).toarray()
    assert after.shape[1] > before.shape[1]
    np.testing.assert_array_equal(after[:40, :before.shape[1]], before)
    assert not after[:40, before.shape[1]:].any()


def test_online_kernel_ridge_equals_the_batch_fit_after_every_batch():
    """Updating A and Phi^T y batch by batch is exact: after each batch the weights are the
    ridge solution on the points so far with the trees as they are then."""
    X, y = _jumps_stream()
    model = OnlineKernelRidge(lifetime=12.0, n_trees=8, noise_variance=0.05,
                              prior_variance=1.0, random_state=1)
    for start in range(0, len(X), 25):
        model.partial_fit(X[start:start + 25], y[start:start + 25])
        seen = y[:start + 25]
        Phi = model.features_.transform(model.features_.X_fit_)
        w = _batch_ridge(Phi, seen - seen.mean(), model.ratio)
        np.testing.assert_allclose(model.weights_, w, rtol=0, atol=1e-8)
        # and the batch learners' ridge solve (primal or dual) gives the same weights
        np.testing.assert_allclose(model.weights_, ridge_weights(Phi, seen - seen.mean(),
                                                                 model.ratio), rtol=0, atol=1e-8)
        assert model.n_seen_ == len(seen) and np.isclose(model.y_mean_, seen.mean())


def test_online_kernel_std_is_the_prior_far_away_and_small_on_the_data():
    X, y = _jumps_stream()
    model = OnlineKernelRidge(lifetime=12.0, n_trees=8, noise_variance=0.05,
                              prior_variance=2.0, random_state=1).partial_fit(X, y)
    mean, std = model.predict([[X.max() + 50.0], [X[60, 0]]], return_std=True)
    # far away every tree puts the point alone in a new cell: the prior, and the mean of y
    assert np.isclose(std[0], np.sqrt(2.0)) and np.isclose(mean[0], y.mean())
    # on the data: below the noise std (each cell averages at least one observation)
    assert std[1] < np.sqrt(0.05)
    np.testing.assert_array_equal(model.predict(X[:5]), model.predict(X[:5], return_std=True)[0])


def test_online_kernel_forest_records_both_fits_and_draws_them():
    X, y = _jumps_stream(90)
    grid = np.linspace(-0.1, 1.1, 50)
    rng_order = np.random.default_rng(0).permutation(len(X))
    stream = online_kernel_forest(X[rng_order], y[rng_order], grid=grid, batch_size=20,
                                  n_trees=4, lifetime=10.0, left_to_right=True,
                                  f=np.zeros(50), random_state=2)
    np.testing.assert_array_equal(stream.n_seen, [20, 40, 60, 80, 90])
    assert np.all(np.diff(stream.X[:, 0]) >= 0)  # sorted: the stream goes left to right
    for name in ("kernel_mean", "kernel_std", "forest_mean", "forest_std"):
        assert getattr(stream, name).shape == (5, 50), name
    assert np.all(np.diff(stream.n_features) >= 0)  # columns are only ever appended
    assert len(stream.kernel.weights_) == stream.n_features[-1]
    fig = online_figs.stream_fits_figure(stream, 2)
    assert len(fig.data) == 10 and min(font_sizes(fig)) >= MIN_FONT
    with pytest.raises(InputError):
        online_kernel_forest(np.c_[X, X], y, grid=grid)


def test_online_page_figures_keep_every_font_readable():
    train, test = two_moons(90, random_state=0), two_moons(40, random_state=1)
    run = online_run(train.X, train.y, "classification", X_test=test.X, y_test=test.y,
                     batch_size=20, n_estimators=3, lifetime=4.0, random_state=0)
    for fig in (figs.tree_partition(run.snapshots[2], train.X[:60], train.y[:60]),
                figs.online_scores(run, 2), figs.operation_counts(run, 2)):
        assert min(font_sizes(fig)) >= MIN_FONT


def _batch_ridge(Phi, y, ratio):
    """The obvious batch solution (Phi^T Phi + ratio I)^{-1} Phi^T y, densely."""
    Phi = Phi.toarray()
    return np.linalg.solve(Phi.T @ Phi + ratio * np.eye(Phi.shape[1]), Phi.T @ y)


def test_stream_cost_check_names_what_to_lower():
    check_stream_cost(210, 20, 10, 3.0, 4.0)  # the page's defaults pass
    with pytest.raises(InputError, match="Lower the lifetime"):
        check_stream_cost(210, 20, 30, 30.0, 4.0)


def test_snapshot_counts_each_operation_of_its_batch():
    from mondrian_core.experiments.online import TreeSnapshot
    from mondrian_core.forest import EXTEND, NO_CHANGE, SPLIT_LEAF

    snap = TreeSnapshot(np.zeros((1, 2, 2)), np.zeros((0, 4)), np.zeros(0, dtype=bool),
                        np.zeros((4, 2)), np.array([NO_CHANGE, EXTEND, EXTEND, SPLIT_LEAF]))
    assert snap.operation_counts() == {"no change": 1, "extend a split's range": 2,
                                       "insert a split above": 0, "split a leaf": 1}


def test_add_distractors_spans_the_real_ranges_and_is_seeded():
    from mondrian_core.experiments.online import add_distractors

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(-1, 1, 400), rng.uniform(10, 14, 400)])
    out = add_distractors(X, 3, random_state=1)
    assert out.shape == (400, 5)
    np.testing.assert_array_equal(out[:, :2], X)
    for j, real in zip(range(2, 5), (0, 1, 0)):     # distractor j spans input j mod D
        lo, hi = X[:, real].min(), X[:, real].max()
        assert lo <= out[:, j].min() and out[:, j].max() <= hi
        # uniform: 400 draws cover all but a few percent of the range at each end
        assert out[:, j].min() < lo + 0.05 * (hi - lo) and out[:, j].max() > hi - 0.05 * (hi - lo)
    np.testing.assert_array_equal(out, add_distractors(X, 3, random_state=1))
    assert add_distractors(X, 0).shape == X.shape
    with pytest.raises(InputError):
        add_distractors(X, -1)


def test_uncertainty_growth_compares_each_far_point_with_its_border_point():
    from mondrian_core.experiments.online import UncertaintyMaps

    g = np.linspace(0.0, 4.0, 41)
    dist = np.maximum(g - 1.0, 0.0)                    # distance right of the box [0, 1]
    flat = np.tile(np.where(g <= 1.0, 1.0, 2.0), (41, 1))   # constant beyond the border
    rising = np.tile(1.0 + dist, (41, 1))              # grows with the distance
    maps = UncertaintyMaps(g, g, {"flat": flat, "rising": rising}, {},
                           np.array([[0.0, 0.0], [1.0, 4.0]]))
    growth = maps.growth()
    assert growth["flat"] == pytest.approx(1.0)
    # far points: x >= 2 (one box side away); their border point is x = 1.1
    assert growth["rising"] == pytest.approx(np.mean(1.0 + dist[g >= 2.0]) / 1.1)
    assert maps.growing() == ["rising"]
