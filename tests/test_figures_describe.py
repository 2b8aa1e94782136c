"""Chart descriptions and data tables read the figure's own numbers."""
from __future__ import annotations

import csv
import io

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer_ui.figure_cache import slim
from mondrian_core.figures.describe import (
    DESCRIBERS,
    chart_label,
    chart_series,
    describe_figure,
    describer,
    figure_csv,
    figure_table,
    number,
)


def _sweep_like() -> go.Figure:
    x = np.geomspace(0.01, 100, 50)
    train = 1 / (1 + x)  # keeps falling
    val = (np.log10(x) - 1.2) ** 2 / 10 + 0.168  # lowest at 10**1.2
    fig = go.Figure([go.Scatter(x=x, y=train, name="train RMSE", mode="lines"),
                     go.Scatter(x=x, y=val, name="validation RMSE", mode="lines")])
    fig.update_layout(title="Error along the sweep", xaxis_title="lifetime λ (log scale)",
                      yaxis_title="RMSE (target units)")
    return fig


def test_number_keeps_three_significant_digits():
    assert [number(v) for v in (0.16812, 26.93, 0.0001234, 1234.5, 0, -2.5e-7)] == [
        "0.168", "26.9", "0.000123", "1234", "0", "-2.5e-07"]


def test_rounding_around_zero_reads_as_zero_beside_larger_numbers():
    """A standard deviation of 5.55e-17 beside ones of 0.8 is a zero computed in floating
    point: the description says 0; alone, a tiny number keeps its digits."""
    assert number(5.55e-17) == "5.55e-17"
    assert number(5.55e-17, scale=0.8) == number(-3e-13, scale=0.8) == "0"
    assert number(2e-12, scale=0.8) == "2e-12"
    z = np.array([[5.55e-17, 0.4], [0.8, 0.2]])
    heat = go.Figure(go.Heatmap(z=z, colorbar={"title": {"text": "std"}}))
    assert describe_figure(heat) == "a 2 by 2 matrix of std from 0 to 0.8."
    line = go.Figure(go.Scatter(x=[0.0, 1.0, 2.0], y=[0.5, 1.1e-16, 0.8], mode="lines",
                                name="std"))
    assert "std is lowest, 0, at x 1 and highest, 0.8, at x 2" in describe_figure(line)


def test_lines_say_their_trend_and_extremes_from_the_data():
    fig = _sweep_like()
    x, val = fig.data[1].x, fig.data[1].y
    best = int(np.argmin(val))
    text = describe_figure(fig, "rmse")
    assert text.startswith("Plots RMSE (target units) against lifetime λ (log scale).")
    assert f"train RMSE falls from {number(fig.data[0].y[0])} to {number(fig.data[0].y[-1])}" in text
    assert (f"validation RMSE is lowest, {number(val[best])}, at lifetime λ {number(x[best])}"
            in text)
    assert chart_label(fig, "rmse") == "Chart: Error along the sweep"


def test_the_slimmed_figure_the_page_sends_reads_the_same():
    fig = _sweep_like()
    small = slim(fig)  # float32 typed arrays, as the app sends them
    assert isinstance(small.to_plotly_json()["data"][0]["x"], (dict, np.ndarray))
    assert describe_figure(small) == describe_figure(fig)


def test_panels_are_named_and_what_they_share_is_said_once():
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Kernel", "Forest"))
    x = np.linspace(0, 1, 11)
    for col, scale in ((1, 1.0), (2, 2.0)):
        fig.add_trace(go.Scatter(x=x, y=x ** 2, name="truth", mode="lines"), row=1, col=col)
        fig.add_trace(go.Scatter(x=x, y=scale * x, name="fit", mode="lines"), row=1, col=col)
    text = describe_figure(fig)
    assert text.startswith("2 panels, each showing truth rises from 0 to 1.")
    assert "Kernel: fit rises from 0 to 1." in text and "Forest: fit rises from 0 to 2." in text
    assert [s.panel for s in chart_series(fig)] == ["Kernel"] * 2 + ["Forest"] * 2


