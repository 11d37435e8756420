"""The public read API: standings, tables, clocks, players, audit lists and the log.

No credential is needed and nothing is written. Every figure comes from the log through the
domain's own reports (`app.domain.replay`), so the API and `scoreboard replay` agree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import BaseModel, Field

from app.db import queries
from app.domain.errors import MalformedInput, say
from app.domain.log import PlayerRegistered, format_time, parse_time
from app.domain.replay import clock_report, game_report
from app.domain.tournament import SeatName, Tournament
from app.read.reports import (
    ClockReport,
    FinalPlaceReport,
    PlayerRef,
    Registration,
    RoundStandings,
)
from app.read.views import PlayerRound as PlayerRoundView
from app.read.views import States, player_round, row_of, table_view
from app.services import calls, history
from app.services.errors import NotFound
from app.services.reports import latest_report, round_state
from app.services.store import TournamentStore
from app.web.deps import RoundParam, StoreDep, TableNumber, TournamentId, TournamentsDep
from app.web.errors import PROBLEM_RESPONSES, PUBLIC_READ_RESPONSES

# No credential, so no 401 or 403: a tournament, round or player that is not there, or bad input.
router = APIRouter(
    prefix="/api/tournaments",
    tags=["public"],
    responses={
        **{status: PROBLEM_RESPONSES[status] for status in (404, 409, 422)},
        **PUBLIC_READ_RESPONSES,
    },
)

# -- the answers -----------------------------------------------------------------------


class PlayerName(BaseModel):
    name: str
    local_name: str | None
    country: str | None


MAX_TOP = 100  # ?top=: a phone's page of leaders, not the field
MAX_NAMED = 20  # ?players=: the players a phone follows


class StandingsAnswer(BaseModel):
    """The shape of `scoreboard replay` (CONTRACT §2) for one round, with the version."""

    version: int
    rounds: list[RoundStandings]
    final_ranking: list[FinalPlaceReport]
    # with ?at= only (issue 18): the moment answered and the log's span, for a time slider
    at: str | None = Field(default=None, description="With `at`: the moment answered (UTC)")
    lines: int | None = Field(default=None, description="With `at`: the log's lines up to it")
    first_time: str | None = Field(default=None, description="With `at`: the log's first time")
    last_time: str | None = Field(default=None, description="With `at`: the log's latest time")
    # with ?top= or ?players= (issue 18): the names of the players the rows kept name
    players: dict[str, PlayerName] | None = Field(
        default=None, description="With `top` or `players`: each kept row's player's name"
    )


class TournamentListed(BaseModel):
    id: int
    name: str
    version: int


class RoundSummary(BaseModel):
    round: int
    advance: int | None
    segments: int
    segment_kind: str
    hands_per_segment: int
    begun: bool
    ended: bool


class TournamentSummary(BaseModel):
    id: int
    name: str
    format: str
    version: int
    current_round: int
    players: int
    rounds: list[RoundSummary]
    complete: bool


class TableRow(BaseModel):
    round: int
    segment: int
    table: int
    group: str | None
    seats: list[PlayerRef] = Field(description="east, south, west, north at the segment's start")
    seats_now: list[PlayerRef] = Field(
        description="east, south, west, north in the cycle of the next hand (of the last once "
        "the segment is over): after the exchanges of rules SE-6, SE-8 and SE-9 (rule SE-10)"
    )
    hands_entered: list[int]
    next_hand: int | None
    next_dealer: PlayerRef | None
    closed: bool
    clock: ClockReport | None = Field(description="Only for each table's current segment")
    game: dict[str, Any] | None = Field(
        default=None,
        description="Ari Ari tables: the game as it stands (dealer, counters, bets, points; "
        "places, uma and results once it has ended), as in replay's `games`",
    )


class TablesAnswer(BaseModel):
    version: int
    round: int
    tables: list[TableRow]


class AuditLine(BaseModel):
    seq: int
    version: int
    entered_by: str
    token_id: int | None
    entered_at: str
    line: dict[str, Any]
    # A ruling that names a judge's call: the players it moved across the cut line (rule
    # CA-5, issue 18); null on other lines
    cut_changes: list[dict[str, Any]] | None = None


class AuditAnswer(BaseModel):
    tournament: int
    table: int
    round: int | None
    lines: list[AuditLine]


class SeatInSegment(BaseModel):
    segment: int
    table: int
    seat: SeatName = Field(description="as drawn for the segment")
    seat_now: SeatName = Field(description="in the cycle in play at that table (rule SE-10)")


class PenaltyReport(BaseModel):
    points: int
    reason: str


class PlayerRound(BaseModel):
    """A player's round; the standing fields are None for a substitute (rule FM-9)."""

    round: int
    carry_in: str | None
    play: str | None
    total: str | None
    shown: str | None
    rank: int | None
    position: int | None
    status: str | None
    above_cut: bool | None
    distance: str | None
    distance_shown: str | None
    seats: list[SeatInSegment]
    winning_hands: list[int] = Field(description="This round's winning values (rule ST-4)")
    penalties: list[PenaltyReport]


