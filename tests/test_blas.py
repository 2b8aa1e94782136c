"""``single_blas_thread``: BLAS limited to one thread while any caller is inside, the
original limits restored when the last one leaves, whatever the order they leave in.

The BLAS library is replaced by a recorder: OpenBLAS's own answer to "how many
threads" depends on which thread set it last (a limit set by the main thread is not
changed by a later call from another thread), which is not what is tested here.
"""
from __future__ import annotations

import sys
import threading

import pytest

from mondrian_core import _blas


class Recorder:
    """A ThreadpoolController whose ``limit`` records the calls."""

    def __init__(self):
        self.calls = []

    def limit(self, limits, user_api):
        self.calls.append(("limit", limits, user_api))
        recorder = self

        class Limiter:
            def restore_original_limits(self):
                recorder.calls.append(("restore",))
        return Limiter()


@pytest.fixture
def recorder(monkeypatch):
    rec = Recorder()
    monkeypatch.setattr(_blas, "_controller", (len(sys.modules), rec))
    monkeypatch.setattr(_blas, "ThreadpoolController", lambda: rec)
    return rec


def test_concurrent_callers_leave_in_any_order(recorder):
    entered, a_may_leave, a_left, b_may_leave = (threading.Event() for _ in range(4))
    seen = {}

    def a():
        with _blas.single_blas_thread():
            entered.set()
            a_may_leave.wait(10)
        a_left.set()

    def b():
        entered.wait(10)
        with _blas.single_blas_thread():
            a_may_leave.set()
            a_left.wait(10)
            seen["after a left"] = list(recorder.calls)  # b still inside
            b_may_leave.wait(10)

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    a_left.wait(10)
    b_may_leave.set()
    for t in threads:
        t.join(10)
    assert seen["after a left"] == [("limit", 1, "blas")]  # not restored under b
    assert recorder.calls == [("limit", 1, "blas"), ("restore",)]


def test_nested_and_repeated_use(recorder):
    with _blas.single_blas_thread():
        with _blas.single_blas_thread():
            pass
        assert recorder.calls == [("limit", 1, "blas")]
    with _blas.single_blas_thread():
        pass
    assert recorder.calls == [("limit", 1, "blas"), ("restore",)] * 2


def test_an_exception_inside_still_restores(recorder):
    with pytest.raises(ValueError), _blas.single_blas_thread():
        raise ValueError("inside")
    assert recorder.calls == [("limit", 1, "blas"), ("restore",)]
    assert _blas._inside == 0
