"""What a player needs, as every reader shows it (issue 18, part 1): the `needs` feed, the
`player:ID` channel (and so the player's page), the hall's cut page and the overlay's bubble
read this one view, so none of them can disagree with another or with the standings.

The answer is app/domain/needs.py's, for the next hand at the table where the player sits
now (the one whose clock is in the player's segment), with every ranked player's total as
the standings have it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypedDict

from app.domain import ariari
from app.domain.hands import PlayerId
from app.domain.needs import FieldTotals, Needs, ariari_needs, needs
from app.domain.tournament import Tournament

Verdict = Literal["over the line", "can reach", "out of reach", "no hand left"]


class NeedsView(TypedDict):
    """What the next hand at the player's table would have to be (columns of the `needs`
    feed, app/services/needs_feed.py). Values are WSOM hand values (rule HS-2), or an Ari Ari
    hand's worth in points (rule AA-22); each is the worst case over the opponents."""

    table: int | None
    hands_left: int | None  # None in an Ari Ari game: it ends by its rotation (rule AA-12)
    needs: Verdict
    self_draw: int | None  # below the line: the smallest self-draw that lifts them over it
    discard: int | None  # ... and the smallest discard win, from the kindest opponent
    lose_self_draw: int | None  # above it: the biggest opponent's self-draw they can pay
    lose_discard: int | None  # ... and the biggest hand they can discard; None: no limit


def _least(values: Mapping[PlayerId, int | None] | None) -> int | None:
    """The worst case over the opponents: the smallest stated value; None only when every
    one is None (safe against all, or no discard lifts)."""
    stated = [value for value in (values or {}).values() if value is not None]
    return min(stated) if stated else None


def needs_view(
    tournament: Tournament,
    player: PlayerId,
    field: FieldTotals,
    seat: tuple[int, int] | None,
) -> NeedsView | None:
    """What `player` needs, seated now at (segment, table) `seat`; None when the round has
    no cut (the final, rule ST-3) or the player is not ranked in it (a substitute, FM-9)."""
    state = tournament.current_round
    advance = state.format.advance
    if advance is None or player not in field.totals:
        return None
    table = None if seat is None else state.tables.get(seat)
    planned = state.format.hands_per_segment
    following = None if table is None else table.next_hand(planned)
    view: NeedsView = {
        "table": None if seat is None else seat[1],
        "hands_left": None,
        "needs": "no hand left",
        "self_draw": None,
        "discard": None,
        "lose_self_draw": None,
        "lose_discard": None,
    }
    if table is None or following is None:
        return view
    fmt = tournament.format
    answer: Needs
    if fmt.ruleset == "ariari":
        assert fmt.game is not None
        game = table.game or ariari.new_game(table.seats, fmt.game)
        answer = ariari_needs(field, player, game, advance)
    else:
        view["hands_left"] = planned - following + 1
        answer = needs(
            field, player, table.seats, advance, min_value=fmt.min_value, max_value=fmt.max_value
        )
    if answer.above:
        view["needs"] = "over the line"
        view["lose_self_draw"] = _least(answer.lose_self_draw)
        view["lose_discard"] = _least(answer.lose_discard)
    elif answer.self_draw is None and _least(answer.discard) is None:
        view["needs"] = "out of reach"
    else:
        view["needs"] = "can reach"
        view["self_draw"] = answer.self_draw
        view["discard"] = _least(answer.discard)
    return view
