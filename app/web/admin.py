"""The organizer's API: tournaments, registrations, prizes, the round 1 rate, draws, the
schedule, clock rulings, penalties, round ends and judges' tokens.

Every route needs the admin token. Every write appends log lines through the store in one
transaction and answers with the new version and the lines it appended.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, HTTPException, Request, Response
from fastapi import Path as FastApiPath
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from app.domain.bounds import MAX_PLAYERS, MAX_SEED_LENGTH
from app.domain.draw import RoundDraw
from app.domain.replay import standings_report
from app.read.reports import RoundStandings
from app.services import admin, exports
from app.services.admin import PlayerRow
from app.services.store import Appended, TokenRecord
from app.web.answers import Recorded, recorded, recorded_fields
from app.web.deps import (
    MAX_NUMBER,
    RoundNumber,
    StoreDep,
    TableNumber,
    TournamentId,
    require_admin,
)
from app.web.errors import (
    PROBLEM_RESPONSES,
    Problem,
    RoundUnfinishedProblem,
    UnfinishedTableAnswer,
    unfinished_answer,
)
from app.web.fields import Minutes, PenaltyPoints, PlayerRef, Round, Segment, StrictBody, Table

router = APIRouter(
    prefix="/api/tournaments",
    tags=["admin"],
    # Every route needs the admin token (require_admin, the check behind AdminDep). Only a
    # body that is not JSON at all is refused (422) before the token is looked at.
    dependencies=[Depends(require_admin)],
    responses=PROBLEM_RESPONSES,
)

LOG_MEDIA_TYPES = ("text/plain", "application/x-ndjson", "application/jsonl")
CSV_MEDIA_TYPES = ("text/csv", "text/plain", "application/csv")


def _text_body(media_types: tuple[str, ...], example: str) -> dict[str, Any]:
    """OpenAPI for a route that reads its body as text itself."""
    return {
        "requestBody": {
            "required": True,
            "content": {
                media: {"schema": {"type": "string"}, "example": example} for media in media_types
            },
        }
    }


async def _read_text(request: Request, media_types: tuple[str, ...]) -> str:
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media not in media_types:
        raise HTTPException(415, f"send the body as one of {', '.join(media_types)}")
    try:
        return (await request.body()).decode("utf-8")
    except UnicodeDecodeError as error:
        raise HTTPException(422, "the body is not UTF-8 text") from error


# -- request and answer models ----------------------------------------------------------


class AdminRequest(StrictBody):
    """A request body: an unknown field is refused, so a misspelt `draw_seed` is never
    taken for a missing one (the server would draw a seed of its own); and read strictly
    like a log line ("1" is not 1, CONTRACT §1)."""


class TournamentBody(AdminRequest):
    name: str = Field(min_length=1)
    format: str | dict[str, Any] = Field(
        description='A preset ("wsom2008", "wsom2007", "ariari") or a custom format object '
        "(docs/log-format.md §7, §9)",
        examples=[
            "wsom2008",
            {"preset": "wsom2008", "advance": [8, 4]},
            {"ruleset": "ariari", "game": {"length": "east_only"}},
        ],
    )
    language: str | None = Field(
        default=None,
        description="The pages' language for a reader whose device and browser name none "
        'of ours: "en", "ja", "zh-Hant", "zh-Hans" or "ko" (docs/log-format.md, issue 17)',
    )


class LanguageBody(AdminRequest):
    language: str = Field(
        description='The tournament\'s new default language: "en", "ja", "zh-Hant", "zh-Hans" '
        'or "ko" (issue 17)'
    )


class Created(Recorded):
    id: int


class Imported(BaseModel):
    id: int
    version: int
    line_count: int


class PlayerBody(AdminRequest):
    """A `player` line (CONTRACT §1); the rules check the group and the id."""

    id: PlayerRef
    name: str
    group: str | None = Field(
        default=None,
        description='"A" or "B"; may be left out where round 1 has no groups (rule FM-2)',
    )
    substitute: bool = False
    country: str | None = None
    local_name: str | None = Field(
        default=None, description='The name in the player\'s own script, e.g. "山田 剛"'
    )
    ema_id: str | None = Field(
        default=None,
        description="The player's EMA number: 8 digits, the first two their national "
        'association\'s code, e.g. "04160092" (docs/log-format.md)',
    )


class PrizesBody(AdminRequest):
    amounts: list[int | float | str] = Field(
        max_length=MAX_PLAYERS,
        description='Prize money by rank, index 0 = rank 1; exact strings such as "1000/3" too',
    )


class RateBody(AdminRequest):
    rate: str = Field(description='The round 1 to 2 carry-over rate, exact ("1/4")')


class DrawBody(AdminRequest):
    seed: str | None = Field(
        default=None, max_length=MAX_SEED_LENGTH, description="Leave out for a server-drawn seed"
    )
    replaces: str | None = Field(
        default=None,
        max_length=MAX_SEED_LENGTH,
        description="The seed of the round's draw, to draw a drawn round again (rule SE-1); "
        "refused (409) when it is not the round's draw, and needed when the round is drawn",
    )


class SeatingAnswer(BaseModel):
    segment: int
    table: int
    seats: list[PlayerRef] = Field(description="east, south, west, north")


class DrawAnswer(Recorded):
    round: int
    seed: str
    repeats: int = Field(description="Meetings the rotation could not avoid (rule SE-2)")
    seatings: list[SeatingAnswer]


class SegmentBody(AdminRequest):
    round: Round
    segment: Segment
    group: str | None = Field(default=None, description="Round 1 only, and needed there")


class ScheduleBody(SegmentBody):
    start: str = Field(description='ISO 8601 with its offset, e.g. "2026-11-29T09:00:00Z"')


class TableBody(AdminRequest):
    round: Round
    segment: Segment
    table: Table


class ExtensionBody(TableBody):
    minutes: Minutes


class PlayAllBody(TableBody):
    reason: str


class PenaltyBody(AdminRequest):
    """The head judge's penalty: any player of the round, not only one table's (PN-1)."""

    round: Round
    player: PlayerRef
    points: PenaltyPoints = Field(
        description="Negative: the points taken off (rule PN-1), within the format's bound"
    )
    reason: str


class RoundEndBody(AdminRequest):
    draw_seed: str | None = Field(
        default=None,
        max_length=MAX_SEED_LENGTH,
        description="Seed of the draw at the cut; the server draws one if it is needed (ST-5)",
    )
    confirm_unfinished: bool = Field(
        default=False,
        description="End the round although tables have not played their segments out "
        "(the 409 answer lists them); needs a reason",
    )
    reason: str | None = Field(
        default=None, description="Why, when confirm_unfinished; the round_end line keeps it"
    )


class RoundEndAnswer(Recorded):
    round: int
    draw_seed: str | None
    seed_generated: bool
    reason: str | None = Field(description="Recorded with a confirmed early end")
    unfinished: list[UnfinishedTableAnswer] = Field(
        description="The tables that had not played out when the round ended"
    )
    standings: RoundStandings


class TokenBody(AdminRequest):
    table: Table
    # A time arrives in JSON as its ISO 8601 text: read it as a time (not strictly, as the
    # numbers are); whether it is a good end is rule TK-1's to say (app/domain/tokens.py).
    expires_at: datetime | None = Field(
        default=None,
        strict=False,
        description="When the token stops opening the table (rule TK-1); by default the end "
        "of the hall's tournament day (04:00 hall time, SCOREBOARD_HALL_TIMEZONE)",
    )
    revoke_earlier: bool = Field(
        default=False,
        description="Reissue: revoke the table's other live tokens in the same step",
    )


class TokenInfo(BaseModel):
    """A table token as the organizer sees it, without the token itself."""

    id: int
    tournament: int
    table: int
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None
    role: str = Field(
        default="table",
        description='"table", or "head_judge": every table, no admin action (issue 18)',
    )

    @classmethod
    def of(cls, record: TokenRecord) -> TokenInfo:
        return cls(
            id=record.id,
            tournament=record.tournament_id,
            table=record.table,
            created_at=record.created_at,
            expires_at=record.expires_at,
            revoked_at=record.revoked_at,
            role=record.role,
        )


class TokenAnswer(BaseModel):
    tournament: int
    table: int
    token: str = Field(description="The judge's bearer token; shown once, only its hash is kept")
    id: int = Field(description="What the token is revoked by (DELETE .../tokens/{id})")
    expires_at: datetime
    revoked: list[TokenInfo] = Field(description="The table's earlier tokens revoked with it")


class RevokedAnswer(BaseModel):
    revoked: list[TokenInfo] = Field(
        description="The tokens revoked; a judge's request with any of them now gets 401"
    )


def _lines(
    store: StoreDep, tournament_id: int, kind: str, body: BaseModel | Mapping[str, Any]
) -> Recorded:
    """Append the one log line a request body (or the fields it implies) describes."""
    fields = body.model_dump() if isinstance(body, BaseModel) else dict(body)
    return recorded(admin.append(store, tournament_id, [admin.line_event(kind, fields)]))


# -- tournaments ------------------------------------------------------------------------


@router.post("", status_code=201, response_model=Created)
def create_tournament(body: TournamentBody, store: StoreDep) -> Created:
    """A new tournament: its first log line names it and its format (rules FM-1 to FM-9)."""
    appended = admin.create_tournament(store, body.name, body.format, body.language)
    return Created(id=appended.tournament_id, **recorded_fields(appended))


@router.post(
    "/import",
    status_code=201,
    response_model=Imported,
    responses={415: {"model": Problem}},
    openapi_extra=_text_body(
        LOG_MEDIA_TYPES, '{"type":"tournament","name":"WSOM","format":"wsom2008"}\n'
    ),
)
async def import_log(request: Request, store: StoreDep) -> Imported:
    """A whole log (JSON Lines, CONTRACT §1) as a new tournament, stored line for line; a bad
    line is refused with its number, field and rule, and nothing is stored."""
    text = await _read_text(request, LOG_MEDIA_TYPES)
    # Replaying and storing a whole log takes a while: off the event loop.
    appended = await run_in_threadpool(admin.import_log, store, text)
    return Imported(
        id=appended.tournament_id, version=appended.version, line_count=len(appended.lines)
    )


# -- registrations, prizes, the rate ----------------------------------------------------


@router.post("/{tournament_id}/players", status_code=201, response_model=Recorded)
def register_players(
    tournament_id: TournamentId, body: list[PlayerBody], store: StoreDep
) -> Recorded:
    """Register players, all or none; an error names the list index and the field."""
    rows = [PlayerRow(player.model_dump(), None, index) for index, player in enumerate(body)]
    return recorded(admin.register_players(store, tournament_id, rows))


@router.post(
    "/{tournament_id}/players.csv",
    status_code=201,
    response_model=Recorded,
    responses={415: {"model": Problem}},
    openapi_extra=_text_body(
        CSV_MEDIA_TYPES,
        "id,name,group,country,substitute,local_name\n1,Takeshi Yamada,A,JP,,山田 剛\n",
    ),
)
async def register_players_csv(
    tournament_id: TournamentId, request: Request, store: StoreDep
) -> Recorded:
    """Register players from a CSV (header id,name,group,country,substitute, and local_name
    for the name in the player's own script), all or none;
    an error names the CSV line (`line`, the header is line 1) and the field."""
    text = await _read_text(request, CSV_MEDIA_TYPES)
    # Read off the event loop: 16 MiB of CSV takes a moment that no judge's hand should wait
    # for (issue 32)
    rows = await run_in_threadpool(admin.csv_player_rows, text)
    appended = await run_in_threadpool(admin.register_players, store, tournament_id, rows)
    return recorded(appended)


@router.post("/{tournament_id}/prizes", status_code=201, response_model=Recorded)
def set_prizes(tournament_id: TournamentId, body: PrizesBody, store: StoreDep) -> Recorded:
    """The prize table by rank (rule PR-2); a later table replaces it."""
    return _lines(store, tournament_id, "prizes", body)


@router.post("/{tournament_id}/carry-over-rate", status_code=201, response_model=Recorded)
def set_carry_over_rate(tournament_id: TournamentId, body: RateBody, store: StoreDep) -> Recorded:
    """The round 1 to 2 carry-over rate (rule SC-3), until round 1 starts."""
    return _lines(store, tournament_id, "carry_over_rate", {"round": 1, "rate": body.rate})


@router.post("/{tournament_id}/language", status_code=201, response_model=Recorded)
def set_language(tournament_id: TournamentId, body: LanguageBody, store: StoreDep) -> Recorded:
    """The pages' default language from now on (issue 17): a `language` line."""
    return _lines(store, tournament_id, "language", body)


# -- the draw ---------------------------------------------------------------------------


@router.post(
    "/{tournament_id}/rounds/{round_number}/draw", status_code=201, response_model=DrawAnswer
)
def draw_round(
    tournament_id: TournamentId,
    round_number: RoundNumber,
    store: StoreDep,
    body: Annotated[DrawBody | None, Body()] = None,
) -> DrawAnswer:
    """Draw a round's seats for every segment (rules SE-1 to SE-3, FM-9) and record the seed
    with them; without a seed the server draws one. A round that is drawn already is drawn
    again, until its first deal or hand, only with `replaces` naming its draw's seed."""
    body = body or DrawBody()
    appended, drawn = admin.draw(store, tournament_id, round_number, body.seed, body.replaces)
    return _draw_answer(appended, drawn)


def _draw_answer(appended: Appended, drawn: RoundDraw) -> DrawAnswer:
    return DrawAnswer(
        **recorded_fields(appended),
        round=drawn.round,
        seed=drawn.seed,
        repeats=drawn.repeats,
        seatings=[
            SeatingAnswer(segment=s.segment, table=s.table, seats=list(s.seats))
            for s in drawn.seatings
        ],
    )


# -- the schedule and the clocks --------------------------------------------------------


@router.post("/{tournament_id}/schedule", status_code=201, response_model=Recorded)
def schedule_segment(tournament_id: TournamentId, body: ScheduleBody, store: StoreDep) -> Recorded:
    """A segment's scheduled start (rule FM-8); it can change until the segment starts."""
    return _lines(store, tournament_id, "schedule", body)


@router.post("/{tournament_id}/segments/open", status_code=201, response_model=Recorded)
def open_segment(tournament_id: TournamentId, body: SegmentBody, store: StoreDep) -> Recorded:
    """Start a segment now, by the server's clock (rules FM-8, CL-6); refused if the
    segment is scheduled already."""
    appended = admin.open_segment(store, tournament_id, body.round, body.segment, body.group)
    return recorded(appended)


@router.post("/{tournament_id}/segments/close", status_code=201, response_model=Recorded)
def close_segment(tournament_id: TournamentId, body: SegmentBody, store: StoreDep) -> Recorded:
    """Close a segment: its tables take no new hand or deal; corrections still go in."""
    return _lines(store, tournament_id, "segment_end", body)


@router.post("/{tournament_id}/extensions", status_code=201, response_model=Recorded)
def give_extension(tournament_id: TournamentId, body: ExtensionBody, store: StoreDep) -> Recorded:
    """Extra minutes for one table's segment, the TV table (rule CL-2)."""
    return _lines(store, tournament_id, "extension", body)


@router.post("/{tournament_id}/play-all", status_code=201, response_model=Recorded)
def order_play_all(tournament_id: TournamentId, body: PlayAllBody, store: StoreDep) -> Recorded:
    """The table plays every planned hand; its clock no longer ends the segment (rule PN-2)."""
    return _lines(store, tournament_id, "play_all", body)


@router.post("/{tournament_id}/penalties", status_code=201, response_model=Recorded)
def give_penalty(tournament_id: TournamentId, body: PenaltyBody, store: StoreDep) -> Recorded:
    """A score penalty for a player of the round (rules PN-1, HS-6)."""
    return _lines(store, tournament_id, "penalty", body)


# -- round ends and tokens --------------------------------------------------------------


@router.post(
    "/{tournament_id}/rounds/{round_number}/end",
    status_code=201,
    response_model=RoundEndAnswer,
    responses={409: {"model": RoundUnfinishedProblem}},
)
def end_round(
    tournament_id: TournamentId,
    round_number: RoundNumber,
    store: StoreDep,
    body: Annotated[RoundEndBody | None, Body()] = None,
) -> RoundEndAnswer:
    """Close a round: its standings, the cut and the carry-over into the next (rules ST-1
    to ST-7, SC-3). A tie at the cut that the hands leave level is drawn (ST-5): with the
    seed given, or one the server draws and records. A table that has not played its
    segment out (fewer hands than planned, an Ari Ari game not ended) gets a 409 that lists
    every such table, unless `confirm_unfinished` comes with a `reason`."""
    body = body or RoundEndBody()
    appended, event = admin.end_round(
        store,
        tournament_id,
        round_number,
        body.draw_seed,
        confirm_unfinished=body.confirm_unfinished,
        reason=body.reason,
    )
    ended, unfinished = store.read(
        tournament_id,
        lambda t, _: (
            standings_report(t.standings(round_number), t.rounds[round_number].format.advance),
            t.unfinished_tables(round_number),
        ),
    )
    return RoundEndAnswer(
        **recorded_fields(appended),
        round=round_number,
        draw_seed=event.draw_seed,
        seed_generated=body.draw_seed is None and event.draw_seed is not None,
        reason=event.reason,
        unfinished=unfinished_answer(unfinished),
        standings=RoundStandings.model_validate(ended),
    )


@router.post("/{tournament_id}/tokens", status_code=201, response_model=TokenAnswer)
def issue_token(tournament_id: TournamentId, body: TokenBody, store: StoreDep) -> TokenAnswer:
    """A new bearer token for one table's judge, scoped to that table only. It expires at
    the end of the hall's tournament day, or at `expires_at` (rule TK-1); with
    `revoke_earlier` it replaces the table's other tokens."""
    issued = store.issue_table_token(
        tournament_id, body.table, expires_at=body.expires_at, revoke_earlier=body.revoke_earlier
    )
    return TokenAnswer(
        tournament=tournament_id,
        table=body.table,
        token=issued.token,
        id=issued.record.id,
        expires_at=issued.record.expires_at,
        revoked=[TokenInfo.of(record) for record in issued.revoked],
    )


@router.get("/{tournament_id}/tokens", response_model=list[TokenInfo])
def live_tokens(tournament_id: TournamentId, store: StoreDep) -> list[TokenInfo]:
    """The table tokens that open a table now (neither revoked nor expired), by table."""
    return [TokenInfo.of(record) for record in store.live_tokens(tournament_id)]


@router.delete("/{tournament_id}/tokens/{token_id}", response_model=RevokedAnswer)
def revoke_token(
    tournament_id: TournamentId,
    token_id: Annotated[int, FastApiPath(ge=1, le=MAX_NUMBER)],
    store: StoreDep,
) -> RevokedAnswer:
    """Revoke one table token (rule TK-2): the tablet that holds it gets 401 on its next
    request, on every process. Revoking it again answers it as it stands."""
    revoked = store.revoke_tokens(tournament_id, token_id=token_id)
    return RevokedAnswer(revoked=[TokenInfo.of(record) for record in revoked])


@router.delete("/{tournament_id}/tables/{table}/tokens", response_model=RevokedAnswer)
def revoke_table_tokens(
    tournament_id: TournamentId, table: TableNumber, store: StoreDep
) -> RevokedAnswer:
    """Revoke every live token of one table (rule TK-2), say for a tablet that was lost."""
    revoked = store.revoke_tokens(tournament_id, table=table)
    return RevokedAnswer(revoked=[TokenInfo.of(record) for record in revoked])


# -- results for sanctioning bodies and rating sites (issue 18, part 6) ------------------


class EmaIdBody(AdminRequest):
    """An `ema_id` line (docs/log-format.md): sets or corrects a registered player's EMA
    number."""

    player: PlayerRef
    ema_id: str = Field(
        description='8 digits, the first two the national association\'s code, e.g. "04160092"'
    )


class MissingEmaIdAnswer(BaseModel):
    player: str | int
    name: str
    country: str | None


def _csv_download(text: str, filename: str) -> Response:
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


_CSV_ANSWER: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/csv": {"schema": {"type": "string"}}}, "description": "CSV"}
}


