"""``figures._parts.subplots`` (a grid's layout built once) against plotly's own
``make_subplots``: the same figure, also after traces are placed by row and column."""
from __future__ import annotations

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from mondrian_core.figures._parts import subplots


@pytest.mark.parametrize("kwargs", [
    dict(rows=2, cols=2, shared_yaxes=True, horizontal_spacing=0.04, vertical_spacing=0.17,
         subplot_titles=["a", "b<br>c", "d", "e"]),
    dict(rows=1, cols=3, subplot_titles=("x", "y", "z"), horizontal_spacing=0.09),
    dict(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.06, row_heights=[0.7, 0.3]),
    dict(rows=1, cols=2, specs=[[{"type": "xy"}, {"type": "xy"}]]),  # unhashable: no reuse
    dict(rows=1, cols=3, subplot_titles=["p", "", "q"]),  # an empty title: no annotation
    dict(rows=1, cols=2, subplot_titles=["only one"]),
])
def test_same_figure_as_make_subplots(kwargs):
    for _ in range(2):  # built, then reused
        expected, fig = make_subplots(**kwargs), subplots(**kwargs)
        assert fig.to_dict() == expected.to_dict()
        rows, cols = kwargs["rows"], kwargs["cols"]
        for f in (expected, fig):
            f.add_trace(go.Scatter(x=[0, 1], y=[1, 2]), row=rows, col=cols)
            f.update_xaxes(title_text="t", row=1, col=1)
            f.update_layout(height=300)
        assert fig.to_dict() == expected.to_dict()
    # what was drawn into the copies did not reach the kept layout
    assert subplots(**kwargs).to_dict() == make_subplots(**kwargs).to_dict()


def test_titles_change_on_the_same_grid():
    """New titles (a fitted length scale in a panel's title) reuse the grid."""
    for scale in ("0.028", "0.03", "1.2e+02"):
        titles = ["Random Forest (m=100)", "Fast Cluster (m=100)", "Mondrian (m=100)",
                  f"RBF (length<br>scale {scale})"]
        kwargs = dict(rows=2, cols=2, shared_yaxes=True, vertical_spacing=0.17,
                      subplot_titles=titles)
        assert subplots(**kwargs).to_dict() == make_subplots(**kwargs).to_dict()
