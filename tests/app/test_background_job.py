"""The server's background jobs (Figure 8 at scale): one computation per key for the
whole server, its progress visible, and a failed job tried again by the next visit."""
from __future__ import annotations

import threading

from explorer_ui.sweep_page import background_job


def test_one_job_per_key_with_its_progress():
    calls, release = [], threading.Event()

    def compute(progress):
        calls.append(1)
        progress(0.5)
        release.wait(10)
        return 42

    first = background_job(("test", "once"), compute)
    again = background_job(("test", "once"), compute)
    assert again is first
    release.set()
    assert first.done.wait(10)
    assert first.result == 42 and first.error is None and first.fraction == 0.5
    assert background_job(("test", "once"), compute) is first
    assert calls == [1]


def test_a_failed_job_is_tried_again():
    attempts = []

    def flaky(progress):
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("first try fails")
        return "ok"

    failed = background_job(("test", "flaky"), flaky)
    assert failed.done.wait(10)
    assert isinstance(failed.error, RuntimeError)
    retried = background_job(("test", "flaky"), flaky)
    assert retried is not failed
    assert retried.done.wait(10)
    assert retried.result == "ok" and len(attempts) == 2


def test_a_job_waits_for_a_compute_slot():
    """With every slot held by other computations the job queues; it starts when one
    is released and gives the slot back when done."""
    slots = threading.BoundedSemaphore(1)
    started = threading.Event()

    def compute(progress):
        started.set()
        return "done"

    slots.acquire()  # another session's sweep
    job = background_job(("test", "slots"), compute, slots=slots)
    assert not started.wait(0.3) and not job.done.is_set()
    slots.release()
    assert job.done.wait(10) and job.result == "done"
    assert slots.acquire(timeout=1)  # the job released its slot
