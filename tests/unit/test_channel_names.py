"""A live channel has one name (issue 32, item 5): `table:1`, never also `table:01` or
`table:001`. The feed keeps a state per name and recomputes each at every update, and a
channel outlives its clients by SCOREBOARD_WS_RESUME_SECONDS: every other spelling of the
same channel was one more state to compute, for a minute after its client had gone (200
connections of 64 spellings each took a judge's answer from 37 ms to 1.6 s at the 99th
percentile). Another spelling is refused, not folded into the name: the client would get
frames under a name it did not ask for, which a client ignores (CONTRACT §3).

A player's channel is named by the player's id as the log writes it: ids are
case-sensitive and compared as they are, so `player:P0042` and `player:p0042` are two
players when both are registered, and a spelling that no registered id has (another case,
another Unicode normalization form) names nobody: the feed refuses it as a player the
tournament does not have (app/read/views.py, in_tournament)."""

from __future__ import annotations

import json
import unicodedata

import pytest

from app.domain.replay import replay_lines
from app.read.views import in_tournament
from app.realtime.channels import valid_channel

ZOE = unicodedata.normalize("NFC", "Zoë")  # the ë as one character


@pytest.mark.parametrize(
    "name",
    [
        "standings",
        "clocks",
        "needs",
        "stats",
        "calls",
        "checkin",
        "table:1",
        "table:12",
        "table:2147483647",
        "player:P0042",
        "player:p0042",
        "player:42",
        "player:-7",
        f"player:{ZOE}",
        f"player:{unicodedata.normalize('NFD', ZOE)}",  # may be another registered id
    ],
)
def test_the_one_name_of_each_channel_is_valid(name: str) -> None:
    assert valid_channel(name)


@pytest.mark.parametrize(
    "name",
    [
        "table:01",
        "table:001",
        "table:0012",
        "table:" + "0" * 150 + "1",
        "table:0",
        "table:+1",
        "table:1.0",
        "table: 1",
        "table:1 ",
        "table:\uff11",  # a full-width one
        "table:\u0661",  # an Arabic-Indic one
        "standings:",
        "clocks:",
        "needs:",
        "stats:",
        "calls:",
        "checkin:",
        "Standings",
        "TABLE:1",
        "player:",
    ],
)
def test_another_spelling_of_a_channel_is_not_a_channel_name(name: str) -> None:
    assert not valid_channel(name)


def _tournament(*player_ids: str) -> object:
    lines = [
        {
            "type": "tournament",
            "name": "Spellings",
            "format": {"name": "club", "preset": "wsom2008", "advance": [4]},
        },
        *(
            {"type": "player", "id": player, "name": f"Player {index}", "group": "A"}
            for index, player in enumerate(player_ids)
        ),
    ]
    return replay_lines(json.dumps(line, ensure_ascii=False) for line in lines)


def test_a_player_channel_names_the_registered_id_exactly() -> None:
    tournament = _tournament("P0042", ZOE, "ami", "bo")
    assert in_tournament(tournament, "player:P0042")  # type: ignore[arg-type]
    assert in_tournament(tournament, f"player:{ZOE}")  # type: ignore[arg-type]
    for other in ("player:p0042", "player:P042", unicodedata.normalize("NFD", f"player:{ZOE}")):
        assert not in_tournament(tournament, other), other  # type: ignore[arg-type]


def test_two_ids_that_differ_in_case_are_two_players_with_a_channel_each() -> None:
    tournament = _tournament("P0042", "p0042", "ami", "bo")
    assert in_tournament(tournament, "player:P0042")  # type: ignore[arg-type]
    assert in_tournament(tournament, "player:p0042")  # type: ignore[arg-type]
