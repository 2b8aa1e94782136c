"""The display variants of a figure: projector mode and the colour-blind-safe palette."""
from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from mondrian_core.figures import theme
from mondrian_core.figures.theme import (
    MIN_FONT,
    PROJECTOR_FONT,
    SAFE_COLOURS,
    font_sizes,
    for_display,
    styled,
    styled_layout,
)


def _figure() -> go.Figure:
    fig = go.Figure()
    fig.add_scatter(x=np.arange(5.0), y=np.arange(5.0) ** 2, line=dict(color=theme.RED, width=2),
                    marker=dict(size=8, color=theme.BLUE), name="a")
    fig.add_scatter(x=[0, 1], y=[1, 0], fill="tozeroy", fillcolor="rgba(19, 86, 162, 0.25)",
                    line=dict(color=theme.BLACK), name="b")
    fig.add_heatmap(z=[[0, 1], [1, 0]], colorscale=theme.DIVERGING, xaxis="x2", yaxis="y2",
                    colorbar=dict(tickfont=dict(size=11)))
    fig.add_annotation(text="note", x=1, y=1, font=dict(size=12, color=theme.RED))
    styled(fig, title="A figure", height=400)
    fig.update_xaxes(title_text="x", tickfont=dict(size=13))
    return fig


def test_the_normal_view_is_the_figure_itself():
    fig = _figure()
    assert for_display(fig) is fig


def test_projector_mode_makes_every_font_at_least_20_px_and_keeps_their_order():
    fig = _figure()
    big = for_display(fig, projector=True)
    sizes = font_sizes(big)
    assert min(sizes) >= PROJECTOR_FONT
    # the title stays larger than the body text
    assert big.layout.template.layout.title.font.size > big.layout.font.size
    assert fig.layout.annotations[0].font.size == 12  # the input is not changed


def test_projector_mode_thickens_lines_and_markers():
    big = for_display(_figure(), projector=True)
    assert big.data[0].line.width == 4
    assert big.data[0].marker.size == 12
    assert big.data[1].line.width == 4  # scatter without a width gets a thick one


def test_the_safe_palette_replaces_every_app_colour_and_keeps_transparency():
    fig = for_display(_figure(), palette="safe")
    text = json.dumps(fig.to_plotly_json()).upper()
    before = json.dumps(_figure().to_plotly_json()).upper()
    replaced = [old for old in SAFE_COLOURS if old.upper() in before]
    assert replaced and not any(old.upper() in text for old in replaced)
    assert fig.data[0].line.color == SAFE_COLOURS[theme.RED]
    assert fig.data[0].marker.color == SAFE_COLOURS[theme.BLUE]
    assert fig.data[1].fillcolor == "rgba(0, 114, 178, 0.25)"  # BLUE's safe twin, same alpha
    assert fig.data[2].colorscale[0][1] == SAFE_COLOURS[theme.BLUE]
    assert fig.layout.annotations[0].font.color == SAFE_COLOURS[theme.RED]
    assert fig.data[1].line.color == theme.BLACK  # black stays


def test_an_unknown_palette_is_refused():
    with pytest.raises(ValueError, match="palette"):
        for_display(_figure(), palette="rainbow")


def test_font_sizes_sees_inherited_and_explicit_sizes():
    fig = _figure()
    sizes = font_sizes(fig)
    assert 11.0 in sizes and 12.0 in sizes and 13.0 in sizes
    assert min(font_sizes(for_display(fig, palette="safe"))) == 11.0  # palette keeps sizes
    assert MIN_FONT == 12


@pytest.mark.parametrize("title, height", [("A title", 420), (None, 300), ("Only a title", None)])
def test_styled_layout_is_what_styled_sets(title, height):
    layout = dict(xaxis=dict(title=dict(text="x")), title=dict(font=dict(size=18)))
    by_objects = styled(go.Figure(layout=layout), title=title, height=height)
    by_dict = go.Figure(layout=styled_layout(layout, title=title, height=height))
    assert by_dict.to_plotly_json() == by_objects.to_plotly_json()
    assert layout == dict(xaxis=dict(title=dict(text="x")), title=dict(font=dict(size=18)))
