"""The bubble overlay (issue 18, part 1) as the server draws its first frame, on SQLite and
PostgreSQL: the last players above the cut line and the first below it (rule ST-3), each with
rank, name, country, total and what they need from the next hand in the needs feed's short
words; the line between them saying how many advance; `?n=` players a side, bounded by the
needs channel's band; points at an Ari Ari table (AA-17, AA-22); a final, which has no cut,
says so (tests/e2e/test_overlay_bubble.py follows the same page live in Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_ariari_api import ARIARI_LOG, accepted, ron
from test_feeds import enter_first_hand

from app.read.views import NEEDS_BAND
from app.services.store import TournamentStore
from tests.integration.judging_setup import Setup, club_opening, open_tournament

ARIARI_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ariari.jsonl"
ROW = re.compile(r'<li class="row (above|below)" data-player="([^"]+)">(.*?)</li>', re.S)


@pytest.fixture
def club(store: TournamentStore) -> Setup:
    """examples/club.jsonl before its first hand: 8 players, 4 advance."""
    return open_tournament(store, club_opening())


def bubble(client: TestClient, tid: int, query: str = "") -> str:
    answer = client.get(f"/overlay/{tid}/bubble{query}")
    assert answer.status_code == 200, answer.text
    return answer.text


def rows(page: str) -> dict[str, tuple[str, str]]:
    """Each drawn row by player: its side of the line and its text, tags stripped."""
    return {
        player: (side, " ".join(re.sub(r"<[^>]+>", " ", body).split()))
        for side, player, body in ROW.findall(page)
    }


def test_the_players_either_side_of_the_line_and_what_each_needs(
    client: TestClient, club: Setup
) -> None:
    enter_first_hand(client, club)  # bo wins 30 on cleo's discard: +90 / -40 / -25 / -25
    page = bubble(client, club.tid)
    drawn = rows(page)
    # rule ST-3, 4 advance: three a side by default (places 2 to 7), the line under the 4th
    assert [side for side, _ in drawn.values()] == ["above"] * 3 + ["below"] * 3
    assert page.count('class="cut-line"') == 1
    assert "<span>Top 4 advance</span>" in page
    assert "Round 1 · On the bubble" in page
    # bo leads on 90 and cleo trails on -40: 1st and 8th, outside three a side
    assert "bo" not in drawn and "cleo" not in drawn
    wide = rows(bubble(client, club.tid, "?n=4"))
    assert len(wide) == 2 * NEEDS_BAND
    # cleo: a self-draw or a discard win of 14 lifts her over the four on 0 (the needs
    # feed's answer, tests/integration/test_feed_needs.py), in the short words
    side, text = wide["cleo"]
    assert side == "below"
    assert text.endswith("\u221240.00 14 self-draw · 14 discard"), text
    assert "Cléo Martin" in text and "FR" in text
    assert re.search(r"90\.00 safe to \d+ self-draw · \d+ deal-in$", wide["bo"][1])
    narrow = rows(bubble(client, club.tid, "?n=1"))
    assert [side for side, _ in narrow.values()] == ["above", "below"]


@pytest.mark.parametrize("n", ["0", "5", "-1", "three", "99999999999999999999"])
def test_n_is_a_number_of_players_a_side_within_the_band(
    client: TestClient, club: Setup, n: str
) -> None:
    answer = client.get(f"/overlay/{club.tid}/bubble?n={n}")
    assert answer.status_code == 422, answer.text
    assert "field 'n'" in answer.text


def test_an_unknown_tournament_has_no_bubble(client: TestClient) -> None:
    answer = client.get("/overlay/99/bubble")
    assert answer.status_code == 404
    assert "tournament 99 does not exist" in answer.text


def test_the_bubble_in_a_language(client: TestClient, club: Setup) -> None:
    enter_first_hand(client, club)
    page = bubble(client, club.tid, "?lang=ja")
    assert "上位4名が通過" in page and "通過ライン前後" in page
    cleo = rows(bubble(client, club.tid, "?lang=ja&n=4"))["cleo"][1]
    assert "14" in cleo and "self-draw" not in cleo and "discard" not in cleo


def test_an_ari_ari_bubble_says_points(client: TestClient, store: TournamentStore) -> None:
    cup = open_tournament(store, club_opening(ARIARI_LOG))
    # rule AA-3: p3 ron on p2's discard, 3 fan 30 fu: 3,900; p2, now the dealer, needs a
    # tsumo of 4,500 or a ron of 4,400 (tests/integration/test_feed_needs.py)
    accepted(client, cup, 1, 1, ron("p2", "p3", fan=3, fu=30))
    drawn = rows(bubble(client, cup.tid, "?n=4"))
    side, text = drawn["p2"]
    assert side == "below"
    assert text.endswith("\u22123,900 4,500 tsumo · 4,400 ron"), text
    assert drawn["p3"][1].split(" safe to ")[0].endswith("3,900")
    assert ".00" not in " ".join(text for _, text in drawn.values())


def test_a_final_has_no_line_and_says_so(client: TestClient, store: TournamentStore) -> None:
    lines = ARIARI_EXAMPLE.read_text(encoding="utf-8").splitlines()[:-1]  # the final in play
    tid = open_tournament(store, lines).tid
    page = bubble(client, tid)
    assert rows(page) == {}
    assert 'class="cut-line"' not in page
    assert '<p class="empty" data-field="empty">No cut this round</p>' in page
