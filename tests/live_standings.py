"""Pairs of standings states (before and after a change) for the tests of the standings
channel's changes: the unit property (Python's apply_change) and the browser test (live.js).

`pick(low, high)` chooses an integer in [low, high]: Hypothesis's draw in the property,
random.Random.randint in the browser test. Scores come from a few small values so that equal
totals, shared ranks and ties at the cut (with their tie-break by hands) are common.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from app.domain.replay import standings_report
from app.domain.standings import RoundScores, rank_round

Pick = Callable[[int, int], int]
State = dict[str, Any]


def standings_state(
    play: dict[str, int],
    carry_in: dict[str, Fraction],
    hands: dict[str, list[int]],
    advance: int | None,
) -> State:
    """A standings channel state, as app.realtime.channels.States builds it."""
    scores = RoundScores(
        round=1,
        advance=advance,
        field=list(play),
        denominator=4,
        carry_in_scaled={p: int(c * 4) for p, c in carry_in.items()},
        play=play,
        winning_values={p: sorted(v, reverse=True) for p, v in hands.items()},
        ended=False,
    )
    report = standings_report(rank_round(scores), advance)
    rows = report.pop("standings")
    return {**report, "rows": {str(row["player"]): row for row in rows}}


def standings_pair(pick: Pick, most_players: int = 24) -> tuple[State, State]:
    """A round's standings, then the same round after a few hands, penalties, a player
    withdrawn or added: totals change for some players, and many others move."""
    players = [f"P{number:03d}" for number in range(pick(1, most_players))]
    advance = None if pick(0, 3) == 0 else pick(1, len(players))
    play = {p: pick(-2, 2) * 5 for p in players}
    carry_in = {p: Fraction(pick(-2, 2), 4) for p in players if pick(0, 2) == 0}
    hands = {p: [pick(5, 7) for _ in range(pick(0, 2))] for p in players}
    before = standings_state(play, carry_in, hands, advance)

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
    return before, standings_state(play, carry_in, hands, after_advance)
