"""Mondrian Explorer's NumPy/SciPy core.

No module in this package imports Streamlit. The public names below are those
of ``CONTRACT.md`` (kept stable) plus additions.
"""
from mondrian_core._random import check_random_state
from mondrian_core.errors import InputError

__all__ = ["check_random_state", "InputError"]

from mondrian_core.process import (  # noqa: E402
    MondrianSample, expected_cells, extend_mondrian, extension_chain, first_cut_check, max_lifetime,
    projectivity_check, sample_mondrian_process,
)

__all__ += ["MondrianSample", "expected_cells", "extend_mondrian", "extension_chain", "first_cut_check",
            "max_lifetime", "projectivity_check", "sample_mondrian_process"]
