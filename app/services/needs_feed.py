"""The `needs` feed (issue 18, part 1) for the vision mixer: the players either side of the
cut, each with what the next hand at their table would have to be (app/read/needs.py, the
view the player's page, the hall and the overlay's bubble show too).

Columns (a flat row, as every feed): the standing's (Position ... To cut exact), then
- Table, Hands left: where the player is playing now and the hands their segment has left
  (null in an Ari Ari round: a game ends by its rotation, rule AA-12, not by a count);
- Needs: `over the line`, `can reach` (below it, and one hand can lift them), `out of reach`
  (no value up to the maximum does), `no hand left` (their segment is over, or they are not
  seated now);
- Needs self-draw, Needs discard: below the line, the smallest self-draw, and the smallest
  discard win from the opponent whose discard lifts them soonest (rules ST-3, HS-2, HS-3);
- Can lose self-draw, Can lose discard: above the line, the biggest opponent's self-draw they
  can pay, and the biggest hand they can discard, and stay over it; null when no value up to
  the maximum drops them.
In an Ari Ari round the values are the hand's worth in points (rule AA-22).
"""

from __future__ import annotations

from app.read.needs import NeedsView

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


def needs_columns(view: NeedsView | None) -> dict[str, Value]:
    """The feed's columns of a player's needs (all null where the round has no cut)."""
    if view is None:
        return dict.fromkeys(COLUMNS_AFTER_STANDING)
    return {
        "Table": view["table"],
        "Hands left": view["hands_left"],
        "Needs": view["needs"],
        "Needs self-draw": view["self_draw"],
        "Needs discard": view["discard"],
        "Can lose self-draw": view["lose_self_draw"],
        "Can lose discard": view["lose_discard"],
    }
