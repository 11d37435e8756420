"""What judges' tablets send: hands, corrections and voids, deals, early starts and seats
(each exactly once, whatever the network does), and penalties at their own table; and what
the head judge records by hand when a tablet's clock cannot be trusted."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from sqlmodel import Session

from app.db import queries
from app.db.tables import IdempotencyRecord
from app.domain.errors import IllegalMove, MalformedInput, Say, say
from app.domain.hands import PlayerId
from app.domain.log import (
    DealRecorded,
    EarlyStart,
    Event,
    HandRecorded,
    HandVoided,
    SeatingRecorded,
    format_time,
    parse_event,
)
from app.domain.tournament import Tournament
from app.services.errors import (
    Forbidden,
    IdempotencyInProgress,
    IdempotencyMismatch,
)
from app.services.processes import owner_gone
from app.services.store import (
    HEAD_JUDGE,
    Appended,
    Author,
    TournamentStore,
    canonical_json,
    request_hash,
)


@dataclass(frozen=True)
class TableScope:
    """What a judge's token allows: one table of one tournament; a head judge's token
    (`head_judge`, issue 18, part 3), every table of it."""

    tournament_id: int
    table: int
    token_id: int
    head_judge: bool = False

    def check(self, tournament_id: int, table: int) -> None:
        if tournament_id != self.tournament_id:
            raise Forbidden(say("this table token belongs to another tournament"))
        if self.head_judge:
            return  # any table: the body names it
        if table != self.table:
            raise Forbidden(
                say(
                    "this token is for table {table}; it cannot write to table {other}",
                    table=self.table,
                    other=table,
                )
            )

    @property
    def author(self) -> Author:
        if self.head_judge:
            return Author(HEAD_JUDGE, token_id=self.token_id)  # "by": "head judge"
        return Author("judge", token_id=self.token_id, table=self.table)


Side = Literal["above", "below", "level"]


def _above_cut(tournament: Tournament, round_number: int) -> dict[PlayerId, Side]:
    """Each player's side of the cut line; players tied across it are "level" until the
    tie-break or the draw decides them (rule ST-7), not above or below by their ids."""
    standings = tournament.standings(round_number)
    tie = standings.cut.tie if standings.cut else None
    level = set(tie.players) if tie is not None and not standings.ended else set()
    return {
        row.player: "level" if row.player in level else ("above" if row.above_cut else "below")
        for row in standings.rows
    }


def sides_of_the_cut(tournament: Tournament, round_number: int) -> dict[PlayerId, Side]:
    """Each player's side of the cut line in a round (for a ruling's effect, rule CA-5)."""
    return _above_cut(tournament, round_number)


def cut_changes(
    before: Mapping[PlayerId, Side], after: Mapping[PlayerId, Side]
) -> list[dict[str, Any]]:
    """Players a change moved across the cut line (reported, never silent)."""
    return [
        {"player": player, "now": side}
        for player, side in after.items()
        if before.get(player) is not None and before[player] != side
    ]


def _hand_answer(
    appended: Appended, tournament: Tournament, event: HandRecorded | HandVoided
) -> dict[str, Any]:
    state = tournament.rounds[event.round]
    table = state.tables[(event.segment, event.table)]
    settlement = table.settlements.get(event.hand)
    next_hand, next_dealer = tournament.next_deal(event.round, event.segment, event.table)
    return {
        "tournament": appended.tournament_id,
        "version": appended.version,
        "seq": appended.first_seq,
        "round": event.round,
        "segment": event.segment,
        "table": event.table,
        "hand": event.hand,
        "voided": isinstance(event, HandVoided),
        "deltas": None if settlement is None else {str(p): d for p, d in settlement.deltas},
        "hands_entered": sorted(table.hands),
        "next_hand": next_hand,
        "next_dealer": next_dealer,
    }


def submit_once(
    store: TournamentStore,
    tournament_id: int,
    scope: TableScope,
    key: str,
    body: Mapping[str, Any],
    build: Callable[[Tournament], HandRecorded | HandVoided],
) -> tuple[int, dict[str, Any]]:
    """Run one keyed submission exactly once (CONTRACT §3).

    A retry with the same key and body gets the stored first answer; the same key with
    another body gets 422; a second request while the first is running gets 409. A refused
    request releases its key, so the tablet can send the hand again once it is fixed.
    """
    scope.check(tournament_id, _table_of(body))
    with store.running(tournament_id, key):
        return _submit_once(store, tournament_id, scope, key, body, build)


def _submit_once(
    store: TournamentStore,
    tournament_id: int,
    scope: TableScope,
    key: str,
    body: Mapping[str, Any],
    build: Callable[[Tournament], HandRecorded | HandVoided],
) -> tuple[int, dict[str, Any]]:
    fingerprint = request_hash(body)
    claimed_at = store.clock()
    owner = None if store.process is None else store.process.id
    with Session(store.engine) as session:
        existing = queries.claim_idempotency_key(
            session, tournament_id, key, fingerprint, claimed_at, owner
        )
        if existing is not None:
            stored = _stored_answer(existing, key, fingerprint)
            if stored is not None:
                return stored
            claimed_at = store.clock()
            if not _abandoned(session, store, existing, claimed_at):
                raise IdempotencyInProgress(
                    say(
                        "the first request with Idempotency-Key {key} is still being "
                        "processed; retry in a moment",
                        key=repr(key),
                    )
                )
            assert existing.id is not None
            if not queries.retake_idempotency_key(
                session, existing.id, existing.claimed_at, claimed_at, owner
            ):
                raise IdempotencyInProgress(
                    say("another retry of {key} is being processed", key=repr(key))
                )

    answer: dict[str, Any] = {}
    status = 201
    decided: list[HandRecorded | HandVoided] = []
    before: dict[PlayerId, Side] = {}

    def decide(tournament: Tournament) -> list[Event]:
        # Under the append's lock, on the state its line extends: two tablets racing with
        # the same next hand cannot both pass the check (issue 13).
        decided.append(build(tournament))
        before.update(_above_cut_if_open(tournament, body))
        return [decided[0]]

    def finish(session: Session, appended: Appended, tournament: Tournament) -> None:
        event = decided[0]
        answer.update(_hand_answer(appended, tournament, event))
        answer["cut_changes"] = cut_changes(before, _above_cut(tournament, event.round))
        if not queries.finish_idempotency_key(
            session, tournament_id, key, claimed_at, status, canonical_json(answer)
        ):
            # A retry took our claim over while we ran: it, not we, enters the hand. Roll
            # back, so the hand is in the log once.
            raise _LostClaim

    try:
        store.append(tournament_id, decide, scope.author, finish=finish)
    except _LostClaim:
        with Session(store.engine) as session:
            record = queries.idempotency_record(session, tournament_id, key)
        stored = None if record is None else _stored_answer(record, key, fingerprint)
        if stored is not None:
            return stored
        raise IdempotencyInProgress(
            say(
                "a retry of Idempotency-Key {key} is being processed; retry in a moment",
                key=repr(key),
            )
        ) from None
    except BaseException:
        with Session(store.engine) as session:
            queries.release_idempotency_key(session, tournament_id, key, claimed_at)
        raise
    return status, answer


def _abandoned(
    session: Session, store: TournamentStore, claim: IdempotencyRecord, now: datetime
) -> bool:
    """Whether a retry may take a claim over: its process is gone (killed, crashed, frozen
    past its heartbeat), its request is no longer running in this process, or the claim is
    older than the store's claim window (SCOREBOARD_CLAIM_WINDOW; issue 14)."""
    if now - queries.as_utc(claim.claimed_at) >= store.claim_window:
        return True
    if claim.claimed_by is None:
        return False  # a claim of before issue 14: only its age tells
    if store.process is not None and claim.claimed_by == store.process.id:
        # Ours: its request is running only if another one of ours with this key still is
        # (one that failed and could not release its claim, say on a locked SQLite, is not).
        return store.requests_running(claim.tournament_id, claim.key) <= 1
    return owner_gone(session, claim.claimed_by, store.process, now)


