"""The hand rulesets a format can name (`Format.ruleset`), behind one interface.

The tournament never looks inside a result: it asks the format's ruleset to play a
table's hands in order, and counts the settlements it gets back (rule SC-1). WSOM hands
are independent of each other (rules HS-1 to HS-7); an Ari Ari game is played from its
first deal every time (rules AA-1 to AA-17).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.domain import ariari, formats, hands
from app.domain.errors import HandRefused, MalformedInput, RuleViolation, say
from app.domain.formats import Format
from app.domain.hands import PlayerId, Settlement

HandResult = hands.HandResult | ariari.AriAriResult
Seats = tuple[PlayerId, PlayerId, PlayerId, PlayerId]


@dataclass(frozen=True)
class TablePlay:
    """A table's hands as its ruleset plays them: each hand's settlement by number and,
    for an Ari Ari table, the game (dealer, counters, bets, end, uma)."""

    settlements: Mapping[int, Settlement] = field(default_factory=dict)
    game: ariari.Game | None = None


class Ruleset(Protocol):
    name: str
    kinds: tuple[str, ...]

    def play(
        self,
        seats: Seats,
        played: Sequence[tuple[int, HandResult]],
        fmt: Format,
        before: Mapping[int, Settlement],
        changed: int,
    ) -> TablePlay:
        """Settle the table's hands in order, `before` being their settlements before
        hand `changed` was entered, corrected or voided; raises HandRefused at the first
        hand that breaks a rule."""
        ...


class Wsom:
    """WSOM hands are independent (rule HS-2): only the changed hand is settled again."""

    name = "wsom"
    kinds: tuple[str, ...] = hands.KINDS

    def play(
        self,
        seats: Seats,
        played: Sequence[tuple[int, HandResult]],
        fmt: Format,
        before: Mapping[int, Settlement],
        changed: int,
    ) -> TablePlay:
        settlements = {}
        for number, result in played:
            if number != changed and number in before:
                settlements[number] = before[number]
                continue
            try:
                if not isinstance(result, hands.HandResult):
                    raise _wrong_ruleset(result.kind, self, "HS-1")
                settlements[number] = hands.settle(
                    result, seats, min_value=fmt.min_value, max_value=fmt.max_value
                )
            except RuleViolation as violation:
                raise HandRefused(number, violation) from violation
        return TablePlay(settlements)


class AriAri:
    """An Ari Ari game is played again from its first deal (rules AA-5, AA-6, AA-8)."""

    name = "ariari"
    kinds: tuple[str, ...] = ariari.KINDS

    def play(
        self,
        seats: Seats,
        played: Sequence[tuple[int, HandResult]],
        fmt: Format,
        before: Mapping[int, Settlement],
        changed: int,
    ) -> TablePlay:
        results = []
        for number, result in played:
            if not isinstance(result, ariari.AriAriResult):
                raise HandRefused(number, _wrong_ruleset(result.kind, self, "AA-30"))
            results.append((number, result))
        assert fmt.game is not None
        game = ariari.play_game(seats, results, fmt.game)
        return TablePlay(game.settlements(), game)


RULESETS: Mapping[str, Ruleset] = {ruleset.name: ruleset for ruleset in (Wsom(), AriAri())}
# formats.RULESETS names the rulesets a format may choose (it cannot import this module):
# the two lists cannot drift apart unnoticed.
if set(RULESETS) != set(formats.RULESETS):
    raise ImportError(f"rulesets {sorted(RULESETS)} != format names {sorted(formats.RULESETS)}")


def _wrong_ruleset(kind: str, ruleset: Ruleset, rule: str) -> MalformedInput:
    return MalformedInput(
        rule,
        "result.kind",
        say(
            "a {kind} result is not played under {name}: this tournament's results are {kinds}",
            kind=kind,
            name=ruleset.name,
            kinds=", ".join(ruleset.kinds),
        ),
    )


def parse_result(raw: object, field: str = "result") -> HandResult:
    """The `result` object of a `hand` line, of either ruleset, checked for shape only
    (which ruleset may play it is the tournament's check)."""
    if isinstance(raw, dict) and raw.get("kind") in ariari.KINDS:
        return ariari.parse_result(raw, field)
    if isinstance(raw, dict) and raw.get("kind") not in hands.KINDS:
        kinds = ", ".join((*hands.KINDS, *ariari.KINDS))
        raise MalformedInput(
            "HS-1",
            f"{field}.kind",
            say("{value} is not one of {kinds}", value=repr(raw.get("kind")), kinds=kinds),
        )
    return hands.parse_result(raw, field)


def result_to_log(result: HandResult) -> dict[str, Any]:
    if isinstance(result, ariari.AriAriResult):
        return ariari.result_to_log(result)
    return hands.result_to_log(result)
