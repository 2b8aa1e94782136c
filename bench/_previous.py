"""The project's previous implementations, loaded from git, for same-process baselines.

``load(paths)`` reads each module's source at :data:`BASE` (``git show``), points its
imports of the other listed modules at their previous versions, and returns the
modules by path. Everything else they import is today's code.
"""
from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The commit before the flat forest and the cluster-space GP.
BASE = "2eecf04"


def _dotted(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def load(paths: list[str]) -> dict[str, types.ModuleType]:
    """Previous versions of ``paths`` (in dependency order), as fresh modules."""
    names = {_dotted(p): "previous_" + _dotted(p).replace(".", "_") for p in paths}
    out = {}
    for path in paths:
        src = subprocess.run(["git", "show", f"{BASE}:{path}"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
        for old, new in names.items():
            src = src.replace(f"from {old} import", f"from {new} import")
        module = types.ModuleType(names[_dotted(path)])
        module.__file__ = f"{BASE}:{path}"
        sys.modules[module.__name__] = module
        exec(compile(src, module.__file__, "exec"), module.__dict__)  # noqa: S102
        out[path] = module
    return out


def previous_forest():
    """The previous ``MondrianForestRegressor`` (per-node Python lists, per-point online)."""
    mods = load(["mondrian_core/forest/tree_store.py", "mondrian_core/forest/estimators.py"])
    return mods["mondrian_core/forest/estimators.py"].MondrianForestRegressor


def previous_gp():
    """The previous ``(PartitionGP, PartitionKernelPCA, FastClusterPartitions)``."""
    mods = load(["mondrian_core/partition_algebra.py", "mondrian_core/partitions.py",
                 "mondrian_core/gp.py"])
    gp, parts = mods["mondrian_core/gp.py"], mods["mondrian_core/partitions.py"]
    return gp.PartitionGP, gp.PartitionKernelPCA, parts.FastClusterPartitions