class _LostClaim(Exception):
    """Our claim on a key was taken over by a retry while we were still running."""


def _stored_answer(
    record: IdempotencyRecord, key: str, fingerprint: str
) -> tuple[int, dict[str, Any]] | None:
    """The first answer, for a retry of the same request; another body under the key is refused."""
    if record.request_hash != fingerprint:
        raise IdempotencyMismatch(
            say(
                "Idempotency-Key {key} was used for another request; send a new key for a new hand",
                key=repr(key),
            )
        )
    if record.done and record.status_code is not None:
        return record.status_code, json.loads(record.response_body or "{}")
    return None


def _table_of(body: Mapping[str, Any]) -> int:
    table = body.get("table")
    return table if isinstance(table, int) and not isinstance(table, bool) else -1


def _above_cut_if_open(tournament: Tournament, body: Mapping[str, Any]) -> dict[PlayerId, Side]:
    round_number = body.get("round")
    if not isinstance(round_number, int) or round_number not in tournament.rounds:
        return {}
    return _above_cut(tournament, round_number)


def hand_event(body: Mapping[str, Any], key: str, *, reason: str | None = None) -> HandRecorded:
    """The log line of a submitted hand: the body is the hand fields of the log, and the
    Idempotency-Key is the hand's `id` (one key per hand, generated on the tablet)."""
    if "id" in body and body["id"] != key:
        raise IdempotencyMismatch(say("the body's id differs from the Idempotency-Key header"))
    line: dict[str, Any] = {**body, "type": "hand", "id": key}
    if reason is not None:
        line["reason"] = reason
    event = parse_event(line)
    assert isinstance(event, HandRecorded)
    return event


