"""Ari Ari formats and games inside the tournament (FM-1, AA-1 to AA-30): the format names
its ruleset, the tournament dispatches on it, and corrections replay the game."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from app.domain import clocks
from app.domain.ariari import AriAriRules, Chombo
from app.domain.errors import IllegalMove, MalformedInput, RuleViolation
from app.domain.formats import MAX_GAME_HANDS, PRESETS, format_from_log
from app.domain.log import HandRecorded, parse_event
from app.domain.replay import replay_lines
from app.domain.tournament import Tournament

SEATS = ["a", "b", "c", "d"]
FORMAT = {"ruleset": "ariari", "rounds": [{"advance": 4, "segments": 1}, {}]}


def opened(game: dict[str, Any] | None = None) -> Tournament:
    fmt = FORMAT | ({"game": game} if game else {})
    lines: list[dict[str, Any]] = [
        {"type": "tournament", "name": "t", "format": fmt},
        *({"type": "player", "id": p, "name": p, "group": "A"} for p in "abcdefgh"),
        {"type": "seating", "round": 1, "segment": 1, "table": 1, "seats": SEATS},
        {"type": "seating", "round": 1, "segment": 1, "table": 2, "seats": list("efgh")},
    ]
    return replay_lines([json.dumps(line) for line in lines])


def hand_line(number: int, result: dict[str, Any], table: int = 1) -> HandRecorded:
    event = parse_event(
        {"type": "hand", "round": 1, "segment": 1, "table": table, "hand": number, "result": result}
    )
    assert isinstance(event, HandRecorded)
    return event


NOTEN = {"kind": "exhaustive_draw"}


def test_the_preset() -> None:
    fmt = PRESETS["ariari"]
    assert (fmt.ruleset, fmt.game, fmt.final_round) == ("ariari", AriAriRules(), 2)
    first, final = fmt.rounds
    assert (first.segments, first.advance, first.segment_kind, first.time_limit_minutes) == (
        2,
        4,
        "game",
        None,
    )
    assert (final.segments, final.advance, final.hands_per_segment) == (1, None, MAX_GAME_HANDS)
    assert format_from_log("ariari") is fmt


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param({"preset": "ariari"}, AriAriRules(), id="the preset as a base"),
        pytest.param(
            {"ruleset": "ariari", "game": {"tenpai_payment": 3000}},
            AriAriRules(tenpai_payment=3000),
            id="AA-9 the preset with tenpai payments",
        ),
        pytest.param(
            FORMAT | {"game": {"length": "east_only"}},
            AriAriRules("east_only", 20_000),
            id="AA-1 custom rounds, East only",
        ),
    ],
)
def test_custom_ariari_formats(raw: dict[str, Any], expected: AriAriRules) -> None:
    fmt = format_from_log(raw)
    assert (fmt.ruleset, fmt.game) == ("ariari", expected)
    assert all(r.segment_kind == "game" for r in fmt.rounds)


@pytest.mark.parametrize(
    ("raw", "rule", "field"),
    [
        pytest.param(
            {"ruleset": "ariari", "preset": "wsom2008"}, "FM-1", "format.ruleset", id="mixed"
        ),
        pytest.param({"preset": "wsom2008", "game": {}}, "FM-1", "format.game", id="game in WSOM"),
        pytest.param(
            {"ruleset": "ariari", "rounds": [{"advance": 4, "hands": 8}, {}]},
            "AA-12",
            "format.rounds[0].hands",
            id="AA-12 hands in a game",
        ),
        pytest.param(
            {"ruleset": "ariari", "rounds": [{"advance": 4, "kind": "half"}, {}]},
            "FM-1",
            "format.rounds[0].kind",
            id="a half in Ari Ari",
        ),
        pytest.param(
            {"rounds": [{"advance": 4, "kind": "game"}, {}]},
            "FM-1",
            "format.rounds[0].kind",
            id="a game in WSOM",
        ),
        pytest.param({"ruleset": "mcr"}, "FM-1", "format.ruleset", id="unknown ruleset"),
        pytest.param(
            {"ruleset": "ariari", "rounds": [{"advance": 4}, {"break_after_cycles": 2}]},
            "CL-1",
            "format.rounds[1].break_after_cycles",
            id="CL-1 no cycles in a game",
        ),
    ],
)
def test_bad_ariari_formats(raw: dict[str, Any], rule: str, field: str) -> None:
    with pytest.raises(MalformedInput) as refused:
        format_from_log(raw)
    assert (refused.value.rule, refused.value.field) == (rule, field)


def test_results_of_the_other_ruleset_are_refused() -> None:
    """rule AA-30, both ways."""
    tournament = opened()
    with pytest.raises(MalformedInput) as refused:
        tournament.apply(hand_line(1, {"kind": "draw"}))
    assert (refused.value.rule, refused.value.field) == ("AA-30", "result.kind")
    wsom = replay_lines(
        [
            json.dumps({"type": "tournament", "name": "w", "format": "wsom2008"}),
            *(json.dumps({"type": "player", "id": p, "name": p, "group": "A"}) for p in "abcd"),
            json.dumps({"type": "seating", "round": 1, "segment": 1, "table": 1, "seats": SEATS}),
        ]
    )
    with pytest.raises(MalformedInput) as refused:
        wsom.apply(hand_line(1, {"kind": "chombo", "offender": "a"}))
    assert (refused.value.rule, refused.value.field) == ("HS-1", "result.kind")


def test_dealer_and_next_hand_follow_the_game() -> None:
    """rule AA-8: the dealer comes from the game, not from FM-7's cycles."""
    tournament = opened({"length": "east_only"})
    assert tournament.dealer(1, 1, 1, 1) == "a"
    tournament.apply(hand_line(1, {"kind": "exhaustive_draw", "tenpai": ["a"]}))
    tournament.apply(hand_line(2, NOTEN))
    assert [tournament.dealer(1, 1, 1, n) for n in (1, 2, 3, 4)] == ["a", "a", "b", None]
    table = tournament.rounds[1].tables[(1, 1)]
    assert table.next_hand(MAX_GAME_HANDS) == 3
    for number in (3, 4, 5):
        tournament.apply(hand_line(number, NOTEN))
    assert table.game is not None and table.game.ended == "AA-12"
    assert table.next_hand(MAX_GAME_HANDS) is None
    assert tournament.dealer(1, 1, 1, 6) is None


