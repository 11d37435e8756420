"""Final ranking and prize money (rules PR-1 to PR-3, ST-6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from app.domain.hands import PlayerId
from app.domain.standings import Standings


@dataclass(frozen=True)
class FinalPlace:
    player: PlayerId
    rank: int
    prize: Fraction
    round: int  # the round the player was eliminated in, or the final
    total: Fraction  # their total in that round (rule PR-1)


def final_ranking(
    ended: Sequence[Standings],
    advances: Mapping[int, int | None],
    prizes: Sequence[Fraction],
) -> list[FinalPlace]:
    """Every player ranked so far: finalists once the final has ended, and the players
    eliminated in each round that has ended (their place is known as soon as it ends)."""
    places: list[FinalPlace] = []
    for standings in sorted(ended, key=lambda s: s.round):
        advance = advances.get(standings.round)
        # rule PR-1: players eliminated in round r rank below all who played round r+1,
        # which is exactly the A players who advanced from it
        above = advance or 0
        ranked = [row for row in standings.rows if row.status in ("eliminated", "finished")]
        ranked.sort(key=lambda row: (-row.total_scaled, str(row.player)))
        rank = 0
        previous: int | None = None
        for position, row in enumerate(ranked, start=1):
            if row.total_scaled != previous:  # rules ST-6, PR-3: equal totals share the rank
                rank = position
                previous = row.total_scaled
            places.append(
                FinalPlace(row.player, above + rank, Fraction(0), standings.round, row.total)
            )
    places.sort(key=lambda p: (p.rank, str(p.player)))
    return _with_prizes(places, prizes)


def _with_prizes(places: list[FinalPlace], prizes: Sequence[Fraction]) -> list[FinalPlace]:
    """rule PR-3: players sharing a rank split the money of the places they occupy together."""
    sharing: dict[int, int] = {}
    for place in places:
        sharing[place.rank] = sharing.get(place.rank, 0) + 1
    out = []
    for place in places:
        count = sharing[place.rank]
        money = sum(prizes[place.rank - 1 : place.rank - 1 + count], Fraction(0))  # rule PR-2
        out.append(FinalPlace(place.player, place.rank, money / count, place.round, place.total))
    return out
