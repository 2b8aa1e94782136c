"""deploy/run_local.sh: two replicas behind nginx, each session kept on its replica.

Starts the set-up on loopback ports, opens sessions through nginx with the protocol
client (no browser), checks that each gets its page's charts, that every request of a
session (HTTP and the websocket) reaches the same replica (nginx's access log: responses
do not name replicas), that sessions are spread over both, the security headers, the
route cookie, and that a burst of uploads is refused while a class is served; then stops
everything. Needs Debian's nginx (.ci/run installs it).
"""
from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from explorer_ui.session_client import visit, wait_healthy

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)

pytestmark = [pytest.mark.deploy,
              pytest.mark.skipif(NGINX is None, reason="needs nginx (apt-get install nginx)")]


def _free_port_block(n: int) -> int:
    """A first port p with p .. p+n-1 free on 127.0.0.1 (bounded search in 8630-8660)."""
    for start in range(8630, 8661 - n):
        try:
            for p in range(start, start + n):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
            return start
        except OSError:
            continue
    raise RuntimeError("no free block of loopback ports")


def _get(url: str, cookie: str | None = None):
    req = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.headers, r.read()
    except urllib.error.HTTPError as err:  # a 4xx still carries the headers under test
        return err.headers, err.read()


def _route(i: int) -> str:
    """A route id of nginx's own form (32 hex digits): kept, not replaced."""
    return f"mondrian_route={i:032x}"


