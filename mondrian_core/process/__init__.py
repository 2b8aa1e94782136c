"""The Mondrian process on a box: the sampler and extension (:mod:`.sampler`) and its
live statistical checks (:mod:`.checks`)."""
from mondrian_core.process.checks import (
                                          MAX_MONTE_CARLO_CELLS,
                                          FirstCutCheck,
                                          ProjectivityCheck,
                                          first_cut_check,
                                          forest_cell_counts,
                                          grow_forest,
                                          projectivity_check,
                                          restricted_cell_counts,
                                          two_sample_count_pvalue,
)
from mondrian_core.process.sampler import (
                                          MAX_CELLS,
                                          MondrianSample,
                                          cell_count,
                                          expected_cells,
                                          extend_mondrian,
                                          extension_chain,
                                          guard_cells,
                                          max_lifetime,
                                          sample_mondrian_process,
)

__all__ = ["MAX_CELLS", "MAX_MONTE_CARLO_CELLS", "FirstCutCheck", "MondrianSample",
           "ProjectivityCheck", "cell_count", "expected_cells", "extend_mondrian",
           "extension_chain", "first_cut_check", "forest_cell_counts", "grow_forest",
           "guard_cells", "max_lifetime", "projectivity_check", "restricted_cell_counts",
           "sample_mondrian_process", "two_sample_count_pvalue"]
