"""The paper fallback (issue 18, part 5): printable score sheets, and the scorer's screen
that types a sheet's hands in.

- `GET /admin/{tid}/sheets/{round}[?segment=S]`: the sheets of a round (or one segment),
  one table a page, printable on A4; the console fetches it with its admin header.
- `GET /scorer/{tid}`: the scorer's screen. Like the console, it carries nothing and asks
  for the admin token, which it sends as a bearer header.
- `GET /api/tournaments/{tid}/sheets/{round}/{segment}/{table}`: one sheet as data, with
  the hands the server holds already.
- `POST /api/tournaments/{tid}/sheet-hands`: one row of a sheet, stored once
  (app/services/sheets.py): its Idempotency-Key is made from its place, never at random.

Every route needs the admin credential: a table token opens one table, and the scorer
types the whole hall's sheets in. A head-judge token (issue 18, part 3) would fit here too.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field

from app.domain import clocks
from app.domain.errors import IllegalMove, say
from app.domain.log import event_to_log, format_time, parse_time
from app.domain.sheets import ScoreSheet, score_sheet, score_sheets
from app.domain.tournament import Tournament
from app.printouts.sheets import render_sheets_html
from app.services.reports import round_state
from app.services.sheets import enter_sheet_hand, needs_deals
from app.web import languages
from app.web.addresses import loopback_warning, staff_base, staff_setting
from app.web.deps import (
    MAX_NUMBER,
    AdminDep,
    RoundNumber,
    SettingsDep,
    StoreDep,
    TableNumber,
    TournamentId,
)
from app.web.errors import PROBLEM_RESPONSES
from app.web.judges import CutChange, HandBody
from app.web.pages import render

router = APIRouter(dependencies=[Depends(languages.tournament_default)])

SegmentQuery = Query(
    default=None, ge=1, le=MAX_NUMBER, description="One segment only (default: every one)"
)


# -- the printable sheets ----------------------------------------------------------------


@router.get(
    "/admin/{tournament_id}/sheets/{round_number}",
    response_class=HTMLResponse,
    include_in_schema=False,
)
def sheets_html(
    request: Request,
    tournament_id: TournamentId,
    round_number: RoundNumber,
    _: AdminDep,
    store: StoreDep,
    settings: SettingsDep,
    segment: int | None = SegmentQuery,
) -> HTMLResponse:
    """The printable score sheets of a round, or of one segment: one per table and segment."""

    def view(tournament: Tournament, _: int) -> tuple[str, tuple[ScoreSheet, ...]]:
        state = round_state(tournament, round_number)
        return tournament.name, score_sheets(tournament.format, state, tournament.players, segment)

    name, sheets = store.read(tournament_id, view)
    base_url = staff_base(request, settings)
    return HTMLResponse(
        render_sheets_html(
            sheets,
            tournament=name,
            tournament_id=tournament_id,
            base_url=base_url,
            warning=loopback_warning(base_url, staff_setting(settings)),
        )
    )


# -- the scorer's screen ------------------------------------------------------------------


@router.get("/scorer/{tournament_id}", response_class=HTMLResponse, include_in_schema=False)
def scorer_screen(request: Request, tournament_id: TournamentId, store: StoreDep) -> HTMLResponse:
    """The scorer's screen; it asks for the admin token before it shows any sheet. A
    tournament that is not there gets the 404 page, as every page of a tournament does."""
    name = store.read(tournament_id, lambda tournament, _: tournament.name)
    return render(request, "scorer.html", tournament_id=tournament_id, tournament_name=name)


class SheetSeat(BaseModel):
    column: int = Field(description="The player's column on the sheet, 1 to 4")
    player: str | int
    name: str
    local_name: str | None = Field(description="The name in the player's own script")
    country: str | None
    seat: str = Field(description="The seat at the segment's start (rule SE-5)")


class SheetRow(BaseModel):
    hand: int
    cycle: int
    dealer: str | int | None = Field(description="Who deals it (rule FM-7); None if not known")
    dealt: str | None = Field(description="When its deal was recorded (rule CL-3), if it was")
    stored: dict[str, Any] | None = Field(
        description="The hand's result as the server holds it (a tablet or an earlier entry)"
    )


class SheetView(BaseModel):
    tournament: int
    tournament_name: str
    code: str = Field(description="round-segment-table, printed on the sheet")
    round: int
    segment: int
    table: int
    group: str | None
    segment_kind: str
    ruleset: Literal["wsom", "ariari"]
    min_value: int = Field(description="rule HS-3")
    max_value: int
    timed: bool = Field(
        description="The clock can end the segment: a hand needs its deal's time (rule CL-3)"
    )
    scheduled_start: str | None = Field(description="The segment's start (rule CL-2)")
    deadline: str | None = Field(description="The table's deadline (rule CL-2)")
    players: list[SheetSeat]
    hands: list[SheetRow]


@router.get(
    "/api/tournaments/{tournament_id}/sheets/{round_number}/{segment}/{table}",
    response_model=SheetView,
    responses=PROBLEM_RESPONSES,
    tags=["scorer"],
)
def sheet_view(
    tournament_id: TournamentId,
    round_number: RoundNumber,
    segment: TableNumber,
    table: TableNumber,
    _: AdminDep,
    store: StoreDep,
) -> SheetView:
    """One table's score sheet for a segment, as the scorer's screen shows it: the seats,
    each planned hand's dealer, and the hands the server holds already (admin token)."""

    def view(tournament: Tournament, _: int) -> SheetView:
        state = round_state(tournament, round_number)
        if segment > state.format.segments:
            raise IllegalMove(
                "FM-1",
                "segment",
                say(
                    "round {round} has segments 1 to {segments}",
                    round=state.number,
                    segments=state.format.segments,
                ),
            )
        sheet = score_sheet(tournament.format, state, tournament.players, segment, table)
        seated = state.tables[(segment, table)]
        held = seated.hands
        facts = tournament.clock_facts(state.number, segment, table)
        ends = clocks.deadline(facts)
        return SheetView(
            tournament=tournament_id,
            tournament_name=tournament.name,
            code=sheet.code,
            round=sheet.round,
            segment=sheet.segment,
            table=sheet.table,
            group=sheet.group or None,
            segment_kind=sheet.segment_kind,
            ruleset="ariari" if sheet.ariari else "wsom",
            min_value=sheet.min_value,
            max_value=sheet.max_value,
            timed=needs_deals(tournament, state.number, segment, table),
            scheduled_start=None
            if facts.scheduled_start is None
            else format_time(facts.scheduled_start),
            deadline=None if ends is None else format_time(ends),
            players=[
                SheetSeat(
                    column=column,
                    player=seated.player,
                    name=seated.name,
                    local_name=seated.local_name,
                    country=seated.country,
                    seat=seated.seat,
                )
                for column, seated in enumerate(sheet.players, start=1)
            ],
            hands=[
                SheetRow(
                    hand=row.hand,
                    cycle=row.cycle,
                    dealer=row.dealer,
                    dealt=None
                    if row.hand not in seated.deals
                    else format_time(seated.deals[row.hand]),
                    stored=None if row.hand not in held else event_to_log(held[row.hand])["result"],
                )
                for row in sheet.hands
            ],
        )

    return store.read(tournament_id, view)


