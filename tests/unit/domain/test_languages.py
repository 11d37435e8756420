"""The tournament's default language (issue 17): the `tournament` line's optional `language`
and the organizer's later `language` line, both extensions of CONTRACT §1."""

import pytest

from app.domain.errors import MalformedInput
from app.domain.log import event_to_log, parse_line
from app.domain.tournament import replay_events

TOURNAMENT = '{"type": "tournament", "name": "WSOM Macau", "format": "wsom2008"'


def test_a_tournament_without_a_language_speaks_english() -> None:
    tournament = replay_events([parse_line(TOURNAMENT + "}")])
    assert tournament.language == "en"
    assert "language" not in event_to_log(parse_line(TOURNAMENT + "}"))


def test_the_tournament_line_names_its_default_and_a_language_line_changes_it() -> None:
    declared = parse_line(TOURNAMENT + ', "language": "zh-Hant"}')
    assert event_to_log(declared)["language"] == "zh-Hant"
    tournament = replay_events([declared])
    assert tournament.language == "zh-Hant"
    change = parse_line('{"type": "language", "language": "ja"}')
    tournament.apply(change)
    assert tournament.language == "ja"
    assert event_to_log(change) == {"type": "language", "language": "ja"}


@pytest.mark.parametrize("value", ['"fr"', '"zh-TW"', '""', "7", "null", '"JA"'])
def test_a_language_we_do_not_speak_is_refused_naming_the_field(value: str) -> None:
    for line in (
        TOURNAMENT + f', "language": {value}}}',
        f'{{"type": "language", "language": {value}}}',
    ):
        with pytest.raises(MalformedInput) as refused:
            parse_line(line)
        assert refused.value.field == "language"
        assert "ja" in str(refused.value)
