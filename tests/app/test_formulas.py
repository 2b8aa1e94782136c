"""Formulas are typeset: every page states its formulas in KaTeX (``$...$`` in markdown,
captions and widget labels), not as plain-text stand-ins like ``sigma^2_w``."""
from __future__ import annotations

import re

import pytest

from tests.support import PAGES, assert_clean, run_page, small

_MATH = re.compile(r"\$[^$\s][^$]*\$")
_PLAIN = re.compile(r"sigma\^2|sum_rho|\u03c3\u00b2|\|\|_1")


def _texts(at) -> list[str]:
    texts = [e.value for kind in ("markdown", "caption", "latex", "info", "warning")
             for e in at.get(kind)]
    for kind in ("slider", "select_slider", "number_input", "selectbox", "radio", "toggle"):
        texts += [w.label for w in at.get(kind)]
    return texts


@pytest.mark.parametrize("page", PAGES)
def test_each_page_typesets_its_formulas(page):
    at = run_page(page, query=small(page), timeout=240)
    assert_clean(at)
    texts = _texts(at)
    formulas = [t for t in texts if _MATH.search(t)]
    assert len(formulas) >= 3, formulas
    plain = [t for t in texts if _PLAIN.search(t) and not _MATH.search(t)]
    assert not plain, plain
