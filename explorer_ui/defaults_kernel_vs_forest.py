"""Defaults of the "Kernel vs forest" page, in one place for the page and its claim test.

Under these settings the page's main chart shows the paper's claim (Balog et al. 2016,
section 8.3, Figure 9): on the same Mondrian samples the jointly fitted Mondrian kernel
has a lower test error than the "forest" (per-tree ridge, Proposition 5) at small
lifetimes and a lower best error, and the two meet at the largest lifetime.
``tests/claims/test_kernel_vs_forest.py`` checks it over 10 seeds with ``mondrian_core``
directly.
"""
from explorer_ui.data import SPLITS

DATA = "diabetes"          #: bundled data set; features and target standardised
TRAIN_FRACTION = SPLITS["test"][0]  #: train / test split (the rest is the test set)
N_TREES = 30               #: Mondrian trees M
LARGEST_LIFETIME = 2.0     #: the curve's largest lifetime (standardised inputs)
N_LIFETIMES = 16           #: lifetimes on the curve (log-spaced over a 300-fold range)
#: noise variance = ridge penalty (prior variance 1, target standardised). With 0.1 the
#: joint fit interpolates the training data at middle lifetimes and falls behind the
#: forest there (the tour's second step shows it).
NOISE_VARIANCE = 1.0
#: prior variance of the ridge's weights (with the standardised target: variance 1)
PRIOR_VARIANCE = 1.0
SEED = 0
