"""Check-in before a round, and the no-shows (issue 18, part 4), as pure functions.

A player checks in for a round on their phone, with the short code printed on their
seating slip (rule SE-4), or at the desk. A check-in is a `check_in` log line; everything
else is derived from the log: who is expected, who is missing, who came late (PN-1), and
where a substitute sits down in a missing player's place (FM-9).

The rules of check-in are numbered in docs/contract.md, as the table tokens' are (TK-1):
- CI-1 A slip's code is derived from the server's secret, the tournament, the round and the
  player (an HMAC): 6 characters of an alphabet with no 0/O, 1/I/L, read without case, dashes
  or spaces. Nobody can work one out without the secret; each code opens one player's
  check-in for one round.
- CI-2 A check-in names how it was made: `slip` (the code on the phone) or `desk` (the
  organizer). A second check-in of the same player for the same round changes nothing.
- CI-3 Only a player expected in the round checks in: a player of its field (FM-2, ST-3),
  or a substitute (FM-9), and only while the round is open (FM-1).
- CI-4 Wrong codes are counted per player and round, and per address; past the limit the
  answer is 429 until the window frees, the right code included (app/web/guards.py).
- CI-5 A check-in is late after the player's first segment of the round was scheduled to
  start, or after play began at a table of the round (in round 1, of the player's group): it
  is marked, and the judge may give the player a score penalty for it (PN-1), whose amount
  the rules leave to the judge (HS-6).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from app.domain.errors import IllegalMove, MalformedInput, say
from app.domain.hands import PlayerId
from app.domain.log import PlayerRegistered, SeatingRecorded
from app.domain.round_state import RoundState, check_in_round, first_play

# rule CI-1: no character a reader could take for another (0/O, 1/I/L)
ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6  # 31^6, about 887 million codes: with CI-4's limit, out of a guesser's reach
# The longest text a code box takes: the code with a dash and a few spaces around it.
MAX_CODE_INPUT = 20
HOW = ("slip", "desk")  # rule CI-2
How = Literal["slip", "desk"]


def check_in_code(secret: bytes, tournament_id: int, round_number: int, player: PlayerId) -> str:
    """rule CI-1: the code printed on a player's slip for one round of one tournament."""
    message = f"check-in:{tournament_id}:{round_number}:{player}".encode()
    number = int.from_bytes(hmac.new(secret, message, hashlib.sha256).digest(), "big")
    characters = []
    for _ in range(CODE_LENGTH):
        number, index = divmod(number, len(ALPHABET))
        characters.append(ALPHABET[index])
    return "".join(characters)


def shown_code(code: str) -> str:
    """A code as the slip prints it: two groups of three, easier to read out and type."""
    return f"{code[:3]}-{code[3:]}"


def read_code(text: str) -> str:
    """rule CI-1: a code as a player typed it, in the slip's form, or why it cannot be one."""
    if len(text) > MAX_CODE_INPUT:
        raise MalformedInput(
            "CI-1",
            "code",
            say(
                "is {length} characters long; a check-in code has {code_length}",
                length=len(text),
                code_length=CODE_LENGTH,
            ),
        )
    code = "".join(text.split()).replace("-", "").upper()
    strange = sorted({c for c in code if c not in ALPHABET})
    if strange:
        raise MalformedInput(
            "CI-1",
            "code",
            say(
                "holds {characters}, which no check-in code has: a code uses the digits 2 to 9 "
                "and the letters A to Z without I, L and O",
                characters=", ".join(repr(c) for c in strange),
            ),
        )
    if len(code) != CODE_LENGTH:
        raise MalformedInput(
            "CI-1",
            "code",
            say(
                "has {length} letters and digits; a check-in code has {code_length}, as on "
                "the seating slip",
                length=len(code),
                code_length=CODE_LENGTH,
            ),
        )
    return code


def code_matches(expected: str, given: str) -> bool:
    """In constant time: how long a comparison takes says nothing of the code."""
    return hmac.compare_digest(expected.encode(), given.encode())


@dataclass(frozen=True)
class CheckIn:
    """A player's check-in for a round, as the log has it, and whether it was late (CI-5)."""

    round: int
    player: PlayerId
    how: How
    at: datetime | None
    late: bool


def round_start(
    schedule: Mapping[tuple[int, str, int], datetime],
    state: RoundState,
    registered: PlayerRegistered,
) -> datetime | None:
    """rule FM-8: when the player's first segment of the round is scheduled to start (in
    round 1 their group's, rule FM-2); None when the organizer runs without a schedule."""
    group = registered.group if state.number == 1 and state.format.groups > 1 else ""
    return schedule.get((state.number, group, 1))


def record_check_in(
    players: Mapping[PlayerId, PlayerRegistered],
    state: RoundState,
    schedule: Mapping[tuple[int, str, int], datetime],
    held: Mapping[PlayerId, CheckIn],
    player: PlayerId,
    how: How,
    at: datetime | None,
) -> CheckIn | None:
    """rules CI-2, CI-3, CI-5: the check-in to keep, or None for a second one (it changes
    nothing). Raises when the player is not expected in the round."""
    registered = check_in_round(players, state, player, "player")  # rule CI-3 (ST-3)
    if player in held:
        return None  # rule CI-2: idempotent
    start = round_start(schedule, state, registered)
    late = _play_begun(state, registered) or (start is not None and at is not None and at > start)
    return CheckIn(state.number, player, how, at, late)


def _play_begun(state: RoundState, registered: PlayerRegistered) -> bool:
    """rule CI-5: play has begun where the player plays: at any table of the round, or in
    round 1 of a format in groups at a table of their group (FM-2: the groups play apart,
    one after the other, so group B is not late while group A plays)."""
    grouped = state.number == 1 and state.format.groups > 1
    return any(
        table.entered or table.deals or table.early_start is not None
        for table in state.tables.values()
        if not grouped or table.group == registered.group
    )


