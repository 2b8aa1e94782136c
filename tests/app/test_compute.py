"""The one way pages run slow computations (explorer_ui.compute): once per key for the
whole server with a progress bar, refused up front over the time budget, on request
behind a button, or in the background (Figure 8 at scale) with a failed job tried again."""
from __future__ import annotations

import threading

from streamlit.testing.v1 import AppTest

from explorer_ui.compute import start_in_background
from tests.support import assert_clean


def _page():
    import streamlit as st

    from explorer_ui.compute import cached_with_progress, requested
    from explorer_ui.widgets import user_errors
    from mondrian_core.errors import InputError

    calls = st.session_state.setdefault("calls", [])
    ns = st.query_params.get("ns", "")  # each test its own keys in the server-wide store
    n = st.slider("n", 1, 9, 3, key="n")

    def compute(progress):
        calls.append(n)
        progress(0.5, "half way")
        return n * n

    def over_budget():
        if n > 8:
            raise InputError("Use n of at most 8: 9 would take too long here.")

    with user_errors():
        value = cached_with_progress(("test compute page", ns, n), compute, "Computing",
                                     check=over_budget)
        st.markdown(f"value={value} calls={len(calls)}")
    if requested("Go", "go", ("test compute page: on request", ns, n)):
        st.markdown("asked")


def _run(ns: str):
    at = AppTest.from_function(_page, default_timeout=30)
    at.query_params["ns"] = ns
    return at.run()


def test_computed_once_per_key_and_again_for_a_new_key():
    at = _run("once")
    assert_clean(at)
    assert "value=9 calls=1" in at.markdown[0].value
    at.slider(key="n").set_value(4).run()
    assert "value=16 calls=2" in at.markdown[0].value
    at.slider(key="n").set_value(3).run()  # stored for the whole server: not computed again
    assert "value=9 calls=2" in at.markdown[0].value
    assert not at.get("progress")  # the bar is gone once the result is there


def test_over_the_budget_is_refused_before_computing():
    at = _run("budget")
    at.slider(key="n").set_value(9).run()
    assert not at.exception
    assert "at most 8" in at.error[0].value
    assert not any(m.value.startswith("value=") for m in at.markdown)
    assert at.session_state["calls"] == [3]  # the first run's n, never 9


def test_on_request_runs_after_the_button_and_stays_for_the_session():
    at = _run("request")
    assert "asked" not in [m.value for m in at.markdown]
    at.button(key="go").click().run()
    assert "asked" in [m.value for m in at.markdown]
    at.run()  # a later run of the same settings keeps it
    assert "asked" in [m.value for m in at.markdown]
    at.slider(key="n").set_value(5).run()  # other settings: asked again
    assert "asked" not in [m.value for m in at.markdown]


def test_one_background_job_per_key_with_its_progress():
    calls, release = [], threading.Event()

    def compute(progress):
        calls.append(1)
        progress(0.5, "half way")
        release.wait(10)
        return 42

    first = start_in_background(("test", "once"), compute, slots=None)
    again = start_in_background(("test", "once"), compute, slots=None)
    assert again is first
    release.set()
    assert first.done.wait(10)
    assert first.result == 42 and first.error is None and first.fraction == 0.5
    assert start_in_background(("test", "once"), compute, slots=None) is first
    assert calls == [1]


def test_a_failed_background_job_is_tried_again():
    attempts = []

    def flaky(progress):
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("first try fails")
        return "ok"

    failed = start_in_background(("test", "flaky"), flaky, slots=None)
    assert failed.done.wait(10)
    assert isinstance(failed.error, RuntimeError)
    retried = start_in_background(("test", "flaky"), flaky, slots=None)
    assert retried is not failed
    assert retried.done.wait(10)
    assert retried.result == "ok" and len(attempts) == 2


def test_a_background_job_waits_for_a_compute_slot():
    """With every slot held by other computations the job queues; it starts when one
    is released and gives the slot back when done."""
    slots = threading.BoundedSemaphore(1)
    started = threading.Event()

    def compute(progress):
        started.set()
        return "done"

    slots.acquire()  # another session's sweep
    job = start_in_background(("test", "slots"), compute, slots=slots)
    assert not started.wait(0.3) and not job.done.is_set()
    slots.release()
    assert job.done.wait(10) and job.result == "done"
    assert slots.acquire(timeout=1)  # the job released its slot


def _turn_page():
    import streamlit as st

    from explorer_ui.compute import taking_turns

    with taking_turns():
        st.markdown("the page ran")


def test_a_page_waits_in_line_with_a_note_and_runs_on_its_turn():
    """While every turn is held (another session's page), the run waits in line and
    notes it; on its turn the page runs and the note is gone."""
    from explorer_ui.compute import TURNS

    at = AppTest.from_function(_turn_page, default_timeout=30)
    held = [TURNS.acquire() for _ in range(TURNS.n)]
    ran = threading.Thread(target=at.run, daemon=True)
    ran.start()
    try:
        for _ in range(1000):  # until the run stands in line
            if TURNS.waiting == 1:
                break
            ran.join(0.01)
        assert TURNS.waiting == 1 and ran.is_alive()
    finally:
        for _ in held:
            TURNS.release()
    ran.join(30)
    assert not ran.is_alive()
    assert_clean(at)
    assert [m.value for m in at.markdown] == ["the page ran"]
    assert not at.info  # the waiting note was emptied
    assert TURNS.waiting == 0
