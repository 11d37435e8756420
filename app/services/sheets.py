"""A score sheet's hands, typed in by the scorer (issue 18, part 5), through the tablets' own
idempotent path (`judging.submit_once`), so that each hand is stored once however often it
arrives: a sheet entered twice, by one scorer or two, or a sheet whose tablet came back
online and sent the same hands.

Two things make that hold:
- The Idempotency-Key of a sheet's hand is made from where it was played, not at random:
  `sheet-{round}-{segment}-{table}-{hand}`. A second entry of the same row is a retry of
  the first, answered with the first answer; the same key with another result is refused.
- A tablet's keys are random (one per hand, app/static/judge/outbox.js), so a hand the
  tablet stored is recognised by its place: the table's hand of that number is stored
  already. With the same result the scorer is told it is there (`already: "stored"`, and
  nothing is appended); with another result the hand is refused, naming the stored one,
  for the judges to decide and correct with a reason (CONTRACT §3, as the tablets).

The scorer signs in with the admin credential (the head judge's, app/web/head_judge.py):
a table token opens one table, and a sheet pile holds them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.domain import clocks
from app.domain.errors import IllegalMove, say
from app.domain.log import DealRecorded, HandRecorded, event_to_log
from app.domain.tournament import Tournament
from app.services.judging import (
    TableScope,
    check_new_hand,
    hand_event,
    head_judge_event,
    submit_once,
)
from app.services.store import Author, TournamentStore

SHEET_KEY_PREFIX = "sheet"


def sheet_key(round_number: int, segment: int, table: int, hand: int) -> str:
    """The Idempotency-Key (and the log's `id`) of a hand entered from a score sheet: the
    same for every entry of that row, whoever types it in."""
    return f"{SHEET_KEY_PREFIX}-{round_number}-{segment}-{table}-{hand}"


@dataclass(frozen=True)
class HeadJudgeScope(TableScope):
    """The admin credential's reach: every table of the tournament. Its lines are the
    admin's (`by: "admin"`), as the head judge's overrides are."""

    def check(self, tournament_id: int, table: int) -> None:
        # The admin token is the server's, not one tournament's: any tournament, any table.
        return None

    @property
    def author(self) -> Author:
        return Author("admin")


@dataclass(frozen=True)
class SheetHandOutcome:
    status: int  # 201 stored now, 200 stored before (a retry of the same row, or the tablet)
    answer: dict[str, Any]
    already: bool
    key: str


def needs_deals(tournament: Tournament, round_number: int, segment: int, table: int) -> bool:
    """rule CL-3: where the clock can end the segment, a hand counts only with its deal
    recorded in time (rule CL-3a: no schedule, no limit or a play-all order needs none)."""
    facts = tournament.clock_facts(round_number, segment, table)
    return not facts.play_all and clocks.deadline(facts) is not None


def enter_sheet_hand(
    store: TournamentStore,
    tournament_id: int,
    body: dict[str, Any],
    dealt: datetime | None = None,
) -> SheetHandOutcome:
    """Store one row of a sheet once: `body` is the `hand` fields of the log (CONTRACT §1).

    `dealt` is when the sheet says the hand's tiles were all dealt: in a timed segment, a
    hand with no deal recorded (its tablet was down) needs it (rule CL-3). It is recorded
    as the head judge records a deal by hand (`override`, naming the sheet), once, and
    every rule of the clock still applies to it: a deal after the deadline is refused."""
    base = sheet_key(body["round"], body["segment"], body["table"], body["hand"])
    deal: list[DealRecorded] = []

    def look(tournament: Tournament, version: int) -> tuple[str, dict[str, Any] | None]:
        if tournament.format.game is not None:
            # rules AA-6, AA-8: an Ari Ari hand is played with the table's running dealer,
            # counters and riichi bets, which its tablet keeps; a sheet does not carry them.
            raise IllegalMove(
                "AA-8",
                "table",
                say(
                    "an Ari Ari table's hands are entered at its tablet: a score sheet "
                    "does not carry the running dealer, counters and riichi bets"
                ),
            )
        event = hand_event(body, base)
        state = tournament.rounds.get(event.round)
        table = None if state is None else state.tables.get((event.segment, event.table))
        if table is None:
            return base, None  # the rules refuse it below, naming what is wrong
        stored = table.hands.get(event.hand)
        if stored is not None:
            if stored.result != event.result:
                raise IllegalMove(
                    "CONTRACT §3",
                    "result",
                    say(
                        "hand {hand} of table {table} (round {round}, segment {segment}) is "
                        "stored already with another result: {stored}; check the sheet with "
                        "the table's judge, and correct the stored hand with a reason if the "
                        "sheet is right",
                        hand=event.hand,
                        table=event.table,
                        round=event.round,
                        segment=event.segment,
                        stored=_result_text(stored),
                    ),
                )
            # answered under the key it was stored with: a tablet's, or this row's
            return stored.key or base, _stored_answer(tournament_id, version, tournament, stored)
        if (
            dealt is not None
            and event.hand not in table.deals
            and needs_deals(tournament, event.round, event.segment, event.table)
        ):
            code = f"{event.round}-{event.segment}-{event.table}"
            deal.append(
                DealRecorded(
                    event.round,
                    event.segment,
                    event.table,
                    event.hand,
                    dealt,
                    override=f"score sheet {code}",
                )
            )
        if event.hand in table.entered:
            # Voided since it was entered: the row is a new hand, whose key must not be
            # the voided one's (its retry would answer with the voided hand).
            return f"{base}-after-{version}", None
        return base, None

    key, stored_answer = store.read(tournament_id, look)
    if stored_answer is not None:
        return SheetHandOutcome(200, stored_answer, True, key)
    for event in deal:
        # A deal is exactly once by its place: a retry, or a tablet that sent it, is the
        # deal in the log (judging.table_event); the clock's rules refuse a late one.
        head_judge_event(store, tournament_id, event)
    raw = {**body, "id": key}

    def build(tournament: Tournament) -> Any:
        event = hand_event(raw, key)
        check_new_hand(tournament, event)
        return tournament.with_table_state(event)

    scope = HeadJudgeScope(tournament_id, body["table"], 0)
    status, answer = submit_once(store, tournament_id, scope, key, raw, build)
    return SheetHandOutcome(status, answer, False, key)


def _stored_answer(
    tournament_id: int, version: int, tournament: Tournament, stored: HandRecorded
) -> dict[str, Any]:
    state = tournament.rounds[stored.round]
    table = state.tables[(stored.segment, stored.table)]
    settlement = table.settlements.get(stored.hand)
    next_hand, next_dealer = tournament.next_deal(stored.round, stored.segment, stored.table)
    return {
        "tournament": tournament_id,
        "version": version,
        "round": stored.round,
        "segment": stored.segment,
        "table": stored.table,
        "hand": stored.hand,
        "deltas": None if settlement is None else {str(p): d for p, d in settlement.deltas},
        "hands_entered": sorted(table.hands),
        "next_hand": next_hand,
        "next_dealer": next_dealer,
    }


def _result_text(stored: HandRecorded) -> str:
    """The stored result as the log writes it: the judges read it beside the sheet."""
    result = event_to_log(stored)["result"]
    return ", ".join(f"{name} {value}" for name, value in result.items())
