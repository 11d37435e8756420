"""Ari Ari hand payments (rules AA-2, AA-3, AA-6) and the refusals of bad results (AA-4,
AA-7, AA-11, AA-18 to AA-20), each worked out by hand.

Seats are a, b, c, d = East, South, West, North; a deals the first hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.domain.ariari import AriAriRules, Game, parse_result, play_game, rules_from_log
from app.domain.errors import HandRefused, IllegalMove, MalformedInput
from app.domain.rulesets import parse_result as parse_any_result

SEATS = ("a", "b", "c", "d")
RULES = AriAriRules()


def first_hand(raw: dict[str, Any], before: list[dict[str, Any]] | None = None) -> Game:
    hands = [*(before or []), raw]
    return play_game(SEATS, [(n, parse_result(h)) for n, h in enumerate(hands, start=1)], RULES)


def payments(raw: dict[str, Any], before: list[dict[str, Any]] | None = None) -> tuple[int, ...]:
    return tuple(points for _, points in first_hand(raw, before).hands[-1].payments)


def ron(winner: str, discarder: str, **value: Any) -> dict[str, Any]:
    return {
        "kind": "ron",
        "discarder": discarder,
        "wins": [{"winner": winner, "yaku": value.pop("yaku", 2), **value}],
    }


def tsumo(winner: str, **value: Any) -> dict[str, Any]:
    return {"kind": "tsumo", "winner": winner, "yaku": 2, **value}


# (result, payments a b c d) with a the dealer
PAYMENTS = [
    # rule AA-2: base = fu x 2^(fan+2); rule AA-3: ron 4 x base (6 x to the dealer)
    pytest.param(ron("b", "c", fan=1, fu=30), (0, 1_000, -1_000, 0), id="AA-3 ron 1f30 960->1000"),
    pytest.param(
        ron("a", "c", fan=1, fu=30), (1_500, 0, -1_500, 0), id="AA-3 dealer ron 1f30 1440->1500"
    ),
    pytest.param(ron("b", "a", fan=1, fu=40), (-1_300, 1_300, 0, 0), id="AA-3 ron 1f40 1280->1300"),
    pytest.param(ron("b", "c", fan=2, fu=30), (0, 2_000, -2_000, 0), id="AA-3 ron 2f30 1920->2000"),
    pytest.param(ron("b", "c", fan=3, fu=30), (0, 3_900, -3_900, 0), id="AA-3 ron 3f30 3840->3900"),
    pytest.param(ron("b", "c", fan=4, fu=30), (0, 7_700, -7_700, 0), id="AA-3 ron 4f30 7680->7700"),
    pytest.param(
        ron("a", "d", fan=4, fu=30), (11_600, 0, 0, -11_600), id="AA-3 dealer ron 4f30 11520->11600"
    ),
    pytest.param(ron("b", "c", fan=1, fu=110), (0, 3_600, -3_600, 0), id="AA-2 1f110 3520->3600"),
    # rule AA-2: fu rounded up to 10, so 25 scores as 30 (AA-19)
    pytest.param(ron("b", "c", fan=2, fu=25), (0, 2_000, -2_000, 0), id="AA-19 25 fu scores as 30"),
    # rule AA-2: capped at 2,000 below 5 fan
    pytest.param(ron("b", "c", fan=4, fu=40), (0, 8_000, -8_000, 0), id="AA-2 4f40 2560 capped"),
    pytest.param(ron("b", "c", fan=3, fu=70), (0, 8_000, -8_000, 0), id="AA-2 3f70 2240 capped"),
    # rule AA-2: the limits by fan
    pytest.param(ron("b", "c", fan=5), (0, 8_000, -8_000, 0), id="AA-2 5 fan mangan"),
    pytest.param(ron("b", "c", fan=6), (0, 12_000, -12_000, 0), id="AA-2 6 fan haneman"),
    pytest.param(ron("b", "c", fan=7), (0, 12_000, -12_000, 0), id="AA-2 7 fan haneman"),
    pytest.param(ron("b", "c", fan=8), (0, 16_000, -16_000, 0), id="AA-2 8 fan baiman"),
    pytest.param(ron("b", "c", fan=10), (0, 16_000, -16_000, 0), id="AA-2 10 fan baiman"),
    pytest.param(ron("b", "c", fan=11), (0, 24_000, -24_000, 0), id="AA-2 11 fan sanbaiman"),
    pytest.param(ron("b", "c", fan=12), (0, 24_000, -24_000, 0), id="AA-2 12 fan sanbaiman"),
    pytest.param(ron("b", "c", fan=13), (0, 32_000, -32_000, 0), id="AA-2 13 fan yakuman"),
    pytest.param(ron("b", "c", fan=26), (0, 32_000, -32_000, 0), id="AA-2 26 fan yakuman"),
    # rule AA-2: the limits by name
    pytest.param(ron("b", "c", limit="mangan"), (0, 8_000, -8_000, 0), id="AA-2 mangan"),
    pytest.param(ron("a", "c", limit="mangan"), (12_000, 0, -12_000, 0), id="AA-3 dealer mangan"),
    pytest.param(ron("b", "c", limit="haneman"), (0, 12_000, -12_000, 0), id="AA-2 haneman"),
    pytest.param(ron("a", "c", limit="haneman"), (18_000, 0, -18_000, 0), id="AA-3 dealer haneman"),
    pytest.param(ron("b", "c", limit="baiman"), (0, 16_000, -16_000, 0), id="AA-2 baiman"),
    pytest.param(ron("a", "c", limit="baiman"), (24_000, 0, -24_000, 0), id="AA-3 dealer baiman"),
    pytest.param(ron("b", "c", limit="sanbaiman"), (0, 24_000, -24_000, 0), id="AA-2 sanbaiman"),
    pytest.param(
        ron("a", "c", limit="sanbaiman"), (36_000, 0, -36_000, 0), id="AA-3 dealer sanbaiman"
    ),
    pytest.param(ron("b", "c", limit="yakuman"), (0, 32_000, -32_000, 0), id="AA-2 yakuman"),
    pytest.param(ron("a", "c", limit="yakuman"), (48_000, 0, -48_000, 0), id="AA-3 dealer yakuman"),
    # rule AA-3: tsumo by a non-dealer: base from each non-dealer, 2 x base from the dealer
    pytest.param(tsumo("b", fan=1, fu=30), (-500, 1_100, -300, -300), id="AA-3 tsumo 1f30 300/500"),
    pytest.param(tsumo("c", fan=1, fu=20), (-400, -200, 800, -200), id="AA-3 tsumo 1f20 200/400"),
    pytest.param(
        tsumo("d", fan=3, fu=30), (-2_000, -1_000, -1_000, 4_000), id="AA-3 tsumo 3f30 1000/2000"
    ),
    pytest.param(
        tsumo("b", fan=4, fu=30), (-3_900, 7_900, -2_000, -2_000), id="AA-3 tsumo 4f30 2000/3900"
    ),
    pytest.param(
        tsumo("b", limit="mangan"), (-4_000, 8_000, -2_000, -2_000), id="AA-3 tsumo mangan"
    ),
    pytest.param(
        tsumo("b", limit="yakuman"), (-16_000, 32_000, -8_000, -8_000), id="AA-3 tsumo yakuman"
    ),
    # rule AA-3: tsumo by the dealer: 2 x base from each
    pytest.param(
        tsumo("a", fan=1, fu=30), (1_500, -500, -500, -500), id="AA-3 dealer tsumo 1f30 500 all"
    ),
    pytest.param(
        tsumo("a", fan=2, fu=20), (2_100, -700, -700, -700), id="AA-3 dealer tsumo 2f20 700 all"
    ),
    pytest.param(
        tsumo("a", fan=3, fu=40),
        (7_800, -2_600, -2_600, -2_600),
        id="AA-3 dealer tsumo 3f40 2600 all",
    ),
    pytest.param(
        tsumo("a", limit="haneman"),
        (18_000, -6_000, -6_000, -6_000),
        id="AA-3 dealer tsumo haneman",
    ),
    # rule AA-10: chombo
    pytest.param(
        {"kind": "chombo", "offender": "c"}, (4_000, 2_000, -8_000, 2_000), id="AA-10 chombo"
    ),
    pytest.param(
        {"kind": "chombo", "offender": "a"}, (-12_000, 4_000, 4_000, 4_000), id="AA-10 East chombo"
    ),
    # rule AA-4: several winners on one discard, each paid in full
    pytest.param(
        {
            "kind": "ron",
            "discarder": "a",
            "wins": [
                {"winner": "b", "fan": 1, "fu": 30, "yaku": 1},
                {"winner": "c", "fan": 2, "fu": 30, "yaku": 1},
                {"winner": "d", "limit": "mangan", "yaku": 3},
            ],
        },
        (-11_000, 1_000, 2_000, 8_000),
        id="AA-4 triple ron",
    ),
]


@pytest.mark.parametrize(("raw", "expected"), PAYMENTS)
def test_payments(raw: dict[str, Any], expected: tuple[int, ...]) -> None:
    assert payments(raw) == expected


TWO_DRAWS = [{"kind": "exhaustive_draw", "tenpai": ["a"]}] * 2  # a keeps the deal, 2 counters


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            ron("b", "c", fan=1, fu=30), (0, 1_600, -1_600, 0), id="AA-6 ron +300 per counter"
        ),
        pytest.param(ron("a", "c", fan=1, fu=30), (2_100, 0, -2_100, 0), id="AA-6 dealer ron +600"),
        pytest.param(
            tsumo("b", fan=1, fu=30), (-700, 1_700, -500, -500), id="AA-6 tsumo +200 from each"
        ),
        pytest.param(
            tsumo("a", fan=1, fu=30), (2_100, -700, -700, -700), id="AA-6 dealer tsumo +200 each"
        ),
        pytest.param(
            {"kind": "chombo", "offender": "b"},
            (4_000, -8_000, 2_000, 2_000),
            id="AA-10 no counters",
        ),
    ],
)
def test_counters_add_to_wins(raw: dict[str, Any], expected: tuple[int, ...]) -> None:
    """rule AA-6: two counters after two tenpai draws by the dealer."""
    game = first_hand(raw, TWO_DRAWS)
    assert game.hands[-1].counters == 2
    assert payments(raw, TWO_DRAWS) == expected


@pytest.mark.parametrize(
    ("total", "tenpai", "expected"),
    [
        pytest.param(3_000, ["a"], (3_000, -1_000, -1_000, -1_000), id="AA-9 one tenpai"),
        pytest.param(3_000, ["b", "d"], (-1_500, 1_500, -1_500, 1_500), id="AA-9 two tenpai"),
        pytest.param(3_000, ["a", "b", "c"], (1_000, 1_000, 1_000, -3_000), id="AA-9 three tenpai"),
        pytest.param(3_000, [], (0, 0, 0, 0), id="AA-9 nobody tenpai"),
        pytest.param(3_000, ["a", "b", "c", "d"], (0, 0, 0, 0), id="AA-9 all tenpai"),
        pytest.param(0, ["a"], (0, 0, 0, 0), id="AA-9 off by default"),
    ],
)
def test_tenpai_payments(total: int, tenpai: list[str], expected: tuple[int, ...]) -> None:
    rules = rules_from_log({"tenpai_payment": total})
    game = play_game(
        SEATS, [(1, parse_result({"kind": "exhaustive_draw", "tenpai": tenpai}))], rules
    )
    assert tuple(p for _, p in game.hands[0].payments) == expected


def refusal(hands: list[dict[str, Any]], rules: AriAriRules = RULES) -> HandRefused:
    with pytest.raises(HandRefused) as refused:
        play_game(SEATS, [(n, parse_result(h)) for n, h in enumerate(hands, start=1)], rules)
    return refused.value


NOTEN = {"kind": "exhaustive_draw", "tenpai": []}


@pytest.mark.parametrize(
    ("hands", "rule", "field"),
    [
        pytest.param(
            [{**ron("b", "c", fan=1, fu=30), "dead": ["b"]}],
            "AA-11",
            "result.wins[0].winner",
            id="AA-11 ron by a dead hand",
        ),
        pytest.param(
            [{**tsumo("b", fan=1, fu=30), "dead": ["b"]}],
            "AA-11",
            "result.winner",
            id="AA-11 tsumo by a dead hand",
        ),
        pytest.param(
            [{"kind": "exhaustive_draw", "tenpai": ["c"], "dead": ["c"]}],
            "AA-11",
            "result.tenpai[0]",
            id="AA-11 tenpai by a dead hand",
        ),
        pytest.param(
            [NOTEN] * 5 + [ron("a", "c", fan=1, fu=30, yaku=1)],
            "AA-7",
            "result.wins[0].yaku",
            id="AA-7 one yaku at five counters",
        ),
        pytest.param(
            [NOTEN] * 5 + [tsumo("b", fan=1, fu=30, yaku=1)],
            "AA-7",
            "result.yaku",
            id="AA-7 one yaku tsumo at five counters",
        ),
        pytest.param(
            [{"kind": "chombo", "offender": "b"}] * 3  # b: 25,000 - 3 x 8,000 = 1,000
            + [tsumo("c", fan=1, fu=30)]  # b pays 300: 700 left
            + [{**NOTEN, "riichi": ["b"]}],
            "AA-18",
            "result.riichi[0]",
            id="AA-18 riichi with fewer than 1,000 points",
        ),
        pytest.param(
            [ron("c", "c", fan=1, fu=30)], "AA-3", "result.wins[0].winner", id="AA-3 own discard"
        ),
        pytest.param(
            [ron("e", "c", fan=1, fu=30)], "AA-3", "result.wins[0].winner", id="AA-3 not seated"
        ),
        pytest.param(
            [{**NOTEN, "dealer": "b"}], "AA-8", "result.dealer", id="AA-8 the wrong dealer"
        ),
        pytest.param(
            [NOTEN, {**NOTEN, "counters": 0}], "AA-6", "result.counters", id="AA-6 wrong counters"
        ),
        pytest.param(
            [NOTEN] * 8 + [NOTEN], "AA-12", "hand", id="AA-12 a hand after the South round"
        ),
    ],
)
def test_refusals(hands: list[dict[str, Any]], rule: str, field: str) -> None:
    refused = refusal(hands)
    assert (refused.hand, refused.violation.rule, refused.violation.field) == (
        len(hands),
        rule,
        field,
    )


def test_riichi_with_exactly_1000_points_is_allowed() -> None:
    """rule AA-18: three chombos take b from 25,000 to 1,000 (8,000 each); b may still
    declare riichi, and stands at 0, not below it (AA-14)."""
    chombos = [{"kind": "chombo", "offender": "b"}] * 3
    game = first_hand({**NOTEN, "riichi": ["b"]}, chombos)
    assert dict(game.points)["b"] == 0
    assert game.ended is None and game.bets == 1_000


@pytest.mark.parametrize(
    ("raw", "rule", "field"),
    [
        pytest.param(ron("b", "c", fan=1, fu=35), "AA-19", "result.wins[0].fu", id="AA-19 fu 35"),
        pytest.param(ron("b", "c", fan=1, fu=120), "AA-19", "result.wins[0].fu", id="AA-19 fu 120"),
        pytest.param(ron("b", "c", fan=1, fu=10), "AA-19", "result.wins[0].fu", id="AA-19 fu 10"),
        pytest.param(tsumo("b", fan=1, fu=22), "AA-19", "result.fu", id="AA-19 tsumo fu 22"),
        pytest.param(
            ron("b", "c", fan=2), "AA-2", "result.wins[0].fu", id="AA-2 fan below 5 needs fu"
        ),
        pytest.param(ron("b", "c", fan=0, fu=30), "AA-2", "result.wins[0].fan", id="AA-2 no fan"),
        pytest.param(
            ron("b", "c", limit="double"), "AA-2", "result.wins[0].limit", id="AA-2 limit name"
        ),
        pytest.param(
            ron("b", "c", limit="mangan", fan=5), "AA-2", "result.wins[0].limit", id="AA-2 both"
        ),
        pytest.param(
            ron("b", "c", fan=1, fu=30, yaku=0), "AA-20", "result.wins[0].yaku", id="AA-20 no yaku"
        ),
        pytest.param(
            {"kind": "ron", "discarder": "c", "wins": []},
            "AA-4",
            "result.wins",
            id="AA-4 no winner",
        ),
        pytest.param(
            {"kind": "tsumo", "winner": "b", "fan": 1, "fu": 30},
            "AA-2",
            "result.yaku",
            id="AA-2 yaku needed",
        ),
        pytest.param({"kind": "chombo"}, "AA-2", "result.offender", id="AA-10 offender needed"),
        pytest.param(
            {"kind": "chombo", "offender": "b", "value": 5},
            "AA-2",
            "result.value",
            id="unknown field",
        ),
        pytest.param(
            {"kind": "exhaustive_draw", "tenpai": ["a", "a"]},
            "CONTRACT §1",
            "result.tenpai",
            id="twice",
        ),
        pytest.param({"kind": "ronn"}, "HS-1", "result.kind", id="unknown kind"),
    ],
)
def test_malformed_results(raw: dict[str, Any], rule: str, field: str) -> None:
    with pytest.raises(MalformedInput) as refused:
        parse_any_result(raw)
    assert (refused.value.rule, refused.value.field) == (rule, field)


def test_a_double_ron_naming_a_winner_twice_is_refused() -> None:
    raw = {
        "kind": "ron",
        "discarder": "c",
        "wins": [{"winner": "b", "limit": "mangan", "yaku": 1}] * 2,
    }
    refused = refusal([raw])
    assert (refused.violation.rule, refused.violation.field) == ("AA-4", "result.wins")
    assert isinstance(refused.violation, MalformedInput)


def test_refusals_of_game_state_are_illegal_moves() -> None:
    """A well-formed hand that the game's state forbids is a 409, not a 422 (STYLE.md 10)."""
    refused = refusal([NOTEN] * 8 + [NOTEN])
    assert isinstance(refused.violation, IllegalMove)


@pytest.mark.parametrize(
    ("raw", "rule", "field"),
    [
        pytest.param({"length": "south"}, "AA-12", "format.game.length", id="AA-12 length"),
        pytest.param(
            {"tenpai_payment": 1_000}, "AA-9", "format.game.tenpai_payment", id="AA-9 share"
        ),
        pytest.param({"uma": [10, 5, -5, -5]}, "AA-16", "format.game.uma", id="AA-16 not zero-sum"),
        pytest.param({"start_points": 0}, "AA-1", "format.game.start_points", id="AA-1 start"),
        pytest.param({"oka": 1}, "AA-1", "format.game.oka", id="unknown field"),
    ],
)
def test_bad_game_rules(raw: dict[str, Any], rule: str, field: str) -> None:
    with pytest.raises(MalformedInput) as refused:
        rules_from_log(raw)
    assert (refused.value.rule, refused.value.field) == (rule, field)


def test_game_rules_defaults_follow_the_length() -> None:
    """rule AA-1: 25,000 for East-South, 20,000 for East only."""
    assert rules_from_log({}) == AriAriRules("east_south", 25_000, 0)
    assert rules_from_log({"length": "east_only"}) == AriAriRules("east_only", 20_000, 0)
