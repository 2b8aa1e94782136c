"""Every chart on every page has its text alternative beside it, and every number in it
is one the chart draws (read back from the chart as the browser gets it)."""
from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest

from tests.support import PAGES, assert_clean, run_page, small

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _arrays(node, out):
    """Every numeric array in a chart's JSON (typed arrays decoded independently of the
    describer), flattened, with every array's length, shape and sum."""
    if isinstance(node, dict) and "bdata" in node:
        a = np.frombuffer(base64.b64decode(node["bdata"]), dtype=np.dtype(node["dtype"]))
        out["values"].append(a.astype(float))
        out["sums"].append(float(np.nansum(a)))
        out["counts"].add(a.size)
        shape = node.get("shape")
        if shape:
            out["counts"].update(int(v) for v in str(shape).split(","))
        return
    if isinstance(node, dict):
        for v in node.values():
            _arrays(v, out)
    elif isinstance(node, list):
        flat = [v for v in node if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if flat:
            out["values"].append(np.array(flat, dtype=float))
            out["sums"].append(float(sum(flat)))
            out["counts"].add(len(node))
        if node and isinstance(node[0], list):
            out["counts"].update((len(node), len(node[0])))
        for v in node:
            if isinstance(v, (dict, list)):
                _arrays(v, out)


def _drawn(spec: dict) -> dict:
    out = {"values": [], "counts": set(), "sums": []}
    _arrays(spec["data"], out)
    for trace in spec["data"]:  # line pieces: NaN/None-separated runs
        y = trace.get("y")
        if isinstance(y, dict) and "bdata" in y:
            y = np.frombuffer(base64.b64decode(y["bdata"]), dtype=np.dtype(y["dtype"]))
        elif isinstance(y, list) and all(v is None or isinstance(v, (int, float)) for v in y):
            y = np.array([np.nan if v is None else v for v in y], dtype=float)
        if isinstance(y, np.ndarray) and y.dtype.kind == "f" and y.size:
            ok = ~np.isnan(y)
            out["counts"].add(int(ok[0]) + int(np.count_nonzero(ok[1:] & ~ok[:-1])))
    out["counts"].add(len(spec["data"]))
    out["counts"].add(len({t.get("xaxis", "x") for t in spec["data"]}))  # panels
    # a bar chart's description may give a series' total
    out["values"] = np.concatenate(out["values"] + [np.array(out["sums"])])
    return out


def _in_text(spec: dict) -> str:
    """The chart's own words (title, axis titles, panel titles, series names), whose
    numbers (a seed, "M = 10") a description may repeat."""
    layout = spec["layout"]
    words = [json.dumps((layout.get("title") or {}).get("text", ""))]
    words += [json.dumps(v.get("title")) for k, v in layout.items()
              if k.startswith(("xaxis", "yaxis")) and isinstance(v, dict)]
    words += [a.get("text", "") for a in layout.get("annotations", [])]
    words += [str(t.get("name", "")) for t in spec["data"]]
    words += [json.dumps((t.get("colorbar") or {}).get("title")) for t in spec["data"]]
    return " ".join(words)


def _matches(token: str, drawn: dict, words: str) -> bool:
    value = float(token)
    if token in words or token.lstrip("-") in words:
        return True
    if "." not in token and "e" not in token and value >= 0 and int(value) in drawn["counts"]:
        return True
    values = drawn["values"][np.isfinite(drawn["values"])]
    if value == 0:
        return bool(np.any(values == 0)) or bool(np.any(np.abs(values) < 5e-5))
    # the description shows 3 significant digits (or an integer's every digit)
    digits = token.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    exponent = np.floor(np.log10(abs(value)))
    half_unit = 0.5 * 10 ** (exponent - max(len(digits), 1) + 1)
    return bool(np.any(np.abs(values - value) <= half_unit * 1.0001))


def _descriptions(at) -> list[str]:
    return [c.value for c in at.caption if c.value.startswith("**Chart:")]


@pytest.mark.parametrize("page", list(PAGES))
def test_every_chart_has_a_description_whose_numbers_it_draws(page):
    at = run_page(page, query=small(page), timeout=240)
    assert_clean(at)
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    described = _descriptions(at)
    assert charts and len(described) == len(charts), (len(charts), described)
    for spec, text in zip(charts, described):
        label, _, body = text.partition(".** ")
        assert len(body) > 20, text
        drawn, words = _drawn(spec), _in_text(spec)
        numbers = _NUMBER.findall(body)
        assert numbers, f"no number in {text!r}"
        wrong = [n for n in numbers if not _matches(n, drawn, words)]
        assert not wrong, (wrong, text)
        assert at.get("download_button"), "no data download"


def test_charts_keep_few_toolbar_buttons_and_the_camera():
    """Each toolbar button is a tab stop: a chart keeps the camera (and the reset after a
    drag-zoom) and drops Plotly's other buttons."""
    at = run_page("pages/mondrian_process.py")
    assert_clean(at)
    config = json.loads(at.get("plotly_chart")[0].proto.config)
    removed = set(config["modeBarButtonsToRemove"])
    assert {"zoom2d", "pan2d", "select2d", "lasso2d", "zoomIn2d", "zoomOut2d"} <= removed
    assert "toImage" not in removed and config["toImageButtonOptions"]["format"] == "png"


def test_the_page_title_comes_from_the_navigation_that_runs_the_page():
    from explorer_ui.navigation import inside_app, page_title

    assert page_title() is None  # a page file run on its own
    with inside_app("Mondrian process"):
        assert page_title() == "Mondrian process"
    assert page_title() is None
