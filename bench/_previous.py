"""The project's previous implementations, loaded from git, for same-process baselines.

:func:`previous_package` extracts ``mondrian_core`` as it was at :data:`BASE` into a
temporary folder under the name ``previous_mondrian_core`` (its own imports rewritten
to that name) and imports it. The whole package comes along, so the previous modules
run against the validation layer and helpers they were written with, not today's.
"""
from __future__ import annotations

import atexit
import importlib
import io
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The commit before the flat forest and the cluster-space GP.
BASE = "2eecf04"
NAME = "previous_mondrian_core"
_IMPORTS = re.compile(r"\b(from|import)\s+mondrian_core\b")


def previous_package() -> types.ModuleType:
    """``mondrian_core`` at :data:`BASE`, imported as ``previous_mondrian_core``."""
    if NAME in sys.modules:
        return sys.modules[NAME]
    archive = subprocess.run(["git", "archive", "--format=tar", BASE, "mondrian_core"],
                             cwd=ROOT, check=True, capture_output=True).stdout
    folder = Path(tempfile.mkdtemp(prefix="previous-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "mondrian_core").rename(folder / NAME)
    for path in (folder / NAME).rglob("*.py"):
        path.write_text(_IMPORTS.sub(rf"\1 {NAME}", path.read_text()))
    sys.path.insert(0, str(folder))
    return importlib.import_module(NAME)


def previous_forest():
    """The previous ``MondrianForestRegressor`` (per-node Python lists, per-point online)."""
    previous_package()
    return importlib.import_module(NAME + ".forest.estimators").MondrianForestRegressor


def previous_gp():
    """The previous ``(PartitionGP, PartitionKernelPCA, FastClusterPartitions)``."""
    previous_package()
    gp = importlib.import_module(NAME + ".gp")
    parts = importlib.import_module(NAME + ".partitions")
    return gp.PartitionGP, gp.PartitionKernelPCA, parts.FastClusterPartitions
