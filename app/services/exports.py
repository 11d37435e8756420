"""Results for sanctioning bodies and rating sites (issue 18, part 6): the EMA's results
CSV, the players it would list without an EMA number, a CSV of every player's every hand,
and the organizer's line that sets or corrects a player's EMA number.

The rows come from the domain (app/domain/ema.py, where the columns and their rules are
written down); this module reads them off the tournament as it stands and writes them as
CSV, the one text the CLI and the admin API both hand out.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.domain.ema import (
    EMA_COLUMNS,
    HAND_COLUMNS,
    EmaRow,
    ema_rows,
    hand_rows,
    missing_ema_ids,
)
from app.domain.errors import IllegalMove, say
from app.domain.hands import PlayerId
from app.domain.log import EmaIdSet, Event, parse_event
from app.domain.tournament import Tournament
from app.services.store import Appended, Author, TournamentStore

ADMIN = Author("admin")
MISSING_COLUMNS = ("player", "name", "country")


@dataclass(frozen=True)
class MissingEmaId:
    """A registered player the EMA's results would list without a number."""

    player: PlayerId
    name: str
    country: str | None


# A cell a spreadsheet would read as a formula: the EMA's file is opened in one, and a
# registered name is whatever the organizer was sent ("=HYPERLINK(...)").
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _text_cell(text: str) -> str:
    """A name as a spreadsheet shows it, never as a formula it runs (OWASP, CSV injection)."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def _csv(
    header: Sequence[str], rows: Iterable[Sequence[object]], text_columns: Sequence[str]
) -> str:
    texts = {header.index(column) for column in text_columns}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([_text_cell(str(c)) if i in texts else c for i, c in enumerate(row)])
    return out.getvalue()


def _final_rows(tournament: Tournament) -> list[EmaRow]:
    if not tournament.complete:
        # rule PR-1: the final ranking is complete once the final has ended
        raise IllegalMove(
            "PR-1",
            "round",
            say(
                "the final (round {final_round}) has not ended: the EMA ranks a tournament's "
                "final results",
                final_round=tournament.format.final_round,
            ),
        )
    return ema_rows(tournament.final_ranking(), tournament.players, tournament.rounds)


def ema_csv(store: TournamentStore, tournament_id: int) -> str:
    """The EMA's results as CSV (EMA_COLUMNS), one row a ranked player."""

    def view(tournament: Tournament, _: int) -> str:
        cells = (row.cells() for row in _final_rows(tournament))
        return _csv(EMA_COLUMNS, cells, ("Last name", "First name", "Country"))

    return store.read(tournament_id, view)


def missing(store: TournamentStore, tournament_id: int) -> list[MissingEmaId]:
    """Every registered player but substitutes who has no EMA number yet, in registration
    order: what the organizer checks before the export."""

    def view(tournament: Tournament, _: int) -> list[MissingEmaId]:
        return [
            MissingEmaId(p.player, p.name, p.country) for p in missing_ema_ids(tournament.players)
        ]

    return store.read(tournament_id, view)


def missing_csv(store: TournamentStore, tournament_id: int) -> str:
    """`missing` as CSV: player, name, country."""
    rows = ((m.player, m.name, m.country or "") for m in missing(store, tournament_id))
    return _csv(MISSING_COLUMNS, rows, MISSING_COLUMNS)


def hands_csv(store: TournamentStore, tournament_id: int) -> str:
    """Every player's every hand as CSV (HAND_COLUMNS), for rating sites."""

    def view(tournament: Tournament, _: int) -> str:
        rows = hand_rows(
            tournament.rounds, tournament.players, ariari=tournament.format.game is not None
        )
        return _csv(HAND_COLUMNS, (row.cells() for row in rows), ("player", "name"))

    return store.read(tournament_id, view)


def set_ema_id(
    store: TournamentStore, tournament_id: int, player: PlayerId, ema_id: str
) -> Appended:
    """Append an `ema_id` line: the player's EMA number from now on. The log's parser
    checks the number's form, the rules that the player is registered and that no other
    player has it; a player named as text ("17") is the registered 17."""
    line = parse_event({"type": "ema_id", "player": player, "ema_id": ema_id})
    assert isinstance(line, EmaIdSet)

    def decide(tournament: Tournament) -> list[Event]:
        registered = tournament.player_named(str(player))
        named = line.player if registered is None else registered
        return [EmaIdSet(named, line.ema_id)]

    return store.append(tournament_id, decide, ADMIN)