class PlayerAnswer(BaseModel):
    version: int
    player: Registration
    rounds: list[PlayerRound]


class ClocksAnswer(BaseModel):
    server_time: str
    tables: list[ClockReport]


def _player(tournament: Tournament, player_id: str) -> PlayerRegistered:
    player = tournament.player_named(player_id)
    if player is None:
        raise NotFound(
            say(
                "player {player_id} is not registered in this tournament", player_id=repr(player_id)
            )
        )
    return tournament.players[player]


# -- routes -----------------------------------------------------------------------------


@router.get("", response_model=list[TournamentListed])
def list_tournaments(tournaments: TournamentsDep) -> list[TournamentListed]:
    """Every tournament on this server."""
    return [TournamentListed(id=t.id, name=t.name, version=t.version) for t in tournaments]


@router.get("/{tournament_id}", response_model=TournamentSummary)
def tournament_summary(tournament_id: TournamentId, store: StoreDep) -> TournamentSummary:
    """The tournament's format, its rounds so far and the current round."""

    def view(tournament: Tournament, version: int) -> TournamentSummary:
        rounds = []
        for round_format in tournament.format.rounds:
            state = tournament.rounds.get(round_format.number)
            rounds.append(
                RoundSummary(
                    round=round_format.number,
                    advance=round_format.advance,
                    segments=round_format.segments,
                    segment_kind=round_format.segment_kind,
                    hands_per_segment=round_format.hands_per_segment,
                    begun=state is not None,
                    ended=state is not None and state.ended is not None,
                )
            )
        return TournamentSummary(
            id=tournament_id,
            name=tournament.name,
            format=tournament.format.name,
            version=version,
            current_round=tournament.current_round.number,
            players=len(tournament.players),
            rounds=rounds,
            complete=tournament.complete,
        )

    return store.read(tournament_id, view)


@router.get(
    "/{tournament_id}/standings", response_model=StandingsAnswer, response_model_exclude_unset=True
)
def standings(
    tournament_id: TournamentId,
    store: StoreDep,
    round_number: RoundParam = None,
    at: Annotated[
        str | None,
        Query(
            max_length=64,
            description="ISO 8601 with its offset (`2026-11-29T10:30:00Z`; write `+` as "
            "`%2B`): the standings as they were then, the log replayed up to that moment. "
            "A moment before the tournament gives it as declared (no players); a later one "
            "than now gives now.",
        ),
    ] = None,
    top: Annotated[
        int | None,
        Query(
            ge=1,
            le=MAX_TOP,
            description="Only the rows of the first `top` places (and of `players`), with "
            "their names: a phone's slider asks for a page, not the field",
        ),
    ] = None,
    players: Annotated[
        str | None,
        Query(
            max_length=MAX_NAMED * 41,
            description=f"Only these players' rows (comma-separated ids, at most {MAX_NAMED}; "
            "and the first `top`), with their names",
        ),
    ] = None,
) -> dict[str, Any]:
    """One round's standings with the cut line and any tie at it (rules ST-1 to ST-7), and
    the final ranking so far (PR-1 to PR-3): the shape of `scoreboard replay` (CONTRACT §2).
    With `at` (issue 18), as they were at that moment, with `at`, `lines`, `first_time` and
    `last_time` besides; with `top` or `players`, only those rows, and their names."""
    named = _named(players)
    if at is not None:
        answer = history.standings_at(store, tournament_id, _moment(at), round_number)
        return (
            answer
            if top is None and named is None
            else _trimmed(store, tournament_id, answer, top, named)
        )

    def view(tournament: Tournament, version: int) -> dict[str, Any]:
        number = round_state(tournament, round_number).number
        full = latest_report(store, tournament_id, tournament, version)
        return {
            "version": version,
            "rounds": [r for r in full["rounds"] if r["round"] == number],
            "final_ranking": full["final_ranking"],
        }

    answer = store.read(tournament_id, view)
    return (
        answer
        if top is None and named is None
        else _trimmed(store, tournament_id, answer, top, named)
    )


