"""ARCHITECTURE.md's import rules, read from the source (no module is imported).

Each module of ``mondrian_core`` belongs to a layer; it may import from its own layer and
the earlier ones only. Experiments and figures are one layer, siblings: neither imports
the other (the pages and ``paper/`` pass one's results to the other). No module imports
Streamlit, nor a name another module keeps private (an underscore name).
"""
from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "mondrian_core"

# the first component below mondrian_core -> layer (ARCHITECTURE.md's table)
LAYERS = {
    0: {"errors", "_docstrings", "_validation", "_stable", "_blas", "_threads", "_linalg", "cost",
        "datasets", "_forest_fit"},
    1: {"process", "trees", "tree_extension", "partitions", "partition_algebra"},
    2: {"kernel", "sweep", "_sweep_walk", "_sweep_online", "_sweep_kernels", "posterior",
        "laplace_posterior", "forest", "gp"},
    3: {"experiments", "figures"},
    4: {"paper", ""},  # "" is mondrian_core/__init__.py
}
LAYER_OF = {part: layer for layer, parts in LAYERS.items() for part in parts}


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports():
    """``(importing module, imported module, imported names)`` over the package."""
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        module = ".".join(rel.parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                yield module, node.module, [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    yield module, alias.name, []


IMPORTS = list(_imports())


def test_every_module_has_a_layer():
    parts = {_part(m) for m, _, _ in IMPORTS}
    assert parts - set(LAYER_OF) == set(), "add the new module to LAYERS and ARCHITECTURE.md"


@pytest.mark.parametrize("rule", ["one-way", "siblings", "streamlit", "private"])
def test_import_rules(rule):
    broken = []
    for module, target, names in IMPORTS:
        internal = target.split(".")[0] == "mondrian_core"
        a, b = _part(module), _part(target)
        if rule == "one-way" and internal and LAYER_OF[b] > LAYER_OF[a]:
            broken.append(f"{module} -> {target}")
        elif rule == "siblings" and internal and {a, b} == {"experiments", "figures"}:
            broken.append(f"{module} -> {target}")
        elif rule == "streamlit" and target.split(".")[0] == "streamlit":
            broken.append(f"{module} -> {target}")
        elif rule == "private" and internal and a != b:
            broken += [f"{module} -> {target}.{n}" for n in names if n.startswith("_")]
    assert not broken, broken
