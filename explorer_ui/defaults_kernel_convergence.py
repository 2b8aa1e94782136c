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
SEED_OFFSET_SLICE = 2
SEED_OFFSET_LINK = 3
SEED_OFFSET_FIGURE5 = 4
SEED_OFFSET_FIGURE6 = 5
#: Proposition 2's chart: grid points per side of the unit square, independent draws of
#: the trees, largest M.
GRID_SIDE = 16
UNIFORM_DRAWS = 10
UNIFORM_M_MAX = 500
SEED_OFFSET_UNIFORM = 6

#: The main chart's largest difference max |k_M - k| over the page's seeds 0-9 (its N
#: points and trees drawn from each seed, as the page draws them), mean and s.d. at
#: (lifetime, trees): this app's measurement, checked by tests/claims/test_kernel_convergence.py.
MEASURED_SEEDS = range(10)
MAX_DIFFERENCE = {(10.0, 50): (0.20, 0.034), (10.0, 500): (0.059, 0.0071),
                  (3.0, 500): (0.074, 0.0070)}
