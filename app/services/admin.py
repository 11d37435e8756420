"""What the organizer writes: tournaments, registrations, prizes, the round 1 rate, draws,
the schedule, clock rulings, penalties and round ends.

Every function builds log lines, lets `TournamentStore.append` check them against the rules
and commit them in one transaction (all or nothing), and returns what was appended.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.domain.draw import RoundDraw, draw_round
from app.domain.errors import IllegalMove, LogError, MalformedInput, RuleViolation, say
from app.domain.log import (
    DrawRecorded,
    Event,
    PlayerRegistered,
    RoundEnded,
    ScheduleSet,
    TournamentDeclared,
    format_time,
    log_lines,
    parse_event,
)
from app.domain.text import check_text
from app.domain.tournament import RoundState, RoundUnfinished, Tournament
from app.services.csv_input import csv_records
from app.services.store import Appended, Author, TournamentStore

ADMIN = Author("admin")

# The columns of a registration CSV (CONTRACT §1 `player` fields). The group may be left
# out where round 1 is not played in groups (rule FM-2): every player is then in group A.
CSV_REQUIRED = ("id", "name")
CSV_OPTIONAL = ("group", "country", "substitute", "local_name", "ema_id")
_CANONICAL_INTEGER = re.compile(r"0|[1-9][0-9]*")
_TRUE = {"1", "true", "yes", "y", "x"}
_FALSE = {"", "0", "false", "no", "n"}


def new_seed() -> str:
    """A seed for a draw the organizer did not seed (rules SE-1, ST-5: it is recorded)."""
    return secrets.token_hex(8)


def line_event(kind: str, fields: Mapping[str, Any]) -> Event:
    """The event of one log line built from request fields: the log's own parser checks
    them, so a request is refused with the same field and rule as a bad log line."""
    return parse_event({**{k: v for k, v in fields.items() if v is not None}, "type": kind})


def append(store: TournamentStore, tournament_id: int, events: Sequence[Event]) -> Appended:
    return store.append(tournament_id, events, ADMIN)


# -- tournaments --------------------------------------------------------------------------


def create_tournament(
    store: TournamentStore, name: str, raw_format: object, language: str | None = None
) -> Appended:
    # line_event leaves out a field that is None: no language, the server's default
    declared = line_event("tournament", {"name": name, "format": raw_format, "language": language})
    assert isinstance(declared, TournamentDeclared)
    return store.create(declared, ADMIN)


def import_log(store: TournamentStore, text: str) -> Appended:
    """A whole log as a new tournament; a bad line raises LogError and stores nothing."""
    return store.import_log(log_lines(text))


# -- registrations ------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerRow:
    """One registration as sent, and where it came from: a CSV line, or a list index."""

    fields: Mapping[str, Any]
    line: int | None  # the CSV line (the header is line 1); None for a JSON list
    index: int


def _row_error(row: PlayerRow, violation: RuleViolation) -> Exception:
    """Name the row: a CSV error carries its line, a JSON error the list index."""
    if row.line is not None:
        return LogError(row.line, violation)
    return type(violation)(violation.rule, f"{row.index}.{violation.field}", violation.message)


def _check_registrations(
    tournament: Tournament, rows: Sequence[PlayerRow], events: Sequence[PlayerRegistered]
) -> None:
    """The registration rules, checked row by row so that an error names its row; the
    append checks them again as a whole (all or nothing)."""
    groups = tournament.format.round(1).group_names
    taken = {str(player) for player in tournament.players}
    for row, event in zip(rows, events, strict=True):
        if str(event.player) in taken:
            raise _row_error(
                row,
                IllegalMove(
                    "CONTRACT §1",
                    "id",
                    say("player {player} is already registered", player=repr(event.player)),
                ),
            )
        if event.group not in groups:
            raise _row_error(
                row,
                MalformedInput(
                    "FM-2", "group", f"this format's round 1 has groups {', '.join(groups)}"
                ),
            )
        late = tournament.registration_refusal(event.substitute)  # rule FM-2
        if late is not None:
            raise _row_error(row, late)
        taken.add(str(event.player))


def register_players(
    store: TournamentStore, tournament_id: int, rows: Sequence[PlayerRow]
) -> Appended:
    """Every registration in one append: all of them, or none (CONTRACT §1 `player`)."""
    if not rows:
        raise MalformedInput("CONTRACT §1", "body", say("lists no players"))
    groups = store.read(tournament_id, lambda t, _: t.format.round(1).group_names)
    events: list[PlayerRegistered] = []
    for row in rows:
        try:
            event = line_event("player", _with_group(row.fields, groups))
        except RuleViolation as violation:
            raise _row_error(row, violation) from violation
        assert isinstance(event, PlayerRegistered)
        events.append(event)

    def decide(tournament: Tournament) -> list[Event]:
        _check_registrations(tournament, rows, events)  # under the append's lock: no twin id
        return list(events)

    return store.append(tournament_id, decide, ADMIN)


def _with_group(fields: Mapping[str, Any], groups: Sequence[str]) -> Mapping[str, Any]:
    """A registration's fields with its group: the one group of a round 1 that is not
    played in groups when the row names none, as the log's `player` line needs one."""
    if fields.get("group") not in (None, ""):
        return fields
    if len(groups) == 1:
        return {**fields, "group": groups[0]}
    raise MalformedInput(
        "FM-2",
        "group",
        f"round 1 of this format is played in groups {' and '.join(groups)}; "
        "name each player's group",
    )