def check_correction(tournament: Tournament, event: HandRecorded | HandVoided) -> None:
    """A correction or a void names a hand already entered at that table."""
    state = tournament.rounds.get(event.round)
    table = None if state is None else state.tables.get((event.segment, event.table))
    if table is None or event.hand not in table.hands:
        raise IllegalMove(
            "CONTRACT §1",
            "hand",
            say(
                "table {table} has no hand {hand} in round {round} segment {segment} to correct",
                table=event.table,
                hand=event.hand,
                round=event.round,
                segment=event.segment,
            ),
        )


def check_new_hand(tournament: Tournament, event: HandRecorded) -> None:
    """A hand sent as new must not replace one already entered: corrections go through
    their own endpoint, with a reason, so no retry under a fresh key changes a hand silently."""
    state = tournament.rounds.get(event.round)
    table = None if state is None else state.tables.get((event.segment, event.table))
    if table is not None and event.hand in table.hands:  # a voided hand may be entered anew
        raise IllegalMove(
            "CONTRACT §3",
            "hand",
            say(
                "hand {hand} of round {round} segment {segment} at table {table} is already "
                "entered (from this or another tablet); to change it, send a correction with "
                "its reason",
                hand=event.hand,
                round=event.round,
                segment=event.segment,
                table=event.table,
            ),
        )


# How far a tablet's clock may be off the server's when it sends a deal or an early start
# with its own time of the event (README, "Offline at the table"). A tablet corrects its
# clock by the feed's server time, to well under a second; a request in flight takes at most
# the tablet's 10-second timeout. Beyond 30 s the tablet's correction is wrong (it never
# reached the feed, or its clock was set by hand), and so is the time it gave the event.
TABLET_CLOCK_BOUND = timedelta(seconds=30)

TableEvent = DealRecorded | EarlyStart | SeatingRecorded
Already = Literal["recorded", "entered"]


