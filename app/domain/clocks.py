"""Segment clocks: deadlines, deals in time, overtime and breaks (rules CL-1 to CL-6, CL-3a,
PN-2).

Every clock state is a pure function of (schedule, recorded events, now). The caller passes
the server's time in as `now` (rule CL-6); nothing here reads a clock. A display gets the
server time and the deadline and counts down by itself, so it is right to the second however
late it connected.

Decisions taken here where RULES.md leaves a point open:

- CL-3 "dealt before the deadline": the deadline is an instant. A deal whose time is <= the
  deadline is in time; a deal one microsecond later is late. A deal stamped exactly at the
  deadline second (10:10:00.000000 for a deadline of 10:10:00) is accepted.
- CL-6 whole seconds: countdowns (`seconds_left`, `break_seconds_left`) round up, the
  count-up (`seconds_over`) rounds down. `seconds_left` is 0 only at the deadline instant
  itself, the last moment a deal is in time; from the next instant the phase is no longer
  "running". A display rounding `deadline - server_time` the same way agrees with the server.
- CL-3a, CL-1 and PN-2: with no scheduled start, no limit (the final) or a play-all ruling
  the clock never ends the segment. The phase is "running" with `seconds_left` None until
  every planned hand is completed, no deal record is needed and no deal is late. A play-all
  table still reports its `deadline`, for information.
- CL-3 a result entered at or before the deadline is accepted without a deal record: a hand
  finished by the deadline was necessarily dealt before it. After the deadline a result needs
  a recorded deal in time.
- CL-4: a table still in overtime when the break begins stays "overtime"; its break is what
  is left of the scheduled break when it finishes ("break" ends at the same moment for every
  table, since the next segment starts on schedule).
- CL-1 the final's break after 2 cycles: it has no fixed clock time (the final has no limit),
  so its start is a fact the caller gives (`mid_break_start`: the schedule's, or the moment
  the judge recorded hand 8). The phase is "break" while hand `mid_break_after_hand` is the
  last completed, the next hand is not dealt and now is inside the break; a table may deal
  again before the break is over (the organizer may shorten it).
- CL-5: `joint_start` gives both round-7 tables one start for quarters 2 and 4: the later of
  the scheduled start and the moment the last table finished the quarter before (players move
  between the tables, so nobody can start before all have finished). The service passes it as
  both tables' `scheduled_start`, so both clocks start together and share one deadline
  (before any extension). An early start (CL-2) does not apply to such a quarter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Literal

from app.domain.errors import IllegalMove, MalformedInput, RuleViolation, say
from app.domain.formats import HANDS_PER_CYCLE, Format, RoundFormat

Phase = Literal["not_started", "running", "overtime", "finished_short", "finished", "break"]

_ZERO = timedelta(0)
_MICROSECONDS_PER_SECOND = 1_000_000

# The first and last moments a datetime can hold. A segment scheduled late in the year 9999
# (stored before years were bounded, or in an imported log) ends after the last: its deadline
# and its break are held at that moment instead of overflowing, so every clock, feed and page
# of the tournament still answers (issue 14).
EARLIEST = datetime.min.replace(tzinfo=UTC)
LATEST = datetime.max.replace(tzinfo=UTC)


def shifted(moment: datetime, delta: timedelta) -> datetime:
    """`moment + delta`, held at EARLIEST or LATEST where it would leave the calendar."""
    try:
        return moment + delta
    except OverflowError:
        return LATEST if delta > _ZERO else EARLIEST


@dataclass(frozen=True)
class SegmentClockFacts:
    """What the schedule and the log say about one table in one segment (a half, a quarter
    or a final session). Only facts: `clock_state` derives everything else from them."""

    scheduled_start: datetime | None  # rule CL-3a: None, the segment has no time limit
    limit: timedelta | None  # rule CL-1: None for the final, which plays all its hands
    planned_hands: int
    extension: timedelta = _ZERO  # rule CL-2: the sum of the extensions given this table
    early_start: datetime | None = None  # rule CL-2: when it started early, all four agreeing
    deals: tuple[tuple[int, datetime], ...] = ()  # rule CL-3: (hand, its tiles all dealt at)
    hands_completed: int = 0
    play_all: bool = False  # rule PN-2: the clock no longer ends the segment
    break_start: datetime | None = None  # rule CL-1: the break that follows this segment
    break_length: timedelta = _ZERO
    mid_break_after_hand: int | None = None  # rule CL-1: the final's break after 2 cycles
    mid_break_start: datetime | None = None
    mid_break_length: timedelta = _ZERO

    def __post_init__(self) -> None:
        for name in ("scheduled_start", "early_start", "break_start", "mid_break_start"):
            value = getattr(self, name)
            if value is not None:
                _require_aware(value, name)
        if self.planned_hands < 1:
            raise MalformedInput("CL-3", "planned_hands", say("must be at least 1"))
        if not 0 <= self.hands_completed <= self.planned_hands:
            raise MalformedInput(
                "CL-3",
                "hands_completed",
                say("must be between 0 and {planned_hands}", planned_hands=self.planned_hands),
            )
        if self.limit is not None and self.limit <= _ZERO:
            raise MalformedInput("CL-1", "limit", say("must be positive, or None for no limit"))
        if self.extension < _ZERO:
            raise MalformedInput("CL-2", "extension", say("must not be negative"))
        for name in ("break_length", "mid_break_length"):
            if getattr(self, name) < _ZERO:
                raise MalformedInput("CL-1", name, say("must not be negative"))
        self._check_early_start()
        self._check_deals()
        after = self.mid_break_after_hand
        if after is not None and not 1 <= after < self.planned_hands:
            raise MalformedInput(
                "CL-1",
                "mid_break_after_hand",
                say("must be between 1 and {planned_hands}", planned_hands=self.planned_hands - 1),
            )

    def _check_early_start(self) -> None:
        if self.early_start is None:
            return
        if self.scheduled_start is None:
            raise MalformedInput(
                "CL-3a", "early_start", say("a segment with no scheduled start cannot start early")
            )
        if self.early_start > self.scheduled_start:
            raise MalformedInput(
                "CL-2",
                "early_start",
                say(
                    "{early_start} is after the scheduled start {start}",
                    early_start=self.early_start.isoformat(),
                    start=self.scheduled_start.isoformat(),
                ),
            )

    def _check_deals(self) -> None:
        previous_hand = 0
        previous_at: datetime | None = None
        for hand, at in self.deals:
            _require_aware(at, "deals")
            if not previous_hand < hand <= self.planned_hands:
                raise MalformedInput(
                    "CL-3",
                    "deals",
                    say(
                        "hand {hand} must come after hand {previous_hand} and be at most "
                        "{planned_hands}",
                        hand=hand,
                        previous_hand=previous_hand,
                        planned_hands=self.planned_hands,
                    ),
                )
            if previous_at is not None and at < previous_at:
                raise MalformedInput(
                    "CL-3",
                    "deals",
                    say(
                        "hand {hand} is dealt before hand {previous_hand}",
                        hand=hand,
                        previous_hand=previous_hand,
                    ),
                )
            previous_hand, previous_at = hand, at


@dataclass(frozen=True)
class ClockState:
    """One table's clock at the server time `server_time`. It carries the moments, not just
    the counts, so a display counts down by itself between messages (rule CL-6)."""

    phase: Phase
    server_time: datetime  # rule CL-6: the `now` it was computed at
    starts_at: datetime | None  # the early start, else the scheduled start; None: rule CL-3a
    deadline: datetime | None  # rule CL-2; None: no limit (rules CL-1, CL-3a)
    hands_completed: int
    planned_hands: int
    play_all: bool  # rule PN-2
    seconds_left: int | None = None  # "running" against a deadline that ends the segment
    seconds_over: int | None = None  # "overtime": whole seconds past the deadline
    break_ends: datetime | None = None  # "break"
    break_seconds_left: int | None = None  # "break"


def deadline(facts: SegmentClockFacts) -> datetime | None:
    """rule CL-2: scheduled start + limit + extension. None when there is no schedule
    (rule CL-3a) or no limit (rule CL-1, the final). An early start does not move it: the
    table gains that time."""
    if facts.scheduled_start is None or facts.limit is None:
        return None
    return shifted(shifted(facts.scheduled_start, facts.limit), facts.extension)


def check_early_start(
    scheduled_start: datetime | None,
    started_at: datetime,
    cap: timedelta,
    *,
    all_four_agree: bool,
) -> None:
    """rule CL-2: a table may start at most `cap` before its scheduled start (5 minutes in
    WSOM 2008, 10 in WSOM 2007: `early_start_cap`), and only when the judge records that all
    four players agree. Starting exactly `cap` early is allowed."""
    _require_aware(started_at, "early_start")
    if scheduled_start is None:
        raise MalformedInput(
            "CL-3a",
            "early_start",
            say("the segment has no scheduled start, so it cannot start early"),
        )
    _require_aware(scheduled_start, "scheduled_start")
    if cap < _ZERO:
        raise MalformedInput("CL-2", "early_start_cap", say("must not be negative"))
    if not all_four_agree:
        raise IllegalMove(
            "CL-2",
            "all_four_agree",
            say("an early start needs the judge to record that all four players agree"),
        )
    if started_at >= scheduled_start:
        raise MalformedInput(
            "CL-2",
            "early_start",
            say(
                "{started} is not before the scheduled start {start}; an on-time start "
                "needs no record",
                started=started_at.isoformat(),
                start=scheduled_start.isoformat(),
            ),
        )
    early = scheduled_start - started_at
    if early > cap:
        raise IllegalMove(
            "CL-2",
            "early_start",
            say(
                "starts {early} before the scheduled start {start}; at most {cap} early is allowed",
                early=_duration_text(early),
                start=scheduled_start.isoformat(),
                cap=_duration_text(cap),
            ),
        )


def check_deal(facts: SegmentClockFacts, hand: int, at: datetime) -> None:
    """rule CL-3: record that the tiles of `hand` were completely dealt at `at`.

    A deal whose time is <= the deadline is in time; one later is refused, since no new hand
    may start after the deadline. No deal is late when the clock does not end the segment
    (no schedule, rule CL-3a; no limit, rule CL-1; play-all, rule PN-2). The hand must be the
    next one to play and within the planned hands, and not before the clock started."""
    _require_aware(at, "at")
    _check_hand_number(facts, hand)
    if hand <= facts.hands_completed:
        raise IllegalMove("CL-3", "hand", say("hand {hand} is already completed", hand=hand))
    if hand > facts.hands_completed + 1:
        raise IllegalMove(
            "CL-3",
            "hand",
            say(
                "hand {hands_completed} is not completed yet; it is the next to deal",
                hands_completed=facts.hands_completed + 1,
            ),
        )
    dealt = _deal_time(facts, hand)
    if dealt is not None:
        raise IllegalMove(
            "CL-3",
            "hand",
            say(
                "hand {hand} was already dealt at {dealt}",
                hand=hand,
                dealt=dealt.isoformat(),
            ),
        )
    if facts.deals and at < facts.deals[-1][1]:
        # rule CL-6: hands are dealt one after another, so their times never run backwards
        # (a tablet's clock that did is off, or was set by hand)
        raise IllegalMove(
            "CL-6",
            "at",
            say(
                "{at} is before the previous deal at {previous}",
                at=at.isoformat(),
                previous=facts.deals[-1][1].isoformat(),
            ),
        )
    starts_at = _starts_at(facts)
    if starts_at is not None and at < starts_at:
        # rule CL-2: only a recorded early start lets a table play before its schedule
        raise IllegalMove(
            "CL-2",
            "at",
            say(
                "the segment starts at {start}; starting earlier needs the judge to record "
                "an early start that all four players agree to",
                start=starts_at.isoformat(),
            ),
        )
    due = _segment_deadline(facts)
    if due is not None and at > due:
        raise IllegalMove(
            "CL-3",
            "at",
            say(
                "hand {hand} is dealt {late} after the deadline {deadline}; no new hand may "
                "start after it",
                hand=hand,
                late=_duration_text(at - due),
                deadline=due.isoformat(),
            ),
        )


def check_hand(facts: SegmentClockFacts, hand: int, at: datetime) -> None:
    """rule CL-3: the result of `hand`, entered at `at`, counts only if the hand was dealt
    in time: its recorded deal is <= the deadline, or the result itself comes at or before
    the deadline (a hand finished by then was dealt before it). Any hand is accepted when the
    clock does not end the segment (rules CL-3a, CL-1 final, PN-2)."""
    _require_aware(at, "at")
    refusal = _hand_refusal(facts, hand, at)
    if refusal is not None:
        raise refusal


def accepts_hand(facts: SegmentClockFacts, hand: int, at: datetime) -> bool:
    """Whether `check_hand` accepts the result of `hand` entered at `at`."""
    _require_aware(at, "at")
    return _hand_refusal(facts, hand, at) is None


def clock_state(facts: SegmentClockFacts, now: datetime) -> ClockState:
    """The table's clock at the server's time `now` (rule CL-6).

    - "finished": every planned hand is completed (the first check: nothing else matters).
    - "not_started": before the early start, or before the scheduled start without one.
    - "running": the clock has started (an early start counts, rule CL-2) and now is at or
      before the deadline; `seconds_left` = ceil(deadline - now). Also every moment of a
      segment whose clock does not end it (rules CL-3a, CL-1, PN-2), with `seconds_left` None.
    - "overtime": past the deadline, and the hand after the last completed one was dealt in
      time (rule CL-3); it keeps "overtime" into the break (rule CL-4).
    - "finished_short": past the deadline with no hand in progress (rule CL-3).
    - "break": the segment is over ("finished" or "finished_short") and now is inside the
      break that follows it, or inside the final's break after 2 cycles (rule CL-1).
    """
    _require_aware(now, "now")
    state = ClockState(
        phase="running",
        server_time=now,
        starts_at=_starts_at(facts),
        deadline=deadline(facts),
        hands_completed=facts.hands_completed,
        planned_hands=facts.planned_hands,
        play_all=facts.play_all,
    )
    if facts.hands_completed >= facts.planned_hands:
        return _after_segment(state, facts, "finished")
    if state.starts_at is not None and now < state.starts_at:
        return replace(state, phase="not_started")
    due = _segment_deadline(facts)
    if due is not None and now > due:
        in_progress = _deal_time(facts, facts.hands_completed + 1)
        if in_progress is not None and in_progress <= due:
            # rule CL-3: a hand dealt in time is finished; rule CL-4: even into the break
            return replace(state, phase="overtime", seconds_over=_floor_seconds(now - due))
        return _after_segment(state, facts, "finished_short")
    mid_break_ends = _mid_break_ends(facts, now)
    if mid_break_ends is not None:
        return replace(
            state,
            phase="break",
            break_ends=mid_break_ends,
            break_seconds_left=_ceil_seconds(mid_break_ends - now),
        )
    if due is None:
        return state
    return replace(state, seconds_left=_ceil_seconds(due - now))


def joint_start(ends: Sequence[datetime | None], scheduled: datetime) -> datetime | None:
    """rule CL-5: the one start of both round-7 tables in quarters 2 and 4.

    `ends` holds, per table, the moment it finished the quarter before (its last result, or
    its deadline when it ended short), None while it is still playing. The start is the later
    of `scheduled` and every end, so both clocks start at the same moment; None until every
    table has finished. Pass it as `scheduled_start` of both tables' facts."""
    _require_aware(scheduled, "scheduled")
    known: list[datetime] = [scheduled]
    for end in ends:
        if end is None:
            return None
        _require_aware(end, "ends")
        known.append(end)
    return max(known)