def csv_player_rows(text: str) -> list[PlayerRow]:
    """The rows of a registration CSV (header id,name,group,country,substitute,local_name;
    all but id and name may be left out, group only where round 1 has no groups). An id
    written as a plain integer ("17") is registered as the integer 17, as logs written by
    other programs name it; any other id stays a string.

    Every cell, the header's too, meets the text bound of its column before it is read any
    further (issue 32): a name of 131,073 characters is refused naming its line, as the
    same name sent as JSON is, and an id of 5,000 digits never reaches int()."""
    records = csv_records(text)
    _, first = next(records, (1, []))
    header = [name.strip() for name in first]
    for name in header:
        _check_cell(name, "header", 1)  # a column's own name, before it is said in a refusal
    missing = [name for name in CSV_REQUIRED if name not in header]
    if missing and len(header) == 1 and ";" in header[0]:
        # Excel writes ";" between the cells in the languages whose decimal mark is a comma
        raise LogError(
            1,
            MalformedInput(
                "CONTRACT §1",
                "id",
                f"the CSV header {header[0]!r} has its cells apart by semicolons; save the "
                "CSV with commas between the cells",
            ),
        )
    if missing:
        raise LogError(
            1,
            MalformedInput(
                "CONTRACT §1",
                missing[0],
                f"the CSV header needs the columns {', '.join(CSV_REQUIRED)} "
                f"(and may have {', '.join(CSV_OPTIONAL)})",
            ),
        )
    unknown = [name for name in header if name not in CSV_REQUIRED + CSV_OPTIONAL]
    if unknown:
        raise LogError(
            1,
            MalformedInput("CONTRACT §1", unknown[0], say("is not a column of a registration CSV")),
        )
    rows: list[PlayerRow] = []
    for line, record in records:
        if not record:
            continue  # an empty line
        if len(record) > len(header):
            raise LogError(
                line, MalformedInput("CONTRACT §1", "row", say("has more cells than the header"))
            )
        # a row shorter than the header leaves the columns after its last cell empty
        cells = dict.fromkeys(header, "") | {
            column: value.strip() for column, value in zip(header, record, strict=False)
        }
        if not any(cells.values()):
            continue  # a blank row carries nothing
        for column, value in cells.items():
            _check_cell(value, column, line)
        if not cells["id"]:
            raise LogError(line, MalformedInput("CONTRACT §1", "id", say("is empty")))
        fields: dict[str, Any] = {"id": _csv_id(cells["id"]), "name": cells["name"]}
        if cells.get("group"):
            fields["group"] = cells["group"]
        if cells.get("country"):
            fields["country"] = cells["country"]
        if cells.get("local_name"):
            fields["local_name"] = cells["local_name"]
        if cells.get("ema_id"):
            fields["ema_id"] = cells["ema_id"]  # a string: "04160092" keeps its zero
        substitute = cells.get("substitute", "").lower()
        if substitute not in _TRUE | _FALSE:
            raise LogError(
                line,
                MalformedInput(
                    "FM-9",
                    "substitute",
                    f"must be true or false (or 1/0, yes/no), got {substitute!r}",
                ),
            )
        if substitute in _TRUE:
            fields["substitute"] = True
        rows.append(PlayerRow(fields, line, len(rows)))
    return rows


