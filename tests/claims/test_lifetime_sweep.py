"""The Lifetime sweep page's claims, checked with mondrian_core at the page's defaults
(explorer_ui/defaults_lifetime_sweep.py; the page's docstring states them)."""
import numpy as np
import pytest

from explorer_ui.defaults_lifetime_sweep import FIGURE8, N_TREES, TRUE_LIFETIME
from mondrian_core.experiments.width_search import figure8_at_scale
from tests.support import lifetime_sweep_default_path as default_path


@pytest.fixture(scope="module")
def path():
    return default_path()


def test_train_error_falls_and_validation_error_is_u_shaped(path):
    best = path.best_index
    assert 0 < best < path.lifetimes.size - 1  # the minimum is inside the swept range
    # underfitting at small lifetimes, overfitting at the terminal one: both ends are worse
    # than the minimum by more than the noise of a 100-point validation RMSE can explain
    # for a fixed model (its relative standard error ~ 1/sqrt(2 * 100) = 7%) at the small
    # end; at the large end the rise is smaller, so only a strict rise is claimed
    assert path.val_rmse[0] > 1.07 * path.val_rmse[best]
    assert path.val_rmse[-1] > path.val_rmse[best]
    # train error at the terminal lifetime is far below its value with one cell per tree
    assert path.train_rmse[-1] < 0.5 * path.train_rmse[0]
    assert path.train_rmse[-1] < path.train_rmse[best] < path.train_rmse[0]


def test_best_lifetime_within_an_order_of_magnitude_of_the_truth(path):
    # the paper's Figure 7: the sweep recovers the lifetime the data were drawn with
    # "within an order of magnitude"
    assert abs(np.log10(path.best_lifetime / TRUE_LIFETIME)) < 1


def test_every_cut_adds_one_feature(path):
    k = np.arange(path.lifetimes.size)
    assert np.array_equal(path.n_features, N_TREES + k)


def test_figure8_sweep_finds_its_best_with_fewer_fits_than_the_retrained_searches():
    """Work counted, not timed (wall-clock ratios: bench/figure8_scale.py): the sweep's
    best validation error is known after its one pass; random binning needs more than
    one fit to reach it and random Fourier features never do in their search."""
    result = figure8_at_scale(**FIGURE8)
    sweep, fourier, binning = result.traces
    target = float(np.min(sweep.val_rmse))
    assert sweep.fits_to_reach(target) == 1
    assert fourier.fits_to_reach(target) > 1
    assert binning.fits_to_reach(target) > 1
    # the searches did run their whole budget (the count is not a search cut short)
    assert fourier.lifetimes.size == binning.lifetimes.size == FIGURE8["max_evals"]
