"""Which reports a progress bar shows (explorer_ui.compute.BarUpdates): text changes at
once, percent changes at most once per BAR_INTERVAL, nothing the bar already shows."""
from __future__ import annotations

import numpy as np

from explorer_ui.compute import BAR_INTERVAL, BarUpdates


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_sweep_reporting_a_thousand_times_a_second_sends_five_updates_a_second():
    clock = Clock()
    bar = BarUpdates("Sweeping", clock)
    shown = []
    # 2 s of reports, one a millisecond, the fraction rising evenly to 1
    for i in range(1, 2001):
        clock.t = 100.0 + i / 1000
        fraction = i / 2000
        if bar.due(fraction, "Sweeping"):
            shown.append((clock.t, fraction))
    times = np.array([t for t, _ in shown])
    # an update comes with the first report at least BAR_INTERVAL after the last one:
    # gaps of BAR_INTERVAL to BAR_INTERVAL + 1 ms (the reports' period)
    gaps = np.diff(np.concatenate([[100.0], times]))
    assert np.all(gaps >= BAR_INTERVAL - 1e-9) and np.all(gaps <= BAR_INTERVAL + 1e-3 + 1e-9)
    assert int(2 / (BAR_INTERVAL + 1e-3)) <= len(shown) <= int(2 / BAR_INTERVAL)
    # each update shows the fraction reported at its time, so the bar keeps up
    assert [f for _, f in shown] == [round((t - 100.0) * 1000) / 2000 for t in times]


def test_a_new_text_shows_at_once_and_an_unchanged_report_never():
    clock = Clock()
    bar = BarUpdates("Growing trees", clock)
    assert not bar.due(0.0, "Growing trees")          # what the bar shows already
    assert not bar.due(0.3, "Growing trees")          # too soon after the start
    assert bar.due(0.3, "Walking the events")         # a new stage shows at once
    clock.t += 10 * BAR_INTERVAL
    assert not bar.due(0.304, "Walking the events")   # the same whole percent
    assert bar.due(0.31, "Walking the events")
