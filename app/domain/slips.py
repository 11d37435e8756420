"""Seating slips: each player's table in every segment of a round (rule SE-4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.domain.formats import RoundFormat
from app.domain.hands import PlayerId
from app.domain.log import PlayerRegistered


@dataclass(frozen=True)
class Slip:
    player: PlayerId
    name: str
    country: str | None
    group: str | None  # a round played in groups only: round 1 (rule FM-2)
    substitute: bool
    round: int
    segment_kind: str  # "half", "quarter", "session" or "game" (Ari Ari)
    tables: tuple[int | None, ...]  # one per segment; None where no seat is known


def seating_slips(
    round_format: RoundFormat,
    players: Mapping[PlayerId, PlayerRegistered],
    seat_of: Mapping[tuple[int, PlayerId], int],
) -> tuple[Slip, ...]:
    """One slip per player seated in the round, ordered by first table then name, the
    order in which staff hand them out."""
    seated = {player for (_, player) in seat_of}
    slips = []
    for player in seated:
        registered = players[player]
        tables = tuple(
            seat_of.get((segment, player)) for segment in range(1, round_format.segments + 1)
        )
        slips.append(
            Slip(
                player=player,
                name=registered.name,
                country=registered.country,
                # rule FM-2: only a round played in groups (round 1, not Ari Ari's) names one
                group=registered.group if round_format.groups > 1 else None,
                substitute=registered.substitute,
                round=round_format.number,
                segment_kind=round_format.segment_kind,
                tables=tables,
            )
        )
    slips.sort(key=lambda s: (s.tables[0] or 0, s.name, str(s.player)))
    return tuple(slips)
