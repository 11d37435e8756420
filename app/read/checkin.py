"""The `checkin` channel's state (issue 18, part 4): how many of the players expected in the
round being played have checked in, and who is missing, for the hall's screen.

The list is bounded (MISSING_SHOWN): a hall shows a few dozen names, and a round whose
check-in has barely begun would otherwise send its whole field on every check-in.
"""

from __future__ import annotations

from typing import TypedDict

from app.domain.checkin import roll_call
from app.domain.tournament import Tournament

MISSING_SHOWN = 100  # names sent at most; `missing` counts them all


class MissingPlayer(TypedDict):
    player: str
    name: str
    local_name: str | None
    country: str | None
    table: int | None  # their table in the round's first segment, None if they sit nowhere
    replaced: bool  # a substitute sits in their place (rule FM-9)


class CheckinState(TypedDict):
    round: int
    open: bool  # the round can still take check-ins (it has not ended)
    started: bool  # play has begun at some table: a check-in now is late (CI-5)
    expected: int
    checked_in: int
    missing: int
    late: int
    players: list[MissingPlayer]  # the first MISSING_SHOWN missing, by table then name


def checkin_state(tournament: Tournament) -> CheckinState:
    state = tournament.current_round
    held = tournament.check_ins.get(state.number, {})
    call = roll_call(tournament.players, state, held)
    rows: list[MissingPlayer] = []
    for missing in call.missing:
        registered = tournament.players[missing.player]
        table = missing.tables[0] if missing.tables else None
        rows.append(
            MissingPlayer(
                player=str(missing.player),
                name=registered.name,
                local_name=registered.local_name,
                country=registered.country,
                table=table,
                replaced=missing.replaced_by is not None,
            )
        )
    rows.sort(key=lambda row: (row["table"] is None, row["table"] or 0, row["name"]))
    return CheckinState(
        round=state.number,
        open=state.ended is None,
        started=call.started,
        expected=len(call.expected),
        checked_in=sum(1 for player in call.expected if player in held),
        missing=len(call.missing),
        late=len(call.late),
        players=rows[:MISSING_SHOWN],
    )
