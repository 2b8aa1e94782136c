"""Mondrian Explorer's NumPy/SciPy core.

No module in this package imports Streamlit. The public names below are those
of ``CONTRACT.md`` (kept stable) plus additions.
"""
from mondrian_core._random import check_random_state
from mondrian_core.errors import InputError

__all__ = ["check_random_state", "InputError"]

# datasets: seeded synthetic generators, bundled real sets, validated CSV upload
from mondrian_core.datasets import (  # noqa: E402
    BUNDLED_DATASETS,
    CsvTable,
    Dataset,
    laplace_gp,
    laplace_gp_sample,
    load_bundled,
    load_csv,
    load_diabetes,
    load_gapminder,
    load_tips,
    read_csv_table,
    regression_surface_2d,
    toy_jumps_1d,
    train_val_test_split,
    two_moons,
    two_spirals,
    uniform_box,
    xor_blobs,
)

__all__ += [
    "BUNDLED_DATASETS", "CsvTable", "Dataset", "laplace_gp", "laplace_gp_sample",
    "load_bundled", "load_csv", "load_diabetes", "load_gapminder", "load_tips",
    "read_csv_table", "regression_surface_2d", "toy_jumps_1d", "train_val_test_split",
    "two_moons", "two_spirals", "uniform_box", "xor_blobs",
]
from mondrian_core.process import (  # noqa: E402
    MondrianSample, expected_cells, extend_mondrian, extension_chain, first_cut_check, max_lifetime,
    projectivity_check, sample_mondrian_process,
)

__all__ += ["MondrianSample", "expected_cells", "extend_mondrian", "extension_chain", "first_cut_check",
            "max_lifetime", "projectivity_check", "sample_mondrian_process"]

# trees and kernel: Mondrian trees over data points, the Mondrian kernel and its baselines
from mondrian_core.trees import MondrianTrees, sample_mondrian_trees  # noqa: E402
from mondrian_core.kernel import (  # noqa: E402
    MondrianFeatures,
    RandomBinningFeatures,
    RandomFourierFeatures,
    laplace_kernel,
)
from mondrian_core.kernel_convergence import (  # noqa: E402
    kernel_error_curves,
    ridge_rmse_curves,
)

__all__ += [
    "MondrianTrees", "sample_mondrian_trees", "MondrianFeatures", "RandomBinningFeatures",
    "RandomFourierFeatures", "laplace_kernel", "kernel_error_curves", "ridge_rmse_curves",
]

from mondrian_core.partitions import FastClusterPartitions, RandomForestPartitions  # noqa: E402
from mondrian_core.partition_algebra import PartitionAlgebra  # noqa: E402
from mondrian_core.gp import PartitionGP, PartitionKernelPCA  # noqa: E402

__all__ += ["FastClusterPartitions", "RandomForestPartitions", "PartitionAlgebra",
            "PartitionGP", "PartitionKernelPCA"]
from mondrian_core.partitions import MondrianPartitions  # noqa: E402

__all__ += ["MondrianPartitions"]
from mondrian_core.sweep import LifetimePath, lifetime_path  # noqa: E402
from mondrian_core.posterior import LifetimePosterior, lifetime_posterior  # noqa: E402

__all__ += ["LifetimePath", "lifetime_path", "LifetimePosterior", "lifetime_posterior"]
from mondrian_core.forest import MondrianForestClassifier, MondrianForestRegressor  # noqa: E402

__all__ += ["MondrianForestRegressor", "MondrianForestClassifier"]
from mondrian_core.kernel_vs_forest import (  # noqa: E402
    KernelForestPath,
    KernelForestWeights,
    kernel_forest_weights,
    kernel_vs_forest_path,
)

__all__ += ["KernelForestPath", "KernelForestWeights", "kernel_forest_weights",
            "kernel_vs_forest_path"]
