"""Replaying a whole log offline, and the JSON report of `scoreboard replay` (CONTRACT.md §2)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, TypedDict

from app.domain.ariari import END_WORDS, EndReason, Game
from app.domain.calls import CallMade, CallResolved, CallTaken
from app.domain.clocks import Phase
from app.domain.errors import LogError, MalformedInput, RuleViolation, say
from app.domain.hands import PlayerId
from app.domain.log import (
    Event,
    HandRecorded,
    TournamentDeclared,
    decode_line,
    format_time,
    line_time,
    parse_event,
    written_at,
)
from app.domain.numbers import exact, exact_scaled, shown, shown_scaled
from app.domain.round_state import SeatName
from app.domain.standings import Standing, Standings, Status, TieAtCut
from app.domain.tournament import SEAT_NAMES, TableClock, Tournament

# The report's shapes, as JSON goes out: typed, so that every reader of a row, a cut or a
# clock (the read model, the feeds, the pages) is checked against what is sent. Key order is
# the order the JSON has.


class TieData(TypedDict):
    """rule ST-7: a tie at the cut and how the tie-break (ST-4) and the draw (ST-5) decide it."""

    total: str
    players: list[PlayerId]
    places: int
    hands: dict[str, list[int]]
    advance_by_hands: list[PlayerId]
    draw_among: list[PlayerId]
    draw_places: int
    draw_seed: str | None
    draw_winners: list[PlayerId] | None
    draw_pending: bool


class CutData(TypedDict):
    advance: int
    line_total: str | None
    next_total: str | None
    tie: TieData | None


class StandingsHeader(TypedDict):
    """What a standings report says besides its rows: the round and its cut line."""

    round: int
    advance: int | None
    ended: bool
    cut: CutData | None


class StandingRowData(TypedDict):
    player: PlayerId
    rank: int
    carry_in: str  # exact, a reduced fraction (rule SC-4)
    play: str
    total: str
    shown: str  # 2 decimals, rounded down (rule SC-5)
    status: Status
    position: int
    above_cut: bool | None
    distance: str | None  # to the cut line (rule ST-3)
    distance_shown: str | None


class StandingsData(StandingsHeader):
    standings: list[StandingRowData]


class ClockData(TypedDict):
    """A table's clock: server time and deadlines, never ticks (rule CL-6)."""

    round: int
    segment: int
    table: int
    group: str | None
    phase: Phase
    server_time: str
    starts_at: str | None
    deadline: str | None
    seconds_left: int | None
    seconds_over: int | None
    break_ends: str | None
    break_seconds_left: int | None
    hands_completed: int
    planned_hands: int
    play_all: bool


class GamePlayerData(TypedDict):
    player: PlayerId
    seat: SeatName
    points: int
    place: int | None
    bets: int | None
    uma: int | None
    result: int


class GameData(TypedDict):
    """One Ari Ari game as it stands (rules AA-12 to AA-17)."""

    segment: int
    table: int
    hands: int
    ended: bool
    end_rule: EndReason | None
    end: str | None
    dealer: PlayerId | None
    counters: int
    bets: int
    players: list[GamePlayerData]


def replay_lines(
    lines: Iterable[str], *, until: datetime | None = None, stored: bool = False
) -> Tournament:
    """Fold a log's lines into a tournament. Raises LogError naming the line, field and rule.

    With `until`, the log as it stood at that moment: replay stops at the first line that
    happened later (a log is in the order things happened, CONTRACT §1). `stored` lines
    come from the database and skip the bounds on incoming text (`parse_event`).
    """
    tournament: Tournament | None = None
    number = 0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue  # a trailing newline or a blank line carries nothing
        try:
            raw = decode_line(text, stored=stored)
            # Parse first, so a bad time is refused under its own field's rule.
            event = parse_event(raw, stored=stored)
            happened = line_time(raw, stored=stored) if until is not None else None
            if until is not None and happened is not None and happened > until:
                break
            if tournament is None:
                if not isinstance(event, TournamentDeclared):
                    raise MalformedInput(
                        "CONTRACT §1", "type", say("the first line must be the tournament line")
                    )
                tournament = Tournament(event)
            else:
                tournament.apply(event, _entered_at(raw, event, stored))
        except RuleViolation as violation:
            raise LogError(number, violation) from violation
    if tournament is None:
        raise LogError(
            max(number, 1), MalformedInput("CONTRACT §1", "type", say("the log is empty"))
        )
    return tournament


