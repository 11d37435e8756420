"""The tournament log (CONTRACT.md §1): one JSON object per line, parsed into events.

Parsing checks shape only (types, required and unknown fields); whether an event is
allowed at that point of the tournament is decided by `Tournament.apply`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from app.domain import bounds
from app.domain.calls import CallMade, CallResolved, CallTaken, check_note, check_reason
from app.domain.ema_ids import check_ema_id
from app.domain.errors import MalformedInput, say
from app.domain.formats import Format, format_from_log
from app.domain.hands import PlayerId, is_player_id
from app.domain.languages import LANGUAGES
from app.domain.numbers import exact, parse_amount, parse_rate
from app.domain.rulesets import HandResult, parse_result, result_to_log
from app.domain.text import check_nesting, check_tree

# Fields any line may carry: who entered it and when (written by the server, issue 4).
# They never change what the line means, so replay ignores them; `at` is a time all the
# same, bounded as every time of a line coming in is (issue 32, `written_at`).
METADATA_FIELDS = frozenset({"at", "by"})


@dataclass(frozen=True)
class TournamentDeclared:
    name: str
    format: Format
    raw_format: str | dict[str, Any]
    # The pages' language for a reader whose device and browser name none we speak (issue 17)
    language: str | None = None


@dataclass(frozen=True)
class LanguageSet:
    """The organizer changes the tournament's default language (issue 17)."""

    language: str


@dataclass(frozen=True)
class PlayerRegistered:
    player: PlayerId
    name: str
    group: str
    substitute: bool = False
    country: str | None = None
    # The name in the player's own script beside the Latin one ("山田 剛" for "Takeshi
    # Yamada"): shown where the reader's language writes it so, and found by search (issue 17)
    local_name: str | None = None
    # The player's European Mahjong Association number ("04160092"), for the results EMA
    # ranks (issue 18, part 6; app/domain/ema_ids.py checks its form)
    ema_id: str | None = None


@dataclass(frozen=True)
class EmaIdSet:
    """The organizer sets or corrects a registered player's EMA number (issue 18, part 6)."""

    player: PlayerId
    ema_id: str


@dataclass(frozen=True)
class CheckedIn:
    """A player checks in for a round (issue 18, part 4; app/domain/checkin.py, CI-1 to
    CI-5): `how` is "slip" (the code on their phone) or "desk" (the organizer). `at` is the
    line's own `at`, which dates it (CI-5: late or not); the server stamps it."""

    round: int
    player: PlayerId
    how: str
    at: datetime | None = None


@dataclass(frozen=True)
class PrizesSet:
    amounts: tuple[Fraction, ...]


@dataclass(frozen=True)
class CarryOverRateSet:
    round: int
    rate: Fraction


@dataclass(frozen=True)
class SeatingRecorded:
    round: int
    segment: int
    table: int
    seats: tuple[PlayerId, PlayerId, PlayerId, PlayerId]  # east, south, west, north
    cycle: int | None = None


@dataclass(frozen=True)
class HandRecorded:
    round: int
    segment: int
    table: int
    hand: int
    result: HandResult
    key: str | None = None  # the idempotency key
    reason: str | None = None  # why a correction was made, when it is one
    call: str | None = None  # the judge's call a correction answers (rule CA-5)


@dataclass(frozen=True)
class PenaltyGiven:
    round: int
    player: PlayerId
    points: int
    reason: str
    call: str | None = None  # the judge's call it answers (rule CA-5)
    table: int | None = None  # where the head judge gave it (their token names no table)


@dataclass(frozen=True)
class HandVoided:
    round: int
    segment: int
    table: int
    hand: int
    reason: str | None = None
    call: str | None = None  # the judge's call it answers (rule CA-5)


@dataclass(frozen=True)
class RoundEnded:
    round: int
    draw_seed: str | None = None
    # why the organizer ended the round with tables unplayed or unfinished (their
    # confirmation: the server refuses such a round end without one)
    reason: str | None = None


@dataclass(frozen=True)
class DrawRecorded:
    """rule SE-1: the seed of a round's seating draw; replay reruns the draw from it."""

    round: int
    seed: str


