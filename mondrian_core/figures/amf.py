"""Figures for the aggregated Mondrian forest page (pure functions of an
:class:`~mondrian_core.experiments.amf.AMFSignalRun`)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from mondrian_core.figures._parts import figure_builder, polyline, subplots
from mondrian_core.figures.theme import (
    BLACK,
    BLUE,
    GREY,
    LIGHT_GREY,
    RED,
    SEQUENTIAL,
    SERIES,
    legend_below,
    styled,
)

AMF_COLOUR = RED
#: Colours of the fixed-lifetime forests (too small, too large).
FIXED_COLOURS = (SERIES[2], SERIES[4])


@figure_builder
def weighted_depth_figure(run, *, height=520) -> go.Figure:
    """Draw the stream and AMF's fit above the weighted and the leaf depth along x.

    Two rows share the x axis: the data, signal and fit above, the depths below.

    Parameters
    ----------
    run : AMFSignalRun
        The run.
    %(builder)s

    References
    ----------
    Mourtada, Gaïffas and Scornet (2021), "AMF: Aggregated Mondrian forests for online
    learning", JRSS-B 83(3), sections 2-3.
    """
    fig = subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.06,
                        row_heights=[0.55, 0.45])
    fig.add_trace(go.Scatter(x=run.X[:, 0], y=run.y, mode="markers", name="stream",
                             marker=dict(color=GREY, size=4, opacity=0.5)), row=1, col=1)
    fig.add_trace(go.Scatter(x=run.grid, y=run.truth, mode="lines", name="signal",
                             line=dict(color=BLACK, dash="dash", width=1.5)), row=1, col=1)
    fig.add_trace(go.Scatter(x=run.grid, y=run.amf, mode="lines", name="AMF",
                             line=dict(color=AMF_COLOUR, width=2.5)), row=1, col=1)
    fig.add_trace(go.Scatter(x=run.grid, y=run.leaf_depth, mode="lines",
                             name="the trees' own leaf depth",
                             line=dict(color=GREY, width=1.5, dash="dot")), row=2, col=1)
    fig.add_trace(go.Scatter(x=run.grid, y=run.depth, mode="lines",
                             name="weighted depth", line=dict(color=BLUE, width=2.5),
                             fill="tozeroy", fillcolor="rgba(19, 86, 162, 0.15)"),
                  row=2, col=1)
    fig.update_yaxes(title_text="y", row=1, col=1)
    fig.update_yaxes(title_text="weighted depth", rangemode="tozero", row=2, col=1)
    fig.update_xaxes(title_text="x", row=2, col=1)
    styled(fig, height=height)
    return legend_below(fig, gap=95)


@figure_builder
def fits_figure(run, *, height=400) -> go.Figure:
    """Draw AMF's fit against the fixed-lifetime forests', with their errors to the signal.

    The fits are drawn on the grid; the legend names carry each one's mean squared
    error to the signal.

    Parameters
    ----------
    run : AMFSignalRun
        The run.
    %(builder)s

    References
    ----------
    Mourtada, Gaïffas and Scornet (2021), "AMF: Aggregated Mondrian forests for online
    learning", JRSS-B 83(3), sections 2-3.
    """
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=run.grid, y=run.truth, mode="lines", name="signal",
                             line=dict(color=BLACK, dash="dash", width=1.5)))
    for (lam, fit), colour in zip(run.fixed.items(), FIXED_COLOURS, strict=False):
        fig.add_trace(go.Scatter(x=run.grid, y=fit, mode="lines",
                                 name=f"lifetime {lam:g}: MSE {run.mse(fit):.3f}",
                                 line=dict(color=colour, width=1.8)))
    fig.add_trace(go.Scatter(x=run.grid, y=run.amf, mode="lines",
                             name=f"AMF: MSE {run.mse(run.amf):.3f}",
                             line=dict(color=AMF_COLOUR, width=2.5)))
    fig.update_layout(xaxis_title="x", yaxis_title="fit")
    styled(fig, height=height)
    return legend_below(fig, gap=95)


@figure_builder
def tree_weights_figure(tree, *, max_depth=14, height=460) -> go.Figure:
    """Draw one tree, its nodes shaded by the posterior that the pruning stops there.

    Each node sits at (centre of its box in x, depth); edges in grey, markers coloured
    (white -> blue -> black) by the posterior.

    Parameters
    ----------
    tree : dict
        :meth:`~mondrian_core.AMFRegressor.tree_weights` of a 1-D tree.
    max_depth : int, default=14
        Deepest level drawn.
    %(builder)s

    References
    ----------
    Mourtada, Gaïffas and Scornet (2021), "AMF: Aggregated Mondrian forests for online
    learning", JRSS-B 83(3), sections 2-3.
    """
    ids, depth = tree["ids"], tree["depth"]
    centre = 0.5 * (tree["lower"][:, 0] + tree["upper"][:, 0])
    keep = depth <= max_depth
    where = {int(i): k for k, i in enumerate(ids)}
    child = np.flatnonzero(keep & (tree["parent"] >= 0))
    parent = np.array([where[int(tree["parent"][k])] for k in child], dtype=int)
    ex, ey = polyline(centre[parent], depth[parent], centre[child], depth[child])
    post = tree["posterior"]
    fig = go.Figure()
    # named, so the chart's text description reads "parent to child: ... line pieces"
    fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", name="parent to child",
                             line=dict(color=LIGHT_GREY, width=1), hoverinfo="skip",
                             showlegend=False))
    order = np.argsort(post[keep])  # heavy nodes drawn last, on top
    fig.add_trace(go.Scatter(
        x=centre[keep][order], y=depth[keep][order], mode="markers", name="nodes",
        showlegend=False,
        marker=dict(color=post[keep][order], colorscale=SEQUENTIAL, cmin=0,
                    cmax=max(float(post.max()), 1e-12), size=7,
                    line=dict(color=GREY, width=0.5),
                    colorbar=dict(title=dict(text="posterior<br>weight", side="right"))),
        customdata=np.column_stack([tree["count"][keep][order], post[keep][order]]),
        hovertemplate="x %{x:.3f}, depth %{y}<br>%{customdata[0]:.0f} points<br>"
                      "posterior %{customdata[1]:.3f}<extra></extra>"))
    fig.update_layout(xaxis_title="x (centre of the node's box)", yaxis_title="depth")
    fig.update_yaxes(autorange="reversed")
    return styled(fig, height=height)


@figure_builder
def regret_figure(run, *, height=400) -> go.Figure:
    """Draw one tree's cumulative loss against the best pruning in hindsight's.

    Both cumulative losses are drawn against the number of points seen.

    Parameters
    ----------
    run : AMFSignalRun
        The run.
    %(builder)s

    References
    ----------
    Mourtada, Gaïffas and Scornet (2021), "AMF: Aggregated Mondrian forests for online
    learning", JRSS-B 83(3), sections 2-3.
    """
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=run.t, y=run.best_loss, mode="lines",
                             name="best pruning in hindsight + log 2 per choice",
                             line=dict(color=BLUE, width=2, dash="dash")))
    fig.add_trace(go.Scatter(x=run.t, y=run.amf_loss, mode="lines",
                             name="AMF (one tree), predicting each point first",
                             line=dict(color=AMF_COLOUR, width=2.5)))
    fig.update_layout(xaxis_title="points seen", yaxis_title="cumulative loss (ŷ − y)² / 2")
    styled(fig, height=height)
    return legend_below(fig, gap=95)
