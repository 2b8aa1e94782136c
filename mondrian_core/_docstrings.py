"""Docstring text that several public names share, written once.

A docstring line holding only ``%(name)s`` is replaced by the text of ``name``, each
of its lines indented as the placeholder is, as MNE-Python's ``fill_doc`` does: one
family of functions with the same parameters (the paper recipes, the bundled loaders)
documents them in one place, and ``help()``, numpydoc and the doctests see the full
text. Only whole lines are replaced, so a ``%`` elsewhere in a docstring is left alone.
Under ``python -OO`` (no docstrings) everything here gives empty text and fills nothing.
"""
from __future__ import annotations

import re
import sys
import textwrap

# python -OO strips docstrings (a dataclass then gets its signature as one): nothing to
# read or fill, and a missing section is no typo
_NO_DOCSTRINGS = sys.flags.optimize >= 2

_FIELD = re.compile(r"^(?P<indent>[ \t]*)%\((?P<name>\w+)\)s[ \t]*$", re.MULTILINE)


#: Text that public names in several modules share (fill with :func:`fill_doc`).
SHARED = {
    # a sampler's seed, for a ``random_state=None`` that is passed to check_random_state
    "random_state": """\
random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
    A seed or generator (see :func:`~mondrian_core.check_random_state`); the same
    seed gives the same result.
""",
    # the predictive of the regressors and lifetime paths that return ``(mean, std)``
    "predict_returns": """\
Returns
-------
mean : ndarray of shape (n,)
    The predictive mean.
std : ndarray of shape (n,)
    The predictive standard deviation; only with ``return_std=True``.
""",
}


def fill_docstring(doc: str, texts: dict[str, str]) -> str:
    """Return ``doc`` with each placeholder line replaced by its text from ``texts``.

    Raises ``KeyError`` on an unknown name, so a typo fails at import.
    """
    def text(match):
        body = textwrap.dedent(texts[match["name"]]).strip("\n")
        return textwrap.indent(body, match["indent"], lambda line: line.strip() != "")

    return _FIELD.sub(text, doc)


def sections(doc: str, *names: str) -> str:
    """Return the numpydoc sections ``names`` (e.g. ``"Parameters"``) of ``doc``, in order.

    For a docstring that documents its arguments as another does: the text is taken
    from the other's docstring, so the two cannot drift apart. Raises ``KeyError`` if
    a section is missing.
    """
    if _NO_DOCSTRINGS or doc is None:
        return ""
    lines = textwrap.dedent("\n".join(doc.splitlines()[1:])).splitlines()
    starts = [i for i in range(len(lines) - 1)
              if lines[i].strip() and set(lines[i + 1].strip()) == {"-"}
              and len(lines[i + 1].strip()) == len(lines[i].strip())]
    found = {}
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        found[lines[start].strip()] = "\n".join(lines[start:end]).strip("\n")
    return "\n\n".join(found[name] for name in names) + "\n"


def params(doc: str, *names: str, section: bool = False) -> str:
    """Return the entries of the parameters ``names`` from the Parameters section of ``doc``.

    For a wrapper that passes these parameters on, or a method that takes the same
    argument as its sibling: it documents them with the words of the other. An entry
    documenting several names (``lower, upper :``) is found by any of them and given
    once. With ``section=True`` the entries come under a Parameters heading. Raises
    ``KeyError`` if one is missing.
    """
    if _NO_DOCSTRINGS or doc is None:
        return ""
    entries, name = {}, None
    for line in sections(doc, "Parameters").splitlines()[2:]:
        if line and not line[0].isspace():
            name = line.split(" : ")[0]
            entries[name] = []
        if name is not None:
            entries[name].append(line)
    by_name = {n.strip(): key for key in entries for n in key.split(",")}
    keys = list(dict.fromkeys(by_name[n] for n in names))
    heading = "Parameters\n----------\n" if section else ""
    return heading + "\n".join("\n".join(entries[k]).rstrip("\n") for k in keys) + "\n"


def docfiller(texts: dict[str, str]):
    """Return a decorator that fills the docstring of a function or class from ``texts``."""
    def fill(obj):
        if not _NO_DOCSTRINGS and obj.__doc__ is not None:
            obj.__doc__ = fill_docstring(obj.__doc__, texts)
        return obj

    return fill


#: Fill a docstring's placeholders from :data:`SHARED`.
fill_doc = docfiller(SHARED)
