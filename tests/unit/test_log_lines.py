"""A JSON Lines text split into its lines (app/domain/log.py, log_lines; issue 32)."""

from __future__ import annotations

import json

import pytest

from app.domain.log import log_lines


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ('{"a":1}\n{"b":2}\n', ['{"a":1}', '{"b":2}']),
        ('{"a":1}\n{"b":2}', ['{"a":1}', '{"b":2}']),  # no new line after the last
        ('{"a":1}\r\n{"b":2}\r\n', ['{"a":1}', '{"b":2}']),  # CR LF, as Windows writes
        ('{"a":1}\n\n{"b":2}\n', ['{"a":1}', "", '{"b":2}']),  # a blank line keeps its number
        ("", []),
        ("\n", [""]),
    ],
)
def test_a_log_is_split_at_its_new_lines(text: str, lines: list[str]) -> None:
    assert log_lines(text) == lines


# What json.dumps writes as it is (ensure_ascii=False, as the store writes lines), and
# splitlines takes for the end of a line; the C0 controls are escaped (\u000b).
@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_separator_inside_a_json_string_leaves_its_line_whole(separator: str) -> None:
    """Python's splitlines cut these lines in two, and each half read as broken JSON: an
    exported log of a stored name holding one could not be imported again."""
    line = json.dumps({"type": "tournament", "name": f"A{separator}B"}, ensure_ascii=False)
    assert len(f"{line}\n".splitlines()) == 2  # what the import did before
    assert log_lines(f"{line}\n{line}\n") == [line, line]
    assert json.loads(log_lines(f"{line}\n")[0])["name"] == f"A{separator}B"
