"""The bound of every number a log line or a request can carry (issue 14).

A number with no bound let a judge put 10^30 points on a player, and a schedule in year
9999 broke the feeds for good. Each bound here is chosen from the rules it cites, with room
for any real event; the format sets the bounds that depend on its scale (a penalty, a
direct-points hand: `Format.max_penalty`, `Format.max_hand_points`). Every refusal names
the field, the bound and the rule, in the words of the person who entered it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from app.domain.errors import MalformedInput, say


@dataclass(frozen=True)
class Bound:
    """The numbers a field may hold: `low` to `high`, both included, by `rule`."""

    low: int
    high: int
    rule: str
    what: str  # what the number is, in the judge's or the organizer's words

    def check(self, value: int, field: str) -> int:
        if not self.low <= value <= self.high:
            raise MalformedInput(self.rule, field, self.refusal(value))
        return value

    def refusal(self, value: object) -> str:
        return say(
            "{value} is not {what}; it must be from {low} to {high}",
            value=short(value),
            what=self.what,
            low=self.low,
            high=self.high,
        )


def short(value: object) -> str:
    """A number as the message shows it: 10^30 is not printed out in 31 digits."""
    text = repr(value)
    return text if len(text) <= 20 else f"{text[:8]}...({len(text)} digits)"


# rule FM-1: elimination rounds 1..7, then the final. A custom format may have fewer.
MAX_ROUNDS = 8
# rule FM-8: round 1 has 4 halves per group, the WSOM 2007 final 2 sessions; a custom
# format (an Ari Ari round of games, say) may have more, never dozens in one round.
MAX_SEGMENTS = 16
# rule FM-9: no hall seats more than 10,000 players; table numbers are unique in a round
# (CONTRACT §1) and leave room for numbering each group's tables apart.
MAX_PLAYERS = 10_000
MAX_TABLE = MAX_PLAYERS
# rule AA-23: an Ari Ari game takes at most 100 hands, more than any WSOM segment's 16
# (FM-5); a segment's hands and a hand's number are bounded by it.
MAX_HANDS = 100
# rule CL-1: limits and breaks are tens of minutes; none is longer than a whole day, and
# neither is an extension the organizer gives (CL-2).
MAX_MINUTES = 24 * 60
# rule CL-2: an early start is at most 5 (WSOM 2008) or 10 (WSOM 2007) minutes.
MAX_EARLY_START = 60
# rule HS-3: the value of a winning hand is at most 320 in both presets; a custom format
# may score on another scale, never beyond 10,000.
MAX_HAND_VALUE = 10_000
# rule PR-2: prize money by rank; no prize is more than a hundred million, and no place
# list longer than the field.
MAX_PRIZE = 100_000_000
# rule PR-3: a shared prize is an exact fraction (1000/3); its denominator is at most the
# number of players sharing it, times the cents of a decimal amount.
MAX_PRIZE_DENOMINATOR = 100 * MAX_PLAYERS
# rule SC-3: a rate is a simple fraction such as 1/4 (or a decimal such as 0.125); a
# carry-in after 8 rounds of rates over at most 1000 stays a number a display can show.
MAX_RATE_DENOMINATOR = 1000
# rule FM-8 / CL-6: every time in the log (a schedule, a deal, an early start, `at`,
# `sent`) lies in these years. The presets are the WSOM 2007 and 2008 events; year 9999
# overflowed every clock computed from it (a deadline is the start plus minutes).
MIN_YEAR = 2000
MAX_YEAR = 2100
# rule SE-1, ST-5: a seed is a word or a hex string the organizer can read out and retype.
MAX_SEED_LENGTH = 128
# CONTRACT §1: a player id is a short name or a number that fits the database's integers.
MAX_PLAYER_ID_LENGTH = 64
MAX_PLAYER_NUMBER = 2**31 - 1
# rule PN-1: a custom format may set its own bound on a penalty, never above this (four
# times the points an Ari Ari player starts with, AA-1).
MAX_PENALTY = 100_000
# CONTRACT §3: the Idempotency-Key header's length, the same for a hand line's `id`.
MAX_KEY_LENGTH = 200

ROUND = Bound(1, MAX_ROUNDS, "FM-1", say("a round number (a tournament has at most 8 rounds)"))
SEGMENT = Bound(
    1, MAX_SEGMENTS, "FM-8", say("a segment number (a round has at most {most})", most=MAX_SEGMENTS)
)
TABLE = Bound(
    1, MAX_TABLE, "FM-9", say("a table number (a hall has at most {most})", most=MAX_TABLE)
)
HAND = Bound(
    1, MAX_HANDS, "FM-7", say("a hand number (a segment has at most {most} hands)", most=MAX_HANDS)
)
CYCLE = Bound(1, MAX_HANDS // 4, "SE-8", say("a cycle number"))
MINUTES = Bound(1, MAX_MINUTES, "CL-2", say("a number of minutes (at most a whole day)"))
ADVANCE = Bound(4, MAX_PLAYERS, "FM-6", say("a number of players who advance"))


def check_rate(rate: Fraction, text: str, field: str) -> Fraction:
    """rule SC-3: a carry-over rate is part of the score (at most all of it), a simple
    fraction such as 1/4 (every carry-in is the total times the rates of its rounds)."""
    if rate > 1:
        raise MalformedInput("SC-3", field, say("{text} is more than the whole score", text=text))
    if rate.denominator > MAX_RATE_DENOMINATOR:
        raise MalformedInput(
            "SC-3",
            field,
            say(
                "{text} is not a simple rate: its denominator is above {max_rate_denominator}",
                text=text,
                max_rate_denominator=MAX_RATE_DENOMINATOR,
            ),
        )
    return rate
