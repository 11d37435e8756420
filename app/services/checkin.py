"""Check-in and no-shows (issue 18, part 4): a player checks in with their slip's code or at
the desk, the organizer reads who is missing and seats a substitute in a missing player's
place (FM-9). The rules are app/domain/checkin.py's (CI-1 to CI-5); this module reads the
tournament as it stands and appends the lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from app.domain import bounds
from app.domain.checkin import (
    CheckIn,
    How,
    check_in_code,
    code_matches,
    read_code,
    roll_call,
    shown_code,
    substitute_seatings,
)
from app.domain.errors import IllegalMove, MalformedInput, say
from app.domain.hands import PlayerId
from app.domain.log import CheckedIn, Event, PlayerRegistered
from app.domain.round_state import RoundState
from app.domain.tournament import Tournament
from app.services.store import Appended, Author, TournamentStore

ADMIN = Author("admin")
PHONE = Author("check-in")  # a player's own phone: no credential but the slip's code


class WrongCode(MalformedInput):
    """The code is well formed but is not this player's for this round (rule CI-1): the web
    layer counts it against the guessing limits (CI-4) before it answers 422."""


@dataclass(frozen=True)
class CheckInAnswer:
    tournament: int
    round: int
    player: PlayerId
    name: str
    how: str
    at: datetime | None
    late: bool
    already: bool  # checked in before: nothing was written (rule CI-2)
    version: int


def open_round(tournament: Tournament, round_number: int | None = None) -> RoundState:
    """The round a check-in is for: the one named, else the one being played (FM-1)."""
    number = tournament.current_round.number if round_number is None else round_number
    state = tournament.rounds.get(number)
    if state is None or not tournament.format.has_round(number):
        raise IllegalMove("FM-1", "round", say("round {round} has not begun", round=number))
    if state.ended is not None:
        raise IllegalMove(
            "CI-3",
            "round",
            say("round {round} has ended; check-in is for a round still to play", round=number),
        )
    return state


def registered_player(tournament: Tournament, text: str, field: str = "player") -> PlayerId:
    player = tournament.player_named(text)
    if player is None:
        raise MalformedInput(
            "CI-3",
            field,
            say(
                "player {player} is not registered in this tournament",
                player=repr(text[: bounds.MAX_KEY_LENGTH]),
            ),
        )
    return player


def code_of(tournament_id: int, round_number: int, player: PlayerId, key: bytes) -> str:
    """rule CI-1: the code as the slip prints it (two groups of three)."""
    return shown_code(check_in_code(key, tournament_id, round_number, player))


def _answer(
    tournament_id: int, tournament: Tournament, kept: CheckIn, already: bool, version: int
) -> CheckInAnswer:
    return CheckInAnswer(
        tournament=tournament_id,
        round=kept.round,
        player=kept.player,
        name=tournament.players[kept.player].name,
        how=kept.how,
        at=kept.at,
        late=kept.late,
        already=already,
        version=version,
    )


def _check_in(
    store: TournamentStore,
    tournament_id: int,
    player_text: str,
    how: How,
    round_number: int | None,
    author: Author,
    check: tuple[str, bytes] | None = None,
) -> CheckInAnswer:
    """Append the check_in line unless the player has checked in already (CI-2: then
    nothing is written and the first check-in is the answer)."""

    def held(tournament: Tournament) -> tuple[PlayerId, int, CheckIn | None]:
        player = registered_player(tournament, player_text)
        state = open_round(tournament, round_number)
        if check is not None:
            code, key = check
            expected = check_in_code(key, tournament_id, state.number, player)
            if not code_matches(expected, code):
                raise WrongCode(
                    "CI-1",
                    "code",
                    say(
                        "is not the check-in code on player {player}'s slip for round {round}; "
                        "check the slip, or check in at the desk",
                        player=repr(player),
                        round=state.number,
                    ),
                )
        return player, state.number, tournament.check_ins.get(state.number, {}).get(player)

    player, number, before = store.read(tournament_id, lambda t, _: held(t))
    if before is not None:
        version = store.version(tournament_id)
        return store.read(
            tournament_id, lambda t, _: _answer(tournament_id, t, before, True, version)
        )

    def decide(tournament: Tournament) -> list[Event]:
        if player in tournament.check_ins.get(number, {}):
            return []  # checked in meanwhile, by another request: CI-2
        return [CheckedIn(number, player, how)]

    appended = store.append(tournament_id, decide, author)
    return store.read(
        tournament_id,
        lambda t, _: _answer(
            tournament_id, t, t.check_ins[number][player], not appended.lines, appended.version
        ),
    )


def check_in_with_code(
    store: TournamentStore,
    tournament_id: int,
    player: str,
    code: str,
    key: bytes,
    round_number: int | None = None,
) -> CheckInAnswer:
    """rules CI-1, CI-2: a player's own check-in with their slip's code."""
    return _check_in(
        store, tournament_id, player, "slip", round_number, PHONE, (read_code(code), key)
    )


def check_in_at_desk(
    store: TournamentStore, tournament_id: int, player: str, round_number: int | None = None
) -> CheckInAnswer:
    """rule CI-2: the organizer checks a player in at the desk."""
    return _check_in(store, tournament_id, player, "desk", round_number, ADMIN)


# -- the organizer's view --------------------------------------------------------------


@dataclass(frozen=True)
class PlayerLine:
    player: PlayerId
    name: str
    country: str | None
    substitute: bool
    tables: tuple[int | None, ...]  # the player's table in each segment of the round


@dataclass(frozen=True)
class MissingLine(PlayerLine):
    replaced_by: PlayerId | None  # rule FM-9: the substitute in the player's seat


@dataclass(frozen=True)
class CheckedLine(PlayerLine):
    how: str
    at: datetime | None
    late: bool  # rule CI-5
    penalties: tuple[tuple[int, str], ...]  # rule PN-1: (points, reason) given in the round


@dataclass(frozen=True)
class RollCallView:
    tournament: int
    round: int
    version: int
    expected: int
    checked_in: int
    started: bool
    missing: tuple[MissingLine, ...]
    late: tuple[CheckedLine, ...]
    checked: tuple[CheckedLine, ...]
    standby: tuple[PlayerLine, ...]  # substitutes checked in with no seat yet (FM-9)


def _tables(state: RoundState, player: PlayerId) -> tuple[int | None, ...]:
    return tuple(
        state.seat_of.get((segment, player)) for segment in range(1, state.format.segments + 1)
    )


def _line(tournament: Tournament, state: RoundState, player: PlayerId) -> PlayerLine:
    registered = tournament.players[player]
    return PlayerLine(
        player,
        registered.name,
        registered.country,
        registered.substitute,
        _tables(state, player),
    )


def roll_call_view(
    tournament: Tournament, tournament_id: int, version: int, round_number: int | None = None
) -> RollCallView:
    state = open_round(tournament, round_number)
    held = tournament.check_ins.get(state.number, {})
    call = roll_call(tournament.players, state, held)

    def checked(kept: CheckIn) -> CheckedLine:
        line = _line(tournament, state, kept.player)
        penalties = tuple((p.points, p.reason) for p in state.penalties if p.player == kept.player)
        return CheckedLine(
            **vars(line), how=kept.how, at=kept.at, late=kept.late, penalties=penalties
        )

    return RollCallView(
        tournament=tournament_id,
        round=state.number,
        version=version,
        expected=len(call.expected),
        checked_in=sum(1 for p in call.expected if p in held),
        started=call.started,
        missing=tuple(
            MissingLine(**vars(_line(tournament, state, m.player)), replaced_by=m.replaced_by)
            for m in call.missing
        ),
        late=tuple(checked(kept) for kept in call.late),
        checked=tuple(checked(kept) for kept in call.checked_in),
        standby=tuple(_line(tournament, state, p) for p in call.standby),
    )


def read_roll_call(
    store: TournamentStore, tournament_id: int, round_number: int | None = None
) -> RollCallView:
    return store.read(
        tournament_id, lambda t, version: roll_call_view(t, tournament_id, version, round_number)
    )


def _new_substitute_id(tournament: Tournament) -> str:
    number = 1
    while tournament.player_named(f"S{number}") is not None:
        number += 1
    return f"S{number}"


def seat_substitute(
    store: TournamentStore,
    tournament_id: int,
    missing: str,
    *,
    substitute: str | None = None,
    name: str | None = None,
    country: str | None = None,
) -> Appended:
    """rule FM-9, in one action: a substitute (registered now with `name`, or `substitute`,
    one registered already) sits in the missing player's seat at every table of the round
    that has not played (SE-5), and is checked in at the desk (CI-2)."""
    if (substitute is None) == (name is None):
        raise MalformedInput(
            "FM-9",
            "substitute",
            say("give either the id of a registered substitute or the name of a new one"),
        )

    if name is not None and not name.strip():
        raise MalformedInput(
            "FM-9", "name", say("must be a non-empty string, got {value}", value=repr(name))
        )

    def decide(tournament: Tournament) -> Sequence[Event]:
        state = open_round(tournament)
        player = registered_player(tournament, missing)
        events: list[Event] = []
        players = dict(tournament.players)
        if substitute is None:
            assert name is not None
            refusal = tournament.registration_refusal(True)
            if refusal is not None:
                raise refusal
            stand_in: PlayerId = _new_substitute_id(tournament)
            registration = PlayerRegistered(
                stand_in, name, tournament.players[player].group, True, country
            )
            players[stand_in] = registration
            events.append(registration)
        else:
            stand_in = registered_player(tournament, substitute, "substitute")
        held = tournament.check_ins.get(state.number, {})
        events.extend(substitute_seatings(players, state, held, player, stand_in))
        if stand_in not in held:
            events.append(CheckedIn(state.number, stand_in, "desk"))
        return events

    return store.append(tournament_id, decide, ADMIN)
