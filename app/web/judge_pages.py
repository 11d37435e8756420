"""The judge's tablet (issue 6): the page, the service worker that lets it reload offline,
and `whoami`, which tells the page whose table its bearer token opens.

The page itself carries nothing secret: the tablet brings the table token (from the admin's
QR code, `/judge#token=...`: in the fragment, which the browser never sends, so no access log
sees it), keeps it in localStorage, and sends it as a bearer token to the judges' API, which
does every check. An older card's `/judge?token=...` still signs the tablet in; the access
log redacts it (app/web/logs.py) and the page takes it out of its address at once.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel

from app import i18n
from app.domain.tournament import Tournament
from app.web import languages
from app.web.deps import JudgeDep, StoreDep, refuse_head_judge_on_a_tablet
from app.web.hall import name_language
from app.web.pages import PACKAGE, render

router = APIRouter(include_in_schema=False, dependencies=[Depends(languages.tournament_default)])

SERVICE_WORKER = PACKAGE / "static" / "judge-sw.js"


@router.get("/judge", response_class=HTMLResponse)
def judge_tablet(request: Request) -> HTMLResponse:
    """The tablet page; the token stays in the browser (localStorage), never in the HTML.

    The page says whether its reader chose its language (`?lang=`, the kept choice, the
    browser's): the token, and with it the tournament, is in the fragment the server never
    sees, so the tablet itself turns to the tournament's language when nobody chose one."""
    return render(request, "judge.html", language_chosen=i18n.current_choice().chosen)


@router.get("/judge/sw.js")
def judge_service_worker() -> FileResponse:
    """The service worker, served under /judge so that its scope may cover the page
    (`Service-Worker-Allowed`); never cached by HTTP, so a new version is picked up."""
    return FileResponse(
        SERVICE_WORKER,
        media_type="text/javascript",
        headers={"Service-Worker-Allowed": "/judge", "Cache-Control": "no-cache"},
    )


class SegmentAtTable(BaseModel):
    segment: int
    seats: list[str | int]  # east, south, west, north at the segment's start
    cycles: list[list[str | int] | None]  # each cycle's seats (rules SE-6 to SE-9)
    hands_entered: list[int]
    next_hand: int | None
    closed: bool


class PlayerName(BaseModel):
    name: str
    country: str | None
    local_name: str | None = None  # "山田 剛" beside "Takeshi Yamada" (issue 17)
    local_lang: str | None = None  # the language local_name is written in, when known


class GameRules(BaseModel):
    """An Ari Ari format's game rules, for the tablet's review of a hand (rules AA-1, AA-9,
    AA-12, AA-16)."""

    length: str
    start_points: int
    tenpai_payment: int
    uma: list[int]
    rotations: int  # how often the deal passes before the game ends (rule AA-12)


class WhoAmI(BaseModel):
    tournament: int
    table: int
    tournament_name: str
    language: str = "en"  # the tournament's own, for a tablet whose reader chose none
    round: int
    segment_kind: str
    hands_per_segment: int
    min_value: int
    max_value: int
    early_start_minutes: int
    segments: list[SegmentAtTable]
    players: dict[str, PlayerName]  # str(id) -> name, everyone at this table in the round
    ruleset: str = "wsom"
    game: GameRules | None = None  # for ruleset "ariari"


@router.get("/judge/whoami", response_model=WhoAmI)
def whoami(judge: JudgeDep, store: StoreDep) -> WhoAmI:
    """The tournament and table of the bearer token, with what the tablet needs to draw the
    table: the current round's segments at this table, who sits there, and the value bounds."""
    refuse_head_judge_on_a_tablet(judge)  # issue 18, part 3: no table of its own to draw

    def view(tournament: Tournament, _: int) -> WhoAmI:
        state = tournament.current_round
        fmt = state.format
        segments: list[SegmentAtTable] = []
        seated: set[Any] = set()
        for (segment, number), table in sorted(state.tables.items()):
            if number != judge.table:
                continue
            seated.update(table.seats)
            cycles = tournament.cycles(state.number, segment, number)
            segments.append(
                SegmentAtTable(
                    segment=segment,
                    seats=list(table.seats),
                    cycles=[None if c is None else list(c) for c in cycles],
                    hands_entered=sorted(table.hands),
                    next_hand=table.next_hand(fmt.hands_per_segment),
                    closed=(table.group if state.number == 1 else "", segment) in state.closed,
                )
            )
        players = {
            str(player): PlayerName(
                name=registered.name,
                country=registered.country,
                local_name=registered.local_name,
                local_lang=name_language(registered.local_name, registered.country),
            )
            for player, registered in tournament.players.items()
            if player in seated
        }
        return WhoAmI(
            tournament=judge.tournament_id,
            table=judge.table,
            tournament_name=tournament.name,
            language=tournament.language,
            round=state.number,
            segment_kind=fmt.segment_kind,
            hands_per_segment=fmt.hands_per_segment,
            min_value=tournament.format.min_value,
            max_value=tournament.format.max_value,
            early_start_minutes=tournament.format.early_start_minutes,
            segments=segments,
            players=players,
            ruleset=tournament.format.ruleset,
            game=None
            if (rules := tournament.format.game) is None
            else GameRules(
                length=rules.length,
                start_points=rules.start_points,
                tenpai_payment=rules.tenpai_payment,
                uma=list(rules.uma),
                rotations=rules.rotations,
            ),
        )

    return store.read(judge.tournament_id, view)