@dataclass(frozen=True)
class Missing:
    """A player expected in the round who has not checked in."""

    player: PlayerId
    tables: tuple[int | None, ...]  # the player's table in each segment, None where unseated
    # the substitute now sitting in the player's first drawn seat (rule FM-9), if any
    replaced_by: PlayerId | None


@dataclass(frozen=True)
class RollCall:
    """Who is expected in a round, who has checked in, and who is missing (CI-3)."""

    round: int
    expected: tuple[PlayerId, ...]
    checked_in: tuple[CheckIn, ...]  # in the order they came
    missing: tuple[Missing, ...]
    late: tuple[CheckIn, ...]
    # substitutes who checked in and sit nowhere in the round: the ones ready to fill a seat
    standby: tuple[PlayerId, ...]
    started: bool  # play has begun at some table (first_play)


def expected_players(
    players: Mapping[PlayerId, PlayerRegistered], state: RoundState
) -> list[PlayerId]:
    """rule CI-3: the round's field (never substitutes, FM-9), then the substitutes the
    round seats, in registration order."""
    seated = {player for (_, player) in state.seat_of}
    substitutes = [p for p, r in players.items() if r.substitute and p in seated]
    return [*state.field, *substitutes]


def roll_call(
    players: Mapping[PlayerId, PlayerRegistered],
    state: RoundState,
    held: Mapping[PlayerId, CheckIn],
) -> RollCall:
    expected = expected_players(players, state)
    in_field = set(expected)
    drawn = state.draw.table_of() if state.draw is not None else {}
    missing = []
    for player in expected:
        if player in held:
            continue
        tables = tuple(
            state.seat_of.get((segment, player)) for segment in range(1, state.format.segments + 1)
        )
        missing.append(Missing(player, tables, _replaced_by(players, state, drawn, player)))
    checked = tuple(held.values())
    return RollCall(
        round=state.number,
        expected=tuple(expected),
        checked_in=checked,
        missing=tuple(missing),
        late=tuple(c for c in checked if c.late),
        standby=tuple(
            p
            for p, c in held.items()
            if p not in in_field and players[p].substitute and not state.seats_of(p)
        ),
        started=first_play(state) is not None,
    )


def _replaced_by(
    players: Mapping[PlayerId, PlayerRegistered],
    state: RoundState,
    drawn: Mapping[tuple[int, PlayerId], int],
    player: PlayerId,
) -> PlayerId | None:
    """The substitute seated at the player's drawn table in the first segment where the
    player no longer sits (rule FM-9), read from the seatings: no line of its own."""
    for segment in range(1, state.format.segments + 1):
        table = drawn.get((segment, player))
        if table is None or state.seat_of.get((segment, player)) == table:
            continue
        seated = state.tables.get((segment, table))
        if seated is None:
            continue
        for other in seated.seats:
            if players[other].substitute and drawn.get((segment, other)) != table:
                return other
    return None


def substitute_seatings(
    players: Mapping[PlayerId, PlayerRegistered],
    state: RoundState,
    held: Mapping[PlayerId, CheckIn],
    missing: PlayerId,
    substitute: PlayerId,
) -> list[SeatingRecorded]:
    """rule FM-9: the seatings that put `substitute` in `missing`'s seat at every table of
    the round where `missing` sits and no hand has been played (SE-5: a table's seats hold
    for its hands). The seat order stays the one drawn (SE-5); a replay accepts the result
    as any recorded seating (CONTRACT §1) and the draw's deviations list it."""
    registered = check_in_round(players, state, missing, "player")
    if missing in held:
        raise IllegalMove(
            "FM-9",
            "player",
            say(
                "player {player} has checked in for round {round}; only a missing player's "
                "seat is given to a substitute",
                player=repr(missing),
                round=state.number,
            ),
        )
    stand_in = players.get(substitute)
    if stand_in is None:
        raise MalformedInput(
            "CONTRACT §1", "substitute", say("unknown player {player}", player=repr(substitute))
        )
    if not stand_in.substitute:
        raise IllegalMove(
            "FM-9",
            "substitute",
            say(
                "player {player} is not registered as a substitute; register the stand-in "
                "with substitute: true (they are never ranked)",
                player=repr(substitute),
            ),
        )
    if state.seats_of(substitute):
        raise IllegalMove(
            "FM-9",
            "substitute",
            say(
                "substitute {player} already has a seat in round {round}",
                player=repr(substitute),
                round=state.number,
            ),
        )
    if state.number == 1 and state.format.groups > 1 and stand_in.group != registered.group:
        raise IllegalMove(
            "FM-2",
            "substitute",
            say(
                "substitute {player} is registered in group {group}; round 1 seats player "
                "{missing} in group {missing_group}",
                player=repr(substitute),
                group=stand_in.group,
                missing=repr(missing),
                missing_group=registered.group,
            ),
        )
    seatings = []
    for segment, table_number, _ in state.seats_of(missing):
        table = state.tables[(segment, table_number)]
        if table.entered:
            continue  # rule SE-5: its seats are fixed
        seats = tuple(substitute if p == missing else p for p in table.seats)
        seatings.append(SeatingRecorded(state.number, segment, table_number, _four(seats)))
    if not seatings:
        raise IllegalMove(
            "SE-5",
            "player",
            say(
                "player {player} has no seat left in round {round} at a table that has not "
                "played: draw the round first, or their tables have hands",
                player=repr(missing),
                round=state.number,
            ),
        )
    return seatings


def _four(seats: Sequence[PlayerId]) -> tuple[PlayerId, PlayerId, PlayerId, PlayerId]:
    east, south, west, north = seats
    return east, south, west, north
