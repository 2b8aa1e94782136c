"""forests_at_point (the cells' members found once) against forest_at_point per weighting."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mondrian_core.forest.debiased import (
    debias_weights,
    default_lifetime_ratios,
    forest_at_point,
    forests_at_point,
    sample_cells_at,
)


@pytest.mark.parametrize("d, n, lifetime", [(1, 300, 7.0), (2, 150, 30.0), (1, 40, 60.0)])
def test_forests_at_point_same_as_one_call_each(d, n, lifetime):
    rng = np.random.default_rng(d * n)
    X, y = rng.uniform(size=(n, d)), rng.normal(size=n)
    x = np.full(d, 0.5)
    ratios = default_lifetime_ratios(2)
    cells = [sample_cells_at(x, lifetime * a, 20, rng) for a in ratios]
    omegas = [[1.0], debias_weights(ratios[:2]), debias_weights(ratios)]
    got = forests_at_point(X, y, cells, omegas, level=0.9)
    for omega, answer in zip(omegas, got):
        want = forest_at_point(X, y, cells[:len(omega)], omega, level=0.9)
        for field in dataclasses.fields(want):
            np.testing.assert_array_equal(getattr(answer, field.name),
                                          getattr(want, field.name), err_msg=field.name)
    # at lifetime 60 on 40 points some cells are empty: the path with empty cells ran
    assert d != 1 or n != 40 or got[0].empty_rate > 0
