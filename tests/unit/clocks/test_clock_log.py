"""The clock lines of the log (`schedule`, `deal`, `early_start`, `extension`, `play_all`,
`segment_end`) through `replay_lines`: what is refused names its line, field and rule, what
is accepted moves the clock as rules CL-1 to CL-5, CL-3a and PN-2 say, and a refused line
changes nothing. The pure clock rules themselves are tested in test_clocks.py.

Every log is small and written by hand: a custom format (round 1 in groups A and B of 8,
4 halves of 8 hands; round 2 the quarters, 8 players at 2 tables; then the final), and a
schedule for group A's first half at 09:00Z. Group B is never scheduled in round 1, so its
tables show rule CL-3a.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest

from app.domain.clocks import clock_state
from app.domain.errors import IllegalMove, LogError, MalformedInput, RuleViolation
from app.domain.formats import format_from_log
from app.domain.log import event_to_log, parse_line
from app.domain.replay import clock_report, replay_lines, report
from app.domain.tournament import TableClock, Tournament

Line = dict[str, Any]

FORMAT = {"preset": "wsom2008", "advance": [8, 4]}
FORMAT_2007 = {"preset": "wsom2007", "advance": [8, 4]}
GROUP_A = [f"P{n:02d}" for n in range(1, 9)]
GROUP_B = [f"P{n:02d}" for n in range(9, 17)]
TABLES = {1: GROUP_A[:4], 2: GROUP_A[4:], 3: GROUP_B[:4], 4: GROUP_B[4:]}
# Round 2 (the quarters): seat 1 and seat 2 of every round-1 table advance (see PLAYED_ROUND_ONE).
QUARTER_TABLES = {1: ["P01", "P02", "P05", "P06"], 2: ["P09", "P10", "P13", "P14"]}


def t(clock: str) -> str:
    """A moment of 2026-11-29 in UTC, as the log writes it: t("10:10:01")."""
    return f"2026-11-29T{clock}{':00' if clock.count(':') == 1 else ''}Z"


def moment(clock: str) -> datetime:
    return datetime.fromisoformat(t(clock))


# -- line builders ------------------------------------------------------------------------


def tournament_line(fmt: object = FORMAT) -> Line:
    return {"type": "tournament", "name": "Clock Open", "format": fmt}


def player(player_id: str, group: str) -> Line:
    return {"type": "player", "id": player_id, "name": f"Player {player_id}", "group": group}


def seating(table: int, segment: int = 1, round_: int = 1) -> Line:
    seats = TABLES[table] if round_ == 1 else QUARTER_TABLES[table]
    return {"type": "seating", "round": round_, "segment": segment, "table": table, "seats": seats}


def schedule(start: Any, segment: int = 1, round_: int = 1, group: str | None = "A") -> Line:
    line: Line = {"type": "schedule", "round": round_, "segment": segment, "start": start}
    if group is not None:
        line["group"] = group
    return line


def where(table: int, segment: int, round_: int) -> Line:
    return {"round": round_, "segment": segment, "table": table}


def deal(table: int, number: int, time: Any, segment: int = 1, round_: int = 1) -> Line:
    return {"type": "deal", **where(table, segment, round_), "hand": number, "time": time}


def hand(
    table: int, number: int, segment: int = 1, round_: int = 1, *, winner: int = 0, **meta: Any
) -> Line:
    seats = TABLES[table] if round_ == 1 else QUARTER_TABLES[table]
    result = {"kind": "self_draw", "winner": seats[winner], "value": 10}
    return {
        "type": "hand",
        **where(table, segment, round_),
        "hand": number,
        "result": result,
        **meta,
    }


def void(table: int, number: int, segment: int = 1, round_: int = 1) -> Line:
    return {"type": "void", **where(table, segment, round_), "hand": number}


def early_start(
    table: int, time: Any, segment: int = 1, round_: int = 1, agreed: Any = True
) -> Line:
    return {"type": "early_start", **where(table, segment, round_), "time": time, "agreed": agreed}


def extension(table: int, minutes: Any, segment: int = 1, round_: int = 1) -> Line:
    return {"type": "extension", **where(table, segment, round_), "minutes": minutes}


def play_all(table: int, segment: int = 1, round_: int = 1) -> Line:
    return {"type": "play_all", **where(table, segment, round_), "reason": "stalling by a leader"}


def segment_end(segment: int = 1, round_: int = 1, group: str | None = "A") -> Line:
    line: Line = {"type": "segment_end", "round": round_, "segment": segment}
    return line if group is None else {**line, "group": group}


def played(table: int, count: int, first_deal: str = "09:01", segment: int = 1) -> list[Line]:
    """`count` hands at `table`, each dealt 8 minutes after the one before (rule CL-3)."""
    start = moment(first_deal)
    lines: list[Line] = []
    for number in range(1, count + 1):
        dealt = start + timedelta(minutes=8 * (number - 1))
        lines.append(deal(table, number, dealt.isoformat().replace("+00:00", "Z"), segment))
        lines.append(hand(table, number, segment))
    return lines


def texts(lines: list[Line]) -> list[str]:
    return [json.dumps(line) for line in lines]


# -- base logs ----------------------------------------------------------------------------


def registered(fmt: object = FORMAT) -> list[Line]:
    return [
        tournament_line(fmt),
        *(player(p, "A") for p in GROUP_A),
        *(player(p, "B") for p in GROUP_B),
    ]


def scheduled(fmt: object = FORMAT) -> list[Line]:
    """Round 1 seated, group A's first half scheduled at 09:00Z: its deadline is 10:10Z
    (rule CL-1: 70 minutes in round 1). Group B has no schedule (rule CL-3a)."""
    return [*registered(fmt), schedule(t("09:00")), *(seating(table) for table in TABLES)]


SCHEDULED = scheduled()
SCHEDULED_2007 = scheduled(FORMAT_2007)
# Round 1 played without a schedule, so no deals are needed (rule CL-3a): at every table
# seat 1 and then seat 2 win 10 by self-draw. Seats 1 and 2 (25 and 5) advance, seats 3
# and 4 (-15) do not: the cut after 8 players is clear.
PLAYED_ROUND_ONE: list[Line] = [
    *registered(),
    *(seating(table) for table in TABLES),
    *(hand(table, n, winner=n - 1) for table in TABLES for n in (1, 2)),
]
# Round 2 is the quarters (FM-4): 4 quarters of 4 hands, 30 minutes each (CL-1).
QUARTERS: list[Line] = [
    *PLAYED_ROUND_ONE,
    {"type": "round_end", "round": 1},
    *(
        schedule(t(start), segment, round_=2, group=None)
        for segment, start in enumerate(["13:00", "13:40", "14:20", "15:00"], start=1)
    ),
    *(seating(table, segment, round_=2) for segment in (1, 2, 3, 4) for table in QUARTER_TABLES),
]


def test_the_base_logs_are_what_the_cases_assume() -> None:
    fmt = format_from_log(FORMAT)
    assert [(r.groups, r.segments, r.hands_per_segment, r.segment_kind) for r in fmt.rounds] == [
        (2, 4, 8, "half"),
        (1, 4, 4, "quarter"),
        (1, 1, 16, "session"),
    ]
    assert [r.time_limit_minutes for r in fmt.rounds] == [70, 30, None]
    assert (fmt.early_start_minutes, format_from_log(FORMAT_2007).early_start_minutes) == (5, 10)

    tournament = replay_lines(texts(SCHEDULED))
    facts = tournament.clock_facts(1, 1, 1)
    assert (facts.scheduled_start, facts.limit) == (moment("09:00"), timedelta(minutes=70))
    assert tournament.clock_facts(1, 1, 3).scheduled_start is None  # group B: rule CL-3a

    quarters = replay_lines(texts(QUARTERS))
    assert quarters.current_round.number == 2
    assert sorted(quarters.current_round.field) == sorted(sum(QUARTER_TABLES.values(), []))
    assert quarters.clock_facts(2, 2, 1).scheduled_start == moment("13:40")


# -- refused lines --------------------------------------------------------------------------


@dataclass(frozen=True)
class Refused:
    id: str
    prefix: list[Line]
    bad: Line
    field: str
    rule: str
    error: type[RuleViolation] = RuleViolation

    @property
    def line_number(self) -> int:
        return len(self.prefix) + 1


# A valid line after every bad one, so the error must name the bad line and not the last.
AFTER: list[Line] = [{"type": "prizes", "amounts": [100, 50]}]
DEALT_ONE = [*SCHEDULED, *played(1, 1)]
B_PLAYED = [*SCHEDULED, hand(3, 1), hand(3, 2)]

REFUSED = [
    # -- parsing: the shape of a line (CONTRACT §1) -------------------------------------------
    Refused(
        "FM-8-schedule-start-without-utc-offset",
        [*registered(), *(seating(table) for table in TABLES)],
        schedule("2026-11-29T09:00:00"),
        "start",
        "FM-8",
        MalformedInput,
    ),
    Refused(
        "FM-8-schedule-start-not-a-string",
        registered(),
        schedule(1795942800),
        "start",
        "FM-8",
        MalformedInput,
    ),
    Refused(
        "FM-2-schedule-group-not-a-or-b",
        registered(),
        schedule(t("09:00"), group="C"),
        "group",
        "FM-2",
        MalformedInput,
    ),
    Refused(
        "CL-3-deal-time-without-utc-offset",
        SCHEDULED,
        deal(1, 1, "2026-11-29T09:01:00"),
        "time",
        "CL-3",
        MalformedInput,
    ),
    Refused(
        "CL-3-deal-time-not-a-string", SCHEDULED, deal(1, 1, 540), "time", "CL-3", MalformedInput
    ),
    Refused(
        "CL-3-deal-time-not-iso-8601",
        SCHEDULED,
        deal(1, 1, "29/11/2026 09:01"),
        "time",
        "CL-3",
        MalformedInput,
    ),
    Refused(
        "CL-3-deal-hand-zero",
        SCHEDULED,
        deal(1, 0, t("09:01")),
        "hand",
        "CONTRACT §1",
        MalformedInput,
    ),
    Refused(
        "CL-2-early-start-time-without-utc-offset",
        SCHEDULED,
        early_start(1, "2026-11-29T08:57:00"),
        "time",
        "CL-2",
        MalformedInput,
    ),
    Refused(
        "CL-2-early-start-time-not-a-string",
        SCHEDULED,
        early_start(1, None),
        "time",
        "CL-2",
        MalformedInput,
    ),
    Refused(
        "CL-2-early-start-agreed-false",
        SCHEDULED,
        early_start(1, t("08:57"), agreed=False),
        "agreed",
        "CL-2",
        MalformedInput,
    ),
    Refused(
        "CL-2-early-start-agreed-not-true",
        SCHEDULED,
        early_start(1, t("08:57"), agreed="yes"),
        "agreed",
        "CL-2",
        MalformedInput,
    ),
    Refused(
        "CONTRACT-early-start-without-agreed",
        SCHEDULED,
        {k: v for k, v in early_start(1, t("08:57")).items() if k != "agreed"},
        "agreed",
        "CONTRACT §1",
        MalformedInput,
    ),
    Refused(
        "CONTRACT-extension-unknown-field",
        SCHEDULED,
        {**extension(1, 10), "reason": "TV table"},
        "reason",
        "CONTRACT §1",
        MalformedInput,
    ),
    Refused(
        "CONTRACT-deal-unknown-field",
        SCHEDULED,
        {**deal(1, 1, t("09:01")), "dealer": "P01"},
        "dealer",
        "CONTRACT §1",
        MalformedInput,
    ),
    Refused("CL-2-extension-0-minutes", SCHEDULED, extension(1, 0), "minutes", "CL-2"),
    Refused("CL-2-extension-negative", SCHEDULED, extension(1, -5), "minutes", "CL-2"),
    Refused("CL-2-extension-minutes-as-text", SCHEDULED, extension(1, "10"), "minutes", "CL-2"),
    Refused("CL-2-extension-minutes-as-bool", SCHEDULED, extension(1, True), "minutes", "CL-2"),
    Refused(
        "PN-2-play-all-empty-reason",
        SCHEDULED,
        {**play_all(1), "reason": " "},
        "reason",
        "PN-2",
        MalformedInput,
    ),
    Refused(
        "CONTRACT-play-all-without-reason",
        SCHEDULED,
        {k: v for k, v in play_all(1).items() if k != "reason"},
        "reason",
        "CONTRACT §1",
        MalformedInput,
    ),
    # -- schedule (rules FM-2, FM-8, CL-2) -----------------------------------------------
    Refused(
        "FM-2-round-1-schedule-without-group",
        registered(),
        schedule(t("09:00"), group=None),
        "group",
        "FM-2",
        MalformedInput,
    ),
    Refused(
        "FM-2-round-2-schedule-with-group",
        registered(),
        schedule(t("13:00"), round_=2, group="A"),
        "group",
        "FM-2",
        MalformedInput,
    ),
    Refused(
        "FM-2-schedule-segment-5-of-4-halves",
        registered(),
        schedule(t("09:00"), segment=5),
        "segment",
        "FM-2",
        MalformedInput,
    ),
    Refused(
        "FM-4-schedule-quarter-5-of-4",
        registered(),
        schedule(t("13:00"), segment=5, round_=2, group=None),
        "segment",
        "FM-4",
        MalformedInput,
    ),
    Refused(
        "FM-1-schedule-round-the-format-lacks",
        registered(),
        schedule(t("13:00"), round_=4, group=None),
        "round",
        "FM-1",
        MalformedInput,
    ),
    Refused(
        "FM-1-schedule-of-a-round-that-ended",
        QUARTERS,
        schedule(t("09:00"), segment=2),
        "round",
        "FM-1",
        IllegalMove,
    ),
    Refused(
        "CL-2-schedule-changed-after-a-deal",
        [*SCHEDULED, deal(1, 1, t("09:01"))],
        schedule(t("09:30")),
        "start",
        "CL-2",
        IllegalMove,
    ),
    Refused(
        "CL-2-schedule-changed-after-a-hand",
        DEALT_ONE,
        schedule(t("08:30")),
        "start",
        "CL-2",
        IllegalMove,
    ),
    Refused(
        "CL-2-schedule-changed-after-an-early-start",
        [*SCHEDULED, early_start(2, t("08:57"))],
        schedule(t("09:30")),
        "start",
        "CL-2",
        IllegalMove,
    ),
    Refused(
        # rule CL-3a: hands were accepted without deals; a schedule now would judge them late
        "CL-2-schedule-set-after-hands-of-an-unscheduled-segment",
        B_PLAYED,
        schedule(t("09:00"), group="B"),
        "start",
        "CL-2",
        IllegalMove,
    ),
    # -- deals and hands in a scheduled segment (rule CL-3) --------------------------------
    Refused("CL-3-hand-without-a-deal", SCHEDULED, hand(1, 1), "hand", "CL-3", IllegalMove),
    Refused(
        "CL-3-second-hand-without-a-deal",
        [*DEALT_ONE, deal(2, 1, t("09:02"))],
        hand(1, 2),
        "hand",
        "CL-3",
        IllegalMove,
    ),
    Refused(
        "CL-3-deal-one-second-after-the-deadline",
        [*SCHEDULED, *played(1, 7)],
        deal(1, 8, t("10:10:01")),
        "time",
        "CL-3",
        IllegalMove,
    ),
    Refused(
        "CL-3-deal-after-the-deadline-in-another-offset",
        [*SCHEDULED, *played(1, 7)],
        deal(1, 8, "2026-11-29T11:10:01+01:00"),
        "time",
        "CL-3",
        IllegalMove,
    ),
    Refused(
        "CL-3-deal-after-the-extended-deadline",
        [*SCHEDULED, extension(1, 10)],
        deal(1, 1, t("10:20:01")),
        "time",
        "CL-3",
        IllegalMove,
    ),
    Refused(
        "CL-2-extension-is-for-one-table-only",
        [*SCHEDULED, extension(2, 10)],
        deal(1, 1, t("10:15")),
        "time",
        "CL-3",
        IllegalMove,
    ),
    Refused(
        "CL-2-deal-before-the-scheduled-start",
        SCHEDULED,
        deal(1, 1, t("08:59:59")),
        "time",
        "CL-2",
        IllegalMove,
    ),
    Refused(
        "CL-2-deal-before-the-early-start",
        [*SCHEDULED, early_start(1, t("08:57"))],
        deal(1, 1, t("08:56")),
        "time",
        "CL-2",
        IllegalMove,
    ),
    Refused(
        "CL-6-deal-earlier-than-the-previous-deal",
        [*DEALT_ONE, deal(1, 2, t("09:30")), hand(1, 2)],
        deal(1, 3, t("09:29")),
        "time",
        "CL-6",
        IllegalMove,
    ),
    Refused(
        "CL-3-deal-of-a-completed-hand",
        DEALT_ONE,
        deal(1, 1, t("09:20")),
        "hand",
        "CL-3",
        IllegalMove,
    ),
    Refused(
        "CL-3-deal-dealt-twice",
        [*DEALT_ONE, deal(1, 2, t("09:20"))],
        deal(1, 2, t("09:21")),
        "hand",
        "CL-3",
        IllegalMove,
    ),
    Refused("CL-3-deal-skipping-a-hand", SCHEDULED, deal(1, 2, t("09:01")), "hand", "CL-3"),
    Refused("CL-3-deal-beyond-8-hands", SCHEDULED, deal(1, 9, t("09:01")), "hand", "CL-3"),
    Refused("SE-1-deal-at-an-unseated-table", SCHEDULED, deal(5, 1, t("09:01")), "table", "SE-1"),
    Refused(
        "SE-1-deal-in-a-segment-not-seated-yet",
        SCHEDULED,
        deal(1, 1, t("10:21"), segment=2),
        "table",
        "SE-1",
    ),
    Refused(
        "FM-1-deal-after-the-round-ended",
        QUARTERS,
        deal(3, 3, t("09:30")),
        "round",
        "FM-1",
        IllegalMove,
    ),
    # -- early starts (rules CL-2, CL-5, CL-3a) ------------------------------------------
    Refused(
        "CL-2-early-start-5-min-1-s-early-wsom2008",
        SCHEDULED,
        early_start(1, t("08:54:59")),
        "time",
        "CL-2",
        IllegalMove,
    ),
    Refused(
        "CL-2-early-start-10-min-1-s-early-wsom2007",
        SCHEDULED_2007,
        early_start(1, t("08:49:59")),
        "time",
        "CL-2",
        IllegalMove,
    ),
    Refused(
        "CL-2-early-start-never-with-a-0-minute-cap",
        scheduled({**FORMAT, "early_start": 0}),
        early_start(1, t("08:59:59")),
        "time",
        "CL-2",
        IllegalMove,
    ),
    Refused(
        "CL-2-early-start-at-the-scheduled-start",
        SCHEDULED,
        early_start(1, t("09:00")),
        "time",
        "CL-2",
        MalformedInput,
    ),
    Refused(
        "CL-2-early-start-after-a-deal",
        [*SCHEDULED, deal(1, 1, t("09:00"))],
        early_start(1, t("08:58")),
        "time",
        "CL-2",
        IllegalMove,
    ),
    Refused(
        "CL-2-early-start-recorded-twice",
        [*SCHEDULED, early_start(1, t("08:57"))],
        early_start(1, t("08:58")),
        "time",
        "CL-2",
        IllegalMove,
    ),
    Refused(
        "CL-3a-early-start-in-an-unscheduled-segment",
        SCHEDULED,
        early_start(3, t("08:58")),
        "time",
        "CL-3a",
        MalformedInput,
    ),
    Refused(
        "CL-5-early-start-in-quarter-2",
        QUARTERS,
        early_start(1, t("13:38"), segment=2, round_=2),
        "segment",
        "CL-5",
        IllegalMove,
    ),
    Refused(
        "CL-5-early-start-in-quarter-4",
        QUARTERS,
        early_start(2, t("14:58"), segment=4, round_=2),
        "segment",
        "CL-5",
        IllegalMove,
    ),
    Refused(
        "FM-4-extension-in-quarter-5",
        QUARTERS,
        extension(1, 5, segment=5, round_=2),
        "segment",
        "FM-4",
        MalformedInput,
    ),
    # -- segment_end: the organizer closes a segment (rule CL-3) ------------------------
    Refused(
        "CL-3-deal-after-segment-end",
        [*DEALT_ONE, segment_end()],
        deal(1, 2, t("09:20")),
        "segment",
        "CL-3",
        IllegalMove,
    ),
    Refused(
        "CL-3-hand-after-segment-end-in-an-unscheduled-segment",
        [*SCHEDULED, segment_end(group="B")],
        hand(3, 1),
        "segment",
        "CL-3",
        IllegalMove,
    ),
    Refused(
        "CL-3-segment-end-twice",
        [*SCHEDULED, segment_end()],
        segment_end(),
        "segment",
        "CL-3",
        IllegalMove,
    ),
    Refused(
        "FM-2-segment-end-round-1-without-group",
        SCHEDULED,
        segment_end(group=None),
        "group",
        "FM-2",
        MalformedInput,
    ),
    Refused(
        "FM-2-segment-end-round-2-with-group",
        QUARTERS,
        segment_end(round_=2, group="A"),
        "group",
        "FM-2",
        MalformedInput,
    ),
    Refused(
        "FM-2-segment-end-group-not-a-or-b",
        SCHEDULED,
        segment_end(group="C"),
        "group",
        "FM-2",
        MalformedInput,
    ),
    Refused(
        "FM-4-segment-end-quarter-5",
        QUARTERS,
        segment_end(5, round_=2, group=None),
        "segment",
        "FM-4",
        MalformedInput,
    ),
    Refused(
        "FM-1-play-all-in-a-round-not-begun",
        SCHEDULED,
        play_all(1, round_=2),
        "round",
        "FM-1",
        IllegalMove,
    ),
]


def _ids(cases: list[Refused]) -> list[str]:
    return [case.id for case in cases]


@pytest.mark.parametrize("case", REFUSED, ids=_ids(REFUSED))
def test_a_bad_clock_line_is_refused_naming_line_field_and_rule(case: Refused) -> None:
    replay_lines(texts(case.prefix + AFTER))  # everything before the bad line is accepted

    with pytest.raises(LogError) as caught:
        replay_lines(texts([*case.prefix, case.bad, *AFTER]))

    error = caught.value
    found = (error.line_number, error.violation.field, error.violation.rule)
    assert found == (case.line_number, case.field, case.rule), str(error)
    assert isinstance(error.violation, case.error), type(error.violation)
    assert str(error).startswith(f"line {case.line_number}: ")
    assert f"rule {case.rule}" in str(error)


def _outcome(lines: list[Line], until: datetime | None) -> str:
    try:
        replay_lines(texts(lines), until=until)
    except LogError as error:
        return str(error)
    return "accepted"


def test_replaying_until_a_later_moment_refuses_every_bad_line_the_same_way() -> None:
    """`scoreboard clocks --at` reads the log through `until`; a bad line must get the same
    line, field and rule as `scoreboard replay` gives it."""
    differ = []
    for case in REFUSED:
        lines = [*case.prefix, case.bad, *AFTER]
        plain, until = _outcome(lines, None), _outcome(lines, moment("23:59"))
        if plain != until:
            differ.append(f"{case.id}: replay says {plain!r}, replay until says {until!r}")

    assert differ == [], "\n".join(differ)


def _snapshot(tournament: Tournament) -> str:
    """Everything a refused line could have touched: standings, the schedule, and every
    table's clock facts and clock (at a moment inside each round's first segment)."""
    facts = {
        f"{number}/{segment}/{table}": repr(tournament.clock_facts(number, segment, table))
        for number, state in tournament.rounds.items()
        for segment, table in state.tables
    }
    shown = {
        clock: [clock_report(c) for c in tournament.table_clocks(moment(clock))]
        for clock in ("08:58", "09:30", "10:15", "13:10", "14:00")
    }
    state = {
        "report": report(tournament),
        "schedule": {str(k): v.isoformat() for k, v in tournament.schedule.items()},
        "closed": {n: sorted(state.closed) for n, state in tournament.rounds.items()},
        "facts": facts,
        "clocks": shown,
        "events": len(tournament.events),
    }
    return json.dumps(state, sort_keys=True, default=str)


def _reaches_apply(case: Refused) -> bool:
    try:
        parse_line(json.dumps(case.bad))
    except MalformedInput:
        return False
    return True


@pytest.mark.parametrize(
    "case",
    [c for c in REFUSED if _reaches_apply(c)],
    ids=_ids([c for c in REFUSED if _reaches_apply(c)]),
)
def test_a_refused_clock_line_changes_nothing(case: Refused) -> None:
    tournament = replay_lines(texts(case.prefix))
    before = _snapshot(tournament)

    with pytest.raises(RuleViolation):
        tournament.apply(parse_line(json.dumps(case.bad)))

    assert _snapshot(tournament) == before


# -- accepted lines -----------------------------------------------------------------------


@dataclass(frozen=True)
class Accepted:
    id: str
    lines: list[Line]
    table: int  # the table of round 1's (or the given round's) first segment to look at
    hands: int  # its hands completed
    deadline: str | None  # its deadline (rule CL-2), None: no limit
    starts_at: str | None = None  # its clock's start, when not the schedule's 09:00
    round: int = 1
    segment: int = 1


ACCEPTED = [
    Accepted("CL-3-deals-in-time", [*SCHEDULED, *played(1, 8)], 1, 8, t("10:10"), t("09:00")),
    Accepted(
        "CL-3-deal-exactly-at-the-deadline",
        [*SCHEDULED, *played(1, 7), deal(1, 8, t("10:10:00")), hand(1, 8)],
        1,
        8,
        t("10:10"),
        t("09:00"),
    ),
    Accepted(
        "CL-3-deal-at-the-deadline-in-another-offset",
        [*SCHEDULED, deal(1, 1, "2026-11-29T11:10:00+01:00"), hand(1, 1)],
        1,
        1,
        t("10:10"),
        t("09:00"),
    ),
    Accepted(
        "FM-8-schedule-in-another-offset",
        [
            *registered(),
            schedule("2026-11-29T18:00:00+09:00"),
            seating(1),
            deal(1, 1, t("10:10")),
            hand(1, 1),
        ],
        1,
        1,
        t("10:10"),
        t("09:00"),
    ),
    Accepted(
        "CL-2-extension-moves-the-deadline",
        [*SCHEDULED, extension(1, 10), deal(1, 1, t("10:20")), hand(1, 1)],
        1,
        1,
        t("10:20"),
        t("09:00"),
    ),
    Accepted(
        "CL-2-extension-given-after-the-deadline-passed",
        [*SCHEDULED, *played(1, 7), extension(1, 10), deal(1, 8, t("10:15")), hand(1, 8)],
        1,
        8,
        t("10:20"),
        t("09:00"),
    ),
    Accepted(
        "CL-2-extensions-add-up",
        [*SCHEDULED, extension(1, 5), extension(1, 7), deal(1, 1, t("10:22")), hand(1, 1)],
        1,
        1,
        t("10:22"),
        t("09:00"),
    ),
    Accepted(
        "PN-2-play-all-hands-need-no-deal",
        [*SCHEDULED, play_all(1), hand(1, 1), hand(1, 2)],
        1,
        2,
        t("10:10"),
        t("09:00"),
    ),
    Accepted(
        "PN-2-play-all-deal-after-the-deadline",
        [*SCHEDULED, *played(1, 7), play_all(1), deal(1, 8, t("10:45")), hand(1, 8)],
        1,
        8,
        t("10:10"),
        t("09:00"),
    ),
    Accepted(
        "CL-3a-unscheduled-segment-needs-no-deals",
        [*SCHEDULED, *(hand(3, n) for n in range(1, 9))],
        3,
        8,
        None,
        None,
    ),
    Accepted(
        "CL-3a-unscheduled-segment-deals-at-any-time",
        [*SCHEDULED, deal(3, 1, t("07:00")), hand(3, 1), deal(3, 2, t("23:59")), hand(3, 2)],
        3,
        2,
        None,
        None,
    ),
    Accepted(
        "CL-2-early-start-exactly-5-min-wsom2008",
        [*SCHEDULED, early_start(1, t("08:55")), deal(1, 1, t("08:55")), hand(1, 1)],
        1,
        1,
        t("10:10"),  # an early start does not move the deadline: the table gains the time
        t("08:55"),
    ),
    Accepted(
        "CL-2-early-start-exactly-10-min-wsom2007",
        [*SCHEDULED_2007, early_start(1, t("08:50")), deal(1, 1, t("08:51")), hand(1, 1)],
        1,
        1,
        t("10:10"),
        t("08:50"),
    ),
    Accepted(
        "CL-2-early-start-without-a-deal",
        [*SCHEDULED, early_start(2, t("08:59:30"))],
        2,
        0,
        t("10:10"),
        t("08:59:30"),
    ),
    Accepted(
        "CL-5-early-start-in-quarter-1",
        [*QUARTERS, early_start(1, t("12:55"), round_=2)],
        1,
        0,
        t("13:30"),
        t("12:55"),
        round=2,
    ),
    Accepted(
        "CL-5-early-start-in-quarter-3",
        [*QUARTERS, early_start(2, t("14:15"), segment=3, round_=2)],
        2,
        0,
        t("14:50"),
        t("14:15"),
        round=2,
        segment=3,
    ),
    Accepted(
        "CL-3-correction-after-the-deadline-is-not-a-new-hand",
        [*SCHEDULED, *played(1, 2), hand(1, 1, winner=3, at=t("10:30")), hand(1, 2, winner=2)],
        1,
        2,
        t("10:10"),
        t("09:00"),
    ),
    Accepted(
        "CL-3-void-and-reentry-after-the-deadline",
        [*SCHEDULED, *played(1, 2), void(1, 2), hand(1, 2, winner=1, at=t("10:40"))],
        1,
        2,
        t("10:10"),
        t("09:00"),
    ),
    Accepted(
        "CL-3-correction-after-segment-end",
        [*DEALT_ONE, segment_end(), hand(1, 1, winner=3, at=t("10:30"))],
        1,
        1,
        t("10:10"),
        t("09:00"),
    ),
    Accepted(
        "CL-3-segment-end-closes-one-group-only",
        [*SCHEDULED, segment_end(), hand(3, 1)],
        3,
        1,
        None,
        None,
    ),
    Accepted(
        "FM-8-schedule-changed-before-the-segment-starts",
        [*SCHEDULED, schedule(t("09:30")), deal(1, 1, t("10:40")), hand(1, 1)],
        1,
        1,
        t("10:40"),
        t("09:30"),
    ),
    Accepted(
        "FM-8-other-group-rescheduled-while-group-a-plays",
        [*DEALT_ONE, schedule(t("09:15"), group="B"), deal(3, 1, t("09:15")), hand(3, 1)],
        3,
        1,
        t("10:25"),
        t("09:15"),
    ),
    Accepted(
        "FM-8-next-half-rescheduled-while-the-first-plays",
        [*DEALT_ONE, schedule(t("10:30"), segment=2), schedule(t("10:25"), segment=2)],
        1,
        1,
        t("10:10"),
        t("09:00"),
    ),
    Accepted(
        "FM-8-round-2-scheduled-before-it-begins",
        [
            *registered(),
            schedule(t("13:00"), round_=2, group=None),
            *PLAYED_ROUND_ONE[len(registered()) :],
            {"type": "round_end", "round": 1},
            seating(1, round_=2),
            deal(1, 1, t("13:30"), round_=2),
            hand(1, 1, round_=2),
        ],
        1,
        1,
        t("13:30"),
        t("13:00"),
        round=2,
    ),
]


@pytest.mark.parametrize("case", ACCEPTED, ids=[case.id for case in ACCEPTED])
def test_a_clock_line_is_accepted(case: Accepted) -> None:
    tournament = replay_lines(texts(case.lines))

    facts = tournament.clock_facts(case.round, case.segment, case.table)
    shown = clock_report(
        TableClock(case.round, case.segment, case.table, "", clock_state(facts, moment("00:00")))
    )
    assert shown["hands_completed"] == case.hands
    assert (shown["deadline"], shown["starts_at"]) == (case.deadline, case.starts_at)


def test_the_schedule_of_the_next_half_is_recorded_as_last_given() -> None:
    tournament = replay_lines(
        texts([*DEALT_ONE, schedule(t("10:30"), segment=2), schedule(t("10:25"), segment=2)])
    )

    assert tournament.schedule[(1, "A", 2)] == moment("10:25")
    # rule CL-1: group A's first half now breaks from its deadline to the second half's start
    facts = tournament.clock_facts(1, 1, 1)
    assert (facts.break_start, facts.break_length) == (moment("10:10"), timedelta(minutes=15))


def test_an_extension_moves_only_the_deadline_not_the_start_or_the_break() -> None:
    lines = [*SCHEDULED, schedule(t("10:20"), segment=2), extension(1, 10), extension(1, 5)]
    tournament = replay_lines(texts(lines))

    facts = tournament.clock_facts(1, 1, 1)
    assert facts.extension == timedelta(minutes=15)
    [table_1] = [c for c in tournament.table_clocks(moment("10:12")) if c.table == 1]
    assert table_1.clock.phase == "running"  # no hand dealt late; 13 more minutes to deal
    assert table_1.clock.seconds_left == 13 * 60
    assert table_1.clock.deadline == moment("10:25")
    assert tournament.clock_facts(1, 1, 2).extension == timedelta(0)


def test_play_all_keeps_reporting_the_deadline_but_never_ends_the_segment() -> None:
    tournament = replay_lines(texts([*SCHEDULED, *played(1, 3), play_all(1)]))

    [table_1] = [c for c in tournament.table_clocks(moment("11:00")) if c.table == 1]
    assert table_1.clock.play_all
    assert table_1.clock.phase == "running"
    assert table_1.clock.deadline == moment("10:10")
    assert table_1.clock.seconds_left is None
    [table_2] = [c for c in tournament.table_clocks(moment("11:00")) if c.table == 2]
    assert table_2.clock.phase == "finished_short"  # no hand was dealt there at all


def test_until_stops_at_the_first_line_that_happened_later() -> None:
    lines = [
        *SCHEDULED,
        deal(1, 1, t("09:01")),
        hand(1, 1, at=t("09:09")),
        deal(1, 2, t("09:10")),
        {"type": "penalty", "round": 1, "player": "P01", "points": -5, "reason": "late"},
        hand(1, 2, at=t("09:18")),
    ]

    def hands_at(clock: str) -> int:
        return replay_lines(texts(lines), until=moment(clock)).clock_facts(1, 1, 1).hands_completed

    assert [hands_at(c) for c in ("09:00", "09:08:59", "09:09", "09:17", "09:18")] == [
        0,
        0,
        1,
        1,
        2,
    ]
    # the untimed penalty comes after the 09:10 deal, so it exists from 09:10 on
    early = replay_lines(texts(lines), until=moment("09:09:59"))
    later = replay_lines(texts(lines), until=moment("09:10"))
    assert (early.current_round.play.get("P01"), later.current_round.play.get("P01")) == (30, 25)


@pytest.mark.parametrize(
    "until", [None, moment("10:00")], ids=["CONTRACT-replay", "CONTRACT-replay-until"]
)
def test_a_hand_at_without_utc_offset_is_refused_naming_its_line(until: datetime | None) -> None:
    """A hand's `at` dates the final's break (rule CL-1) and the log's order (`until`)."""
    lines = [*SCHEDULED, *played(1, 1), hand(1, 1, winner=2, at="2026-11-29T09:20:00")]

    with pytest.raises(LogError) as caught:
        replay_lines(texts(lines), until=until)

    error = caught.value
    assert (error.line_number, error.violation.field) == (len(lines), "at")


