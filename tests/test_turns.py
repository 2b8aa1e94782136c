"""Page runs taking turns (explorer_ui.turns): a bound, first come first served, and a
waiting run that is stopped leaves the line."""
from __future__ import annotations

import threading

import pytest

from explorer_ui.turns import Turns

TIMEOUT = 10.0  # seconds a test thread may take at most before the test fails


def _start(turns: Turns, name: str, order: list, go: threading.Event,
           on_wait=None) -> threading.Thread:
    """A thread that takes a turn, records ``name`` in ``order``, holds it until ``go``."""
    def run():
        turns.acquire(on_wait=on_wait, every=0.05)
        try:
            order.append(name)
            go.wait(TIMEOUT)
        finally:
            turns.release()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _wait_until(condition) -> None:
    done = threading.Event()
    for _ in range(int(TIMEOUT / 0.01)):
        if condition():
            return
        done.wait(0.01)
    raise AssertionError("condition not reached in time")


def test_at_most_n_hold_a_turn_and_the_rest_go_in_the_order_they_came():
    turns = Turns(2)
    order: list[str] = []
    gates = {name: threading.Event() for name in "abcde"}
    threads = {}
    for name in "abcde":
        threads[name] = _start(turns, name, order, gates[name])
        # the next one arrives once this one holds a turn or stands in line
        _wait_until(lambda n=name: n in order or turns.waiting == "abcde".index(n) - 1)
    assert order == ["a", "b"] and turns.waiting == 3
    for name, then in (("b", ["a", "b", "c"]), ("a", ["a", "b", "c", "d"]),
                       ("c", ["a", "b", "c", "d", "e"])):
        gates[name].set()
        threads[name].join(TIMEOUT)
        _wait_until(lambda t=then: order == t)
    for name in "de":
        gates[name].set()
        threads[name].join(TIMEOUT)
    assert order == list("abcde") and turns.waiting == 0
    # every turn was given back: n new holders get one at once
    turns.acquire()
    turns.acquire()
    assert turns.waiting == 0
    turns.release()
    turns.release()


def test_a_waiting_run_that_is_stopped_leaves_the_line_and_takes_no_turn():
    turns = Turns(1)
    order: list[str] = []
    hold, never = threading.Event(), threading.Event()
    holder = _start(turns, "holder", order, hold)
    _wait_until(lambda: order == ["holder"])
    reports: list[tuple[int, float]] = []

    class Stopped(Exception):
        pass

    def stop_on_third_report(ahead, seconds):
        reports.append((ahead, seconds))
        if len(reports) == 3:
            raise Stopped

    caught: list[BaseException] = []

    def waiting_run():
        try:
            turns.acquire(on_wait=stop_on_third_report, every=0.05)
        except Stopped as err:
            caught.append(err)
    stopped = threading.Thread(target=waiting_run, daemon=True)
    stopped.start()
    stopped.join(TIMEOUT)
    assert len(caught) == 1 and turns.waiting == 0
    # each report counts the one holder ahead of it, and the time waited only grows
    assert [a for a, _ in reports] == [1, 1, 1]
    assert reports[0][1] <= reports[1][1] <= reports[2][1]
    hold.set()
    holder.join(TIMEOUT)
    # the holder's turn went back, and the stopped run took none
    later = _start(turns, "later", order, never)
    _wait_until(lambda: order == ["holder", "later"])
    never.set()
    later.join(TIMEOUT)


def test_bad_uses_are_refused():
    with pytest.raises(ValueError, match="n >= 1"):
        Turns(0)
    turns = Turns(1)
    with pytest.raises(RuntimeError, match="more often than acquire"):
        turns.release()
