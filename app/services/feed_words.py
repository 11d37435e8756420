"""The feeds' text columns in a language (issue 17): `?lang=` on a feed says its Status,
Phase, Seat and Needs in words a caption can show, while the columns keep their names and, without
`?lang=`, their values stay the codes vision mixers already match on ("advanced", "running",
"east")."""

from __future__ import annotations

from collections.abc import Mapping

from app import i18n

TEXT_COLUMNS = ("Status", "Phase", "Seat", "Needs")

WORDS: Mapping[str, str] = {
    # a player's status in the round (rules ST-3, FM-9)
    "advanced": i18n.lazy("Advanced"),
    "eliminated": i18n.lazy("Eliminated"),
    "playing": i18n.lazy("Playing"),
    "finished": i18n.lazy("Finished"),
    # a table's clock (rules CL-1 to CL-6)
    "not_started": i18n.lazy("Not started"),
    "running": i18n.lazy("Playing"),
    "overtime": i18n.lazy("Overtime"),
    "finished_short": i18n.lazy("Stopped by the clock"),
    "break": i18n.lazy("Break"),
    # what a player near the cut needs (the needs feed, issue 18)
    "over the line": i18n.lazy("Over the line"),
    "can reach": i18n.lazy("Can reach the line"),
    "out of reach": i18n.lazy("Out of reach with one hand"),
    "no hand left": i18n.lazy("No hand left"),
    # seats
    "east": i18n.lazy("East"),
    "south": i18n.lazy("South"),
    "west": i18n.lazy("West"),
    "north": i18n.lazy("North"),
}


Value = str | int | bool | None


def in_words(rows: list[dict[str, Value]], language: str) -> list[dict[str, Value]]:
    """The rows with their text columns said in `language` (codes we have no word for stay)."""
    with i18n.speaking(language):
        said = {code: i18n.gettext(word) for code, word in WORDS.items()}
    return [
        {
            column: said.get(value, value)
            if column in TEXT_COLUMNS and isinstance(value, str)
            else value
            for column, value in row.items()
        }
        for row in rows
    ]
