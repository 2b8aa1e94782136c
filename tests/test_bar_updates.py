"""Which reports a progress bar shows (explorer_ui.compute.BarUpdates): a change of
percent or text at most once per BAR_INTERVAL, nothing the bar already shows."""
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


def test_texts_that_change_at_every_report_are_throttled_too_and_repeats_never_sent():
    clock = Clock()
    bar = BarUpdates("Data set 0 of 40", clock)
    assert not bar.due(0.0, "Data set 0 of 40")       # what the bar shows already
    sent = []
    for k in range(1, 41):                            # a data set every 25 ms: 1 s in all
        clock.t += 0.025
        if bar.due(k / 40, f"Data set {k} of 40"):
            sent.append(k)
    assert sent == [8, 16, 24, 32, 40]                # every 0.2 s, the latest report
    clock.t += 10 * BAR_INTERVAL
    assert not bar.due(1.0, "Data set 40 of 40")      # unchanged: never sent again
    assert bar.due(1.0, "Assembling")
