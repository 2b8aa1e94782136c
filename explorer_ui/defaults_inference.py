"""Default settings of the *Inference with Mondrian forests* page, in one place for the
page and its claims test (tests/claims/test_inference.py), so the two cannot drift.

The model is Cattaneo, Klusowski and Underwood's simulation: X uniform on [0, 1]^d,
mu(x) = sum_j sin(pi x_j), unit Gaussian noise, intervals at the centre.
"""

#: Dimension (a string: the segmented control's option) and sample size.
DIM = "1"
N = 1000
#: lambda = 7: below the MSE-best lifetime (about 10 here, sec. 6's plug-in), where the
#: plain forest's bias is 1.5 times its standard deviation, so its 95% intervals cover about
#: 69% of the time while the debiased forest's cover about 95% (1,000 repetitions,
#: bench/RESULTS.md).
LIFETIME = 7.0
#: B = 100 trees per forest, J = 1 (lifetimes lambda and 1.5 lambda: the ratio 1.5 of
#: Cattaneo, Klusowski and Underwood's code; their 2023 paper, sec. 4, suggests 1.05).
TREES = 100
DEBIAS_ORDER = "1"
NOISE = 1.0
LEVEL = 0.95
SEED = 0
#: Data sets the coverage lab starts with (one "Repeat" adds one, "Repeat x20" twenty).
INITIAL_REPETITIONS = 40
BATCH = 20
#: The bias and standard deviation chart: lifetimes and data sets per lifetime.
BIAS_LIFETIMES = (3.0, 5.0, 7.0, 10.0, 14.0, 20.0)
BIAS_REPETITIONS = 60
#: The CLT histogram: data sets and its own tree slider's default.
CLT_REPETITIONS = 300
CLT_TREES = 100
#: The rates: sample sizes and data sets per size (the lifetime constant is the
#: experiment's default).
RATE_NS = (100, 300, 1000, 3000)
RATE_REPETITIONS = 40