@dataclass(frozen=True)
class ScheduleSet:
    """rule FM-8: the scheduled start of a segment (for round 1, of one group's segment)."""

    round: int
    segment: int
    start: datetime
    group: str | None = None


@dataclass(frozen=True)
class DealRecorded:
    """rule CL-3: the moment a hand's tiles were completely dealt.

    `time` is the moment the rules judge: the server's clock for a deal sent without one, the
    tablet's corrected clock for a deal its outbox sent (perhaps long after, from offline).
    `sent` is the tablet's clock when it sent the line, `override` the head judge's reason
    for recording it by hand; neither changes what the line means (docs/log-format.md)."""

    round: int
    segment: int
    table: int
    hand: int
    time: datetime
    sent: datetime | None = None
    override: str | None = None


@dataclass(frozen=True)
class EarlyStart:
    """rule CL-2: a table started before its scheduled start, all four players agreeing."""

    round: int
    segment: int
    table: int
    time: datetime
    agreed: bool
    sent: datetime | None = None  # as on a deal line
    override: str | None = None


@dataclass(frozen=True)
class ExtensionGiven:
    """rule CL-2: extra minutes the organizer gives one table (the TV table)."""

    round: int
    segment: int
    table: int
    minutes: int


@dataclass(frozen=True)
class SegmentClosed:
    """The organizer closes a segment (for one group in round 1): its tables take no new
    hand or deal any more; corrections of its hands are still accepted."""

    round: int
    segment: int
    group: str | None = None


@dataclass(frozen=True)
class PlayAllOrdered:
    """rule PN-2: the table plays every planned hand; its clock no longer ends the segment."""

    round: int
    segment: int
    table: int
    reason: str


Event = (
    TournamentDeclared
    | PlayerRegistered
    | PrizesSet
    | CarryOverRateSet
    | SeatingRecorded
    | HandRecorded
    | PenaltyGiven
    | HandVoided
    | RoundEnded
    | DrawRecorded
    | ScheduleSet
    | DealRecorded
    | EarlyStart
    | ExtensionGiven
    | PlayAllOrdered
    | SegmentClosed
    | LanguageSet
    | EmaIdSet
    | CallMade
    | CallTaken
    | CallResolved
    | CheckedIn
)


class _Fields:
    """Reads the fields of one line, naming the field and rule in every complaint."""

    def __init__(
        self,
        raw: Mapping[str, Any],
        kind: str,
        required: set[str],
        optional: set[str],
        *,
        stored: bool = False,
    ):
        self.raw = raw
        # a line read back from the database: the bounds on times that came in with issue
        # 14 hold a line coming in, never one already stored (see parse_event)
        self.stored = stored
        missing = required - set(raw)
        if missing:
            raise MalformedInput(
                "CONTRACT §1", sorted(missing)[0], say("is required in a {kind} line", kind=kind)
            )
        unknown = set(raw) - required - optional - METADATA_FIELDS - {"type"}
        if unknown:
            raise MalformedInput(
                "CONTRACT §1", sorted(unknown)[0], say("is not a field of a {kind} line", kind=kind)
            )

    def positive(self, key: str, rule: str = "CONTRACT §1") -> int:
        value = self.raw[key]
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise MalformedInput(
                rule, key, say("must be a positive integer, got {value}", value=repr(value))
            )
        return FIELD_BOUNDS[key].check(value, key)

    def integer(self, key: str, rule: str = "CONTRACT §1") -> int:
        value = self.raw[key]
        if not isinstance(value, int) or isinstance(value, bool):
            raise MalformedInput(
                rule, key, say("must be an integer, got {value}", value=repr(value))
            )
        return value

    def text(
        self,
        key: str,
        rule: str = "CONTRACT §1",
        *,
        optional: bool = False,
        longest: int | None = None,
    ) -> str | None:
        if optional and self.raw.get(key) is None:
            return None
        value = self.raw[key]
        if not isinstance(value, str) or not value.strip():
            raise MalformedInput(
                rule, key, say("must be a non-empty string, got {value}", value=repr(value))
            )
        if longest is not None and len(value) > longest:
            raise MalformedInput(
                rule,
                key,
                say(
                    "is {length} characters long; at most {longest} are kept",
                    length=len(value),
                    longest=longest,
                ),
            )
        return value

    def time(self, key: str, rule: str) -> datetime:
        return parse_time(self.raw[key], key, rule, stored=self.stored)

    def where(self) -> tuple[int, int, int]:
        """The (round, segment, table) every table event names."""
        return self.positive("round"), self.positive("segment"), self.positive("table")

    def player(self, key: str) -> PlayerId:
        value = self.raw[key]
        if not is_player_id(value):
            raise MalformedInput(
                "CONTRACT §1",
                key,
                say("must be a player id (string or integer), got {value}", value=repr(value)),
            )
        assert isinstance(value, str | int)
        return value


