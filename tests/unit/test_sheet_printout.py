"""The printed score sheet (issue 18, part 5): the page the table fills in, in the
tournament's language, a name in its owner's script first for a reader of Japanese, Chinese
or Korean (issue 17), escaped, with the scorer's address under its QR code."""

from __future__ import annotations

import html

from app.domain.sheets import ScoreSheet, SheetHand, SheetPlayer
from app.printouts.sheets import render_sheets_html, scorer_url

SEATS = (
    SheetPlayer("P1", "Takeshi Yamada", "JP", "east", local_name="山田 剛"),
    SheetPlayer("P2", "Ann <Lee> & Co", None, "south"),
    SheetPlayer("P3", "Cleo", "FR", "west"),
    SheetPlayer(4, "Dirk", "NL", "north"),  # CONTRACT §1: ids may be integers
)
ORDER = ("P1", "P2", "P3", 4)
SHEET = ScoreSheet(
    round=2,
    segment=1,
    table=14,
    group="",
    segment_kind="half",
    ariari=False,
    players=SEATS,
    hands=tuple(
        SheetHand(hand=n, cycle=(n - 1) // 4 + 1, dealer=ORDER[(n - 1) % 4], seats=ORDER)
        for n in range(1, 9)
    ),
    entered=(1,),
    min_value=5,
    max_value=320,
)


def render(language: str) -> str:
    return render_sheets_html(
        [SHEET],
        tournament="Macau <Open>",
        tournament_id=3,
        base_url="http://10.0.0.5:8000/",
        language=language,
    )


def test_the_sheet_names_the_players_the_dealers_and_its_scorers_address() -> None:
    page = render("en")

    assert (
        scorer_url("http://10.0.0.5:8000/", 3, SHEET)
        == "http://10.0.0.5:8000/scorer/3?sheet=2-1-14"
    )
    assert html.escape("http://10.0.0.5:8000/scorer/3?sheet=2-1-14") in page
    assert "Round 2 · half 1 · table 14" in page
    assert "Takeshi Yamada <small>山田 剛</small>" in page  # Latin first in English
    assert "Ann &lt;Lee&gt; &amp; Co" in page and "<Lee>" not in page
    assert "Macau &lt;Open&gt;" in page
    assert page.count('data-hand="') == 8
    assert "1 · Takeshi Yamada" in page  # the first dealer, and a signature line
    assert "on the server" in page  # hand 1 is entered already


def test_a_reader_of_japanese_reads_the_name_in_its_owners_script_first() -> None:
    page = render("ja")

    assert "山田 剛 <small>Takeshi Yamada</small>" in page
    assert "1 · 山田 剛" in page
    assert "第2ラウンド · ハーフ1 · 14番卓" in page
    assert 'lang="ja"' in page