class SheetHandBody(HandBody):
    """A row of a sheet: the `hand` fields of the log, and when the sheet says its tiles
    were all dealt."""

    dealt: str | None = Field(
        default=None,
        max_length=64,
        description="When the hand's tiles were all dealt (ISO 8601 with its offset), as the "
        "sheet says: needed in a timed segment for a hand whose deal no tablet recorded "
        "(rule CL-3); recorded as the head judge records a deal by hand",
    )


class SheetHandAnswer(BaseModel):
    """A row stored now (201), or found stored already (200, `already: "stored"`): by an
    earlier entry of the sheet or by the table's tablet. Nothing is ever stored twice."""

    tournament: int
    version: int
    round: int
    segment: int
    table: int
    hand: int
    key: str = Field(description="The Idempotency-Key the row was entered under")
    already: Literal["stored"] | None = None
    deltas: dict[str, int] | None
    hands_entered: list[int]
    next_hand: int | None
    next_dealer: str | int | None
    cut_changes: list[CutChange] = Field(
        default=[], description="Players the hand moved across the cut line (rule ST-3)"
    )


@router.post(
    "/api/tournaments/{tournament_id}/sheet-hands",
    status_code=201,
    response_model=SheetHandAnswer,
    responses={
        **PROBLEM_RESPONSES,
        200: {"model": SheetHandAnswer, "description": "Stored before: nothing appended"},
    },
    tags=["scorer"],
)
def enter_sheet_row(
    tournament_id: TournamentId, body: SheetHandBody, store: StoreDep, _: AdminDep
) -> JSONResponse:
    """Enter one hand of a score sheet (the admin token). The body is the `hand` fields of
    the log (CONTRACT §1); the Idempotency-Key is the server's, `sheet-R-S-T-H`, so the
    same row entered again, or a hand the table's tablet stored, is stored once."""
    raw = body.model_dump(mode="json", exclude_none=True, exclude={"dealt"})
    raw.pop("id", None)  # the key is the row's place, whatever the client says
    dealt = None if body.dealt is None else parse_time(body.dealt, "dealt", "CL-3")
    outcome = enter_sheet_hand(store, tournament_id, raw, dealt)
    answer = SheetHandAnswer.model_validate(
        {
            **outcome.answer,
            "key": outcome.key,
            "already": "stored" if outcome.already else None,
        }
    )
    return JSONResponse(answer.model_dump(mode="json"), status_code=outcome.status)
