"""The clock overlay's title says the segment and the group or groups of round 1 it times
(issue 13; rule FM-2), as app/static/overlay.js sessionTitle does (tests/e2e/test_overlay.py)."""

from __future__ import annotations

from typing import Any

import pytest

from app.web.overlay import session_title

ROUNDS = {"1": {"name": "Round 1", "segment": "Half"}, "8": {"name": "Final", "segment": "Session"}}


def row(group: str | None, round_number: int = 1, segment: int = 2) -> dict[str, Any]:
    return {"round": round_number, "segment": segment, "group": group}


@pytest.mark.parametrize(
    ("session", "title"),
    [
        ([row("A"), row("A")], "Round 1 \u00b7 Group A \u00b7 Half 2"),
        ([row("B"), row("A"), row("B")], "Round 1 \u00b7 Groups A and B \u00b7 Half 2"),
        ([row(None, 8, 1)], "Final \u00b7 Session 1"),
    ],
)
def test_the_clock_names_the_groups_it_times(session: list[dict[str, Any]], title: str) -> None:
    assert session_title(ROUNDS, session) == title
