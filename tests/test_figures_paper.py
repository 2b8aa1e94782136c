"""The paper-figure recipes (mondrian_core.paper) without a browser: each builds
a plotly figure with data from the pages' builders; --only selection; the progress bar
and the index. Rendering to files: tests/e2e/test_paper_figures.py."""
from __future__ import annotations

import io

import plotly.graph_objects as go
import pytest

from mondrian_core.paper import recipes as paper


def _points(trace) -> int:
    """How many values a trace draws (x, y or z, whichever it has)."""
    return max((len(v) for v in (getattr(trace, a, None) for a in ("x", "y", "z"))
                if v is not None), default=0)


@pytest.mark.parametrize("recipe", paper.RECIPES, ids=lambda r: r.id)
def test_every_recipe_builds_a_figure_with_data(recipe):
    fig = recipe.build(quick=True, seed=1)
    assert isinstance(fig, go.Figure)
    assert len(fig.data) > 0
    assert sum(_points(t) for t in fig.data) > 0
    assert fig.layout.width  # an export size, the recipe's unless the builder set one


def test_recipes_cover_the_papers_figures():
    ids = [r.id for r in paper.RECIPES]
    assert ids == [f"mondrian-kernel-fig{i}" for i in (1, 5, 6, 7, 8, 9, 10)] + \
        [f"rf-kernel-fig{i}" for i in (1, 2, 5)]
    for r in paper.RECIPES:
        module, name = r.builder.split(".")
        builder_module = __import__(f"mondrian_core.figures.{module}", fromlist=[name])
        assert callable(getattr(builder_module, name)), r.builder


def test_select_by_id_or_ending():
    assert [r.id for r in paper.select(["fig5"])] == ["mondrian-kernel-fig5", "rf-kernel-fig5"]
    assert [r.id for r in paper.select(["rf-kernel-fig1", "mondrian-kernel-fig10"])] == \
        ["mondrian-kernel-fig10", "rf-kernel-fig1"]
    assert paper.select(None) == paper.RECIPES
    with pytest.raises(SystemExit, match="fig4"):
        paper.select(["fig4"])


def test_progress_bar_draws_on_one_line_and_ends_with_newline():
    out = io.StringIO()
    bar = paper.ProgressBar(4, stream=out, width=8)
    bar.show(1, "computing a")
    bar.show(4, "wrote d")
    text = out.getvalue()
    assert text.startswith("\r[##------] 1/4 computing a (")
    assert "\r[########] 4/4 wrote d (" in text
    assert text.endswith("\n") and text.count("\n") == 1


def test_index_lists_each_file_with_its_paper_figure(tmp_path):
    recipes = paper.select(["fig5"])
    text = paper.write_index(recipes, tmp_path, quick=True, seed=3).read_text()
    assert "seed 3, quick settings" in text
    for r in recipes:
        assert f"| {r.id}.png / .svg | {r.paper} | {r.figure} |" in text
        assert f"mondrian_core.figures.{r.builder}" in text
