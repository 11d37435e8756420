"""The head judge's desk (issue 18, part 3): a tablet calls a judge, the head judge takes
the call and resolves it with a note, and a ruling names the call it answers.

Every step is a log line (`call`, `call_taken`, `call_resolved`; rules CA-1 to CA-5 in
docs/contract.md §4), decided under the append's lock, so two devices racing on one call
cannot both step it. A call is exactly once by its id, the tablet's Idempotency-Key: the
same call sent again is answered with the call in the log (200), another call under the
same key is refused (422).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain.calls import Call, CallMade, CallResolved, CallTaken, check_note, check_reason
from app.domain.errors import say
from app.domain.hands import PlayerId
from app.domain.log import Event, decode_line
from app.domain.replay import apply_line, replay_lines
from app.domain.tournament import Tournament
from app.services.errors import IdempotencyMismatch, NotFound
from app.services.judging import TableScope, cut_changes, sides_of_the_cut
from app.services.store import Appended, TournamentStore

RULINGS = ("hand", "void", "penalty")  # the lines that may answer a call (rule CA-5)


@dataclass(frozen=True)
class CallOutcome:
    """A call after a step: `appended` the line this request wrote, or None when the step
    was in the log already (a retry, or another device was first)."""

    call: Call
    appended: Appended | None
    version: int


class _Already(Exception):
    def __init__(self, call: Call) -> None:
        self.call = call


def _outcome(store: TournamentStore, tournament_id: int, append: Any, call_id: str) -> CallOutcome:
    try:
        appended: Appended = append()
    except _Already as already:
        version = store.version(tournament_id)
        return CallOutcome(already.call, None, version)
    call = store.read(tournament_id, lambda tournament, _: tournament.calls[call_id])
    return CallOutcome(call, appended, appended.version)


def make_call(
    store: TournamentStore,
    tournament_id: int,
    scope: TableScope,
    key: str,
    round_number: int,
    table: int,
    reason: str,
) -> CallOutcome:
    """A table calls the head judge (rule CA-1), exactly once by `key` (rule CA-2)."""
    scope.check(tournament_id, table)  # a table's token calls for its own table only
    check_reason(reason)
    event = CallMade(round_number, table, reason, key)

    def decide(tournament: Tournament) -> list[Event]:
        found = tournament.calls.get(key)
        if found is not None:
            if (found.round, found.table, found.reason) != (round_number, table, reason):
                raise IdempotencyMismatch(
                    say(
                        "Idempotency-Key {key} was used for another call; send a new key for "
                        "a new call",
                        key=repr(key),
                    )
                )
            raise _Already(found)
        return [event]

    return _outcome(
        store, tournament_id, lambda: store.append(tournament_id, decide, scope.author), key
    )


def take_call(
    store: TournamentStore, tournament_id: int, scope: TableScope, call_id: str
) -> CallOutcome:
    """The head judge takes a waiting call (rule CA-3); taking it again is answered as it
    stands."""

    def decide(tournament: Tournament) -> list[Event]:
        call = _call(tournament, call_id)
        if call.state != "waiting":
            raise _Already(call)
        return [CallTaken(call.round, call.table, call.id)]

    return _outcome(
        store, tournament_id, lambda: store.append(tournament_id, decide, scope.author), call_id
    )


def resolve_call(
    store: TournamentStore, tournament_id: int, scope: TableScope, call_id: str, note: str
) -> CallOutcome:
    """The head judge resolves a call with a note (rule CA-3); the same note again is
    answered as it stands, another one refused (409): a resolved call is closed."""
    check_note(note)

    def decide(tournament: Tournament) -> list[Event]:
        call = _call(tournament, call_id)
        if call.state == "resolved" and call.note == note:
            raise _Already(call)
        return [CallResolved(call.round, call.table, call.id, note)]

    return _outcome(
        store, tournament_id, lambda: store.append(tournament_id, decide, scope.author), call_id
    )


def _call(tournament: Tournament, call_id: str) -> Call:
    call = tournament.calls.get(call_id)
    if call is None:
        raise NotFound(say("there is no call {call}", call=repr(call_id)))
    return call


@dataclass(frozen=True)
class Desk:
    """What the head judge's page reads: every call in the order made (rule CA-4), and who
    sits at each calling table now, for a penalty against the call (rule PN-1, CA-5)."""

    calls: list[Call]
    seated: dict[str, list[tuple[PlayerId, str]]]  # call id -> (player, name) at its table
    name: str
    version: int


def calls_of(store: TournamentStore, tournament_id: int) -> Desk:
    def view(tournament: Tournament, version: int) -> Desk:
        made = list(tournament.calls.values())
        seated = {call.id: _seated(tournament, call) for call in made if call.state != "resolved"}
        return Desk(made, seated, tournament.name, version)

    return store.read(tournament_id, view)


def _seated(tournament: Tournament, call: Call) -> list[tuple[PlayerId, str]]:
    state = tournament.rounds.get(call.round)
    segment = None if state is None else tournament.current_segment(call.round, call.table)
    if state is None or segment is None:
        return []
    seats = state.tables[(segment, call.table)].seats
    return [(player, tournament.players[player].name) for player in seats]


def ruling_effects(store: TournamentStore, tournament_id: int) -> dict[int, list[dict[str, Any]]]:
    """Each ruling's effect on the cut line (rule CA-5, ST-3): by the seq of every line
    that names a call, the players it moved across the line, the log replayed once."""
    lines = store.export(tournament_id)
    if not any('"call"' in line for line in lines):
        return {}
    effects: dict[int, list[dict[str, Any]]] = {}
    tournament = replay_lines(lines[:1], stored=True)
    for seq, text in enumerate(lines[1:], start=2):
        raw = decode_line(text, stored=True)
        round_number = raw.get("round")
        ruling = raw.get("type") in RULINGS and "call" in raw
        if not (ruling and isinstance(round_number, int) and round_number in tournament.rounds):
            apply_line(tournament, text)
            continue
        before = sides_of_the_cut(tournament, round_number)
        apply_line(tournament, text)
        effects[seq] = cut_changes(before, sides_of_the_cut(tournament, round_number))
    return effects


__all__ = [
    "CallOutcome",
    "calls_of",
    "make_call",
    "resolve_call",
    "ruling_effects",
    "take_call",
]
