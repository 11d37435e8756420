"""What judges' tablets send: hands, corrections and voids (exactly once, whatever the
network does), deals, early starts, seats and penalties at their own table."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from sqlmodel import Session

from app.db import queries
from app.db.tables import IdempotencyRecord
from app.domain.errors import IllegalMove
from app.domain.hands import PlayerId
from app.domain.log import Event, HandRecorded, HandVoided, parse_event
from app.domain.tournament import Tournament
from app.services.errors import (
    Forbidden,
    IdempotencyInProgress,
    IdempotencyMismatch,
)
from app.services.store import Appended, Author, TournamentStore, canonical_json, request_hash

# A claim older than this belongs to a request that died with its process (a crash or a
# restart): a retry may take it over. Long enough for any real request to finish.
ABANDONED_CLAIM = timedelta(seconds=10)


@dataclass(frozen=True)
class TableScope:
    """What a judge's token allows: one table of one tournament."""

    tournament_id: int
    table: int
    token_id: int

    def check(self, tournament_id: int, table: int) -> None:
        if tournament_id != self.tournament_id:
            raise Forbidden("this table token belongs to another tournament")
        if table != self.table:
            raise Forbidden(
                f"this token is for table {self.table}; it cannot write to table {table}"
            )

    @property
    def author(self) -> Author:
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


def _cut_changes(
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
    fingerprint = request_hash(body)
    claimed_at = store.clock()
    with Session(store.engine) as session:
        existing = queries.claim_idempotency_key(
            session, tournament_id, key, fingerprint, claimed_at
        )
        if existing is not None:
            stored = _stored_answer(existing, key, fingerprint)
            if stored is not None:
                return stored
            claimed_at = store.clock()
            if claimed_at - queries.as_utc(existing.claimed_at) < ABANDONED_CLAIM:
                raise IdempotencyInProgress(
                    f"the first request with Idempotency-Key {key!r} is still being processed; "
                    "retry in a moment"
                )
            assert existing.id is not None
            if not queries.retake_idempotency_key(
                session, existing.id, existing.claimed_at, claimed_at
            ):
                raise IdempotencyInProgress(f"another retry of {key!r} is being processed")

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
        answer["cut_changes"] = _cut_changes(before, _above_cut(tournament, event.round))
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
            f"a retry of Idempotency-Key {key!r} is being processed; retry in a moment"
        ) from None
    except BaseException:
        with Session(store.engine) as session:
            queries.release_idempotency_key(session, tournament_id, key, claimed_at)
        raise
    return status, answer


class _LostClaim(Exception):
    """Our claim on a key was taken over by a retry while we were still running."""


def _stored_answer(
    record: IdempotencyRecord, key: str, fingerprint: str
) -> tuple[int, dict[str, Any]] | None:
    """The first answer, for a retry of the same request; another body under the key is refused."""
    if record.request_hash != fingerprint:
        raise IdempotencyMismatch(
            f"Idempotency-Key {key!r} was used for another request; send a new key for a new hand"
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
        raise IdempotencyMismatch("the body's id differs from the Idempotency-Key header")
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
            f"table {event.table} has no hand {event.hand} in round {event.round} "
            f"segment {event.segment} to correct",
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
            f"hand {event.hand} of round {event.round} segment {event.segment} at table "
            f"{event.table} is already entered (from this or another tablet); to change it, "
            "send a correction with its reason",
        )


def table_event(
    store: TournamentStore, tournament_id: int, scope: TableScope, event: Event
) -> Appended:
    """A deal, an early start, a seat entry or a penalty from a judge's tablet."""
    table = getattr(event, "table", None)
    if table is not None:
        scope.check(tournament_id, int(table))
    elif tournament_id != scope.tournament_id:
        raise Forbidden("this table token belongs to another tournament")
    return store.append(tournament_id, [event], scope.author)
