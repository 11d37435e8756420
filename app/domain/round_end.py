"""A round's end: its final standings, the cut and who carries what into the next round.

Rules: FM-6 (fewer advance than the field), ST-5 (a draw seed where the tie-break leaves
players level at the cut), SC-3 (the carry-over rate), and AA-12 (an Ari Ari game has not
played out until it ends): a round with unfinished tables needs the organizer's
confirmation, which the server asks for with `RoundUnfinished`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from app.domain.errors import IllegalMove, MalformedInput, Say, say
from app.domain.formats import Format
from app.domain.log import RoundEnded
from app.domain.round_state import RoundState
from app.domain.standings import Standings, rank_round


@dataclass(frozen=True)
class UnfinishedTable:
    """A table of a round that has not played its segment out: fewer hands than the
    segment's count (WSOM), or a game that has not ended (Ari Ari, rule AA-12)."""

    group: str  # "" when the round is not played in groups
    segment: int
    table: int
    hands: int
    planned: int | None  # None for an Ari Ari game, which ends by its rules

    def describe(self) -> Say:
        where = {"table": self.table, "segment": self.segment, "group": self.group}
        # Each case its own sentence: a translation orders the words its own way.
        if self.planned is None:
            if self.group:
                return say(
                    "table {table}, segment {segment} of group {group}: its game has not ended "
                    "({hands} hands)",
                    hands=self.hands,
                    **where,
                )
            return say(
                "table {table}, segment {segment}: its game has not ended ({hands} hands)",
                table=self.table,
                segment=self.segment,
                hands=self.hands,
            )
        if self.group:
            return say(
                "table {table}, segment {segment} of group {group}: {hands} of {planned} hands",
                hands=self.hands,
                planned=self.planned,
                **where,
            )
        return say(
            "table {table}, segment {segment}: {hands} of {planned} hands",
            table=self.table,
            segment=self.segment,
            hands=self.hands,
            planned=self.planned,
        )


class RoundUnfinished(IllegalMove):
    """A round end asked for while tables have not played their segments out: it needs the
    organizer's confirmation and a reason (the `round_end` line's `reason`)."""

    def __init__(self, round_number: int, rule: str, tables: Sequence[UnfinishedTable]) -> None:
        shown = [table.describe() for table in tables[:_LISTED_IN_A_MESSAGE]]
        # The tables' descriptions each said in the reader's language, joined as in English
        # (a list of places, not a sentence: its template is not in the catalog).
        places = {f"table{n}": table for n, table in enumerate(shown)}
        listed = Say(_list_of(len(shown)), **places)
        more = len(tables) - _LISTED_IN_A_MESSAGE
        if not tables:
            message = say(
                "round {round} has no seated table: nobody has played it; ending it ranks those "
                "players on what they have played. Confirm with a reason to end the round anyway",
                round=round_number,
            )
        elif more > 0:
            message = say(
                "round {round} has {count} unplayed or unfinished table(s): {listed} and {more} "
                "more; ending it ranks those players on what they have played. Confirm with a "
                "reason to end the round anyway",
                round=round_number,
                count=len(tables),
                listed=listed,
                more=more,
            )
        else:
            message = say(
                "round {round} has {count} unplayed or unfinished table(s): {listed}; ending it "
                "ranks those players on what they have played. Confirm with a reason to end the "
                "round anyway",
                round=round_number,
                count=len(tables),
                listed=listed,
            )
        super().__init__(rule, "confirm_unfinished", message)
        self.round = round_number
        self.tables = tuple(tables)


_LISTED_IN_A_MESSAGE = 8
_LIST_SEPARATOR = "; "


def _list_of(count: int) -> str:
    """ "{table0}; {table1}; ...": a template of places joined as English joins them."""
    return _LIST_SEPARATOR.join(f"{{table{n}}}" for n in range(count))


def unfinished_tables(state: RoundState) -> list[UnfinishedTable]:
    """Every table of the round, in every segment whether closed or still open, that has
    played fewer hands than its segment's count (WSOM), or whose game has not ended
    (Ari Ari, rule AA-12): what a round end lists and asks the organizer to confirm."""
    planned = state.format.hands_per_segment
    out = []
    for (segment, number), table in sorted(state.tables.items()):
        if table.game is not None:
            if table.game.ended is None:
                out.append(UnfinishedTable(table.group, segment, number, table.last_hand, None))
        elif len(table.hands) < planned:
            out.append(UnfinishedTable(table.group, segment, number, len(table.hands), planned))
    return out


def end_round(fmt: Format, state: RoundState, event: RoundEnded) -> RoundState | None:
    """Close the round on its final standings; the next round, which its players who
    advanced open with their carry-in, or None after the final."""
    advance = state.format.advance
    if advance is not None and len(state.field) <= advance:
        # rule FM-6: an advance count must be smaller than the field
        raise IllegalMove(
            "FM-6",
            "round",
            say(
                "round {round} advances {advance} but its field is only {field}",
                round=event.round,
                advance=advance,
                field=len(state.field),
            ),
        )
    standings = rank_round(replace(state.scores(), ended=True, draw_seed=event.draw_seed))
    tie = standings.cut.tie if standings.cut else None
    if tie is not None and tie.draw_pending:
        names = ", ".join(map(str, tie.draw_among))
        # rule ST-5: a draw decides who advances among players level after the tie-break
        raise MalformedInput(
            "ST-5",
            "draw_seed",
            say(
                "players {names} are level after the tie-break at the cut; a draw_seed is "
                "needed for {draw_places} place(s)",
                names=names,
                draw_places=tie.draw_places,
            ),
        )
    state.ended = event
    state.standings_at_end = standings
    if advance is None:
        return None
    return _next_round(fmt, state, standings)


def _next_round(fmt: Format, state: RoundState, standings: Standings) -> RoundState:
    rate = state.format.carry_over_rate
    carry_in = {
        row.player: row.total * rate for row in standings.rows if row.status == "advanced"
    }  # rule SC-3
    return RoundState(fmt.round(state.number + 1), list(carry_in), carry_in)
