"""WSOM hand results and their payments (rules HS-1 to HS-7).

Every expectation below is worked out by hand from RULES.md, seat order east, south, west,
north = a, b, c, d.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.domain.errors import MalformedInput
from app.domain.hands import (
    DirectPoints,
    Discard,
    Draw,
    SelfDraw,
    Settlement,
    parse_result,
    settle,
)
from app.domain.tournament import Tournament

SEATS = ("a", "b", "c", "d")
MIN_VALUE = 5  # rule HS-3: both presets use 5
MAX_VALUE = 320  # rule HS-3


def settle_wsom(raw: dict[str, Any], *, min_value: int = MIN_VALUE) -> Settlement:
    return settle(parse_result(raw), SEATS, min_value=min_value, max_value=MAX_VALUE)


# (result, expected deltas in seat order a, b, c, d, expected winner, expected value)
SETTLEMENTS = [
    pytest.param(
        {"kind": "self_draw", "winner": "b", "value": 8},
        (-8, 24, -8, -8),
        "b",
        8,
        id="HS-2 self-draw: each of the three others pays v",
    ),
    pytest.param(
        {"kind": "self_draw", "winner": "a", "value": 40},
        (120, -40, -40, -40),
        "a",
        40,
        id="HS-2 self-draw above 25: still each pays v",
    ),
    pytest.param(
        {"kind": "discard", "winner": "a", "discarder": "c", "value": 5},
        (15, -5, -5, -5),
        "a",
        5,
        id="HS-2 discard of the minimum 5: each of the three others pays v",
    ),
    pytest.param(
        {"kind": "discard", "winner": "d", "discarder": "b", "value": 24},
        (-24, -24, -24, 72),
        "d",
        24,
        id="HS-2 discard v=24 <= 25: each of the three others pays v",
    ),
    pytest.param(
        {"kind": "discard", "winner": "a", "discarder": "c", "value": 25},
        (75, -25, -25, -25),
        "a",
        25,
        id="HS-2 discard exactly 25: each of the three others pays 25",
    ),
    pytest.param(
        {"kind": "discard", "winner": "a", "discarder": "c", "value": 26},
        # discarder 3*26 - 50 = 28, the other two 25 each; winner 3*26 = 78
        (78, -25, -28, -25),
        "a",
        26,
        id="HS-2 discard 26 > 25: discarder pays 3v-50=28, the others 25",
    ),
    pytest.param(
        {"kind": "discard", "winner": "c", "discarder": "d", "value": 40},
        # discarder 3*40 - 50 = 70, the other two 25 each; winner 120
        (-25, -25, 120, -70),
        "c",
        40,
        id="HS-2 discard 40: discarder pays 70, the others 25",
    ),
    pytest.param(
        {"kind": "discard", "winner": "b", "discarder": "a", "value": 320},
        # discarder 3*320 - 50 = 910, the other two 25 each; winner 960
        (-910, 960, -25, -25),
        "b",
        320,
        id="HS-2 HS-3 discard of the maximum 320: discarder pays 910, the others 25",
    ),
    pytest.param(
        {"kind": "self_draw", "winner": "d", "value": 320},
        (-320, -320, -320, 960),
        "d",
        320,
        id="HS-3 self-draw of the maximum 320 is accepted",
    ),
    pytest.param(
        {"kind": "draw"},
        (0, 0, 0, 0),
        None,
        None,
        id="HS-2 a draw moves no points and has no winning value",
    ),
    pytest.param(
        {"kind": "points", "deltas": {"a": 30, "b": -10, "c": -10, "d": -10}},
        (30, -10, -10, -10),
        None,
        None,
        id="HS-7 direct points without winner: no winning value for the tie-break",
    ),
    pytest.param(
        {"kind": "points", "deltas": {"d": 0, "c": -12, "b": 12, "a": 0}},
        (0, 12, -12, 0),
        None,
        None,
        id="HS-7 direct points given in any order come back in seat order",
    ),
    pytest.param(
        {
            "kind": "points",
            "deltas": {"a": -45, "b": 45, "c": 0, "d": 0},
            "winner": "b",
            "value": 15,
        },
        (-45, 45, 0, 0),
        "b",
        15,
        id="HS-7 HS-4 direct points naming the winner and value keep that value",
    ),
]


@pytest.mark.parametrize(("raw", "deltas", "winner", "value"), SETTLEMENTS)
def test_settlement_of_a_hand(
    raw: dict[str, Any], deltas: tuple[int, ...], winner: str | None, value: int | None
) -> None:
    settlement = settle_wsom(raw)

    assert settlement == Settlement(tuple(zip(SEATS, deltas, strict=True)), winner, value)


@pytest.mark.parametrize(("raw", "deltas", "winner", "value"), SETTLEMENTS)
def test_every_hand_is_zero_sum(
    raw: dict[str, Any], deltas: tuple[int, ...], winner: str | None, value: int | None
) -> None:
    # rule HS-2: every hand is zero-sum; the table above is checked as well
    assert sum(deltas) == 0
    assert sum(points for _, points in settle_wsom(raw).deltas) == 0


@pytest.mark.parametrize(
    ("raw", "collected"),
    [
        pytest.param({"kind": "self_draw", "winner": "c", "value": 13}, 39, id="HS-2 self-draw 13"),
        pytest.param(
            {"kind": "discard", "winner": "c", "discarder": "a", "value": 13},
            39,
            id="HS-2 discard 13",
        ),
        pytest.param(
            {"kind": "discard", "winner": "c", "discarder": "a", "value": 100},
            300,
            id="HS-2 discard 100 above 25",
        ),
    ],
)
def test_winner_always_collects_three_times_the_value(raw: dict[str, Any], collected: int) -> None:
    # rule HS-2: the winner always collects 3v
    assert dict(settle_wsom(raw).deltas)["c"] == collected


@pytest.mark.parametrize(
    ("raw", "min_value", "field", "mentions"),
    [
        pytest.param(
            {"kind": "self_draw", "winner": "a", "value": 4},
            5,
            "result.value",
            ("4", "5"),
            id="HS-3 self-draw 4 below the minimum 5",
        ),
        pytest.param(
            {"kind": "discard", "winner": "a", "discarder": "b", "value": 4},
            5,
            "result.value",
            ("4", "5"),
            id="HS-3 discard 4 below the minimum 5",
        ),
        pytest.param(
            {"kind": "self_draw", "winner": "a", "value": 0},
            5,
            "result.value",
            ("0", "5"),
            id="HS-3 value 0",
        ),
        pytest.param(
            {"kind": "self_draw", "winner": "a", "value": -10},
            5,
            "result.value",
            ("-10", "5"),
            id="HS-3 negative value",
        ),
        pytest.param(
            {"kind": "self_draw", "winner": "a", "value": 321},
            5,
            "result.value",
            ("321", "320"),
            id="HS-3 self-draw 321 above the maximum 320",
        ),
        pytest.param(
            {"kind": "discard", "winner": "a", "discarder": "b", "value": 321},
            5,
            "result.value",
            ("321", "320"),
            id="HS-3 discard 321 above the maximum 320",
        ),
        pytest.param(
            {"kind": "self_draw", "winner": "a", "value": 7},
            8,
            "result.value",
            ("7", "8"),
            id="HS-3 configurable minimum 8 refuses 7",
        ),
        pytest.param(
            {
                "kind": "points",
                "deltas": {"a": 12, "b": -4, "c": -4, "d": -4},
                "winner": "a",
                "value": 4,
            },
            5,
            "result.value",
            ("4", "5"),
            id="HS-3 HS-7 direct points naming a value below the minimum",
        ),
    ],
)
def test_value_out_of_bounds_is_refused(
    raw: dict[str, Any], min_value: int, field: str, mentions: tuple[str, ...]
) -> None:
    with pytest.raises(MalformedInput) as caught:
        settle_wsom(raw, min_value=min_value)

    assert caught.value.rule == "HS-3"
    assert caught.value.field == field
    for text in mentions:
        assert text in caught.value.message


@pytest.mark.parametrize(
    ("raw", "min_value", "deltas"),
    [
        pytest.param(
            {"kind": "self_draw", "winner": "a", "value": 5},
            5,
            (15, -5, -5, -5),
            id="HS-3 exactly the minimum 5 is accepted",
        ),
        pytest.param(
            {"kind": "self_draw", "winner": "a", "value": 8},
            8,
            (24, -8, -8, -8),
            id="HS-3 exactly a configured minimum 8 is accepted",
        ),
        pytest.param(
            {"kind": "discard", "winner": "a", "discarder": "b", "value": 320},
            5,
            (960, -910, -25, -25),
            id="HS-3 exactly the maximum 320 is accepted",
        ),
    ],
)
def test_value_on_the_bounds_is_accepted(
    raw: dict[str, Any], min_value: int, deltas: tuple[int, ...]
) -> None:
    assert settle_wsom(raw, min_value=min_value).deltas == tuple(zip(SEATS, deltas, strict=True))


@pytest.mark.parametrize(
    ("raw", "rule", "field"),
    [
        pytest.param(
            {"kind": "self_draw", "winner": "x", "value": 10},
            "HS-1",
            "result.winner",
            id="HS-1 self-draw winner not at the table",
        ),
        pytest.param(
            {"kind": "discard", "winner": "x", "discarder": "a", "value": 10},
            "HS-1",
            "result.winner",
            id="HS-1 discard winner not at the table",
        ),
        pytest.param(
            {"kind": "discard", "winner": "a", "discarder": "x", "value": 10},
            "HS-1",
            "result.discarder",
            id="HS-1 discarder not at the table",
        ),
        pytest.param(
            {"kind": "discard", "winner": "b", "discarder": "b", "value": 10},
            "HS-1",
            "result.discarder",
            id="HS-1 the winner cannot be the discarder",
        ),
        pytest.param(
            {"kind": "points", "deltas": {"a": 30, "b": -10, "c": -10, "d": -9}},
            "HS-7",
            "result.deltas",
            id="HS-7 direct points summing to 1 are refused",
        ),
        pytest.param(
            {"kind": "points", "deltas": {"a": -30, "b": 10, "c": 10, "d": 0}},
            "HS-7",
            "result.deltas",
            id="HS-7 direct points summing to -10 are refused",
        ),
        pytest.param(
            {"kind": "points", "deltas": {"a": 20, "b": -10, "c": -10}},
            "HS-7",
            "result.deltas.d",
            id="HS-7 direct points missing a player at the table",
        ),
        pytest.param(
            {"kind": "points", "deltas": {"a": 20, "b": -10, "c": -10, "d": 0, "x": 0}},
            "HS-1",
            "result.deltas.x",
            id="HS-1 HS-7 direct points for a player not at the table",
        ),
        pytest.param(
            {
                "kind": "points",
                "deltas": {"a": 30, "b": -10, "c": -10, "d": -10},
                "winner": "x",
                "value": 10,
            },
            "HS-1",
            "result.winner",
            id="HS-1 HS-7 direct points naming a winner not at the table",
        ),
    ],
)
def test_result_that_does_not_fit_the_table_is_refused(
    raw: dict[str, Any], rule: str, field: str
) -> None:
    with pytest.raises(MalformedInput) as caught:
        settle_wsom(raw)

    assert (caught.value.rule, caught.value.field) == (rule, field)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            {"kind": "self_draw", "winner": "a", "value": 8},
            SelfDraw("a", 8),
            id="HS-1 self-draw",
        ),
        pytest.param(
            {"kind": "discard", "winner": "a", "discarder": "b", "value": 30},
            Discard("a", "b", 30),
            id="HS-1 discard",
        ),
        pytest.param({"kind": "draw"}, Draw(), id="HS-1 draw"),
        pytest.param(
            {"kind": "points", "deltas": {"a": 3, "b": -3, "c": 0, "d": 0}},
            DirectPoints((("a", 3), ("b", -3), ("c", 0), ("d", 0))),
            id="HS-7 direct points",
        ),
        pytest.param(
            {"kind": "points", "deltas": {"a": 15, "b": -15}, "winner": "a", "value": 5},
            DirectPoints((("a", 15), ("b", -15)), "a", 5),
            id="HS-7 direct points with winner and value",
        ),
        pytest.param(
            {"kind": "self_draw", "winner": 7, "value": 8},
            SelfDraw(7, 8),
            id="CONTRACT-1 integer player ids",
        ),
    ],
)
def test_parse_result(raw: dict[str, Any], expected: object) -> None:
    assert parse_result(raw) == expected


@pytest.mark.parametrize(
    ("raw", "rule", "field"),
    [
        pytest.param(["self_draw"], "HS-1", "result", id="HS-1 not an object"),
        pytest.param({"winner": "a", "value": 8}, "HS-1", "result.kind", id="HS-1 missing kind"),
        pytest.param(
            {"kind": "tsumo", "winner": "a", "value": 8},
            "HS-1",
            "result.kind",
            id="HS-1 unknown kind",
        ),
        pytest.param(
            {"kind": "self_draw", "winner": "a"},
            "HS-1",
            "result.value",
            id="HS-1 self-draw missing value",
        ),
        pytest.param(
            {"kind": "discard", "winner": "a", "value": 8},
            "HS-1",
            "result.discarder",
            id="HS-1 discard missing discarder",
        ),
        pytest.param(
            {"kind": "self_draw", "winner": "a", "value": True},
            "HS-3",
            "result.value",
            id="HS-3 bool value",
        ),
        pytest.param(
            {"kind": "self_draw", "winner": "a", "value": 8.0},
            "HS-3",
            "result.value",
            id="HS-3 float value",
        ),
        pytest.param(
            {"kind": "discard", "winner": "a", "discarder": "b", "value": "8"},
            "HS-3",
            "result.value",
            id="HS-3 string value",
        ),
        pytest.param(
            {"kind": "self_draw", "winner": "a", "value": 8, "discarder": "b"},
            "HS-1",
            "result.discarder",
            id="HS-1 extra field on a self-draw",
        ),
        pytest.param(
            {"kind": "draw", "value": 0},
            "HS-1",
            "result.value",
            id="HS-1 extra field on a draw",
        ),
        pytest.param(
            {"kind": "points", "deltas": {}},
            "HS-7",
            "result.deltas",
            id="HS-7 empty deltas",
        ),
        pytest.param(
            {"kind": "points", "deltas": {"a": 1.5, "b": -1.5}},
            "HS-7",
            "result.deltas.a",
            id="HS-7 non-integer delta",
        ),
        pytest.param(
            {"kind": "points", "deltas": {"a": 15, "b": -15}, "winner": "a"},
            "HS-7",
            "result.value",
            id="HS-7 winner without value",
        ),
        pytest.param(
            {"kind": "points", "deltas": {"a": 15, "b": -15}, "value": 5},
            "HS-7",
            "result.winner",
            id="HS-7 value without winner",
        ),
    ],
)
def test_parse_result_refuses_a_bad_shape(raw: object, rule: str, field: str) -> None:
    with pytest.raises(MalformedInput) as caught:
        parse_result(raw)

    assert (caught.value.rule, caught.value.field) == (rule, field)


def int_id_log(result: dict[str, Any]) -> list[dict[str, Any]]:
    """A log whose players have integer ids (CONTRACT.md §1 allows them) and one hand."""
    players = [
        {"type": "player", "id": n, "name": f"Player {n}", "group": "A" if n <= 4 else "B"}
        for n in range(1, 9)
    ]
    return [
        {"type": "tournament", "name": "ids", "format": {"preset": "wsom2008", "advance": [4]}},
        *players,
        {"type": "seating", "round": 1, "segment": 1, "table": 1, "seats": [1, 2, 3, 4]},
        {"type": "hand", "round": 1, "segment": 1, "table": 1, "hand": 1, "result": result},
    ]


@pytest.mark.parametrize(
    ("result", "play"),
    [
        pytest.param(
            {"kind": "self_draw", "winner": 2, "value": 8},
            {1: -8, 2: 24, 3: -8, 4: -8},
            id="HS-2 integer ids: self-draw",
        ),
        pytest.param(
            # a JSON object's keys are always strings: "1" names player 1 (the tournament
            # already treats 1 and "1" as the same id)
            {"kind": "points", "deltas": {"1": 30, "2": -10, "3": -10, "4": -10}},
            {1: 30, 2: -10, 3: -10, 4: -10},
            id="HS-7 integer ids: direct points keyed by the JSON string form of the id",
        ),
    ],
)
def test_hand_of_players_with_integer_ids(
    result: dict[str, Any], play: dict[int, int], replay: Callable[..., Tournament]
) -> None:
    tournament = replay(int_id_log(result))

    assert tournament.rounds[1].play == play
