"""WSOM hand results and their payments (rules HS-1 to HS-7).

The judge enters the hand's value (Zung Jung pattern points); the server never derives
it from tiles. A hand's settlement is its four point changes plus the winning value that
counts for the tie-break (rule HS-4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.domain import bounds
from app.domain.errors import MalformedInput, say

PlayerId = str | int

DISCARD_SHARE_LIMIT = 25  # rule HS-2: above 25 the discarder pays the excess


@dataclass(frozen=True)
class SelfDraw:
    winner: PlayerId
    value: int
    kind: str = "self_draw"


@dataclass(frozen=True)
class Discard:
    winner: PlayerId
    discarder: PlayerId
    value: int
    kind: str = "discard"


@dataclass(frozen=True)
class Draw:
    kind: str = "draw"


@dataclass(frozen=True)
class DirectPoints:
    """rule HS-7: the judge enters the four point changes for a special ruling."""

    deltas: tuple[tuple[PlayerId, int], ...]
    winner: PlayerId | None = None
    value: int | None = None
    kind: str = "points"


HandResult = SelfDraw | Discard | Draw | DirectPoints


@dataclass(frozen=True)
class Settlement:
    """What a hand does to the scores: point changes (zero-sum) and the winning value
    that counts for the tie-break (rule ST-4, rule HS-4)."""

    deltas: tuple[tuple[PlayerId, int], ...]
    winner: PlayerId | None
    value: int | None
    # rule AA-4: the other winners on the same discard, with their values (Ari Ari)
    more_wins: tuple[tuple[PlayerId, int], ...] = ()

    @property
    def wins(self) -> tuple[tuple[PlayerId, int], ...]:
        """Every (winner, value) of the hand that counts for the tie-break (rule ST-4)."""
        if self.winner is None or self.value is None:
            return self.more_wins
        return ((self.winner, self.value), *self.more_wins)


def is_player_id(raw: object) -> bool:
    """A name of at most 64 characters, or a number that fits the database (CONTRACT §1)."""
    if isinstance(raw, bool):
        return False
    if isinstance(raw, int):
        return -bounds.MAX_PLAYER_NUMBER <= raw <= bounds.MAX_PLAYER_NUMBER
    return isinstance(raw, str) and len(raw) <= bounds.MAX_PLAYER_ID_LENGTH


def max_hand_points(max_value: int) -> int:
    """rule HS-2: the most one hand moves to or from one player: the winner of a hand worth
    the format's maximum value collects 3v (the discarder pays 3v - 50). A direct-points
    hand (HS-7) is a special ruling on a hand, so no change in it goes beyond this."""
    return 3 * max_value


def _integer(raw: object, field: str, rule: str) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool):
        raise MalformedInput(rule, field, say("must be an integer, got {raw}", raw=repr(raw)))
    return raw


def player_id(raw: object, field: str) -> PlayerId:
    """A player named by a result, or a refusal naming the field (CONTRACT §1)."""
    if not is_player_id(raw):
        raise MalformedInput(
            "CONTRACT §1", field, say("must be a player id, got {raw}", raw=repr(raw))
        )
    assert isinstance(raw, str | int)
    return raw


_RESULT_KEYS = {
    "self_draw": ({"kind", "winner", "value"}, set()),
    "discard": ({"kind", "winner", "discarder", "value"}, set()),
    "draw": ({"kind"}, set()),
    "points": ({"kind", "deltas"}, {"winner", "value"}),
}


KINDS = tuple(_RESULT_KEYS)  # the WSOM result kinds (rule HS-1)


def check_fields(
    raw: Mapping[str, Any], required: set[str], optional: set[str], field: str, what: str, rule: str
) -> None:
    """Refuse a missing or an unknown field of a result object, naming the first one."""
    missing = required - set(raw)
    if missing:
        raise MalformedInput(
            rule, f"{field}.{sorted(missing)[0]}", say("is required for {what}", what=what)
        )
    unknown = set(raw) - required - optional
    if unknown:
        raise MalformedInput(
            rule, f"{field}.{sorted(unknown)[0]}", say("is not a field of {what}", what=what)
        )


def parse_result(raw: object, field: str = "result") -> HandResult:
    """The `result` object of a `hand` line (CONTRACT.md §1), checked for shape only."""
    if not isinstance(raw, dict):
        raise MalformedInput("HS-1", field, say("must be an object with a kind"))
    kind = raw.get("kind")
    if kind not in _RESULT_KEYS:
        raise MalformedInput(
            "HS-1",
            f"{field}.kind",
            say("{kind} is not one of {kinds}", kind=repr(kind), kinds=", ".join(KINDS)),
        )
    required, optional = _RESULT_KEYS[kind]
    check_fields(raw, required, optional, field, say("a {kind}", kind=kind), "HS-1")
    if kind == "self_draw":
        return SelfDraw(
            player_id(raw["winner"], f"{field}.winner"),
            _integer(raw["value"], f"{field}.value", "HS-3"),
        )
    if kind == "discard":
        return Discard(
            player_id(raw["winner"], f"{field}.winner"),
            player_id(raw["discarder"], f"{field}.discarder"),
            _integer(raw["value"], f"{field}.value", "HS-3"),
        )
    if kind == "draw":
        return Draw()
    return _parse_points(raw, field)


def _parse_points(raw: Mapping[str, Any], field: str) -> DirectPoints:
    deltas = raw["deltas"]
    if not isinstance(deltas, dict) or not deltas:
        raise MalformedInput(
            "HS-7", f"{field}.deltas", say("must map each player at the table to points")
        )
    pairs = tuple(
        (key, _integer(points, f"{field}.deltas.{key}", "HS-7")) for key, points in deltas.items()
    )
    has_winner, has_value = "winner" in raw, "value" in raw
    if has_winner != has_value:
        raise MalformedInput(
            "HS-7",
            f"{field}.{'value' if has_winner else 'winner'}",
            say("a direct-points hand names both the winner and the value, or neither"),
        )
    if has_winner:
        return DirectPoints(
            pairs,
            player_id(raw["winner"], f"{field}.winner"),
            _integer(raw["value"], f"{field}.value", "HS-3"),
        )
    return DirectPoints(pairs)


def result_to_log(result: HandResult) -> dict[str, Any]:
    """The inverse of parse_result, for writing a log line."""
    if isinstance(result, SelfDraw):
        return {"kind": "self_draw", "winner": result.winner, "value": result.value}
    if isinstance(result, Discard):
        return {
            "kind": "discard",
            "winner": result.winner,
            "discarder": result.discarder,
            "value": result.value,
        }
    if isinstance(result, Draw):
        return {"kind": "draw"}
    out: dict[str, Any] = {"kind": "points", "deltas": dict(result.deltas)}
    if result.winner is not None:
        out["winner"] = result.winner
        out["value"] = result.value
    return out


def _check_value(value: int, min_value: int, max_value: int, field: str) -> None:
    # rule HS-3: the value of a winning hand lies between the format's minimum and 320
    if value < min_value:
        raise MalformedInput(
            "HS-3",
            field,
            say(
                "{value} is below the minimum winning value {min_value}",
                value=bounds.short(value),
                min_value=min_value,
            ),
        )
    if value > max_value:
        raise MalformedInput(
            "HS-3",
            field,
            say(
                "{value} is above the maximum winning value {max_value}",
                value=bounds.short(value),
                max_value=max_value,
            ),
        )


def check_seated(
    player: PlayerId, seats: Sequence[PlayerId], field: str, rule: str = "HS-1"
) -> None:
    """A player a result names must sit at the table (rule HS-1; AA-3 for Ari Ari)."""
    if player not in seats:
        raise MalformedInput(
            rule,
            field,
            say(
                "player {player} is not at this table ({seats})",
                player=repr(player),
                seats=", ".join(map(str, seats)),
            ),
        )


def settle(
    result: HandResult,
    seats: Sequence[PlayerId],
    *,
    min_value: int,
    max_value: int,
    field: str = "result",
) -> Settlement:
    """The point changes of a WSOM hand at a table seating `seats` (rule HS-2).

    Raises MalformedInput naming the field and rule when the result does not fit the table.
    """
    if isinstance(result, Draw):
        # rule HS-2: a draw moves no points
        return Settlement(tuple((p, 0) for p in seats), None, None)
    if isinstance(result, DirectPoints):
        return _settle_points(result, seats, min_value=min_value, max_value=max_value, field=field)
    check_seated(result.winner, seats, f"{field}.winner")
    _check_value(result.value, min_value, max_value, f"{field}.value")
    discarder = None
    if isinstance(result, Discard):
        check_seated(result.discarder, seats, f"{field}.discarder")
        if result.discarder == result.winner:
            raise MalformedInput(
                "HS-1", f"{field}.discarder", say("the winner cannot discard to themselves")
            )
        discarder = result.discarder
    deltas = wsom_deltas(seats, result.winner, discarder, result.value)
    return Settlement(deltas, result.winner, result.value)  # rule HS-4: v counts for the tie-break


def wsom_deltas(
    seats: Sequence[PlayerId], winner: PlayerId, discarder: PlayerId | None, value: int
) -> tuple[tuple[PlayerId, int], ...]:
    """Rule HS-2's point changes for a win already checked against its table and bounds
    (settle() checks; what a player needs asks it some forty times a player, unchecked)."""
    if discarder is None or value <= DISCARD_SHARE_LIMIT:
        # rule HS-2: on a self-draw, or a discard worth 25 or less, each of the three others
        # pays v
        return tuple((p, 3 * value if p == winner else -value) for p in seats)
    # rule HS-2: above 25, the two who did not discard pay 25 and the discarder 3v - 50; the
    # winner always collects 3v, which is what the others paid
    return tuple(
        (
            p,
            3 * value
            if p == winner
            else -(3 * value - 2 * DISCARD_SHARE_LIMIT)
            if p == discarder
            else -DISCARD_SHARE_LIMIT,
        )
        for p in seats
    )


def _settle_points(
    result: DirectPoints, seats: Sequence[PlayerId], *, min_value: int, max_value: int, field: str
) -> Settlement:
    # JSON object keys are always strings, so a table of integer ids is matched by the
    # ids' string form (the log never lets 7 and "7" both exist).
    by_name = {str(p): p for p in seats}
    given: dict[PlayerId, int] = {}
    for key, points in result.deltas:
        check_seated(by_name.get(str(key), key), seats, f"{field}.deltas.{key}")
        given[by_name[str(key)]] = points
    missing = [p for p in seats if p not in given]
    if missing:
        raise MalformedInput(
            "HS-7",
            f"{field}.deltas.{missing[0]}",
            say("every player at the table needs a point change"),
        )
    most = max_hand_points(max_value)
    for player, points in given.items():
        if abs(points) > most:
            # rule HS-7: a special ruling moves no more than a hand can (HS-2)
            raise MalformedInput(
                "HS-7",
                f"{field}.deltas.{player}",
                say(
                    "{points} points is more than a hand can move: a hand worth the maximum "
                    "{max_value} moves {most} at most (rule HS-2)",
                    points=bounds.short(points),
                    max_value=max_value,
                    most=most,
                ),
            )
    total = sum(given.values())
    if total != 0:
        # rule HS-7 (and HS-2: every hand is zero-sum)
        raise MalformedInput(
            "HS-7",
            f"{field}.deltas",
            say("the point changes sum to {total}, not zero", total=total),
        )
    if result.winner is not None and result.value is not None:
        check_seated(result.winner, seats, f"{field}.winner")
        _check_value(result.value, min_value, max_value, f"{field}.value")
    return Settlement(tuple((p, given[p]) for p in seats), result.winner, result.value)
