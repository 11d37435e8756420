"""The hall display (issue 6): standings paged by screen with the cut line, the session
clock and every table's state, on a big screen in the playing hall, unattended for hours.

`GET /hall/{tid}?rows=20&interval=10&page=cut` serves the page; the live feed (standings and
clocks channels) fills it. Names are not in the feed, so the page reads them once from
`GET /hall/{tid}/players.json`, and again when a player it does not know appears.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from app.domain.tournament import Tournament
from app.web import languages
from app.web.deps import StoreDep, TournamentId
from app.web.pages import render

router = APIRouter(include_in_schema=False, dependencies=[Depends(languages.tournament_default)])


class HallPlayer(BaseModel):
    name: str
    country: str | None


@router.get("/hall/{tournament_id}", response_class=HTMLResponse)
def hall_display(request: Request, tournament_id: TournamentId, store: StoreDep) -> HTMLResponse:
    """The hall display; rows per page, seconds per page and a pinned page come from the
    query string and are read by the page itself."""

    def view(tournament: Tournament, _: int) -> dict[str, Any]:
        rounds = tournament.format.rounds
        return {
            "tournament_name": tournament.name,
            # "half", "quarter", "session" or "game" by round, to name the segment on the clock
            "segment_kinds": {str(r.number): r.segment_kind for r in rounds},
            # rule FM-2: only a round played in groups names the group on the clock
            "grouped_rounds": [r.number for r in rounds if r.groups > 1],
            # Ari Ari figures are points: whole, with thousands separators
            "ruleset": tournament.format.ruleset,
        }

    context = store.read(tournament_id, view)
    return render(request, "hall.html", tournament_id=tournament_id, **context)


@router.get("/hall/{tournament_id}/players.json", response_model=dict[str, HallPlayer])
def hall_players(tournament_id: TournamentId, store: StoreDep) -> dict[str, HallPlayer]:
    """Every registration's name and country, keyed by player id as the feed keys its rows."""

    def view(tournament: Tournament, _: int) -> dict[str, HallPlayer]:
        return {
            str(player): HallPlayer(name=registered.name, country=registered.country)
            for player, registered in tournament.players.items()
        }

    return store.read(tournament_id, view)
