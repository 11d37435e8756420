"""The hall display (issue 6): standings paged by screen with the cut line, the session
clock and every table's state, on a big screen in the playing hall, unattended for hours.

`GET /hall/{tid}?rows=20&interval=10&page=cut` serves the page; the live feed (standings and
clocks channels) fills it. Names are not in the feed, so the page reads them once from
`GET /hall/{tid}/players.json`, and again when a player it does not know appears.
`?story=1` adds the story of the session to the rotation and `?page=story` pins it (issue 18,
part 2: static/hall/story.js draws it from the `stats` channel).
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup
from pydantic import BaseModel

from app import i18n
from app.domain.tournament import Tournament
from app.web import languages
from app.web.deps import StoreDep, TournamentId
from app.web.pages import render

router = APIRouter(include_in_schema=False, dependencies=[Depends(languages.tournament_default)])


class HallPlayer(BaseModel):
    name: str
    country: str | None
    local_name: str | None = None  # "山田 剛" beside "Takeshi Yamada"
    local_lang: str | None = None  # the language local_name is written in, when known


_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff]")
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Chinese characters alone do not say which language: the player's country does, for the
# glyphs' shapes (a Japanese 剛 and a Chinese one are drawn differently).
_HAN_BY_COUNTRY = {
    "JP": "ja",
    "KR": "ko",
    # the regions that name a Chinese script in a browser's language name it here too
    **{region.upper(): script for region, script in i18n.CHINESE_REGIONS.items()},
}


def name_language(local_name: str | None, country: str | None) -> str | None:
    """The language a name in its owner's script is written in (its `lang` on the page), or
    None to leave it to the page: kana is Japanese, hangul Korean, Chinese characters alone
    by the player's country."""
    if not local_name:
        return None
    if _KANA.search(local_name):
        return "ja"
    if _HANGUL.search(local_name):
        return "ko"
    if _HAN.search(local_name):
        return _HAN_BY_COUNTRY.get((country or "").upper())
    return None


def second_language(request: Request) -> str | None:
    """`?second=`: the hall's second language, when it is one we speak and not the first."""
    language = i18n.page_language(request.query_params.get("second"))
    return language if language not in (None, i18n.current()) else None


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
    second = second_language(request)
    second_catalog = None
    if second is not None:
        # Inside a <script type="application/json">: no "</script>" can close it early.
        text = i18n.catalog_json(second, ("common", "hall"))
        second_catalog = Markup(text.replace("<", "\\u003c"))
    return render(
        request,
        "hall.html",
        tournament_id=tournament_id,
        second=second,
        second_catalog=second_catalog,
        **context,
    )


@router.get("/hall/{tournament_id}/players.json", response_model=dict[str, HallPlayer])
def hall_players(tournament_id: TournamentId, store: StoreDep) -> dict[str, HallPlayer]:
    """Every registration's name and country, keyed by player id as the feed keys its rows."""

    def view(tournament: Tournament, _: int) -> dict[str, HallPlayer]:
        return {
            str(player): HallPlayer(
                name=registered.name,
                country=registered.country,
                local_name=registered.local_name,
                local_lang=name_language(registered.local_name, registered.country),
            )
            for player, registered in tournament.players.items()
        }

    return store.read(tournament_id, view)
