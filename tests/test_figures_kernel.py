"""The Kernel convergence page's slice and uniform-convergence figures, built from dicts,
against the same figures built from graph objects (the builders' old code, kept here as
the reference)."""
from __future__ import annotations

import plotly.graph_objects as go

from mondrian_core.experiments.kernel_convergence import (
    feature_counts,
    kernel_slice,
    uniform_error_curves,
)
from mondrian_core.figures.kernel import (
    _slice_title,
    kernel_error_figure,
    kernel_slice_figure,
    uniform_error_figure,
)
from mondrian_core.figures.theme import SERIES


def test_slice_frames_are_the_graph_object_frames():
    s, lap, est = kernel_slice(10.0, [1, 5, 20], n_grid=41, random_state=0)
    fig = kernel_slice_figure(s, lap, est, lifetime=10.0)
    ref = [go.Frame(data=[go.Scatter(x=s, y=lap), go.Scatter(x=s, y=est[m])],
                    traces=[0, 1], name=str(m), layout=go.Layout(title_text=_slice_title(m, 10.0)))
           for m in sorted(est)]
    assert fig.to_plotly_json()["frames"] == go.Figure(frames=ref).to_plotly_json()["frames"]


def test_uniform_draws_are_the_graph_object_traces():
    curves = uniform_error_curves(10.0, feature_counts(20), n_grid=5, n_draws=3, random_state=1)
    fig = uniform_error_figure(curves)
    ref = kernel_error_figure(curves)
    for r, row in enumerate(curves.errors[next(iter(curves.errors))]):
        ref.add_trace(go.Scatter(x=curves.counts, y=row, mode="lines", name="one draw",
                                 legendgroup="draws", showlegend=r == 0,
                                 line=dict(color=SERIES[0], width=0.6), opacity=0.35,
                                 hoverinfo="skip"))
    # mean band, mean, reference line, then one line per draw
    assert len(fig.data) == len(ref.data) == 3 + 3 and fig.data == ref.data
