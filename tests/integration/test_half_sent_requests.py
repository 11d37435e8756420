"""A request that never finishes its head holds no socket for long (issue 32, item 5).

Seen: with the server's open-files limit at 1,024, 1,100 sockets that each sent half a
request line or half their headers, then nothing, made every new request fail. uvicorn's
only timer is the keep-alive one, armed after an answer: a connection that has not sent its
whole first head has none. Now a connection has SCOREBOARD_HEADER_TIMEOUT seconds to send
each request's head (app/web/live_protocol.py, HttpProtocol), and `scoreboard serve` raises
its open-files limit to the hard limit at start, or says that it is low
(app/cli/serving.py, raise_open_files_limit).

A real `scoreboard serve` process, and raw sockets on the loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import select
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from bench.load import HOST, free_port
from tests.integration.live_setup import ADMIN, TIMEOUT, Client, LiveServer

pytestmark = pytest.mark.slow  # a real server process

HEADER_TIMEOUT = 2.0  # seconds: the server's here (10 on the day)
BODY_TIMEOUT = 2.0  # the same for a request's body
# Longest a half-sent request may stay open: the timeout, and a loaded machine's delays
CLOSED_WITHIN = HEADER_TIMEOUT + TIMEOUT
# What each socket sends before it goes quiet
HALF_SENT = [
    b"",  # nothing at all
    b"GE",  # half the request line
    b"GET /api/health HTTP/1.1\r\n",  # the request line, no header
    b"GET /api/health HTTP/1.1\r\nHost: hall\r\nUser-Agent: slo",  # half a header
    b"GET /ws/tournaments/1?channels=standings HTTP/1.1\r\nHost: hall\r\n"
    b"Upgrade: websocket\r\nConnection: Upgrade\r\n",  # a websocket's handshake, unfinished
    b"POST /api/tournaments/1/hands HTTP/1.1\r\nHost: hall\r\nContent-Length: 10\r\n",
]
EACH = 5  # sockets of each kind
ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def serving(folder: Path) -> Iterator[LiveServer]:
    """`scoreboard serve` with this test's timeout of a request's head."""
    with pytest.MonkeyPatch.context() as environment:
        environment.setenv("SCOREBOARD_HEADER_TIMEOUT", str(HEADER_TIMEOUT))
        environment.setenv("SCOREBOARD_BODY_TIMEOUT", str(BODY_TIMEOUT))
        url = f"sqlite:///{folder / 'scoreboard.db'}"
        with LiveServer(url, free_port(), folder / "server.log") as live:
            yield live


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with serving(tmp_path_factory.mktemp("half-sent")) as live:
        yield live


def half_sent(server: LiveServer, start: bytes) -> socket.socket:
    sock = socket.create_connection((HOST, server.port), timeout=TIMEOUT)
    if start:
        sock.sendall(start)
    sock.setblocking(False)
    return sock


def closed_by_the_server(sock: socket.socket) -> bool:
    """Whether the server has closed it (what it sent before, a 400 say, is read past)."""
    try:
        while True:
            if not sock.recv(65536):
                return True
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def wait_until_closed(sockets: list[socket.socket], within: float) -> list[socket.socket]:
    """Wait until the server has closed every one of them, or `within` seconds have passed;
    those still open."""
    deadline = time.monotonic() + within
    open_ = list(sockets)
    while open_ and (left := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select(open_, [], [], min(left, 0.5))
        open_ = [sock for sock in open_ if sock not in readable or not closed_by_the_server(sock)]
    return open_


async def answer_head(sock: socket.socket) -> bytes:
    """What the server answered, up to the end of its head (or all it sent before it
    closed, or what came within TIMEOUT)."""
    answer = b""
    deadline = time.monotonic() + TIMEOUT
    while b"\r\n\r\n" not in answer and time.monotonic() < deadline:
        try:
            more = sock.recv(65536)
        except BlockingIOError:
            await asyncio.sleep(0.02)
            continue
        if not more:
            break
        answer += more
    return answer


def test_a_connection_that_does_not_send_its_whole_request_head_in_time_is_closed(
    server: LiveServer,
) -> None:
    sockets = [half_sent(server, start) for start in HALF_SENT for _ in range(EACH)]
    try:
        # A request made meanwhile is answered.
        assert httpx.get(f"{server.base_url}/api/health", timeout=TIMEOUT).status_code == 200
        # A connection kept alive after an answer, then half of a second request.
        kept = half_sent(server, b"GET /api/health HTTP/1.1\r\nHost: hall\r\n\r\n")
        sockets.append(kept)
        select.select([kept], [], [], TIMEOUT)
        kept.recv(65536)  # the first answer
        kept.sendall(b"GET /api/health HTTP/1.1\r\nHo")
        left = wait_until_closed(sockets, CLOSED_WITHIN)
        assert not left, f"{len(left)} of {len(sockets)} half-sent requests still open"
    finally:
        for sock in sockets:
            sock.close()


def test_a_body_that_does_not_come_in_time_is_answered_408_and_closed(
    server: LiveServer,
) -> None:
    """A client that sent a request's head, then part of its body and nothing more, or the
    body a byte at a time, held its connection for as long as it liked; in one process
    that request, of the judges' lane, was in flight all along, and every piece of the
    public's work waited for it (app/realtime/turns.py). Now a body may go
    SCOREBOARD_BODY_TIMEOUT seconds without a byte, and must be whole within that and what
    its size needs at 64 KiB/s: a trickle gains nothing."""
    head = (
        b"POST /api/tournaments/1/hands HTTP/1.1\r\nHost: hall\r\n"
        b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    stopped = half_sent(server, head + b'{"round":')
    trickled = half_sent(server, head)
    chunked = half_sent(
        server,
        b"POST /api/tournaments/1/hands HTTP/1.1\r\nHost: hall\r\n"
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        b'5\r\n{"rou\r\n',
    )
    sockets = [stopped, trickled, chunked]
    answers = dict.fromkeys(sockets, b"")
    open_ = list(sockets)
    deadline = time.monotonic() + BODY_TIMEOUT + TIMEOUT
    try:
        while open_ and time.monotonic() < deadline:
            if trickled in open_:
                with contextlib.suppress(OSError):  # a byte every quarter second: no gap
                    trickled.sendall(b" ")
            readable, _, _ = select.select(open_, [], [], 0.25)
            for sock in readable:
                try:
                    more = sock.recv(65536)
                except BlockingIOError:
                    continue
                except ConnectionResetError:
                    more = b""
                if more:
                    answers[sock] += more
                else:
                    open_.remove(sock)
        assert not open_, f"{len(open_)} of 3 slow bodies still open"
        for sock in sockets:
            assert answers[sock].startswith(b"HTTP/1.1 408"), answers[sock]
            assert b"SCOREBOARD_BODY_TIMEOUT" in answers[sock]
        # and the server answers on
        assert httpx.get(f"{server.base_url}/api/health", timeout=TIMEOUT).status_code == 200
    finally:
        for sock in sockets:
            sock.close()


def answered_within(url: str, seconds: float) -> bool:
    """Whether a GET of `url`, tried again whenever its connection is refused or dropped,
    is answered 200 within `seconds`."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            return httpx.get(url, timeout=left).status_code == 200
        except httpx.TransportError:
            time.sleep(0.05)
    return False


