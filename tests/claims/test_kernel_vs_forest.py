"""The "Kernel vs forest" page's claims hold at its defaults (Balog et al. 2016, sec. 8.3).

Same data, split, seed and settings as the page (``explorer_ui/defaults_kernel_vs_forest.py``),
computed with ``mondrian_core`` directly.
"""
from __future__ import annotations

import numpy as np
import pytest

from explorer_ui import defaults_kernel_vs_forest as D
from mondrian_core import datasets
from mondrian_core.experiments.kernel_vs_forest import (
    kernel_forest_weights,
    kernel_vs_forest_path,
    lifetime_grid,
)


@pytest.fixture(scope="module")
def split():
    # what the page's data picker gives for a bundled set: features and target standardised
    data = datasets.load_bundled(D.DATA, standardize=True).standardize(target=True)
    return datasets.train_val_test_split(data, (D.TRAIN_FRACTION, 1 - D.TRAIN_FRACTION),
                                         random_state=D.SEED)


@pytest.fixture(scope="module")
def path(split):
    train, test = split
    return kernel_vs_forest_path(train.X, train.y, test.X, test.y,
                                 lifetime_grid(D.LARGEST_LIFETIME, D.N_LIFETIMES),
                                 n_trees=D.N_TREES, noise_variance=D.NOISE_VARIANCE,
                                 prior_variance=1.0, random_state=D.SEED)


def test_kernel_is_never_worse_than_the_forest_on_the_curve(path):
    # When every training point has its own cell in every tree the two fits are the same
    # ridge solution (equal up to rounding, hence the 1e-9); at the largest lifetimes
    # almost all points do.
    assert np.all(path.kernel_wins), (
        path.kernel_test_rmse - path.forest_test_rmse)


def test_kernel_reaches_a_lower_best_error_at_a_smaller_lifetime(path):
    best_k, best_f = path.best_kernel_index, path.best_forest_index
    assert path.kernel_test_rmse[best_k] < path.forest_test_rmse[best_f]
    assert path.lifetimes[best_k] < path.lifetimes[best_f]


def test_the_two_fits_meet_at_the_largest_lifetime(path):
    """The tour says the curves coincide at the end: almost every training point has a
    cell of its own there, so the gap is a small fraction of the largest one (the two
    fits are identical only when every point is alone in every tree)."""
    gap = np.abs(path.kernel_test_rmse - path.forest_test_rmse)
    assert gap[-1] < 0.01 * gap.max(), gap


def test_kernel_weights_spread_wider_at_its_best_lifetime(split, path):
    """The predict-then-reveal answer at the default weights' lifetime (the kernel's best)."""
    train, test = split
    lam = float(f"{path.lifetimes[path.best_kernel_index]:.4g}")  # as the page
    w = kernel_forest_weights(train.X, train.y, test.X, test.y, lam, n_trees=D.N_TREES,
                              noise_variance=D.NOISE_VARIANCE, prior_variance=1.0,
                              random_state=D.SEED, terminal_lifetime=D.LARGEST_LIFETIME)
    assert np.std(w.kernel_weights) > np.std(w.forest_weights)
    # one tree of the kernel alone fits the training data worse than one tree of the forest
    assert w.kernel_train_losses[1] > w.forest_train_losses[1]
    # ... while the kernel's average prediction fits them better
    assert w.kernel_train_losses[0] < w.forest_train_losses[0]
