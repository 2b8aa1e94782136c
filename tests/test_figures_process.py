"""The Mondrian process figure builders: pure functions, checked without a browser."""
import numpy as np
import pytest

from mondrian_core import (
    expected_cells,
    extension_chain,
    first_cut_check,
    projectivity_check,
    sample_mondrian_process,
)
from mondrian_core.figures.process import (
    MAX_LABELLED_CUTS,
    cell_count_figure,
    extension_figure,
    extension_parts,
    first_cut_figure,
    growth_figure,
    projectivity_figure,
    tree_layout,
)
from mondrian_core.figures.theme import MIN_FONT, TEMPLATE, font_sizes
from mondrian_core.process import forest_cell_counts


@pytest.fixture(scope="module")
def sample():
    return sample_mondrian_process([0, 0], [1.5, 1], 3.0, 2)


def _trace(fig, name):
    return [t for t in fig.data if t.name == name]


def test_growth_figure_frames_show_the_cuts_so_far(sample):
    fig = growth_figure(sample, 1.0, fill=True, n_frames=11, labels=True)
    assert len(fig.frames) == 12  # 11 evenly spaced times plus t = 1.0
    cuts = _trace(fig, "cuts")[0]
    assert np.count_nonzero(np.isnan(np.asarray(cuts.x, float))) == np.sum(sample.cut_times <= 1.0)
    last = fig.frames[-1]
    idx = list(last.traces).index(list(fig.data).index(cuts))
    assert np.count_nonzero(np.isnan(np.asarray(last.data[idx].x, float))) == sample.cut_times.size
    labels = _trace(fig, "cut times")[0]
    assert sorted(labels.text) == sorted(f"{t:.2f}" for t in sample.cut_times[sample.cut_times <= 1])
    cells = _trace(fig, "cells")[0]
    assert sorted(cells.customdata) == sorted(sample.cell_nodes(1.0))


def test_growth_figure_marks_the_winning_clock_and_the_selection():
    small = sample_mondrian_process([0, 0], [1.5, 1], 1.5, 0)
    assert 0 < small.cut_times.size <= 25
    fig = growth_figure(small, selected_node=0)
    clocks = _trace(fig, "clock rates")[0]
    sides = small.node_upper[0] - small.node_lower[0]
    winner, loser = small.split_dim[0], 1 - small.split_dim[0]
    # the root comes first; its winning clock's rate is the red, bold one
    assert f">{sides[winner]:.2f}</span>" in clocks.text[0]
    assert f">{sides[loser]:.2f}</span>" not in clocks.text[0]
    assert f"{sides[loser]:.2f}" in clocks.text[0]
    assert _trace(fig, "selected cell") and _trace(fig, "selected node")


def test_labels_are_left_out_when_there_are_too_many_cuts():
    big = sample_mondrian_process([0, 0], [1, 1], 12.0, 0)
    assert big.cut_times.size > MAX_LABELLED_CUTS
    fig = growth_figure(big)
    assert not _trace(fig, "cut times") and not _trace(fig, "clock rates")


def test_tree_layout_puts_leaves_in_order_and_parents_between_children(sample):
    x = tree_layout(sample)
    leaves = np.sort(x[sample.is_leaf])
    np.testing.assert_array_equal(leaves, np.arange(sample.n_cells))
    inner = ~sample.is_leaf
    np.testing.assert_allclose(x[inner], 0.5 * (x[sample.left[inner]] + x[sample.right[inner]]))


def test_check_and_extension_figures_build(sample):
    check = first_cut_check([0, 0], [1.5, 1], 3.0, 300, 0)
    assert len(first_cut_figure(check).data) == 4
    proj = projectivity_check([0, 0], [1.5, 1], [0.2, 0.2], [1, 0.8], 3.0, 100, 0)
    fig = projectivity_figure(sample, sample.restrict([0.2, 0.2], [1, 0.8]), proj)
    assert len(fig.data) == 6
    chain = extension_chain(sample, [-1, -1], [2.5, 2], 3, 0)
    parts = extension_parts(sample, chain[-1])
    old_cuts = np.count_nonzero(np.isnan(np.asarray(parts["old"][0], float)))
    assert old_cuts == sample.cut_times.size
    assert len(extension_figure(sample, chain).frames) == 4


def test_figures_need_two_dimensions():
    with pytest.raises(ValueError, match="2-D"):
        growth_figure(sample_mondrian_process([0], [1], 2.0, 0))


def _all_figures(sample):
    small = sample_mondrian_process([0, 0], [1.5, 1], 1.5, 0)
    check = first_cut_check([0, 0], [1.5, 1], 3.0, 300, 0)
    proj = projectivity_check([0, 0], [1.5, 1], [0.2, 0.2], [1, 0.8], 3.0, 100, 0)
    counts = {3.0: forest_cell_counts([0, 0], [1.5, 1], 3.0, 200, 0),
              6.0: forest_cell_counts([0, 0], [1.5, 1], 6.0, 200, 1)}
    return {
        "growth": growth_figure(small, 1.0, fill=True, labels=True, selected_node=0),
        "clocks": first_cut_figure(check),
        "projectivity": projectivity_figure(sample, sample.restrict([0.2, 0.2], [1, 0.8]),
                                            proj),
        "extension": extension_figure(sample, extension_chain(sample, [-1, -1], [2.5, 2], 3,
                                                              0)),
        "cells": cell_count_figure(counts, {t: expected_cells([0, 0], [1.5, 1], t)
                                            for t in counts}),
    }


def test_no_figure_text_is_smaller_than_the_minimum(sample):
    for name, fig in _all_figures(sample).items():
        assert min(font_sizes(fig)) >= MIN_FONT, name


def _pixels_below_plot(fig, y):
    """How far below the plot area (in px) a paper-y coordinate lies."""
    m = fig.layout.margin
    top = m.t if m.t is not None else TEMPLATE.layout.margin.t  # the template's default
    return -y * (fig.layout.height - top - m.b)


def test_controls_and_legends_clear_the_x_axis_title(sample):
    """Play buttons, animation sliders and bottom legends sit below the tick labels and the
    axis title (about 50 px under the plot at 14 px text) instead of on them."""
    figures = _all_figures(sample)
    for name in ("growth", "extension"):
        fig = figures[name]
        for control in (*fig.layout.updatemenus, *fig.layout.sliders):
            assert _pixels_below_plot(fig, control.y) >= 60, name
            # and inside the figure: the bottom margin holds the control
            assert _pixels_below_plot(fig, control.y) < fig.layout.margin.b, name
    for name in ("clocks", "projectivity", "cells"):
        fig = figures[name]
        assert fig.layout.legend.orientation == "h"
        assert _pixels_below_plot(fig, fig.layout.legend.y) >= 60, name


def test_cell_count_figure_marks_the_expectations():
    counts = {2.0: np.array([3, 5, 5, 9]), 4.0: np.array([10, 20, 25])}
    fig = cell_count_figure(counts, {2.0: 5.0, 4.0: 17.5})
    bars = [t for t in fig.data if t.type == "bar"]
    assert len(bars) == 2
    # each histogram sums to one (shares of samples per cell count)
    for bar in bars:
        width = bar.width if np.isscalar(bar.width) else bar.width[0]
        assert np.sum(bar.y) * width / 0.9 == pytest.approx(1.0)
    assert sorted(shape.x0 for shape in fig.layout.shapes) == [5.0, 17.5]
    assert "mean 5.5 cells" in bars[0].name
