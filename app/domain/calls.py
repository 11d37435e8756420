"""Calling a judge (issue 18, part 3): a table calls the head judge, who takes the call and
resolves it with a note; a ruling that changes a score names the call it answers.

The rules are numbered in docs/contract.md §4 ("The head judge's desk"), as RULES.md
numbers its own:
- CA-1 A call names its round, its table and a reason from CALL_REASONS.
- CA-2 A call's id is unique in the tournament: the tablet's Idempotency-Key, so a call
  sent twice is one call.
- CA-3 A call waits, is taken, then resolved: taken only while it waits, resolved while it
  waits or is taken, with a note; a resolved call is closed. Taking and resolving name the
  call's own round and table.
- CA-4 Calls are answered in the order they were made (the log's order), and a call waits
  from the server's time it was made (its line's `at`, rule CL-6) until it is taken.
- CA-5 A ruling (a penalty, a correction, a void) may name the call it answers: a call of
  the same round, and for a hand, of the same table.

Pure: the times come in as arguments (the lines' `at`), never from a clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from app.domain.errors import IllegalMove, MalformedInput, say

# rule CA-1: the reasons a tablet offers (the words each page says are in its catalog)
CALL_REASONS = ("dispute", "chombo", "late_player", "broken_tablet")
CallReason = Literal["dispute", "chombo", "late_player", "broken_tablet"]
CallState = Literal["waiting", "taken", "resolved"]
MAX_NOTE_LENGTH = 1000  # characters of a head judge's note


@dataclass(frozen=True)
class CallMade:
    """A `call` line: a table calls the head judge (rule CA-1)."""

    round: int
    table: int
    reason: str
    call: str  # the call's id (rule CA-2): the line's `id`


@dataclass(frozen=True)
class CallTaken:
    """A `call_taken` line: the head judge is on the way (rule CA-3)."""

    round: int
    table: int
    call: str


@dataclass(frozen=True)
class CallResolved:
    """A `call_resolved` line: the head judge settled the call, with a note (rule CA-3)."""

    round: int
    table: int
    call: str
    note: str


CallEvent = CallMade | CallTaken | CallResolved


@dataclass(frozen=True)
class Call:
    """A call as the log has made it so far."""

    id: str
    round: int
    table: int
    reason: str
    called_at: datetime | None  # None in a log written without `at` (another program's)
    taken_at: datetime | None = None
    resolved_at: datetime | None = None
    taken: bool = False
    note: str | None = None
    rulings: tuple[str, ...] = ()  # the types of the lines that named it (rule CA-5)

    @property
    def state(self) -> CallState:
        if self.note is not None:
            return "resolved"
        return "taken" if self.taken else "waiting"

    def waited(self, now: datetime) -> int | None:
        """rule CA-4: whole seconds the call waited, until it was taken or until `now`."""
        if self.called_at is None:
            return None
        until = self.taken_at if self.taken else now
        if until is None:
            return None
        return max(0, int((until - self.called_at).total_seconds()))


def check_reason(reason: object, field: str = "reason") -> str:
    """rule CA-1: one of CALL_REASONS."""
    if not isinstance(reason, str) or reason not in CALL_REASONS:
        raise MalformedInput(
            "CA-1",
            field,
            say(
                "a call's reason is one of {reasons}, got {reason}",
                reasons=", ".join(CALL_REASONS),
                reason=repr(reason),
            ),
        )
    return reason


def check_note(note: str, field: str = "note") -> str:
    """rule CA-3: a resolved call has a note, of at most MAX_NOTE_LENGTH characters."""
    if not note.strip():
        raise MalformedInput("CA-3", field, say("a resolved call needs a note"))
    if len(note) > MAX_NOTE_LENGTH:
        raise MalformedInput(
            "CA-3",
            field,
            say(
                "is {length} characters long; at most {longest} are kept",
                length=len(note),
                longest=MAX_NOTE_LENGTH,
            ),
        )
    return note


def make_call(calls: Mapping[str, Call], event: CallMade, at: datetime | None) -> Call:
    """The new call; rule CA-2 refuses an id already used (a retry never reaches here: the
    service answers it with the call in the log)."""
    check_reason(event.reason)
    if event.call in calls:
        raise IllegalMove(
            "CA-2",
            "id",
            say("call {call} was made before; a new call needs a new id", call=repr(event.call)),
        )
    return Call(event.call, event.round, event.table, event.reason, at)


def _named(calls: Mapping[str, Call], event: CallTaken | CallResolved) -> Call:
    call = calls.get(event.call)
    if call is None:
        raise IllegalMove("CA-3", "call", say("there is no call {call}", call=repr(event.call)))
    if (call.round, call.table) != (event.round, event.table):
        raise IllegalMove(
            "CA-3",
            "table",
            say(
                "call {call} is table {table}'s in round {round}",
                call=repr(event.call),
                table=call.table,
                round=call.round,
            ),
        )
    if call.state == "resolved":
        raise IllegalMove(
            "CA-3", "call", say("call {call} is resolved already", call=repr(event.call))
        )
    return call


def take_call(calls: Mapping[str, Call], event: CallTaken, at: datetime | None) -> Call:
    """rule CA-3: a waiting call is taken."""
    call = _named(calls, event)
    if call.state != "waiting":
        raise IllegalMove(
            "CA-3", "call", say("call {call} is taken already", call=repr(event.call))
        )
    return replace(call, taken=True, taken_at=at)


def resolve_call(calls: Mapping[str, Call], event: CallResolved, at: datetime | None) -> Call:
    """rule CA-3: a waiting or taken call is resolved, with a note; a call resolved at once
    was taken at that moment."""
    call = _named(calls, event)
    check_note(event.note)
    taken_at = call.taken_at if call.taken else at
    return replace(call, taken=True, taken_at=taken_at, resolved_at=at, note=event.note)


def ruling_on(
    calls: Mapping[str, Call], call_id: str, round_number: int, table: int | None, kind: str
) -> Call:
    """rule CA-5: the call a ruling names, with the ruling added; `table` None for a
    penalty, which names a player rather than a table."""
    call = calls.get(call_id)
    if call is None:
        raise IllegalMove("CA-5", "call", say("there is no call {call}", call=repr(call_id)))
    if call.round != round_number or (table is not None and call.table != table):
        raise IllegalMove(
            "CA-5",
            "call",
            say(
                "call {call} is table {table}'s in round {round}; a ruling answers a call of "
                "its own round and table",
                call=repr(call_id),
                table=call.table,
                round=call.round,
            ),
        )
    return replace(call, rulings=(*call.rulings, kind))


def open_calls(calls: Mapping[str, Call]) -> list[Call]:
    """rule CA-4: the calls not resolved, in the order they were made."""
    return [call for call in calls.values() if call.state != "resolved"]