# The bound of every positive number a line names (app/domain/bounds.py): the rules check
# each against the tournament too (this format's rounds, this segment's hands), but a
# number beyond any tournament is refused here, whatever the line.
FIELD_BOUNDS: Mapping[str, bounds.Bound] = {
    "round": bounds.ROUND,
    "segment": bounds.SEGMENT,
    "table": bounds.TABLE,
    "hand": bounds.HAND,
    "cycle": bounds.CYCLE,
    "minutes": bounds.MINUTES,
}


def _tournament(f: _Fields) -> TournamentDeclared:
    raw_format = f.raw["format"]
    name = f.text("name")
    assert name is not None
    language = _language(f) if "language" in f.raw else None
    return TournamentDeclared(name, format_from_log(raw_format), raw_format, language)


def _language(f: _Fields) -> str:
    language = f.raw["language"]
    if language not in LANGUAGES:
        raise MalformedInput(
            "CONTRACT §1",
            "language",
            say(
                "must be one of {languages} (issue 17), got {language}",
                languages=", ".join(LANGUAGES),
                language=repr(language),
            ),
        )
    assert isinstance(language, str)
    return language


def _language_set(f: _Fields) -> LanguageSet:
    return LanguageSet(_language(f))


def _player(f: _Fields) -> PlayerRegistered:
    group = f.raw["group"]
    if group not in ("A", "B"):
        raise MalformedInput(
            "FM-2", "group", say('must be "A" or "B", got {group}', group=repr(group))
        )
    substitute = f.raw.get("substitute", False)
    if not isinstance(substitute, bool):
        raise MalformedInput("FM-9", "substitute", say("must be true or false"))
    name = f.text("name")
    assert name is not None
    return PlayerRegistered(
        f.player("id"),
        name,
        group,
        substitute,
        f.text("country", optional=True),
        f.text("local_name", optional=True),  # bounded as a name is (text.TEXT_LIMITS)
        check_ema_id(f.raw["ema_id"]) if f.raw.get("ema_id") is not None else None,
    )


def _ema_id(f: _Fields) -> EmaIdSet:
    return EmaIdSet(f.player("player"), check_ema_id(f.raw["ema_id"]))


def _check_in(f: _Fields) -> CheckedIn:
    how = f.raw["how"]
    if how not in ("slip", "desk"):
        raise MalformedInput(
            "CI-2", "how", say('must be "slip" or "desk", got {how}', how=repr(how))
        )
    return CheckedIn(
        f.positive("round"), f.player("player"), how, written_at(f.raw, stored=f.stored)
    )


def _prizes(f: _Fields) -> PrizesSet:
    amounts = f.raw["amounts"]
    if not isinstance(amounts, list):
        raise MalformedInput(
            "PR-2", "amounts", say("must be a list of prize amounts, index 0 = rank 1")
        )
    if len(amounts) > bounds.MAX_PLAYERS:
        raise MalformedInput(
            "PR-2",
            "amounts",
            say(
                "lists {amounts} places; at most {max_players}",
                amounts=len(amounts),
                max_players=bounds.MAX_PLAYERS,
            ),
        )
    parsed = []
    for index, raw in enumerate(amounts):
        try:
            amount = parse_amount(raw)
        except ValueError as error:
            raise MalformedInput("PR-2", f"amounts[{index}]", error.args[0]) from error
        if amount < 0:
            raise MalformedInput("PR-2", f"amounts[{index}]", say("a prize cannot be negative"))
        if amount > bounds.MAX_PRIZE:
            raise MalformedInput(
                "PR-2",
                f"amounts[{index}]",
                say("a prize is at most {max_prize:,}", max_prize=bounds.MAX_PRIZE),
            )
        if amount.denominator > bounds.MAX_PRIZE_DENOMINATOR:
            # rule PR-3: a shared prize is split among at most the whole field, in cents
            raise MalformedInput(
                "PR-3",
                f"amounts[{index}]",
                say("{raw} is not a sum of money a place can share", raw=repr(raw)),
            )
        parsed.append(amount)
    return PrizesSet(tuple(parsed))


