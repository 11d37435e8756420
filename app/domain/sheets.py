"""Score sheets: the paper a table plays on when its tablet or the Wi-Fi fails (issue 18,
part 5). One sheet per table and segment, with the seats and each hand's dealer printed as
the rules give them, and a row per planned hand for the table to fill in.

Rules: SE-5 (the seats recorded for the segment), SE-6 to SE-9 (the seats of each cycle),
FM-7 (who deals each hand), FM-9 (four players a table), HS-3 (the values a row may hold)
and, for an Ari Ari game, AA-8 (the deal stays with a dealer who wins or is tenpai, so only
the first hand's dealer can be printed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.domain.errors import IllegalMove, MalformedInput, say
from app.domain.formats import HANDS_PER_CYCLE, Format
from app.domain.hands import PlayerId
from app.domain.log import PlayerRegistered
from app.domain.round_state import SEAT_NAMES, RoundState, SeatName, seated_table
from app.domain.seating import cycles
from app.domain.seats import Seats, dealer

# An Ari Ari game has no fixed number of hands (rule AA-12, dealer repeats AA-8): its sheet
# has this many rows, enough for an East-South game with a few repeats; a longer game goes
# on the back of the sheet.
ARIARI_ROWS = 16


@dataclass(frozen=True)
class SheetPlayer:
    player: PlayerId
    name: str
    country: str | None
    seat: SeatName  # at the segment's start (rule SE-5)
    local_name: str | None = None  # the name in the player's own script (issue 17)


@dataclass(frozen=True)
class SheetHand:
    hand: int  # 1-based within the segment
    cycle: int  # 1-based within the segment (rule FM-7: 4 hands a cycle)
    dealer: PlayerId | None  # None where the rules leave it to the table (SE-9 dice, AA-8)
    seats: Seats | None  # the seats of the hand's cycle, east first; None where not known yet


@dataclass(frozen=True)
class ScoreSheet:
    round: int
    segment: int
    table: int
    group: str  # round 1's group (rule FM-2); "" otherwise
    segment_kind: str  # "half", "quarter", "session" or "game"
    ariari: bool
    players: tuple[SheetPlayer, SheetPlayer, SheetPlayer, SheetPlayer]  # east, south, west, north
    hands: tuple[SheetHand, ...]
    entered: tuple[int, ...]  # the hands the log holds already (a tablet sent them)
    min_value: int  # rule HS-3
    max_value: int

    @property
    def code(self) -> str:
        """What names the sheet to the scorer (printed beside its QR code): round, segment
        and table."""
        return f"{self.round}-{self.segment}-{self.table}"


def score_sheets(
    fmt: Format,
    state: RoundState,
    players: Mapping[PlayerId, PlayerRegistered],
    segment: int | None = None,
) -> tuple[ScoreSheet, ...]:
    """Every table's sheet of a round's segment (or of all its segments), by segment then
    table. A segment needs its seating: a round not drawn yet has no sheets."""
    round_format = state.format
    if segment is not None and not 1 <= segment <= round_format.segments:
        raise MalformedInput(
            "FM-1",
            "segment",
            say(
                "round {round} has segments 1 to {segments}",
                round=state.number,
                segments=round_format.segments,
            ),
        )
    keys = sorted(key for key in state.tables if segment is None or key[0] == segment)
    if not keys:
        raise IllegalMove(
            "SE-1",
            "round" if segment is None else "segment",
            say("round {round} has no seating yet: draw it first", round=state.number)
            if segment is None
            else say(
                "segment {segment} of round {round} has no seating yet",
                segment=segment,
                round=state.number,
            ),
        )
    return tuple(
        score_sheet(fmt, state, players, seated_segment, table) for seated_segment, table in keys
    )


def score_sheet(
    fmt: Format,
    state: RoundState,
    players: Mapping[PlayerId, PlayerRegistered],
    segment: int,
    table_number: int,
) -> ScoreSheet:
    """One table's sheet for one segment: its seats, and a row per planned hand with the
    dealer the rules name for it."""
    table = seated_table(state, segment, table_number)  # rule SE-1
    seated = tuple(
        SheetPlayer(
            player=player,
            name=players[player].name,
            country=players[player].country,
            seat=SEAT_NAMES[index],
            local_name=players[player].local_name,
        )
        for index, player in enumerate(table.seats)
    )
    ariari = fmt.game is not None
    if ariari:
        # rule AA-8: the deal passes only when the dealer neither wins nor is tenpai, so
        # only the first hand's dealer (the starting East, rule AA-1) is known in advance.
        hands = tuple(
            SheetHand(
                hand=number,
                cycle=1,
                dealer=table.seats[0] if number == 1 else None,
                seats=table.seats if number == 1 else None,
            )
            for number in range(1, ARIARI_ROWS + 1)
        )
    else:
        by_cycle = cycles(state, segment, table_number)  # rules SE-6 to SE-9
        hands = tuple(
            SheetHand(
                hand=number,
                cycle=(number - 1) // HANDS_PER_CYCLE + 1,
                dealer=dealer(by_cycle, number),  # rule FM-7
                seats=by_cycle[(number - 1) // HANDS_PER_CYCLE],
            )
            for number in range(1, state.format.hands_per_segment + 1)
        )
    return ScoreSheet(
        round=state.number,
        segment=segment,
        table=table_number,
        group=table.group,
        segment_kind=state.format.segment_kind,
        ariari=ariari,
        players=(seated[0], seated[1], seated[2], seated[3]),
        hands=hands,
        entered=tuple(sorted(table.hands)),
        min_value=fmt.min_value,
        max_value=fmt.max_value,
    )
