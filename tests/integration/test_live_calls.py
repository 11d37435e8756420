"""The `calls` channel (issue 18, part 3) with a real websocket client against a real server
process: a tablet's call reaches the head judge's page and the tablets at once, its taking
too, and its resolving takes it off; the head judge's note never goes out on the channel
(channels are public), only through the head judge's API."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from in_process import IN_PROCESS_TIMEOUTS

from app.db.engine import make_engine
from app.services.store import HEAD_JUDGE, TournamentStore
from bench.load import free_port
from tests.integration.judging_setup import club_opening
from tests.integration.live_setup import (
    Client,
    LiveServer,
    http_client,
    open_tournament,
    run,
)

pytestmark = pytest.mark.slow  # a real server process

NOTE = "chombo: 100 points off, private word for the record"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("live-calls")
    with LiveServer(f"sqlite:///{folder / 'live.db'}", free_port(), folder / "server.log") as live:
        yield live


@pytest.fixture(scope="module")
def store(server: LiveServer) -> Iterator[TournamentStore]:
    engine = make_engine(server.database_url, IN_PROCESS_TIMEOUTS)
    yield TournamentStore(engine)
    engine.dispose()


def test_the_calls_channel_follows_a_call_without_its_note(
    server: LiveServer, store: TournamentStore
) -> None:
    club = open_tournament(store, club_opening(), (1, 2))
    head = store.issue_table_token(club.tid, 0, role=HEAD_JUDGE).token
    api = f"{server.base_url}/api/tournaments/{club.tid}"
    head_judge = {"Authorization": f"Bearer {head}"}

    async def scenario() -> None:
        async with (
            http_client() as http,
            Client.open(server.ws_url(club.tid, ("calls",))) as client,
        ):
            hello = await client.recv()
            assert hello.type == "hello"
            snapshot = await client.recv()
            assert snapshot.type == "snapshot" and snapshot.body["data"] == {"calls": []}

            made = await http.post(
                f"{api}/calls",
                json={"round": 1, "table": 2, "reason": "chombo"},
                headers={"Authorization": f"Bearer {club.tokens[2]}", "Idempotency-Key": "k-1"},
            )
            assert made.status_code == 201, made.text
            changes = await client.until_version("calls", made.json()["version"])
            assert changes[-1].body["mode"] == "replace"
            [call] = client.held["calls"].state["calls"]
            assert (call["id"], call["table"], call["reason"], call["state"]) == (
                "k-1",
                2,
                "chombo",
                "waiting",
            )
            assert call["called_at"] is not None

            taken = await http.post(f"{api}/calls/k-1/taken", headers=head_judge)
            await client.until_version("calls", taken.json()["version"])
            assert client.held["calls"].state["calls"][0]["state"] == "taken"

            resolved = await http.post(
                f"{api}/calls/k-1/resolved", json={"note": NOTE}, headers=head_judge
            )
            messages = await client.until_version("calls", resolved.json()["version"])
            assert client.held["calls"].state == {"calls": []}
            assert all(NOTE not in json.dumps(m.body) for m in [*changes, *messages])
            # the note is the head judge's API's
            listed = (await http.get(f"{api}/calls", headers=head_judge)).json()
            assert listed["calls"][0]["note"] == NOTE

    run(scenario())
