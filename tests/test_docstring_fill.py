"""The shared-docstring filler (``mondrian_core._docstrings``)."""
import subprocess
import sys

import pytest

from mondrian_core._docstrings import docfiller, fill_docstring, params, sections


def test_placeholder_line_takes_the_text_at_its_indent():
    doc = "Summary.\n\n    %(x)s\n    tail 100%\n"
    got = fill_docstring(doc, {"x": "x : int\n    What.\n\nReturns\n-------\n"})
    assert got == "Summary.\n\n    x : int\n        What.\n\n    Returns\n    -------\n    tail 100%\n"


def test_only_whole_lines_are_filled():
    doc = "Rate %(x)s inline stays.\n"
    assert fill_docstring(doc, {"x": "never"}) == doc


def test_unknown_name_fails_at_decoration():
    def f():
        """Summary.

        %(typo)s
        """

    with pytest.raises(KeyError):
        docfiller({"x": "y"})(f)


def test_decorator_fills_and_returns_the_object():
    @docfiller({"p": "p : int\n    A number."})
    def f(p):
        """Summary.

        %(p)s
        """
        return p

    assert f(3) == 3
    assert "        p : int\n            A number." in f.__doc__


def test_sections_are_taken_whole_and_in_the_order_asked():
    def source(x):
        """Summary.

        Parameters
        ----------
        x : int
            A number.

        Returns
        -------
        int
            The same.

        Raises
        ------
        InputError
            Never.
        """

    got = sections(source.__doc__, "Returns", "Parameters")
    assert got == ("Returns\n-------\nint\n    The same.\n\n"
                   "Parameters\n----------\nx : int\n    A number.\n")
    with pytest.raises(KeyError):
        sections(source.__doc__, "Examples")


def test_params_takes_the_named_entries_whole():
    def source(lower, upper, n, seed):
        """Summary.

        Parameters
        ----------
        lower, upper : float
            The box.
        n : int
            How many,
            over two lines.
        seed : int
            A seed.

        Returns
        -------
        int
            Nothing.
        """

    got = params(source.__doc__, "seed", "upper", "n", "lower")
    assert got == ("seed : int\n    A seed.\nlower, upper : float\n    The box.\n"
                   "n : int\n    How many,\n    over two lines.\n")
    with pytest.raises(KeyError):
        params(source.__doc__, "m")


def test_params_as_a_section_has_the_heading():
    doc = "Summary.\n\n    Parameters\n    ----------\n    t : float\n        A time.\n"
    assert params(doc, "t", section=True) == "Parameters\n----------\nt : float\n    A time.\n"


def test_without_docstrings_nothing_is_filled_and_nothing_fails():
    # python -OO strips every docstring; the library must still import
    def f():
        pass

    assert docfiller({"x": params(None, "x")})(f).__doc__ is None
    assert sections(None, "Parameters") == ""


def test_the_modules_that_fill_docstrings_import_without_them():
    # under python -OO a docstring to take text from is gone (or, for a dataclass, its
    # signature): the filler must give nothing instead of failing at import
    users = ["mondrian_core." + m for m in (
        "datasets.bundled", "experiments.gp_experiments", "experiments.inference",
        "experiments.kernel_convergence", "experiments.kernel_vs_forest",
        "experiments.online", "experiments.sweep_views", "forest.debiased",
        "forest.estimators", "gp", "paper.recipes", "partition_algebra", "posterior",
        "process.sampler", "sweep", "trees")]
    code = "import importlib\n" + "".join(f"importlib.import_module({m!r})\n" for m in users)
    done = subprocess.run([sys.executable, "-OO", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _filled_docstrings():
    """``(name, source docstring, docstring as help() shows it)`` of every function,
    class and method of the package whose docstring has a placeholder line."""
    import ast
    import importlib
    import inspect
    import pathlib

    import mondrian_core

    root = pathlib.Path(mondrian_core.__file__).parent
    for path in sorted(root.rglob("*.py")):
        if "paper" in path.parts and path.name == "__main__.py":
            continue
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                continue
            doc = ast.get_docstring(node, clean=False) or ""
            if not any(line.strip().startswith("%(") for line in doc.splitlines()):
                continue
            owner = importlib.import_module(module)
            for outer in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
                if node in outer.body:
                    owner = getattr(owner, outer.name)
            obj = inspect.getattr_static(owner, node.name)
            obj = getattr(obj, "__func__", obj)
            yield f"{module}.{node.name}", doc, obj.__doc__


def test_filled_docstrings_keep_to_88_characters_but_for_entry_headings():
    """help() shows the filled text: a shared text indented deeper than where it was
    written must still fit (numpydoc's ``name : type`` headings cannot wrap)."""
    import re

    found, long = 0, []
    for name, source, doc in _filled_docstrings():
        found += 1
        assert "%(" not in doc, f"{name} was not filled"
        written = set(source.splitlines())  # lines as written are ruff's to judge
        long += [f"{name}: {line.strip()[:40]}" for line in doc.splitlines()
                 if len(line) > 88 and line not in written
                 and not re.match(r"^\s*[\w, *]+ : ", line)]
    assert found > 20 and not long, long
