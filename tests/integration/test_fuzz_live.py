"""Hypothesis fuzzes the live feed (issue 14) with a real client against `scoreboard serve`,
on SQLite and on PostgreSQL: generated channel lists in the address and generated messages
(subscribe, unsubscribe, resync and anything else, with NUL, any character and nested
values in them) never crash the connection with an exception in the server's log. A
connection either goes on answering (a resync gets an answer) or is closed with a reason
the feed gives, never 1011 (an internal error).

The two cases seen in issue 14 that the websocket limits fix (app/web/live.py: the close
reason's length, the nesting of a subscribe message) are run as their own tests below; the
generated cases stay clear of them (channel names in the address are short, nesting is
shallow).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from bench.load import free_port
from tests.integration.conftest import postgres_url, reset_postgres
from tests.integration.judging_setup import club_opening
from tests.integration.live_setup import ADMIN, LiveServer

pytestmark = pytest.mark.slow
EXAMPLES = 20  # on each database
TIMEOUT = 10.0
INTERNAL_ERROR = 1011
# What the server's log shows when a handler raised: uvicorn's and the app's own words.
CRASH_MARKS = ("Traceback", "Exception in ASGI application", "RecursionError", "Error:")


@dataclass(frozen=True)
class LiveTarget:
    server: LiveServer
    tournament_id: int
    log_path: Path

    def log_size(self) -> int:
        return self.log_path.stat().st_size if self.log_path.exists() else 0

    def crashes_since(self, offset: int) -> str:
        with self.log_path.open("rb") as log:
            log.seek(offset)
            text = log.read().decode(errors="replace")
        return "\n".join(
            line for line in text.splitlines() if any(mark in line for mark in CRASH_MARKS)
        )


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveTarget]:
    folder = tmp_path_factory.mktemp("fuzz-live")
    if request.param == "sqlite":
        url = f"sqlite:///{folder / 'live.db'}"
    else:
        url = postgres_url()
        reset_postgres(url)
    log_path = folder / "server.log"
    server = LiveServer(url, free_port(), log_path)
    server.start()
    try:
        imported = httpx.post(
            f"{server.base_url}/api/tournaments/import",
            content="\n".join(club_opening()) + "\n",
            headers={**ADMIN, "content-type": "text/plain"},
            timeout=TIMEOUT,
        )
        assert imported.status_code == 201, imported.text
        yield LiveTarget(server, imported.json()["id"], log_path)
    finally:
        server.stop()


def _url(target: LiveTarget, query: str = "") -> str:
    base = f"ws://127.0.0.1:{target.server.port}/ws/tournaments/{target.tournament_id}"
    return base + (f"?{query}" if query else "")


# -- what a client may send -------------------------------------------------------------

text = st.text(max_size=30)  # any character, NUL included
names = st.one_of(
    text,
    st.sampled_from(["standings", "clocks", "tables", "table:1", "table:0", "player:ami"]),
    st.builds(lambda s: f"player:{s}", text),
    st.builds(lambda n: f"table:{n}", st.integers()),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=12,
)
requests = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("subscribe"),
            "channels": st.dictionaries(names, json_values, max_size=5) | json_values,
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["unsubscribe", "resync"]),
            "channels": st.lists(names, max_size=5) | json_values,
        }
    ),
    st.dictionaries(text, json_values, max_size=4),
    json_values,
)
frames = st.one_of(
    requests.map(lambda value: json.dumps(value)),
    text,  # not JSON at all
    st.binary(max_size=30),
)
# Short names in the address: a long invalid one is the known close-reason case below.
address_channels = st.lists(st.text(max_size=12) | names.filter(lambda n: len(n) <= 20), max_size=4)


def _still_answers(connection: ClientConnection) -> None:
    """The handler still serves (the standings come), or the feed has closed the connection
    with its own reason, never as an internal error."""
    try:
        # a new channel gets its snapshot, one held already gets it on the resync
        connection.send(json.dumps({"type": "subscribe", "channels": {"standings": None}}))
        connection.send(json.dumps({"type": "resync", "channels": ["standings"]}))
        connection.recv(timeout=TIMEOUT)
    except ConnectionClosed as closed:
        code = closed.rcvd.code if closed.rcvd is not None else None
        assert code != INTERNAL_ERROR, closed


def _run(target: LiveTarget, query: str, sent: list[str | bytes]) -> None:
    offset = target.log_size()
    try:
        with connect(_url(target, query), open_timeout=TIMEOUT, close_timeout=TIMEOUT) as ws:
            try:
                ws.recv(timeout=TIMEOUT)  # hello, or the close of a bad address
                for frame in sent:
                    ws.send(frame)
                _still_answers(ws)
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else None
                assert code != INTERNAL_ERROR, closed
    except InvalidStatus as refused:  # a handshake refused with an HTTP status
        assert refused.response.status_code < 500, refused
    crashes = target.crashes_since(offset)
    assert not crashes, f"the server logged an exception:\n{crashes}"


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,  # the same cases on every run
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)
@given(channels=address_channels, sent=st.lists(frames, max_size=4))
def test_no_generated_address_or_message_crashes_a_connection(
    live: LiveTarget, channels: list[str], sent: list[str | bytes]
) -> None:
    query = "channels=" + quote(",".join(channels), safe="") if channels else ""
    _run(live, query, sent)


# -- the two cases of issue 14 the websocket limits fix ----------------------------------


def test_a_channel_name_of_201_characters_in_the_address_is_closed_cleanly(
    live: LiveTarget,
) -> None:
    _run(live, "channels=player:" + "x" * 201, [])


def test_a_subscribe_message_nested_100000_deep_is_closed_cleanly(live: LiveTarget) -> None:
    deep = '{"type":"subscribe","channels":' + "[" * 100_000 + "]" * 100_000 + "}"
    _run(live, "", [deep])


def test_the_seen_cases_of_the_fuzz_corpus_do_not_crash_a_connection(live: LiveTarget) -> None:
    """NUL and nesting the generator reaches rarely, every time."""
    nested: Any = "standings"
    for _ in range(30):
        nested = {"channels": [nested]}
    for query, sent in [
        ("channels=" + quote("player:\x00", safe=""), []),
        ("channels=" + quote("table:\x00,standings", safe=""), []),
        ("", [json.dumps({"type": "subscribe", "channels": {"player:a\x00b": None}})]),
        ("", [json.dumps({"type": "subscribe", "channels": {"player:ami": "\x00"}})]),
        ("", [json.dumps({"type": "unsubscribe", "channels": ["\x00" * 30]})]),
        ("", [json.dumps({"type": "subscribe", "channels": nested})]),
        ("", [b"\x00\xff\xfe"]),
    ]:
        _run(live, query, sent)