def apply_line(tournament: Tournament, text: str) -> None:
    """Apply one more stored log line to a tournament (a process catching up with the log)."""
    raw = decode_line(text, stored=True)
    event = parse_event(raw, stored=True)
    tournament.apply(event, _entered_at(raw, event, stored=True))


def _entered_at(raw: Any, event: Event, stored: bool) -> datetime | None:
    """A hand line's `at`, which dates the final's break (rule CL-1), and a call's (rule
    CA-4); other lines' times are their own fields. A stored line's is read as it is."""
    timed = HandRecorded | CallMade | CallTaken | CallResolved  # a call waits from its `at` (CA-4)
    if isinstance(event, timed) and isinstance(raw, dict):
        return written_at(raw, stored=stored)
    return None


def report(tournament: Tournament) -> dict[str, Any]:
    """The CONTRACT.md §2 shape, with extra fields that consumers may ignore."""
    return {
        "tournament": tournament.name,
        "format": tournament.format.name,
        "rounds": [
            standings_report(tournament.standings(number), state.format.advance)
            | _draw_report(tournament, number)
            | _end_report(tournament, number)
            | _games_report(tournament, number)
            for number, state in sorted(tournament.rounds.items())
        ],
        "final_ranking": [
            {
                "player": place.player,
                "rank": place.rank,
                "prize": exact(place.prize),
                "prize_shown": shown(place.prize),
                "round": place.round,
                "total": exact(place.total),
            }
            for place in tournament.final_ranking()
        ],
    }


def _draw_report(tournament: Tournament, round_number: int) -> dict[str, Any]:
    """rule SE-1: the recorded draw of a round, and the seatings that differ from it (a
    substitute who came in, say): accepted, but shown for the organizer to check."""
    drawn = tournament.rounds[round_number].draw
    if drawn is None:
        return {}
    deviations = [
        {"segment": segment, "player": player, "drawn_table": drawn_at, "seated_table": seated}
        for segment, player, drawn_at, seated in tournament.draw_deviations(round_number)
    ]
    shown_draw: dict[str, Any] = {
        "seed": drawn.seed,
        "repeats": drawn.repeats,
        "deviations": deviations,
    }
    superseded = tournament.rounds[round_number].superseded_draws
    if superseded:
        # a redraw before the round's first deal or hand: the draws it replaced, in order
        shown_draw["superseded"] = [earlier.seed for earlier in superseded]
    return {"draw": shown_draw}


def _end_report(tournament: Tournament, round_number: int) -> dict[str, Any]:
    """Why the organizer ended the round with tables unplayed or unfinished, if they had to."""
    ended = tournament.rounds[round_number].ended
    return {} if ended is None or ended.reason is None else {"end_reason": ended.reason}


def _games_report(tournament: Tournament, round_number: int) -> dict[str, Any]:
    """Ari Ari rounds: each table's game with its points, bets, uma and results (AA-17)."""
    state = tournament.rounds[round_number]
    games = [
        game_report(segment, table_number, table.game)
        for (segment, table_number), table in sorted(state.tables.items())
        if table.game is not None
    ]
    return {"games": games} if tournament.format.game is not None else {}


