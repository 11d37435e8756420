"""The feeds' text columns in a language (issue 17): `?lang=` on a feed says its Status,
Phase, Seat and Needs (and the stats feed's Kind, Scope and Win) in words a caption can show,
while the columns keep their names and, without `?lang=`, their values stay the codes vision
mixers already match on ("advanced", "running", "east")."""

from __future__ import annotations

from collections.abc import Mapping

from app import i18n

TEXT_COLUMNS = ("Status", "Phase", "Seat", "Needs", "Kind", "Scope", "Win")

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
    # the story of the session (the stats feed, issue 18): what a row is, over what, how won
    "hand": i18n.lazy("Biggest hand"),
    "climber": i18n.lazy("Up the standings"),
    "faller": i18n.lazy("Down the standings"),
    "crossed up": i18n.lazy("Over the line now"),
    "crossed down": i18n.lazy("Under the line now"),
    "leader": i18n.lazy("Table leader"),
    "count": i18n.lazy("Hand count"),
    "round": i18n.lazy("This round"),
    "segment": i18n.lazy("This session"),
    "self_draw": i18n.lazy("Self-draw"),
    "discard": i18n.lazy("Win on a discard"),
    "draw": i18n.lazy("Drawn hand"),
    "points": i18n.lazy("Points ruling"),
    "hands": i18n.lazy("Hands"),
    "other": i18n.lazy("Other"),
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
