"""The partition GP page's figures, their traces added in one ``add_traces`` call, against
the figures built trace by trace (the builders as they were, kept here as references)."""
from __future__ import annotations

import textwrap

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from mondrian_core.figures._parts import band
from mondrian_core.figures.gp import (
    _BAND,
    _SAMPLE_COLOURS,
    kernel_heatmaps_figure,
    kernel_pca_figure,
    posterior_panels_figure,
)
from mondrian_core.figures.theme import BLACK, BLUE, GREY, SEQUENTIAL, legend_below, styled


def _reference(panels, X, y, grid, *, truth=None, x_label="x", y_label="y", height=420):
    names = list(panels)
    n = len(names)
    cols = min(n, 2)
    rows = int(np.ceil(n / cols))
    titles = ["<br>".join(textwrap.wrap(panels[k]["label"], 24, break_long_words=False))
              for k in names]
    fig = make_subplots(rows=rows, cols=cols, shared_yaxes=True, horizontal_spacing=0.04,
                        vertical_spacing=0.17, subplot_titles=titles)
    g = np.asarray(grid).ravel()
    x = np.asarray(X).ravel()
    for i, name in enumerate(names):
        p = panels[name]
        r, c = i // cols + 1, i % cols + 1
        lo, hi = p["mean"] - 2 * p["std"], p["mean"] + 2 * p["std"]
        first = i == 0
        fig.add_trace(band(g, lo, hi, _BAND, name="mean \u00b1 2 sd of f", legendgroup="band",
                           showlegend=first), row=r, col=c)
        for j in range(p["samples"].shape[1]):
            fig.add_trace(go.Scatter(x=g, y=p["samples"][:, j], mode="lines",
                                     line=dict(width=1.0, color=_SAMPLE_COLOURS[j % 5]),
                                     name="posterior samples", legendgroup="samples",
                                     showlegend=first and j == 0, opacity=0.7),
                          row=r, col=c)
        if truth is not None:
            fig.add_trace(go.Scatter(x=g, y=truth, mode="lines", name="true function",
                                     line=dict(color=GREY, dash="dot", width=1.5),
                                     legendgroup="truth", showlegend=first), row=r, col=c)
        fig.add_trace(go.Scatter(x=g, y=p["mean"], mode="lines", line=dict(color=BLUE, width=2.5),
                                 name="posterior mean", legendgroup="mean", showlegend=first),
                      row=r, col=c)
        fig.add_trace(go.Scatter(x=x, y=y, mode="markers", name="data",
                                 marker=dict(color=BLACK, size=4), legendgroup="data",
                                 showlegend=first), row=r, col=c)
        fig.update_xaxes(title_text=x_label if r == rows else None, row=r, col=c)
        if c == 1:
            fig.update_yaxes(title_text=y_label, row=r, col=c)
    fig.update_annotations(font_size=13, yshift=8)
    styled(fig, height=height * rows)
    fig.update_layout(margin=dict(t=60, r=45))
    return legend_below(fig, gap=90)


@pytest.mark.parametrize("n_panels, n_samples, with_truth", [(4, 3, True), (3, 2, False),
                                                             (1, 0, True)])
def test_posterior_panels_same_as_trace_by_trace(n_panels, n_samples, with_truth):
    rng = np.random.default_rng(n_panels)
    grid = np.linspace(-0.05, 1.05, 40)[:, None]
    X, y = rng.uniform(size=(25, 1)), rng.normal(size=25)
    panels = {f"kernel {k} with a long name": dict(
        mean=rng.normal(size=40), std=rng.uniform(0.1, 1, 40),
        samples=rng.normal(size=(40, n_samples)), label=f"kernel {k} (m=100) long label")
        for k in range(n_panels)}
    truth = np.sin(grid.ravel()) if with_truth else None
    got = posterior_panels_figure(panels, X, y, grid, truth=truth, height=300)
    want = _reference(panels, X, y, grid, truth=truth, height=300)
    assert got.to_dict() == want.to_dict()


def _reference_heatmaps(matrices, *, axis_label="points, sorted by x", height=380):
    names = list(matrices)
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=names,
                        horizontal_spacing=0.09)
    for i, name in enumerate(names):
        z = np.asarray(matrices[name], dtype=np.float32)
        fig.add_trace(go.Heatmap(z=z, zmin=0, zmax=1, colorscale=SEQUENTIAL,
                                 showscale=i == len(names) - 1,
                                 colorbar=dict(title="k(x, x')", len=0.9),
                                 hovertemplate="i=%{y}, j=%{x}: k=%{z:.2f}<extra></extra>"),
                      row=1, col=i + 1)
        fig.update_yaxes(autorange="reversed", scaleanchor=f"x{i + 1 if i else ''}",
                         showgrid=False, row=1, col=i + 1)
        fig.update_xaxes(title_text=axis_label, showgrid=False, row=1, col=i + 1)
    fig.update_annotations(font_size=13, yshift=8)
    return styled(fig, height=height)


def _reference_kernel_pca(embeddings, colour, *, colour_label="target", height=380):
    names = list(embeddings)
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=names, horizontal_spacing=0.09)
    colour_label = "<br>".join(textwrap.wrap(colour_label, 14)) or "target"
    for i, name in enumerate(names):
        E = embeddings[name]
        fig.add_trace(go.Scatter(x=E[:, 0], y=E[:, 1], mode="markers",
                                 marker=dict(color=colour, colorscale=SEQUENTIAL, size=6,
                                             line=dict(width=0.3, color=GREY),
                                             showscale=i == len(names) - 1,
                                             colorbar=dict(title=colour_label)),
                                 showlegend=False,
                                 hovertemplate="(%{x:.3g}, %{y:.3g})<extra></extra>"),
                      row=1, col=i + 1)
        fig.update_xaxes(title_text="component 1", row=1, col=i + 1)
        fig.update_yaxes(title_text="component 2" if i == 0 else None, row=1, col=i + 1)
    fig.update_annotations(font_size=13, yshift=8)
    return styled(fig, height=height)


@pytest.mark.parametrize("n_panels", [1, 3])
def test_heatmaps_and_embeddings_same_as_trace_by_trace(n_panels):
    rng = np.random.default_rng(n_panels)
    matrices = {f"kernel {k}": rng.uniform(size=(20, 20)) for k in range(n_panels)}
    assert kernel_heatmaps_figure(matrices).to_dict() == _reference_heatmaps(matrices).to_dict()
    embeddings = {f"embedding {k}": rng.normal(size=(30, 2)) for k in range(n_panels)}
    colour = rng.normal(size=30)
    got = kernel_pca_figure(embeddings, colour, colour_label="disease progression after 1 year")
    want = _reference_kernel_pca(embeddings, colour,
                                 colour_label="disease progression after 1 year")
    assert got.to_dict() == want.to_dict()
