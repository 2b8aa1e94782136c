"""The pieces the figure builders share (mondrian_core.figures._parts), against the
obvious point-by-point construction."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import numpy as np
import plotly.graph_objects as go
import pytest
from numpydoc.docscrape import NumpyDocString

import mondrian_core.figures as figures
from mondrian_core.figures._parts import band, figure_builder, log_x_marker, polyline, rectangles


def test_polyline_is_each_segment_then_a_gap():
    x0, y0, x1, y1 = [0.0, 2.0], [1.0, 3.0], [0.5, 2.5], [1.5, 3.5]
    xs, ys = polyline(x0, y0, x1, y1)
    expected_x, expected_y = [], []
    for a, b, c, d in zip(x0, y0, x1, y1):
        expected_x += [a, c, np.nan]
        expected_y += [b, d, np.nan]
    np.testing.assert_array_equal(xs, expected_x)
    np.testing.assert_array_equal(ys, expected_y)
    assert polyline([], [], [], [])[0].size == 0


def test_rectangles_close_each_box_then_a_gap():
    lower, upper = np.array([[0.0, 0.0], [1.0, 2.0]]), np.array([[1.0, 3.0], [4.0, 5.0]])
    xs, ys = rectangles(lower, upper)
    for k, ((a, b), (c, d)) in enumerate(zip(lower, upper)):
        np.testing.assert_array_equal(xs[6 * k:6 * k + 6], [a, c, c, a, a, np.nan])
        np.testing.assert_array_equal(ys[6 * k:6 * k + 6], [b, b, d, d, b, np.nan])


def test_band_runs_along_the_upper_edge_and_back_along_the_lower():
    x, lo, hi = np.array([0.0, 1.0, 2.0]), np.array([-1.0, -2.0, -3.0]), np.array([1.0, 2.0, 3.0])
    trace = band(x, lo, hi, "rgba(0,0,0,0.2)", name="band", showlegend=False)
    np.testing.assert_array_equal(trace.x, [0, 1, 2, 2, 1, 0])
    np.testing.assert_array_equal(trace.y, [1, 2, 3, -3, -2, -1])
    assert (trace.fill, trace.line.width, trace.hoverinfo) == ("toself", 0, "skip")
    assert (trace.name, trace.showlegend) == ("band", False)


def test_log_x_marker_labels_at_log10_of_the_line():
    fig = go.Figure(go.Scatter(x=[1, 1000], y=[0, 1]))
    fig.update_xaxes(type="log")
    log_x_marker(fig, 100.0, "here", color="#123456")
    line, = fig.layout.shapes
    note, = fig.layout.annotations
    assert line.x0 == line.x1 == 100.0 and line.line.color == "#123456"
    assert note.x == 2.0 and note.xref == "x" and note.yref == "paper"
    assert note.text == "here" and note.font.color == "#123456"


# ------------------------------------------------------------------ builders' docstrings

def _builders():
    for info in pkgutil.iter_modules(figures.__path__, "mondrian_core.figures."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) and obj.__module__ == module.__name__
                    and not name.startswith("_")
                    and "height" in inspect.signature(obj).parameters):
                yield f"{info.name}.{name}", obj


def test_every_documented_height_default_is_the_signatures():
    checked = 0
    for name, builder in _builders():
        documented = re.search(r"height : int, default=(\d+)", builder.__doc__ or "")
        if documented:
            checked += 1
            default = inspect.signature(builder).parameters["height"].default
            assert int(documented.group(1)) == default, name
    assert checked >= 40


def test_figure_builder_writes_height_and_returns_where_numpydoc_wants_them():
    def probe(x, *, bins=3, height=210):
        """Draw a probe.

        Parameters
        ----------
        x : int
            A value.
        bins : int, default=3
            Bins.
        %(builder)s

        References
        ----------
        A paper.
        """

    before = probe.__doc__
    doc = NumpyDocString(figure_builder(probe).__doc__)
    assert [(p.name, p.type, p.desc) for p in doc["Parameters"]] == [
        ("x", "int", ["A value."]), ("bins", "int, default=3", ["Bins."]),
        ("height", "int, default=210", ["The figure's height in pixels."])]
    assert [(r.type, r.desc) for r in doc["Returns"]] == [
        ("plotly.graph_objects.Figure", ["The styled figure."])]
    assert doc["References"] == ["A paper."]
    # only the placeholder line changed: every other line is still there, in order
    after = iter(probe.__doc__.split("\n"))
    assert all(line in after for line in before.split("\n") if "%(builder)s" not in line)


def test_figure_builder_refuses_what_it_cannot_fill():
    def height_first(*, height=1, bins=2):
        """Draw.

        Parameters
        ----------
        bins : int, default=2
            Bins.
        %(builder)s
        """

    def no_placeholder(*, height=1):
        """Draw.

        Parameters
        ----------
        height : int, default=1
            Pixels.
        """

    for builder in (height_first, no_placeholder):
        with pytest.raises(TypeError, match=builder.__name__):
            figure_builder(builder)