def time_limit(round_format: RoundFormat) -> timedelta | None:
    """rule CL-1: the limit of each segment of the round; None for the final."""
    minutes = round_format.time_limit_minutes
    return None if minutes is None else timedelta(minutes=minutes)


def break_length(round_format: RoundFormat) -> timedelta:
    """rule CL-1: the length of the round's breaks."""
    return timedelta(minutes=round_format.break_minutes)


def mid_break_after_hand(round_format: RoundFormat) -> int | None:
    """rule CL-1: the hand after which a session breaks (the final: after 2 cycles, hand 8
    of 16); None when the round has no break inside a segment."""
    cycles = round_format.break_after_cycles
    if cycles is None:
        return None
    hand = cycles * HANDS_PER_CYCLE
    return hand if hand < round_format.hands_per_segment else None


def early_start_cap(fmt: Format) -> timedelta:
    """rule CL-2: how early a table may start (5 minutes in WSOM 2008, 10 in WSOM 2007)."""
    return timedelta(minutes=fmt.early_start_minutes)


def _hand_refusal(facts: SegmentClockFacts, hand: int, at: datetime) -> RuleViolation | None:
    if not 1 <= hand <= facts.planned_hands:
        return _beyond_planned(facts, hand)
    due = _segment_deadline(facts)
    if due is None or at <= due:
        return None
    dealt = _deal_time(facts, hand)
    if dealt is None:
        return IllegalMove(
            "CL-3",
            "hand",
            say(
                "hand {hand} has no recorded deal and the deadline {deadline} has passed; "
                "only a hand dealt in time may be finished",
                hand=hand,
                deadline=due.isoformat(),
            ),
        )
    if dealt > due:
        return IllegalMove(
            "CL-3",
            "hand",
            say(
                "hand {hand} was dealt at {dealt}, after the deadline {deadline}",
                hand=hand,
                dealt=dealt.isoformat(),
                deadline=due.isoformat(),
            ),
        )
    return None


