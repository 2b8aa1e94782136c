"""The paper-figure command in quick mode, rendering through headless Chromium: PNG files
at 2x the figure's size and SVG files that parse, named after the figures."""
from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from mondrian_core.figures.export import figure_size, static_figure
from mondrian_core.paper import recipes as paper
from tests.support import CHROMIUM, ROOT, png_size

pytestmark = pytest.mark.e2e

CHOSEN = ["mondrian-kernel-fig5", "rf-kernel-fig5"]


def test_quick_command_writes_png_and_svg(tmp_path):
    out = tmp_path / "figs"
    run = subprocess.run(
        [sys.executable, "-m", "mondrian_core.paper", "--quick", "--out", str(out),
         "--only", *CHOSEN], cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "CHROMIUM_PATH": CHROMIUM})
    assert run.returncode == 0, run.stderr
    assert "[" + "#" * 30 + "] 2/2" in run.stderr  # the progress bar reached the end
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{c}.{ext}" for c in CHOSEN for ext in ("png", "svg")] + ["index.md"])
    for recipe in paper.select(CHOSEN):
        width, height = figure_size(static_figure(recipe.build(quick=True, seed=0)))
        assert png_size((out / f"{recipe.id}.png").read_bytes()) == (2 * width, 2 * height)
        root = ET.fromstring((out / f"{recipe.id}.svg").read_bytes())
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert (float(root.get("width")), float(root.get("height"))) == (width, height)
        assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 0  # lines drawn
