"""Figures of the "Partition-kernel GPs" page (Davies and Ghahramani 2014, Figures 1-4).

Pure functions: arrays / dicts in, styled plotly figures out.
"""
from __future__ import annotations

import textwrap

import numpy as np
import plotly.graph_objects as go

from mondrian_core.figures._parts import (
    axis_key,
    band_dict,
    figure_builder,
    subplots,
    subplots_layout,
    validated_once,
)
from mondrian_core.figures.theme import (
    BLACK,
    BLUE,
    GREY,
    RED,
    SEQUENTIAL,
    SERIES,
    TEMPLATE,
    legend_below,
    styled,
)

__all__ = ["posterior_panels_figure", "kernel_heatmaps_figure", "cg_convergence_figure",
           "comparison_figure", "kernel_pca_figure", "partition_count_figure"]

_BAND = "rgba(19, 86, 162, 0.18)"
_SAMPLE_COLOURS = [RED, "#E0A800", "#2A9D8F", "#7B3294", GREY]


@validated_once
def posterior_panels_figure(panels: dict, X, y, grid, *, truth=None, x_label="x",
                            y_label="y", height=420) -> go.Figure:
    """Draw one panel per kernel: posterior mean, 2-sigma band of f, samples and data.

    Parameters
    ----------
    panels : dict
        Kernel name -> a dict with ``mean``, ``std``, ``samples`` (G, k) and
        ``label`` (from :func:`~mondrian_core.experiments.gp_experiments.posterior_curves`).
    X, y : array-like of shape (N,) and (N,)
        The 1-D data.
    grid : array-like of shape (G,) or (G, 1)
        Where the posteriors are evaluated.
    truth : array-like of shape (G,), optional
        The noise-free function on ``grid``.
    x_label, y_label : str, default="x" and "y"
        Axis titles.
    height : int, default=420
        The height of each row of panels in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        The styled figure.

    References
    ----------
    Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for big
    data from random partitions", Figure 1.
    """
    names = list(panels)
    n = len(names)
    cols = min(n, 2)
    rows = int(np.ceil(n / cols))
    # titles on up to two lines, so neighbouring panels' titles never run into each other
    # (a panel is about 220 px wide at 1024 px, and projector mode makes the text bigger)
    titles = ["<br>".join(textwrap.wrap(panels[k]["label"], 24, break_long_words=False))
              for k in names]
    layout, cells = subplots_layout(rows=rows, cols=cols, shared_yaxes=True,
                                    horizontal_spacing=0.04, vertical_spacing=0.17,
                                    subplot_titles=titles)
    g = np.asarray(grid).ravel()
    x = np.asarray(X).ravel()
    # the whole figure as dicts, validated once: built through graph objects (a go.Scatter
    # per trace, then add_traces, update_xaxes, update_annotations, the template) every
    # step validates again, most of the figure's time
    traces = []
    for i, name in enumerate(names):
        p = panels[name]
        r, c = i // cols + 1, i % cols + 1
        axes = cells[r - 1][c - 1]
        lo, hi = p["mean"] - 2 * p["std"], p["mean"] + 2 * p["std"]
        first = i == 0
        panel = [band_dict(g, lo, hi, _BAND, name="mean \u00b1 2 sd of f", legendgroup="band",
                           showlegend=first)]
        panel += [dict(type="scatter", x=g, y=p["samples"][:, j], mode="lines",
                       line=dict(width=1.0, color=_SAMPLE_COLOURS[j % 5]),
                       name="posterior samples", legendgroup="samples",
                       showlegend=first and j == 0, opacity=0.7)
                  for j in range(p["samples"].shape[1])]
        if truth is not None:
            panel.append(dict(type="scatter", x=g, y=truth, mode="lines", name="true function",
                              line=dict(color=GREY, dash="dot", width=1.5),
                              legendgroup="truth", showlegend=first))
        panel.append(dict(type="scatter", x=g, y=p["mean"], mode="lines",
                          line=dict(color=BLUE, width=2.5), name="posterior mean",
                          legendgroup="mean", showlegend=first))
        panel.append(dict(type="scatter", x=x, y=y, mode="markers", name="data",
                          marker=dict(color=BLACK, size=4), legendgroup="data",
                          showlegend=first))
        traces += [{**t, **axes} for t in panel]
        if r == rows:
            layout[axis_key(axes["xaxis"])]["title"] = dict(text=x_label)
        if c == 1:
            layout[axis_key(axes["yaxis"])]["title"] = dict(text=y_label)
    _titles_and_theme(layout, height * rows)
    layout.setdefault("margin", {}).update(t=60, r=45)
    fig = go.Figure(data=traces, layout=layout)
    return legend_below(fig, gap=90)  # clear of the x titles, also at projector sizes


