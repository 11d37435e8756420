"""Tournament formats as data (rules FM-1 to FM-9, SC-3, HS-3, CL-1, CL-2).

`wsom2008` and `wsom2007` are presets; a custom format is the same data with other
numbers. No code path branches on a preset's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Literal

from app.domain import bounds
from app.domain.ariari import AriAriRules, rules_from_log
from app.domain.errors import MalformedInput, say
from app.domain.hands import max_hand_points
from app.domain.numbers import parse_rate

# "game": an Ari Ari segment, one game that ends by rules AA-12 to AA-14
SegmentKind = Literal["half", "quarter", "session", "game"]
SEGMENT_KINDS: tuple[SegmentKind, ...] = ("half", "quarter", "session", "game")
# How seats change at each cycle's start within a segment (rules SE-6 to SE-9):
# "swap" halves (SE-6), "redraw" quarters of one cycle (SE-7), "rotate" the WSOM 2008
# final (SE-8), "all_orders" the WSOM 2007 final (SE-9).
SeatPattern = Literal["swap", "redraw", "rotate", "all_orders"]
SEAT_PATTERNS: tuple[SeatPattern, ...] = ("swap", "redraw", "rotate", "all_orders")
DEFAULT_SEAT_PATTERN: dict[str, SeatPattern] = {
    "half": "swap",
    "quarter": "redraw",
    "session": "rotate",
    "game": "redraw",  # rule AA-12: an Ari Ari game keeps its seats; the deal moves (AA-8)
}
GROUP_NAMES = ("A", "B")
HANDS_PER_CYCLE = 4  # rule FM-7: every player deals exactly once in a cycle
# rule AA-23 (docs/ariari.md): an Ari Ari game has no planned number of hands; a table
# takes at most this many, far more than any game needs
MAX_GAME_HANDS = bounds.MAX_HANDS
# rules PN-1, HS-6: the biggest single penalty, by the format's point scale. WSOM: 960, the
# most one hand can move (a 320-point hand, whose winner collects 3 x 320, rule HS-2); a
# false win (HS-6) costs no more than the biggest hand it pretended to be. Ari Ari scores in
# thousands (AA-1): a penalty of at most the starting points, 25,000, more than any chombo
# costs (AA-10: 12,000 at most) and as much as the whole stake a player sits down with.
WSOM_MAX_PENALTY = max_hand_points(320)
ARIARI_MAX_PENALTY = 25_000
RULESETS = ("wsom", "ariari")  # their rules: rulesets.RULESETS, checked against these


# A segment's name as a refusal's sentence says it, one `say` each so the catalog has it.
SEGMENT_WORDS = {
    "half": say("half"),
    "quarter": say("quarter"),
    "session": say("session"),
    "game": say("game"),
}
SEGMENTS_WORDS = {
    "half": say("halves"),
    "quarter": say("quarters"),
    "session": say("sessions"),
    "game": say("games"),
}


@dataclass(frozen=True)
class RoundFormat:
    """One round: its groups, segments, hands, who advances and what carries over."""

    number: int
    groups: int  # rule FM-2: round 1 is played in 2 groups; later rounds in 1
    segments: int  # per group: halves, quarters or final sessions
    hands_per_segment: int
    segment_kind: SegmentKind
    advance: int | None  # rule FM-6; None for the final
    carry_over_rate: Fraction  # rule SC-3: the rate into the next round
    time_limit_minutes: int | None  # rule CL-1; None: no limit (the final)
    break_minutes: int  # rule CL-1
    break_after_cycles: int | None  # rule CL-1: the final's break after 2 cycles
    seat_pattern: SeatPattern = "swap"

    @property
    def cycles_per_segment(self) -> int:
        return self.hands_per_segment // HANDS_PER_CYCLE

    @property
    def segment_plural(self) -> str:
        return "halves" if self.segment_kind == "half" else f"{self.segment_kind}s"

    @property
    def segment_word(self) -> str:
        """The segment's name inside a refusal, said in the reader's language (issue 17)."""
        return SEGMENT_WORDS.get(self.segment_kind, self.segment_kind)

    @property
    def segments_word(self) -> str:
        return SEGMENTS_WORDS.get(self.segment_kind, self.segment_plural)

    @property
    def shape_rule(self) -> str:
        """The rule that gives this round its segments and hands."""
        if self.segment_kind == "game":
            return "AA-12"
        if self.is_final:
            return "FM-5"
        if self.number == 1:
            return "FM-2"
        return "FM-4" if self.segment_kind == "quarter" else "FM-3"

    @property
    def is_final(self) -> bool:
        return self.advance is None

    @property
    def group_names(self) -> tuple[str, ...]:
        return GROUP_NAMES[: self.groups]


@dataclass(frozen=True)
class Format:
    """A whole tournament format."""

    name: str
    rounds: tuple[RoundFormat, ...]  # elimination rounds, then the final
    min_value: int = 5  # rule HS-3
    max_value: int = 320  # rule HS-3
    early_start_minutes: int = 5  # rule CL-2
    ruleset: str = "wsom"
    game: AriAriRules | None = None  # the Ari Ari game rules, for ruleset "ariari"
    max_penalty: int = WSOM_MAX_PENALTY  # rules PN-1, HS-6: points, as a positive bound

    @property
    def max_hand_points(self) -> int:
        """rule HS-7: the most a direct-points hand may move to or from one player (HS-2).
        An Ari Ari format has no direct-points hand (AA-30 refuses one)."""
        return max_hand_points(self.max_value)

    @property
    def final_round(self) -> int:
        return len(self.rounds)

    def round(self, number: int) -> RoundFormat:
        return self.rounds[number - 1]

    def has_round(self, number: int) -> bool:
        return 1 <= number <= len(self.rounds)

    def with_round_one_rate(self, rate: Fraction) -> Format:
        """rule SC-3: only the rate from round 1 into round 2 may be changed."""
        first = replace(self.rounds[0], carry_over_rate=rate)
        return replace(self, rounds=(first, *self.rounds[1:]))


QUARTER_RATE = Fraction(1, 4)  # rule SC-3: 1/4 for every round, the final included


def _elimination(
    number: int,
    advance: int,
    *,
    groups: int = 1,
    segments: int = 2,
    hands: int = 8,
    kind: SegmentKind = "half",
    limit: int,
) -> RoundFormat:
    return RoundFormat(
        number=number,
        groups=groups,
        segments=segments,
        hands_per_segment=hands,
        segment_kind=kind,
        advance=advance,
        carry_over_rate=QUARTER_RATE,
        time_limit_minutes=limit,
        break_minutes=10,
        break_after_cycles=None,
        seat_pattern=DEFAULT_SEAT_PATTERN[kind],
    )


def _final(number: int, sessions: int, seat_pattern: SeatPattern) -> RoundFormat:
    return RoundFormat(
        number=number,
        groups=1,
        segments=sessions,
        hands_per_segment=16,
        segment_kind="session",
        advance=None,
        carry_over_rate=QUARTER_RATE,
        time_limit_minutes=None,  # rule CL-1: the final has no session time limit
        break_minutes=10,
        break_after_cycles=2,
        seat_pattern=seat_pattern,
    )


def _wsom(
    name: str,
    *,
    limits: tuple[int, ...],
    quarter: int,
    sessions: int,
    early: int,
    final_seats: SeatPattern,
) -> Format:
    advances = (256, 128, 64, 32, 16, 8)
    rounds = [
        # rule FM-2: round 1 is 2 groups x 4 halves of 8 hands
        _elimination(1, advances[0], groups=2, segments=4, limit=limits[0]),
        # rule FM-3: rounds 2-6 are 2 halves of 8 hands
        *(_elimination(n, advances[n - 1], limit=limits[n - 1]) for n in range(2, 7)),
        # rule FM-4: round 7 is 4 quarters of 4 hands at 2 tables
        _elimination(7, 4, segments=4, hands=4, kind="quarter", limit=quarter),
        # rule FM-5: the final, 4 players at 1 table
        _final(8, sessions, final_seats),
    ]
    return Format(name=name, rounds=tuple(rounds), early_start_minutes=early)


def _ariari_round(number: int, advance: int | None, games: int) -> RoundFormat:
    return RoundFormat(
        number=number,
        groups=1,
        segments=games,
        hands_per_segment=MAX_GAME_HANDS,
        segment_kind="game",
        advance=advance,
        carry_over_rate=QUARTER_RATE,
        time_limit_minutes=None,  # a game ends by rules AA-12 to AA-14, not by the clock
        break_minutes=10,
        break_after_cycles=None,
        seat_pattern="redraw",
    )


# rule CL-1: WSOM 2008 halves are 70 minutes in rounds 1-4 and 60 in rounds 5-6;
# quarters 30 minutes; WSOM 2007 halves are all 70 and quarters 35. rule FM-5: the
# 2008 final is 1 session, the 2007 final 2.
PRESETS: Mapping[str, Format] = {
    "wsom2008": _wsom(
        "wsom2008",
        limits=(70, 70, 70, 70, 60, 60),
        quarter=30,
        sessions=1,
        early=5,
        final_seats="rotate",  # rule SE-8
    ),
    "wsom2007": _wsom(
        "wsom2007",
        limits=(70,) * 6,
        quarter=35,
        sessions=2,
        early=10,
        final_seats="all_orders",  # rule SE-9
    ),
    # A two-round Ari Ari tournament (docs/ariari.md): two East-South games in round 1;
    # the best 4 play one more game in the final.
    "ariari": Format(
        name="ariari",
        rounds=(_ariari_round(1, 4, 2), _ariari_round(2, None, 1)),
        ruleset="ariari",
        game=AriAriRules(),
        max_penalty=ARIARI_MAX_PENALTY,
    ),
}


def format_from_log(raw: object) -> Format:
    """The `format` field of a `tournament` line: a preset name or a custom object."""
    if isinstance(raw, str):
        if raw not in PRESETS:
            raise MalformedInput(
                "FM-1",
                "format",
                say(
                    "unknown preset {raw}; use one of {presets}",
                    raw=repr(raw),
                    presets=sorted(PRESETS),
                ),
            )
        return PRESETS[raw]
    if isinstance(raw, dict):
        return _custom_format(raw)
    raise MalformedInput("FM-1", "format", say("must be a preset name or a custom format object"))


_CUSTOM_KEYS = {
    "name",
    "preset",
    "rounds",
    "advance",
    "min_value",
    "max_value",
    "early_start",
    "ruleset",
    "game",
    "max_penalty",
}
_ROUND_KEYS = {
    "groups",
    "segments",
    "hands",
    "advance",
    "carry_over_rate",
    "time_limit",
    "break",
    "break_after_cycles",
    "kind",
    "seat_pattern",
}


def _custom_format(raw: Mapping[str, Any]) -> Format:
    """A custom format: either `rounds` in full, or a `preset` with overrides.

    {"preset": "wsom2008", "advance": [16, 8, 4]} keeps the preset's round shapes but only
    for as many elimination rounds as `advance` names, then the preset's final.
    """
    unknown = set(raw) - _CUSTOM_KEYS
    if unknown:
        raise MalformedInput("FM-1", f"format.{sorted(unknown)[0]}", say("is not a format field"))
    name = raw.get("name", "custom")
    if not isinstance(name, str) or not name:
        raise MalformedInput("FM-1", "format.name", say("must be a non-empty string"))
    if "rounds" in raw and "preset" in raw:
        raise MalformedInput("FM-1", "format", say("give either rounds or a preset, not both"))
    ruleset = raw.get("ruleset")
    if ruleset is not None and ruleset not in RULESETS:
        raise MalformedInput(
            "FM-1",
            "format.ruleset",
            say(
                "unknown ruleset {ruleset}; use one of {rulesets}",
                ruleset=repr(ruleset),
                rulesets=RULESETS,
            ),
        )
    if "rounds" in raw:
        base = PRESETS["ariari" if ruleset == "ariari" else "wsom2008"]
        rounds = _custom_rounds(raw["rounds"], base.ruleset)
    else:
        base = format_from_log(raw.get("preset", "ariari" if ruleset == "ariari" else "wsom2008"))
        rounds = base.rounds
    if ruleset is not None and ruleset != base.ruleset:
        raise MalformedInput(
            "FM-1",
            "format.ruleset",
            say(
                "the preset {name} plays {ruleset}; its rounds cannot play {asked}",
                name=repr(base.name),
                ruleset=base.ruleset,
                asked=ruleset,
            ),
        )
    if base.ruleset != "ariari" and "game" in raw:
        raise MalformedInput("FM-1", "format.game", say("only an Ari Ari format has game rules"))
    if "advance" in raw:
        rounds = _override_advances(rounds, raw["advance"])
    value_limit = bounds.MAX_HAND_VALUE
    max_value = _int_field(raw, "max_value", base.max_value, minimum=1, maximum=value_limit)
    game = rules_from_log(raw.get("game")) if base.ruleset == "ariari" else None
    # rule PN-1: a custom format's penalties follow its own scale unless it names a bound
    default_penalty = game.start_points if game is not None else max_hand_points(max_value)
    fmt = Format(
        name=name,
        rounds=rounds,
        min_value=_int_field(raw, "min_value", base.min_value, minimum=0, maximum=value_limit),
        max_value=max_value,
        early_start_minutes=_int_field(
            raw,
            "early_start",
            base.early_start_minutes,
            minimum=0,
            maximum=bounds.MAX_EARLY_START,
            rule="CL-2",
        ),
        ruleset=base.ruleset,
        game=game,
        max_penalty=_int_field(
            raw,
            "max_penalty",
            default_penalty,
            minimum=1,
            maximum=max(default_penalty, bounds.MAX_PENALTY),
            rule="PN-1",
        ),
    )
    if fmt.min_value > fmt.max_value:
        raise MalformedInput("HS-3", "format.min_value", say("is above format.max_value"))
    validate_advances(fmt)
    return fmt


def _int_field(
    raw: Mapping[str, Any],
    key: str,
    default: int,
    *,
    minimum: int,
    maximum: int,
    where: str = "format",
    rule: str = "FM-1",
) -> int:
    value = raw.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= maximum:
        raise MalformedInput(
            rule,
            f"{where}.{key}",
            say("must be an integer from {minimum} to {maximum}", minimum=minimum, maximum=maximum),
        )
    return value


def _custom_rounds(raw: object, ruleset: str) -> tuple[RoundFormat, ...]:
    if not isinstance(raw, list) or not 2 <= len(raw) <= bounds.MAX_ROUNDS:
        raise MalformedInput(
            "FM-1",
            "format.rounds",
            say(
                "must list the elimination rounds and then the final: 2 to {max_rounds}",
                max_rounds=bounds.MAX_ROUNDS,
            ),
        )
    rounds = []
    for index, item in enumerate(raw):
        where = f"format.rounds[{index}]"
        if not isinstance(item, dict):
            raise MalformedInput("FM-1", where, say("must be an object"))
        unknown = set(item) - _ROUND_KEYS
        if unknown:
            raise MalformedInput(
                "FM-1", f"{where}.{sorted(unknown)[0]}", say("is not a round field")
            )
        number = index + 1
        is_final = index == len(raw) - 1
        if is_final and "advance" in item:
            raise MalformedInput("FM-5", f"{where}.advance", say("the final advances nobody"))
        if not is_final and "advance" not in item:
            raise MalformedInput("FM-6", f"{where}.advance", say("an elimination round needs it"))
        groups = _int_field(item, "groups", 1, minimum=1, maximum=2, where=where, rule="FM-2")
        if groups > (2 if number == 1 else 1):
            raise MalformedInput("FM-2", f"{where}.groups", say("only round 1 may have 2 groups"))
        if ruleset == "ariari":
            if "hands" in item:
                raise MalformedInput(
                    "AA-12",
                    f"{where}.hands",
                    say("an Ari Ari segment is a game: it ends by its rules"),
                )
            hands = MAX_GAME_HANDS  # rule AA-23
        else:
            hands = _int_field(
                item,
                "hands",
                16 if is_final else 8,
                minimum=HANDS_PER_CYCLE,
                maximum=bounds.MAX_HANDS,
                where=where,
                rule="FM-7",
            )
        if hands % HANDS_PER_CYCLE:
            # rule FM-7: a segment is whole cycles, so every player deals equally often
            raise MalformedInput(
                "FM-7", f"{where}.hands", say("must be a multiple of 4 (whole cycles)")
            )
        kind = item.get(
            "kind", "game" if ruleset == "ariari" else "session" if is_final else "half"
        )
        if kind not in SEGMENT_KINDS or (kind == "game") != (ruleset == "ariari"):
            raise MalformedInput(
                "FM-1",
                f"{where}.kind",
                say("must be game in an Ari Ari format")
                if ruleset == "ariari"
                else say("must be half, quarter or session"),
            )
        rate_text = item.get("carry_over_rate", "1/4")
        if not isinstance(rate_text, str):
            raise MalformedInput(
                "SC-3", f"{where}.carry_over_rate", say('must be a string like "1/4"')
            )
        try:
            rate = parse_rate(rate_text)
        except ValueError as error:
            raise MalformedInput("SC-3", f"{where}.carry_over_rate", error.args[0]) from error
        bounds.check_rate(rate, rate_text, f"{where}.carry_over_rate")
        limit = item.get("time_limit", None if is_final or ruleset == "ariari" else 70)
        if limit is not None and (
            not isinstance(limit, int)
            or isinstance(limit, bool)
            or not 1 <= limit <= bounds.MAX_MINUTES
        ):
            raise MalformedInput(
                "CL-1",
                f"{where}.time_limit",
                say(
                    "must be minutes (1 to {max_minutes}, a whole day) or null",
                    max_minutes=bounds.MAX_MINUTES,
                ),
            )
        advance = item.get("advance")
        if advance is not None and (not isinstance(advance, int) or isinstance(advance, bool)):
            raise MalformedInput("FM-6", f"{where}.advance", say("must be an integer"))
        if ruleset == "ariari" and item.get("break_after_cycles") is not None:
            # rule AA-8: a game's deal moves by its results, not by cycles
            raise MalformedInput(
                "CL-1",
                f"{where}.break_after_cycles",
                say("an Ari Ari game has no cycles to break after"),
            )
        after = item.get("break_after_cycles", 2 if is_final and ruleset == "wsom" else None)
        if after is not None and (
            not isinstance(after, int)
            or isinstance(after, bool)
            or not 1 <= after <= bounds.CYCLE.high
        ):
            raise MalformedInput(
                "CL-1",
                f"{where}.break_after_cycles",
                say("must be a number of cycles (1 to {high}) or null", high=bounds.CYCLE.high),
            )
        rounds.append(
            RoundFormat(
                number=number,
                groups=groups,
                segments=_int_field(
                    item,
                    "segments",
                    2,
                    minimum=1,
                    maximum=bounds.MAX_SEGMENTS,
                    where=where,
                    rule="FM-8",
                ),
                hands_per_segment=hands,
                segment_kind=kind,
                advance=advance,
                carry_over_rate=rate,
                time_limit_minutes=limit,
                break_minutes=_int_field(
                    item,
                    "break",
                    10,
                    minimum=0,
                    maximum=bounds.MAX_MINUTES,
                    where=where,
                    rule="CL-1",
                ),
                break_after_cycles=after,
                seat_pattern=_seat_pattern(item, kind, where),
            )
        )
    return tuple(rounds)


def _seat_pattern(item: Mapping[str, Any], kind: SegmentKind, where: str) -> SeatPattern:
    pattern = item.get("seat_pattern", DEFAULT_SEAT_PATTERN[kind])
    for known in SEAT_PATTERNS:
        if pattern == known:
            return known
    raise MalformedInput(
        "SE-6",
        f"{where}.seat_pattern",
        say("must be one of {seat_patterns}", seat_patterns=", ".join(SEAT_PATTERNS)),
    )


def _override_advances(rounds: tuple[RoundFormat, ...], raw: object) -> tuple[RoundFormat, ...]:
    """Keep the first len(raw) elimination rounds of a preset with these advance counts,
    then its final."""
    if (
        not isinstance(raw, list)
        or not raw
        or not all(isinstance(a, int) and not isinstance(a, bool) for a in raw)
    ):
        raise MalformedInput("FM-6", "format.advance", say("must be a list of integers"))
    eliminations = [r for r in rounds if not r.is_final]
    if len(raw) > len(eliminations):
        raise MalformedInput(
            "FM-6",
            "format.advance",
            say(
                "names {raw} rounds but the format has {eliminations}",
                raw=len(raw),
                eliminations=len(eliminations),
            ),
        )
    # Keep the first round's shape (2 groups) and the last elimination round's shape
    # (the quarters before the final), dropping middle rounds when fewer are asked for.
    middle = eliminations[: len(raw) - 1]
    kept = [*middle, eliminations[-1]] if middle else [eliminations[0]]
    final = rounds[-1]
    out = [
        replace(r, number=i + 1, advance=a) for i, (r, a) in enumerate(zip(kept, raw, strict=True))
    ]
    out.append(replace(final, number=len(out) + 1))
    return tuple(out)


def validate_advances(fmt: Format) -> None:
    """rule FM-6: each advance count is a multiple of 4 and smaller than its round's field
    (the field of round r+1 is the advance count of round r); rule FM-5: the final seats 4."""
    previous: int | None = None
    for round_format in fmt.rounds:
        advance = round_format.advance
        if advance is None:
            continue
        where = f"format.rounds[{round_format.number - 1}].advance"
        if advance <= 0 or advance % 4:
            raise MalformedInput(
                "FM-6", where, say("{advance} is not a positive multiple of 4", advance=advance)
            )
        bounds.ADVANCE.check(advance, where)
        if previous is not None and advance >= previous:
            raise MalformedInput(
                "FM-6",
                where,
                say(
                    "{advance} is not smaller than the field of {previous} players",
                    advance=advance,
                    previous=previous,
                ),
            )
        previous = advance
    if previous != 4:
        raise MalformedInput(
            "FM-5", "format", say("the last elimination round must advance 4 to the final")
        )
