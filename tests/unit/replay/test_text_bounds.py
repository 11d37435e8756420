"""A log line that breaks the text or nesting bounds (app/domain/text.py, issue 14) is
refused as malformed input naming its line, field and bound, never with a traceback:

- a line nested 100,000 deep raised RecursionError in `decode_line`;
- a NUL (or another control character) in a name, a reason or an id was stored, cut a
  name short on SQLite and made PostgreSQL refuse the write;
- no text had a length bound;
- a line or paragraph separator (U+2028, U+2029) was stored (issue 32): it ends a line for
  every reader that splits text into lines (Python's own `splitlines`, which the log's
  import uses; a JavaScript string before ES2019), and the bidirectional controls that
  reorder the text after them on a screen or in an export were stored too.

A line already stored is read as it is, so a tournament in the database stays readable.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from small_logs import REGISTERED, SEATED, TOURNAMENT, hand, penalty, texts, void

from app.domain.calls import MAX_NOTE_LENGTH
from app.domain.errors import LogError, MalformedInput
from app.domain.log import decode_line, parse_event, parse_line
from app.domain.replay import apply_line, replay_lines
from app.domain.text import MAX_DEPTH, NAME_LIMIT, REASON_LIMIT, check_tree

DEEP = 100_000  # the depth seen in issue 14


def _refusal(bad: dict[str, Any] | str) -> LogError:
    line = bad if isinstance(bad, str) else json.dumps(bad)
    with pytest.raises(LogError) as caught:
        replay_lines([*texts(SEATED), line])
    return caught.value


def test_a_line_nested_100000_deep_is_refused_with_its_line_number() -> None:
    deep = '{"type": "prizes", "amounts": ' + "[" * DEEP + "]" * DEEP + "}"

    error = _refusal(deep)

    assert error.line_number == len(texts(SEATED)) + 1
    assert isinstance(error.violation, MalformedInput)
    assert error.violation.field == "line"
    assert f"more than {MAX_DEPTH} levels" in str(error)


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    reason = "[" * (MAX_DEPTH * 2)
    line = json.dumps({**penalty(1, "P01", -5), "reason": reason})

    event = parse_line(line)

    assert getattr(event, "reason", None) == reason


def test_a_decoded_value_nested_past_the_bound_is_refused_without_recursion() -> None:
    value: Any = []
    for _ in range(DEEP):  # deeper than Python's recursion limit: the walk keeps a stack
        value = [value]

    with pytest.raises(MalformedInput) as caught:
        check_tree({"type": "prizes", "amounts": value}, "CONTRACT §1")

    assert caught.value.field.startswith("amounts")


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"type": "tournament", "name": "WSOM\x00 2026", "format": "wsom2008"}, "name"),
        ({"type": "player", "id": "P99", "name": "Ami\x00", "group": "A"}, "name"),
        ({"type": "player", "id": "P\x0099", "name": "Ami", "group": "A"}, "id"),
        (
            {"type": "player", "id": "P99", "name": "Ami", "group": "A", "country": "J\x07P"},
            "country",
        ),
        ({**penalty(1, "P01", -5), "reason": "late\x00"}, "reason"),
        ({**hand(1, 1, 1, 1, {"kind": "draw"}), "id": "k\x001"}, "id"),
        (hand(1, 1, 1, 1, {"kind": "points", "deltas": {"P01\x00": 0}}), "result.deltas"),
        ({"type": "draw", "round": 1, "seed": "s\x1b[31m"}, "seed"),
        ({"type": "round_end", "round": 1, "draw_seed": "\x7f"}, "draw_seed"),
        (
            {"type": "seating", "round": 1, "segment": 1, "table": 1, "seats": ["\x00"] * 4},
            "seats[3]",
        ),
        ({"type": "prizes", "amounts": [100], "by": "admin\x00"}, "by"),
        ({"type": "prizes", "amounts": [100], "note\x00": 1}, "line"),
    ],
)
def test_a_control_character_in_any_text_of_a_line_is_refused_naming_the_field(
    line: dict[str, Any], field: str
) -> None:
    error = _refusal(line)

    assert error.violation.field == field
    assert "control character" in str(error)


def test_a_lone_surrogate_is_refused() -> None:
    line = '{"type": "player", "id": "P99", "name": "Ami \\ud800", "group": "A"}'

    error = _refusal(line)

    assert error.violation.field == "name"
    assert "lone surrogate" in str(error)


def test_a_reason_may_hold_tabs_and_new_lines_but_a_name_may_not() -> None:
    assert parse_line(json.dumps({**penalty(1, "P01", -5), "reason": "late:\n\tten minutes"}))

    error = _refusal({"type": "player", "id": "P99", "name": "Ami\nSato", "group": "A"})
    assert error.violation.field == "name"


@pytest.mark.parametrize(
    ("line", "field", "limit"),
    [
        (
            {"type": "player", "id": "P99", "name": "A" * (NAME_LIMIT + 1), "group": "A"},
            "name",
            NAME_LIMIT,
        ),
        ({**penalty(1, "P01", -5), "reason": "r" * (REASON_LIMIT + 1)}, "reason", REASON_LIMIT),
        ({**hand(1, 1, 1, 1, {"kind": "draw"}), "id": "k" * 201}, "id", 200),
    ],
)
def test_text_longer_than_its_bound_is_refused_naming_the_bound(
    line: dict[str, Any], field: str, limit: int
) -> None:
    error = _refusal(line)

    assert error.violation.field == field
    assert f"at most {limit}" in str(error)


def test_text_at_its_bound_and_in_any_script_is_taken() -> None:
    name = "張" * NAME_LIMIT
    tournament = replay_lines(
        [
            *texts(REGISTERED),
            json.dumps({"type": "player", "id": "P99", "name": name, "group": "A"}),
        ]
    )

    assert tournament.players["P99"].name == name


def test_a_stored_line_is_read_as_it_is_even_past_the_bounds() -> None:
    """A line stored before the bounds existed keeps its tournament readable."""
    tournament = replay_lines(texts(TOURNAMENT), stored=True)
    stored = json.dumps({"type": "player", "id": "P99", "name": "Ami\x00", "group": "A"})

    apply_line(tournament, stored)

    assert tournament.players["P99"].name == "Ami\x00"
    assert parse_event(decode_line(stored, stored=True), stored=True)


@pytest.mark.parametrize(
    ("local_name", "says"),
    [
        ("", "non-empty string"),
        ("   ", "non-empty string"),
        (7, "non-empty string"),
        ("山" * 201, "200"),
        ("山田\x00剛", "control character"),
    ],
)
def test_a_local_name_is_held_to_a_names_bounds_naming_the_field(
    local_name: object, says: str
) -> None:
    """issue 17: the name in the player's own script, bounded as the Latin name is."""
    line = {"type": "player", "id": "P99", "name": "Takeshi Yamada", "group": "A"}
    error = _refusal({**line, "local_name": local_name})

    assert error.violation.field == "local_name"
    assert says in str(error)


