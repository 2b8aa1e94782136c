"""Mondrian Explorer's NumPy/SciPy core.

No module in this package imports Streamlit. The public names below are those
of ``CONTRACT.md`` (kept stable) plus additions.
"""
from mondrian_core._random import check_random_state
from mondrian_core.errors import InputError

__all__ = ["check_random_state", "InputError"]
from mondrian_core.sweep import LifetimePath, lifetime_path  # noqa: E402
from mondrian_core.posterior import LifetimePosterior, lifetime_posterior  # noqa: E402

__all__ += ["LifetimePath", "lifetime_path", "LifetimePosterior", "lifetime_posterior"]
