"""Pairs of standings states (before and after a change) for the tests of the standings
channel's changes: the unit property (Python's apply_change) and the browser test (live.js).

`pick(low, high)` chooses an integer in [low, high]: Hypothesis's draw in the property,
random.Random.randint in the browser test. Scores come from a few small values so that equal
totals, shared ranks and ties at the cut (with their tie-break by hands) are common.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

from app.domain.replay import standings_report
from app.domain.standings import RoundScores, Standings, rank_round
from app.read.views import LiveStandings

Pick = Callable[[int, int], int]
State = dict[str, Any]
T = TypeVar("T")


def _scores(
    play: dict[str, int],
    carry_in: dict[str, Fraction],
    hands: dict[str, list[int]],
    advance: int | None,
    ended: bool,
) -> RoundScores:
    return RoundScores(
        round=1,
        advance=advance,
        field=list(play),
        denominator=4,
        carry_in_scaled={p: int(c * 4) for p, c in carry_in.items()},
        play=play,
        winning_values={p: sorted(v, reverse=True) for p, v in hands.items()},
        ended=ended,
    )


def standings_state(
    play: dict[str, int],
    carry_in: dict[str, Fraction],
    hands: dict[str, list[int]],
    advance: int | None,
    ended: bool = False,
) -> State:
    """A standings channel state as a snapshot holds it: the whole report, every row made
    afresh (standings_report, as the API serves it)."""
    return whole_state(rank_round(_scores(play, carry_in, hands, advance, ended)), advance)


def whole_state(standings: Standings, advance: int | None) -> State:
    """The standings channel's state made afresh from a round's standings: the report, its
    rows keyed by player."""
    report = standings_report(standings, advance)
    rows = report.pop("standings")
    return {**report, "rows": {str(row["player"]): row for row in rows}}


def live_standings(
    play: dict[str, int],
    carry_in: dict[str, Fraction],
    hands: dict[str, list[int]],
    advance: int | None,
    ended: bool = False,
) -> LiveStandings:
    """The same state as the live feed holds it (rows made when needed)."""
    return LiveStandings.of(rank_round(_scores(play, carry_in, hands, advance, ended)), advance)


def standings_pair(
    pick: Pick,
    most_players: int = 24,
    build: Callable[..., T] = standings_state,  # type: ignore[assignment]
) -> tuple[T, T]:
    """A round's standings, then the same round after a few hands, penalties, a player
    withdrawn or added: totals change for some players, and many others move. `build` makes
    each state from the scores (standings_state, or a pair of states to compare)."""
    players = [f"P{number:03d}" for number in range(pick(1, most_players))]
    advance = None if pick(0, 3) == 0 else pick(1, len(players))
    play = {p: pick(-2, 2) * 5 for p in players}
    carry_in = {p: Fraction(pick(-2, 2), 4) for p in players if pick(0, 2) == 0}
    hands = {p: [pick(5, 7) for _ in range(pick(0, 2))] for p in players}
    before = build(play, carry_in, hands, advance)

    for _ in range(pick(0, 3)):  # hands and penalties: a few totals change
        player = players[pick(0, len(players) - 1)]
        play[player] += pick(-2, 2) * 5
        if pick(0, 1):
            hands[player] = [*hands[player], pick(5, 7)]  # a new winning hand: the tie-break
    if pick(0, 5) == 0 and len(play) > 1:  # a player leaves the standings
        gone = players[pick(0, len(players) - 1)]
        del play[gone]
        carry_in.pop(gone, None)
    if pick(0, 5) == 0:  # a player joins
        play["P999"] = pick(-2, 2) * 5
        hands["P999"] = []
    field = len(play)
    after_advance = advance if advance is None or advance <= field else field
    ended = pick(0, 4) == 0  # the round ends: every row's status follows its side of the cut
    return before, build(play, carry_in, hands, after_advance, ended)


# A standings row's derived fields (channels.placed_row, live.js placedRow): its total, its
# position, the round's cut and `ended` -> (above_cut, distance, distance_shown, status).
# rule ST-3, exact fractions (SC-4) shown rounded down (SC-5)
PLACED_ROWS: list[tuple[str, int, dict[str, Any] | None, bool, tuple[Any, ...]]] = [
    ("41/4", 2, {"advance": 2, "line_total": "12", "next_total": "10"}, False,
     (True, "1/4", "0.25", "playing")),
    ("-1/8", 3, {"advance": 1, "line_total": "5/2", "next_total": "0"}, False,
     (False, "21/8", "2.62", "playing")),
    ("-1/8", 2, {"advance": 1, "line_total": "5/2", "next_total": "-1/8"}, True,
     (False, "21/8", "2.62", "eliminated")),
    ("3", 1, {"advance": 1, "line_total": "5/2", "next_total": "10/3"}, True,
     (True, "-1/3", "-0.34", "advanced")),
    ("3", 3, {"advance": 4, "line_total": None, "next_total": None}, False,
     (True, None, None, "playing")),
    ("3", 5, None, True, (None, None, None, "finished")),
]  # fmt: skip
