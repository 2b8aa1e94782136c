"""Data sets for the pages: seeded synthetic generators, bundled real sets, user CSVs.

Everything returns a :class:`Dataset`. Synthetic generators take ``random_state``
(``None``, ``int``, :class:`numpy.random.Generator` or ``RandomState``) and draw only from
:func:`mondrian_core.check_random_state`: same seed, same data.

* :func:`uniform_box` - points uniform in a box (no target).
* :func:`laplace_gp` - a GP draw with the Laplace kernel
  ``k(x, x') = exp(-lifetime * ||x - x'||_1)`` plus Gaussian noise, with a known
  ``true_lifetime``: the kernel that the Mondrian kernel converges to (Balog et
  al. 2016, section 3), so the lifetime sweep and posterior pages can try to
  recover it. Exact: the Ornstein-Uhlenbeck recursion in 1-D, a Cholesky factor
  of the kernel matrix otherwise (:func:`laplace_gp_sample`).
* :func:`friedman1` - Friedman's first regression function (8-D by default), cheap
  to draw at any size: the set on which the sweep is timed (Figure 8 at scale).
* :func:`toy_jumps_1d` - a noisy piecewise-smooth 1-D function with jumps, like
  the toy set of Figure 1 of Davies and Ghahramani (2014).
* :func:`two_moons`, :func:`two_spirals`, :func:`xor_blobs` (2-D classification)
  and :func:`regression_surface_2d` (2-D regression) for the online forest page.
* :func:`load_diabetes`, :func:`load_gapminder`, :func:`load_tips` - small real
  regression sets that load offline from files shipped inside scikit-learn and
  plotly (see ``data/README.md``); :func:`load_bundled` by name.
* :func:`load_csv` - a user's CSV, validated; every problem a user can cause is an
  :class:`~mondrian_core.errors.InputError` saying what to change. The bytes are
  only parsed as text: nothing is executed or unpickled.
* :func:`train_val_test_split` - seeded random splits.
"""
from mondrian_core.datasets.bundled import (
                                            BUNDLED_DATASETS,
                                            load_bundled,
                                            load_diabetes,
                                            load_gapminder,
                                            load_tips,
)
from mondrian_core.datasets.csv_upload import (
                                            CSV_MAX_BYTES,
                                            CSV_MAX_COLUMNS,
                                            CSV_MAX_ROWS,
                                            CSV_MIN_ROWS,
                                            CsvTable,
                                            load_csv,
                                            read_csv_table,
)
from mondrian_core.datasets.dataset import Dataset, train_val_test_split
from mondrian_core.datasets.friedman import friedman1
from mondrian_core.datasets.synthetic import (
                                            MAX_GP_POINTS,
                                            MAX_SYNTHETIC_POINTS,
                                            laplace_gp,
                                            laplace_gp_sample,
                                            regression_surface_2d,
                                            regression_surface_function,
                                            toy_jumps_1d,
                                            toy_jumps_function,
                                            two_moons,
                                            two_spirals,
                                            uniform_box,
                                            xor_blobs,
)

__all__ = [
    "MAX_SYNTHETIC_POINTS",
    "Dataset",
    "CsvTable",
    "BUNDLED_DATASETS",
    "MAX_GP_POINTS",
    "CSV_MAX_BYTES",
    "CSV_MAX_ROWS",
    "CSV_MAX_COLUMNS",
    "CSV_MIN_ROWS",
    "uniform_box",
    "laplace_gp",
    "friedman1",
    "laplace_gp_sample",
    "toy_jumps_1d",
    "toy_jumps_function",
    "two_moons",
    "two_spirals",
    "xor_blobs",
    "regression_surface_2d",
    "regression_surface_function",
    "load_diabetes",
    "load_gapminder",
    "load_tips",
    "load_bundled",
    "read_csv_table",
    "load_csv",
    "train_val_test_split",
]
