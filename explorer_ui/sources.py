"""Where each page's claims come from: the papers' sections and figures, or this app.

Every page lists its claims as :class:`Source` entries in a module-level ``SOURCES``
(next to its ``TOUR``) and passes them to
:func:`explorer_ui.widgets.page_header`, which shows them in a folded *Sources*
expander. A claim that is this app's own finding (measured here, not stated by a paper)
has ``own=True`` and is marked as such, so a student never takes it for the paper's.
The same list is what a tour handout prints at its end. Text only, no Streamlit.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: The label an app's own finding carries wherever sources are listed.
OWN_FINDING = "this app's own finding"


@dataclass(frozen=True)
class Source:
    """One claim a page makes, and where it comes from.

    Parameters
    ----------
    claim : str
        The claim, in a sentence (markdown; KaTeX allowed).
    reference : str
        Where it is stated or proved: authors, year, section, figure or equation, e.g.
        ``"Balog et al. (2016), sec. 3, Proposition 1"``. For an app's own finding, how
        and at which settings it was measured (e.g. ``"tests/claims, 10 seeds"``).
    own : bool, default False
        True when the claim is this app's own finding rather than a paper's.
    """

    claim: str
    reference: str
    own: bool = False

    def __post_init__(self):
        if not self.claim.strip() or not self.reference.strip():
            raise ValueError("a Source needs both a claim and a reference")


def sources_markdown(sources: Sequence[Source]) -> str:
    """The sources as a markdown bullet list, the app's own findings marked."""
    lines = []
    for source in sources:
        mark = f" *({OWN_FINDING})*" if source.own else ""
        lines.append(f"- {source.claim} \u2014 {source.reference}{mark}")
    return "\n".join(lines)