def test_heatmaps_points_bars_and_pieces():
    z = np.arange(12.0).reshape(3, 4) - 2
    heat = go.Figure(go.Heatmap(z=z, colorbar={"title": {"text": "k(x, x')"}}))
    assert describe_figure(heat) == "a 3 by 4 matrix of k(x, x') from -2 to 9."
    pts = go.Figure(go.Scatter(x=[0, 1, 2], y=[3.0, -1.0, 5.0], mode="markers", name="data"))
    assert "data: 3 points, y from -1 to 5" in describe_figure(pts)
    bars = go.Figure(go.Bar(x=["a", "b"], y=[2, 7], name="ops"))
    assert "ops: 2 bars totalling 9, tallest 7 at b" in describe_figure(bars)
    cuts = go.Figure(go.Scatter(x=[0, 1, None, 0, 1, None, 2, 3], y=[0, 0, None, 1, 1, None, 2, 2],
                                mode="lines", name="cuts"))
    assert "cuts: 3 line pieces" in describe_figure(cuts)
    assert describe_figure(go.Figure()) == "The chart has no data at these settings."


def test_a_registered_describer_wins():
    @describer("test-only-chart")
    def _say(fig):
        return f"{len(fig.data)} traces."
    try:
        assert describe_figure(_sweep_like(), "test-only-chart") == "2 traces."
        assert describe_figure(_sweep_like(), "other") != "2 traces."
    finally:
        DESCRIBERS.pop("test-only-chart")


def test_csv_is_tidy_one_row_per_point_with_the_axes_as_columns():
    fig = _sweep_like()
    rows = list(csv.reader(io.StringIO(figure_csv(fig))))
    assert rows[0] == ["series", "lifetime λ (log scale)", "RMSE (target units)"]
    assert len(rows) == 1 + 2 * 50
    assert rows[1][0] == "train RMSE" and float(rows[1][1]) == fig.data[0].x[0]
    assert float(rows[-1][2]) == fig.data[1].y[-1]
    # gaps between line pieces are not points; heatmap cells are, with their coordinates
    cuts = go.Figure(go.Scatter(x=[0, 1, None, 2], y=[0, 0, None, 1], mode="lines", name="cuts"))
    assert len(figure_table(cuts)[1]) == 3
    head, table = figure_table(go.Figure(go.Heatmap(z=[[1, 2], [3, 4]], x=[10, 20], y=[0.5, 1.5])))
    assert head == ["series", "x", "y", "value"]
    assert table[1] == ["", "20", "0.5", "2"]
    panels = make_subplots(rows=1, cols=2, subplot_titles=("A", "B"))
    panels.add_trace(go.Scatter(x=[1], y=[2], name="p"), row=1, col=1)
    panels.add_trace(go.Scatter(x=[3], y=[4], name="q"), row=1, col=2)
    assert figure_table(panels) == (["panel", "series", "x", "y"],
                                    [["A", "p", "1", "2"], ["B", "q", "3", "4"]])


def test_a_level_says_its_value_and_an_interval_bar_its_ends():
    # an interval drawn as a bar above the curves: its height is where it is drawn only
    # (its hover shows x alone), so a listener hears its ends; a truth drawn across the
    # chart and a flat prior cut by the chart's range say their value
    fig = go.Figure([
        go.Scatter(x=np.geomspace(0.4, 29.2, 20), y=np.full(20, 0.145), name="prior"),
        go.Scatter(x=[4.51, 5.6, 6.91], y=[0.8, 0.8, 0.8], name="95% interval",
                   mode="lines+markers", hovertemplate="%{x:.3g}<extra></extra>"),
        go.Scatter(x=[0.4, 40.0], y=[0.3, 0.3], name="truth", hoverinfo="skip")])
    fig.update_layout(xaxis=dict(type="log", range=[np.log10(0.4), np.log10(40.0)],
                                 title="lifetime λ"))
    text = describe_figure(fig)
    assert "95% interval: lifetime λ 4.51 to 6.91" in text
    assert "prior constant at 0.145 from the chart's left edge to lifetime λ 29.2" in text
    assert "truth constant at 0.3 across the chart" in text
    assert "0.8" not in text and "level at" not in text