@dataclass(frozen=True)
class TableEventOutcome:
    """The log lines that hold a table event: appended by this request, or (`already`)
    found in the log, since the same event recorded twice is one event."""

    appended: Appended
    already: Already | None = None


def table_event(
    store: TournamentStore,
    tournament_id: int,
    scope: TableScope,
    event: TableEvent,
    *,
    arrived: datetime | None = None,
) -> TableEventOutcome:
    """A deal, an early start or a seat entry from a judge's tablet, exactly once.

    The event's natural key makes a retry harmless: the deal of a hand, the early start of a
    table's segment, the same seats of a segment (or cycle) recorded again is the event
    already in the log, answered with its line and never refused or doubled. The deal of a
    hand already entered (where no deal was needed) is answered as `already: "entered"`.
    With `arrived`, the event carries the tablet's time and `sent`: the tablet's clock must
    be within TABLET_CLOCK_BOUND of the server's (rule CL-6), or the event is refused, for
    the head judge to record by hand (`head_judge_event`).
    """
    scope.check(tournament_id, event.table)

    def check() -> None:
        if arrived is not None and isinstance(event, DealRecorded | EarlyStart):
            check_tablet_clock(event, arrived)

    return _exactly_once(store, tournament_id, event, scope.author, check)


def head_judge_event(
    store: TournamentStore, tournament_id: int, event: DealRecorded | EarlyStart
) -> TableEventOutcome:
    """The head judge (the admin credential) records a deal or an early start by hand, at
    the time they decide, with the reason in the line's `override`: after a tablet's clock
    was refused as off, or a deal the judge forgot. Every rule of the clock still applies."""
    if event.override is None or not event.override.strip():
        raise MalformedInput("CL-6", "reason", say("the head judge's override needs a reason"))
    return _exactly_once(store, tournament_id, event, Author("admin"), lambda: None)


def check_tablet_clock(event: DealRecorded | EarlyStart, arrived: datetime) -> None:
    """rule CL-6: a tablet's time of an event counts only if its clock was right when it
    sent it: `sent` within TABLET_CLOCK_BOUND of the server's time `arrived`."""
    if event.sent is None:
        raise MalformedInput(
            "CL-6", "sent", say("a tablet's time needs the tablet's clock when it sent it")
        )
    if event.time > event.sent:
        raise MalformedInput(
            "CL-6",
            "time",
            say(
                "{time} is after the tablet sent it ({sent})",
                time=format_time(event.time),
                sent=format_time(event.sent),
            ),
        )
    off = event.sent - arrived
    if abs(off) > TABLET_CLOCK_BOUND:
        values = {
            "sent": _clock_text(event.sent),
            "arrived": _clock_text(arrived),
            "off": _duration_text(abs(off)),
            "bound": _duration_text(TABLET_CLOCK_BOUND),
            "time": _clock_text(event.time),
        }
        ahead = off > timedelta(0)
        # Each case its own sentence: a translation orders the words its own way.
        if isinstance(event, DealRecorded):
            sentence = (
                say(
                    "this tablet's clock said {sent} when it sent the deal and the server's said "
                    "{arrived}: {off} ahead, more than the {bound} allowed, so its time {time} "
                    "cannot be trusted; the head judge can record it",
                    **values,
                )
                if ahead
                else say(
                    "this tablet's clock said {sent} when it sent the deal and the server's said "
                    "{arrived}: {off} behind, more than the {bound} allowed, so its time {time} "
                    "cannot be trusted; the head judge can record it",
                    **values,
                )
            )
        else:
            sentence = (
                say(
                    "this tablet's clock said {sent} when it sent the early start and the "
                    "server's said {arrived}: {off} ahead, more than the {bound} allowed, so its "
                    "time {time} cannot be trusted; the head judge can record it",
                    **values,
                )
                if ahead
                else say(
                    "this tablet's clock said {sent} when it sent the early start and the "
                    "server's said {arrived}: {off} behind, more than the {bound} allowed, so its "
                    "time {time} cannot be trusted; the head judge can record it",
                    **values,
                )
            )
        raise IllegalMove("CL-6", "sent", sentence)


