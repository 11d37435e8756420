"""Bounds on the text and the nesting of everything that comes in: a log line, a request.

A name, a reason or a player id is kept as it came, written to the database, shown on the
hall's displays and printed on slips. A control character has no place in any of them (a
NUL cuts a name short on SQLite and is refused by PostgreSQL), nor has a lone surrogate
(half of a character, which cannot be written as UTF-8), nor a name of a megabyte. A line
nested thousands deep exhausts the parser's stack. Each is refused as malformed input,
naming the field and the bound it breaks (issue 14), before anything is stored.

Nor has a character that ends a line for some reader, or reorders the text after it
(issue 32): U+2028 and U+2029 break the line they are in for Python's `splitlines` (which
the log's import splits with), for JavaScript before ES2019 and for the feeds' consumers,
and the bidirectional embeddings, overrides and isolates turn the rest of a name's line
around on a screen or in a CSV export ("Trojan Source"). The spaces, marks and joiners that
scripts need (U+3000, U+00A0, U+200C, U+200D, U+200E, U+200F) stay text.

The bounds are generous for what a tournament writes (the deepest line the log needs, an
Ari Ari ron with its wins, nests 4 deep) and are documented in docs/log-format.md, "Text,
nesting and times".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from app.domain.errors import MalformedInput, say

# The deepest a log line or a request body may nest (objects and lists).
MAX_DEPTH = 32

# The longest text of each field, in characters; any other field takes DEFAULT_TEXT_LIMIT.
NAME_LIMIT = 200  # a tournament's or a player's name
REASON_LIMIT = 1000  # a reason, an override or a note: a sentence or two a judge writes
TEXT_LIMITS: Mapping[str, int] = {
    "name": NAME_LIMIT,
    "local_name": NAME_LIMIT,  # the player's name in their own script (issue 17)
    "country": 64,
    "reason": REASON_LIMIT,
    "override": REASON_LIMIT,
    "note": REASON_LIMIT,  # the head judge's note on a call (rule CA-3: calls.MAX_NOTE_LENGTH)
}
DEFAULT_TEXT_LIMIT = 200  # ids, idempotency keys, seeds, format words, the `by` of a line

# Where a judge writes sentences, a tab or a new line is text; everywhere else it is not.
MULTILINE_FIELDS = frozenset({"reason", "override", "note"})
_LAYOUT = frozenset("\t\n")
# The line and paragraph separators (categories Zl, Zp): a line ends with a new line only.
_LINE_BREAKS = frozenset({"Zl", "Zp"})
# The explicit bidirectional embeddings, overrides (U+202A to U+202E) and isolates (U+2066
# to U+2069) of Unicode's UAX #9; the marks (U+200E, U+200F, U+061C) reorder nothing after
# them and stay text.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

# Everything that can open or close a level of JSON, and the strings to skip over.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def check_nesting(text: str, rule: str, field: str = "line") -> None:
    """Refuse JSON text that nests deeper than MAX_DEPTH, before a parser recurses into it.

    Counting the brackets is enough for almost every line; only a line with more of them
    than the bound is scanned, skipping the brackets inside its strings."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise MalformedInput(rule, field, _too_deep())
        elif bracket in "]}":
            depth -= 1


def check_tree(value: object, rule: str, path: str = "") -> None:
    """Refuse a decoded JSON value (a log line, a request body's fields) that nests deeper
    than MAX_DEPTH or holds a string (a value or a key) that breaks the text bounds.

    The walk keeps its own stack, so a value nested past Python's recursion limit is
    refused, not crashed on. `path` names where the value sits ("" for a whole line)."""
    stack: list[tuple[object, str, str, int]] = [(value, path, _last_key(path), 0)]
    while stack:
        item, where, key, depth = stack.pop()
        if isinstance(item, str):
            check_text(item, rule, where or "line", key=key)
        elif isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise MalformedInput(rule, where or "line", _too_deep())
            if isinstance(item, dict):
                for name, child in item.items():
                    inner = f"{where}.{name}" if where else str(name)
                    if isinstance(name, str):
                        # a key is an id (a player's, in a points hand's deltas)
                        check_text(name, rule, where or "line", key="")
                    stack.append((child, inner, str(name), depth + 1))
            else:
                for index, child in enumerate(item):
                    stack.append((child, f"{where}[{index}]", key, depth + 1))


def check_text(value: str, rule: str, field: str, *, key: str | None = None) -> None:
    """One string: no control character (a tab or new line only where a judge writes
    sentences), no lone surrogate, no line or paragraph separator, no bidirectional
    embedding, override or isolate, no longer than its field's bound. `key` is the field's
    own name when `field` is a path to it ("result.winner": "winner")."""
    name = _last_key(field) if key is None else key
    limit = TEXT_LIMITS.get(name, DEFAULT_TEXT_LIMIT)
    if len(value) > limit:
        raise MalformedInput(
            rule,
            field,
            say(
                "is {length} characters long; at most {limit} are allowed here",
                length=len(value),
                limit=limit,
            ),
        )
    if value.isprintable():
        # the common case, in C: no control, surrogate, separator or other unprintable
        # character (every bidirectional control is unprintable, category Cf)
        return
    allowed = _LAYOUT if name in MULTILINE_FIELDS else frozenset()
    for position, character in enumerate(value, start=1):
        category = unicodedata.category(character)
        if category == "Cc" and character not in allowed:
            sentence = (
                say(
                    "holds the control character U+{character:04X} at character {position}; "
                    "text may not hold control characters (a tab or a new line is fine here)",
                    character=ord(character),
                    position=position,
                )
                if allowed
                else say(
                    "holds the control character U+{character:04X} at character {position}; "
                    "text may not hold control characters",
                    character=ord(character),
                    position=position,
                )
            )
            raise MalformedInput(rule, field, sentence)
        if category == "Cs":
            raise MalformedInput(
                rule,
                field,
                say(
                    "holds U+{character:04X} at character {position}, half of a character (a "
                    "lone surrogate) which is not text",
                    character=ord(character),
                    position=position,
                ),
            )
        if category in _LINE_BREAKS:
            raise MalformedInput(rule, field, _line_break(character, position, bool(allowed)))
        if character in _BIDI_CONTROLS:
            raise MalformedInput(
                rule,
                field,
                say(
                    "holds U+{character:04X} at character {position}, a bidirectional control "
                    "that turns the text after it around on screens and in exports; text may "
                    "not hold one",
                    character=ord(character),
                    position=position,
                ),
            )


def _line_break(character: str, position: int, multiline: bool) -> str:
    if multiline:
        return say(
            "holds U+{character:04X} at character {position}, a line or paragraph separator, "
            "which ends the line for some readers; break a line here with a new line instead",
            character=ord(character),
            position=position,
        )
    return say(
        "holds U+{character:04X} at character {position}, a line or paragraph separator; "
        "this text is one line",
        character=ord(character),
        position=position,
    )


def _last_key(path: str) -> str:
    """The field's own name in a path: "result.winner" -> "winner", "seats[2]" -> "seats"."""
    return path.rsplit(".", 1)[-1].split("[", 1)[0]


def _too_deep() -> str:
    return say(
        "nests more than {most} levels of objects and lists, the most a line may nest",
        most=MAX_DEPTH,
    )
