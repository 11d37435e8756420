"""The `stats` channel's state (issue 18, part 2): the story of the session as JSON, the
same for the live channel, the `stats` feed and the pages that show it.

Built from app/domain/story.py at most TOP entries a list, so a change (a replace, as the
table and player channels send) stays a few kilobytes whatever the size of the field. The
players a list names come once, with their names, under `players`.
"""

from __future__ import annotations

from typing import TypedDict

from app.domain.hands import PlayerId
from app.domain.numbers import exact, shown
from app.domain.story import TOP, BigHand, Counts, Mover, Story, WinKind, story
from app.domain.tournament import Tournament


class BigHandData(TypedDict):
    player: PlayerId
    value: int  # rule HS-4 (AA-22 in an Ari Ari round)
    kind: WinKind
    discarder: PlayerId | None
    segment: int
    table: int
    hand: int


class MoverData(TypedDict):
    player: PlayerId
    table: int
    rank_before: int  # rule ST-2, before the segment's hands
    rank: int
    change: int  # the points of the segment's hands
    total: str  # exact (rule SC-4)
    shown: str  # 2 decimals, rounded down (rule SC-5)


class CrossingData(TypedDict):
    player: PlayerId
    up: bool  # above the cut line now (rule ST-3), below it before the last hand
    position_before: int
    position: int
    total: str
    shown: str


class LeaderData(TypedDict):
    table: int
    segment: int
    player: PlayerId
    points: int  # in the segment's hands at the table
    hands: int
    shared: bool


class CountsData(TypedDict):
    hands: int
    self_draws: int
    discards: int
    draws: int
    others: int


class HandRef(TypedDict):
    segment: int
    table: int
    hand: int


class PlayerName(TypedDict):
    name: str
    local_name: str | None
    country: str | None


class ScopedHands(TypedDict):
    round: list[BigHandData]
    segment: list[BigHandData]


class ScopedCounts(TypedDict):
    round: CountsData
    segment: CountsData


class StatsState(TypedDict):
    """The `stats` channel: the story of the round being played, TOP entries a list."""

    round: int
    segment: int | None  # the segment of the round's last hand; None before the first
    group: str | None  # round 1: that segment's group (rule FM-2)
    last_hand: HandRef | None
    hands: ScopedHands  # the biggest first
    climbers: list[MoverData]
    fallers: list[MoverData]
    crossed: list[CrossingData]  # up first, then down
    leaders: list[LeaderData]  # each table's leader in the segment, the biggest lead first
    counts: ScopedCounts
    players: dict[str, PlayerName]  # everyone the lists name, by id


def _counts(counts: Counts) -> CountsData:
    return {
        "hands": counts.hands,
        "self_draws": counts.self_draws,
        "discards": counts.discards,
        "draws": counts.draws,
        "others": counts.others,
    }


def stats_state(tournament: Tournament, top: int = TOP) -> StatsState:
    """The story of the round being played, TOP entries a list."""
    return stats_of(tournament, story(tournament, top))


def stats_of(tournament: Tournament, told: Story) -> StatsState:
    named: set[PlayerId] = set()
    for big in (*told.round_hands, *told.segment_hands):
        named.add(big.player)
        if big.discarder is not None:
            named.add(big.discarder)
    named.update(m.player for m in (*told.climbers, *told.fallers))
    named.update(c.player for c in told.crossed)
    named.update(leader.player for leader in told.leaders)
    players: dict[str, PlayerName] = {}
    for player in sorted(named, key=str):
        registered = tournament.players.get(player)
        if registered is not None:
            players[str(player)] = {
                "name": registered.name,
                "local_name": registered.local_name,
                "country": registered.country,
            }
    last = told.last_hand
    return {
        "round": told.round,
        "segment": told.segment,
        "group": told.group,
        "last_hand": None
        if last is None
        else {"segment": last[0], "table": last[1], "hand": last[2]},
        "hands": {
            "round": [_big(big) for big in told.round_hands],
            "segment": [_big(big) for big in told.segment_hands],
        },
        "climbers": [_mover(m) for m in told.climbers],
        "fallers": [_mover(m) for m in told.fallers],
        "crossed": [
            {
                "player": c.player,
                "up": c.up,
                "position_before": c.position_before,
                "position": c.position,
                "total": exact(c.total),
                "shown": shown(c.total),
            }
            for c in told.crossed
        ],
        "leaders": [
            {
                "table": leader.table,
                "segment": leader.segment,
                "player": leader.player,
                "points": leader.points,
                "hands": leader.hands,
                "shared": leader.shared,
            }
            for leader in told.leaders
        ],
        "counts": {
            "round": _counts(told.round_counts),
            "segment": _counts(told.segment_counts),
        },
        "players": players,
    }


def _big(big: BigHand) -> BigHandData:
    return {
        "player": big.player,
        "value": big.value,
        "kind": big.kind,
        "discarder": big.discarder,
        "segment": big.segment,
        "table": big.table,
        "hand": big.hand,
    }


def _mover(mover: Mover) -> MoverData:
    return {
        "player": mover.player,
        "table": mover.table,
        "rank_before": mover.rank_before,
        "rank": mover.rank,
        "change": mover.change,
        "total": exact(mover.total),
        "shown": shown(mover.total),
    }