# -- characters that break a line or reorder one (issue 32) -------------------------------

LINE_BREAKERS = ["\u2028", "\u2029"]  # LINE SEPARATOR, PARAGRAPH SEPARATOR
# The explicit bidirectional embeddings, overrides and isolates (Unicode's UAX #9): each
# reorders the text after it up to the end of the line ("Trojan Source", CVE-2021-42574).
BIDI_CONTROLS = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
CALL = {"type": "call", "round": 1, "table": 1, "reason": "dispute", "id": "c1"}
EVERY_TEXT: list[tuple[str, Any]] = [
    ("name", lambda x: {"type": "tournament", "name": f"WSOM{x}2026", "format": "wsom2008"}),
    ("name", lambda x: {"type": "player", "id": "P99", "name": f"Ami{x}Sato", "group": "A"}),
    (
        "local_name",
        lambda x: {"type": "player", "id": "P99", "name": "A", "group": "A", "local_name": x},
    ),
    ("country", lambda x: {"type": "player", "id": "P99", "name": "A", "group": "A", "country": x}),
    ("id", lambda x: {"type": "player", "id": f"P{x}99", "name": "Ami", "group": "A"}),
    ("reason", lambda x: {**penalty(1, "P01", -5), "reason": f"late{x}again"}),
    ("reason", lambda x: {**void(1, 1, 1, 1), "reason": f"typo{x}"}),
    ("reason", lambda x: {"type": "round_end", "round": 1, "reason": f"power cut{x}"}),
    (
        "reason",
        lambda x: {"type": "play_all", "round": 1, "segment": 1, "table": 1, "reason": x},
    ),
    (
        "override",
        lambda x: {
            "type": "deal",
            **{"round": 1, "segment": 1, "table": 1, "hand": 1},
            **{"time": "2026-11-29T09:00:00Z", "override": f"tablet down{x}"},
        },
    ),
    (
        "note",
        lambda x: {"type": "call_resolved", "round": 1, "table": 1, "call": "c1", "note": x},
    ),
    ("id", lambda x: {**hand(1, 1, 1, 1, {"kind": "draw"}), "id": f"k{x}1"}),
    ("result.deltas", lambda x: hand(1, 1, 1, 1, {"kind": "points", "deltas": {f"P01{x}": 0}})),
    ("seed", lambda x: {"type": "draw", "round": 1, "seed": f"s{x}"}),
    ("by", lambda x: {"type": "prizes", "amounts": [100], "by": f"admin{x}"}),
    ("line", lambda x: {"type": "prizes", "amounts": [100], f"note{x}": 1}),
]


