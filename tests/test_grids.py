"""Evaluation grids: a heat map of values at ``plane_grid``'s points, reshaped, is
indexed [y, x]; ``padded_box`` widens the data's box on every side."""
import numpy as np

from mondrian_core.experiments.grids import line_grid, padded_box, plane_grid


def test_plane_grid_reshapes_to_rows_of_y():
    gx, gy, points = plane_grid([0.0, 10.0], [1.0, 12.0], 5)
    assert points.shape == (25, 2)
    Z = (points[:, 0] + 100 * points[:, 1]).reshape(5, 5)
    for i in range(5):
        for j in range(5):
            assert Z[i, j] == gx[j] + 100 * gy[i]
    np.testing.assert_array_equal(gx, np.linspace(0, 1, 5))
    np.testing.assert_array_equal(gy, np.linspace(10, 12, 5))


def test_padded_box_adds_a_fraction_of_each_side():
    X = np.array([[0.0, 5.0], [2.0, 6.0], [1.0, 5.5]])
    lo, hi = padded_box(X, fraction=0.1)
    np.testing.assert_allclose(lo, [-0.2, 4.9])
    np.testing.assert_allclose(hi, [2.2, 6.1])


def test_line_grid_is_a_column_of_evenly_spaced_inputs():
    grid = line_grid(-0.4, 4.4, 241)
    assert grid.shape == (241, 1)
    np.testing.assert_array_equal(grid.ravel(), np.linspace(-0.4, 4.4, 241))
