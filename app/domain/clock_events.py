"""The clock's events at a table and what each table's clock shows.

The organizer's schedule (rule FM-8), closed segments (CL-3), deals (CL-3), early starts
(CL-2, CL-5), extensions (CL-2) and play-all orders (PN-2) are recorded here; the clock
rules themselves are `app.domain.clocks`, which this module feeds with the facts of one
table's segment (CL-1, CL-6). Nothing here reads a clock: the time comes in as `now`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.domain import clocks
from app.domain.errors import IllegalMove, MalformedInput, RuleViolation, say
from app.domain.formats import Format, RoundFormat
from app.domain.log import (
    DealRecorded,
    EarlyStart,
    ExtensionGiven,
    HandRecorded,
    PlayAllOrdered,
    ScheduleSet,
    SegmentClosed,
)
from app.domain.round_state import (
    RoundState,
    TableSegment,
    check_segment,
    seated_table,
    segment_group,
)

ScheduleKey = tuple[int, str, int]  # (round, group or "" after round 1, segment)
Schedule = Mapping[ScheduleKey, datetime]
ClockEvent = DealRecorded | EarlyStart | ExtensionGiven | PlayAllOrdered


@dataclass(frozen=True)
class TableClock:
    round: int
    segment: int
    table: int
    group: str
    clock: clocks.ClockState


def check_schedule(
    round_format: RoundFormat, state: RoundState | None, event: ScheduleSet
) -> ScheduleKey:
    """Where a `schedule` line's start goes (rule FM-8), once the rules allow it."""
    check_segment(round_format, event.segment)
    check_group(round_format, event.group)
    if state is not None and state.ended is not None:
        raise IllegalMove("FM-1", "round", say("round {round} has ended", round=event.round))
    group = event.group or ""
    if state is not None and any(
        (t.deals or t.hands or t.early_start) and t.group == group
        for (segment, _), t in state.tables.items()
        if segment == event.segment
    ):
        # rule CL-2: deals were judged in time against the schedule as it stood
        raise IllegalMove(
            "CL-2",
            "start",
            say("segment {segment} has started; its schedule is fixed", segment=event.segment),
        )
    return (event.round, group, event.segment)


def check_group(round_format: RoundFormat, group: str | None) -> None:
    """rule FM-2: a round played in groups names the group a segment belongs to; other
    rounds name none."""
    if round_format.groups > 1 and group is None:
        raise MalformedInput(
            "FM-2",
            "group",
            say("round {number} is played in groups; name the group", number=round_format.number),
        )
    if round_format.groups == 1 and group is not None:
        raise MalformedInput(
            "FM-2", "group", say("round {number} has no groups", number=round_format.number)
        )


def close_segment(state: RoundState, event: SegmentClosed) -> None:
    """rule CL-3: the organizer ends a segment for its tables."""
    check_segment(state.format, event.segment)
    check_group(state.format, event.group)
    key = (event.group or "", event.segment)
    if key in state.closed:
        raise IllegalMove(
            "CL-3", "segment", say("segment {segment} is closed already", segment=event.segment)
        )
    state.closed.add(key)


def check_open_segment(state: RoundState, segment: int, table: TableSegment) -> None:
    """A closed segment takes no new hand or deal (rule CL-3: it has ended for its
    tables); corrections of its hands are still accepted."""
    if (segment_group(state, table), segment) in state.closed:
        raise IllegalMove(
            "CL-3",
            "segment",
            say(
                "segment {segment} of round {number} is finished",
                segment=segment,
                number=state.number,
            ),
        )


def check_dealt_in_time(
    schedule: Schedule, state: RoundState, event: HandRecorded, table: TableSegment
) -> None:
    """rule CL-3: where the clock can end the segment, a new hand counts only if its
    deal was recorded in time (check_deal refused late deals). A log line carries no
    entry time of its own, so the recorded deal is what proves it (rule CL-3a: no
    schedule, no limit or a play-all order needs none)."""
    # clocks.deadline without building all of clock_facts: this runs for every hand
    if (
        table.play_all
        or scheduled_start(schedule, state, event.segment, table) is None
        or clocks.time_limit(state.format) is None
    ):
        return
    if event.hand not in table.deals:
        raise IllegalMove(
            "CL-3",
            "hand",
            say(
                "hand {hand} at table {table} has no recorded deal; in a timed segment the "
                "judge records each deal so the server knows it was in time",
                hand=event.hand,
                table=event.table,
            ),
        )