def game_report(segment: int, table_number: int, game: Game) -> GameData:
    """One Ari Ari game as it stands: while it is played, the dealer, counters and bets
    for the next hand; once it has ended, each player's place, leftover bets, uma and
    result (rules AA-12 to AA-17). `result` is the game's part of the play score."""
    standings = {s.player: s for s in game.standings}
    results = game.results()
    return {
        "segment": segment,
        "table": table_number,
        "hands": len(game.hands),
        "ended": game.ended is not None,
        "end_rule": game.ended,
        "end": None if game.ended is None else END_WORDS[game.ended],
        "dealer": game.dealer,
        "counters": game.counters,
        "bets": game.bets,
        "players": [
            {
                "player": player,
                "seat": wind,
                "points": points,
                "place": standings[player].place if standings else None,
                "bets": standings[player].bets if standings else None,
                "uma": standings[player].uma if standings else None,
                "result": results[player],
            }
            for wind, (player, points) in zip(SEAT_NAMES, game.points, strict=True)
        ],
    }


def standings_report(standings: Standings, advance: int | None) -> StandingsData:
    """One round's standings, in the shape of CONTRACT.md §2 (also served by the API)."""
    rows = [standing_row(row) for row in standings.rows]
    return {**standings_header(standings, advance), "standings": rows}


def standings_header(standings: Standings, advance: int | None) -> StandingsHeader:
    """What a standings report says besides its rows: the round and its cut line."""
    cut = standings.cut
    return {
        "round": standings.round,
        "advance": advance,
        "ended": standings.ended,
        "cut": None
        if cut is None
        else {
            "advance": cut.advance,
            "line_total": None if cut.line_total is None else exact(cut.line_total),
            "next_total": None if cut.next_total is None else exact(cut.next_total),
            "tie": None if cut.tie is None else _tie_report(cut.tie),
        },
    }


def standing_row(row: Standing) -> StandingRowData:
    distance, denominator = row.distance_scaled, row.denominator
    return {
        "player": row.player,
        "rank": row.rank,
        "carry_in": exact_scaled(row.carry_in_scaled, denominator),
        "play": str(row.play),
        "total": exact_scaled(row.total_scaled, denominator),
        "shown": shown_scaled(row.total_scaled, denominator),
        "status": row.status,
        "position": row.position,
        # rule ST-3: points needed to reach the line (below) or margin over it (above)
        "above_cut": row.above_cut,
        "distance": None if distance is None else exact_scaled(distance, denominator),
        "distance_shown": None if distance is None else shown_scaled(distance, denominator),
    }


def _tie_report(tie: TieAtCut) -> TieData:
    """rule ST-7: how the tie-break decides a tie at the line (now, or as it was decided)."""
    return {
        "total": exact(tie.total),
        "players": list(tie.players),
        "places": tie.places,
        "hands": {str(p): list(v) for p, v in tie.hands.items()},
        "advance_by_hands": list(tie.by_hands),
        "draw_among": list(tie.draw_among),
        "draw_places": tie.draw_places,
        "draw_seed": tie.draw_seed,
        "draw_winners": None if tie.draw_winners is None else list(tie.draw_winners),
        "draw_pending": tie.draw_pending,
    }


def clock_report(table_clock: TableClock) -> ClockData:
    """A table's clock as JSON: server time and deadlines, never ticks (rule CL-6)."""
    clock = table_clock.clock
    return {
        "round": table_clock.round,
        "segment": table_clock.segment,
        "table": table_clock.table,
        "group": table_clock.group or None,
        "phase": clock.phase,
        "server_time": format_time(clock.server_time),
        "starts_at": _time_or_none(clock.starts_at),
        "deadline": _time_or_none(clock.deadline),
        "seconds_left": clock.seconds_left,
        "seconds_over": clock.seconds_over,
        "break_ends": _time_or_none(clock.break_ends),
        "break_seconds_left": clock.break_seconds_left,
        "hands_completed": clock.hands_completed,
        "planned_hands": clock.planned_hands,
        "play_all": clock.play_all,
    }


def _time_or_none(value: datetime | None) -> str | None:
    return None if value is None else format_time(value)
