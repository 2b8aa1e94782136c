"""Docstring text that several public names share, written once.

A docstring line holding only ``%(name)s`` is replaced by the text of ``name``, each
of its lines indented as the placeholder is, as MNE-Python's ``fill_doc`` does: one
family of functions with the same parameters (the paper recipes, the bundled loaders)
documents them in one place, and ``help()``, numpydoc and the doctests see the full
text. Only whole lines are replaced, so a ``%`` elsewhere in a docstring is left alone.
"""
from __future__ import annotations

import re
import textwrap

_FIELD = re.compile(r"^(?P<indent>[ \t]*)%\((?P<name>\w+)\)s[ \t]*$", re.MULTILINE)


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
    lines = textwrap.dedent("\n".join(doc.splitlines()[1:])).splitlines()
    starts = [i for i in range(len(lines) - 1)
              if lines[i].strip() and set(lines[i + 1].strip()) == {"-"}
              and len(lines[i + 1].strip()) == len(lines[i].strip())]
    found = {}
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        found[lines[start].strip()] = "\n".join(lines[start:end]).strip("\n")
    return "\n\n".join(found[name] for name in names) + "\n"


def docfiller(texts: dict[str, str]):
    """Return a decorator that fills the docstring of a function or class from ``texts``."""
    def fill(obj):
        obj.__doc__ = fill_docstring(obj.__doc__, texts)
        return obj

    return fill
