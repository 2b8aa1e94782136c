"""Mondrian Explorer's NumPy/SciPy core: the Mondrian process, the Mondrian kernel,
Mondrian forests and random partition kernels.

The names here are the library's building blocks, kept stable by the public API
contract in the repository (``docs/CONTRACT.md``): primitives (the process, trees over
data, random partitions) and the learners built on them (feature maps, the lifetime
sweep and posterior, forests, partition-kernel GPs).
Experiment recipes live in :mod:`mondrian_core.experiments`, Plotly figure builders in
:mod:`mondrian_core.figures`. No module in this package imports Streamlit.
"""
from mondrian_core._validation import check_random_state
from mondrian_core.datasets import (
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
from mondrian_core.errors import InputError
from mondrian_core.forest import (
                                    AMFClassifier,
                                    AMFRegressor,
                                    DebiasedMondrianForestRegressor,
                                    MondrianForestClassifier,
                                    MondrianForestRegressor,
)
from mondrian_core.gp import PartitionGP, PartitionKernelPCA
from mondrian_core.kernel import (
                                    MondrianFeatures,
                                    RandomBinningFeatures,
                                    RandomFourierFeatures,
                                    laplace_kernel,
)
from mondrian_core.laplace_posterior import LaplaceLifetimePosterior, laplace_lifetime_posterior
from mondrian_core.partition_algebra import PartitionAlgebra
from mondrian_core.partitions import (
                                    FastClusterPartitions,
                                    MondrianPartitions,
                                    RandomForestPartitions,
)
from mondrian_core.posterior import LifetimePosterior, lifetime_posterior
from mondrian_core.process import (
                                    MondrianSample,
                                    expected_cells,
                                    extend_mondrian,
                                    extension_chain,
                                    first_cut_check,
                                    max_lifetime,
                                    projectivity_check,
                                    sample_mondrian_process,
)
from mondrian_core.sweep import LifetimePath, lifetime_path, lifetime_path_on_trees
from mondrian_core.trees import MondrianTrees, sample_mondrian_trees

__version__ = "0.4.0"

__all__ = [
    # errors and randomness
    "InputError", "check_random_state",
    # data
    "BUNDLED_DATASETS", "CsvTable", "Dataset", "laplace_gp", "laplace_gp_sample",
    "load_bundled", "load_csv", "load_diabetes", "load_gapminder", "load_tips",
    "read_csv_table", "regression_surface_2d", "toy_jumps_1d", "train_val_test_split",
    "two_moons", "two_spirals", "uniform_box", "xor_blobs",
    # the Mondrian process on a box
    "MondrianSample", "expected_cells", "extend_mondrian", "extension_chain",
    "first_cut_check", "max_lifetime", "projectivity_check", "sample_mondrian_process",
    # Mondrian trees over data and the Mondrian kernel
    "MondrianTrees", "sample_mondrian_trees", "MondrianFeatures", "RandomBinningFeatures",
    "RandomFourierFeatures", "laplace_kernel",
    # the lifetime sweep and posterior
    "LifetimePath", "lifetime_path", "lifetime_path_on_trees", "LifetimePosterior", "lifetime_posterior",
    "LaplaceLifetimePosterior", "laplace_lifetime_posterior",
    # forests
    "MondrianForestRegressor", "MondrianForestClassifier", "DebiasedMondrianForestRegressor",
    "AMFClassifier", "AMFRegressor",
    # random partition kernels and GPs
    "FastClusterPartitions", "RandomForestPartitions", "MondrianPartitions",
    "PartitionAlgebra", "PartitionGP", "PartitionKernelPCA",
]
