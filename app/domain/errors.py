"""Named domain errors. Every one says which field broke which rule, so a judge or an
organizer can act on the message without reading code (STYLE.md, convention 10)."""

from __future__ import annotations

from typing import Any


class Say(str):
    """A sentence of an error, kept with its English template and values as well as said
    in English: the web layer says it again in the reader's language (issue 17), from the
    catalog that `scoreboard catalogs` extracts the templates into (`say(...)` marks them).
    Everywhere else it is the plain English string it always was."""

    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, /, **values: Any) -> Say:
        sentence = super().__new__(cls, template.format(**values) if values else template)
        sentence.template = template
        sentence.values = values
        return sentence


say = Say


class RuleViolation(Exception):
    """Something breaks a numbered rule of RULES.md (or a section of CONTRACT.md)."""

    def __init__(self, rule: str, field: str, message: str) -> None:
        super().__init__(f"field {field!r}: {message} (rule {rule})")
        self.rule = rule
        self.field = field
        self.message = message


class MalformedInput(RuleViolation):
    """The input itself is wrong: a missing field, a wrong type, a value out of bounds,
    a player who is not at the table. Maps to HTTP 422."""


class IllegalMove(RuleViolation):
    """The input is well formed but the tournament is not in a state that allows it: a hand
    after its round ended, a hand out of order, a rate change after round 1 began.
    Maps to HTTP 409."""


class HandRefused(Exception):
    """Hand `hand` of a table's segment breaks a rule. Where hands depend on the ones
    before them (an Ari Ari game), a correction of an earlier hand can make a later hand
    illegal, so the table's play names the hand it stopped at."""

    def __init__(self, hand: int, violation: RuleViolation) -> None:
        super().__init__(f"hand {hand}: {violation}")
        self.hand = hand
        self.violation = violation


class LogError(Exception):
    """A line of a tournament log breaks a rule; carries the 1-based line number."""

    def __init__(self, line_number: int, violation: RuleViolation) -> None:
        super().__init__(f"line {line_number}: {violation}")
        self.line_number = line_number
        self.violation = violation