def test_clock_lines_round_trip_through_the_log_writer() -> None:
    """A replayed clock line written back out (export) is the same line, times in UTC."""
    lines = [
        schedule("2026-11-29T18:00:00+09:00"),
        deal(1, 1, t("09:01:30")),
        early_start(1, t("08:57")),
        extension(1, 10),
        play_all(1),
        segment_end(),
        {"type": "draw", "round": 1, "seed": "s1"},
    ]
    written = [event_to_log(parse_line(json.dumps(line))) for line in lines]

    assert written[0] == schedule(t("09:00"))
    assert written[1:] == lines[1:]


def test_a_deal_recorded_offline_keeps_its_time_and_is_in_the_log_from_its_arrival() -> None:
    """A tablet's outbox sends a deal with the tablet's `time` and `sent`; the server stamps
    `at` when it arrives. The rules judge `time` (here before the 10:10 deadline though it
    arrived at 10:30); the log as it stood at a moment holds it only from its `at`."""
    offline = {**deal(1, 1, t("09:01")), "sent": t("10:30"), "at": t("10:30")}
    override = {
        **deal(1, 2, t("10:05")),
        "override": "tablet clock 4 min slow; dealt at 10:05",
        "at": t("10:40"),
    }
    lines = [*SCHEDULED, offline, hand(1, 1, at=t("10:30:01")), override, hand(1, 2, at=t("10:41"))]

    tournament = replay_lines(texts(lines))
    assert tournament.clock_facts(1, 1, 1).deals == ((1, moment("09:01")), (2, moment("10:05")))
    assert tournament.clock_facts(1, 1, 1).hands_completed == 2
    before_arrival = replay_lines(texts(lines), until=moment("10:29:59"))
    assert before_arrival.clock_facts(1, 1, 1).deals == ()
    arrived = replay_lines(texts(lines), until=moment("10:30"))
    assert arrived.clock_facts(1, 1, 1).deals == ((1, moment("09:01")),)
    written = [event_to_log(parse_line(json.dumps(line))) for line in (offline, override)]
    assert written == [{k: v for k, v in line.items() if k != "at"} for line in (offline, override)]
    # `sent` is a time like any other, and `override` a reason: a bad one is refused.
    for bad, field in (
        ({**offline, "sent": "10:30"}, "sent"),
        ({**override, "override": ""}, "override"),
    ):
        with pytest.raises(LogError) as caught:
            replay_lines(texts([*SCHEDULED, bad]))
        assert caught.value.violation.field == field
