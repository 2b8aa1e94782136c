"""numpydoc docstrings on every public name of ``mondrian_core``.

The names are discovered by walking the package, not kept by hand: every module whose
dotted path has no component starting with an underscore is public; in it, the names of
its ``__all__`` (re-exports included) or, without ``__all__``, the names it defines that
do not start with an underscore. Of those, functions and classes are checked, and of each
class every public method and property that a class of this package defines (inherited
ones included, under the class that defines them).

Each docstring goes through :func:`numpydoc.validate.validate`; every error code outside
:data:`IGNORED` fails the test, so a new public function without a ``Parameters`` section
(PR01) or a ``Returns`` section (RT01) is caught. Every scikit-learn estimator among the
public names is also fitted on small data, and each learned attribute it sets must be
in its docstring's ``Attributes`` section; a public function whose own code raises
``InputError`` must say so under ``Raises``.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest
from numpydoc.validate import validate

import mondrian_core

# The numpydoc codes this project does not require, each with its reason. Everything
# else (summary form, Parameters, Returns, Yields, descriptions, section order) is checked.
IGNORED = {
    # Examples sections: the README's library example and the tests show usage; a
    # doctest on every figure builder or recipe would repeat them and not be run.
    "EX01": "no Examples section",
    # See Also sections are welcome where they help, not on every helper.
    "SA01": "no See Also section",
    # A one-line summary is enough for a small helper; the larger names have more.
    "ES01": "no extended summary",
}


def _public_modules():
    yield mondrian_core
    for info in pkgutil.walk_packages(mondrian_core.__path__, "mondrian_core."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        yield importlib.import_module(info.name)


def _is_checked(obj) -> bool:
    return (inspect.isfunction(obj) or inspect.isclass(obj)) and getattr(
        obj, "__module__", "").startswith("mondrian_core")


def _members(cls) -> dict[str, object]:
    """Public methods and properties of ``cls`` defined by classes of this package."""
    found = {}
    for attr in dir(cls):
        if attr.startswith("_"):
            continue
        owner = next(k for k in cls.__mro__ if attr in vars(k))
        if not owner.__module__.startswith("mondrian_core"):
            continue  # inherited from scikit-learn or the standard library
        raw = vars(owner)[attr]
        if isinstance(raw, (staticmethod, classmethod)):
            raw = raw.__func__
        if inspect.isfunction(raw) or isinstance(raw, property):
            found[f"{owner.__module__}.{owner.__qualname__}.{attr}"] = raw
    return found


def public_names() -> list[str]:
    """Dotted names of every public function, class, method and property of the package."""
    names = {}
    for module in _public_modules():
        declared = getattr(module, "__all__", None)
        candidates = declared if declared is not None else [
            n for n in vars(module) if not n.startswith("_")]
        for name in candidates:
            obj = getattr(module, name)
            if not _is_checked(obj):
                continue  # constants, and names imported from other libraries
            if declared is None and obj.__module__ != module.__name__:
                continue  # imported for use, documented where it is defined
            names[f"{obj.__module__}.{obj.__qualname__}"] = obj
            if inspect.isclass(obj):
                names.update(_members(obj))
    return sorted(names)


PUBLIC_NAMES = public_names()


def docstring_errors(name: str) -> list[str]:
    """numpydoc's errors for ``name`` outside :data:`IGNORED`, as 'CODE: message'."""
    return [f"{code}: {msg}" for code, msg in validate(name)["errors"] if code not in IGNORED]


def test_discovery_reaches_every_layer():
    # the walk finds the contract's names and the public names of the recipes, the figure
    # builders and the paper command, which no __all__ lists
    expected = [
        "mondrian_core.process.sampler.sample_mondrian_process",
        "mondrian_core.kernel.MondrianFeatures.transform",
        "mondrian_core.sweep.lifetime_path",
        "mondrian_core.forest.estimators.MondrianForestRegressor.predict",
        "mondrian_core.gp.PartitionGP.fit",
        "mondrian_core.experiments.kernel_convergence.kernel_error_curves",
        "mondrian_core.experiments.online.online_run",
        "mondrian_core.figures.sweep.rmse_vs_lifetime",
        "mondrian_core.figures.process.growth_figure",
        "mondrian_core.paper.recipes.main",
        "mondrian_core._validation.check_random_state",  # re-exported by mondrian_core
    ]
    missing = [n for n in expected if n not in PUBLIC_NAMES]
    assert not missing, missing
    assert not [n for n in PUBLIC_NAMES if n.rsplit(".", 1)[-1].startswith("_")]


