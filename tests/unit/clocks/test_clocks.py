"""Segment clocks (rules CL-1 to CL-6, CL-3a, PN-2), against a fake clock: every moment is
a fixed datetime, the base T0 plus minutes, passed in as `now`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from app.domain.clocks import (
    ClockState,
    Phase,
    SegmentClockFacts,
    accepts_hand,
    break_length,
    check_deal,
    check_early_start,
    check_hand,
    clock_state,
    deadline,
    early_start_cap,
    joint_start,
    mid_break_after_hand,
    time_limit,
)
from app.domain.errors import IllegalMove, MalformedInput, RuleViolation
from app.domain.formats import PRESETS

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
NAIVE = datetime(2026, 11, 29, 9, 0)
MINUTES_5 = timedelta(minutes=5)
MINUTES_10 = timedelta(minutes=10)


def at(minutes: float = 0, seconds: float = 0) -> datetime:
    return T0 + timedelta(minutes=minutes, seconds=seconds)


# A 70-minute half of 8 hands starting at T0: its deadline is at(70) (rule CL-1).
HALF = SegmentClockFacts(scheduled_start=T0, limit=timedelta(minutes=70), planned_hands=8)
# The final: 16 hands, no limit, a 10-minute break after hand 8 (rule CL-1).
FINAL = SegmentClockFacts(
    scheduled_start=T0,
    limit=None,
    planned_hands=16,
    mid_break_after_hand=8,
    mid_break_length=MINUTES_10,
)
NO_SCHEDULE = replace(HALF, scheduled_start=None)  # rule CL-3a


def half(**changes: Any) -> SegmentClockFacts:
    return replace(HALF, **changes)


def with_break(facts: SegmentClockFacts) -> SegmentClockFacts:
    """The 10-minute break after the half, from its scheduled deadline (rule CL-1)."""
    return replace(facts, break_start=at(70), break_length=MINUTES_10)


def played(facts: SegmentClockFacts, hands: int, *, every: float = 8) -> SegmentClockFacts:
    """`hands` hands dealt `every` minutes apart from the start and completed."""
    deals = tuple((hand, at(every * (hand - 1))) for hand in range(1, hands + 1))
    return replace(facts, hands_completed=hands, deals=deals)


def dealing(facts: SegmentClockFacts, moment: datetime) -> SegmentClockFacts:
    """The next hand after the completed ones, dealt at `moment` and not finished."""
    return replace(facts, deals=(*facts.deals, (facts.hands_completed + 1, moment)))


def raises(
    error: type[RuleViolation], rule: str, field: str, fragment: str
) -> tuple[type[RuleViolation], str, str, str]:
    return error, rule, field, fragment


def assert_refused(excinfo: pytest.ExceptionInfo[RuleViolation], expected: Any) -> None:
    error, rule, field, fragment = expected
    assert type(excinfo.value) is error
    assert (excinfo.value.rule, excinfo.value.field) == (rule, field)
    assert fragment in excinfo.value.message


# --- rule CL-2: the deadline -------------------------------------------------------------


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        pytest.param(HALF, at(70), id="CL-2 scheduled start + limit"),
        pytest.param(half(extension=MINUTES_5), at(75), id="CL-2 an extension moves it later"),
        pytest.param(half(early_start=at(-5)), at(70), id="CL-2 an early start does not move it"),
        pytest.param(half(limit=timedelta(minutes=30)), at(30), id="CL-1 a 30-minute quarter"),
        pytest.param(NO_SCHEDULE, None, id="CL-3a no scheduled start, no deadline"),
        pytest.param(FINAL, None, id="CL-1 the final has no limit"),
        pytest.param(half(play_all=True), at(70), id="PN-2 play-all still reports it"),
    ],
)
def test_deadline(facts: SegmentClockFacts, expected: datetime | None) -> None:
    assert deadline(facts) == expected


# --- rule CL-2: starting early ------------------------------------------------------------


@pytest.mark.parametrize(
    ("started_at", "cap"),
    [
        pytest.param(at(-5), MINUTES_5, id="CL-2 exactly at the 5-minute cap (WSOM 2008)"),
        pytest.param(at(-1), MINUTES_5, id="CL-2 one minute early"),
        pytest.param(at(0, -1), MINUTES_5, id="CL-2 one second early"),
        pytest.param(at(-10), MINUTES_10, id="CL-2 exactly at the 10-minute cap (WSOM 2007)"),
    ],
)
def test_early_start_accepted(started_at: datetime, cap: timedelta) -> None:
    check_early_start(T0, started_at, cap, all_four_agree=True)


@pytest.mark.parametrize(
    ("scheduled", "started_at", "cap", "agree", "expected"),
    [
        pytest.param(
            T0,
            at(-5, -1),
            MINUTES_5,
            True,
            raises(IllegalMove, "CL-2", "early_start", "5 min 1 s before the scheduled start"),
            id="CL-2 one second beyond the 5-minute cap",
        ),
        pytest.param(
            T0,
            at(-10),
            MINUTES_5,
            True,
            raises(IllegalMove, "CL-2", "early_start", "at most 5 min early is allowed"),
            id="CL-2 the WSOM 2007 10 minutes under the WSOM 2008 cap",
        ),
        pytest.param(
            T0,
            at(-11),
            MINUTES_10,
            True,
            raises(IllegalMove, "CL-2", "early_start", "11 min before"),
            id="CL-2 beyond the 10-minute cap",
        ),
        pytest.param(
            T0,
            at(-1),
            MINUTES_5,
            False,
            raises(IllegalMove, "CL-2", "all_four_agree", "all four players agree"),
            id="CL-2 refused without all four agreeing",
        ),
        pytest.param(
            T0,
            T0,
            MINUTES_5,
            True,
            raises(MalformedInput, "CL-2", "early_start", "is not before the scheduled start"),
            id="CL-2 an on-time start is not early",
        ),
        pytest.param(
            T0,
            at(1),
            MINUTES_5,
            True,
            raises(MalformedInput, "CL-2", "early_start", "is not before the scheduled start"),
            id="CL-2 a late start is not early",
        ),
        pytest.param(
            None,
            at(-1),
            MINUTES_5,
            True,
            raises(MalformedInput, "CL-3a", "early_start", "no scheduled start"),
            id="CL-3a nothing to start early without a schedule",
        ),
        pytest.param(
            T0,
            at(-1),
            -MINUTES_5,
            True,
            raises(MalformedInput, "CL-2", "early_start_cap", "negative"),
            id="CL-2 a negative cap",
        ),
        pytest.param(
            T0,
            NAIVE,
            MINUTES_5,
            True,
            raises(MalformedInput, "CL-6", "early_start", "timezone-aware"),
            id="CL-6 a naive time",
        ),
    ],
)
def test_early_start_refused(
    scheduled: datetime | None, started_at: datetime, cap: timedelta, agree: bool, expected: Any
) -> None:
    with pytest.raises(RuleViolation) as excinfo:
        check_early_start(scheduled, started_at, cap, all_four_agree=agree)
    assert_refused(excinfo, expected)


# --- rule CL-3: deals ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("facts", "hand", "moment"),
    [
        pytest.param(HALF, 1, at(0), id="CL-3 the first hand at the scheduled start"),
        pytest.param(played(HALF, 7), 8, at(70), id="CL-3 a deal at the deadline second"),
        pytest.param(
            played(HALF, 7), 8, at(70, -0.000001), id="CL-3 a microsecond before the deadline"
        ),
        pytest.param(
            half(early_start=at(-5)), 1, at(-5), id="CL-2 a recorded early start deals early"
        ),
        pytest.param(
            played(half(extension=MINUTES_5), 7),
            8,
            at(75),
            id="CL-2 an extension moves the last deal later",
        ),
        pytest.param(
            played(half(play_all=True), 7), 8, at(90), id="PN-2 play-all deals past the deadline"
        ),
        pytest.param(NO_SCHEDULE, 1, at(-600), id="CL-3a no schedule: a deal at any time"),
        pytest.param(played(NO_SCHEDULE, 7), 8, at(6000), id="CL-3a no schedule: hours later"),
        pytest.param(
            replace(played(NO_SCHEDULE, 7), deals=()), 8, at(90), id="CL-3a no deal record needed"
        ),
        pytest.param(played(FINAL, 15), 16, at(600), id="CL-1 the final: no deal is late"),
        pytest.param(
            replace(played(FINAL, 8), mid_break_start=at(70)),
            9,
            at(75),
            id="CL-1 a final table may deal again before its break is over",
        ),
    ],
)
def test_deal_accepted(facts: SegmentClockFacts, hand: int, moment: datetime) -> None:
    check_deal(facts, hand, moment)


@pytest.mark.parametrize(
    ("facts", "hand", "moment", "expected"),
    [
        pytest.param(
            played(HALF, 7),
            8,
            at(70, 1),
            raises(IllegalMove, "CL-3", "at", "1 s after the deadline"),
            id="CL-3 one second after the deadline",
        ),
        pytest.param(
            played(HALF, 7),
            8,
            at(70, 0.000001),
            raises(IllegalMove, "CL-3", "at", "no new hand may start after it"),
            id="CL-3 one microsecond after the deadline",
        ),
        pytest.param(
            played(half(extension=MINUTES_5), 7),
            8,
            at(75, 1),
            raises(IllegalMove, "CL-3", "at", "after the deadline 2026-11-29T10:15:00+00:00"),
            id="CL-2 CL-3 one second after the extended deadline",
        ),
        pytest.param(
            played(HALF, 8),
            9,
            at(60),
            raises(MalformedInput, "CL-3", "hand", "outside the 8 planned hands"),
            id="CL-3 a hand beyond the planned hands",
        ),
        pytest.param(
            played(NO_SCHEDULE, 8),
            9,
            at(60),
            raises(MalformedInput, "CL-3", "hand", "outside the 8 planned hands"),
            id="CL-3a no schedule still plans its hands",
        ),
        pytest.param(
            HALF,
            0,
            at(1),
            raises(MalformedInput, "CL-3", "hand", "outside the 8 planned hands"),
            id="CL-3 hand 0",
        ),
        pytest.param(
            played(HALF, 2),
            2,
            at(20),
            raises(IllegalMove, "CL-3", "hand", "hand 2 is already completed"),
            id="CL-3 a completed hand",
        ),
        pytest.param(
            played(HALF, 2),
            4,
            at(20),
            raises(IllegalMove, "CL-3", "hand", "hand 3 is not completed yet"),
            id="CL-3 a hand out of order",
        ),
        pytest.param(
            dealing(played(HALF, 2), at(16)),
            3,
            at(20),
            raises(IllegalMove, "CL-3", "hand", "hand 3 was already dealt"),
            id="CL-3 a hand dealt twice",
        ),
        pytest.param(
            HALF,
            1,
            at(0, -1),
            raises(IllegalMove, "CL-2", "at", "all four players agree"),
            id="CL-2 before the schedule with no early start",
        ),
        pytest.param(
            half(early_start=at(-3)),
            1,
            at(-4),
            raises(IllegalMove, "CL-2", "at", "the segment starts at 2026-11-29T08:57:00+00:00"),
            id="CL-2 before the recorded early start",
        ),
        pytest.param(
            played(HALF, 2),
            3,
            at(7),
            raises(IllegalMove, "CL-6", "at", "before the previous deal"),
            id="CL-6 time never runs backwards",
        ),
        pytest.param(
            HALF,
            1,
            NAIVE,
            raises(MalformedInput, "CL-6", "at", "timezone-aware"),
            id="CL-6 a naive time",
        ),
    ],
)
def test_deal_refused(facts: SegmentClockFacts, hand: int, moment: datetime, expected: Any) -> None:
    with pytest.raises(RuleViolation) as excinfo:
        check_deal(facts, hand, moment)
    assert_refused(excinfo, expected)


# --- rule CL-3: hand results --------------------------------------------------------------


@pytest.mark.parametrize(
    ("facts", "hand", "moment"),
    [
        pytest.param(
            dealing(played(HALF, 7), at(69)), 8, at(76), id="CL-3 dealt in time, finished late"
        ),
        pytest.param(
            dealing(played(HALF, 7), at(70)), 8, at(76), id="CL-3 dealt at the deadline second"
        ),
        pytest.param(
            replace(played(HALF, 7), deals=()),
            8,
            at(70),
            id="CL-3 no deal record but entered by the deadline",
        ),
        pytest.param(
            replace(played(NO_SCHEDULE, 7), deals=()), 8, at(900), id="CL-3a any hand, any time"
        ),
        pytest.param(played(FINAL, 15), 16, at(900), id="CL-1 the final: any time"),
        pytest.param(
            replace(played(half(play_all=True), 7), deals=()),
            8,
            at(95),
            id="PN-2 play-all: no deal record needed",
        ),
    ],
)
def test_hand_accepted(facts: SegmentClockFacts, hand: int, moment: datetime) -> None:
    check_hand(facts, hand, moment)
    assert accepts_hand(facts, hand, moment)


@pytest.mark.parametrize(
    ("facts", "hand", "moment", "expected"),
    [
        pytest.param(
            replace(played(HALF, 7), deals=()),
            8,
            at(70, 1),
            raises(IllegalMove, "CL-3", "hand", "hand 8 has no recorded deal"),
            id="CL-3 no deal record after the deadline",
        ),
        pytest.param(
            dealing(played(HALF, 7), at(70, 1)),
            8,
            at(78),
            raises(IllegalMove, "CL-3", "hand", "after the deadline"),
            id="CL-3 a deal recorded late (an imported log)",
        ),
        pytest.param(
            played(HALF, 8),
            9,
            at(60),
            raises(MalformedInput, "CL-3", "hand", "outside the 8 planned hands"),
            id="CL-3 a hand beyond the planned hands",
        ),
    ],
)
def test_hand_refused(facts: SegmentClockFacts, hand: int, moment: datetime, expected: Any) -> None:
    assert not accepts_hand(facts, hand, moment)
    with pytest.raises(RuleViolation) as excinfo:
        check_hand(facts, hand, moment)
    assert_refused(excinfo, expected)


# --- the clock state ----------------------------------------------------------------------

# (phase, seconds_left, seconds_over, break_seconds_left)
Shown = tuple[Phase, int | None, int | None, int | None]


def shown(state: ClockState) -> Shown:
    return state.phase, state.seconds_left, state.seconds_over, state.break_seconds_left


OVERTIME_HALF = dealing(played(HALF, 5), at(69))  # hand 6 dealt a minute before the deadline


@pytest.mark.parametrize(
    ("facts", "now", "expected"),
    [
        pytest.param(HALF, at(-1), ("not_started", None, None, None), id="CL-1 before the start"),
        pytest.param(HALF, at(0), ("running", 4200, None, None), id="CL-1 70 minutes at start"),
        pytest.param(HALF, at(69, 30), ("running", 30, None, None), id="CL-6 30 s left"),
        pytest.param(
            HALF, at(70), ("running", 0, None, None), id="CL-6 0 s only at the deadline instant"
        ),
        pytest.param(
            half(early_start=at(-3)),
            at(-3),
            ("running", 4380, None, None),
            id="CL-2 an early start runs before the schedule and gains the time",
        ),
        pytest.param(
            half(early_start=at(-3)),
            at(-4),
            ("not_started", None, None, None),
            id="CL-2 not started before the early start",
        ),
        pytest.param(
            played(HALF, 5),
            at(70, 1),
            ("finished_short", None, None, None),
            id="CL-3 past the deadline, no hand in progress",
        ),
        pytest.param(
            OVERTIME_HALF, at(71), ("overtime", None, 60, None), id="CL-3 a hand dealt in time"
        ),
        pytest.param(
            dealing(played(HALF, 5), at(70)),
            at(70, 0.5),
            ("overtime", None, 0, None),
            id="CL-3 CL-6 dealt at the deadline second, half a second over",
        ),
        pytest.param(
            dealing(played(HALF, 5), at(70, 1)),
            at(72),
            ("finished_short", None, None, None),
            id="CL-3 a late deal (an imported log) is no overtime",
        ),
        pytest.param(
            played(HALF, 8), at(60), ("finished", None, None, None), id="CL-3 every hand played"
        ),
        pytest.param(
            played(half(play_all=True), 5),
            at(90),
            ("running", None, None, None),
            id="PN-2 play-all keeps the table running past the deadline",
        ),
        pytest.param(
            half(play_all=True),
            at(10),
            ("running", None, None, None),
            id="PN-2 play-all counts down nothing",
        ),
        pytest.param(
            NO_SCHEDULE, at(-600), ("running", None, None, None), id="CL-3a no schedule: running"
        ),
        pytest.param(
            played(NO_SCHEDULE, 3),
            at(6000),
            ("running", None, None, None),
            id="CL-3a no schedule never ends short",
        ),
        pytest.param(
            played(NO_SCHEDULE, 8),
            at(10),
            ("finished", None, None, None),
            id="CL-3a finished when every hand is played",
        ),
        pytest.param(FINAL, at(-1), ("not_started", None, None, None), id="CL-1 final not started"),
        pytest.param(
            played(FINAL, 15, every=60),
            at(960),
            ("running", None, None, None),
            id="CL-1 the final never ends short",
        ),
        pytest.param(
            played(FINAL, 16), at(200), ("finished", None, None, None), id="CL-1 final finished"
        ),
        pytest.param(
            replace(played(FINAL, 8), mid_break_start=at(70)),
            at(75),
            ("break", None, None, 300),
            id="CL-1 the final's break after 2 cycles",
        ),
        pytest.param(
            replace(played(FINAL, 8), mid_break_start=at(70)),
            at(69),
            ("running", None, None, None),
            id="CL-1 the final before its break",
        ),
        pytest.param(
            replace(played(FINAL, 8), mid_break_start=at(70)),
            at(80),
            ("running", None, None, None),
            id="CL-1 the final after its break",
        ),
        pytest.param(
            dealing(replace(played(FINAL, 8), mid_break_start=at(70)), at(74)),
            at(75),
            ("running", None, None, None),
            id="CL-1 the final dealt again before its break was over",
        ),
        pytest.param(
            replace(played(FINAL, 7), mid_break_start=at(70)),
            at(75),
            ("running", None, None, None),
            id="CL-1 the final breaks only after hand 8",
        ),
        pytest.param(
            with_break(played(HALF, 8)),
            at(69),
            ("finished", None, None, None),
            id="CL-1 finished before the break",
        ),
        pytest.param(
            with_break(played(HALF, 8)),
            at(75),
            ("break", None, None, 300),
            id="CL-1 the break after the half",
        ),
        pytest.param(
            with_break(played(HALF, 8)),
            at(80),
            ("finished", None, None, None),
            id="CL-1 after the break",
        ),
        pytest.param(
            with_break(played(HALF, 5)),
            at(70, 1),
            ("break", None, None, 599),
            id="CL-1 CL-3 ended short, into the break",
        ),
        pytest.param(
            with_break(OVERTIME_HALF),
            at(75),
            ("overtime", None, 300, None),
            id="CL-4 a table still playing plays on into the break",
        ),
    ],
)
def test_clock_state(facts: SegmentClockFacts, now: datetime, expected: Shown) -> None:
    state = clock_state(facts, now)

    assert shown(state) == expected
    assert state.server_time == now  # rule CL-6
    assert state.deadline == deadline(facts)
    assert (state.hands_completed, state.planned_hands) == (
        facts.hands_completed,
        facts.planned_hands,
    )


@pytest.mark.parametrize(
    ("facts", "now", "field", "expected"),
    [
        pytest.param(HALF, at(0), "seconds_left", 4200, id="CL-6 at the start"),
        pytest.param(HALF, at(0, 0.000001), "seconds_left", 4200, id="CL-6 rounds up"),
        pytest.param(HALF, at(0, 1), "seconds_left", 4199, id="CL-6 one second in"),
        pytest.param(HALF, at(69, 58.5), "seconds_left", 2, id="CL-6 1.5 s left shows 2"),
        pytest.param(HALF, at(69, 59), "seconds_left", 1, id="CL-6 1 s left"),
        pytest.param(HALF, at(70, -0.000001), "seconds_left", 1, id="CL-6 1 us left shows 1"),
        pytest.param(HALF, at(70), "seconds_left", 0, id="CL-6 the deadline instant shows 0"),
        pytest.param(
            OVERTIME_HALF, at(70, 0.999999), "seconds_over", 0, id="CL-6 overtime rounds down"
        ),
        pytest.param(OVERTIME_HALF, at(70, 1), "seconds_over", 1, id="CL-6 one second over"),
        pytest.param(
            with_break(played(HALF, 8)),
            at(79, 59.5),
            "break_seconds_left",
            1,
            id="CL-6 half a second of break shows 1",
        ),
    ],
)
def test_seconds_correct_to_a_second(
    facts: SegmentClockFacts, now: datetime, field: str, expected: int
) -> None:
    assert getattr(clock_state(facts, now), field) == expected


def test_extension_in_overtime_runs_the_clock_again() -> None:
    """rule CL-2: an extension given while the table is in overtime moves the deadline later,
    so the clock runs again and the table may deal a new hand."""
    assert clock_state(OVERTIME_HALF, at(72)).phase == "overtime"
    with pytest.raises(IllegalMove):
        check_deal(replace(OVERTIME_HALF, hands_completed=6), 7, at(73))

    extended = replace(OVERTIME_HALF, extension=MINUTES_5)

    assert deadline(extended) == at(75)
    assert shown(clock_state(extended, at(72))) == ("running", 180, None, None)
    check_deal(replace(extended, hands_completed=6), 7, at(73))


def test_late_finish_runs_into_the_break_and_the_next_half_starts_on_schedule() -> None:
    """rule CL-4: the table in overtime plays on into the break, then has only what is left
    of it; the next half starts on schedule whatever this table did."""
    last_hand = with_break(dealing(played(HALF, 7), at(68)))

    assert clock_state(last_hand, at(70)).phase == "running"
    assert clock_state(last_hand, at(75)).phase == "overtime"

    finished = replace(last_hand, hands_completed=8)
    state = clock_state(finished, at(77))

    assert shown(state) == ("break", None, None, 180)
    assert state.break_ends == at(80)
    assert clock_state(finished, at(80)).phase == "finished"

    next_half = half(scheduled_start=at(80))

    assert deadline(next_half) == at(150)
    assert shown(clock_state(next_half, at(80))) == ("running", 4200, None, None)


# --- a simulated 70-minute half, minute by minute ------------------------------------------

Run = tuple[Phase, int, int]  # (phase, first minute, last minute)


def simulate(durations: Sequence[int], facts: SegmentClockFacts) -> list[Run]:
    """The judge tries to deal whenever no hand is in progress; a deal the clock refuses is
    not recorded (rule CL-3). Returns the phases as runs of minutes from -5 to 90."""
    deals: list[tuple[int, datetime]] = []
    completed = 0
    ends: int | None = None
    runs: list[Run] = []
    for minute in range(-5, 91):
        now = at(minute)
        if ends == minute:
            completed, ends = completed + 1, None
        facts = replace(facts, hands_completed=completed, deals=tuple(deals))
        if ends is None and completed < facts.planned_hands:
            try:
                check_deal(facts, completed + 1, now)
            except IllegalMove:
                pass
            else:
                deals.append((completed + 1, now))
                ends = minute + durations[completed]
                facts = replace(facts, deals=tuple(deals))
        state = clock_state(facts, now)
        if state.phase == "running" and not facts.play_all:
            assert state.seconds_left == (70 - minute) * 60  # rule CL-6
        if runs and runs[-1][0] == state.phase:
            runs[-1] = (state.phase, runs[-1][1], minute)
        else:
            runs.append((state.phase, minute, minute))
    return runs


@pytest.mark.parametrize(
    ("durations", "facts", "expected"),
    [
        pytest.param(
            [8, 8, 9, 8, 8, 9, 8, 8],
            with_break(HALF),
            [
                ("not_started", -5, -1),
                ("running", 0, 65),
                ("finished", 66, 69),
                ("break", 70, 79),
                ("finished", 80, 90),
            ],
            id="CL-1 8 hands in 66 minutes, then the break",
        ),
        pytest.param(
            [9] * 8,
            with_break(HALF),
            [
                ("not_started", -5, -1),
                ("running", 0, 70),
                ("overtime", 71, 71),
                ("break", 72, 79),
                ("finished", 80, 90),
            ],
            id="CL-3 CL-4 hand 8 finished in overtime, the rest of the break",
        ),
        pytest.param(
            [10] * 8,
            with_break(HALF),
            [
                ("not_started", -5, -1),
                ("running", 0, 70),
                ("overtime", 71, 79),
                ("finished", 80, 90),
            ],
            id="CL-3 CL-4 hand 8 dealt at the deadline second, played through the break",
        ),
        pytest.param(
            [11] * 8,
            with_break(HALF),
            [
                ("not_started", -5, -1),
                ("running", 0, 70),
                ("overtime", 71, 76),
                ("break", 77, 79),
                ("finished_short", 80, 90),
            ],
            id="CL-3 hand 8 refused after the deadline: 7 hands, finished short",
        ),
        pytest.param(
            [9] * 8,
            with_break(half(early_start=at(-3))),
            [
                ("not_started", -5, -4),
                ("running", -3, 68),
                ("finished", 69, 69),
                ("break", 70, 79),
                ("finished", 80, 90),
            ],
            id="CL-2 an early start gains 3 minutes and finishes in time",
        ),
        pytest.param(
            [11] * 8,
            with_break(half(play_all=True)),
            [("not_started", -5, -1), ("running", 0, 87), ("finished", 88, 90)],
            id="PN-2 play-all plays all 8 hands past the deadline",
        ),
    ],
)
def test_simulated_half(
    durations: list[int], facts: SegmentClockFacts, expected: list[Run]
) -> None:
    assert simulate(durations, facts) == expected


# --- rule CL-5: one start for both round-7 tables -----------------------------------------


@pytest.mark.parametrize(
    ("ends", "expected"),
    [
        pytest.param([at(28), at(30)], at(31), id="CL-5 both done before the schedule"),
        pytest.param([at(29), at(34)], at(34), id="CL-5 the later table sets the start"),
        pytest.param([at(36), at(33)], at(36), id="CL-5 whichever table is later"),
        pytest.param([at(29), None], None, id="CL-5 not before every table has finished"),
        pytest.param([], at(31), id="CL-5 no table to wait for"),
    ],
)
def test_joint_start(ends: list[datetime | None], expected: datetime | None) -> None:
    assert joint_start(ends, at(31)) == expected


def test_joint_start_runs_both_clocks_together() -> None:
    """rule CL-5: both tables get the one start, so their clocks agree at every moment."""
    start = joint_start([at(30), at(33)], at(31))
    quarter = SegmentClockFacts(scheduled_start=start, limit=timedelta(minutes=30), planned_hands=4)
    table_1 = replace(quarter, hands_completed=0)
    table_2 = replace(quarter, hands_completed=0)

    for second in range(-60, 40 * 60, 15):
        now = at(33, second)
        assert clock_state(table_1, now) == clock_state(table_2, now)
    assert clock_state(table_1, at(32)).phase == "not_started"
    assert clock_state(table_1, at(33)).seconds_left == 1800


def test_joint_start_refuses_a_naive_time() -> None:
    with pytest.raises(MalformedInput, match="rule CL-6"):
        joint_start([NAIVE], T0)


# --- the format's numbers -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "round_number", "limit", "after_hand"),
    [
        pytest.param("wsom2008", 1, 70, None, id="CL-1 WSOM 2008 round 1: 70 minutes"),
        pytest.param("wsom2008", 5, 60, None, id="CL-1 WSOM 2008 round 5: 60 minutes"),
        pytest.param("wsom2008", 7, 30, None, id="CL-1 WSOM 2008 quarters: 30 minutes"),
        pytest.param("wsom2008", 8, None, 8, id="CL-1 WSOM 2008 final: no limit, break after 8"),
        pytest.param("wsom2007", 5, 70, None, id="CL-1 WSOM 2007 round 5: 70 minutes"),
        pytest.param("wsom2007", 7, 35, None, id="CL-1 WSOM 2007 quarters: 35 minutes"),
        pytest.param("wsom2007", 8, None, 8, id="CL-1 WSOM 2007 final sessions: break after 8"),
    ],
)
def test_format_numbers(
    preset: str, round_number: int, limit: int | None, after_hand: int | None
) -> None:
    round_format = PRESETS[preset].round(round_number)

    assert time_limit(round_format) == (None if limit is None else timedelta(minutes=limit))
    assert break_length(round_format) == MINUTES_10
    assert mid_break_after_hand(round_format) == after_hand


@pytest.mark.parametrize(
    ("preset", "cap"),
    [
        pytest.param("wsom2008", MINUTES_5, id="CL-2 WSOM 2008: 5 minutes"),
        pytest.param("wsom2007", MINUTES_10, id="CL-2 WSOM 2007: 10 minutes"),
    ],
)
def test_early_start_cap(preset: str, cap: timedelta) -> None:
    assert early_start_cap(PRESETS[preset]) == cap
    check_early_start(T0, T0 - cap, early_start_cap(PRESETS[preset]), all_four_agree=True)


# --- facts that cannot be ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "rule", "field"),
    [
        pytest.param({"planned_hands": 0}, "CL-3", "planned_hands", id="CL-3 no planned hands"),
        pytest.param({"hands_completed": 9}, "CL-3", "hands_completed", id="CL-3 too many hands"),
        pytest.param({"hands_completed": -1}, "CL-3", "hands_completed", id="CL-3 negative"),
        pytest.param({"limit": timedelta(0)}, "CL-1", "limit", id="CL-1 a zero limit"),
        pytest.param({"extension": -MINUTES_5}, "CL-2", "extension", id="CL-2 negative extension"),
        pytest.param(
            {"break_length": -MINUTES_5}, "CL-1", "break_length", id="CL-1 negative break"
        ),
        pytest.param(
            {"scheduled_start": None, "early_start": at(-1)},
            "CL-3a",
            "early_start",
            id="CL-3a early start without a schedule",
        ),
        pytest.param({"early_start": at(1)}, "CL-2", "early_start", id="CL-2 early start late"),
        pytest.param(
            {"deals": ((2, at(1)), (1, at(2)))}, "CL-3", "deals", id="CL-3 deals out of order"
        ),
        pytest.param({"deals": ((9, at(1)),)}, "CL-3", "deals", id="CL-3 deal beyond the hands"),
        pytest.param(
            {"deals": ((1, at(2)), (2, at(1)))}, "CL-3", "deals", id="CL-3 deal times backwards"
        ),
        pytest.param(
            {"mid_break_after_hand": 8}, "CL-1", "mid_break_after_hand", id="CL-1 break at end"
        ),
        pytest.param({"scheduled_start": NAIVE}, "CL-6", "scheduled_start", id="CL-6 naive"),
        pytest.param({"deals": ((1, NAIVE),)}, "CL-6", "deals", id="CL-6 naive deal"),
    ],
)
def test_impossible_facts(changes: dict[str, Any], rule: str, field: str) -> None:
    with pytest.raises(MalformedInput) as excinfo:
        half(**changes)
    assert (excinfo.value.rule, excinfo.value.field) == (rule, field)


def test_clock_state_refuses_a_naive_now() -> None:
    with pytest.raises(MalformedInput, match="rule CL-6"):
        clock_state(HALF, NAIVE)


# --- properties ---------------------------------------------------------------------------

PHASE_ORDER: dict[Phase, int] = {
    "not_started": 0,
    "running": 1,
    "overtime": 2,
    "finished_short": 3,
    "finished": 3,
    "break": 3,
}
# microseconds either side of the facts' deadline, where the phases change (see `moment`)
offsets = st.integers(-2 * 3600 * 10**6, 2 * 3600 * 10**6)


def moment(facts: SegmentClockFacts, offset: int) -> datetime:
    return (deadline(facts) or T0) + timedelta(microseconds=offset)


def rarely(draw: st.DrawFn) -> bool:
    return draw(st.integers(0, 5)) == 0


@st.composite
def clock_facts(draw: st.DrawFn) -> SegmentClockFacts:
    """Any consistent facts for one table in one segment, without the final's mid break.
    No schedule (CL-3a), no limit (CL-1) and play-all (PN-2) are drawn rarely, so most
    examples have a deadline that ends the segment."""
    planned = draw(st.sampled_from([4, 8, 16]))
    scheduled = None if rarely(draw) else T0
    limit = None if rarely(draw) else timedelta(minutes=draw(st.integers(1, 120)))
    extension = timedelta(seconds=draw(st.integers(0, 1800)))
    early = None
    if scheduled is not None and not rarely(draw):
        early = T0 - timedelta(seconds=draw(st.integers(0, 600)))
    completed = draw(st.integers(0, planned))
    # deals for the completed hands, often one more for a hand in progress
    dealt = min(planned, completed + draw(st.integers(0, 1)))
    due = 9000 if limit is None else (limit + extension) // timedelta(seconds=1)
    dealt_at = draw(st.lists(st.integers(-600, due + 600), min_size=dealt, max_size=dealt))
    return SegmentClockFacts(
        scheduled_start=scheduled,
        limit=limit,
        planned_hands=planned,
        extension=extension,
        early_start=early,
        deals=tuple((hand, at(0, s)) for hand, s in enumerate(sorted(dealt_at), start=1)),
        hands_completed=completed,
        play_all=rarely(draw),
        # the break starts around the deadline, so overtime meets it (rule CL-4)
        break_start=None if rarely(draw) else at(0, due + draw(st.integers(-600, 600))),
        break_length=timedelta(seconds=draw(st.integers(0, 1200))),
    )


@given(clock_facts(), offsets, offsets)
def test_property_the_clock_only_moves_forward(
    facts: SegmentClockFacts, first: int, second: int
) -> None:
    """rule CL-6: for fixed facts, a later `now` never shows more time left, less overtime,
    more break, or an earlier phase."""
    earlier, later = moment(facts, min(first, second)), moment(facts, max(first, second))
    before, after = clock_state(facts, earlier), clock_state(facts, later)

    assert PHASE_ORDER[before.phase] <= PHASE_ORDER[after.phase]
    if before.seconds_left is not None and after.seconds_left is not None:
        assert before.seconds_left >= after.seconds_left >= 0
    if before.seconds_over is not None and after.seconds_over is not None:
        assert 0 <= before.seconds_over <= after.seconds_over
    if before.break_seconds_left is not None and after.break_seconds_left is not None:
        assert before.break_seconds_left >= after.break_seconds_left > 0


@given(clock_facts(), offsets)
def test_property_seconds_left_is_the_deadline_rounded_up(
    facts: SegmentClockFacts, offset: int
) -> None:
    """rule CL-6: a display computing ceil(deadline - server_time) agrees with the server."""
    state = clock_state(facts, moment(facts, offset))
    if state.seconds_left is None:
        return
    assert state.phase == "running"
    assert state.deadline is not None
    left = state.deadline - state.server_time
    second = timedelta(seconds=1)
    assert (state.seconds_left - 1) * second < left <= state.seconds_left * second


@given(clock_facts(), st.integers(0, 3600), st.integers(0, 600))
def test_property_extension_and_early_start(
    facts: SegmentClockFacts, extra: int, early: int
) -> None:
    """rule CL-2: an extension moves the deadline by exactly its length; an early start never
    moves it."""
    base = deadline(facts)
    extended = deadline(replace(facts, extension=facts.extension + timedelta(seconds=extra)))
    assert extended == (None if base is None else base + timedelta(seconds=extra))
    if facts.scheduled_start is not None:
        started_early = replace(facts, early_start=T0 - timedelta(seconds=early))
        assert deadline(started_early) == base


@given(clock_facts(), offsets)
def test_property_a_deal_is_late_exactly_after_the_deadline(
    facts: SegmentClockFacts, offset: int
) -> None:
    """rule CL-3: for the next hand, dealt after the clock started and after the previous
    deal, the deal is refused exactly when the clock can end the segment and it comes after
    the deadline."""
    facts = replace(facts, deals=facts.deals[: facts.hands_completed])
    dealt_at = moment(facts, offset)
    starts = facts.early_start or facts.scheduled_start
    assume(facts.hands_completed < facts.planned_hands)
    assume(starts is None or dealt_at >= starts)
    assume(not facts.deals or dealt_at >= facts.deals[-1][1])
    due = deadline(facts)
    late = due is not None and not facts.play_all and dealt_at > due
    try:
        check_deal(facts, facts.hands_completed + 1, dealt_at)
    except IllegalMove as error:
        assert late
        assert (error.rule, error.field) == ("CL-3", "at")
    else:
        assert not late
