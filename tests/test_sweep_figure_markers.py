"""The lifetime pages' charts with their markers drawn as plain shapes are the charts that
``add_vline`` drew (the same spec, key for key)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mondrian_core import lifetime_path, lifetime_posterior
from mondrian_core.figures import _parts, posterior, sweep
from mondrian_core.figures._parts import BLACK


def _vline_marker(fig, x, label, *, color=BLACK, dash="dash", width=1.5, size=12, y=1.0,
                  yanchor="bottom", xanchor="center"):
    """The marker as it was drawn before: Plotly's ``add_vline``."""
    fig.add_vline(x=x, line=dict(color=color, dash=dash, width=width))
    fig.add_annotation(x=float(np.log10(x)), xref="x", y=y, yref="paper", text=label,
                       showarrow=False, yanchor=yanchor, xanchor=xanchor,
                       font=dict(color=color, size=size))


@pytest.fixture(scope="module")
def path():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 1))
    y = np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(40)
    return lifetime_path(X[:30], y[:30], X[30:], y[30:], terminal_lifetime=20.0, n_trees=5,
                         noise_variance=0.01, random_state=1)


def _charts(path):
    post = lifetime_posterior(path, stats.loguniform(0.02, 20.0))
    grid = np.geomspace(0.02, 20.0, 50)
    edges = np.geomspace(0.02, 20.0, 21)
    return [
        sweep.rmse_vs_lifetime(path, lifetime=3.0, true_lifetime=5.0),
        sweep.n_features_vs_lifetime(path, lifetime=3.0),
        sweep.log_marginal_likelihood_vs_lifetime(path, true_lifetime=5.0),
        sweep.lifetime_density(grid, 1 / grid, np.exp(-grid) / grid, mean=post.mean,
                               map_=post.map, interval=(1.0, 4.0), true_lifetime=5.0),
        posterior.lifetime_posteriors(edges, np.full(20, 0.05), grid, np.ones(50),
                                      mondrian_mean=3.0, mondrian_interval=(1.0, 8.0),
                                      n_trees=5, exact_grid=grid, exact_density=np.ones(50),
                                      exact_mean=2.5, exact_interval=(1.2, 6.0),
                                      true_lifetime=5.0, terminal_lifetime=20.0),
    ]


def test_markers_as_shapes_are_the_vline_charts(path, monkeypatch):
    fast = [fig.to_json() for fig in _charts(path)]
    for module in (_parts, sweep, posterior):
        monkeypatch.setattr(module, "log_x_marker", _vline_marker)
    slow = [fig.to_json() for fig in _charts(path)]
    assert all('"yref":"y domain"' in f for f in fast)
    assert fast == slow
