"""Figures of the lifetime posterior: the Mondrian posterior against the exact
Laplace-GP posterior, and how the Mondrian one moves with the number of trees
(Balog et al. 2016, Supplement B). Pure functions returning styled plotly figures.

Densities over the lifetime are drawn per unit ``log(lambda)`` on a log axis: a density
per unit ``lambda`` drawn on a log axis would make mass at large lifetimes look smaller
than it is (the axis stretches small lifetimes).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from mondrian_core.figures._parts import figure_builder, log_x_marker_dicts
from mondrian_core.figures.theme import BLACK, BLUE, GREY, RED, legend_below, styled, styled_layout

__all__ = ["log_bin_edges", "PosteriorView", "posterior_view", "lifetime_posteriors",
           "posterior_vs_trees"]


def log_bin_edges(low, high, n_bins=60):
    """Return edges of bins of equal width in ``log(lambda)``.

    Parameters
    ----------
    low, high : float
        The first and last edge, ``0 < low < high``.
    n_bins : int, default=60
        The number of bins.

    Returns
    -------
    ndarray of shape (n_bins + 1,)
        Geometric edges from ``low`` to ``high``.
    """
    return np.geomspace(float(low), float(high), int(n_bins) + 1)


@dataclass(frozen=True)
class PosteriorView:
    """What :func:`lifetime_posteriors` draws, per unit ``log(lambda)`` on one range.

    Parameters
    ----------
    edges : ndarray
        Log-spaced bin edges covering the view.
    mondrian_mass : ndarray
        The Mondrian posterior's mass in each bin.
    prior_grid, prior_density : ndarray
        The prior, truncated at the terminal lifetime, per unit ``log(lambda)``.
    exact_grid, exact_density : ndarray or None
        The exact posterior per unit ``log(lambda)`` on its own grid.
    shows_terminal : bool
        Whether the view reaches the terminal lifetime.
    """

    edges: np.ndarray
    mondrian_mass: np.ndarray
    prior_grid: np.ndarray
    prior_density: np.ndarray
    exact_grid: np.ndarray | None
    exact_density: np.ndarray | None
    shows_terminal: bool


def posterior_view(mondrian, prior, terminal_lifetime, exact=None, *, lower=None,
                   n_bins=90, n_prior=300) -> PosteriorView:
    """Express both posteriors and the prior per unit ``log(lambda)`` where they have mass.

    The view runs from a quarter of the lower 1e-4 quantile to four times the upper one
    (of either posterior), clipped to ``[lower, terminal_lifetime]``.

    Parameters
    ----------
    mondrian : LifetimePosterior
        The Mondrian posterior (its prior is truncated at ``terminal_lifetime``).
    prior : frozen scipy.stats distribution
        The prior over the lifetime.
    terminal_lifetime : float
        The sweep's terminal lifetime.
    exact : LaplaceLifetimePosterior, optional
        The exact posterior.
    lower : float, optional
        The smallest lifetime to show (e.g. the exact posterior's first grid point).
    n_bins : int, default=90
        Bins for the Mondrian posterior.
    n_prior : int, default=300
        Grid points for the prior.

    Returns
    -------
    PosteriorView
        The arrays to draw.
    """
    posteriors = [mondrian] if exact is None else [mondrian, exact]
    low = min(p.quantile(1e-4) for p in posteriors) / 4
    high = min(terminal_lifetime, max(p.quantile(1 - 1e-4) for p in posteriors) * 4)
    if lower is not None:
        low = max(low, lower)
    edges = log_bin_edges(low, high, n_bins)
    grid = np.geomspace(low, high, n_prior)
    # d/dlog(lambda) = lambda d/dlambda; the prior is truncated at the terminal lifetime
    prior_density = prior.pdf(grid) * grid / prior.cdf(terminal_lifetime)
    return PosteriorView(
        edges=edges, mondrian_mass=np.diff(mondrian.cdf(edges)), prior_grid=grid,
        prior_density=prior_density,
        exact_grid=None if exact is None else exact.lifetimes,
        exact_density=None if exact is None else exact.density * exact.lifetimes,
        shows_terminal=high >= terminal_lifetime / 1.01)


def _interval_bar(interval, mean, y, color, label):
    """A credible interval as a horizontal bar at height ``y``, its mean as a diamond
    (one legend entry for both): a trace dict."""
    return dict(type="scatter", x=[interval[0], mean, interval[1]], y=[y, y, y],
                mode="lines+markers", line=dict(color=color, width=6), name=label,
                legendgroup=label, marker=dict(color=color, size=[0, 13, 0], symbol="diamond"),
                hovertemplate="%{x:.3g}<extra>" + label + "</extra>")


@figure_builder
def lifetime_posteriors(edges, mondrian_mass, prior_grid, prior_density, *, mondrian_mean,
                        mondrian_interval, n_trees, exact_grid=None, exact_density=None,
                        exact_mean=None, exact_interval=None, true_lifetime=None,
                        terminal_lifetime=None, level=0.9, height=500):
    """Plot the Mondrian and the exact posterior over the lifetime, per unit log(lambda).

    The Mondrian posterior is drawn as its mass per log-spaced bin divided by the bin's
    width in ``log(lambda)`` (it jumps at every cut, too often to draw each jump); the
    exact posterior of the Laplace-kernel GP (its ``M -> infinity`` limit) as a smooth
    curve in the same units; the prior dashed. Above the curves, each posterior's
    credible interval is a bar with its mean as a diamond.

    Parameters
    ----------
    edges : ndarray of shape (G + 1,)
        Increasing positive bin edges, geometric (see :func:`log_bin_edges`).
    mondrian_mass : ndarray of shape (G,)
        The Mondrian posterior's probability of each bin.
    prior_grid, prior_density : ndarray
        Lifetimes and the prior's density per unit ``log(lambda)`` there.
    mondrian_mean : float
        The Mondrian posterior's mean.
    mondrian_interval : tuple of float
        Its credible interval.
    n_trees : int
        The number of trees ``M`` (legend text).
    exact_grid, exact_density : ndarray, optional
        Lifetimes and the exact posterior's density per unit ``log(lambda)``.
    exact_mean : float, optional
        The exact posterior's mean.
    exact_interval : tuple of float, optional
        The exact posterior's credible interval.
    true_lifetime : float, optional
        The lifetime the data were drawn with, marked by a dotted line.
    terminal_lifetime : float, optional
        The sweep's terminal lifetime (the Mondrian posterior ends there), marked.
    level : float, default=0.9
        The intervals' probability (label text).
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 3 and Supplement B.
    """
    edges = np.asarray(edges, dtype=float)
    mass = np.asarray(mondrian_mass, dtype=float)
    dens = mass / np.diff(np.log(edges))
    # dicts, validated once in one go.Figure (graph objects validate at every step)
    data = [dict(type="scatter", x=prior_grid, y=prior_density, mode="lines", name="prior",
                 line=dict(color=GREY, width=2, dash="dash")),
            dict(type="scatter", x=edges, y=np.append(dens, dens[-1]), mode="lines",
                 line_shape="hv", fill="tozeroy", fillcolor="rgba(19,86,162,0.25)",
                 name=f"Mondrian (M = {n_trees})", line=dict(color=BLUE, width=2.5))]
    top = float(dens.max()) if dens.size else 1.0
    if exact_grid is not None and exact_density is not None:
        data.append(dict(type="scatter", x=exact_grid, y=exact_density, mode="lines",
                         name="exact Laplace GP (M = \u221e)", line=dict(color=RED, width=3)))
        top = max(top, float(np.max(exact_density)))
    data.append(_interval_bar(mondrian_interval, mondrian_mean, 1.12 * top, BLUE,
                              f"Mondrian {level:.0%}, mean {mondrian_mean:.3g}"))
    if exact_interval is not None and exact_mean is not None:
        data.append(_interval_bar(exact_interval, exact_mean, 1.26 * top, RED,
                                  f"exact {level:.0%}, mean {exact_mean:.3g}"))
    markers = []
    if true_lifetime is not None:
        markers.append(log_x_marker_dicts(true_lifetime, f"true \u03bb* = {true_lifetime:g} ",
                                          dash="dot", width=2, size=13, xanchor="right"))
    x_hi = float(edges[-1])
    if terminal_lifetime is not None:
        x_hi = max(x_hi, 1.3 * terminal_lifetime)  # the end of the sweep in view
        markers.append(log_x_marker_dicts(
            terminal_lifetime, f"\u039b = {terminal_lifetime:.3g} (end) ", color=GREY,
            dash="dashdot", width=2, size=13, xanchor="right"))
    layout = styled_layout(dict(
        xaxis=dict(type="log", title=dict(text="lifetime \u03bb (log scale)"),
                   range=[float(np.log10(edges[0])), float(np.log10(x_hi))]),
        yaxis=dict(title=dict(text="density per unit log \u03bb"), rangemode="tozero",
                   range=[0, 1.38 * top])),
        title="Posterior over the lifetime \u03bb: Mondrian vs exact", height=height)
    if markers:
        layout["shapes"] = [m[0] for m in markers]
        layout["annotations"] = [m[1] for m in markers]
    return legend_below(go.Figure(data=data, layout=layout), gap=95, legend_height=50)


@figure_builder
def posterior_vs_trees(n_trees, means, intervals, *, exact_mean=None, exact_interval=None,
                       true_lifetime=None, level=0.9, height=330):
    """Plot the Mondrian posterior's mean and credible interval against the number of trees.

    The exact Laplace-GP posterior (``M -> infinity``) is a shaded band with its mean;
    the finite-``M`` bias shows as the Mondrian posterior coming down to that band.

    Parameters
    ----------
    n_trees : sequence of int
        The numbers of trees ``M``, increasing.
    means : sequence of float
        The Mondrian posterior mean at each ``M``.
    intervals : sequence of tuple of float
        The credible interval at each ``M``.
    exact_mean : float, optional
        The exact posterior's mean (a solid line).
    exact_interval : tuple of float, optional
        The exact posterior's interval (a band).
    true_lifetime : float, optional
        The lifetime the data were drawn with (a dotted line).
    level : float, default=0.9
        The intervals' probability (legend text).
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 3 (the Mondrian kernel converges to the Laplace kernel as M grows).
    """
    m = np.asarray(n_trees, dtype=float)
    means = np.asarray(means, dtype=float)
    iv = np.asarray(intervals, dtype=float).reshape(-1, 2)
    fig = go.Figure()
    if exact_interval is not None:
        fig.add_hrect(y0=exact_interval[0], y1=exact_interval[1], fillcolor=RED, opacity=0.15,
                      line_width=0)
    if exact_mean is not None:
        fig.add_scatter(x=[m[0] / 1.5, m[-1] * 1.5], y=[exact_mean, exact_mean], mode="lines",
                        line=dict(color=RED, width=2.5),
                        name=f"exact posterior mean, {level:.0%} band (M = \u221e)")
    if true_lifetime is not None:
        fig.add_scatter(x=[m[0] / 1.5, m[-1] * 1.5], y=[true_lifetime, true_lifetime],
                        mode="lines", line=dict(color=BLACK, width=2, dash="dot"),
                        name=f"true \u03bb* = {true_lifetime:g}")
    fig.add_scatter(x=m, y=means, mode="lines+markers", name=f"Mondrian mean and {level:.0%} interval",
                    line=dict(color=BLUE, width=2.5), marker=dict(color=BLUE, size=10),
                    error_y=dict(type="data", symmetric=False, array=iv[:, 1] - means,
                                 arrayminus=means - iv[:, 0], color=BLUE, thickness=2, width=6))
    fig.update_xaxes(type="log", title="Mondrian trees M (log scale)",
                     tickvals=m, ticktext=[f"{int(v)}" for v in m])
    fig.update_yaxes(type="log", title="lifetime \u03bb (log scale)")
    fig.update_layout(legend=dict(x=0.99, y=0.98, xanchor="right", yanchor="top"))
    return styled(fig, title="The finite-M bias: posterior mean against M", height=height)
