"""What each live channel shows, built from the tournament state, and how two states differ.

Channels (CONTRACT §3): `standings` (the current round, with the cut line and every
player's distance to it), `clocks` (every table's clock as server times and deadlines,
never ticks: rule CL-6), `table:N` (one table of the current round) and `player:ID`.
A state is a plain JSON-able dict; a change is what a client needs to go from one to the
next: the rows that changed and how the order moved (standings), the rows that changed
(clocks), or the whole small state (table, player).
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Mapping
from datetime import datetime
from fractions import Fraction
from typing import Any

from app.domain.log import format_time
from app.domain.numbers import exact, shown
from app.domain.replay import (
    clock_report,
    game_report,
    standing_row,
    standings_header,
)
from app.domain.rulesets import result_to_log
from app.domain.standings import Standing, Standings, distance_to_cut, status_in_round
from app.domain.tournament import SEAT_NAMES, TableSegment, Tournament

# Fields of a clock report that follow from the time alone: a display computes them from
# the server time and the deadline, so they are not sent, and they never make a change.
TICKING = ("server_time", "seconds_left", "seconds_over", "break_seconds_left")
KEYED = {"standings": "rows", "clocks": "tables"}
TIMED = {"clocks", "table"}  # channel kinds whose state changes by time alone (rule CL-6)


def channel_kind(channel: str) -> str:
    return channel.split(":", 1)[0]


MAX_PLAYER_ID = 200  # characters of a player id in a channel name
MAX_CHANNEL_NAME = len("player:") + MAX_PLAYER_ID


def valid_channel(channel: str) -> bool:
    if len(channel) > MAX_CHANNEL_NAME:
        return False
    kind, _, argument = channel.partition(":")
    if kind in KEYED:
        return not argument
    if kind == "table":
        # ASCII digits only, and few of them: int() of thousands of digits is slow or refused
        return argument.isascii() and argument.isdigit() and 0 < int(argument) < 2**31
    return kind == "player" and bool(argument) and len(argument) <= MAX_PLAYER_ID


def in_tournament(tournament: Tournament, channel: str) -> bool:
    """Whether the tournament has what a (valid) channel names: a registered player, a table
    number no higher than its players could fill or its seatings use. The live feed follows
    only these (issue 14), so its work is bounded by the tournament, never by what clients
    make up: a flush computes every followed channel."""
    kind, _, argument = channel.partition(":")
    if kind == "player":
        return tournament.player_named(argument) is not None
    if kind == "table":
        seated = [table for _, table in tournament.current_round.tables]
        most = max([-(-len(tournament.players) // 4), 1, *seated])
        return int(argument) <= most
    return True


Base = tuple[int, int, int, int]  # what a hand can change in a row (LiveStandings.bases)


@dataclasses.dataclass(eq=False)
class LiveStandings:
    """The standings channel's state as the live feed holds it.

    A snapshot is the whole state (`full()`, the same as States.standings()). After a hand,
    most rows change only in what follows from their place (DERIVED), and a change sends none
    of that (standings_moves): so the rows are made only when a snapshot or a change needs
    them, and two states are compared by their order and by each player's `base`, the values
    a hand changes. Made once per version and shared by every client: what it says never
    changes, only the rows it has made so far (`made`) grow.
    """

    header: dict[str, Any]  # round, advance, ended, cut (standings_header)
    standings: Standings
    order: list[str]  # the players by position
    bases: dict[str, Base]  # player -> (carry_in_scaled, play, total_scaled, denominator)
    index: dict[str, int]  # player -> index of their row in standings.rows
    # Rows of the state before, by their Standing: a row whose Standing is the same is reused
    earlier: Mapping[Standing, dict[str, Any]] = dataclasses.field(default_factory=dict)
    made: dict[Standing, dict[str, Any]] = dataclasses.field(default_factory=dict)
    _full: dict[str, Any] | None = None

    @staticmethod
    def of(
        standings: Standings,
        advance: int | None,
        earlier: Mapping[Standing, dict[str, Any]] | None = None,
    ) -> LiveStandings:
        order = [str(row.player) for row in standings.rows]
        return LiveStandings(
            standings_header(standings, advance),
            standings,
            order,
            {
                player: (row.carry_in_scaled, row.play, row.total_scaled, row.denominator)
                for player, row in zip(order, standings.rows, strict=True)
            },
            {player: index for index, player in enumerate(order)},
            earlier if earlier is not None else {},
        )

    def row(self, player: str) -> dict[str, Any] | None:
        index = self.index.get(player)
        if index is None:
            return None
        standing = self.standings.rows[index]
        made = self.made.get(standing)
        if made is None:
            made = self.earlier.get(standing)
            if made is None:
                made = standing_row(standing)
            self.made[standing] = made
        return made

    def full(self) -> dict[str, Any]:
        """The state a snapshot sends (what States.standings() gives)."""
        if self._full is None:
            rows = {player: self.row(player) for player in self.order}
            self._full = {**self.header, "rows": rows}
            self.earlier = {}  # every row is in `made` now
        return self._full


def standings_change(old: LiveStandings, new: LiveStandings) -> dict[str, Any] | None:
    """change() for the feed's standings, without making every row: the same message as
    standings_moves(old.full(), new.full()) (tests/unit/test_live_changes.py holds it to that)."""
    if old.header["round"] != new.header["round"]:
        return {"mode": "replace", "data": new.full()}
    old_bases = old.bases
    rows = {
        player: new.row(player)
        for player, base in new.bases.items()
        if old_bases.get(player) != base
    }
    removed = [player for player in old.order if player not in new.bases]
    moves = _moves_in_order(old.order, new.order, new.bases)
    fields = {k: v for k, v in new.header.items() if k not in old.header or old.header[k] != v}
    if not (rows or removed or moves or fields):
        return None
    return {"mode": "moves", "data": {**fields, "rows": rows, "removed": removed, "moves": moves}}


LiveState = Mapping[str, Any] | LiveStandings  # what the feed holds for a channel


class States:
    """Channel states of one tournament version at one moment. The standings and clocks are
    built once however many table and player channels need them."""

    def __init__(
        self,
        tournament: Tournament,
        now: datetime,
        earlier: Mapping[Standing, dict[str, Any]] | None = None,
    ) -> None:
        self.tournament = tournament
        self.now = now
        self.earlier = earlier  # standings rows made before, by Standing (LiveStandings)
        self._standings: LiveStandings | None = None
        self._clocks: dict[str, dict[str, Any]] | None = None

    def of(self, channel: str) -> dict[str, Any]:
        kind, _, argument = channel.partition(":")
        if kind == "standings":
            return self.standings()
        if kind == "clocks":
            return {"round": self.tournament.current_round.number, "tables": self.clock_rows()}
        if kind == "table":
            return self.table(int(argument))
        return self.player(argument)

    def live(self, channel: str) -> LiveState:
        """The state the live feed holds for a channel: of(channel), but the standings as
        LiveStandings, whose rows are made only when needed."""
        return self.live_standings() if channel == "standings" else self.of(channel)

    def live_standings(self) -> LiveStandings:
        if self._standings is None:
            current = self.tournament.current_round
            self._standings = LiveStandings.of(
                self.tournament.standings(current.number), current.format.advance, self.earlier
            )
        return self._standings

    def standings(self) -> dict[str, Any]:
        return self.live_standings().full()

    def clock_rows(self) -> dict[str, dict[str, Any]]:
        if self._clocks is None:
            self._clocks = {}
            for table_clock in self.tournament.table_clocks(self.now):
                row = clock_report(table_clock)
                for field in TICKING:
                    row.pop(field)
                self._clocks[str(table_clock.table)] = row
        return self._clocks

    def table(self, table: int) -> dict[str, Any]:
        """One table of the current round, in the segment it is playing now (or about to)."""
        tournament = self.tournament
        current = tournament.current_round
        clock = self.clock_rows().get(str(table))
        segments = [  # a lookup per segment: the tablets follow every table, after every hand
            segment
            for segment in range(1, current.format.segments + 1)
            if (segment, table) in current.tables
        ]
        if not segments:
            return {"round": current.number, "table": table, "segment": None}
        segment = clock["segment"] if clock is not None else segments[0]
        seated = current.tables[(segment, table)]
        next_hand, next_dealer = tournament.next_deal(current.number, segment, table)
        state = {
            "round": current.number,
            "table": table,
            "segment": segment,
            "group": seated.group or None,
            "seats": dict(zip(SEAT_NAMES, seated.seats, strict=True)),
            "hands": [
                {
                    "hand": number,
                    "dealer": tournament.dealer(current.number, segment, table, number),
                    "deltas": {str(p): d for p, d in seated.settlements[number].deltas},
                    "value": seated.settlements[number].value,
                    "winner": seated.settlements[number].winner,
                }
                for number in sorted(seated.hands)
            ],
            # every deal recorded in the segment, so a second device at the table knows the
            # next hand is dealt (rule CL-3)
            "deals": [
                {"hand": number, "time": format_time(at)}
                for number, at in sorted(seated.deals.items())
            ],
            "next_hand": next_hand,
            "next_dealer": next_dealer,
            "clock": clock,
        }
        if seated.game is not None:
            _add_game(state, seated, segment, table)
        return state

    def player(self, player_id: str) -> dict[str, Any]:
        """One player in the current round: their standing and where they sit."""
        tournament = self.tournament
        player = tournament.player_named(player_id)
        if player is None:
            return {"player": player_id, "registered": False}
        current = tournament.current_round
        seats = [
            {"segment": segment, "table": table, "seat": seat}
            for segment, table, seat in current.seats_of(player)
        ]
        registered = tournament.players[player]
        return {
            "player": player,
            "registered": True,
            "name": registered.name,
            "country": registered.country,
            "round": current.number,
            "standing": self.live_standings().row(player_id),
            "seats": seats,
            "winning_hands": sorted(current.winning_values.get(player, ()), reverse=True),
        }


def _add_game(state: dict[str, Any], seated: TableSegment, segment: int, table: int) -> None:
    """An Ari Ari table's game for the judge's tablet and the table overlay: the points, the
    dealer, counters and riichi bets of the next hand (rules AA-5, AA-6, AA-8), and of each
    hand played, so that the tablet can review a correction as the server will play it."""
    game = seated.game
    assert game is not None
    passes = 0  # how often the deal has passed before each hand (rule AA-8, for the wind)
    by_number = {}
    for index, played in enumerate(game.hands):
        if index and played.dealer != game.hands[index - 1].dealer:
            passes += 1
        by_number[played.number] = (played, passes)
    if game.hands and game.dealer is not None and game.dealer != game.hands[-1].dealer:
        passes += 1
    for row in state["hands"]:
        played, before = by_number[row["hand"]]
        row |= {
            "counters": played.counters,
            "bets_before": played.bets_before,
            "passes": before,
            "result": result_to_log(seated.hands[row["hand"]].result),
        }
    state["game"] = {
        **game_report(segment, table, game),
        "points": {str(p): points for p, points in game.points},
        "passes": passes,
    }


def change(channel: str, old: LiveState, new: LiveState) -> dict[str, Any] | None:
    """What turns `old` into `new`, or None when nothing changed.

    The standings send `mode: "moves"` (standings_moves); the clocks send only the rows that
    changed (`mode: "patch"`, with `removed` keys) plus their other fields; the others send
    the whole state (`mode: "replace"`). A new round is always a replace: nearly every row
    changes.
    """
    if isinstance(old, LiveStandings) and isinstance(new, LiveStandings):
        return standings_change(old, new)
    if old == new:
        return None
    kind = channel_kind(channel)
    key = KEYED.get(kind)
    if key is None or old.get("round") != new.get("round"):
        return {"mode": "replace", "data": dict(new)}
    if kind == "standings":
        return {"mode": "moves", "data": standings_moves(old, new)}
    old_rows, new_rows = old[key], new[key]
    return {
        "mode": "patch",
        "data": {
            **{k: v for k, v in new.items() if k != key},
            key: {k: v for k, v in new_rows.items() if old_rows.get(k) != v},
            "removed": [k for k in old_rows if k not in new_rows],
        },
    }


def standings_moves(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """A standings change as small as the hand that caused it.

    One hand moves four players, yet every player between a mover's old and new place gets a
    new rank and position: sent row by row, that was about 53 KB for a 1,024-player round.
    And when the hand moves the cut line, every player's distance to it changes: 50 to 145 KB,
    one hand in ten near the line. Rank and position follow from the order and the totals,
    and a row's side of the cut, distance and status from its position, its total and the
    round's `cut` and `ended` (DERIVED), so none of them travels: `rows` holds the rows whose
    other values changed (whole, new ones included), `removed` the rows gone, `moves`
    [player, position] for the fewest players that must be taken out of the held order and
    put back (in that order, positions ascending) to give the new order. The other fields
    (the cut and its tie, `ended`) come only when they changed. apply_change shows how a
    client rebuilds the state; a snapshot is always the whole state.
    """
    old_rows, new_rows = old["rows"], new["rows"]
    return {
        **{k: v for k, v in new.items() if k != "rows" and (k not in old or old[k] != v)},
        "rows": {
            player: row
            for player, row in new_rows.items()
            if player not in old_rows or not _same_apart_from_derived(old_rows[player], row)
        },
        "removed": [player for player in old_rows if player not in new_rows],
        "moves": _moves(old_rows, new_rows),
    }


# What standings_moves leaves to the client: the order gives rank and position (rule ST-2),
# and they with the round's cut and `ended` give the rest (ST-3; placed_row)
DERIVED = ("rank", "position", "above_cut", "distance", "distance_shown", "status")


def _same_apart_from_derived(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    if old == new:
        return True  # most rows, compared at C speed
    return old.keys() == new.keys() and all(
        old[field] == value for field, value in new.items() if field not in DERIVED
    )


def placed_row(
    row: Mapping[str, Any],
    rank: int,
    position: int,
    cut: Mapping[str, Any] | None,
    ended: bool,
) -> dict[str, Any]:
    """A standings row at `position`, its DERIVED fields as rank_round gives them."""
    above: bool | None = None
    distance: Fraction | None = None
    if cut is not None:
        above = position <= cut["advance"]
        line, after = (
            None if cut[key] is None else Fraction(cut[key]) for key in ("line_total", "next_total")
        )
        distance = distance_to_cut(Fraction(row["total"]), above, line, after)
    return {
        **row,
        "rank": rank,
        "position": position,
        "above_cut": above,
        "distance": None if distance is None else exact(distance),
        "distance_shown": None if distance is None else shown(distance),
        "status": status_in_round(ended, above),
    }


def _moves(old_rows: Mapping[str, Any], new_rows: Mapping[str, Any]) -> list[list[Any]]:
    """[player, new position] for every player outside the longest run of players that keep
    their order: the others stay where they are relative to each other."""
    return _moves_in_order(_in_order(old_rows), _in_order(new_rows), new_rows)


def _moves_in_order(
    old_order: list[str], new_order: list[str], still_there: Mapping[str, Any]
) -> list[list[Any]]:
    """_moves, from the players in their old and their new order."""
    kept = [p for p in old_order if p in still_there]
    old_index = {player: index for index, player in enumerate(kept)}
    staying = _longest_increasing(
        [player for player in new_order if player in old_index], old_index.__getitem__
    )
    return [
        [player, position]
        for position, player in enumerate(new_order, start=1)
        if player not in staying
    ]


def _in_order(rows: Mapping[str, Any]) -> list[str]:
    """The players by position, placed rather than sorted (positions run from 1 to N)."""
    by_position = [""] * len(rows)
    for player, row in rows.items():
        by_position[row["position"] - 1] = player
    return by_position


def _longest_increasing(players: list[str], index: Callable[[str], int]) -> set[str]:
    """The players of a longest subsequence whose `index` increases (patience sorting)."""
    tails: list[int] = []  # tails[k]: index of the smallest tail of a run of length k + 1
    tail_at: list[int] = []  # position in `players` of that tail
    before: list[int] = [-1] * len(players)
    for at, player in enumerate(players):
        value = index(player)
        k = bisect.bisect_left(tails, value)
        if k == len(tails):
            tails.append(value)
            tail_at.append(at)
        else:
            tails[k] = value
            tail_at[k] = at
        before[at] = tail_at[k - 1] if k else -1
    run: set[str] = set()
    at = tail_at[-1] if tail_at else -1
    while at >= 0:
        run.add(players[at])
        at = before[at]
    return run


def apply_change(
    channel: str, state: Mapping[str, Any], message: Mapping[str, Any]
) -> dict[str, Any]:
    """The state after a change, as a client rebuilds it (app/static/live.js does the same)."""
    data = message["data"]
    mode = message["mode"]
    if mode == "replace":
        return dict(data)
    key = KEYED[channel_kind(channel)]
    if mode == "patch":
        rows = {k: v for k, v in state[key].items() if k not in data["removed"]}
        rows.update(data[key])
        return {**{k: v for k, v in data.items() if k not in (key, "removed")}, key: rows}
    if mode != "moves":
        raise ValueError(f"unknown change mode {mode!r}")
    held = {k: v for k, v in state[key].items() if k not in data["removed"]}
    moved = {player for player, _ in data["moves"]}
    order = [p for p in sorted(held, key=lambda p: held[p]["position"]) if p not in moved]
    held.update(data[key])
    for player, position in data["moves"]:
        order.insert(position - 1, player)
    fields = {k: v for k, v in state.items() if k != key}
    fields.update((k, v) for k, v in data.items() if k not in (key, "removed", "moves"))
    rows = {}
    rank, previous = 0, None
    for position, player in enumerate(order, start=1):
        row = held[player]
        if row["total"] != previous:  # rule ST-2: equal totals share a rank, the next skips
            rank, previous = position, row["total"]
        rows[player] = placed_row(row, rank, position, fields["cut"], fields["ended"])
    return {**fields, key: rows}


def next_boundary(clocks: Mapping[str, Any], now: datetime) -> datetime | None:
    """The next moment a clock changes phase by time alone (a deadline passes, a segment
    starts, a break ends): the feed sends the clocks again then, with no event needed."""
    moments = []
    for row in clocks.get("tables", {}).values():
        for field in ("starts_at", "deadline", "break_ends"):
            value = row.get(field)
            if value:
                moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
                if moment > now:
                    moments.append(moment)
    return min(moments, default=None)
