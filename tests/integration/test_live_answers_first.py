"""A judge's answer goes before the live feed's update of what the hand changed (issue 14).

The update of the standings (the view and a send to every follower) runs on the server's
event loop, and so does the judge's answer: when the update went first, every follower of
the hall, or 200 held by a hostile client, put its cost on every judge's answer (3 to 4 ms
with 200 followers, in `python -m bench.hostile`). Now each write owes its client an answer
(hub.OWED_ANSWER), and the update waits for it, a bounded time (`hub.answer_wait`).

A real server in the test's thread, a real websocket client following the standings, and a
store subscriber of the test's own that holds the writing thread a moment after the commit:
the hub hears of the commit at once, and the answer comes only after that moment.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn
from live_setup import Client, app_state, scoreboard_in_a_thread

from app.realtime.source import Commit
from app.services.store import TournamentStore
from bench.load import HOST
from tests.integration.judging_setup import club_opening, hand, self_draw

HELD = 0.3  # seconds the test's subscriber holds the writing thread after each commit


@pytest.fixture
def server(database_url: str) -> Iterator[uvicorn.Server]:
    with scoreboard_in_a_thread(database_url) as running:
        yield running


async def _enter_a_hand_beside_a_follower(server: uvicorn.Server) -> tuple[float, float]:
    """When the judge's answer came, and when the follower's change came (time.monotonic())."""
    store: TournamentStore = app_state(server)["store"]
    tid = store.import_log(club_opening()).tournament_id
    token = store.issue_token(tid, 1)

    def slow_after_commit(_: Commit) -> None:
        time.sleep(HELD)  # the writing thread, after the hub has heard of the commit

    store.subscribe(slow_after_commit)
    port = server.config.port
    url = f"ws://{HOST}:{port}/ws/tournaments/{tid}?channels=standings"
    async with Client.open(url) as follower, httpx.AsyncClient() as judge:
        await follower.until(lambda m: m.type == "snapshot")

        async def enter() -> tuple[httpx.Response, float]:
            answer = await judge.post(
                f"http://{HOST}:{port}/api/tournaments/{tid}/hands",
                json=hand(1, 1, self_draw("ami", 8)),
                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "first"},
                timeout=10,
            )
            return answer, time.monotonic()

        entering = asyncio.create_task(enter())
        changed = await follower.until(lambda m: m.type == "change")
        answer, answered = await entering
        assert answer.status_code == 201, answer.text
        return answered, changed[-1].at


def test_the_judge_is_answered_before_the_followers_get_the_change(
    server: uvicorn.Server,
) -> None:
    # Long enough for any machine: the update waits for the answer, however slow it is here.
    app_state(server)["hub"].answer_wait = 10.0
    answered, changed = asyncio.run(_enter_a_hand_beside_a_follower(server))
    assert answered < changed, (
        f"the followers had the change {answered - changed:.3f} s before the judge's answer"
    )


def test_a_slow_answer_holds_the_followers_back_no_longer_than_the_answer_wait(
    server: uvicorn.Server,
) -> None:
    # The answer takes HELD seconds to come; the hall's screens wait a tenth of that at most.
    app_state(server)["hub"].answer_wait = HELD / 10
    answered, changed = asyncio.run(_enter_a_hand_beside_a_follower(server))
    assert changed < answered - HELD / 2, (
        f"the followers had the change only {answered - changed:.3f} s before the answer"
    )