def _exactly_once(
    store: TournamentStore,
    tournament_id: int,
    event: TableEvent,
    author: Author,
    check: Callable[[], None],
) -> TableEventOutcome:
    def decide(tournament: Tournament) -> list[Event]:
        # Under the append's lock (issue 13): of two devices sending the same deal at once,
        # the second finds the first's line here and is answered with it.
        found = _already(tournament, event)
        if found is not None:
            raise _Recorded(found)
        check()
        return [event]

    try:
        return TableEventOutcome(store.append(tournament_id, decide, author))
    except _Recorded as recorded:
        # a retry, or another device was first: never refused, never doubled
        return _recorded_line(store, tournament_id, event, recorded.found)


class _Recorded(Exception):
    """The event is in the log already (or, for a deal, its hand is)."""

    def __init__(self, found: Already) -> None:
        self.found = found


def _already(tournament: Tournament, event: TableEvent) -> Already | None:
    state = tournament.rounds.get(event.round)
    table = None if state is None else state.tables.get((event.segment, event.table))
    if table is None:
        return None
    match event:
        case DealRecorded():
            if event.hand in table.deals:
                return "recorded"
            return "entered" if event.hand in table.entered else None
        case EarlyStart():
            return "recorded" if table.early_start is not None else None
        case SeatingRecorded():
            cycle = event.cycle or 1
            seats = table.seats if cycle == 1 else table.cycle_seats.get(cycle)
            return "recorded" if seats == event.seats else None
    return None  # pragma: no cover - every table event is matched above


def _recorded_line(
    store: TournamentStore, tournament_id: int, event: TableEvent, found: Already
) -> TableEventOutcome:
    """The answer for an event already recorded: the line that holds it."""
    with Session(store.engine) as session:
        lines = queries.table_audit_lines(session, tournament_id, event.table, event.round)
    for line in reversed(lines):
        if _holds(json.loads(line.body), event, found):
            kept = () if found == "entered" else (line.body,)
            return TableEventOutcome(Appended(tournament_id, line.version, line.seq, kept), found)
    raise AssertionError("the state comes from these very lines")  # pragma: no cover


def _holds(line: Mapping[str, Any], event: TableEvent, found: Already) -> bool:
    """Whether a log line is the one that recorded `event` (or, for a deal of a hand
    already entered, the hand)."""
    if line.get("table") != event.table or line.get("segment") != event.segment:
        return False
    match event:
        case DealRecorded():
            kind = "hand" if found == "entered" else "deal"
            return line.get("type") == kind and line.get("hand") == event.hand
        case EarlyStart():
            return line.get("type") == "early_start"
        case SeatingRecorded():
            return (
                line.get("type") == "seating"
                and (line.get("cycle") or 1) == (event.cycle or 1)
                and line.get("seats") == list(event.seats)
            )
    return False  # pragma: no cover


def _clock_text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%H:%M:%S")


def _duration_text(delta: timedelta) -> str:
    seconds = math.ceil(delta.total_seconds())
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    # Each part said in the reader's language inside a refusal (issue 17), spaced as in English
    parts = [
        say("{hours} h", hours=hours) if hours else "",
        say("{minutes} min", minutes=minutes) if minutes else "",
    ]
    parts.append(say("{seconds} s", seconds=seconds) if seconds or not any(parts) else "")
    shown = {f"part{n}": part for n, part in enumerate(part for part in parts if part)}
    return Say(_spaced(len(shown)), **shown)


def _spaced(count: int) -> str:
    """ "{part0} {part1} ...": a template of a duration's parts (not in the catalog)."""
    return " ".join(f"{{part{n}}}" for n in range(count))
