"""A Streamlit session without a browser: what the prewarm and the load benchmark speak.

The browser talks to the server over one websocket (``/_stcore/stream``, subprotocol
``streamlit``) in protobuf messages: it sends a ``BackMsg`` whose ``rerun_script`` holds
the link (``page_name`` = the URL path, ``query_string``) and the server answers with
``ForwardMsg``s (``new_session``, one ``delta`` per element, ... and ``script_finished``).
:func:`visit` sends exactly what the browser sends on opening a link and waits until the
run has finished successfully, so the server does all the work a student's visit costs
(the charts' drawing in the browser aside).
"""
from __future__ import annotations

import asyncio
import hashlib
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from explorer_ui.tour import MAX_STEPS

#: The path part of each page's link (``st.navigation`` names a page after its file).
PAGE_PATHS = ("", "mondrian_process", "kernel_convergence", "lifetime_sweep",
              "lifetime_posterior", "partition_gp", "kernel_vs_forest", "online_forest")

_FINISHED = ForwardMsg.ScriptFinishedStatus
_MAX_MESSAGE = 512 * 1024 * 1024  # a client limit only; the server's is server.maxMessageSize


@dataclass
class Visit:
    """What one visit of a link received, in arrival order."""
    url: str
    seconds: float = float("nan")  # connect -> the run finished (every chart received)
    bytes_received: int = 0  # the messages' bytes, decompressed
    wire_bytes: int = 0  # bytes that came over the socket (compressed, as to a browser)
    charts: list[str] = field(default_factory=list)  # sha1 of each Plotly chart's spec
    errors: list[str] = field(default_factory=list)  # exceptions and st.error texts
    finished: bool = False
    reruns: int = 0  # runs that ended early for a rerun (e.g. leaving folder mode)
    upstream: str | None = None  # the X-Upstream header of the handshake, behind nginx

    @property
    def ok(self) -> bool:
        return self.finished and not self.errors


def _rerun_message(page: str, query: str, url: str) -> bytes:
    msg = BackMsg()
    state = msg.rerun_script
    state.query_string = query
    state.page_name = page
    state.context_info.url = url
    state.context_info.timezone = "UTC"
    state.context_info.timezone_offset = 0
    state.context_info.locale = "en-GB"
    return msg.SerializeToString()


def _collect(visit: Visit, fwd: ForwardMsg) -> bool:
    """Record one message; True when the run is over."""
    kind = fwd.WhichOneof("type")
    if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
        element = fwd.delta.new_element
        which = element.WhichOneof("type")
        if which == "plotly_chart":
            visit.charts.append(hashlib.sha1(element.plotly_chart.spec.encode()).hexdigest()[:12])
        elif which == "exception":
            visit.errors.append(f"{element.exception.type}: {element.exception.message}")
        elif which == "alert" and element.alert.format == Alert.ERROR:
            visit.errors.append(element.alert.body)
    elif kind == "script_finished":
        status = fwd.script_finished
        if status == _FINISHED.FINISHED_EARLY_FOR_RERUN:
            visit.reruns += 1
            visit.charts.clear()
            return False
        if status == _FINISHED.FINISHED_WITH_COMPILE_ERROR:
            visit.errors.append("script compile error")
        visit.finished = status in (_FINISHED.FINISHED_SUCCESSFULLY,
                                    _FINISHED.FINISHED_WITH_COMPILE_ERROR)
        return visit.finished
    return False


def _counting_connection(out: Visit):
    from websockets.asyncio.client import ClientConnection

    class Counting(ClientConnection):
        def data_received(self, data: bytes) -> None:
            out.wire_bytes += len(data)
            super().data_received(data)

    return Counting


async def visit(base_url: str, page: str = "", query: str = "", *, timeout: float = 300.0,
                headers: dict[str, str] | None = None, compression: bool = True) -> Visit:
    """Open the link ``base_url/page?query`` as a browser would; return when its script run
    has finished (or ``timeout`` seconds passed, with ``finished`` False).

    ``headers`` go with the websocket handshake (e.g. a ``Cookie`` behind a balancer).
    ``compression``: offer permessage-deflate, as browsers do (the server compresses).
    """
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    base = base_url.rstrip("/")
    url = f"{base}/{page}" + (f"?{query}" if query else "")
    parts = urlsplit(base)
    ws_url = f"ws://{parts.netloc}{parts.path}/_stcore/stream"
    out = Visit(url)
    t0 = time.perf_counter()
    try:
        async with asyncio.timeout(timeout):
            async with connect(ws_url, subprotocols=["streamlit"], max_size=_MAX_MESSAGE,
                               additional_headers=headers or {}, open_timeout=timeout,
                               compression="deflate" if compression else None,
                               create_connection=_counting_connection(out)) as ws:
                out.upstream = ws.response.headers.get("X-Upstream")
                await ws.send(_rerun_message(page, query, url))
                async for data in ws:
                    out.bytes_received += len(data)
                    fwd = ForwardMsg()
                    fwd.ParseFromString(data)
                    if _collect(out, fwd):
                        break
    except TimeoutError:
        out.errors.append(f"no finished run within {timeout:g} s")
    except (OSError, WebSocketException) as err:  # refused, closed: the server went away
        out.errors.append(f"connection failed: {err}")
    out.seconds = time.perf_counter() - t0
    return out


def wait_healthy(base_url: str, timeout: float = 60.0) -> None:
    """Block until ``/_stcore/health`` answers "ok" (a TimeoutError after ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{base_url.rstrip('/')}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{base_url} not healthy within {timeout:g} s")
        time.sleep(0.2)


#: Tour steps the prewarm visits on every page (a step past a tour's end is a cheap
#: visit of the default link).
PREWARM_TOUR_STEPS = MAX_STEPS


def prewarm(base_url: str, pages=PAGE_PATHS, *, health_timeout: float = 120.0) -> list[Visit]:
    """Visit the default link of every page once, one after the other, so that the
    results a first student would wait for are already in the server's caches.

    Runs through the same cached functions as a student's visit (it is one)."""
    wait_healthy(base_url, health_timeout)
    return [asyncio.run(visit(base_url, page)) for page in pages]


def prewarm_tours(base_url: str, pages=PAGE_PATHS, steps: int = PREWARM_TOUR_STEPS) -> list[Visit]:
    """Visit every page's tour steps (``?tour=1`` ...), the links a lecturer shares."""
    return [asyncio.run(visit(base_url, page, f"tour={step}"))
            for page in pages if page for step in range(1, steps + 1)]


_started = threading.Event()


def prewarm_in_background(base_url: str, report=None) -> bool:
    """:func:`prewarm` in a daemon thread, once per process; True if this call started it.

    ``report(visits, what)`` is called when the pages' default links are done
    (``what="pages"``), and again after their tour steps (``what="tour steps"``). The
    console command starts it with the server; for ``streamlit run app.py`` app.py starts
    it on its first run with a browser behind it, so the other pages' default links are
    computed while the first student reads the home page.
    """
    if _started.is_set():
        return False
    _started.set()

    def run():
        try:
            visits = prewarm(base_url)
        except TimeoutError as err:  # the server never came up; it says why itself
            print(f"prewarm skipped: {err}", file=sys.stderr)
            return
        if report is not None:
            report(visits, "pages")
        tours = prewarm_tours(base_url)
        if report is not None:
            report(tours, "tour steps")

    threading.Thread(target=run, daemon=True, name="prewarm").start()
    return True
