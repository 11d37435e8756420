"""Hands as the judges enter them, with their corrections and voids, and penalties.

A hand is scored by the format's ruleset (rules HS-1 to HS-7, or AA-1 to AA-17) and counts
in its players' play scores (SC-1); a later line with the same key corrects it and a
`void` withdraws it (CONTRACT §1), and either replays the table's hands so that every hand
after it is scored anew. A penalty is a deduction that counts in the play score but is not
a hand (PN-1, HS-6). A new hand must come in order (CONTRACT §1), in an open segment and,
where the clock can end the segment, after a deal recorded in time (CL-3).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime

from app.domain.ariari import AriAriResult, with_table_state
from app.domain.bounds import short
from app.domain.clock_events import Schedule, check_dealt_in_time, check_open_segment
from app.domain.errors import HandRefused, IllegalMove, MalformedInput, say
from app.domain.formats import Format
from app.domain.hands import PlayerId
from app.domain.log import HandRecorded, HandVoided, PenaltyGiven, PlayerRegistered
from app.domain.round_state import (
    RoundState,
    TableSegment,
    check_in_round,
    check_segment,
    seated_table,
)
from app.domain.rulesets import RULESETS, HandResult, TablePlay


def is_retry(hand_keys: Mapping[str, HandRecorded], event: HandRecorded) -> bool:
    """Whether `event` is a retry of a hand already entered under its idempotency key,
    which counts once (CONTRACT §3); the same key with another hand is refused."""
    if event.key is None or event.key not in hand_keys:
        return False
    if hand_keys[event.key] == event:
        return True
    raise MalformedInput(
        "CONTRACT §3",
        "id",
        say("idempotency key {key} was already used for another hand", key=repr(event.key)),
    )


def record_hand(
    fmt: Format,
    schedule: Schedule,
    state: RoundState,
    event: HandRecorded,
    at: datetime | None = None,
) -> None:
    """Enter a new hand, or correct one entered before (the same hand number)."""
    round_format = state.format
    check_segment(round_format, event.segment)
    if event.hand > round_format.hands_per_segment:
        # rules FM-2 to FM-5: a segment has its format's number of hands
        raise IllegalMove(
            round_format.shape_rule,
            "hand",
            say(
                "a {segment_kind} of round {round} has {hands_per_segment} hands; the segment "
                "is finished",
                segment_kind=round_format.segment_word,
                round=event.round,
                hands_per_segment=round_format.hands_per_segment,
            ),
        )
    table = seated_table(state, event.segment, event.table)
    is_correction = event.hand in table.entered
    if not is_correction and event.hand != table.last_hand + 1:
        raise IllegalMove(
            "CONTRACT §1",
            "hand",
            say(
                "hand {hand} is out of order: table {table} expects hand {last_hand}",
                hand=event.hand,
                table=event.table,
                last_hand=table.last_hand + 1,
            ),
        )
    if not is_correction:
        check_open_segment(state, event.segment, table)  # rule CL-3
        check_dealt_in_time(schedule, state, event, table)  # rule CL-3
    table.replay(
        table_play(fmt, table, {**table.results(), event.hand: event.result}, event.hand), state
    )
    table.hands[event.hand] = event
    if at is not None and event.hand not in table.entered:
        # rule CL-1: when hand 8 of the final was entered starts its break
        table.completed_at[event.hand] = at
    table.entered.add(event.hand)
    state.started = True


def void(fmt: Format, state: RoundState, event: HandVoided) -> None:
    """Withdraw a hand (CONTRACT §1); the table's later hands are scored anew."""
    table = seated_table(state, event.segment, event.table)
    if event.hand not in table.hands:
        raise IllegalMove(
            "CONTRACT §1",
            "hand",
            say("table {table} has no hand {hand} to void", table=event.table, hand=event.hand),
        )
    results = table.results()
    del results[event.hand]
    table.replay(table_play(fmt, table, results, event.hand), state)
    del table.hands[event.hand]


def penalize(
    fmt: Format,
    players: Mapping[PlayerId, PlayerRegistered],
    state: RoundState,
    event: PenaltyGiven,
) -> None:
    """rules PN-1, HS-6: a deduction in the play score (SC-1) that is not a hand, so it
    never counts in a tie-break (ST-4)."""
    check_in_round(players, state, event.player, "player")
    bound = fmt.max_penalty
    if not -bound <= event.points < 0:
        # rules PN-1, HS-6: a deduction, on the format's scale of points
        raise MalformedInput(
            "PN-1",
            "points",
            say(
                "a penalty is a deduction of 1 to {bound:,} points in this format (give it as "
                "-1 to -{bound}), not {points}",
                bound=bound,
                points=short(event.points),
            ),
        )
    state.play[event.player] = state.play.get(event.player, 0) + event.points  # rules PN-1, SC-1
    state.penalties.append(event)


def table_play(
    fmt: Format, table: TableSegment, results: Mapping[int, HandResult], changed: int
) -> TablePlay:
    """The table's hands played in order by the format's ruleset, with hand `changed`
    entered, corrected or voided. A refusal of a later hand refuses the change: in an
    Ari Ari game every hand depends on the ones before it."""
    ruleset = RULESETS[fmt.ruleset]
    try:
        return ruleset.play(table.seats, sorted(results.items()), fmt, table.settlements, changed)
    except HandRefused as refused:
        violation = refused.violation
        if refused.hand == changed:
            raise violation from refused
        raise IllegalMove(
            violation.rule,
            "hand",
            say(
                "this change to hand {changed} would make hand {hand} illegal ({field}: "
                "{message}); correct or void the later hands first",
                changed=changed,
                hand=refused.hand,
                field=violation.field,
                message=violation.message,
            ),
        ) from refused


def fill_table_state(state: RoundState | None, event: HandRecorded) -> HandRecorded:
    """An Ari Ari hand with the dealer and counters it is played with filled in where
    the judge left them out, so the log records them and a replay checks them (rules
    AA-6, AA-8). Any other hand, or one the table cannot place yet, is returned as is."""
    table = None if state is None else state.tables.get((event.segment, event.table))
    if table is None or table.game is None or not isinstance(event.result, AriAriResult):
        return event
    game = table.game
    played = {hand.number: hand for hand in game.hands}
    if event.hand in played:
        dealer, counters = played[event.hand].dealer, played[event.hand].counters
    elif event.hand == table.last_hand + 1 and game.dealer is not None:
        dealer, counters = game.dealer, game.counters
    else:
        return event
    return replace(event, result=with_table_state(event.result, dealer, counters))
