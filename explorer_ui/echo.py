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
# character. Escaped wherever they appear: code (`), emphasis (*, ~), links and images
# ([ ]), math ($) and the backslash itself. Escaped only where they would start
# something, so that ordinary text ("low < high", "n_trees", "limit: 30 s") reads and
# matches as written: '_' at a word's edge (inside a word it is literal), '<' before a
# tag or autolink, '&' before an entity, ':' before a Streamlit :color[...] or :emoji:
# directive or in "://" (a bare link), the '.' of "www." (a bare link), and a line's
# first character when it would open a heading, quote, list or rule.
_ACTIVE = re.compile(r"""
    [\\`*~\[\]$]                                   # always
  | (?<![0-9A-Za-z])_ | _(?![0-9A-Za-z])               # '_' at a word's edge
  | <(?=[A-Za-z/!?])                                   # a tag or <scheme:...>
  | &(?=[#A-Za-z])                                     # an entity
  | :(?=[A-Za-z/])                                     # :directive[ / :emoji: / ://
  | (?<=www)\.                                        # www.host
  | ^[#>+=|-]                                          # a block at the line's start
  | ^\d+(?=[.)])                                      # an ordered list: escape below
""", re.VERBOSE | re.IGNORECASE)
# line breaks would start a new block (a heading, a list, a quote); controls show as boxes
_BREAKS = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")


def _escape(match: re.Match) -> str:
    text = match.group(0)
    if text[0].isdigit():  # "1." / "1)" at the start: escape the list marker after the digits
        return text + "\\"
    return "\\" + text


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
    return _ACTIVE.sub(_escape, text.strip())
