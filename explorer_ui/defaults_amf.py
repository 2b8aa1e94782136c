"""The aggregated Mondrian forest page's defaults, in one place for the page and its
claim test (``tests/claims/test_amf.py``), so the two cannot drift apart."""
from __future__ import annotations

from mondrian_core.datasets.synthetic import DJ_SIGNALS

#: The signal first shown: rough on the left (fast oscillations), smooth on the right.
SIGNAL = "doppler"
SIGNALS = DJ_SIGNALS
#: Stream length, noise (the signal is scaled to standard deviation 1), trees, step.
N = 600
NOISE = 0.3
TREES = 10
STEP = 1.0
SEED = 0
#: The fixed-lifetime forests on the same stream: too small (a few wide cells) and
#: too large (cells around single points); x is on [0, 1].
LIFETIMES = (4.0, 400.0)
#: Where doppler is rough and where it is smooth (the depth claim's two stretches; both
#: away from the ends of [0, 1], where the trees' leaves are shallower).
ROUGH = (0.1, 0.4)
SMOOTH = (0.6, 0.9)
#: The tour's "more noise" step: three times the noise, and the smaller step it needs
#: (at step 1 the squared errors of this noise make the aggregation cut deeper).
MORE_NOISE = 0.9
MORE_NOISE_STEP = 0.3
