"""Experiment recipes: compositions of the primitives and learners that the pages and the
paper-figure command share (kernel convergence, the width searches of Figure 8, kernel
vs forest, partition-kernel GP comparisons, the online forest run). Not the library's
building blocks: import them from their modules."""
