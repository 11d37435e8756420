"""The live channels' names, and how two states of a channel differ.

What each channel shows is a view of the read model (`app.read.views.States`). A change is
what a client needs to go from one state to the next: the rows that changed and how the
order moved (standings), the rows that changed (clocks, needs), or the whole small state
(table, player, stats).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, cast

from app.domain.numbers import exact, shown
from app.domain.standings import distance_to_cut, status_in_round
from app.read.views import LiveStandings, LiveState

KEYED = {"standings": "rows", "clocks": "tables", "needs": "rows"}
# channel kinds whose state changes by time alone (rule CL-6); `needs` reads where each
# player sits now from the clocks (app/read/needs.py)
TIMED = {"clocks", "table", "needs"}


def channel_kind(channel: str) -> str:
    return channel.split(":", 1)[0]


MAX_PLAYER_ID = 200  # characters of a player id in a channel name
MAX_CHANNEL_NAME = len("player:") + MAX_PLAYER_ID


# stats: the story of the session; calls: the judges' calls (issue 18); checkin: who has
# checked in for the round (issue 18, part 4)
WHOLE = {*KEYED, "stats", "calls", "checkin"}  # the channels that take no argument


def valid_channel(channel: str) -> bool:
    """Whether `channel` is a channel's name, in the one spelling it has: `standings` and the
    other channels without an argument with no colon, `table:N` with N as the server writes
    a number (no leading zero, no sign), `player:ID` with the id as the log writes it.

    The feed keeps a state per name and computes each at every update: every other spelling
    of a channel (`table:01`, `table:001`, `standings:`) was one more of them, for as long
    as it lingered after its client (issue 32). Such a name is refused, never folded into
    the channel's: the client would get frames under a name it did not ask for, and a
    client ignores those (CONTRACT §3). A player id is not folded either, in case or in
    Unicode normalization form: ids are the log's, compared as they are, and a spelling no
    player has is refused as a player the tournament does not have (views.in_tournament)."""
    if len(channel) > MAX_CHANNEL_NAME:
        return False
    if channel in WHOLE:
        return True
    kind, _, argument = channel.partition(":")
    if kind == "table":
        # ASCII digits only, and few of them: int() of thousands of digits is slow or refused
        return (
            argument.isascii()
            and argument.isdigit()
            and not argument.startswith("0")
            and int(argument) < 2**31
        )
    return kind == "player" and bool(argument) and len(argument) <= MAX_PLAYER_ID


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
    old_header: Mapping[str, object] = old.header
    fields = {k: v for k, v in new.header.items() if k not in old_header or old_header[k] != v}
    if not (rows or removed or moves or fields):
        return None
    return {"mode": "moves", "data": {**fields, "rows": rows, "removed": removed, "moves": moves}}


def as_json(state: LiveState) -> Mapping[str, Any]:
    """A channel's state as the JSON a snapshot sends. A change is worked out on that JSON,
    key by key, whatever the channel, as a client applies it (apply_change, live.js)."""
    return state.full() if isinstance(state, LiveStandings) else cast(Mapping[str, Any], state)


def change(channel: str, old_state: LiveState, new_state: LiveState) -> dict[str, Any] | None:
    """What turns `old` into `new`, or None when nothing changed.

    The standings send `mode: "moves"` (standings_moves); the clocks send only the rows that
    changed (`mode: "patch"`, with `removed` keys) plus their other fields; the others send
    the whole state (`mode: "replace"`). A new round is always a replace: nearly every row
    changes.
    """
    if isinstance(old_state, LiveStandings) and isinstance(new_state, LiveStandings):
        return standings_change(old_state, new_state)
    old, new = as_json(old_state), as_json(new_state)
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
