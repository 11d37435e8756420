"""The seating draw of a round (rules SE-1 to SE-5, SE-8, SE-9, FM-9).

At the start of a round a seeded draw puts the players at tables; between segments they
move by the round's fixed rotation pattern; within each table the server proposes a seat
order (the judge may record another, rule SE-5). Everything follows from the seed and the
players of the round, so a replay reruns the draw and checks it (rule SE-1).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.domain.errors import MalformedInput, say
from app.domain.formats import RoundFormat
from app.domain.hands import PlayerId
from app.domain.log import SeatingRecorded
from app.domain.rotation import Rotation, quarter_routine, rotation_for
from app.domain.seats import ALL_ORDERS, Seats, ordered, propose_seats, rotate_final

PLAYERS_PER_TABLE = 4  # rule FM-9


@dataclass(frozen=True)
class RoundDraw:
    round: int
    seed: str
    seatings: tuple[SeatingRecorded, ...]  # every segment of the round, by segment then table
    repeats: int  # rule SE-2: extra meetings the pattern could not avoid for these table counts

    def table_of(self) -> dict[tuple[int, PlayerId], int]:
        """(segment, player) -> table: what a replay checks recorded seatings against."""
        return {(s.segment, p): s.table for s in self.seatings for p in s.seats}


def draw_key(seed: str, round_number: int, player: PlayerId) -> str:
    """rule SE-1: the draw order: SHA-256 of "seed:round:player", so anyone can rerun it."""
    return hashlib.sha256(f"{seed}:{round_number}:{player}".encode()).hexdigest()


def _rotation(round_format: RoundFormat, tables: int) -> Rotation:
    if round_format.segment_kind == "quarter" and tables == 2 and round_format.segments == 4:
        return quarter_routine()  # rule SE-3
    return rotation_for(tables, round_format.segments)  # rule SE-2


def unfilled_tables(
    round_format: RoundFormat, groups: Mapping[str, Sequence[PlayerId]]
) -> MalformedInput | None:
    """rule FM-9: every table seats 4, so each group's players must fill whole tables."""
    for group in sorted(groups):
        count = len(groups[group])
        if count % PLAYERS_PER_TABLE:
            short = -count % PLAYERS_PER_TABLE
            if round_format.groups > 1:
                sentence = say(
                    "group {group} has {count} players; register {short} substitute(s) to fill "
                    "every table",
                    group=group,
                    count=count,
                    short=short,
                )
            else:
                sentence = say(
                    "round {number} has {count} players; register {short} substitute(s) to fill "
                    "every table",
                    number=round_format.number,
                    count=count,
                    short=short,
                )
            return MalformedInput("FM-9", "players", sentence)
    return None


def draw_round(
    round_format: RoundFormat,
    groups: Mapping[str, Sequence[PlayerId]],
    seed: str,
) -> RoundDraw:
    """Draw round `round_format.number` for these players (substitutes included, rule FM-9).

    Round 1 draws each group apart (rule FM-2); table numbers run on from one group to
    the next, so they are unique within the round.
    """
    number = round_format.number
    unfilled = unfilled_tables(round_format, groups)
    if unfilled is not None:
        raise unfilled
    seatings: list[SeatingRecorded] = []
    repeats = 0
    first_table = 1
    for group in sorted(groups):
        players = list(groups[group])
        if not players:
            continue
        order = sorted(players, key=lambda p: (draw_key(seed, number, p), str(p)))
        tables = len(order) // PLAYERS_PER_TABLE
        rotation = _rotation(round_format, tables)
        repeats += rotation.repeats
        for segment in range(1, round_format.segments + 1):
            at_table: dict[int, list[PlayerId]] = {}
            for position, player in enumerate(order):
                start_table, slot = divmod(position, PLAYERS_PER_TABLE)
                table = rotation.table_in_half(segment, start_table, slot)
                at_table.setdefault(table, []).append(player)
            for index in sorted(at_table):
                table = first_table + index
                seats = _segment_seats(round_format, segment, at_table[index], seed, table)
                seatings.append(SeatingRecorded(number, segment, table, seats))
        first_table += tables
    return RoundDraw(number, seed, tuple(seatings), repeats)


def _segment_seats(
    round_format: RoundFormat, segment: int, players: Sequence[PlayerId], seed: str, table: int
) -> Seats:
    """rule SE-5: a proposed seat draw per table and segment. The final draws once and its
    later sessions continue its seat pattern (rules SE-8, SE-9)."""
    fresh = propose_seats(players, f"{seed}:{round_format.number}:{segment}:{table}")
    if segment == 1 or not round_format.is_final:
        return fresh
    start = propose_seats(players, f"{seed}:{round_format.number}:1:{table}")
    index = (segment - 1) * round_format.cycles_per_segment  # the session's first cycle
    if round_format.seat_pattern == "rotate":
        return rotate_final(start, index)
    if round_format.seat_pattern == "all_orders" and index < len(ALL_ORDERS):
        return ordered(start, ALL_ORDERS[index])
    return fresh
