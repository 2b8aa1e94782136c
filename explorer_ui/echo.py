"""Show a visitor's value as text, never as markdown.

Streamlit renders the strings of ``st.toast``, ``st.error``, ``st.caption`` and the like as
markdown: a link's value echoed as is can make every visitor's browser fetch an outside
image (``![](https://host/p.png)``), put an outside link inside the app's own notice, or
restyle the text. Every value that comes from a URL, an upload (file and column names)
or an error message carrying either goes through :func:`plain` before it is shown.
"""
from __future__ import annotations

import re

__all__ = ["plain"]

# CommonMark lets a backslash escape any ASCII punctuation, which turns it into a literal
# character. These are the ones that can start something: links and images ([ ] ( ) !),
# emphasis and strikethrough (* _ ~), code (`), HTML and autolinks (< > &), headings,
# lists, quotes and tables (# + - > |), Streamlit's :color[...] and :emoji: directives
# (:), math ($) and GFM's bare links ("www." or "https:", broken by the escaped '.' or ':').
_ACTIVE = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:&])")
# line breaks would start a new block (a heading, a list, a quote); controls show as boxes
_BREAKS = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")


def plain(value) -> str:
    """Return ``value`` as markdown that shows exactly its text.

    Parameters
    ----------
    value : object
        Anything a visitor sent (``str(value)`` is shown).

    Returns
    -------
    str
        The text with every markdown character escaped and line breaks as spaces.
    """
    text = _BREAKS.sub(" ", str(value))
    return _ACTIVE.sub(r"\\\1", text)