def _check_hand_number(facts: SegmentClockFacts, hand: int) -> None:
    if not 1 <= hand <= facts.planned_hands:
        raise _beyond_planned(facts, hand)


def _beyond_planned(facts: SegmentClockFacts, hand: int) -> MalformedInput:
    return MalformedInput(
        "CL-3",
        "hand",
        say(
            "hand {hand} is outside the {planned_hands} planned hands of this segment",
            hand=hand,
            planned_hands=facts.planned_hands,
        ),
    )


def _segment_deadline(facts: SegmentClockFacts) -> datetime | None:
    """The deadline when it can end the segment: never under a play-all ruling (rule PN-2)."""
    return None if facts.play_all else deadline(facts)


def _starts_at(facts: SegmentClockFacts) -> datetime | None:
    # rule CL-2: an early start starts the clock, without moving the deadline
    return facts.early_start if facts.early_start is not None else facts.scheduled_start


def _deal_time(facts: SegmentClockFacts, hand: int) -> datetime | None:
    for dealt_hand, at in facts.deals:
        if dealt_hand == hand:
            return at
    return None


def _after_segment(state: ClockState, facts: SegmentClockFacts, phase: Phase) -> ClockState:
    """A segment that is over shows the break that follows it while now is inside it."""
    now = state.server_time
    if facts.break_start is not None:
        ends = shifted(facts.break_start, facts.break_length)
        if facts.break_start <= now < ends:
            return replace(
                state,
                phase="break",
                break_ends=ends,
                break_seconds_left=_ceil_seconds(ends - now),
            )
    return replace(state, phase=phase)