def _check_cell(value: str, column: str, line: int) -> None:
    """A cell as the field of its column is bounded in a `player` line (app/domain/text.py)."""
    try:
        check_text(value, "CONTRACT §1", column)
    except MalformedInput as violation:
        raise LogError(line, violation) from violation


def _csv_id(cell: str) -> str | int:
    return int(cell) if _CANONICAL_INTEGER.fullmatch(cell) else cell


# -- draws --------------------------------------------------------------------------------


def _round_to_play(tournament: Tournament, number: int, rule: str) -> RoundState:
    """A round that has begun and not ended."""
    if not tournament.format.has_round(number):
        raise MalformedInput(
            "FM-1", "round", f"this format has rounds 1 to {tournament.format.final_round}"
        )
    state = tournament.rounds.get(number)
    if state is None:
        raise IllegalMove(
            "FM-1", "round", f"round {number} has not begun: round {number - 1} has not ended"
        )
    if state.ended is not None:
        raise IllegalMove(rule, "round", f"round {number} has ended")
    return state


def draw(
    store: TournamentStore,
    tournament_id: int,
    round_number: int,
    seed: str | None,
    replaces: str | None = None,
) -> tuple[Appended, RoundDraw]:
    """rule SE-1: draw a round and record the seed with every seating of the round, in one
    append (the `draw` line, then each segment's `seating` lines). A round drawn already is
    drawn again only when `replaces` names the seed of its draw: a second console that has
    not seen the first draw, or a draw sent again after its answer was lost, would
    otherwise replace a draw whose slips may be printed."""
    declared = line_event(
        "draw", {"round": round_number, "seed": seed if seed is not None else new_seed()}
    )
    assert isinstance(declared, DrawRecorded)
    chosen = declared.seed

    drawn: list[RoundDraw] = []

    def decide(tournament: Tournament) -> list[Event]:
        # Under the append's lock (issue 13): no registration, hand or other draw can come
        # between the check, the draw and its lines.
        state = _round_to_play(tournament, round_number, "SE-1")
        # at least a full table of players, and a round that has not started: a redraw
        # replaces the draw (the log keeps the one it replaces)
        refusal = tournament.draw_refusal(round_number)
        if refusal is not None:
            raise refusal
        _check_replaced_draw(state, round_number, replaces)
        drawn.append(draw_round(state.format, tournament.round_groups(state), chosen))
        return [declared, *drawn[0].seatings]

    appended = store.append(tournament_id, decide, ADMIN)
    return appended, drawn[0]


def _check_replaced_draw(state: RoundState, round_number: int, replaces: str | None) -> None:
    """rule SE-1: a redraw names the draw it replaces, and only the round's own draw."""
    current = state.draw
    if current is None:
        if replaces is not None:
            raise IllegalMove(
                "SE-1",
                "replaces",
                f"round {round_number} has no draw to replace (not the draw with seed "
                f"{replaces!r}); leave replaces out to draw it",
            )
        return
    if replaces is None:
        raise IllegalMove(
            "SE-1",
            "replaces",
            f"round {round_number} is drawn already (seed {current.seed!r}); to draw it again "
            f"and replace that draw, every seat and every printed slip, send replaces: "
            f"{current.seed!r}",
        )
    if replaces != current.seed:
        raise IllegalMove(
            "SE-1",
            "replaces",
            f"round {round_number}'s draw has the seed {current.seed!r}, not {replaces!r}: it "
            "was drawn again meanwhile; look at the new draw before replacing it",
        )