def _named(players: str | None) -> set[str] | None:
    """`?players=` as a set of ids: at most MAX_NAMED, none empty."""
    if players is None:
        return None
    named = [player.strip() for player in players.split(",")]
    if len(named) > MAX_NAMED or not all(named):
        raise MalformedInput(
            "issue 18",
            "players",
            say(
                "must be at most {most} player ids separated by commas, none empty",
                most=MAX_NAMED,
            ),
        )
    return set(named)


def _trimmed(
    store: TournamentStore,
    tournament_id: int,
    answer: dict[str, Any],
    top: int | None,
    named: set[str] | None,
) -> dict[str, Any]:
    """The answer with only the rows of the first `top` places and of the `named` players,
    in each round's standings and in the final ranking, and those players' names; the
    answer as it is without either."""
    if top is None and named is None:
        return answer

    def kept(row: Mapping[str, Any], place: str) -> bool:
        return (top is not None and row[place] <= top) or (
            named is not None and str(row["player"]) in named
        )

    rounds = [
        {**r, "standings": [row for row in r["standings"] if kept(row, "position")]}
        for r in answer["rounds"]
    ]
    final = [row for row in answer["final_ranking"] if kept(row, "rank")]
    shown = {str(row["player"]) for r in rounds for row in r["standings"]}
    shown |= {str(row["player"]) for row in final}

    def names(tournament: Tournament, _: int) -> dict[str, dict[str, str | None]]:
        out: dict[str, dict[str, str | None]] = {}
        for player_id in sorted(shown):
            player = tournament.player_named(player_id)
            if player is not None:
                registered = tournament.players[player]
                out[player_id] = {
                    "name": registered.name,
                    "local_name": registered.local_name,
                    "country": registered.country,
                }
        return out

    players = store.read(tournament_id, names)
    return {**answer, "rounds": rounds, "final_ranking": final, "players": players}


def _moment(raw: str) -> datetime:
    """`?at=` as a moment: an ISO 8601 time with its offset (CONTRACT §1's times), within
    the years a tournament's times lie in. A `+` sent unescaped reads as a space: taken
    back."""
    date, separator, time = raw.partition("T")
    return parse_time(date + separator + time.replace(" ", "+"), "at", "issue 18")


@router.get("/{tournament_id}/tables", response_model=TablesAnswer)
def tables(
    tournament_id: TournamentId, store: StoreDep, round_number: RoundParam = None
) -> TablesAnswer:
    """Every table of a round in every segment: seats, hands entered, the next dealer, and
    the clock of each table's current segment (rule CL-6)."""
    now = store.clock()

    def view(tournament: Tournament, version: int) -> TablesAnswer:
        state = round_state(tournament, round_number)
        # each table's clock in the segment it plays now (or next), rule CL-6
        playing = (
            States(tournament, now).table_clocks() if state is tournament.current_round else []
        )
        clocks = {(c.segment, c.table): c for c in playing}
        rows = []
        for segment, number in sorted(state.tables):
            table = table_view(tournament, state, segment, number)
            game = table.seated.game
            clock = clocks.get((segment, number))
            rows.append(
                TableRow(
                    round=table.round,
                    segment=segment,
                    table=number,
                    group=table.group,
                    seats=list(table.seated.seats),
                    seats_now=list(table.seats_now),
                    hands_entered=sorted(table.seated.hands),
                    next_hand=table.next_hand,
                    next_dealer=table.next_dealer,
                    closed=table.closed,
                    clock=None if clock is None else ClockReport(**clock_report(clock)),
                    game=None if game is None else dict(game_report(segment, number, game)),
                )
            )
        return TablesAnswer(version=version, round=state.number, tables=rows)

    return store.read(tournament_id, view)


