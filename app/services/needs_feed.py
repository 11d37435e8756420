"""The `needs` feed (issue 18, part 1) for the vision mixer: the players either side of the
cut, each with what the next hand at their table would have to be (app/domain/needs.py).

Columns (a flat row, as every feed): the standing's (Position ... To cut exact), then
- Table, Hands left: where the player is playing now and the hands their segment has left;
- Needs: `over the line`, `can reach` (below it, and one hand can lift them), `out of reach`
  (no value up to the maximum does), `no hand left` (their segment is over, or they are not
  seated now); in an Ari Ari round the values are the hand's worth in points (rule AA-22) and
  Hands left is null (a game ends by its rotation, rule AA-12, not by a count);
- Needs self-draw, Needs discard: below the line, the smallest self-draw, and the smallest
  discard win from the opponent whose discard lifts them soonest (rules ST-3, HS-2, HS-3);
- Can lose self-draw, Can lose discard: above the line, the biggest opponent's self-draw they
  can pay, and the biggest hand they can discard, and stay over it; null when no value up to
  the maximum drops them.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from app.domain import ariari
from app.domain.hands import PlayerId
from app.domain.needs import ariari_needs, needs
from app.domain.replay import StandingRowData
from app.domain.tournament import Tournament
from app.read.views import SeatInSegment

COLUMNS_AFTER_STANDING = (
    "Table",
    "Hands left",
    "Needs",
    "Needs self-draw",
    "Needs discard",
    "Can lose self-draw",
    "Can lose discard",
)

Value = str | int | bool | None


def _least(values: Mapping[PlayerId, int | None] | None) -> int | None:
    """The worst case over the opponents: the smallest stated value; None only when every
    one is None (safe against all, or no discard lifts)."""
    stated = [value for value in (values or {}).values() if value is not None]
    return min(stated) if stated else None


def needs_columns(
    tournament: Tournament,
    row: StandingRowData,
    totals: Mapping[PlayerId, Fraction],
    seat: SeatInSegment | None,
) -> dict[str, Value]:
    """The needs of the player of `row`, seated at `seat` now (feeds.current_seat), with
    every ranked player's total as it stands (`totals`, made once for all the rows)."""
    empty: dict[str, Value] = dict.fromkeys(COLUMNS_AFTER_STANDING)
    state = tournament.current_round
    advance = state.format.advance
    if advance is None:
        return empty
    player = tournament.player_named(str(row["player"]))
    table = None if seat is None else state.tables.get((seat["segment"], seat["table"]))
    planned = state.format.hands_per_segment
    following = None if table is None else table.next_hand(planned)
    if player is None or seat is None or table is None or following is None:
        return {**empty, "Table": None if seat is None else seat["table"], "Needs": "no hand left"}
    fmt = tournament.format
    if fmt.ruleset == "ariari":
        assert fmt.game is not None
        game = table.game or ariari.new_game(table.seats, fmt.game)
        answer = ariari_needs(totals, player, game, advance)
    else:
        answer = needs(
            totals, player, table.seats, advance, min_value=fmt.min_value, max_value=fmt.max_value
        )
    columns: dict[str, Value] = {
        **empty,
        "Table": seat["table"],
        "Hands left": None if fmt.ruleset == "ariari" else planned - following + 1,
    }
    if answer.above:
        columns["Needs"] = "over the line"
        columns["Can lose self-draw"] = _least(answer.lose_self_draw)
        columns["Can lose discard"] = _least(answer.lose_discard)
    elif answer.self_draw is None and _least(answer.discard) is None:
        columns["Needs"] = "out of reach"
    else:
        columns["Needs"] = "can reach"
        columns["Needs self-draw"] = answer.self_draw
        columns["Needs discard"] = _least(answer.discard)
    return columns
