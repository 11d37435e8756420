"""The public answers' versions (issue 32; app/web/public_answers.VersionBoard): a tournament
this process has not heard of is looked for in the database at once, but one found missing is
not looked for again on every request for it."""

from __future__ import annotations

import asyncio

from app.services.store import Listed
from app.web import public_answers
from app.web.public_answers import VersionBoard


def test_a_missing_tournament_costs_one_query_a_poll_not_one_a_request() -> None:
    asked: list[int] = []
    listed = [Listed(1, "Club night", 4)]

    def tournaments() -> list[Listed]:
        asked.append(1)
        return list(listed)

    async def scenario() -> None:
        board = VersionBoard(tournaments)
        assert await board.stamp(1) == 4
        assert len(asked) == 1
        for _ in range(50):  # a reader asking again and again for one that is not there
            assert await board.stamp(99) is None
        assert len(asked) == 2  # looked for once
        listed.append(Listed(7, "Made elsewhere", 1))
        assert await board.stamp(7) == 1  # a new one is looked for at once, still
        assert len(asked) == 3
        board._missing[99] -= public_answers.VERSIONS_POLL  # a poll's time later
        assert await board.stamp(99) is None
        assert len(asked) == 4

    asyncio.run(scenario())