def _probe_without_parameters(x, y=None):
    """Add two numbers.

    Returns
    -------
    float
        The sum.
    """
    return x + (y or 0)


def test_check_fails_without_a_parameters_section():
    # the check itself: a function like a new public one with no Parameters section fails
    errors = docstring_errors(f"{__name__}._probe_without_parameters")
    assert any(e.startswith("PR01") for e in errors), errors


@pytest.mark.parametrize("name", PUBLIC_NAMES)
def test_public_docstring(name):
    errors = docstring_errors(name)
    assert not errors, f"{name}:\n  " + "\n  ".join(errors)



# ------------------------------------------------------------------ estimators' Attributes

def _estimators() -> list[type]:
    from sklearn.base import BaseEstimator

    found = {}
    for name in PUBLIC_NAMES:
        module, _, attr = name.rpartition(".")
        try:
            obj = getattr(importlib.import_module(module), attr)
        except ModuleNotFoundError:
            continue  # a method or property: its module path ends in a class name
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            found[name] = obj
    return [found[k] for k in sorted(found)]


def _fitted(cls):
    """``cls`` fitted on small data the way its users fit it (online too, where it can)."""
    from mondrian_core import FastClusterPartitions

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 2))
    y = X[:, 0] + 0.1 * rng.standard_normal(40)
    labels = (X[:, 0] > 0.5).astype(int)
    name = cls.__name__
    if name in ("PartitionGP", "PartitionKernelPCA"):
        return cls(FastClusterPartitions(n_partitions=10, max_level=3, random_state=0)).fit(X, y)
    est = cls(random_state=0)
    if name in ("MondrianForestClassifier", "AMFClassifier"):
        return est.fit(X[:30], labels[:30]).partial_fit(X[30:], labels[30:])
    if name in ("MondrianForestRegressor", "AMFRegressor"):
        return est.fit(X[:30], y[:30]).partial_fit(X[30:], y[30:])
    return est.fit(X, y)


def _documented_attributes(cls) -> set[str]:
    from numpydoc.docscrape import ClassDoc

    names = set()
    for entry in ClassDoc(cls)["Attributes"]:
        names.update(n.strip() for n in entry.name.split(","))
    return names


@pytest.mark.parametrize("cls", _estimators(), ids=lambda c: c.__name__)
def test_estimator_attributes_are_documented(cls):
    # every learned attribute (public, ending in ``_``) that fit or partial_fit sets is in
    # the class docstring's Attributes section, as scikit-learn documents its estimators
    learned = {a for a in vars(_fitted(cls)) if a.endswith("_") and not a.startswith("_")}
    assert learned, "fit set no learned attribute"
    missing = learned - _documented_attributes(cls)
    assert not missing, f"{cls.__name__}: document {sorted(missing)} under Attributes"


# ------------------------------------------------------------------ Raises

def _raises_input_error(name: str) -> bool:
    """Whether the code of ``name`` itself raises InputError (not through a helper)."""
    from numpydoc.validate import Validator

    obj = Validator._load_obj(name)
    code = obj.fget if isinstance(obj, property) else obj
    if inspect.isclass(code):
        return False  # estimators store parameters in __init__ and check them in fit
    return "raise InputError" in inspect.getsource(code)


@pytest.mark.parametrize("name", [n for n in PUBLIC_NAMES if _raises_input_error(n)])
def test_input_errors_are_documented(name):
    # a user who can cause an InputError reads when in the docstring's Raises section
    from numpydoc.validate import Validator, get_doc_object

    raises = get_doc_object(Validator._load_obj(name))["Raises"]
    assert any("InputError" in entry.type for entry in raises), name
