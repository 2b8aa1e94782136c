"""bench/same_page.py's comparison of two renders of a page."""
import base64

import numpy as np

from bench.same_page import differences


def _binary(values):
    a = np.asarray(values, dtype="f8")
    return {"bdata": base64.b64encode(a.tobytes()).decode(), "dtype": "f8"}


def test_binary_and_plain_arrays_with_the_same_numbers_are_identical():
    a = {"data": [{"x": _binary([1.0, 2.0]), "y": _binary([0.5, np.nan]), "name": "x"}]}
    b = {"data": [{"x": [1.0, 2.0], "y": _binary([0.5, np.nan]), "name": "x"}]}
    assert differences(a, b) == (0.0, "", [])


def test_the_largest_difference_is_relative_to_the_arrays_largest_magnitude():
    a = {"data": [{"y": _binary([1.0, -4.0, 3.0])}, {"y": _binary([10.0])}]}
    b = {"data": [{"y": [1.0, -4.0, 3.001]}, {"y": [10.0]}]}
    worst, where, other = differences(a, b)
    assert np.isclose(worst, 0.001 / 4.0, rtol=1e-9) and where == ".data[0].y"
    assert other == []


def test_texts_shapes_and_missing_keys_are_reported():
    a = {"data": [{"name": "a", "y": [1.0, 2.0]}], "layout": {"title": "t"}}
    b = {"data": [{"name": "b", "y": [1.0]}], "layout": {}}
    _, _, other = differences(a, b)
    assert any("name" in o for o in other)
    assert any("shape" in o for o in other)
    assert any("title" in o and "one side" in o for o in other)
