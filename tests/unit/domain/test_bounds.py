"""Every number of the log is bounded, and a line beyond its bound is refused naming the
field and the rule (issue 14): a penalty is a deduction on the format's scale (PN-1, HS-6),
a direct-points hand moves no more than a hand can (HS-7), and no round, table, hand,
minute, year, advance count, prize or Ari Ari count is beyond what a tournament can hold.
Every time a line carries, its `at` included, lies in the schedule's years (issue 32).

Each case is a small valid log of `small_logs` plus the one line under test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from app.domain import bounds
from app.domain.errors import LogError
from app.domain.formats import PRESETS, format_from_log
from app.domain.replay import apply_line, replay_lines
from tests.unit.replay.small_logs import (
    DRAW,
    PLAYED,
    REGISTERED,
    SEATED,
    TOURNAMENT,
    Line,
    hand,
    penalty,
    player,
    points,
    seating,
    self_draw,
    texts,
)

TABLE_1 = ["P01", "P02", "P03", "P04"]


def custom(**fields: Any) -> Line:
    return {"type": "tournament", "name": "Custom Open", "format": {"preset": "wsom2008", **fields}}


def custom_round(**fields: Any) -> Line:
    rounds = [{"advance": 4, **fields}, {}]
    return {"type": "tournament", "name": "Custom Open", "format": {"rounds": rounds}}


def ariari(game: dict[str, Any]) -> Line:
    return {"type": "tournament", "name": "Ari", "format": {"ruleset": "ariari", "game": game}}


def schedule(start: str) -> Line:
    return {"type": "schedule", "round": 1, "segment": 2, "group": "A", "start": start}


def deal(time: str, **more: Any) -> Line:
    return {"type": "deal", "round": 1, "segment": 1, "table": 1, "hand": 3, "time": time, **more}


def ariari_hand(result: dict[str, Any]) -> list[Line]:
    players = [player(p, "A") for p in ("a", "b", "c", "d", "e")]
    return [
        *players,
        {"type": "seating", "round": 1, "segment": 1, "table": 1, "seats": ["a", "b", "c", "d"]},
        {"type": "hand", "round": 1, "segment": 1, "table": 1, "hand": 1, "result": result},
    ]


TSUMO = {"kind": "tsumo", "winner": "a", "yaku": 1, "fan": 2, "fu": 30}


@dataclass(frozen=True)
class OutOfBounds:
    id: str
    lines: list[Line]  # the log; its last line breaks the bound
    field: str
    rule: str


CASES = [
    # -- penalties: a deduction on the format's scale (rules PN-1, HS-6) -----------------
    OutOfBounds("penalty-of-plus-500", [*PLAYED, penalty(1, "P01", 500)], "points", "PN-1"),
    OutOfBounds("penalty-of-plus-one", [*PLAYED, penalty(1, "P01", 1)], "points", "PN-1"),
    OutOfBounds("penalty-of-zero", [*PLAYED, penalty(1, "P01", 0)], "points", "PN-1"),
    OutOfBounds("penalty-of-10^9", [*PLAYED, penalty(1, "P01", 10**9)], "points", "PN-1"),
    OutOfBounds(
        "penalty-of-minus-10^30", [*PLAYED, penalty(1, "P01", -(10**30))], "points", "PN-1"
    ),
    OutOfBounds("wsom-penalty-beyond-960", [*PLAYED, penalty(1, "P01", -961)], "points", "PN-1"),
    OutOfBounds(
        "custom-bound-penalty",
        [custom(advance=[8, 4], max_penalty=100), *REGISTERED[1:], penalty(1, "P01", -101)],
        "points",
        "PN-1",
    ),
    OutOfBounds(
        "ariari-penalty-beyond-25000",
        [ariari({}), *ariari_hand({"kind": "exhaustive_draw"})[:-1], penalty(1, "a", -25_001)],
        "points",
        "PN-1",
    ),
    # -- direct points: no more than a hand can move (rules HS-7, HS-2) -------------------
    OutOfBounds(
        "points-beyond-960",
        [*SEATED, hand(1, 1, 1, 1, points(dict(zip(TABLE_1, [961, -961, 0, 0], strict=True))))],
        "result.deltas.P01",
        "HS-7",
    ),
    OutOfBounds(
        "points-of-10^30",
        [
            *SEATED,
            hand(1, 1, 1, 1, points(dict(zip(TABLE_1, [10**30, -(10**30), 0, 0], strict=True)))),
        ],
        "result.deltas.P01",
        "HS-7",
    ),
    OutOfBounds(
        "value-of-10^30",
        [*SEATED, hand(1, 1, 1, 1, self_draw("P01", 10**30))],
        "result.value",
        "HS-3",
    ),
    # -- the places every table line names ----------------------------------------------
    OutOfBounds("round-9", [*SEATED, hand(9, 1, 1, 1, DRAW)], "round", "FM-1"),
    OutOfBounds("segment-17", [*SEATED, hand(1, 17, 1, 1, DRAW)], "segment", "FM-8"),
    OutOfBounds("table-10001", [*SEATED, hand(1, 1, 10_001, 1, DRAW)], "table", "FM-9"),
    OutOfBounds("table-2^31", [*SEATED, seating(1, 1, 2**31, TABLE_1)], "table", "FM-9"),
    OutOfBounds("hand-101", [*SEATED, hand(1, 1, 1, 101, DRAW)], "hand", "FM-7"),
    OutOfBounds("cycle-26", [*SEATED, {**seating(1, 1, 1, TABLE_1), "cycle": 26}], "cycle", "SE-8"),
    OutOfBounds(
        "extension-of-a-day-and-a-minute",
        [
            *SEATED,
            {"type": "extension", "round": 1, "segment": 1, "table": 1, "minutes": 24 * 60 + 1},
        ],
        "minutes",
        "CL-2",
    ),
    # -- times: the years of a tournament (rules FM-8, CL-3, CL-6) -----------------------
    OutOfBounds("schedule-in-9999", [*SEATED, schedule("9999-12-31T23:00:00Z")], "start", "FM-8"),
    OutOfBounds(
        "schedule-in-year-1-with-offset",
        [*SEATED, schedule("0001-01-01T00:00:00+01:00")],
        "start",
        "FM-8",
    ),
    OutOfBounds("schedule-in-2101", [*SEATED, schedule("2101-01-01T00:00:00Z")], "start", "FM-8"),
    OutOfBounds("deal-in-1999", [*SEATED, deal("1999-12-31T23:59:59Z")], "time", "CL-3"),
    OutOfBounds(
        "deal-sent-in-9999",
        [*SEATED, deal("2026-11-29T09:00:00Z", sent="9999-01-01T00:00:00Z")],
        "sent",
        "CL-6",
    ),
    # -- prizes (rules PR-2, PR-3) ----------------------------------------------------------
    OutOfBounds(
        "prize-of-10^9", [*REGISTERED, {"type": "prizes", "amounts": [10**9]}], "amounts[0]", "PR-2"
    ),
    OutOfBounds(
        "prize-with-a-huge-exponent",
        [*REGISTERED, {"type": "prizes", "amounts": ["1e999999999"]}],
        "amounts[0]",
        "PR-2",
    ),
    OutOfBounds(
        "prize-fraction-with-an-exponent",
        [*REGISTERED, {"type": "prizes", "amounts": ["1e99999/3"]}],
        "amounts[0]",
        "PR-2",
    ),
    OutOfBounds(
        "prize-of-a-millionth",
        [*REGISTERED, {"type": "prizes", "amounts": ["1/3000001"]}],
        "amounts[0]",
        "PR-3",
    ),
    # -- rates, seeds, ids ------------------------------------------------------------------
    OutOfBounds(
        "rate-over-1001",
        [*REGISTERED, {"type": "carry_over_rate", "round": 1, "rate": "1/1001"}],
        "rate",
        "SC-3",
    ),
    OutOfBounds(
        "draw-seed-of-129-characters",
        [*REGISTERED, {"type": "draw", "round": 1, "seed": "x" * 129}],
        "seed",
        "SE-1",
    ),
    OutOfBounds(
        "hand-id-of-201-characters",
        [*SEATED, {**hand(1, 1, 1, 1, DRAW), "id": "k" * 201}],
        "id",
        # the log's text bound (app/domain/text.py) meets it first: no string of a line
        # runs over 200 characters
        "CONTRACT §1",
    ),
    OutOfBounds(
        "player-number-beyond-the-database",
        [*TOURNAMENT, {"type": "player", "id": 2**40, "name": "Big", "group": "A"}],
        "id",
        "CONTRACT §1",
    ),
    # -- formats: advance counts, segments, hands, minutes, values -----------------------
    OutOfBounds(
        "advance-of-10^30", [custom(advance=[10**30, 4])], "format.rounds[0].advance", "FM-6"
    ),
    OutOfBounds(
        "advance-beyond-a-hall", [custom(advance=[10_004, 4])], "format.rounds[0].advance", "FM-6"
    ),
    OutOfBounds("segments-17", [custom_round(segments=17)], "format.rounds[0].segments", "FM-8"),
    OutOfBounds("hands-104", [custom_round(hands=104)], "format.rounds[0].hands", "FM-7"),
    OutOfBounds(
        "time-limit-of-a-day-and-a-minute",
        [custom_round(time_limit=24 * 60 + 1)],
        "format.rounds[0].time_limit",
        "CL-1",
    ),
    OutOfBounds(
        "break-of-10^9", [custom_round(**{"break": 10**9})], "format.rounds[0].break", "CL-1"
    ),
    OutOfBounds(
        "break-after-26-cycles",
        [custom_round(break_after_cycles=26)],
        "format.rounds[0].break_after_cycles",
        "CL-1",
    ),
    OutOfBounds(
        "carry-over-rate-over-1001",
        [custom_round(carry_over_rate="1/1001")],
        "format.rounds[0].carry_over_rate",
        "SC-3",
    ),
    OutOfBounds(
        "nine-rounds",
        [{"type": "tournament", "name": "Long", "format": {"rounds": [{"advance": 4}] * 8 + [{}]}}],
        "format.rounds",
        "FM-1",
    ),
    OutOfBounds("max-value-10^30", [custom(max_value=10**30)], "format.max_value", "FM-1"),
    OutOfBounds("early-start-61", [custom(early_start=61)], "format.early_start", "CL-2"),
    OutOfBounds("max-penalty-10^9", [custom(max_penalty=10**9)], "format.max_penalty", "PN-1"),
    # -- Ari Ari (rules AA-1, AA-2, AA-6, AA-9, AA-16, AA-20) --------------------------------
    OutOfBounds(
        "ariari-start-points-10^9",
        [ariari({"start_points": 10**9})],
        "format.game.start_points",
        "AA-1",
    ),
    OutOfBounds(
        "ariari-tenpai-payment-10^9",
        [ariari({"tenpai_payment": 600 * 10**9})],
        "format.game.tenpai_payment",
        "AA-9",
    ),
    OutOfBounds(
        "ariari-uma-of-10^9",
        [ariari({"uma": [10**9, 0, 0, -(10**9)]})],
        "format.game.uma",
        "AA-16",
    ),
    OutOfBounds(
        "ariari-fan-101", [ariari({}), *ariari_hand({**TSUMO, "fan": 101})], "result.fan", "AA-2"
    ),
    OutOfBounds(
        "ariari-yaku-41", [ariari({}), *ariari_hand({**TSUMO, "yaku": 41})], "result.yaku", "AA-20"
    ),
    OutOfBounds(
        "ariari-counters-101",
        [ariari({}), *ariari_hand({**TSUMO, "counters": 101})],
        "result.counters",
        "AA-6",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_number_beyond_its_bound_is_refused_naming_field_and_rule(case: OutOfBounds) -> None:
    with pytest.raises(LogError) as caught:
        replay_lines(texts(case.lines))

    refused = caught.value
    assert refused.line_number == len(case.lines)
    assert (refused.violation.field, refused.violation.rule) == (case.field, case.rule)
    # the message names the field and the rule, and never prints a 31-digit number
    message = str(refused)
    assert case.field in message and f"(rule {case.rule})" in message
    assert str(10**30) not in message


@pytest.mark.parametrize(
    ("lines", "player_id", "play"),
    [
        pytest.param([*PLAYED, penalty(1, "P01", -960)], "P01", "-935", id="PN-1 wsom -960"),
        pytest.param([*PLAYED, penalty(1, "P01", -1)], "P01", "24", id="PN-1 wsom -1"),
        pytest.param(
            [ariari({}), *ariari_hand(TSUMO)[:-1], penalty(1, "a", -25_000)],
            "a",
            "-25000",
            id="PN-1 ariari -25000",
        ),
    ],
)
def test_a_deduction_within_the_formats_bound_counts(
    lines: list[Line], player_id: str, play: str
) -> None:
    tournament = replay_lines(texts(lines))

    rows = {row.player: row for row in tournament.standings(1).rows}
    assert str(rows[player_id].play) == play  # rule SC-1: it counts in the play score


def test_direct_points_up_to_what_one_hand_moves_are_accepted() -> None:
    # rule HS-7: 960 = the winner of a 320-point hand collects 3 x 320 (HS-2)
    deltas = dict(zip(TABLE_1, [960, -320, -320, -320], strict=True))

    tournament = replay_lines(texts([*SEATED, hand(1, 1, 1, 1, points(deltas))]))

    assert tournament.rounds[1].play["P01"] == 960


@pytest.mark.parametrize(
    ("raw", "bound"),
    [
        pytest.param("wsom2008", 960, id="PN-1 wsom2008: 3 x 320"),
        pytest.param("wsom2007", 960, id="PN-1 wsom2007: 3 x 320"),
        pytest.param("ariari", 25_000, id="PN-1 ariari: the starting points"),
        pytest.param({"preset": "wsom2008", "max_value": 100}, 300, id="PN-1 custom: 3 x its max"),
        pytest.param(
            {"ruleset": "ariari", "game": {"length": "east_only"}}, 20_000, id="PN-1 east-only"
        ),
        pytest.param({"preset": "wsom2008", "max_penalty": 50}, 50, id="PN-1 named"),
    ],
)
def test_the_format_sets_the_penalty_bound(raw: object, bound: int) -> None:
    fmt = PRESETS[raw] if isinstance(raw, str) else format_from_log(raw)

    assert fmt.max_penalty == bound


def test_times_at_the_ends_of_the_years_are_accepted() -> None:
    for start in ("2000-01-01T00:00:00Z", "2100-12-31T23:00:00Z"):
        replay_lines(texts([*SEATED, schedule(start)]))
    assert bounds.MIN_YEAR == 2000 and bounds.MAX_YEAR == 2100


# -- the time a line was written, on every line (issue 32; rules FM-8, CL-6) ---------------

IN_9999 = "9999-12-31T23:00:00Z"
# One line of each kind that may follow SEATED, each with the `at` the server stamps on it.
STAMPED: list[tuple[str, Line]] = [
    ("player", player("P99", "A")),
    ("prizes", {"type": "prizes", "amounts": [100]}),
    ("carry_over_rate", {"type": "carry_over_rate", "round": 1, "rate": "1/4"}),
    ("seating", seating(1, 2, 1, TABLE_1)),
    ("hand", hand(1, 1, 1, 1, DRAW)),
    ("penalty", penalty(1, "P01", -5)),
    ("schedule", schedule("2026-11-29T09:00:00Z")),
    ("deal", {**deal("2026-11-29T09:00:00Z"), "hand": 1}),
    ("extension", {"type": "extension", "round": 1, "segment": 1, "table": 1, "minutes": 5}),
    ("play_all", {"type": "play_all", "round": 1, "segment": 1, "table": 1, "reason": "stall"}),
    ("segment_end", {"type": "segment_end", "round": 1, "segment": 1, "group": "A"}),
    ("language", {"type": "language", "language": "ja"}),
    ("call", {"type": "call", "round": 1, "table": 1, "reason": "dispute", "id": "c1"}),
    ("check_in", {"type": "check_in", "round": 1, "player": "P01", "how": "desk"}),
]


@pytest.mark.parametrize(
    "at", [IN_9999, "1999-12-31T23:59:59Z", "0001-01-01T00:00:00+01:00", "yesterday", 20261129]
)
@pytest.mark.parametrize(("kind", "line"), STAMPED, ids=[kind for kind, _ in STAMPED])
def test_the_time_any_line_was_written_is_held_to_the_schedules_years(
    kind: str, line: Line, at: object
) -> None:
    """rule CL-6: `at` is the server's clock when it wrote the line; a line coming in (an
    import, a replay) carries one in the years a schedule may (rule FM-8), or none."""
    assert isinstance(line, dict)
    lines: list[Line] = [*SEATED, {**line, "at": at}]

    with pytest.raises(LogError) as caught:
        replay_lines(texts(lines))

    refused = caught.value
    assert refused.line_number == len(lines), kind
    assert (refused.violation.field, refused.violation.rule) == ("at", "CL-6")


@pytest.mark.parametrize(("kind", "line"), STAMPED, ids=[kind for kind, _ in STAMPED])
def test_a_line_written_in_the_schedules_years_is_taken(kind: str, line: Line) -> None:
    assert isinstance(line, dict)
    for at in ("2000-01-01T00:00:00Z", "2026-11-29T09:00:00+09:00", "2100-12-31T23:00:00Z"):
        replay_lines(texts([*SEATED, {**line, "at": at}]))


@pytest.mark.parametrize(("kind", "line"), STAMPED, ids=[kind for kind, _ in STAMPED])
def test_a_stored_line_is_read_whatever_year_it_was_written_in(kind: str, line: Line) -> None:
    """A line stored before the bound (or before any bound on times, issue 14) is read as
    it is: the tournament it belongs to stays readable, by a whole replay of the database's
    lines and by a process catching up with them one at a time."""
    assert isinstance(line, dict)
    stored = texts([*SEATED, {**line, "at": IN_9999}])

    replay_lines(stored, stored=True)
    apply_line(replay_lines(stored[:-1], stored=True), stored[-1])