@pytest.mark.skipif(not hasattr(resource, "prlimit"), reason="sets another process's limit")
def test_half_sent_requests_that_use_up_the_open_files_leave_none_for_long(
    tmp_path: Path,
) -> None:
    """The probe's finding, small: the server's open files used up by half-sent requests,
    then a judge's requests. While the server has no file for a new socket, the event loop
    drops the connections waiting to be accepted (libuv, under uvloop) or leaves them
    waiting (asyncio's own): either way the judge is answered only once the half-sent
    requests have been closed, and before their timeout, never."""
    with serving(tmp_path) as server:
        assert server.process is not None
        pid = server.process.pid
        in_use = len(os.listdir(f"/proc/{pid}/fd"))
        room = 40  # sockets the server can still accept, a few files spare
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (in_use + room, in_use + room))
        sockets = [half_sent(server, b"GET /api/health HTTP/1.1\r\n") for _ in range(2 * room)]
        try:
            assert answered_within(f"{server.base_url}/api/health", CLOSED_WITHIN)
        finally:
            for sock in sockets:
                sock.close()


def test_a_head_sent_in_time_is_answered_and_a_websocket_outlives_the_head_timeout(
    server: LiveServer,
) -> None:
    """The timer is for the head alone: a head that comes in pieces within it is answered,
    and a websocket connection, whose head was whole long ago, stays."""
    tournament = httpx.post(
        f"{server.base_url}/api/tournaments/import",
        content='{"type": "tournament", "name": "Quiet", "format": {"name": "club", '
        '"preset": "wsom2008", "advance": [4]}}\n',
        headers={**ADMIN, "content-type": "text/plain"},
        timeout=TIMEOUT,
    )
    assert tournament.status_code == 201, tournament.text
    tid = tournament.json()["id"]

    async def scenario() -> None:
        async with Client.open(server.ws_url(tid, "standings")) as client:
            await client.until(lambda m: m.type == "snapshot")
            sock = half_sent(server, b"GET /api/health HTTP/1.1\r\n")
            try:
                await asyncio.sleep(HEADER_TIMEOUT / 8)  # pieces of the head, within its time
                sock.sendall(b"Host: hall\r\n")
                await asyncio.sleep(HEADER_TIMEOUT / 8)
                sock.sendall(b"Connection: close\r\n\r\n")
                answer = await answer_head(sock)
                assert answer.startswith(b"HTTP/1.1 200"), answer
            finally:
                sock.close()
            # Long past the head's timeout, the websocket still answers.
            half = half_sent(server, b"GE")
            try:
                assert not wait_until_closed([half], CLOSED_WITHIN)
            finally:
                half.close()
            await client.send({"type": "resync", "channels": ["standings"]})
            resync = await client.until(lambda m: m.type == "snapshot")
            assert resync[-1].channel == "standings"

    asyncio.run(scenario())