def _titles_and_theme(layout: dict, height: int) -> dict:
    """The panel titles at 13 px, 8 px above their panels, and the theme (``styled``)."""
    for a in layout.get("annotations", ()):
        a.setdefault("font", {})["size"] = 13
        a["yshift"] = 8
    layout.update(template=TEMPLATE, height=height)
    return layout


@validated_once
@figure_builder
def kernel_heatmaps_figure(matrices: dict, *, axis_label="points, sorted by x",
                           height=380) -> go.Figure:
    """Draw kernel matrices side by side as heat maps (values in [0, 1]).

    Parameters
    ----------
    matrices : dict of str to ndarray
        Panel title -> an (n, n) kernel matrix.
    axis_label : str, default="points, sorted by x"
        The x-axis title.
    %(builder)s
    """
    names = list(matrices)
    layout, cells = subplots_layout(rows=1, cols=len(names), subplot_titles=names,
                                    horizontal_spacing=0.09)
    # float32: half the bytes sent to the browser (N^2 values per matrix); the values
    # are shown to two decimals. Dicts validated once (see posterior_panels_figure).
    traces = []
    for i, name in enumerate(names):
        axes = cells[0][i]
        traces.append(dict(type="heatmap", z=np.asarray(matrices[name], dtype=np.float32),
                           zmin=0, zmax=1, colorscale=SEQUENTIAL,
                           showscale=i == len(names) - 1,
                           colorbar=dict(title="k(x, x')", len=0.9),
                           hovertemplate="i=%{y}, j=%{x}: k=%{z:.2f}<extra></extra>", **axes))
        layout[axis_key(axes["yaxis"])].update(autorange="reversed", showgrid=False,
                                                scaleanchor=f"x{i + 1 if i else ''}")
        layout[axis_key(axes["xaxis"])].update(title=dict(text=axis_label), showgrid=False)
    return go.Figure(data=traces, layout=_titles_and_theme(layout, height))


@figure_builder
def cg_convergence_figure(histories: dict, *, tol=None, height=360) -> go.Figure:
    """Plot the relative residual ``||y - A x_k|| / ||y||`` against CG iteration.

    Parameters
    ----------
    histories : dict of str to ndarray
        Curve name -> residuals (from
        :func:`~mondrian_core.experiments.gp_experiments.cg_histories`).
    tol : float, optional
        CG's tolerance, drawn as a dashed line.
    %(builder)s

    References
    ----------
    Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for big
    data from random partitions", sec. 3.3.
    """
    fig = go.Figure()
    dashes = {"no preconditioner": "dot"}
    for i, (name, hist) in enumerate(histories.items()):
        fig.add_trace(go.Scatter(x=np.arange(len(hist)), y=np.maximum(hist, 1e-16),
                                 mode="lines+markers", marker=dict(size=4),
                                 line=dict(color=SERIES[i % len(SERIES)],
                                           dash=dashes.get(name, "solid")),
                                 name=f"{name} ({len(hist) - 1} iterations)"))
    if tol is not None:  # a trace, not add_hline: hline annotations misplace on log axes
        n_max = max(len(h) for h in histories.values())
        fig.add_trace(go.Scatter(x=[0, n_max - 1], y=[tol, tol], mode="lines",
                                 line=dict(color=GREY, dash="dash", width=1),
                                 name=f"tolerance {tol:g}", hoverinfo="skip"))
    fig.update_yaxes(type="log", title_text="relative residual", exponentformat="power")
    fig.update_xaxes(title_text="CG iteration")
    styled(fig, height=height)
    fig.update_layout(legend=dict(x=0.98, xanchor="right", y=0.98), margin=dict(r=45))
    return fig


