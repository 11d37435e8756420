"""Tournament formats as data (rules FM-1 to FM-9, SC-3, HS-3, CL-1, CL-2)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from app.domain.errors import MalformedInput
from app.domain.formats import PRESETS, Format, RoundFormat, format_from_log

Q = Fraction(1, 4)  # rule SC-3: 1/4 for every round, the final included

# (groups, segments, hands per segment, kind, advance, rate, time limit, break, break after cycles)
RoundShape = tuple[int, int, int, str, int | None, Fraction, int | None, int, int | None]


def shape(round_format: RoundFormat) -> RoundShape:
    return (
        round_format.groups,
        round_format.segments,
        round_format.hands_per_segment,
        round_format.segment_kind,
        round_format.advance,
        round_format.carry_over_rate,
        round_format.time_limit_minutes,
        round_format.break_minutes,
        round_format.break_after_cycles,
    )


def shapes(fmt: Format) -> list[RoundShape]:
    return [shape(r) for r in fmt.rounds]


WSOM2008: list[RoundShape] = [
    (2, 4, 8, "half", 256, Q, 70, 10, None),  # rules FM-2, FM-6, CL-1
    (1, 2, 8, "half", 128, Q, 70, 10, None),  # rules FM-3, FM-6, CL-1
    (1, 2, 8, "half", 64, Q, 70, 10, None),
    (1, 2, 8, "half", 32, Q, 70, 10, None),
    (1, 2, 8, "half", 16, Q, 60, 10, None),  # rule CL-1: rounds 5-6 are 60 minutes (2008)
    (1, 2, 8, "half", 8, Q, 60, 10, None),
    (1, 4, 4, "quarter", 4, Q, 30, 10, None),  # rules FM-4, CL-1: quarters of 30 minutes (2008)
    (1, 1, 16, "session", None, Q, None, 10, 2),  # rules FM-5, CL-1: 1 session, no limit
]
WSOM2007: list[RoundShape] = [
    (2, 4, 8, "half", 256, Q, 70, 10, None),
    (1, 2, 8, "half", 128, Q, 70, 10, None),
    (1, 2, 8, "half", 64, Q, 70, 10, None),
    (1, 2, 8, "half", 32, Q, 70, 10, None),
    (1, 2, 8, "half", 16, Q, 70, 10, None),  # rule CL-1: 2007 halves are all 70 minutes
    (1, 2, 8, "half", 8, Q, 70, 10, None),
    (1, 4, 4, "quarter", 4, Q, 35, 10, None),  # rule CL-1: 2007 quarters are 35 minutes
    (1, 2, 16, "session", None, Q, None, 10, 2),  # rule FM-5: the 2007 final is 2 sessions
]


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        pytest.param("wsom2008", WSOM2008, id="FM-1..FM-6 CL-1 wsom2008 rounds"),
        pytest.param("wsom2007", WSOM2007, id="FM-1..FM-6 CL-1 wsom2007 rounds"),
    ],
)
def test_preset_rounds(preset: str, expected: list[RoundShape]) -> None:
    fmt = format_from_log(preset)

    assert fmt is PRESETS[preset]
    assert shapes(fmt) == expected
    assert [r.number for r in fmt.rounds] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert fmt.final_round == 8


@pytest.mark.parametrize(
    ("preset", "name", "min_value", "max_value", "early", "ruleset"),
    [
        pytest.param("wsom2008", "wsom2008", 5, 320, 5, "wsom", id="HS-3 CL-2 wsom2008"),
        pytest.param("wsom2007", "wsom2007", 5, 320, 10, "wsom", id="HS-3 CL-2 wsom2007"),
    ],
)
def test_preset_settings(
    preset: str, name: str, min_value: int, max_value: int, early: int, ruleset: str
) -> None:
    fmt = PRESETS[preset]

    assert (fmt.name, fmt.min_value, fmt.max_value, fmt.early_start_minutes, fmt.ruleset) == (
        name,
        min_value,
        max_value,
        early,
        ruleset,
    )


@pytest.mark.parametrize(
    ("preset", "round_number", "hands_per_player"),
    [
        pytest.param("wsom2008", 1, 32, id="FM-2 round 1: 32 hands, 8 cycles"),
        pytest.param("wsom2008", 2, 16, id="FM-3 round 2: 16 hands"),
        pytest.param("wsom2008", 6, 16, id="FM-3 round 6: 16 hands"),
        pytest.param("wsom2008", 7, 16, id="FM-4 round 7: 4 quarters of 4 hands"),
        pytest.param("wsom2008", 8, 16, id="FM-5 2008 final: 16 hands"),
        pytest.param("wsom2007", 8, 32, id="FM-5 2007 final: 32 hands"),
    ],
)
def test_hands_per_player_in_a_round(preset: str, round_number: int, hands_per_player: int) -> None:
    round_format = PRESETS[preset].round(round_number)

    assert round_format.segments * round_format.hands_per_segment == hands_per_player
    # rule FM-7: a segment is whole cycles of 4 hands
    assert round_format.hands_per_segment % 4 == 0


@pytest.mark.parametrize(
    ("preset", "groups", "is_final"),
    [
        pytest.param(
            "wsom2008",
            [("A", "B")] + [("A",)] * 7,
            [False] * 7 + [True],
            id="FM-1 FM-2 wsom2008 groups and final",
        ),
        pytest.param(
            "wsom2007",
            [("A", "B")] + [("A",)] * 7,
            [False] * 7 + [True],
            id="FM-1 FM-2 wsom2007 groups and final",
        ),
    ],
)
def test_preset_groups_and_final(
    preset: str, groups: list[tuple[str, ...]], is_final: list[bool]
) -> None:
    fmt = PRESETS[preset]

    assert [r.group_names for r in fmt.rounds] == groups
    assert [r.is_final for r in fmt.rounds] == is_final


@pytest.mark.parametrize(
    ("raw", "name", "expected", "settings"),
    [
        pytest.param(
            {"preset": "wsom2008", "advance": [16, 8, 4]},
            "custom",
            [
                (2, 4, 8, "half", 16, Q, 70, 10, None),  # rule FM-2: round 1 keeps 2 groups
                (1, 2, 8, "half", 8, Q, 70, 10, None),  # rule FM-3: halves
                (1, 4, 4, "quarter", 4, Q, 30, 10, None),  # rule FM-4: quarters before the final
                (1, 1, 16, "session", None, Q, None, 10, 2),  # rule FM-5: the preset's final
            ],
            (5, 320, 5),
            id="FM-6 wsom2008 with advance [16, 8, 4]: 4 rounds",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": [8, 4]},
            "custom",
            [
                (2, 4, 8, "half", 8, Q, 70, 10, None),
                (1, 4, 4, "quarter", 4, Q, 30, 10, None),
                (1, 1, 16, "session", None, Q, None, 10, 2),
            ],
            (5, 320, 5),
            id="FM-6 wsom2008 with advance [8, 4]: 3 rounds",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": [4]},
            "custom",
            [
                (2, 4, 8, "half", 4, Q, 70, 10, None),
                (1, 1, 16, "session", None, Q, None, 10, 2),
            ],
            (5, 320, 5),
            id="FM-6 wsom2008 with advance [4]: round 1 then the final",
        ),
        pytest.param(
            {"preset": "wsom2007", "advance": [8, 4], "name": "club 2007"},
            "club 2007",
            [
                (2, 4, 8, "half", 8, Q, 70, 10, None),
                (1, 4, 4, "quarter", 4, Q, 35, 10, None),  # rule CL-1: 2007 quarters 35
                (1, 2, 16, "session", None, Q, None, 10, 2),  # rule FM-5: 2007 final
            ],
            (5, 320, 10),
            id="FM-6 CL-2 wsom2007 with advance [8, 4] keeps 2007 clocks",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": [256, 128, 64, 32, 16, 8, 4]},
            "custom",
            WSOM2008,
            (5, 320, 5),
            id="FM-6 the preset's own advance counts give the preset's rounds",
        ),
        pytest.param(
            {"preset": "wsom2008", "min_value": 8, "max_value": 200, "early_start": 0},
            "custom",
            WSOM2008,
            (8, 200, 0),
            id="HS-3 CL-2 preset with value bounds and early start overridden",
        ),
        pytest.param(
            {
                "name": "club",
                "rounds": [
                    {
                        "groups": 2,
                        "segments": 2,
                        "hands": 8,
                        "advance": 8,
                        "carry_over_rate": "1/3",
                    },
                    {
                        "segments": 1,
                        "hands": 4,
                        "kind": "quarter",
                        "advance": 4,
                        "time_limit": 30,
                        "break": 5,
                    },
                    {"segments": 1, "hands": 12},
                ],
                "min_value": 8,
            },
            "club",
            [
                (2, 2, 8, "half", 8, Fraction(1, 3), 70, 10, None),
                (1, 1, 4, "quarter", 4, Q, 30, 5, None),
                # rule CL-1: the final has no limit and a break after 2 cycles by default
                (1, 1, 12, "session", None, Q, None, 10, 2),
            ],
            (8, 320, 5),
            id="FM-1 full rounds list with defaults",
        ),
    ],
)
def test_custom_format(
    raw: dict[str, Any], name: str, expected: list[RoundShape], settings: tuple[int, int, int]
) -> None:
    fmt = format_from_log(raw)

    assert fmt.name == name
    assert shapes(fmt) == expected
    assert [r.number for r in fmt.rounds] == list(range(1, len(expected) + 1))
    assert (fmt.min_value, fmt.max_value, fmt.early_start_minutes) == settings


@pytest.mark.parametrize(
    ("raw", "rule", "field"),
    [
        pytest.param(
            {"preset": "wsom2008", "advance": [18, 8, 4]},
            "FM-6",
            "format.rounds[0].advance",
            id="FM-6 advance 18 is not a multiple of 4",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": [16, 10, 4]},
            "FM-6",
            "format.rounds[1].advance",
            id="FM-6 advance 10 is not a multiple of 4",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": [0, 4]},
            "FM-6",
            "format.rounds[0].advance",
            id="FM-6 advance 0",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": [16, 16, 4]},
            "FM-6",
            "format.rounds[1].advance",
            id="FM-6 advance equal to the previous is not smaller",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": [16, 32, 4]},
            "FM-6",
            "format.rounds[1].advance",
            id="FM-6 advance larger than the previous",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": [16, 8]},
            "FM-5",
            "format",
            id="FM-5 last advance 8 is not 4",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": [8]},
            "FM-5",
            "format",
            id="FM-5 a single advance 8 is not 4",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": [512, 256, 128, 64, 32, 16, 8, 4]},
            "FM-6",
            "format.advance",
            id="FM-6 more advance counts than the preset has rounds",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": []},
            "FM-6",
            "format.advance",
            id="FM-6 empty advance list",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": "16,8,4"},
            "FM-6",
            "format.advance",
            id="FM-6 advance not a list",
        ),
        pytest.param(
            {"preset": "wsom2008", "advance": [16, 8.0, 4]},
            "FM-6",
            "format.advance",
            id="FM-6 advance with a float",
        ),
        pytest.param(
            {"rounds": [{"hands": 6, "advance": 4}, {}]},
            "FM-7",
            "format.rounds[0].hands",
            id="FM-7 6 hands is not whole cycles",
        ),
        pytest.param(
            {"rounds": [{"advance": 4}, {"hands": 18}]},
            "FM-7",
            "format.rounds[1].hands",
            id="FM-7 a final of 18 hands is not whole cycles",
        ),
        pytest.param(
            {"rounds": [{"advance": 8}, {}]},
            "FM-5",
            "format",
            id="FM-5 full rounds list whose last advance is 8",
        ),
        pytest.param(
            {"rounds": [{"advance": 16}, {"advance": 20}, {"advance": 4}, {}]},
            "FM-6",
            "format.rounds[1].advance",
            id="FM-6 full rounds list with an advance that grows",
        ),
        pytest.param(
            {"rounds": [{"advance": 4}, {"advance": 4}]},
            "FM-5",
            "format.rounds[1].advance",
            id="FM-5 the final advances nobody",
        ),
        pytest.param(
            {"rounds": [{}, {}]},
            "FM-6",
            "format.rounds[0].advance",
            id="FM-6 an elimination round needs an advance count",
        ),
        pytest.param(
            {"rounds": [{"advance": 4}]},
            "FM-1",
            "format.rounds",
            id="FM-1 a rounds list needs a final",
        ),
        pytest.param(
            {"rounds": [{"advance": 8}, {"advance": 4, "groups": 2}, {}]},
            "FM-2",
            "format.rounds[1].groups",
            id="FM-2 only round 1 may have 2 groups",
        ),
        pytest.param(
            {"rounds": [{"advance": 4, "carry_over_rate": "abc"}, {}]},
            "SC-3",
            "format.rounds[0].carry_over_rate",
            id="SC-3 a rate that is not exact",
        ),
        pytest.param(
            {"rounds": [{"advance": 4, "table": 1}, {}]},
            "FM-1",
            "format.rounds[0].table",
            id="FM-1 unknown round key",
        ),
        pytest.param(
            {"preset": "wsom2008", "colour": "red"},
            "FM-1",
            "format.colour",
            id="FM-1 unknown format key",
        ),
        pytest.param(
            {"preset": "wsom2008", "rounds": [{"advance": 4}, {}]},
            "FM-1",
            "format",
            id="FM-1 rounds and preset together",
        ),
        pytest.param({"preset": "wsom2009"}, "FM-1", "format", id="FM-1 unknown preset in object"),
        pytest.param("wsom2009", "FM-1", "format", id="FM-1 unknown preset name"),
        pytest.param(2008, "FM-1", "format", id="FM-1 format is neither a name nor an object"),
        pytest.param(
            {"preset": "wsom2008", "min_value": 50, "max_value": 40},
            "HS-3",
            "format.min_value",
            id="HS-3 minimum above maximum",
        ),
        pytest.param(
            {"preset": "wsom2008", "min_value": "5"},
            "FM-1",
            "format.min_value",
            id="HS-3 FM-1 minimum not an integer",
        ),
        pytest.param(
            {"preset": "wsom2008", "ruleset": "mcr"},
            "FM-1",
            "format.ruleset",
            id="FM-1 unknown ruleset",
        ),
    ],
)
def test_custom_format_refused(raw: object, rule: str, field: str) -> None:
    with pytest.raises(MalformedInput) as caught:
        format_from_log(raw)

    assert (caught.value.rule, caught.value.field) == (rule, field)


@pytest.mark.parametrize(
    ("preset", "rate", "expected_rates"),
    [
        pytest.param(
            "wsom2008",
            Fraction(1, 3),
            [Fraction(1, 3)] + [Q] * 7,
            id="SC-3 only the round 1 to 2 rate changes",
        ),
    ],
)
def test_with_round_one_rate(preset: str, rate: Fraction, expected_rates: list[Fraction]) -> None:
    fmt = PRESETS[preset].with_round_one_rate(rate)

    assert [r.carry_over_rate for r in fmt.rounds] == expected_rates
    # the preset itself is data shared by every tournament: it must not change
    assert [r.carry_over_rate for r in PRESETS[preset].rounds] == [Q] * 8