def _carry_over_rate(f: _Fields) -> CarryOverRateSet:
    rate_text = f.raw["rate"]
    if not isinstance(rate_text, str):
        raise MalformedInput("SC-3", "rate", say('must be an exact string such as "1/4"'))
    try:
        rate = parse_rate(rate_text)
    except ValueError as error:
        raise MalformedInput("SC-3", "rate", error.args[0]) from error
    bounds.check_rate(rate, rate_text, "rate")
    return CarryOverRateSet(f.positive("round", "SC-3"), rate)


def _seating(f: _Fields) -> SeatingRecorded:
    seats = f.raw["seats"]
    if not isinstance(seats, list) or len(seats) != 4:
        raise MalformedInput(
            "FM-9", "seats", say("must list 4 player ids: [east, south, west, north]")
        )
    for index, player in enumerate(seats):
        if not is_player_id(player):
            raise MalformedInput(
                "CONTRACT §1",
                f"seats[{index}]",
                say("must be a player id, got {player}", player=repr(player)),
            )
    cycle = f.positive("cycle", "SE-8") if "cycle" in f.raw else None
    return SeatingRecorded(
        f.positive("round"),
        f.positive("segment"),
        f.positive("table"),
        (seats[0], seats[1], seats[2], seats[3]),
        cycle,
    )


def _hand(f: _Fields) -> HandRecorded:
    key = f.text("id", "CONTRACT §3", optional=True, longest=bounds.MAX_KEY_LENGTH)
    return HandRecorded(
        f.positive("round"),
        f.positive("segment"),
        f.positive("table"),
        f.positive("hand"),
        parse_result(f.raw["result"]),
        key,
        f.text("reason", optional=True),
        _call_named(f),
    )


def _penalty(f: _Fields) -> PenaltyGiven:
    points = f.integer("points", "PN-1")
    if points >= 0:
        # rule PN-1, HS-6: a penalty is a deduction; the format bounds it (Tournament.apply)
        raise MalformedInput(
            "PN-1",
            "points",
            say(
                "a penalty is a deduction: give the points taken off as a negative number such "
                "as -5, not {points}",
                points=bounds.short(points),
            ),
        )
    reason = f.text("reason", "PN-1")
    assert reason is not None
    table = f.positive("table") if "table" in f.raw else None
    return PenaltyGiven(
        f.positive("round"), f.player("player"), points, reason, _call_named(f), table
    )


def _void(f: _Fields) -> HandVoided:
    return HandVoided(
        f.positive("round"),
        f.positive("segment"),
        f.positive("table"),
        f.positive("hand"),
        f.text("reason", optional=True),
        _call_named(f),
    )


def _call_named(f: _Fields) -> str | None:
    """rule CA-5: the call a ruling answers, by its id."""
    return f.text("call", "CA-5", optional=True, longest=bounds.MAX_KEY_LENGTH)


def _call(f: _Fields) -> CallMade:
    call = f.text("id", "CA-2", longest=bounds.MAX_KEY_LENGTH)
    assert call is not None
    reason = check_reason(f.raw["reason"])
    return CallMade(f.positive("round"), f.positive("table"), reason, call)


def _call_taken(f: _Fields) -> CallTaken:
    call = f.text("call", "CA-3", longest=bounds.MAX_KEY_LENGTH)
    assert call is not None
    return CallTaken(f.positive("round"), f.positive("table"), call)


