"""Seating slips (rule SE-4): each player's table in every segment of a round, as a printable
A4 page with a QR code to the player's page, and as a CSV.

The seats are a hand-made round 1 of 8 players at 2 tables over 4 halves; a QR code is
checked by generating it again from the URL the slip must open.
"""

from __future__ import annotations

import csv
import html
import io
import re

import pytest
import segno

from app.domain.formats import PRESETS
from app.domain.hands import PlayerId
from app.domain.log import PlayerRegistered
from app.domain.slips import Slip, seating_slips
from app.printouts.slips import render_slips_csv, render_slips_html

WSOM2008 = PRESETS["wsom2008"]
ROUND_1 = WSOM2008.round(1)  # 4 halves
ROUND_2 = WSOM2008.round(2)  # 2 halves
ROUND_7 = WSOM2008.round(7)  # 4 quarters
BASE_URL = "http://hall.local:8000"

TRICKY_NAME = "Ann <Lee> & Co"  # must be escaped in the page
PLAYERS: dict[PlayerId, PlayerRegistered] = {
    p.player: p
    for p in (
        PlayerRegistered("P1", TRICKY_NAME, "A", country="JP"),
        PlayerRegistered("P2", "Bo", "A"),
        PlayerRegistered("Ann Lee", "Ann Lee", "A", country="FR"),  # an id with a space
        PlayerRegistered("x/y", "Slash", "A"),  # an id with a slash
        PlayerRegistered(7, "Seven", "A"),  # CONTRACT §1: ids may be integers
        PlayerRegistered("P6", "Cleo", "A"),
        PlayerRegistered("P7", "Dirk", "A"),
        PlayerRegistered("S1", "Sub One", "A", substitute=True),  # rule FM-9
        PlayerRegistered("P9", "Never Seated", "A"),
    )
}
# Each player's table in halves 1-4; S1 has no seat known in half 3.
TABLES: dict[PlayerId, tuple[int | None, ...]] = {
    "P1": (1, 2, 1, 2),
    "P2": (1, 1, 2, 2),
    "Ann Lee": (1, 2, 2, 1),
    "x/y": (1, 1, 1, 1),
    7: (2, 1, 2, 1),
    "P6": (2, 2, 1, 1),
    "P7": (2, 1, 1, 2),
    "S1": (2, 2, None, 2),
}
SEAT_OF = {
    (segment, player): table
    for player, tables in TABLES.items()
    for segment, table in enumerate(tables, start=1)
    if table is not None
}
# First table, then name: "<" sorts before "L", and "Seven" before "Sub One".
ORDER: list[PlayerId] = ["P1", "Ann Lee", "P2", "x/y", "P6", "P7", 7, "S1"]
URLS = {
    "P1": f"{BASE_URL}/p/P1",
    "Ann Lee": f"{BASE_URL}/p/Ann%20Lee",
    "P2": f"{BASE_URL}/p/P2",
    "x/y": f"{BASE_URL}/p/x%2Fy",
    "P6": f"{BASE_URL}/p/P6",
    "P7": f"{BASE_URL}/p/P7",
    7: f"{BASE_URL}/p/7",
    "S1": f"{BASE_URL}/p/S1",
}


def round_one_slips() -> tuple[Slip, ...]:
    return seating_slips(ROUND_1, PLAYERS, SEAT_OF)


def qr(url: str) -> str:
    """The modules of the QR code that opens `url`, as segno draws them (the slip's <svg>
    tag adds a viewBox so that CSS can size it)."""
    svg = segno.make(url, error="m").svg_inline(scale=3, border=2)
    return svg[svg.index("<path") :]


# -- the slips themselves ----------------------------------------------------------------------


def test_one_slip_per_seated_player_with_a_table_per_half() -> None:
    slips = round_one_slips()
    assert [s.player for s in slips] == ORDER  # P9 is not seated: no slip
    for slip in slips:
        assert slip.tables == TABLES[slip.player]  # halves 1 to 4 in order
        assert slip.name == PLAYERS[slip.player].name
        assert (slip.round, slip.segment_kind, slip.group) == (1, "half", "A")
        assert slip.substitute == (slip.player == "S1")
    assert slips[0].country == "JP" and slips[2].country is None


def test_after_round_1_a_slip_names_no_group() -> None:
    seat_of = {(1, "P1"): 3, (2, "P1"): 5}
    (slip,) = seating_slips(ROUND_2, PLAYERS, seat_of)
    assert (slip.round, slip.group, slip.tables) == (2, None, (3, 5))


