"""The partition GP page's posterior panels, built with one ``add_traces`` call, against
the figure built trace by trace (the builder as it was, kept here as the reference)."""
from __future__ import annotations

import textwrap

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from mondrian_core.figures._parts import band
from mondrian_core.figures.gp import _BAND, _SAMPLE_COLOURS, posterior_panels_figure
from mondrian_core.figures.theme import BLACK, BLUE, GREY, legend_below, styled


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
