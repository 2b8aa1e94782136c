"""deploy/run_local.sh: two replicas behind nginx, each session kept on its replica.

Starts the set-up on loopback ports, opens sessions through nginx with the protocol
client (no browser), checks that each gets its page's charts, that every request of a
session (HTTP and the websocket) reaches the same replica, and that sessions are spread
over both; then stops everything. Needs Debian's nginx (.ci/run installs it).
"""
from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from explorer_ui.session_client import visit, wait_healthy

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)

pytestmark = [pytest.mark.deploy,
              pytest.mark.skipif(NGINX is None, reason="needs nginx (apt-get install nginx)")]


def _free_port_block(n: int) -> int:
    """A first port p with p .. p+n-1 free on 127.0.0.1 (bounded search)."""
    for start in range(18700, 19700, 10):
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
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers, r.read()


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
    base, port, _ = deployment
    headers, body = _get(f"{base}/_stcore/health")
    assert body == b"ok"
    cookie = next(c.split(";")[0] for c in headers.get_all("Set-Cookie")
                  if c.startswith("mondrian_route="))
    first = headers["X-Upstream"]
    assert first in (f"127.0.0.1:{port + 1}", f"127.0.0.1:{port + 2}")
    for _ in range(3):
        assert _get(f"{base}/", cookie)[0]["X-Upstream"] == first
    session = asyncio.run(visit(base, "mondrian_process", headers={"Cookie": cookie}))
    assert session.ok, session.errors
    assert session.upstream == first


def test_sessions_get_their_charts_on_their_own_replica(deployment):
    base, port, run_dir = deployment
    cookies = [f"mondrian_route=student{i}" for i in range(8)]

    async def everyone():
        return await asyncio.gather(*(visit(base, "mondrian_process", "seed=7",
                                            headers={"Cookie": c}) for c in cookies))

    sessions = asyncio.run(everyone())
    replicas = set()
    for cookie, s in zip(cookies, sessions):
        assert s.ok, (cookie, s.errors)
        assert len(s.charts) == 1  # the page shows one chart at a time (its "Show" choice)
        assert s.charts == sessions[0].charts  # same link, same pictures, any replica
        # the websocket went where this browser's HTTP requests go, every time
        assert s.upstream == _get(f"{base}/_stcore/health", cookie)[0]["X-Upstream"]
        replicas.add(s.upstream)
    assert replicas == {f"127.0.0.1:{port + 1}", f"127.0.0.1:{port + 2}"}
    # each replica's nginx log lines agree: one websocket per session
    log = (run_dir / "nginx" / "access.log").read_text()
    assert log.count("GET /_stcore/stream") >= len(cookies)


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
