"""The lifetime pages' charts with their markers drawn as plain shapes are the charts that
``add_vline`` drew (the same spec, key for key); the two built as dicts and validated once
are the charts built trace by trace through graph objects."""
from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from scipy import stats

from mondrian_core import lifetime_path, lifetime_posterior
from mondrian_core.figures import _parts, posterior, sweep
from mondrian_core.figures._parts import BLACK
from mondrian_core.figures.theme import BLUE, GREY, RED, legend_below, styled


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
    return [
        sweep.rmse_vs_lifetime(path, lifetime=3.0, true_lifetime=5.0),
        sweep.n_features_vs_lifetime(path, lifetime=3.0),
        sweep.lifetime_density(grid, 1 / grid, np.exp(-grid) / grid, mean=post.mean,
                               map_=post.map, interval=(1.0, 4.0), true_lifetime=5.0),
    ]


def test_markers_as_shapes_are_the_vline_charts(path, monkeypatch):
    fast = [fig.to_json() for fig in _charts(path)]
    for module in (_parts, sweep):
        monkeypatch.setattr(module, "log_x_marker", _vline_marker)
    slow = [fig.to_json() for fig in _charts(path)]
    assert all('"yref":"y domain"' in f for f in fast)
    assert fast == slow


def _lml_by_graph_objects(path, true_lifetime=None, height=360):
    """``log_marginal_likelihood_vs_lifetime`` built trace by trace (the slow way)."""
    t = sweep._positive_times(path)
    fig = go.Figure()
    fig.add_scatter(x=t, y=sweep._steps(path, path.log_marginal_likelihood), mode="lines",
                    line_shape="hv", name="log marginal likelihood",
                    line=dict(color=BLUE, width=2), showlegend=False)
    best = int(np.argmax(path.log_marginal_likelihood))
    fig.add_scatter(x=[max(path.lifetimes[best], t[0])], y=[path.log_marginal_likelihood[best]],
                    mode="markers", marker=dict(color=BLUE, size=11, symbol="star"),
                    name=f"maximum at {path.lifetimes[best]:.3g}", showlegend=True)
    if true_lifetime is not None:
        _vline_marker(fig, true_lifetime, f"true {true_lifetime:g}", color=GREY, dash="dot")
    fig.update_xaxes(type="log", range=sweep._log_range(path), title="lifetime \u03bb (log scale)")
    fig.update_yaxes(title="log p(y | X, \u03bb)  (nats)")
    fig.update_layout(legend=dict(x=0.99, y=0.02, xanchor="right", yanchor="bottom"))
    return styled(fig, title="Log marginal likelihood at every cut", height=height)


def _bar(fig, interval, mean, y, color, label):
    fig.add_scatter(x=[interval[0], mean, interval[1]], y=[y, y, y], mode="lines+markers",
                    line=dict(color=color, width=6), name=label, legendgroup=label,
                    marker=dict(color=color, size=[0, 13, 0], symbol="diamond"),
                    hovertemplate="%{x:.3g}<extra>" + label + "</extra>")


def _posteriors_by_graph_objects(edges, mass, prior_grid, prior_density, *, mondrian_mean,
                                 mondrian_interval, n_trees, exact_grid=None,
                                 exact_density=None, exact_mean=None, exact_interval=None,
                                 true_lifetime=None, terminal_lifetime=None, level=0.9,
                                 height=500):
    """``lifetime_posteriors`` built trace by trace (the slow way)."""
    dens = mass / np.diff(np.log(edges))
    fig = go.Figure()
    fig.add_scatter(x=prior_grid, y=prior_density, mode="lines", name="prior",
                    line=dict(color=GREY, width=2, dash="dash"))
    fig.add_scatter(x=edges, y=np.append(dens, dens[-1]), mode="lines", line_shape="hv",
                    fill="tozeroy", fillcolor="rgba(19,86,162,0.25)",
                    name=f"Mondrian (M = {n_trees})", line=dict(color=BLUE, width=2.5))
    top = float(dens.max())
    if exact_grid is not None:
        fig.add_scatter(x=exact_grid, y=exact_density, mode="lines",
                        name="exact Laplace GP (M = \u221e)", line=dict(color=RED, width=3))
        top = max(top, float(np.max(exact_density)))
    _bar(fig, mondrian_interval, mondrian_mean, 1.12 * top, BLUE,
         f"Mondrian {level:.0%}, mean {mondrian_mean:.3g}")
    if exact_interval is not None:
        _bar(fig, exact_interval, exact_mean, 1.26 * top, RED,
             f"exact {level:.0%}, mean {exact_mean:.3g}")
    if true_lifetime is not None:
        _vline_marker(fig, true_lifetime, f"true \u03bb* = {true_lifetime:g} ", dash="dot",
                      width=2, size=13, xanchor="right")
    x_hi = float(edges[-1])
    if terminal_lifetime is not None:
        x_hi = max(x_hi, 1.3 * terminal_lifetime)
        _vline_marker(fig, terminal_lifetime, f"\u039b = {terminal_lifetime:.3g} (end) ",
                      color=GREY, dash="dashdot", width=2, size=13, xanchor="right")
    fig.update_xaxes(type="log", title="lifetime \u03bb (log scale)",
                     range=[float(np.log10(edges[0])), float(np.log10(x_hi))])
    fig.update_yaxes(title="density per unit log \u03bb", rangemode="tozero",
                     range=[0, 1.38 * top])
    styled(fig, title="Posterior over the lifetime \u03bb: Mondrian vs exact", height=height)
    return legend_below(fig, gap=95, legend_height=50)


def _spec(fig):
    return json.loads(fig.to_json())


@pytest.mark.parametrize("true_lifetime", [5.0, None])
def test_evidence_chart_as_dicts_is_the_graph_object_chart(path, true_lifetime):
    fast = sweep.log_marginal_likelihood_vs_lifetime(path, true_lifetime=true_lifetime)
    assert _spec(fast) == _spec(_lml_by_graph_objects(path, true_lifetime=true_lifetime))


@pytest.mark.parametrize("with_exact", [True, False])
def test_posterior_chart_as_dicts_is_the_graph_object_chart(with_exact):
    rng = np.random.default_rng(3)
    grid = np.geomspace(0.02, 20.0, 50)
    edges = np.geomspace(0.02, 20.0, 21)
    mass = rng.dirichlet(np.ones(20))
    kw = dict(mondrian_mean=3.0, mondrian_interval=(1.0, 8.0), n_trees=5, level=0.8)
    if with_exact:
        kw.update(exact_grid=grid, exact_density=rng.uniform(size=50), exact_mean=2.5,
                  exact_interval=(1.2, 6.0), true_lifetime=5.0, terminal_lifetime=20.0)
    args = (edges, mass, grid, 1 / grid)
    fast = posterior.lifetime_posteriors(*args, **kw)
    slow = _posteriors_by_graph_objects(*args, **kw)
    assert len(fast.data) == (5 if with_exact else 3)
    assert _spec(fast) == _spec(slow)