def record(fmt: Format, schedule: Schedule, state: RoundState, event: ClockEvent) -> None:
    """A deal, an early start, an extension or a play-all order at one table."""
    check_segment(state.format, event.segment)
    table = seated_table(state, event.segment, event.table)
    facts = clock_facts(schedule, state, event.segment, event.table)
    match event:
        case DealRecorded():
            check_open_segment(state, event.segment, table)
            with _log_field_names():
                clocks.check_deal(facts, event.hand, event.time)  # rule CL-3
            table.deals[event.hand] = event.time
        case EarlyStart():
            if state.format.segment_kind == "quarter" and event.segment % 2 == 0:
                # rule CL-5: both tables start quarters 2 and 4 at the same moment
                raise IllegalMove(
                    "CL-5",
                    "segment",
                    say("both tables start this quarter together; no early start"),
                )
            if table.deals or table.hands or table.early_start is not None:
                raise IllegalMove(
                    "CL-2", "time", say("table {table} has already started", table=event.table)
                )
            with _log_field_names():
                clocks.check_early_start(  # rule CL-2
                    facts.scheduled_start,
                    event.time,
                    clocks.early_start_cap(fmt),
                    all_four_agree=event.agreed,
                )
            table.early_start = event.time
        case ExtensionGiven():
            table.extension += timedelta(minutes=event.minutes)  # rule CL-2
        case PlayAllOrdered():
            table.play_all = True  # rule PN-2


def scheduled_start(
    schedule: Schedule, state: RoundState, segment: int, table: TableSegment
) -> datetime | None:
    """rule CL-2: the segment's start as scheduled, for the table's group in round 1."""
    return schedule.get((state.number, segment_group(state, table), segment))


def clock_facts(
    schedule: Schedule, state: RoundState, segment: int, table_number: int
) -> clocks.SegmentClockFacts:
    """Everything the clock rules need to know about one table's segment (rule CL-6:
    the state itself comes from `clocks.clock_state` with the server's time)."""
    table = seated_table(state, segment, table_number)
    round_format = state.format
    start = scheduled_start(schedule, state, segment, table)
    limit = clocks.time_limit(round_format)
    break_start = None
    break_length = timedelta(0)
    following = scheduled_start(schedule, state, segment + 1, table)
    if start is not None and limit is not None and following is not None:
        # rule CL-1: the break runs from the segment's scheduled end to the next start
        break_start = clocks.shifted(start, limit)
        break_length = max(timedelta(0), following - break_start)
    mid_break_after = clocks.mid_break_after_hand(round_format)
    return clocks.SegmentClockFacts(
        scheduled_start=start,
        limit=limit,
        # rule AA-12: an Ari Ari game that has ended has played all its hands
        planned_hands=table.last_hand
        if table.game is not None and table.game.ended is not None
        else round_format.hands_per_segment,
        extension=table.extension,
        early_start=table.early_start,
        deals=tuple(sorted(table.deals.items())),
        hands_completed=table.last_hand,
        play_all=table.play_all,
        break_start=break_start,
        break_length=break_length,
        mid_break_after_hand=mid_break_after,
        # rule CL-1: the final's break starts when the judge enters hand 8
        mid_break_start=table.completed_at.get(mid_break_after) if mid_break_after else None,
        mid_break_length=timedelta(minutes=round_format.break_minutes),
    )


def table_clocks(schedule: Schedule, state: RoundState, now: datetime) -> list[TableClock]:
    """Every table's clock in a round at the server's time `now` (rule CL-6): for each
    table, the latest segment that has started by then (or its first one, not started
    yet)."""
    segments: dict[int, list[int]] = {}
    for segment, table in sorted(state.tables):
        segments.setdefault(table, []).append(segment)
    out = []
    for table_number, seated in sorted(segments.items()):
        current = seated[0]
        for segment in seated:
            facts = clock_facts(schedule, state, segment, table_number)
            starts = facts.early_start or facts.scheduled_start
            begun = starts <= now if starts is not None else facts.hands_completed > 0
            if begun:
                current = segment
        facts = clock_facts(schedule, state, current, table_number)
        out.append(
            TableClock(
                round=state.number,
                segment=current,
                table=table_number,
                group=state.tables[(current, table_number)].group,
                clock=clocks.clock_state(facts, now),
            )
        )
    return out


def current_segment(state: RoundState, table_number: int) -> int | None:
    """The segment a table is playing, or is about to play, in a round: the latest of
    its seated segments that has begun (a hand, a deal or an early start), or the next
    one once that is finished (closed, or all its hands in, or its game ended); before
    any play its first. None when the table has no seat in the round."""
    seated = sorted(segment for segment, table in state.tables if table == table_number)
    if not seated:
        return None
    begun = [
        segment
        for segment in seated
        if (table := state.tables[(segment, table_number)]).entered
        or table.deals
        or table.early_start is not None
    ]
    if not begun:
        return seated[0]
    current = begun[-1]
    table = state.tables[(current, table_number)]
    # rule CL-3: a closed segment has ended for its tables
    finished = (segment_group(state, table), current) in state.closed or (
        table.next_hand(state.format.hands_per_segment) is None
    )
    later = [segment for segment in seated if segment > current]
    return later[0] if finished and later else current


# The clock rules name their arguments; a log line names the same facts by its own fields.
_CLOCK_TO_LOG_FIELD = {"at": "time", "early_start": "time", "all_four_agree": "agreed"}


@contextmanager
def _log_field_names() -> Iterator[None]:
    try:
        yield
    except RuleViolation as violation:
        field = _CLOCK_TO_LOG_FIELD.get(violation.field)
        if field is None:
            raise
        raise type(violation)(violation.rule, field, violation.message) from violation
