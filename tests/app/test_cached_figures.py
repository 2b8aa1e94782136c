"""Every page draws the same charts for its default link with the shared, slimmed
figures (explorer_ui.figure_cache) as with figures built afresh on every run.

Slimming sends 64-bit float arrays as 32-bit ones: a value may move by at most the
rounding of a float32, half a unit in the last place (2**-24 relative); everything else
(traces, shapes, text, layout, integer arrays) must be identical. A chart a page builds
for one session only (the inference page's growing coverage stack) is not cached, so its
arrays stay 64-bit and must be identical too.
"""
from __future__ import annotations

import base64
import json

import numpy as np
import pytest

import explorer_ui.figure_cache as figure_cache
from tests.support import PAGES, assert_clean, chart_specs, run_page

F32_ROUNDING = 2.0 ** -24


def _specs(at):
    assert_clean(at)
    return [json.loads(spec) for spec in chart_specs(at)]


def _array(node):
    data = np.frombuffer(base64.b64decode(node["bdata"]), dtype=np.dtype(node["dtype"]))
    return data.reshape([int(n) for n in str(node["shape"]).split(",")]) if "shape" in node \
        else data


def _same(before, after, where="spec"):
    if isinstance(before, dict) and "bdata" in before:
        a, b = _array(before), _array(after)
        assert a.shape == b.shape, where
        if before["dtype"] == "f8" and after["dtype"] != "f8":  # slimmed by the cache
            assert after["dtype"] == "f4", where
            a64, b64 = a.astype(float), b.astype(float)
            assert np.array_equal(np.isnan(a64), np.isnan(b64)), where
            ok = ~np.isnan(a64)
            assert np.all(np.abs(b64[ok] - a64[ok]) <= F32_ROUNDING * np.abs(a64[ok]) + 1e-45), where
        else:
            assert before == after, where
    elif isinstance(before, dict):
        assert isinstance(after, dict) and before.keys() == after.keys(), where
        for k in before:
            _same(before[k], after[k], f"{where}.{k}")
    elif isinstance(before, list):
        assert isinstance(after, list) and len(before) == len(after), where
        for i, (x, y) in enumerate(zip(before, after)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert before == after, where


@pytest.mark.parametrize("page", PAGES)
def test_default_link_draws_the_same_charts(page, monkeypatch):
    after = _specs(run_page(page, timeout=180))
    monkeypatch.setattr(figure_cache, "cached_figure", lambda build, *a, **k: build(*a, **k))
    before = _specs(run_page(page, timeout=180))
    assert len(before) == len(after) > 0
    for i, (b, a) in enumerate(zip(before, after)):
        _same(b, a, f"chart {i}")
