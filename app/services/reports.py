"""The replay report of a tournament's latest version, shared by the public API and the
admin pages, and the round a request names."""

from __future__ import annotations

import threading
from typing import Any
from weakref import WeakKeyDictionary

from app.domain.errors import IllegalMove, MalformedInput, say
from app.domain.replay import report
from app.domain.tournament import RoundState, Tournament
from app.services.store import TournamentStore

# `report` ranks and formats every round; readers outnumber writers, so each store keeps the
# report of each tournament's latest version. Derived from the log, like the store's cache.
_reports: WeakKeyDictionary[TournamentStore, dict[int, tuple[int, dict[str, Any]]]] = (
    WeakKeyDictionary()
)
_reports_guard = threading.Lock()


def latest_report(
    store: TournamentStore, tournament_id: int, tournament: Tournament, version: int
) -> dict[str, Any]:
    """The replay report of this version; call it inside `store.read` (under the lock)."""
    with _reports_guard:
        known = _reports.setdefault(store, {})
    cached = known.get(tournament_id)
    if cached is None or cached[0] != version:
        cached = (version, report(tournament))
        known[tournament_id] = cached
    return cached[1]


def round_state(tournament: Tournament, number: int | None) -> RoundState:
    """The round a request names, or the current one when it names none (rule FM-1)."""
    if number is None:
        return tournament.current_round
    if not tournament.format.has_round(number):
        raise MalformedInput(
            "FM-1",
            "round",
            say(
                "this format has rounds 1 to {final_round}",
                final_round=tournament.format.final_round,
            ),
        )
    state = tournament.rounds.get(number)
    if state is None:
        raise IllegalMove("FM-1", "round", say("round {number} has not begun", number=number))
    return state