def test_the_server_fills_in_dealer_and_counters() -> None:
    """rule AA-28: for a new hand and for a correction, as the game stands."""
    tournament = opened()
    tournament.apply(hand_line(1, NOTEN))  # the deal passes to b, one counter
    new = tournament.with_table_state(hand_line(2, {"kind": "chombo", "offender": "c"}))
    assert isinstance(new.result, Chombo)
    assert (new.result.facts.dealer, new.result.facts.counters) == ("b", 1)
    tournament.apply(new)
    fix = tournament.with_table_state(hand_line(1, {"kind": "exhaustive_draw", "tenpai": []}))
    assert (fix.result.facts.dealer, fix.result.facts.counters) == ("a", 0)
    stated = hand_line(3, {"kind": "chombo", "offender": "c", "dealer": "d"})
    filled = tournament.with_table_state(stated).result.facts
    assert (filled.dealer, filled.counters) == ("d", 1)  # a stated dealer is checked, not replaced
    far = hand_line(9, NOTEN)
    assert tournament.with_table_state(far) == far


def test_a_correction_that_breaks_a_later_hand_changes_nothing() -> None:
    """rule AA-28: hand 2 was dealt by a (a kept the deal with tenpai in hand 1)."""
    tournament = opened()
    tournament.apply(hand_line(1, {"kind": "exhaustive_draw", "tenpai": ["a"]}))
    tournament.apply(hand_line(2, {"kind": "chombo", "offender": "b", "dealer": "a"}))
    before = dict(tournament.rounds[1].play)
    with pytest.raises(IllegalMove) as refused:
        tournament.apply(hand_line(1, NOTEN))
    assert (refused.value.rule, refused.value.field) == ("AA-8", "hand")
    assert "hand 2" in refused.value.message
    assert tournament.rounds[1].play == before
    assert tournament.rounds[1].tables[(1, 1)].hands[1].result.facts.dealer is None


def test_the_round_counts_game_results_and_tie_break_values() -> None:
    """rules SC-1, AA-22, AA-27: the round's play is each game's results so far."""
    tournament = opened()
    double_ron = {
        "kind": "ron",
        "discarder": "c",
        "wins": [
            {"winner": "d", "limit": "mangan", "yaku": 2},
            {"winner": "b", "fan": 1, "fu": 30, "yaku": 1},
        ],
        "riichi": ["a"],
    }
    tournament.apply(hand_line(1, double_ron))
    state = tournament.rounds[1]
    # d is first after c in turn order, so d takes a's bet (AA-4)
    assert {p: state.play[p] for p in "abcd"} == {"a": -1_000, "b": 1_000, "c": -9_000, "d": 9_000}
    assert (state.winning_values["d"], state.winning_values["b"]) == ([8_000], [1_000])
    correction = {"kind": "tsumo", "winner": "b", "fan": 1, "fu": 30, "yaku": 1}
    tournament.apply(hand_line(1, correction))
    assert state.winning_values["d"] == []
    assert {p: state.play[p] for p in "abcd"} == {"a": -500, "b": 1_100, "c": -300, "d": -300}


def test_the_clock_of_an_ended_game_is_finished() -> None:
    """rules AA-12 to AA-14 with CL-6: a game that has ended shows finished, however few
    hands it had; one still played shows its table running."""
    tournament = opened()
    now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    assert clocks.clock_state(tournament.clock_facts(1, 1, 1), now).phase == "running"
    yakuman = {
        "kind": "ron",
        "discarder": "a",
        "wins": [{"winner": "b", "limit": "yakuman", "yaku": 1}],
    }
    tournament.apply(hand_line(1, yakuman))
    facts = tournament.clock_facts(1, 1, 1)
    assert (facts.hands_completed, facts.planned_hands) == (1, 1)
    assert clocks.clock_state(facts, now).phase == "finished"


def test_a_hand_after_the_game_is_refused_by_the_rule_that_ended_it() -> None:
    tournament = opened()
    yakuman = {
        "kind": "ron",
        "discarder": "a",
        "wins": [{"winner": "b", "limit": "yakuman", "yaku": 1}],
    }
    tournament.apply(hand_line(1, yakuman))  # a: 25,000 - 32,000 (AA-14)
    with pytest.raises(RuleViolation) as refused:
        tournament.apply(hand_line(2, NOTEN))
    assert (refused.value.rule, refused.value.field) == ("AA-14", "hand")
    assert isinstance(refused.value, IllegalMove)
