"""Default settings of the kernel-convergence page, in one place for the page and its
claim test (tests/claims/test_kernel_convergence.py), so the two cannot drift."""

#: Points uniform in the unit square, and their seed (the page's seed).
N_POINTS = 120
SEED = 0
#: Lifetime lambda = 10 and M = 50 trees, as in the paper's Figure 5 (N = 100 there).
LIFETIME = 10.0
N_TREES = 50
#: Figure 5: counts up to this M, repetitions.
M_MAX5 = 50
REPEATS5 = 5
#: Figure 6: data set, lifetime, ridge penalty, largest M, repetitions.
DATASET6 = "diabetes"
LIFETIME6 = 0.3
RIDGE6 = "1"
M_MAX6 = 50
REPEATS6 = 3
#: Offsets added to the page's seed for each random source (one stream per chart).
SEED_OFFSET_TREES = 1
SEED_OFFSET_FIGURE5 = 4
SEED_OFFSET_FIGURE6 = 5
