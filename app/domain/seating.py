"""A round's seating: its draw, the seats of each table's segment and cycles, and who
deals each hand.

Rules: SE-1 (the seeded draw, fixed once play begins), SE-5 (seats fixed once a table has
hands), SE-8 and SE-9 (seats at a cycle's start), FM-2 (round 1's groups play apart),
FM-7 (who deals), FM-9 (4 different players a table, one table a player) and AA-1, AA-8
(an Ari Ari game starts at its seating; its dealer follows the game).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.domain.ariari import game_dealer
from app.domain.draw import PLAYERS_PER_TABLE, draw_round, unfilled_tables
from app.domain.errors import IllegalMove, MalformedInput, RuleViolation, say
from app.domain.formats import Format
from app.domain.hand_entry import table_play
from app.domain.hands import PlayerId
from app.domain.log import PlayerRegistered, SeatingRecorded
from app.domain.round_state import (
    RoundState,
    TableKey,
    TableSegment,
    check_in_round,
    check_segment,
    first_play,
    seated_table,
)
from app.domain.seats import Seats, cycle_seats, dealer


def seat(
    fmt: Format,
    players: Mapping[PlayerId, PlayerRegistered],
    state: RoundState,
    event: SeatingRecorded,
) -> None:
    """Seat a table for a segment (or, with a cycle after the first, for that cycle)."""
    check_segment(state.format, event.segment)
    if len(set(event.seats)) != 4:
        raise MalformedInput("FM-9", "seats", say("a table seats 4 different players"))  # rule FM-9
    groups = {
        check_in_round(players, state, player, f"seats[{index}]").group
        for index, player in enumerate(event.seats)
    }
    if state.number == 1 and len(groups) > 1:
        # rule FM-2: round 1's groups play apart, each numbering its own segments
        raise MalformedInput("FM-2", "seats", say("in round 1 a table seats players of one group"))
    # A round not played in groups (every round after 1, and round 1 of a format such as
    # Ari Ari's) keys its tables, schedules and closed segments by no group at all.
    group = groups.pop() if state.format.groups > 1 else ""
    key = (event.segment, event.table)
    if event.cycle is not None and event.cycle > 1:
        _seat_cycle(state, event, key)
        return
    owner = state.table_group.get(event.table)
    if owner is not None and owner != group:
        raise MalformedInput(
            "CONTRACT §1",
            "table",
            say(
                "table {table} belongs to group {owner} in this round",
                table=event.table,
                owner=owner,
            ),
        )
    existing = state.tables.get(key)
    if existing is not None and existing.hands:
        # rule SE-5: the seats drawn at a segment's start hold for its hands
        raise IllegalMove(
            "SE-5",
            "seats",
            say("table {table} has hands in this segment; its seats are fixed", table=event.table),
        )
    for index, player in enumerate(event.seats):
        table = state.seat_of.get((event.segment, player))
        if table is not None and table != event.table:
            # rule FM-9: a player sits at one table in a segment
            raise IllegalMove(
                "FM-9",
                f"seats[{index}]",
                say(
                    "player {player} is already seated at table {table} in segment {segment}",
                    player=repr(player),
                    table=table,
                    segment=event.segment,
                ),
            )
    if existing is not None:
        for player in existing.seats:
            del state.seat_of[(event.segment, player)]
    for player in event.seats:
        state.seat_of[(event.segment, player)] = event.table
    state.table_group[event.table] = group
    seated = TableSegment(group, event.seats)
    if existing is None and key in state.carried_rulings:
        seated.extension, seated.play_all = state.carried_rulings.pop(key)
    # an Ari Ari table's game starts at its seating (rule AA-1)
    seated.replay(table_play(fmt, seated, {}, 1), state)
    state.tables[key] = seated


def _seat_cycle(state: RoundState, event: SeatingRecorded, key: TableKey) -> None:
    """rules SE-8, SE-9: seats at a cycle's start, the same four players."""
    table = state.tables.get(key)
    if table is None:
        raise IllegalMove(
            "SE-8",
            "cycle",
            say(
                "table {table} has no seating for segment {segment}",
                table=event.table,
                segment=event.segment,
            ),
        )
    cycles = state.format.hands_per_segment // 4
    if event.cycle is not None and event.cycle > cycles:
        # rule FM-7: a cycle is 4 hands
        raise MalformedInput(
            "FM-7",
            "cycle",
            say(
                "a {segment_kind} has {cycles} cycles",
                segment_kind=state.format.segment_word,
                cycles=cycles,
            ),
        )
    if set(event.seats) != set(table.seats):
        raise MalformedInput("SE-8", "seats", say("a new cycle reseats the same four players"))
    assert event.cycle is not None
    table.cycle_seats[event.cycle] = event.seats


