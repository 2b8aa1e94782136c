"""The server-wide result store (single flight, bounds) and the sweep's cost limit."""
from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse as sp

from explorer_ui import cache
from explorer_ui.cache import SharedResults, approx_nbytes
from mondrian_core.cost import (
    ONLINE_BUDGET_SECONDS,
    SWEEP_BUDGET_SECONDS,
    check_online_cost,
    check_sweep_cost,
    largest_online_points,
    largest_sweep_points,
    online_seconds,
    sweep_seconds,
)
from mondrian_core.errors import InputError


def test_approx_nbytes_counts_buffers_once():
    a = np.zeros(1000)
    m = sp.random(50, 50, density=0.1, format="csr", random_state=0)
    sparse_bytes = m.data.nbytes + m.indices.nbytes + m.indptr.nbytes
    obj = {"a": a, "view": a[10:], "again": [a, (a,)], "m": m}
    n = approx_nbytes(obj)
    assert 8000 + sparse_bytes <= n < 8000 + sparse_bytes + 4000  # containers: small change


def test_k_sessions_on_one_key_compute_once_and_share_the_result():
    store = SharedResults(max_entries=4, max_bytes=2**20, ttl=60)
    started, release = threading.Event(), threading.Event()
    calls, results, seen = [], [], []

    def compute(report):
        calls.append(1)
        started.set()
        report(0.5)
        assert release.wait(10)
        return np.arange(10)

    def session():
        results.append(store.get("k", compute, progress=seen.append, wait_poll=0.01))

    threads = [threading.Thread(target=session) for _ in range(20)]
    threads[0].start()
    assert started.wait(10)
    for t in threads[1:]:
        t.start()
    while sum(1 for f in seen if f == 0.5) < 5:  # the waiting sessions see the progress
        pass
    release.set()
    for t in threads:
        t.join(10)
    assert len(calls) == 1 and store.computed == 1
    assert len(results) == 20 and all(r is results[0] for r in results)


def test_an_error_reaches_every_waiting_session_and_is_not_stored():
    store = SharedResults(max_entries=4, max_bytes=2**20, ttl=60)
    go = threading.Event()
    errors = []

    def compute(report):
        assert go.wait(10)
        raise InputError("use fewer points")

    def session():
        try:
            store.get("k", compute, wait_poll=0.01)
        except InputError as err:
            errors.append(str(err))

    threads = [threading.Thread(target=session) for _ in range(5)]
    for t in threads:
        t.start()
    go.set()
    for t in threads:
        t.join(10)
    assert errors == ["use fewer points"] * 5
    assert len(store) == 0
    assert store.get("k", lambda report: 7) == 7  # not remembered: tried afresh


class _Stopped(BaseException):
    """Like Streamlit's StopException: not an Exception."""


def test_a_stopped_computation_is_taken_over_by_a_waiting_session():
    store = SharedResults(max_entries=4, max_bytes=2**20, ttl=60)
    first_in, stop = threading.Event(), threading.Event()
    calls, got = [], []

    def compute(report):
        calls.append(1)
        if len(calls) == 1:
            first_in.set()
            assert stop.wait(10)
            raise _Stopped
        return "done"

    def leader():
        with pytest.raises(_Stopped):
            store.get("k", compute, wait_poll=0.01)

    t1 = threading.Thread(target=leader)
    t1.start()
    assert first_in.wait(10)
    t2 = threading.Thread(target=lambda: got.append(store.get("k", compute, wait_poll=0.01)))
    t2.start()
    stop.set()
    t1.join(10)
    t2.join(10)
    assert got == ["done"] and len(calls) == 2


def test_bounds_entries_bytes_and_ttl(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(cache.time, "monotonic", lambda: now[0])
    store = SharedResults(max_entries=3, max_bytes=3 * 8000 + 500, ttl=100)
    for i in range(5):
        store.get(i, lambda report, i=i: np.full(1000, i, dtype=float))  # 8000 bytes each
    assert len(store) == 3  # the three most recent
    store.get("big", lambda report: np.zeros(2000))  # 16000 bytes: two older ones go
    assert len(store) == 2 and store.nbytes <= store.max_bytes
    huge = store.get("huge", lambda report: np.zeros(10_000))  # over the bound: not kept
    assert huge.size == 10_000 and len(store) == 2
    now[0] = 101.0
    assert len(store) == 0  # past the ttl


def test_slots_queue_computations_beyond_the_bound():
    slots = threading.BoundedSemaphore(1)
    store = SharedResults(max_entries=8, max_bytes=2**20, ttl=60, slots=slots)
    running, most, lock = [0], [0], threading.Lock()

    def compute(report):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        threading.Event().wait(0.05)
        with lock:
            running[0] -= 1
        return 1

    threads = [threading.Thread(target=store.get, args=(k, compute), kwargs={"wait_poll": 0.01})
               for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert most[0] == 1 and store.computed == 4


#: (largest points, their cost in seconds, the budget, the other arguments): a sweep's
#: (trees, cells per tree) and an online run's (batch, trees)
BOUNDARIES = [(largest_sweep_points, sweep_seconds, SWEEP_BUDGET_SECONDS, args)
              for args in [(5, 5), (50, 60), (100, 400)]] + \
             [(largest_online_points, online_seconds, ONLINE_BUDGET_SECONDS, args)
              for args in [(5, 1), (20, 10), (200, 30)]]


@pytest.mark.parametrize("largest, seconds, budget, args", BOUNDARIES,
                         ids=[f"{b[0].__name__}{b[3]}" for b in BOUNDARIES])
def test_largest_points_is_the_boundary_of_the_budget(largest, seconds, budget, args):
    fits = largest(*args)
    assert seconds(fits, *args) <= budget
    assert seconds(fits + 1, *args) > budget


def test_check_sweep_cost_refuses_with_the_largest_size_that_fits():
    fits = largest_sweep_points(100, 150)
    check_sweep_cost(fits, 100, 150)  # fits: no error
    with pytest.raises(InputError, match=f"at most {int(fits / 0.6):,} points"):
        check_sweep_cost(6_000, 100, 150, train_fraction=0.6)


def test_check_online_cost_passes_the_default_and_refuses_the_largest_setting():
    check_online_cost(210, 20, 10)  # the page's default: 300 moons, 70 % trained on
    fits = largest_online_points(200, 30)
    with pytest.raises(InputError, match=f"at most {int(fits / 0.7):,} points"):
        check_online_cost(14_000, 200, 30, train_fraction=0.7)


def test_check_online_cost_refuses_more_batches_than_a_chart_reads_with_the_batch_that_fits():
    """101 batches are refused with the smallest batch size giving at most 100; exactly
    100 batches pass (the time estimate of 1,000 points in batches of 10 is within the
    budget)."""
    check_online_cost(1_000, 10, 1)
    with pytest.raises(InputError, match="more than 100 batches.*at least 11 "):
        check_online_cost(1_001, 10, 1)
