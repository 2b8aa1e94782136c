"""Default settings of the Mondrian process page, in one place for the page and its
claim test (tests/claims/test_mondrian_process.py), so the two cannot drift."""

#: The box [0, WIDTH] x [0, HEIGHT].
WIDTH = 1.0
HEIGHT = 1.0
#: Lifetime: (1 + 3)^2 = 16 expected cells on the unit square, few enough to label.
LIFETIME = 3.0
#: Seed 3: its first cut comes early (t = 0.06) and alone until t = 1.0, and it ends
#: with 17 cells, near the expected 16; the tour's first two steps show both.
SEED = 3
#: Samples of the competing-clocks and projectivity checks.
N_CLOCK = "2000"
N_PROJ = "500"
#: Mondrians in the predict-then-reveal chart (cells at lambda and at 2 lambda).
N_COUNT = 1000
#: The sub-box of the projectivity check, as fractions of the box's sides.
SUB_FRACTION = (0.25, 0.75)
#: The extension: grow the box by this factor, in this many steps.
GROW = 2.0
STEPS = 5
#: Offsets added to the page's seed for each random source (one stream per chart): the
#: cell-count chart draws at the lifetime and at twice it from two consecutive offsets.
SEED_OFFSET_CLOCKS = 1
SEED_OFFSET_PROJECTIVITY = 2
SEED_OFFSET_EXTENSION = 3
SEED_OFFSET_CELL_COUNTS = 4