def test_an_ari_ari_slip_names_no_group_and_its_games() -> None:
    # rule FM-2: the Ari Ari preset's round 1 is one group; its segments are games (AA-12)
    round_one = PRESETS["ariari"].round(1)
    seat_of = {(1, "P1"): 1, (2, "P1"): 2}
    slips = seating_slips(round_one, PLAYERS, seat_of)
    assert [(s.group, s.segment_kind, s.tables) for s in slips] == [(None, "game", (1, 2))]
    header = render_slips_csv(slips).splitlines()[0]
    assert header.endswith("Game 1 table,Game 2 table")
    assert "group A" not in render_slips_html(slips, tournament="Ari Ari", base_url=BASE_URL)


def test_a_quarter_slip_has_four_quarters() -> None:
    seat_of = {(q, "P2"): table for q, table in ((1, 1), (2, 2), (3, 2), (4, 1))}
    (slip,) = seating_slips(ROUND_7, PLAYERS, seat_of)
    assert (slip.segment_kind, slip.tables) == ("quarter", (1, 2, 2, 1))


# -- CSV ----------------------------------------------------------------------------------------


def test_csv_has_a_header_and_one_row_per_slip() -> None:
    rows = list(csv.reader(io.StringIO(render_slips_csv(round_one_slips()))))
    assert rows[0] == [
        "player",
        "name",
        "country",
        "group",
        "substitute",
        "round",
        "Half 1 table",
        "Half 2 table",
        "Half 3 table",
        "Half 4 table",
    ]
    assert rows[1:] == [
        ["P1", TRICKY_NAME, "JP", "A", "", "1", "1", "2", "1", "2"],
        ["Ann Lee", "Ann Lee", "FR", "A", "", "1", "1", "2", "2", "1"],
        ["P2", "Bo", "", "A", "", "1", "1", "1", "2", "2"],
        ["x/y", "Slash", "", "A", "", "1", "1", "1", "1", "1"],
        ["P6", "Cleo", "", "A", "", "1", "2", "2", "1", "1"],
        ["P7", "Dirk", "", "A", "", "1", "2", "1", "1", "2"],
        ["7", "Seven", "", "A", "", "1", "2", "1", "2", "1"],
        ["S1", "Sub One", "", "A", "yes", "1", "2", "2", "", "2"],
    ]


def test_csv_of_quarters_names_quarters() -> None:
    seat_of = {(q, "P2"): 1 for q in range(1, 5)}
    rows = list(csv.reader(io.StringIO(render_slips_csv(seating_slips(ROUND_7, PLAYERS, seat_of)))))
    assert rows[0][6:] == [f"Quarter {q} table" for q in range(1, 5)]
    assert rows[1] == ["P2", "Bo", "", "", "", "7", "1", "1", "1", "1"]


# -- the printable page ------------------------------------------------------------------------


def sections(page: str) -> dict[str, str]:
    """Each slip's HTML by its (escaped) data-player attribute."""
    found = re.findall(r'<section class="slip" data-player="([^"]*)">(.*?)</section>', page, re.S)
    return {html.unescape(player): body for player, body in found}


@pytest.fixture(scope="module")
def page() -> str:
    return render_slips_html(round_one_slips(), tournament="WSOM & Friends", base_url=BASE_URL)


def test_the_page_has_a_slip_per_player_with_name_and_tables(page: str) -> None:
    slips = sections(page)
    assert list(slips) == [str(p) for p in ORDER]
    for player, body in slips.items():
        key = 7 if player == "7" else player
        name = html.escape(PLAYERS[key].name, quote=False)
        assert f'<div class="name">{name}</div>' in body
        shown = ["–" if t is None else str(t) for t in TABLES[key]]
        assert re.findall(r"<td>([^<]*)</td>", body) == shown
        assert re.findall(r"<th>([^<]*)</th>", body) == [f"Half {n}" for n in range(1, 5)]


def test_names_are_html_escaped(page: str) -> None:
    assert "Ann &lt;Lee&gt; &amp; Co" in page
    assert "<Lee>" not in page
    assert "WSOM &amp; Friends" in page


def test_each_slip_carries_a_qr_code_of_its_player_url(page: str) -> None:
    slips = sections(page)
    assert page.count("<svg") == len(ORDER)
    for player, body in slips.items():
        key = 7 if player == "7" else player
        assert body.count("<svg") == 1
        assert qr(URLS[key]) in body  # the code opens /p/{id}, the id URL-quoted


def test_different_players_get_different_qr_codes() -> None:
    codes = {qr(url) for url in URLS.values()}
    assert len(codes) == len(URLS)


def test_a_trailing_slash_on_the_base_url_makes_no_double_slash() -> None:
    page = render_slips_html(round_one_slips(), tournament="T", base_url=BASE_URL + "/")
    assert qr(URLS["P1"]) in sections(page)["P1"]


def test_the_page_prints_on_a4(page: str) -> None:
    assert "@page { size: A4" in page
    assert page.lstrip().lower().startswith("<!doctype html>")
