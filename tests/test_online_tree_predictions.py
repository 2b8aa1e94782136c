"""The uncertainty maps' per-tree predictions of the scikit-learn forests against each
tree's own (checked) ``predict``: the same numbers."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor

from mondrian_core._forest_fit import fit_forest
from mondrian_core.experiments.grids import plane_grid
from mondrian_core.experiments.online import _tree_predictions


@pytest.mark.parametrize("kind", [RandomForestRegressor, ExtraTreesRegressor])
def test_tree_predictions_are_each_trees_predict(kind):
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, (120, 2))
    y = np.sin(3 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=120)
    forest = fit_forest(kind(n_estimators=5, random_state=3), X, y)
    G = plane_grid([-2.0, -2.0], [2.0, 2.0], 30)[2]  # beyond the data too
    expected = np.stack([tree.predict(G) for tree in forest.estimators_])
    np.testing.assert_array_equal(_tree_predictions(forest, G), expected, strict=True)
