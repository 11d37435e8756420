"""What each live channel shows, built from the tournament state, and how two states differ.

Channels (CONTRACT §3): `standings` (the current round, with the cut line and every
player's distance to it), `clocks` (every table's clock as server times and deadlines,
never ticks: rule CL-6), `table:N` (one table of the current round) and `player:ID`.
A state is a plain JSON-able dict; a change is what a client needs to go from one to the
next: the rows that changed (standings, clocks) or the whole small state (table, player).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from app.domain.replay import clock_report, game_report, standings_report
from app.domain.rulesets import result_to_log
from app.domain.tournament import TableSegment, Tournament

SEAT_NAMES = ("east", "south", "west", "north")
# Fields of a clock report that follow from the time alone: a display computes them from
# the server time and the deadline, so they are not sent, and they never make a change.
TICKING = ("server_time", "seconds_left", "seconds_over", "break_seconds_left")
KEYED = {"standings": "rows", "clocks": "tables"}


def channel_kind(channel: str) -> str:
    return channel.split(":", 1)[0]


def valid_channel(channel: str) -> bool:
    kind, _, argument = channel.partition(":")
    if kind in KEYED:
        return not argument
    if kind == "table":
        return argument.isdigit() and 0 < int(argument) < 2**31
    return kind == "player" and bool(argument) and len(argument) <= 200


class States:
    """Channel states of one tournament version at one moment. The standings and clocks are
    built once however many table and player channels need them."""

    def __init__(self, tournament: Tournament, now: datetime) -> None:
        self.tournament = tournament
        self.now = now
        self._standings: dict[str, Any] | None = None
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

    def standings(self) -> dict[str, Any]:
        if self._standings is None:
            current = self.tournament.current_round
            report = standings_report(
                self.tournament.standings(current.number), current.format.advance
            )
            rows = report.pop("standings")
            self._standings = {**report, "rows": {str(row["player"]): row for row in rows}}
        return self._standings

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
        segments = sorted(segment for segment, number in current.tables if number == table)
        if not segments:
            return {"round": current.number, "table": table, "segment": None}
        segment = clock["segment"] if clock is not None else segments[0]
        seated = current.tables[(segment, table)]
        next_hand = seated.next_hand(current.format.hands_per_segment)
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
            "next_hand": next_hand,
            "next_dealer": (
                None
                if next_hand is None
                else tournament.dealer(current.number, segment, table, next_hand)
            ),
            "clock": clock,
        }
        if seated.game is not None:
            _add_game(state, seated, segment, table)
        return state

    def player(self, player_id: str) -> dict[str, Any]:
        """One player in the current round: their standing and where they sit."""
        tournament = self.tournament
        player = next((p for p in tournament.players if str(p) == player_id), None)
        if player is None:
            return {"player": player_id, "registered": False}
        current = tournament.current_round
        seats = [
            {
                "segment": segment,
                "table": table,
                "seat": SEAT_NAMES[current.tables[(segment, table)].seats.index(player)],
            }
            for (segment, seated), table in sorted(current.seat_of.items(), key=lambda i: i[0][0])
            if seated == player
        ]
        registered = tournament.players[player]
        return {
            "player": player,
            "registered": True,
            "name": registered.name,
            "country": registered.country,
            "round": current.number,
            "standing": self.standings()["rows"].get(player_id),
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


def change(channel: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any] | None:
    """What turns `old` into `new`, or None when nothing changed.

    Keyed channels send only the rows that changed (`mode: "patch"`, with `removed` keys)
    plus their other fields; the others send the whole state (`mode: "replace"`). A new
    round is always a replace: nearly every row changes.
    """
    if old == new:
        return None
    key = KEYED.get(channel_kind(channel))
    if key is None or old.get("round") != new.get("round"):
        return {"mode": "replace", "data": dict(new)}
    old_rows, new_rows = old[key], new[key]
    return {
        "mode": "patch",
        "data": {
            **{k: v for k, v in new.items() if k != key},
            key: {k: v for k, v in new_rows.items() if old_rows.get(k) != v},
            "removed": [k for k in old_rows if k not in new_rows],
        },
    }


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