def _mid_break_ends(facts: SegmentClockFacts, now: datetime) -> datetime | None:
    after = facts.mid_break_after_hand
    start = facts.mid_break_start
    if after is None or start is None or facts.hands_completed != after:
        return None
    if _deal_time(facts, after + 1) is not None:
        return None  # the table dealt again before the break was over
    ends = shifted(start, facts.mid_break_length)
    return ends if start <= now < ends else None


def _ceil_seconds(delta: timedelta) -> int:
    # rule CL-6: whole microseconds, so the rounding is exact (no floats)
    return -(-_microseconds(delta) // _MICROSECONDS_PER_SECOND)


def _floor_seconds(delta: timedelta) -> int:
    return _microseconds(delta) // _MICROSECONDS_PER_SECOND


def _microseconds(delta: timedelta) -> int:
    return (delta.days * 86_400 + delta.seconds) * _MICROSECONDS_PER_SECOND + delta.microseconds


def _duration_text(delta: timedelta) -> str:
    seconds = _ceil_seconds(delta)
    minutes, seconds = divmod(seconds, 60)
    # said in the reader's language inside a refusal (issue 17)
    if minutes and seconds:
        return say("{minutes} min {seconds} s", minutes=minutes, seconds=seconds)
    return say("{minutes} min", minutes=minutes) if minutes else say("{seconds} s", seconds=seconds)


def _require_aware(value: datetime, field: str) -> None:
    # rule CL-6: every moment is the server's, in UTC; a naive time cannot be compared safely
    if value.tzinfo is None or value.utcoffset() is None:
        raise MalformedInput("CL-6", field, say("must be a timezone-aware time (the server's UTC)"))
