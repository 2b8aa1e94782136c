"""File names, toolbar config and still-image preparation of exported charts
(mondrian_core.figures.export); the browser rendering is tested in tests/e2e."""
from __future__ import annotations

import subprocess
import sys

import plotly.graph_objects as go
import pytest

from mondrian_core.figures.export import (
    FORMATS,
    MAX_NAME,
    figure_filename,
    figure_size,
    static_figure,
    toolbar_config,
)


def test_filename_says_page_chart_seed_and_parameters():
    name = figure_filename("kernel-slice", {"lam": 10.0, "m": 50, "seed": 3},
                           page="Kernel convergence")
    assert name == "kernel-convergence_kernel-slice_seed=3_lam=10_m=50"


def test_filename_values_are_file_safe():
    name = figure_filename("posterior", {"data": "Laplace GP 1-D", "prior": "log-uniform on [0.01, 5]",
                                         "lam": 1 / 3, "fill": True, "seed": 0},
                           page="Lifetime posterior")
    assert name == ("lifetime-posterior_posterior_seed=0_data=Laplace_GP_1-D"
                    "_prior=log-uniform_on_0.01_5_lam=0.3333_fill=1")
    assert all(c.isalnum() or c in "._=-" for c in name)


def test_long_filename_is_cut_but_keeps_the_seed():
    params = {f"parameter_{i}": "x" * 20 for i in range(20)} | {"seed": 123456}
    name = figure_filename("chart", params, page="Some page")
    assert len(name) <= MAX_NAME
    assert name.startswith("some-page_chart_seed=123456_parameter_0=")
    assert not name.endswith("_")


def test_filename_without_page_or_params():
    assert figure_filename("figure8") == "figure8"


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_toolbar_config_sets_the_camera_button(fmt):
    config = toolbar_config("a_b_seed=1", fmt)
    opts = config["toImageButtonOptions"]
    assert opts == {"format": fmt, "scale": 2 if fmt == "png" else 1, "filename": "a_b_seed=1"}
    assert config["displaylogo"] is False


def test_toolbar_config_rejects_unknown_format():
    with pytest.raises(ValueError, match="format"):
        toolbar_config("x", "jpeg")


def test_static_figure_drops_animation_and_keeps_data():
    fig = go.Figure(go.Scatter(x=[0, 1], y=[1, 0]), frames=[go.Frame(data=[go.Scatter(y=[0, 0])])])
    fig.update_layout(updatemenus=[dict(type="buttons", buttons=[dict(label="Play",
                                                                      method="animate")])],
                      sliders=[dict(steps=[dict(label="1")])], height=300,
                      margin=dict(b=150, l=70))  # room the builder made for the slider
    still = static_figure(fig)
    assert len(still.frames) == 0 and not still.layout.updatemenus and not still.layout.sliders
    assert still.layout.margin.b is None and still.layout.margin.l == 70
    assert list(still.data[0].y) == [1, 0]
    assert len(fig.frames) == 1 and fig.layout.updatemenus  # the original is untouched
    assert figure_size(still) == (900, 300)


def test_core_imports_without_playwright():
    """The export module imports Playwright only when rendering."""
    code = ("import sys; sys.modules['playwright'] = None; "
            "import mondrian_core.figures.export, mondrian_core.paper; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_static_figure_keeps_the_margins_of_a_still_figure():
    fig = go.Figure(go.Bar(x=["a"], y=[1]), layout=dict(margin=dict(b=120)))
    assert static_figure(fig).layout.margin.b == 120