# -- the open-files limit ---------------------------------------------------------------


LOWERED = 512  # the soft limit the server below starts with


@contextmanager
def soft_open_files_limit(soft: int) -> Iterator[None]:
    """This process's soft limit lowered for a moment, so the server it starts inherits it."""
    before, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (before, hard))


def open_files_limits(pid: int) -> tuple[int, int]:
    """(soft, hard) open-files limits of a process, as Linux shows them."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError(f"no open-files line in /proc/{pid}/limits")


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="reads /proc (Linux)")
def test_the_server_raises_its_open_files_limit_to_the_hard_limit(tmp_path: Path) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= LOWERED:
        pytest.skip(f"the hard limit here ({hard}) leaves nothing to raise")
    url = f"sqlite:///{tmp_path / 'limits.db'}"
    with soft_open_files_limit(LOWERED):
        server = LiveServer(url, free_port(), tmp_path / "server.log")
        server.start()
    try:
        assert server.process is not None
        soft, hard_seen = open_files_limits(server.process.pid)
        assert soft == hard_seen, f"soft limit {soft}, hard limit {hard_seen}"
    finally:
        server.stop()


def test_a_low_hard_limit_is_said_at_start() -> None:
    """Where the hard limit itself is low, the server cannot raise it: it says so, with what
    it means and what to change."""
    script = textwrap.dedent(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, 256))
        from app.cli.serving import raise_open_files_limit
        from app.settings import Settings
        print(raise_open_files_limit(Settings()))
        print(resource.getrlimit(resource.RLIMIT_NOFILE))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "SCOREBOARD_WS_CONNECTIONS_PER_ADDRESS": "200"},
    )
    assert done.returncode == 0, done.stderr
    said, limits = done.stdout.strip().splitlines()
    assert limits == "(256, 256)"
    assert "256" in said and "ulimit" in said and "SCOREBOARD_WS_CONNECTIONS_PER_ADDRESS" in said