@pytest.mark.parametrize("character", [*LINE_BREAKERS, "\u202e", "\u2066"])
@pytest.mark.parametrize(("field", "line"), EVERY_TEXT, ids=[f for f, _ in EVERY_TEXT])
def test_a_line_separator_or_a_bidi_control_in_any_text_is_refused_naming_the_field(
    field: str, line: Any, character: str
) -> None:
    """Names, reasons, notes, ids and keys alike: a sentence a judge writes may break its
    lines with a new line (U+000A), never with U+2028 or U+2029."""
    error = _refusal(line(character))

    assert isinstance(error.violation, MalformedInput)
    assert (error.violation.field, error.violation.rule) == (field, "CONTRACT §1")
    assert f"U+{ord(character):04X}" in str(error)


@pytest.mark.parametrize("character", BIDI_CONTROLS)
def test_every_bidi_embedding_override_and_isolate_is_refused(character: str) -> None:
    error = _refusal({"type": "player", "id": "P99", "name": f"Ami{character}", "group": "A"})

    assert error.violation.field == "name"
    assert f"U+{ord(character):04X} at character 4" in str(error)


@pytest.mark.parametrize(
    "name",
    [
        "山田\u3000剛",  # an ideographic space, as Japanese names are written
        "Zoë\u00a0Ng",  # a no-break space
        "Ho\u00adsei",  # a soft hyphen
        "\u0645\u062d\u0645\u062f \u200f(Egypt)",  # Arabic with a right-to-left mark
        "\u0645\u0647\u200c\u0633\u0627",  # Persian with a zero-width non-joiner
        "Team \U0001f468\u200d\U0001f469\u200d\U0001f467",  # an emoji joined by ZWJ
    ],
)
def test_spaces_marks_and_joiners_that_scripts_need_are_text(name: str) -> None:
    tournament = replay_lines(
        [
            *texts(REGISTERED),
            json.dumps({"type": "player", "id": "P99", "name": name, "group": "A"}),
        ]
    )

    assert tournament.players["P99"].name == name


def test_a_stored_line_holding_a_line_separator_is_read_as_it_is() -> None:
    """A name stored before the bound keeps its tournament readable (issue 32, as issue 14)."""
    stored = [
        json.dumps({"type": "tournament", "name": "WSOM\u20282026", "format": "wsom2008"}),
        json.dumps({"type": "player", "id": "P99", "name": "Ami\u2029\u202eSato", "group": "A"}),
    ]

    tournament = replay_lines(stored, stored=True)
    apply_line(tournament, json.dumps({**penalty(1, "P99", -5), "reason": "late\u2028"}))

    assert tournament.name == "WSOM\u20282026"
    assert tournament.players["P99"].name == "Ami\u2029\u202eSato"


def test_a_head_judges_note_is_a_sentence_of_up_to_1000_characters() -> None:
    """rule CA-3: a note is bounded as a reason is, new lines and all; the log's text bound
    held it to 200 characters on one line, while the API took 1000."""
    note = "chombo at table 1:\n" + "n" * (MAX_NOTE_LENGTH - 19)
    resolved = {"type": "call_resolved", "round": 1, "table": 1, "call": "c1", "note": note}

    tournament = replay_lines(texts([*SEATED, CALL, resolved]))

    assert tournament.calls["c1"].note == note
    error = _refusal({**resolved, "note": note + "n"})
    assert error.violation.field == "note" and f"at most {MAX_NOTE_LENGTH}" in str(error)
