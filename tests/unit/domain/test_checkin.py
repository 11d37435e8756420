"""Check-in and no-shows (issue 18, part 4): the slip's code (CI-1), the check_in line
(CI-2), who checks in (CI-3), lateness (CI-5, PN-1) and a substitute in a missing player's
seat (FM-9, SE-5)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.checkin import (
    ALPHABET,
    CODE_LENGTH,
    check_in_code,
    code_matches,
    read_code,
    roll_call,
    shown_code,
    substitute_seatings,
)
from app.domain.errors import IllegalMove, LogError, MalformedInput
from app.domain.log import CheckedIn, event_to_log, parse_line
from app.domain.replay import replay_lines
from app.domain.tournament import Tournament

Replay = Callable[[Sequence[dict[str, Any]]], Tournament]
SECRET = b"a test secret, never a server's"

TOURNAMENT = {
    "type": "tournament",
    "name": "Open",
    "format": {"name": "club", "preset": "wsom2008", "advance": [4]},
}


def _player(player_id: str, group: str = "A", **fields: Any) -> dict[str, Any]:
    return {"type": "player", "id": player_id, "name": f"Player {player_id}", "group": group} | (
        fields
    )


def _seating(segment: int, table: int, seats: list[str]) -> dict[str, Any]:
    return {"type": "seating", "round": 1, "segment": segment, "table": table, "seats": seats}


# a1..a4 at table 1 and b1..b4 at table 2 in every segment of round 1 (each group plays
# 4 halves, rule FM-2); s1 and s2 are substitutes of group A standing by (FM-9)
BASE: list[dict[str, Any]] = [
    TOURNAMENT,
    *[_player(f"a{n}") for n in range(1, 5)],
    *[_player(f"b{n}", "B") for n in range(1, 5)],
    _player("s1", substitute=True),
    _player("s2", substitute=True),
    _player("sb", "B", substitute=True),
    *[_seating(segment, 1, ["a1", "a2", "a3", "a4"]) for segment in range(1, 5)],
    *[_seating(segment, 2, ["b1", "b2", "b3", "b4"]) for segment in range(1, 5)],
]


def _check_in(player: str, how: str = "slip", **fields: Any) -> dict[str, Any]:
    return {"type": "check_in", "round": 1, "player": player, "how": how} | fields


def _tournament(*lines: dict[str, Any]) -> Tournament:
    return replay_lines(json.dumps(line) for line in [*BASE, *lines])


# -- the code (rule CI-1) ----------------------------------------------------------------


def test_a_code_is_six_characters_of_the_unambiguous_alphabet() -> None:
    code = check_in_code(SECRET, 1, 1, "a1")
    assert len(code) == CODE_LENGTH
    assert set(code) <= set(ALPHABET)
    assert not set("01ILO") & set(ALPHABET)  # rule CI-1: nothing read as something else


@pytest.mark.parametrize(
    ("changed", "why"),
    [
        ((SECRET + b"x", 1, 1, "a1"), "another server's secret"),
        ((SECRET, 2, 1, "a1"), "another tournament"),
        ((SECRET, 1, 2, "a1"), "another round"),
        ((SECRET, 1, 1, "a2"), "another player"),
    ],
)
def test_a_code_opens_one_player_for_one_round_of_one_tournament(
    changed: tuple[bytes, int, int, str], why: str
) -> None:
    # rule CI-1: each input changes the code (HMAC); these four are known to differ
    assert check_in_code(*changed) != check_in_code(SECRET, 1, 1, "a1"), why


def test_a_code_is_the_same_every_time() -> None:
    assert check_in_code(SECRET, 3, 2, 17) == check_in_code(SECRET, 3, 2, 17)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("K7M-4QX", "K7M4QX"),
        ("k7m4qx", "K7M4QX"),
        (" k7m 4qx ", "K7M4QX"),
        ("K7M\t4QX", "K7M4QX"),
    ],
)
def test_a_code_is_read_without_case_dashes_or_spaces(typed: str, read: str) -> None:
    assert read_code(typed) == read  # rule CI-1


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("K7M-4Q0", "'0'"),  # a zero: never in a code
        ("K7M-4QO", "'O'"),
        ("KIM-4QX", "'I'"),
        ("K7M-4Q", "has 5"),
        ("K7M-4QXX", "has 7"),
        ("", "has 0"),
        ("K" * 21, "21 characters"),
        ("K7M-4Q✓", "'✓'"),
    ],
)
def test_a_bad_code_is_refused_naming_the_field_and_rule(typed: str, says: str) -> None:
    with pytest.raises(MalformedInput) as refused:
        read_code(typed)
    assert (refused.value.field, refused.value.rule) == ("code", "CI-1")
    assert says in refused.value.message


@given(st.text(max_size=40))
def test_reading_a_code_either_refuses_or_gives_one_of_the_alphabet(typed: str) -> None:
    try:
        code = read_code(typed)
    except MalformedInput as refused:
        assert refused.rule == "CI-1"
    else:
        assert len(code) == CODE_LENGTH and set(code) <= set(ALPHABET)


@given(st.integers(1, 10**6), st.integers(1, 8), st.text(min_size=1, max_size=20))
def test_a_printed_code_reads_back_as_itself(tournament: int, round_: int, player: str) -> None:
    code = check_in_code(SECRET, tournament, round_, player)
    assert code_matches(code, read_code(shown_code(code)))
    assert not code_matches(code, code[::-1]) or code == code[::-1]


# -- the check_in line (rules CI-2, CI-3) --------------------------------------------------


def test_a_check_in_is_kept_with_how_and_when() -> None:
    at = "2026-11-29T08:40:00Z"
    tournament = _tournament(_check_in("a1", at=at), _check_in("a2", "desk"))
    held = tournament.check_ins[1]
    assert held["a1"].how == "slip"
    assert held["a1"].at == datetime(2026, 11, 29, 8, 40, tzinfo=UTC)
    assert held["a2"].how == "desk" and held["a2"].at is None


def test_a_second_check_in_changes_nothing() -> None:
    # rule CI-2: idempotent; the first one counts, as it came
    once = _tournament(_check_in("a1", at="2026-11-29T08:40:00Z"))
    twice = _tournament(
        _check_in("a1", at="2026-11-29T08:40:00Z"), _check_in("a1", "desk", at="2026-11-29T10:00Z")
    )
    assert twice.check_ins == once.check_ins


def test_the_check_in_line_round_trips() -> None:
    line = {"type": "check_in", "round": 1, "player": "a1", "how": "desk"}
    event = parse_line(json.dumps(line))
    assert event == CheckedIn(1, "a1", "desk")
    assert event_to_log(event) == line


@pytest.mark.parametrize(
    ("line", "field", "rule"),
    [
        (_check_in("a1", "phone"), "how", "CI-2"),
        (_check_in("a1", None), "how", "CI-2"),
        ({"type": "check_in", "round": 1, "player": "a1"}, "how", "CONTRACT §1"),
        (_check_in("a1") | {"round": 0}, "round", "CONTRACT §1"),
        (_check_in("a1") | {"player": [1]}, "player", "CONTRACT §1"),
        (_check_in("a1") | {"table": 3}, "table", "CONTRACT §1"),
        # the server's time of the line, as on every other line (rule CL-6, issue 32)
        (_check_in("a1", at="yesterday"), "at", "CL-6"),
    ],
)
def test_a_bad_check_in_line_is_refused_naming_field_and_rule(
    line: dict[str, Any], field: str, rule: str
) -> None:
    with pytest.raises(MalformedInput) as refused:
        parse_line(json.dumps(line))
    assert (refused.value.field, refused.value.rule) == (field, rule)


@pytest.mark.parametrize(
    ("line", "field", "rule"),
    [
        (_check_in("nobody"), "player", "CONTRACT §1"),  # rule CI-3: not registered
        (_check_in("a1") | {"round": 2}, "round", "FM-1"),  # round 2 has not begun
        (_check_in("a1") | {"round": 9}, "round", "FM-1"),  # this format has no round 9
    ],
)
def test_only_a_player_expected_in_an_open_round_checks_in(
    line: dict[str, Any], field: str, rule: str
) -> None:
    with pytest.raises(LogError) as refused:
        _tournament(line)
    assert (refused.value.violation.field, refused.value.violation.rule) == (field, rule)


# -- lateness (rules CI-5, PN-1) ----------------------------------------------------------

SCHEDULE = {
    "type": "schedule",
    "round": 1,
    "segment": 1,
    "group": "A",
    "start": "2026-11-29T09:00Z",
}


@pytest.mark.parametrize(
    ("lines", "late"),
    [
        ([SCHEDULE, _check_in("a1", at="2026-11-29T08:59:59Z")], False),
        ([SCHEDULE, _check_in("a1", at="2026-11-29T09:00:00Z")], False),  # on the dot
        ([SCHEDULE, _check_in("a1", at="2026-11-29T09:00:01Z")], True),
        # group B's round starts at its own segment 1 (rule FM-2): group A's start is not b1's
        ([SCHEDULE, _check_in("b1", at="2026-11-29T09:30:00Z")], False),
        ([_check_in("a1", at="2026-11-29T12:00:00Z")], False),  # no schedule, no play
        # play has begun at a table of the player's group: late, whatever the schedule says
        (
            [
                {
                    "type": "hand",
                    "round": 1,
                    "segment": 1,
                    "table": 1,
                    "hand": 1,
                    "result": {"kind": "draw"},
                },
                _check_in("a1"),
            ],
            True,
        ),
        # group A has begun: group B, which plays its own segments (FM-2), is not late
        (
            [
                {
                    "type": "hand",
                    "round": 1,
                    "segment": 1,
                    "table": 1,
                    "hand": 1,
                    "result": {"kind": "draw"},
                },
                _check_in("b1"),
            ],
            False,
        ),
    ],
)
def test_a_check_in_after_the_start_is_late(lines: list[dict[str, Any]], late: bool) -> None:
    tournament = _tournament(*lines)
    checked = tournament.check_ins[1]
    player = "b1" if "b1" in checked else "a1"
    assert checked[player].late is late  # rule CI-5
    assert roll_call(tournament.players, tournament.rounds[1], checked).late == (
        (checked[player],) if late else ()
    )


def test_lateness_changes_no_score_until_a_penalty_is_given() -> None:
    # rule PN-1: the penalty is the judge's, with its amount (HS-6): lateness alone is a mark
    late = _tournament(SCHEDULE, _check_in("a1", at="2026-11-29T09:20:00Z"))
    assert late.rounds[1].play.get("a1", 0) == 0
    fined = _tournament(
        SCHEDULE,
        _check_in("a1", at="2026-11-29T09:20:00Z"),
        {"type": "penalty", "round": 1, "player": "a1", "points": -10, "reason": "late arrival"},
    )
    assert fined.rounds[1].play["a1"] == -10


# -- the roll call (rule CI-3) -------------------------------------------------------------


def test_the_missing_are_the_expected_who_have_not_checked_in() -> None:
    tournament = _tournament(_check_in("a1"), _check_in("b2", "desk"), _check_in("s2"))
    call = roll_call(tournament.players, tournament.rounds[1], tournament.check_ins[1])
    # the field (never substitutes, FM-9) and the substitutes seated: none here
    assert call.expected == ("a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4")
    assert [m.player for m in call.missing] == ["a2", "a3", "a4", "b1", "b3", "b4"]
    assert call.missing[0].tables == (1, 1, 1, 1)
    assert call.standby == ("s2",)  # a substitute who came, ready for a seat
    assert not call.started


def test_no_check_in_yet_everyone_is_missing() -> None:
    tournament = _tournament()
    call = roll_call(tournament.players, tournament.rounds[1], {})
    assert len(call.missing) == len(call.expected) == 8


# -- a substitute in a missing player's seat (rules FM-9, SE-5) ----------------------------


def _seated(tournament: Tournament, missing: str, substitute: str) -> Tournament:
    events = substitute_seatings(
        tournament.players,
        tournament.rounds[1],
        tournament.check_ins.get(1, {}),
        missing,
        substitute,
    )
    for event in events:
        tournament.apply(event)
    return tournament


def test_a_substitute_takes_the_missing_players_seat_in_every_segment() -> None:
    tournament = _seated(_tournament(_check_in("s1")), "a3", "s1")
    state = tournament.rounds[1]
    for segment in range(1, 5):
        assert state.tables[(segment, 1)].seats == ("a1", "a2", "s1", "a4")  # the same seat
    call = roll_call(tournament.players, state, tournament.check_ins[1])
    missing = {m.player: m for m in call.missing}
    assert missing["a3"].tables == (None, None, None, None)
    assert "s1" in call.expected and "s1" not in missing  # checked in, now seated
    assert call.standby == ()


def test_a_substitute_leaves_a_table_that_has_played_alone() -> None:
    hand = {
        "type": "hand",
        "round": 1,
        "segment": 1,
        "table": 1,
        "hand": 1,
        "result": {"kind": "draw"},
    }
    # a table with a hand has its seats fixed (SE-5): a no-show cannot sit at it, so this is
    # a log where a3 played segment 1 and then did not come back for segment 2
    tournament = _seated(_tournament(hand), "a3", "s1")
    state = tournament.rounds[1]
    assert state.tables[(1, 1)].seats == ("a1", "a2", "a3", "a4")
    assert state.tables[(2, 1)].seats == ("a1", "a2", "s1", "a4")


def test_the_replacement_replays_as_seatings_and_the_missing_list_names_it() -> None:
    draw = {"type": "draw", "round": 1, "seed": "club"}
    # the 8 players, no hand-made seatings: the draw's own. A substitute registered before
    # the draw would be drawn too (FM-9 fills tables with them): the stand-in comes after.
    tournament = replay_lines(json.dumps(line) for line in BASE[:9])
    tournament.apply(parse_line(json.dumps(draw)))
    state = tournament.rounds[1]
    assert state.draw is not None
    for seating in state.draw.seatings:
        tournament.apply(seating)
    tournament.apply(parse_line(json.dumps(_player("s1", substitute=True))))
    missing = next(p for p in ("a1", "a2", "a3", "a4") if state.seats_of(p))
    _seated(tournament, missing, "s1")
    call = roll_call(tournament.players, state, {})
    replaced = {m.player: m.replaced_by for m in call.missing}
    assert replaced[missing] == "s1"


@pytest.mark.parametrize(
    ("missing", "substitute", "field", "rule"),
    [
        ("a1", "s1", "player", "FM-9"),  # a1 checked in: not missing
        ("a2", "a3", "substitute", "FM-9"),  # not a substitute
        ("a2", "nobody", "substitute", "CONTRACT §1"),
        ("a2", "sb", "substitute", "FM-2"),  # a group B substitute at a group A table
        ("nobody", "s1", "player", "CONTRACT §1"),
    ],
)
def test_a_substitute_is_refused_naming_field_and_rule(
    missing: str, substitute: str, field: str, rule: str
) -> None:
    tournament = _tournament(_check_in("a1"))
    with pytest.raises((MalformedInput, IllegalMove)) as refused:
        _seated(tournament, missing, substitute)
    assert (refused.value.field, refused.value.rule) == (field, rule)


def test_a_seated_substitute_cannot_take_a_second_seat() -> None:
    tournament = _seated(_tournament(), "a2", "s1")
    with pytest.raises(IllegalMove) as refused:
        _seated(tournament, "a3", "s1")
    assert (refused.value.field, refused.value.rule) == ("substitute", "FM-9")


@given(
    st.lists(
        st.tuples(st.sampled_from(["a1", "a2", "b3", "s1"]), st.sampled_from(["slip", "desk"])),
        max_size=12,
    )
)
def test_only_the_first_check_in_of_a_player_counts(lines: list[tuple[str, str]]) -> None:
    # rule CI-2: whatever comes after, in any order, a player's first check-in is the one kept
    tournament = _tournament(*[_check_in(player, how) for player, how in lines])
    first: dict[str, str] = {}
    for player, how in lines:
        first.setdefault(player, how)
    held = tournament.check_ins.get(1, {})
    assert {player: kept.how for player, kept in held.items()} == first
    call = roll_call(tournament.players, tournament.rounds[1], held)
    # the expected players are those checked in and those missing, each once
    assert sorted(map(str, call.expected)) == sorted(
        [str(c.player) for c in call.checked_in if c.player in call.expected]
        + [str(m.player) for m in call.missing]
    )