def _call_resolved(f: _Fields) -> CallResolved:
    call = f.text("call", "CA-3", longest=bounds.MAX_KEY_LENGTH)
    note = f.raw["note"]
    if not isinstance(note, str):
        raise MalformedInput("CA-3", "note", say("must be a string, got {value}", value=repr(note)))
    assert call is not None
    return CallResolved(f.positive("round"), f.positive("table"), call, check_note(note))


def _round_end(f: _Fields) -> RoundEnded:
    return RoundEnded(
        f.positive("round"),
        f.text("draw_seed", "ST-5", optional=True, longest=bounds.MAX_SEED_LENGTH),
        f.text("reason", "FM-1", optional=True),
    )


def parse_time(raw: object, field: str, rule: str, *, stored: bool = False) -> datetime:
    """An ISO 8601 instant with its offset ("2026-11-29T09:00:00Z"), as UTC. A time without
    an offset is refused: a hall, a server and a log reader may sit in different zones.

    Every time of a line (a schedule's start, a deal's `time`, `sent`, `at`) and every time
    a request names is held here to the years of bounds.MIN_YEAR to bounds.MAX_YEAR (rule
    FM-8's schedule, issue 14); a `stored` line's time is read as it is."""
    if not isinstance(raw, str):
        raise MalformedInput(
            rule,
            field,
            say('must be an ISO 8601 time such as "{example_time}"', example_time=_EXAMPLE_TIME),
        )
    try:
        value = datetime.fromisoformat(raw)
    except ValueError as error:
        raise MalformedInput(
            rule, field, say("{raw} is not an ISO 8601 time", raw=repr(raw[:40]))
        ) from error
    if value.tzinfo is None:
        raise MalformedInput(
            rule,
            field,
            say(
                '{raw} needs its UTC offset, e.g. "{example_time}"',
                raw=repr(raw),
                example_time=_EXAMPLE_TIME,
            ),
        )
    # year 1 or 9999 with an offset overflows before it is even in UTC, and later every
    # deadline computed from it (the feeds answered 500): such a time is a typing error. A
    # line read back from the database is read as it is (see parse_event).
    if not stored and not bounds.MIN_YEAR <= value.year <= bounds.MAX_YEAR:
        raise MalformedInput(
            rule,
            field,
            say(
                "{raw} is in year {year}; a tournament's times lie in the years {min_year} to "
                "{max_year}",
                raw=repr(raw),
                year=value.year,
                min_year=bounds.MIN_YEAR,
                max_year=bounds.MAX_YEAR,
            ),
        )
    try:
        return value.astimezone(UTC)
    except OverflowError as error:  # "0001-01-01T00:00:00+01:00" is before year 1 in UTC
        raise MalformedInput(
            rule, field, say("{raw} is outside the calendar in UTC", raw=repr(raw))
        ) from error


def written_at(raw: Mapping[str, Any], *, stored: bool = False) -> datetime | None:
    """When the server wrote a line, by its own clock (rule CL-6): the `at` it stamps on
    every line (issue 4), or None for a line without one (a log another program wrote). A
    time as any other of the line: in the schedule's years unless `stored` (parse_time)."""
    if "at" not in raw:
        return None
    return parse_time(raw["at"], "at", "CL-6", stored=stored)


