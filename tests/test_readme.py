"""README.md's library example runs as written, and its two fresh-machine commands and the
files it points to are there."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_library_example_runs():
    (example,) = _blocks("python")
    names: dict = {}
    exec(compile(example, "README.md", "exec"), names)  # noqa: S102 - our own README
    # what the comments beside the code promise
    # each entry is a fraction of 200 trees: s.d. <= 0.5 / sqrt(200); the largest of the
    # 44,850 pairs' errors stays within about 4.6 s.d. of a normal, 6 leaves room
    assert names["error"] < 6 * 0.5 / np.sqrt(200)
    assert 0.0 <= names["low"] <= names["high"] <= 8.0  # within the swept lifetimes
    std = names["std"]
    assert np.all(np.isfinite(names["mean"])) and std[1] > std[0]  # far point: less sure


def test_fresh_machine_commands_are_the_ones_ci_runs():
    app, tests = _blocks("bash")[:2]
    assert "streamlit run app.py" in app and "requirements.txt" in app
    assert tests.strip().endswith("python -m pytest")
    assert "python -m pytest" in (ROOT / ".ci" / "run").read_text()


def test_linked_files_exist():
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target