def _upstreams(run_dir: Path, route: str, requests: int) -> set[str]:
    """The replicas that answered ``route``'s requests, from nginx's access log (the
    responses do not name them). Waits for ``requests`` lines (a websocket's line is
    written when it closes)."""
    value = route.split("=", 1)[1]
    deadline = time.monotonic() + 10
    while True:
        lines = [line for line in (run_dir / "nginx" / "access.log").read_text().splitlines()
                 if line.endswith(f"route={value}")]
        if len(lines) >= requests or time.monotonic() > deadline:
            return {line.split("upstream=")[1].split()[0] for line in lines}
        time.sleep(0.2)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    port = _free_port_block(3)
    run_dir = tmp_path_factory.mktemp("deploy")
    env = {**os.environ, "REPLICAS": "2", "PORT": str(port), "RUN_DIR": str(run_dir),
           "PYTHON": sys.executable, "NGINX": NGINX, "MONDRIAN_PREWARM": "0"}
    proc = subprocess.Popen(["bash", str(ROOT / "deploy" / "run_local.sh")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, 120)
        yield base, port, run_dir
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        for p in range(port, port + 3):  # nothing is left listening
            with socket.socket() as s:
                assert s.connect_ex(("127.0.0.1", p)) != 0, f"port {p} still open"


def test_a_new_browser_gets_a_route_cookie_and_keeps_its_replica(deployment):
    base, port, run_dir = deployment
    headers, body = _get(f"{base}/_stcore/health")
    assert body == b"ok"
    set_cookie = [c for c in headers.get_all("Set-Cookie") or []
                  if c.startswith("mondrian_route=")]
    assert len(set_cookie) == 1, set_cookie
    cookie, *attributes = (part.strip() for part in set_cookie[0].split(";"))
    assert re.fullmatch(r"mondrian_route=[0-9a-f]{32}", cookie), cookie
    assert set(attributes) == {"Path=/", "HttpOnly", "SameSite=Lax"}  # no TLS here: no Secure
    for _ in range(3):
        again = _get(f"{base}/", cookie)[0]
        assert not again.get_all("Set-Cookie"), "a valid route id is not set again"
    session = asyncio.run(visit(base, "mondrian_process", headers={"Cookie": cookie}))
    assert session.ok, session.errors
    # five requests (health, three pages, the websocket), one replica
    replicas = _upstreams(run_dir, cookie, 5)
    assert len(replicas) == 1 and replicas <= {f"127.0.0.1:{port + 1}", f"127.0.0.1:{port + 2}"}


@pytest.mark.parametrize("forged", ["student1", "<script>alert(1)</script>", "a" * 33,
                                    "0123456789ABCDEF0123456789ABCDEF"])
def test_a_route_cookie_nginx_did_not_make_is_replaced_not_echoed(deployment, forged):
    base, _, _ = deployment
    headers, _ = _get(f"{base}/_stcore/health", f"mondrian_route={forged}")
    (set_cookie,) = [c for c in headers.get_all("Set-Cookie") if "mondrian_route" in c]
    assert re.match(r"mondrian_route=[0-9a-f]{32};", set_cookie), set_cookie
    assert forged not in set_cookie


@pytest.mark.parametrize("path", ["/", "/mondrian_process?lifetime=2", "/_stcore/health",
                                  "/no/such/page.js"])
def test_every_response_carries_the_security_headers_and_no_replica_address(deployment, path):
    base, port, _ = deployment
    headers, _ = _get(base + path)
    assert headers["X-Frame-Options"] == "DENY"
    csp = headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp
    assert "object-src 'none'" in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert "X-Upstream" not in headers
    raw = str(headers)
    assert f":{port + 1}" not in raw and f":{port + 2}" not in raw
    assert headers.get("Server", "nginx") == "nginx"  # no version


def test_sessions_get_their_charts_on_their_own_replica(deployment):
    base, port, run_dir = deployment
    cookies = [_route(100 + i) for i in range(8)]

    async def everyone():
        return await asyncio.gather(*(visit(base, "mondrian_process", "seed=7",
                                            headers={"Cookie": c}) for c in cookies))

    sessions = asyncio.run(everyone())
    replicas = set()
    for cookie, s in zip(cookies, sessions):
        assert s.ok, (cookie, s.errors)
        assert len(s.charts) == 1  # the page shows one chart at a time (its "Show" choice)
        assert s.charts == sessions[0].charts  # same link, same pictures, any replica
        _get(f"{base}/_stcore/health", cookie)
        # the websocket went where this browser's HTTP requests go
        (replica,) = _upstreams(run_dir, cookie, 2)
        replicas.add(replica)
    assert replicas == {f"127.0.0.1:{port + 1}", f"127.0.0.1:{port + 2}"}
    log = (run_dir / "nginx" / "access.log").read_text()
    assert log.count("GET /_stcore/stream") >= len(cookies)


def test_an_upload_burst_is_refused_while_a_class_is_served(deployment):
    """One address posting files in a loop gets 429 past the upload zone's burst (20);
    the page loads and sessions of a class go on (their zones are separate)."""
    base, _, _ = deployment
    statuses = []
    for _ in range(60):
        req = urllib.request.Request(f"{base}/_stcore/upload_file/x/y", data=b"a,b\n1,2\n",
                                     method="PUT", headers={"Cookie": _route(200)})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                statuses.append(r.status)
        except urllib.error.HTTPError as err:
            statuses.append(err.code)
    refused = statuses.count(429)
    # 60 requests within a few seconds: at most burst 20 + 2 per second pass
    assert refused >= 20, statuses
    assert statuses[:20].count(429) == 0  # the burst itself is served

    async def a_class():
        return await asyncio.gather(*(visit(base, "mondrian_process", headers={
            "Cookie": _route(300 + i)}) for i in range(4)))

    assert all(s.ok for s in asyncio.run(a_class()))
    assert _get(f"{base}/")[1]  # pages still load


def test_the_app_is_healthy_on_each_replica_directly(deployment):
    _, port, _ = deployment
    for p in (port + 1, port + 2):
        assert _get(f"http://127.0.0.1:{p}/_stcore/health")[1] == b"ok"


def test_console_command_prewarms_every_page(tmp_path):
    """``mondrian-explorer`` visits every page's default link once it is healthy."""
    port = _free_port_block(1) + 5
    log = tmp_path / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "explorer_ui.cli", "--server.port",
                                 str(port), "--server.address", "127.0.0.1",
                                 "--server.headless", "true"],
                                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none"})
    try:
        deadline = time.monotonic() + 240
        while "prewarmed" not in log.read_text() and time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()
            time.sleep(0.5)
        assert "prewarmed 8 of 8 pages" in log.read_text(), log.read_text()[-2000:]
        assert "Traceback" not in log.read_text()
    finally:
        proc.terminate()
        proc.wait(30)