# -- the schedule -------------------------------------------------------------------------


def open_segment(
    store: TournamentStore, tournament_id: int, round_number: int, segment: int, group: str | None
) -> Appended:
    """Start a segment now, by the server's clock: its `schedule` line (rule FM-8). A
    segment that has a schedule already keeps it (change it with a schedule line)."""
    event = line_event(
        "schedule",
        {
            "round": round_number,
            "segment": segment,
            "start": format_time(store.clock()),
            "group": group,
        },
    )
    assert isinstance(event, ScheduleSet)
    key = (round_number, group or "", segment)

    def decide(tournament: Tournament) -> list[Event]:
        # Under the append's lock: of two organizers opening the segment at once, only the
        # first start stands.
        state = tournament.rounds.get(round_number)
        if state is not None and state.ended is None and not state.tables:
            # A clock started before the draw runs for nobody, and the 70 minutes are gone
            # by the time the slips are out; a later start is a schedule line instead.
            raise IllegalMove(
                "SE-1",
                "segment",
                f"round {round_number} is not drawn yet: draw it before opening a segment "
                "(schedule one with its start time to set the clock ahead)",
            )
        start = tournament.schedule.get(key)
        if start is not None:
            where = f"segment {segment} of round {round_number}" + (
                f" (group {group})" if group else ""
            )
            raise IllegalMove(
                "FM-8", "segment", f"{where} is scheduled already, to start at {format_time(start)}"
            )
        return [event]

    return store.append(tournament_id, decide, ADMIN)


# -- round ends ---------------------------------------------------------------------------


def end_round(
    store: TournamentStore,
    tournament_id: int,
    round_number: int,
    draw_seed: str | None,
    *,
    confirm_unfinished: bool = False,
    reason: str | None = None,
) -> tuple[Appended, RoundEnded]:
    """Close a round. When players are still level at the cut after the tie-break and no
    seed was given, the server draws one (rule ST-5): the `round_end` line records it, so
    anyone can rerun the draw and get the same outcome.

    A round with a table that has not played its segment out (or with no table at all) is
    refused with those tables listed (RoundUnfinished), unless the organizer confirms with
    a reason, which the `round_end` line keeps."""
    if confirm_unfinished and (reason is None or not reason.strip()):
        raise MalformedInput(
            "FM-1",
            "reason",
            "ending a round with unplayed or unfinished tables needs a reason for the log",
        )

    def seed_needed(tournament: Tournament) -> bool:
        state = _round_to_play(tournament, round_number, "FM-1")
        unfinished = tournament.unfinished_tables(round_number)
        if (unfinished or not state.tables) and not confirm_unfinished:
            raise RoundUnfinished(round_number, state.format.shape_rule, unfinished)
        cut = tournament.standings(round_number).cut
        return cut is not None and cut.tie is not None and cut.tie.draw_pending

    fields = {"round": round_number, "draw_seed": draw_seed, "reason": reason}
    line_event("round_end", fields)  # a bad seed is refused before the standings are ranked
    ended: list[RoundEnded] = []

    def decide(tournament: Tournament) -> list[Event]:
        # Under the append's lock: a void between the check and the line cannot leave a
        # table unfinished in a round ended without confirmation.
        if seed_needed(tournament) and draw_seed is None:
            fields["draw_seed"] = new_seed()
        event = line_event("round_end", fields)
        assert isinstance(event, RoundEnded)
        ended.append(event)
        return [event]

    return store.append(tournament_id, decide, ADMIN), ended[0]


__all__ = [
    "ADMIN",
    "PlayerRow",
    "append",
    "create_tournament",
    "csv_player_rows",
    "draw",
    "end_round",
    "import_log",
    "line_event",
    "open_segment",
    "register_players",
]
