"""Mondrian Explorer's NumPy/SciPy core.

No module in this package imports Streamlit. The public names below are those
of ``CONTRACT.md`` (kept stable) plus additions.
"""
from mondrian_core._random import check_random_state
from mondrian_core.errors import InputError

__all__ = ["check_random_state", "InputError"]
from mondrian_core.forest import MondrianForestClassifier, MondrianForestRegressor

__all__ += ["MondrianForestRegressor", "MondrianForestClassifier"]
