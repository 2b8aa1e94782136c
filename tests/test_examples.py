"""The docstrings' ``Examples`` sections run and print what they show.

Every estimator of ``mondrian_core`` and its main functions carry a short example, as
scikit-learn's do; this runs them with :mod:`doctest` (without changing pytest's global
options), one test per module. The examples print shapes, booleans and rounded numbers,
so the output is the same on any machine.
"""
from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

# the modules whose docstrings hold examples; a new estimator's module joins this list
# (test_every_module_with_examples_is_listed fails until it does)
MODULES = [
    "mondrian_core.datasets.dataset",
    "mondrian_core.datasets.synthetic",
    "mondrian_core.experiments.amf",
    "mondrian_core.forest.amf",
    "mondrian_core.forest.debiased",
    "mondrian_core.forest.estimators",
    "mondrian_core.gp",
    "mondrian_core.kernel",
    "mondrian_core.laplace_posterior",
    "mondrian_core.partition_algebra",
    "mondrian_core.partitions",
    "mondrian_core.posterior",
    "mondrian_core.process.sampler",
    "mondrian_core.sweep",
    "mondrian_core.trees",
]
ESTIMATORS = [
    "MondrianFeatures", "RandomBinningFeatures", "RandomFourierFeatures",
    "MondrianForestRegressor", "MondrianForestClassifier", "DebiasedMondrianForestRegressor",
    "AMFClassifier", "AMFRegressor", "PartitionGP",
    "PartitionKernelPCA", "FastClusterPartitions", "RandomForestPartitions",
    "MondrianPartitions",
]


def _examples(module_name):
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [t for t in finder.find(module) if t.examples]


@pytest.mark.parametrize("module_name", MODULES)
def test_examples_run(module_name):
    tests = _examples(module_name)
    assert tests, f"{module_name} has no Examples section"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"


def test_every_estimator_and_enough_functions_have_examples():
    import mondrian_core

    names = {t.name.rsplit(".", 1)[-1] for m in MODULES for t in _examples(m)}
    missing = [n for n in ESTIMATORS if not getattr(mondrian_core, n).__doc__.count(">>>")]
    assert not missing, missing
    assert len(names) >= 15, sorted(names)


def test_every_module_with_examples_is_listed():
    package = Path(importlib.import_module("mondrian_core").__file__).parent
    with_examples = {
        ".".join(("mondrian_core",) + path.relative_to(package).with_suffix("").parts)
        for path in package.rglob("*.py") if ">>> " in path.read_text(encoding="utf-8")
    }
    assert sorted(with_examples - set(MODULES)) == []