@router.get("/{tournament_id}/tables/{table}/audit", response_model=AuditAnswer)
def table_audit(
    tournament_id: TournamentId,
    table: TableNumber,
    store: StoreDep,
    round_number: RoundParam = None,
) -> AuditAnswer:
    """Every log line naming the table, or entered with its judges' tokens (a penalty names
    the player, not the table), oldest first, with who entered it and when."""
    lines = store.table_audit(tournament_id, table, round_number)
    rulings = any('"call"' in line.body for line in lines)
    effects = calls.ruling_effects(store, tournament_id) if rulings else {}
    return AuditAnswer(
        tournament=tournament_id,
        table=table,
        round=round_number,
        lines=[
            AuditLine(
                seq=line.seq,
                version=line.version,
                entered_by=line.entered_by,
                token_id=line.token_id,
                entered_at=format_time(queries.as_utc(line.entered_at)),
                line=json.loads(line.body),
                cut_changes=effects.get(line.seq),
            )
            for line in lines
        ],
    )


@router.get("/{tournament_id}/players/{player_id}", response_model=PlayerAnswer)
def player(tournament_id: TournamentId, player_id: str, store: StoreDep) -> PlayerAnswer:
    """One player: the registration, and each round played: standing, seats, winning hands
    and penalties. `player_id` matches an integer id by its decimal form."""

    def view(tournament: Tournament, version: int) -> PlayerAnswer:
        registered = _player(tournament, player_id)
        full = latest_report(store, tournament_id, tournament, version)
        rows = {r["round"]: row_of(r["standings"], registered.player) for r in full["rounds"]}
        rounds = [
            _player_round(player_round(state, registered.player, rows.get(number)))
            for number, state in sorted(tournament.rounds.items())
            if rows.get(number) is not None
            or any(p == registered.player for (_, p) in state.seat_of)
        ]
        return PlayerAnswer(
            version=version,
            player=Registration.of(registered),
            rounds=rounds,
        )

    return store.read(tournament_id, view)


def _player_round(view: PlayerRoundView) -> PlayerRound:
    row = view.standing  # None for a substitute (rule FM-9): every standing field is None
    return PlayerRound(
        round=view.round,
        carry_in=None if row is None else row["carry_in"],
        play=None if row is None else row["play"],
        total=None if row is None else row["total"],
        shown=None if row is None else row["shown"],
        rank=None if row is None else row["rank"],
        position=None if row is None else row["position"],
        status=None if row is None else row["status"],
        above_cut=None if row is None else row["above_cut"],
        distance=None if row is None else row["distance"],
        distance_shown=None if row is None else row["distance_shown"],
        seats=[SeatInSegment.model_validate(seat) for seat in view.seats],
        winning_hands=view.winning_hands,
        penalties=[PenaltyReport(points=p.points, reason=p.reason) for p in view.penalties],
    )


@router.get(
    "/{tournament_id}/log",
    response_class=Response,
    responses={200: {"content": {"application/x-ndjson": {}}, "description": "The log"}},
)
def export_log(tournament_id: TournamentId, store: StoreDep) -> Response:
    """The tournament's log as JSON Lines (CONTRACT §1), line for line as stored: replay it
    offline with `scoreboard replay`, or import it on another server."""
    lines = store.export(tournament_id)
    return Response("\n".join(lines) + "\n", media_type="application/x-ndjson")


@router.get("/{tournament_id}/clocks", response_model=ClocksAnswer)
def table_clocks(tournament_id: TournamentId, store: StoreDep) -> ClocksAnswer:
    """Every table's clock in the round being played, by the server's time (rule CL-6)."""
    now: datetime = store.clock()
    tables = store.read(
        tournament_id,
        lambda t, _: [ClockReport(**clock_report(c)) for c in States(t, now).table_clocks()],
    )
    return ClocksAnswer(server_time=format_time(now), tables=tables)
