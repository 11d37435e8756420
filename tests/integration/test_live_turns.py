"""A client's burst of messages never holds the server's event loop in one go (issue 14).

bench/hostile.py's subscribe flood sends a client's whole allowance at once: 100 subscribes
of 64 made-up channels each. They reach the server together and wait in its queue, and
taking a queued message does not wait, so the server took all of them in one turn of its
event loop (76 ms of CPU on the bench's machine) and a judge's hand that came meanwhile
waited all of it. Now the live feed takes one message a turn.

The server is uvicorn with the app and its protocols, in this test's own event loop, so that
the test can count the loop's turns between two messages the server takes. Counting, not
timing: the figure is the bench's.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
import uvicorn
from in_process import IN_PROCESS_TIMEOUTS
from websockets.asyncio.client import connect

from app.db.engine import make_engine
from app.services.store import TournamentStore
from app.settings import Settings
from app.web import create_app, live
from app.web.live_protocol import HttpProtocol
from bench.load import HOST, free_port
from tests.integration.judging_setup import club_opening
from tests.integration.live_setup import ADMIN_TOKEN, TIMEOUT, live_config, open_tournament

BURST = 40  # subscribe messages sent at once, within the default allowance (100)


def test_a_burst_of_messages_is_taken_one_a_turn_of_the_event_loop(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(database_url, IN_PROCESS_TIMEOUTS)
    try:
        tournament = open_tournament(TournamentStore(engine), club_opening(), (1,))
    finally:
        engine.dispose()
    settings = Settings(
        database_url=database_url,
        admin_token=ADMIN_TOKEN,  # type: ignore[arg-type]
        db_idle_in_transaction_timeout=IN_PROCESS_TIMEOUTS.idle_in_transaction,
    )
    port = free_port()
    server = uvicorn.Server(
        live_config(create_app(settings), port, http=HttpProtocol, loop="asyncio")
    )
    turns = 0
    taken: list[int] = []  # the loop's turn at each message the server took

    def counted(take: Callable[..., Any]) -> Callable[..., Any]:
        def request(*args: Any) -> Any:
            taken.append(turns)
            return take(*args)

        return request

    monkeypatch.setattr(live, "_request", counted(live._request))

    async def ticker() -> None:
        nonlocal turns
        while True:
            await asyncio.sleep(0)  # once every turn of the loop
            turns += 1

    async def scenario() -> None:
        serving = asyncio.create_task(server.serve())
        counting = asyncio.create_task(ticker())
        try:
            while not server.started:
                await asyncio.sleep(0.01)
            url = f"ws://{HOST}:{port}/ws/tournaments/{tournament.tid}?channels=standings"
            # it read none of the 40 error frames: its close handshake is not waited out
            async with connect(url, close_timeout=0.5) as client:
                for _ in range(2):  # the hello and the standings' snapshot
                    await asyncio.wait_for(client.recv(), TIMEOUT)
                made_up = [f"player:nobody-{n}" for n in range(64)]
                message = json.dumps({"type": "subscribe", "channels": dict.fromkeys(made_up)})
                for _ in range(BURST):  # written at once: no send here waits
                    await client.send(message)
                async with asyncio.timeout(TIMEOUT):
                    while len(taken) < BURST:
                        await asyncio.sleep(0.01)
        finally:
            counting.cancel()
            server.should_exit = True
            await serving

    asyncio.run(scenario())
    assert len(taken) == BURST
    # Each message in a turn of its own: the loop went round (other requests were served)
    # between any two. Before, most of the burst was taken in one turn.
    assert all(later > earlier for earlier, later in zip(taken, taken[1:], strict=False)), taken