@figure_builder
def comparison_figure(rows: list, *, height=380) -> go.Figure:
    """Compare kernels by test log-likelihood and test MSE, side by side.

    The paper's Figures 3 and 4.

    Parameters
    ----------
    rows : list of dict
        From :func:`~mondrian_core.experiments.gp_experiments.compare_kernels`.
    %(builder)s

    References
    ----------
    Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for big
    data from random partitions", Figures 3 and 4.
    """
    names = [r["kernel"] for r in rows]
    colours = [SERIES[i % len(SERIES)] for i in range(len(rows))]
    fig = subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=["mean test log-likelihood per point (higher is better)",
                                        "test MSE (lower is better)"])
    ll = [r["test_log_lik"] for r in rows]
    mse = [r["mse"] for r in rows]
    # log-likelihoods are negative and close together: dots on a zoomed axis, not bars
    fig.add_trace(go.Scatter(x=names, y=ll, mode="markers+text",
                             marker=dict(color=colours, size=14, line=dict(color=BLACK, width=1)),
                             text=[f"{v:.3g}" for v in ll], textposition="top center",
                             showlegend=False, hovertemplate="%{x}: %{y:.4g}<extra></extra>"),
                  row=1, col=1)
    fig.add_trace(go.Bar(x=names, y=mse, marker_color=colours, text=[f"{v:.3g}" for v in mse],
                         textposition="outside", showlegend=False,
                         hovertemplate="%{x}: %{y:.4g}<extra></extra>"), row=1, col=2)
    lo, hi = min(ll), max(ll)
    pad = 0.25 * (hi - lo or abs(hi) or 1.0)
    fig.update_yaxes(range=[lo - pad, hi + pad], row=1, col=1)
    fig.update_yaxes(range=[0, 1.15 * max(mse)], row=1, col=2)
    fig.update_annotations(font_size=13, yshift=8)
    styled(fig, height=height)
    fig.update_layout(margin=dict(r=45))
    return fig


@validated_once
@figure_builder
def kernel_pca_figure(embeddings: dict, colour, *, colour_label="target",
                      height=380) -> go.Figure:
    """Draw 2-D embeddings side by side, points coloured by the target.

    Parameters
    ----------
    embeddings : dict of str to ndarray
        Panel title -> (N, 2) embedding (from
        :func:`~mondrian_core.experiments.gp_experiments.kernel_pca_embeddings`).
    colour : array-like of shape (N,)
        The values that colour the points.
    colour_label : str, default="target"
        The colour bar's title.
    %(builder)s

    References
    ----------
    Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for big
    data from random partitions", Figure 2.
    """
    names = list(embeddings)
    # wrapped: two long titles ran into each other over panels a third of the width wide
    layout, cells = subplots_layout(
        rows=1, cols=len(names), horizontal_spacing=0.09,
        subplot_titles=["<br>".join(textwrap.wrap(name, 16)) for name in names])
    colour_label = "<br>".join(textwrap.wrap(colour_label, 14)) or "target"
    traces = []
    for i, name in enumerate(names):
        axes = cells[0][i]
        traces.append(dict(type="scatter", x=embeddings[name][:, 0], y=embeddings[name][:, 1],
                           mode="markers",
                           marker=dict(color=colour, colorscale=SEQUENTIAL, size=6,
                                       line=dict(width=0.3, color=GREY),
                                       showscale=i == len(names) - 1,
                                       colorbar=dict(title=colour_label)),
                           showlegend=False,
                           hovertemplate="(%{x:.3g}, %{y:.3g})<extra></extra>", **axes))
        layout[axis_key(axes["xaxis"])]["title"] = dict(text="component 1")
        if i == 0:
            layout[axis_key(axes["yaxis"])]["title"] = dict(text="component 2")
    return go.Figure(data=traces, layout=_titles_and_theme(layout, height))


@figure_builder
def partition_count_figure(curves: dict, *, dataset_name: str = "", height=380) -> go.Figure:
    """Plot test log-likelihood and MSE against the number of partitions m.

    One line per kernel (the paper's Figure 5).

    Parameters
    ----------
    curves : dict
        ``{kernel: {"m", "test_log_lik", "mse"}}`` as from
        :func:`mondrian_core.experiments.gp_experiments.partition_count_curves`.
    dataset_name : str, default=""
        The data set's name, for the title.
    %(builder)s

    References
    ----------
    Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for big
    data from random partitions", Figure 5.
    """
    fig = subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=["mean test log-likelihood per point (higher is better)",
                                        "test MSE (lower is better)"])
    for i, (kind, c) in enumerate(curves.items()):
        style = dict(mode="lines+markers", line=dict(color=SERIES[i % len(SERIES)], width=2.5),
                     marker=dict(size=7), legendgroup=kind)
        fig.add_trace(go.Scatter(x=c["m"], y=c["test_log_lik"], name=f"{kind} kernel",
                                 **style), row=1, col=1)
        fig.add_trace(go.Scatter(x=c["m"], y=c["mse"], name=f"{kind} kernel", showlegend=False,
                                 **style), row=1, col=2)
    m_values = sorted({int(m) for c in curves.values() for m in c["m"]})
    fig.update_xaxes(type="log", title_text="partitions m", tickvals=m_values)
    fig.update_annotations(font_size=13, yshift=8)
    styled(fig, height=height,
           title=f"GP test error against m ({dataset_name})" if dataset_name else None)
    # the legend sits in the top margin, right of the title, clear of the axis titles
    fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.14, xanchor="right",
                                  x=1),
                      margin=dict(r=45, t=100, b=60))
    return fig
