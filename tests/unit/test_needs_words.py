"""What a player needs in words (issue 18, part 1): the server's first frame
(app/web/needs_words.py) and the live pages' script (app/static/needs.js) say the same, word
for word, for every kind of answer at a WSOM table (rule HS-2) and an Ari Ari one (AA-22)."""

from __future__ import annotations

import json

import pytest

from app import i18n
from app.read.needs import NeedsView
from app.web.needs_words import needs_sentence, needs_short
from tests.node_scripts import run_module


def view(needs: str, **values: int | None) -> NeedsView:
    return {
        "table": 3,
        "hands_left": 4,
        "needs": needs,  # type: ignore[typeddict-item]
        "self_draw": values.get("self_draw"),
        "discard": values.get("discard"),
        "lose_self_draw": values.get("lose_self_draw"),
        "lose_discard": values.get("lose_discard"),
    }


VIEWS: list[NeedsView | None] = [
    None,
    view("no hand left"),
    view("out of reach"),
    view("can reach", self_draw=14, discard=12),
    view("can reach", self_draw=40),
    view("can reach", discard=4400),
    view("over the line"),
    view("over the line", lose_self_draw=45, lose_discard=30),
    view("over the line", lose_self_draw=0),
    view("over the line", lose_discard=12000),
    view("over the line", lose_self_draw=0, lose_discard=0),
    view("over the line", lose_self_draw=45, lose_discard=0),
    view("over the line", lose_discard=0),
]

# (ariari, view index) -> (sentence, short), as a reader of English reads them
EXPECTED = {
    (False, 3): ("Needs a self-draw of 14 or a discard win of 12", "14 self-draw · 12 discard"),
    (True, 3): ("Needs a tsumo of 14 or a ron of 12", "14 tsumo · 12 ron"),
    (True, 5): ("Needs a ron of 4,400", "4,400 ron"),
    (False, 6): ("Safe against any one hand", "safe"),
    (False, 7): (
        "Through unless an opponent self-draws more than 45 or they deal in more than 30",
        "safe to 45 self-draw · 30 deal-in",
    ),
    (True, 9): ("Through unless they deal in more than 12,000", "safe to 12,000 deal-in"),
    (False, 2): ("Out of reach with one hand", "out of reach"),
    (False, 1): ("", ""),
    # 0: even the smallest such hand drops them (rule HS-3): no "more than 0"
    (False, 8): ("Through unless an opponent self-draws", "any self-draw drops them"),
    (False, 10): (
        "Through unless an opponent self-draws or they deal in",
        "any loss drops them",
    ),
    (True, 11): (
        "Through unless an opponent self-draws more than 45 or they deal in",
        "safe to 45 tsumo · no deal-in",
    ),
    (False, 12): ("Through unless they deal in", "any deal-in drops them"),
}


def _python() -> list[list[str]]:
    with i18n.speaking("en"):
        return [
            [needs_sentence(v, ariari), needs_short(v, ariari)]
            for ariari in (False, True)
            for v in VIEWS
        ]


def test_the_words_in_english() -> None:
    said = _python()
    for (ariari, index), expected in EXPECTED.items():
        assert tuple(said[(len(VIEWS) if ariari else 0) + index]) == expected


def _script_words(preamble: str = "", speaker: str = "") -> list[list[str]]:
    """What static/needs.js says of every view under Node, in both rulesets: with
    `preamble` run first and `speaker` (a `t` it defines) passed as the language."""
    extra = f", {speaker}" if speaker else ""
    script = (
        'import { needsSentence, needsShort } from "./app/static/needs.js";\n'
        f"{preamble}"
        f"const views = {json.dumps(VIEWS)};\n"
        "const out = [];\n"
        "for (const ariari of [false, true]) for (const v of views)"
        f" out.push([needsSentence(v, ariari{extra}), needsShort(v, ariari{extra})]);\n"
        "console.log(JSON.stringify(out));\n"
    )
    words: list[list[str]] = run_module(script)
    return words


def test_the_page_script_says_what_the_server_says() -> None:
    assert _script_words() == _python()


def _python_in(language: str) -> list[list[str]]:
    # the page speaks English; the words are asked for in the hall's second language
    with i18n.speaking("en", "hall"):
        return [
            [needs_sentence(v, ariari, language), needs_short(v, ariari, language)]
            for ariari in (False, True)
            for v in VIEWS
        ]


def test_the_words_in_a_language_asked_for_beside_the_pages() -> None:
    # The hall speaks its second language in turn: its column of needs on the cut page says
    # them in either (issue 18). The language asked for wins over the page's.
    said = _python_in("ja")
    assert said != _python()
    assert said[3] == [
        needs_sentence(VIEWS[3], False, "ja"),
        needs_short(VIEWS[3], False, "ja"),
    ]
    with i18n.speaking("ja"):
        assert said == [
            [needs_sentence(v, ariari), needs_short(v, ariari)]
            for ariari in (False, True)
            for v in VIEWS
        ]
    with i18n.speaking("en"):
        assert needs_short(VIEWS[3]) == "14 self-draw · 12 discard"  # the page's is untouched


@pytest.mark.parametrize("language", [*i18n.TRANSLATED, i18n.PSEUDO])
def test_the_page_script_says_it_in_a_second_language_as_the_server_does(
    language: str,
) -> None:
    # The hall's second speaker (static/hall/words.js speakerOf, over the catalog the hall
    # embeds for it: app/web/hall.py) passed as needs.js's `t`.
    catalog = i18n.catalog_json(language, ("common", "hall"))
    preamble = (
        'import { speakerOf } from "./app/static/hall/words.js";\n'
        f"const {{ t }} = speakerOf({catalog});\n"
    )
    assert _script_words(preamble, "t") == _python_in(language)
