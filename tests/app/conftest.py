"""AppTest fixtures (the helpers are in :mod:`tests.support`)."""
from __future__ import annotations

import pytest

from tests.support import use_tiny_figure8


@pytest.fixture
def tiny_figure8(monkeypatch):
    """The Lifetime sweep page with a tiny Figure 8 at scale, already computed."""
    use_tiny_figure8(monkeypatch)
