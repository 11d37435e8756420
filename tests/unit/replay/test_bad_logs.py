"""A bad line in a tournament log is refused, naming its line, field and rule (CONTRACT.md
§1 and §2), and refusing it loses nothing of what the lines before it recorded.

Every case is one of the small valid logs of `small_logs` plus one bad line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from small_logs import (
    ADVANCED,
    DRAW,
    ELIMINATED,
    GROUP_A,
    GROUP_B,
    PLAYED,
    REGISTERED,
    ROUND_ONE_ENDED,
    ROUND_TWO,
    SEATED,
    TOURNAMENT,
    Line,
    discard,
    hand,
    penalty,
    player,
    points,
    rate,
    round_end,
    seating,
    self_draw,
    text,
    texts,
    void,
)

from app.domain.errors import LogError, MalformedInput, RuleViolation
from app.domain.log import parse_line
from app.domain.replay import replay_lines, report

# Only 8 ranked players for a round that advances 8 (rule FM-6).
TOO_SMALL: list[Line] = [
    *TOURNAMENT,
    *(player(p, "A") for p in GROUP_A[:4]),
    *(player(p, "B") for p in GROUP_B[:4]),
]
# A valid line written after every bad one: the error must name the bad line, not the last.
AFTER: list[Line] = [{"type": "prizes", "amounts": [100, 50]}]


@dataclass(frozen=True)
class BadLog:
    id: str
    prefix: list[Line]
    bad: Line
    field: str
    rule: str

    @property
    def line_number(self) -> int:
        return len(self.prefix) + 1


def _without(line: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in line.items() if k != key}


CASES = [
    # -- seating --------------------------------------------------------------------
    BadLog(
        "player-seated-twice-in-a-segment",
        [*PLAYED, seating(1, 2, 1, GROUP_A[:4])],
        seating(1, 2, 2, ["P05", "P06", "P07", "P01"]),
        "seats[3]",
        "FM-9",
    ),
    BadLog(
        "player-twice-at-one-table",
        PLAYED,
        seating(1, 2, 1, ["P01", "P02", "P03", "P01"]),
        "seats",
        "FM-9",
    ),
    BadLog(
        "round-1-table-of-both-groups",
        PLAYED,
        seating(1, 2, 1, ["P01", "P02", "P03", "P09"]),
        "seats",
        "FM-2",
    ),
    BadLog(
        "group-a-table-number-reused-by-group-b",
        PLAYED,
        seating(1, 2, 1, GROUP_B[:4]),
        "table",
        "CONTRACT §1",
    ),
    BadLog(
        "reseating-a-table-that-has-hands",
        PLAYED,
        seating(1, 1, 1, ["P04", "P03", "P02", "P01"]),
        "seats",
        "SE-5",
    ),
    BadLog(
        "segment-beyond-the-round",
        PLAYED,
        seating(1, 5, 1, GROUP_A[:4]),
        "segment",
        "FM-2",
    ),
    BadLog(
        "unknown-player-at-a-table",
        PLAYED,
        seating(1, 2, 1, ["P01", "P02", "P03", "P99"]),
        "seats[3]",
        "CONTRACT §1",
    ),
    # -- hands ----------------------------------------------------------------------
    BadLog("hand-at-a-table-with-no-seating", PLAYED, hand(1, 1, 5, 1, DRAW), "table", "SE-1"),
    BadLog("hand-in-a-segment-not-seated-yet", PLAYED, hand(1, 2, 1, 1, DRAW), "table", "SE-1"),
    BadLog(
        "winner-not-at-the-table",
        PLAYED,
        hand(1, 1, 1, 3, self_draw("P05", 10)),
        "result.winner",
        "HS-1",
    ),
    BadLog(
        "discarder-not-at-the-table",
        PLAYED,
        hand(1, 1, 1, 3, discard("P01", "P09", 10)),
        "result.discarder",
        "HS-1",
    ),
    BadLog(
        "direct-points-for-a-player-not-at-the-table",
        PLAYED,
        hand(1, 1, 1, 3, points({"P01": 10, "P02": -10, "P03": 0, "P05": 0})),
        "result.deltas.P05",
        "HS-1",
    ),
    BadLog(
        "value-below-the-minimum",
        PLAYED,
        hand(1, 1, 1, 3, self_draw("P01", 4)),
        "result.value",
        "HS-3",
    ),
    BadLog(
        "value-above-320",
        PLAYED,
        hand(1, 1, 1, 3, self_draw("P01", 321)),
        "result.value",
        "HS-3",
    ),
    BadLog(
        "discard-value-above-320",
        PLAYED,
        hand(1, 1, 1, 3, discard("P01", "P02", 400)),
        "result.value",
        "HS-3",
    ),
    BadLog(
        "direct-points-not-summing-to-zero",
        PLAYED,
        hand(1, 1, 1, 3, points({"P01": 30, "P02": -10, "P03": -10, "P04": -9})),
        "result.deltas",
        "HS-7",
    ),
    BadLog(
        "hand-out-of-order",
        [*SEATED, hand(1, 1, 1, 1, DRAW)],
        hand(1, 1, 1, 3, DRAW),
        "hand",
        "CONTRACT §1",
    ),
    BadLog("first-hand-not-hand-1", SEATED, hand(1, 1, 1, 2, DRAW), "hand", "CONTRACT §1"),
    # rule FM-2: a round-1 half has 8 hands
    BadLog("hand-beyond-the-segment", PLAYED, hand(1, 1, 1, 9, DRAW), "hand", "FM-2"),
    BadLog("hand-after-its-round-ended", ROUND_ONE_ENDED, hand(1, 1, 1, 3, DRAW), "round", "FM-1"),
    BadLog("hand-in-a-round-the-format-lacks", PLAYED, hand(4, 1, 1, 1, DRAW), "round", "FM-1"),
    BadLog("void-of-a-hand-that-does-not-exist", PLAYED, void(1, 1, 1, 5), "hand", "CONTRACT §1"),
    BadLog(
        "void-of-a-voided-hand",
        [*PLAYED, void(1, 1, 1, 2)],
        void(1, 1, 1, 2),
        "hand",
        "CONTRACT §1",
    ),
    # -- rounds the player did not reach, rounds not begun ----------------------------
    BadLog(
        "round-2-seating-of-an-eliminated-player",
        ROUND_ONE_ENDED,
        seating(2, 1, 1, ["P01", "P02", "P05", "P03"]),
        "seats[3]",
        "ST-3",
    ),
    BadLog(
        "round-2-penalty-for-an-eliminated-player",
        ROUND_TWO,
        penalty(2, "P16"),
        "player",
        "ST-3",
    ),
    BadLog(
        "round-2-seating-before-round-1-ended",
        PLAYED,
        seating(2, 1, 1, ["P01", "P02", "P05", "P06"]),
        "round",
        "FM-1",
    ),
    BadLog("round-2-penalty-before-round-1-ended", PLAYED, penalty(2, "P01"), "round", "FM-1"),
    BadLog("penalty-after-its-round-ended", ROUND_TWO, penalty(1, "P01"), "round", "FM-1"),
    BadLog("penalty-for-an-unknown-player", PLAYED, penalty(1, "P99"), "player", "CONTRACT §1"),
    BadLog("penalty-of-zero-points", PLAYED, penalty(1, "P01", 0), "points", "PN-1"),
    # -- round ends -----------------------------------------------------------------
    BadLog("round-end-needing-a-draw-without-a-seed", SEATED, round_end(1), "draw_seed", "ST-5"),
    BadLog(
        "round-end-field-not-larger-than-advance", TOO_SMALL, round_end(1, "seed"), "round", "FM-6"
    ),
    BadLog("round-ended-twice", ROUND_ONE_ENDED, round_end(1), "round", "FM-1"),
    # -- carry-over rate ------------------------------------------------------------
    BadLog("second-rate-change-after-round-1-began", PLAYED, rate("1/3"), "rate", "SC-3"),
    BadLog("rate-change-for-round-2", REGISTERED, rate("1/3", round_=2), "round", "SC-3"),
    # -- the shape of a line (CONTRACT §1) ------------------------------------------
    BadLog("unknown-line-type", PLAYED, {"type": "chat", "text": "hello"}, "type", "CONTRACT §1"),
    BadLog("line-without-a-type", PLAYED, {"round": 1}, "type", "CONTRACT §1"),
    BadLog("malformed-json", PLAYED, '{"type": "hand", "round": 1,', "line", "CONTRACT §1"),
    BadLog("line-not-an-object", PLAYED, "[1, 2, 3]", "line", "CONTRACT §1"),
    BadLog(
        "missing-required-field",
        PLAYED,
        _without(hand(1, 1, 1, 3, DRAW), "table"),
        "table",
        "CONTRACT §1",
    ),
    BadLog(
        "unknown-field",
        PLAYED,
        {**hand(1, 1, 1, 3, DRAW), "comment": "long hand"},
        "comment",
        "CONTRACT §1",
    ),
    BadLog(
        "unknown-result-field",
        PLAYED,
        hand(1, 1, 1, 3, {**self_draw("P01", 10), "bonus": 2}),
        "result.bonus",
        "HS-1",
    ),
    BadLog("first-line-not-the-tournament-line", [], player("P01", "A"), "type", "CONTRACT §1"),
    BadLog("second-tournament-line", PLAYED, TOURNAMENT[0], "type", "CONTRACT §1"),
]


def test_the_base_logs_are_valid() -> None:
    """The cases only mean something if everything before their bad line is accepted."""
    tournament = replay_lines(texts(ROUND_TWO + AFTER))

    round_one = tournament.standings(1)
    assert sorted(r.player for r in round_one.rows if r.status == "advanced") == ADVANCED
    assert sorted(r.player for r in round_one.rows if r.status == "eliminated") == ELIMINATED
    replay_lines(texts(TOO_SMALL))


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_bad_line_is_refused_naming_its_line_field_and_rule(case: BadLog) -> None:
    with pytest.raises(LogError) as caught:
        replay_lines(texts([*case.prefix, case.bad, *AFTER]))

    error = caught.value
    found = (error.line_number, error.violation.field, error.violation.rule)
    assert found == (case.line_number, case.field, case.rule), str(error)
    message = str(error)
    assert message.startswith(f"line {case.line_number}: "), message
    assert case.field in message
    assert f"rule {case.rule}" in message


def test_blank_lines_count_in_the_line_number() -> None:
    lines = [*texts(PLAYED), "", "   ", text(hand(1, 1, 1, 3, self_draw("P05", 10)))]

    with pytest.raises(LogError) as caught:
        replay_lines(lines)

    assert caught.value.line_number == len(PLAYED) + 3
    assert str(caught.value).startswith(f"line {len(PLAYED) + 3}: ")


def test_an_empty_log_is_refused() -> None:
    with pytest.raises(LogError) as caught:
        replay_lines([])

    assert caught.value.line_number == 1
    assert caught.value.violation.field == "type"


def _applies_to_a_tournament(case: BadLog) -> bool:
    """Cases whose bad line parses and comes after the tournament line: `apply` sees them."""
    if not case.prefix:
        return False
    try:
        parse_line(text(case.bad))
    except MalformedInput:
        return False
    return True


ATOMIC_CASES = [
    *(case for case in CASES if _applies_to_a_tournament(case)),
    # The very first event after the tournament line, before anyone has registered.
    BadLog(
        "seating-before-any-registration",
        TOURNAMENT,
        seating(1, 1, 1, ["P01", "P02", "P03", "P04"]),
        "seats[0]",
        "CONTRACT §1",
    ),
]


@pytest.mark.parametrize("case", ATOMIC_CASES, ids=[case.id for case in ATOMIC_CASES])
def test_a_refused_line_changes_nothing(case: BadLog) -> None:
    tournament = replay_lines(texts(case.prefix))
    before = json.dumps(report(tournament), sort_keys=True)
    events = list(tournament.events)
    rounds = sorted(tournament.rounds)
    fmt = tournament.format

    with pytest.raises(RuleViolation):
        tournament.apply(parse_line(text(case.bad)))

    assert json.dumps(report(tournament), sort_keys=True) == before
    assert tournament.events == events
    assert sorted(tournament.rounds) == rounds
    assert tournament.format == fmt
    # what is left is exactly the good prefix, replayed afresh
    assert report(tournament) == report(replay_lines(texts(case.prefix)))