def record_draw(state: RoundState, groups: Mapping[str, Sequence[PlayerId]], seed: str) -> None:
    """rule SE-1: the round's draw from its seed; a redraw before play replaces it."""
    if state.draw is not None:
        fixed = draw_fixed(state)
        if fixed is not None:
            raise fixed
        _supersede_draw(state)
    state.draw = draw_round(state.format, groups, seed)


def draw_fixed(state: RoundState) -> IllegalMove | None:
    """rule SE-1: once play has begun a round's draw stands (its seed reproduces it)."""
    started = first_play(state)
    if state.draw is None or started is None:
        return None
    return IllegalMove(
        "SE-1",
        "round",
        say(
            "round {number} has started ({started}); its draw (seed {seed}) is fixed",
            number=state.number,
            started=started,
            seed=repr(state.draw.seed),
        ),
    )


def _supersede_draw(state: RoundState) -> None:
    """A redraw before play: the earlier draw and every seating of the round give way to
    the new draw's seatings, which follow it in the log. The log keeps the old lines."""
    assert state.draw is not None
    state.superseded_draws.append(state.draw)
    for key, table in state.tables.items():
        if table.extension or table.play_all:
            state.carried_rulings[key] = (table.extension, table.play_all)
    state.tables.clear()
    state.seat_of.clear()
    state.table_group.clear()


def draw_refusal(
    state: RoundState, groups: Mapping[str, Sequence[PlayerId]]
) -> RuleViolation | None:
    """Why a round that has begun cannot be drawn (or redrawn) now, or None if it can."""
    if state.ended is not None:
        return IllegalMove("SE-1", "round", say("round {number} has ended", number=state.number))
    fixed = draw_fixed(state)
    if fixed is not None:
        return fixed
    seated = sum(len(players) for players in groups.values())
    if seated < PLAYERS_PER_TABLE:
        # rule FM-9: every table seats exactly 4
        return IllegalMove(
            "FM-9",
            "players",
            say(
                "round {number} has {seated} registered player(s); a draw needs at least one "
                "full table of {players_per_table}: register the players first",
                number=state.number,
                seated=seated,
                players_per_table=PLAYERS_PER_TABLE,
            ),
        )
    advance = state.format.advance
    if advance is not None and len(state.field) <= advance:
        # rule FM-6: an advance count must be smaller than the field
        return IllegalMove(
            "FM-6",
            "players",
            say(
                "round {number} advances {advance}, so its field needs more than {advance} "
                "players (substitutes do not count); {field} are registered: register more "
                "players or choose a format that advances fewer",
                number=state.number,
                advance=advance,
                field=len(state.field),
            ),
        )
    return unfilled_tables(state.format, groups)


def draw_deviations(state: RoundState) -> list[tuple[int, PlayerId, int | None, int]]:
    """Seatings that differ from the recorded draw (rule SE-1): (segment, player, drawn
    table or None, seated table)."""
    if state.draw is None:
        return []
    drawn = state.draw.table_of()
    return sorted(
        (
            (segment, player, drawn.get((segment, player)), table)
            for (segment, player), table in state.seat_of.items()
            if drawn.get((segment, player)) != table
        ),
        key=lambda d: (d[0], str(d[1])),
    )


def cycles(state: RoundState, segment: int, table_number: int) -> tuple[Seats | None, ...]:
    """The seats of every cycle of one table's segment (rules SE-6 to SE-9), from the
    recorded seatings; None where the rules need a seating nobody recorded yet."""
    table = seated_table(state, segment, table_number)
    first = state.tables.get((1, table_number))
    return cycle_seats(
        state.format,
        segment,
        table.seats,
        table.cycle_seats,
        round_start=first.seats if first is not None else None,
    )


def hand_dealer(
    fmt: Format, state: RoundState, segment: int, table_number: int, hand: int
) -> PlayerId | None:
    """Who deals `hand` of a table's segment (rule FM-7; rule AA-8 in an Ari Ari game,
    where None means the game has ended)."""
    if fmt.game is not None:
        table = seated_table(state, segment, table_number)
        return game_dealer(table.game, table.seats, hand)
    return dealer(cycles(state, segment, table_number), hand)


def next_deal(
    fmt: Format, state: RoundState, segment: int, table_number: int
) -> tuple[int | None, PlayerId | None]:
    """A table's next hand and who deals it; (None, None) when its segment has no more."""
    next_hand = seated_table(state, segment, table_number).next_hand(state.format.hands_per_segment)
    if next_hand is None:
        return None, None
    return next_hand, hand_dealer(fmt, state, segment, table_number, next_hand)
