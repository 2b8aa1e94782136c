"""The online forest page's defaults, in one place for the page and its claim test
(``tests/claims/test_online_forest.py``), so the two cannot drift apart."""
from __future__ import annotations

from explorer_ui.data import SPLITS, SYNTHETIC

#: Plane data set first shown, and what the data picker draws for it by default
#: (N points, input noise, data seed: the picker's own defaults for "moons").
DATA = "moons"
DATA_N, DATA_NOISE, DATA_SEED = SYNTHETIC[DATA].n, SYNTHETIC[DATA].noise, 0
#: Share of the data streamed (the rest scores the forests).
TRAIN_FRACTION = SPLITS["test"][0]
BATCH = 20
TREES = 10
#: Coarse enough that tree 1's cells and points can be told apart on a projector.
LIFETIME = 3.0
SEED = 0
#: The batch shown first: mid-stream, so that the 1-D stream has seen only its left part.
STEP = 5
#: The batch of the tour's "a batch extends the tree" (and of its short-lifetime step): at
#: the defaults most of its points change nothing or stretch a range, one branches off
#: above a group of cells and two from leaves (the tour's text and its claim test pin
#: what this batch does).
TOUR_STEP = 9
#: Irrelevant uniform inputs added when the sidebar's distractor switch is on (the
#: slides' "catch": splits ignore the labels); at most mondrian_core's MAX_DISTRACTORS.
DISTRACTORS = 4
#: The 1-D stream (kernel vs forest): noise of the toy data, the models' variances.
STREAM_NOISE = 0.15
NOISE_VARIANCE = 0.05
PRIOR_VARIANCE = 1.0
#: The 1-D toy data (mondrian_core.datasets.toy_jumps_1d) stretched to [0, STREAM_WIDTH]:
#: about as wide as the
#: plane sets, so that one lifetime gives cells of similar size in both streams.
STREAM_WIDTH = 4.0
#: The grid of the 1-D fits: the data's [0, STREAM_WIDTH] and a margin on each side.
GRID = (-0.4, 4.4, 241)

#: Training regions for the uncertainty maps, as fractions of the data's bounding box.
REGIONS = {
    "left half": ((0.0, 0.0), (0.5, 1.0)),
    "centre square": ((0.25, 0.25), (0.75, 0.75)),
    "bottom-left quarter": ((0.0, 0.0), (0.5, 0.5)),
}
REGION = "left half"
#: Points of the 2-D regression surface mapped when the chosen set is a classification set.
MAP_POINTS = 600
#: Grid points per axis of the uncertainty maps.
MAP_RESOLUTION = 90