def format_time(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


_EXAMPLE_TIME = "2026-11-29T09:00:00Z"


def _draw(f: _Fields) -> DrawRecorded:
    seed = f.text("seed", "SE-1", longest=bounds.MAX_SEED_LENGTH)
    assert seed is not None
    return DrawRecorded(f.positive("round"), seed)


def _group(f: _Fields) -> str | None:
    group = f.raw.get("group")
    if group is not None and group not in ("A", "B"):
        raise MalformedInput(
            "FM-2", "group", say('must be "A" or "B", got {group}', group=repr(group))
        )
    return group


def _schedule(f: _Fields) -> ScheduleSet:
    return ScheduleSet(
        f.positive("round"), f.positive("segment"), f.time("start", "FM-8"), _group(f)
    )


def _deal(f: _Fields) -> DealRecorded:
    sent, override = _tablet_fields(f, "CL-3")
    return DealRecorded(*f.where(), f.positive("hand"), f.time("time", "CL-3"), sent, override)


def _early_start(f: _Fields) -> EarlyStart:
    agreed = f.raw["agreed"]
    if agreed is not True:
        raise MalformedInput(
            "CL-2", "agreed", say("an early start needs all four players to agree")
        )
    sent, override = _tablet_fields(f, "CL-2")
    return EarlyStart(*f.where(), f.time("time", "CL-2"), agreed, sent, override)


def _tablet_fields(f: _Fields, rule: str) -> tuple[datetime | None, str | None]:
    """A deal's or an early start's `sent` (the tablet's clock when it sent the line) and
    `override` (why the head judge recorded it): kept for the audit list, never judged."""
    sent = f.time("sent", "CL-6") if "sent" in f.raw else None
    return sent, f.text("override", rule, optional=True)


def _extension(f: _Fields) -> ExtensionGiven:
    return ExtensionGiven(*f.where(), f.positive("minutes", "CL-2"))


def _segment_end(f: _Fields) -> SegmentClosed:
    return SegmentClosed(f.positive("round"), f.positive("segment"), _group(f))


def _play_all(f: _Fields) -> PlayAllOrdered:
    reason = f.text("reason", "PN-2")
    assert reason is not None
    return PlayAllOrdered(*f.where(), reason)


_TABLE = {"round", "segment", "table"}

_LINE_TYPES: Mapping[str, tuple[set[str], set[str], Callable[[_Fields], Event]]] = {
    "tournament": ({"name", "format"}, {"language"}, _tournament),
    "player": (
        {"id", "name", "group"},
        {"substitute", "country", "local_name", "ema_id"},
        _player,
    ),
    "prizes": ({"amounts"}, set(), _prizes),
    "carry_over_rate": ({"round", "rate"}, set(), _carry_over_rate),
    "seating": ({"round", "segment", "table", "seats"}, {"cycle"}, _seating),
    "hand": ({"round", "segment", "table", "hand", "result"}, {"id", "reason", "call"}, _hand),
    "penalty": ({"round", "player", "points", "reason"}, {"call", "table"}, _penalty),
    "void": ({"round", "segment", "table", "hand"}, {"reason", "call"}, _void),
    "round_end": ({"round"}, {"draw_seed", "reason"}, _round_end),
    "draw": ({"round", "seed"}, set(), _draw),
    "schedule": ({"round", "segment", "start"}, {"group"}, _schedule),
    "deal": (_TABLE | {"hand", "time"}, {"sent", "override"}, _deal),
    "early_start": (_TABLE | {"time", "agreed"}, {"sent", "override"}, _early_start),
    "extension": (_TABLE | {"minutes"}, set(), _extension),
    "play_all": (_TABLE | {"reason"}, set(), _play_all),
    "segment_end": ({"round", "segment"}, {"group"}, _segment_end),
    "language": ({"language"}, set(), _language_set),
    "ema_id": ({"player", "ema_id"}, set(), _ema_id),
    # the head judge's desk (issue 18, part 3; rules CA-1 to CA-5)
    "call": ({"round", "table", "reason", "id"}, set(), _call),
    "call_taken": ({"round", "table", "call"}, set(), _call_taken),
    "call_resolved": ({"round", "table", "call", "note"}, set(), _call_resolved),
    "check_in": ({"round", "player", "how"}, set(), _check_in),
}


def line_type(event: Event) -> str:
    """The `type` of the log line that records `event`."""
    return _TYPE_OF[type(event)]


def parse_event(raw: object, *, stored: bool = False) -> Event:
    """One decoded JSON object of the log as an event; raises MalformedInput.

    A line coming in (a request, an import, a log to replay) is held to the text and
    nesting bounds (app/domain/text.py) and every time it carries, its `at` included, to
    the years of a schedule (parse_time); a `stored` line was held to them when it came in,
    or came in before they existed, and is read as it is: a tournament in the database
    never becomes unreadable."""
    if not isinstance(raw, dict):
        raise MalformedInput("CONTRACT §1", "line", say("must be a JSON object"))
    if not stored:
        check_tree(raw, "CONTRACT §1")
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in _LINE_TYPES:
        raise MalformedInput(
            "CONTRACT §1",
            "type",
            say(
                "unknown line type {kind}; expected one of {line_types}",
                kind=repr(kind),
                line_types=", ".join(_LINE_TYPES),
            ),
        )
    required, optional, build = _LINE_TYPES[kind]
    event = build(_Fields(raw, kind, required, optional, stored=stored))
    if not stored:
        # issue 32: any line's `at`, not only the lines whose `at` the rules read (a hand,
        # a call, a check-in): an import stores the line as it came, and exports it again
        written_at(raw)
    return event


def log_lines(text: str) -> list[str]:
    """A JSON Lines text's lines: split at each new line alone, as JSON Lines are (a line may
    end in CR LF). Python's `splitlines` also splits at U+2028, U+2029, U+0085 and the
    other separators a JSON string may hold as they are, and cut such a line in two
    (issue 32)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the new line that ends the last line starts none
    return [line.removesuffix("\r") for line in lines]


def decode_line(text: str, *, stored: bool = False) -> Any:
    if not stored:
        check_nesting(text, "CONTRACT §1")  # before the parser recurses into it (issue 14)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise MalformedInput(
            "CONTRACT §1",
            "line",
            say(
                "is not valid JSON: {reason} at column {column}",
                reason=error.msg,
                column=error.colno,
            ),
        ) from error
    except ValueError as error:
        # an integer of thousands of digits (Python's limit on converting one): no
        # number of a tournament is near it
        raise MalformedInput(
            "CONTRACT §1", "line", say("holds a number too long to read: {error}", error=error)
        ) from error


def parse_line(text: str) -> Event:
    return parse_event(decode_line(text))


def line_time(raw: object, *, stored: bool = False) -> datetime | None:
    """When a line happened, where it says: a deal's or early start's `time`, else the
    `at` the server stamped on it. Lines without one (registrations, schedules) are timeless.
    A deal or early start with both is in the log from the later of the two: one recorded
    on a tablet offline happened at its `time`, but the log has it only since its `at`."""
    if not isinstance(raw, dict):
        return None
    times = [written_at(raw, stored=stored)]
    if raw.get("type") in ("deal", "early_start") and "time" in raw:
        times.append(parse_time(raw["time"], "time", "CONTRACT §1", stored=stored))
    return max((time for time in times if time is not None), default=None)


def event_to_log(event: Event) -> dict[str, Any]:
    """The log line of an event: the inverse of parse_event, used to write and export logs."""
    if isinstance(event, TournamentDeclared):
        declared = {"type": "tournament", "name": event.name, "format": event.raw_format}
        if event.language is not None:
            declared["language"] = event.language
        return declared
    if isinstance(event, LanguageSet):
        return {"type": "language", "language": event.language}
    if isinstance(event, PlayerRegistered):
        line: dict[str, Any] = {
            "type": "player",
            "id": event.player,
            "name": event.name,
            "group": event.group,
        }
        if event.substitute:
            line["substitute"] = True
        if event.country is not None:
            line["country"] = event.country
        if event.local_name is not None:
            line["local_name"] = event.local_name
        if event.ema_id is not None:
            line["ema_id"] = event.ema_id
        return line
    if isinstance(event, EmaIdSet):
        return {"type": "ema_id", "player": event.player, "ema_id": event.ema_id}
    if isinstance(event, CheckedIn):
        # `at` stays out: the server stamps every line it writes with its own (section 2)
        return {"type": "check_in", "round": event.round, "player": event.player, "how": event.how}
    if isinstance(event, PrizesSet):
        return {
            "type": "prizes",
            "amounts": [int(a) if a.denominator == 1 else exact(a) for a in event.amounts],
        }
    if isinstance(event, CarryOverRateSet):
        return {"type": "carry_over_rate", "round": event.round, "rate": exact(event.rate)}
    if isinstance(event, SeatingRecorded):
        line = {
            "type": "seating",
            "round": event.round,
            "segment": event.segment,
            "table": event.table,
            "seats": list(event.seats),
        }
        if event.cycle is not None:
            line["cycle"] = event.cycle
        return line
    if isinstance(event, HandRecorded):
        line = {
            "type": "hand",
            "round": event.round,
            "segment": event.segment,
            "table": event.table,
            "hand": event.hand,
            "result": result_to_log(event.result),
        }
        if event.key is not None:
            line["id"] = event.key
        if event.reason is not None:
            line["reason"] = event.reason
        if event.call is not None:
            line["call"] = event.call
        return line
    if isinstance(event, PenaltyGiven):
        line = {
            "type": "penalty",
            "round": event.round,
            "player": event.player,
            "points": event.points,
            "reason": event.reason,
        }
        if event.call is not None:
            line["call"] = event.call
        if event.table is not None:
            line["table"] = event.table
        return line
    if isinstance(event, HandVoided):
        line = {
            "type": "void",
            "round": event.round,
            "segment": event.segment,
            "table": event.table,
            "hand": event.hand,
        }
        if event.reason is not None:
            line["reason"] = event.reason
        if event.call is not None:
            line["call"] = event.call
        return line
    if isinstance(event, RoundEnded):
        line = {"type": "round_end", "round": event.round}
        if event.draw_seed is not None:
            line["draw_seed"] = event.draw_seed
        if event.reason is not None:
            line["reason"] = event.reason
        return line
    if isinstance(event, DrawRecorded):
        return {"type": "draw", "round": event.round, "seed": event.seed}
    if isinstance(event, ScheduleSet):
        line = {
            "type": "schedule",
            "round": event.round,
            "segment": event.segment,
            "start": format_time(event.start),
        }
        if event.group is not None:
            line["group"] = event.group
        return line
    if isinstance(event, SegmentClosed):
        closed = {"type": "segment_end", "round": event.round, "segment": event.segment}
        return closed if event.group is None else {**closed, "group": event.group}
    if isinstance(event, CallMade | CallTaken | CallResolved):
        return _call_log(event)
    where = {"round": event.round, "segment": event.segment, "table": event.table}
    if isinstance(event, DealRecorded):
        deal = {"type": "deal", **where, "hand": event.hand, "time": format_time(event.time)}
        return {**deal, **_tablet_log_fields(event)}
    if isinstance(event, EarlyStart):
        start = {"type": "early_start", **where, "time": format_time(event.time), "agreed": True}
        return {**start, **_tablet_log_fields(event)}
    if isinstance(event, ExtensionGiven):
        return {"type": "extension", **where, "minutes": event.minutes}
    return {"type": "play_all", **where, "reason": event.reason}


def _call_log(event: CallMade | CallTaken | CallResolved) -> dict[str, Any]:
    where = {"round": event.round, "table": event.table}
    if isinstance(event, CallMade):
        return {"type": "call", **where, "reason": event.reason, "id": event.call}
    if isinstance(event, CallTaken):
        return {"type": "call_taken", **where, "call": event.call}
    return {"type": "call_resolved", **where, "call": event.call, "note": event.note}


def _tablet_log_fields(event: DealRecorded | EarlyStart) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if event.sent is not None:
        fields["sent"] = format_time(event.sent)
    if event.override is not None:
        fields["override"] = event.override
    return fields


_TYPE_OF: Mapping[type, str] = {
    TournamentDeclared: "tournament",
    LanguageSet: "language",
    PlayerRegistered: "player",
    PrizesSet: "prizes",
    CarryOverRateSet: "carry_over_rate",
    SeatingRecorded: "seating",
    HandRecorded: "hand",
    PenaltyGiven: "penalty",
    HandVoided: "void",
    RoundEnded: "round_end",
    DrawRecorded: "draw",
    ScheduleSet: "schedule",
    DealRecorded: "deal",
    EarlyStart: "early_start",
    ExtensionGiven: "extension",
    PlayAllOrdered: "play_all",
    SegmentClosed: "segment_end",
    EmaIdSet: "ema_id",
    CallMade: "call",
    CallTaken: "call_taken",
    CallResolved: "call_resolved",
    CheckedIn: "check_in",
}