@router.post("/{tournament_id}/ema-ids", status_code=201, response_model=Recorded)
def set_ema_id(tournament_id: TournamentId, body: EmaIdBody, store: StoreDep) -> Recorded:
    """Set or correct a registered player's EMA number, at any time (an `ema_id` line);
    a number not of the EMA's form, or another player's, is refused."""
    return recorded(exports.set_ema_id(store, tournament_id, body.player, body.ema_id))


@router.get("/{tournament_id}/ema/missing", response_model=list[MissingEmaIdAnswer])
def missing_ema_ids(tournament_id: TournamentId, store: StoreDep) -> list[MissingEmaIdAnswer]:
    """The registered players (substitutes aside, rule FM-9) who have no EMA number yet:
    the EMA's results list them with "-"; check them before the export."""
    return [
        MissingEmaIdAnswer(player=m.player, name=m.name, country=m.country)
        for m in exports.missing(store, tournament_id)
    ]


@router.get("/{tournament_id}/ema.csv", response_class=Response, responses=_CSV_ANSWER)
def ema_results(tournament_id: TournamentId, store: StoreDep) -> Response:
    """The final results in the European Mahjong Association's columns (Place, EMA number,
    Last name, First name, Country, Points, Score; app/domain/ema.py), once the final has
    ended (rule PR-1)."""
    return _csv_download(exports.ema_csv(store, tournament_id), f"ema-{tournament_id}.csv")


@router.get("/{tournament_id}/hands.csv", response_class=Response, responses=_CSV_ANSWER)
def every_hand(tournament_id: TournamentId, store: StoreDep) -> Response:
    """Every player's every hand, a row each (round, segment, table, hand, seat, player,
    name, result, role, value, delta, running_total), for rating sites."""
    return _csv_download(exports.hands_csv(store, tournament_id), f"hands-{tournament_id}.csv")
