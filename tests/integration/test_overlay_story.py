"""The story overlay (issue 18, part 2) as the server draws its first frame, on SQLite and
PostgreSQL: the `stats` channel's story (app/domain/story.py) one card at a time, the first
card drawn in full so that a mixer grabbing the first frame shows content: the biggest hands
of the round (rule HS-4), with how each was won and where; `?only=` the parts to tell and
`?seconds=` a card's time on air, both bounded and refused naming the field; an Ari Ari
round in points (AA-17, AA-22); a round with no hand yet says so. `?caspar=` is bounded too
(tests/e2e/test_overlay_story.py follows the page live and plays it as CasparCG would)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_ariari_api import ARIARI_LOG, accepted, ron
from test_stats_feed import two_hands

from app.services.store import TournamentStore
from tests.integration.judging_setup import Setup, club_opening, open_tournament

ARIARI_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ariari.jsonl"
ROW = re.compile(r'<li class="row story-row"(?: data-player="([^"]+)")?>(.*?)</li>', re.S)


@pytest.fixture
def club(store: TournamentStore) -> Setup:
    """examples/club.jsonl before its first hand: 8 players, 4 advance."""
    return open_tournament(store, club_opening())


def story(client: TestClient, tid: int, query: str = "") -> str:
    answer = client.get(f"/overlay/{tid}/story{query}")
    assert answer.status_code == 200, answer.text
    return answer.text


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def card(page: str) -> tuple[str, str, list[tuple[str, str]]]:
    """The card drawn: its key, its heading and its rows (player, text without tags)."""
    key = re.search(r'<section class="panel story" id="story" data-card="([^"]*)">', page)
    what = re.search(r'<span class="what" data-field="what">(.*?)</span>', page)
    assert key and what, page
    rows = [(player or "", text(body)) for player, body in ROW.findall(page)]
    return key.group(1), what.group(1), rows


def config(page: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="overlay-config">(.*?)</script>', page)
    assert found, page
    parsed: dict[str, object] = json.loads(found.group(1))
    return parsed


def test_the_first_card_is_the_biggest_hands_of_the_round(client: TestClient, club: Setup) -> None:
    two_hands(client, club)  # bo's 30 on cleo's discard (table 1), eun's self-draw of 10
    page = story(client, club.tid)
    key, what, rows = card(page)
    assert key == "hands-round"
    assert what == "Round 1 · Biggest hands"
    # rule HS-4: the value as scored, biggest first; how it was won, who dealt in, where
    assert [player for player, _ in rows] == ["bo", "eun"]
    assert (
        rows[0][1] == "CN Bo Chen 30 Discard win dealt in by Cléo Martin Half 1 · Table 1 · Hand 1"
    )
    assert rows[1][1] == "KR Eun-ji Park 10 Self-draw Half 1 · Table 2 · Hand 1"
    assert '<p class="empty" data-field="empty" hidden>' in page
    # the page follows the stats channel, a card every 8 seconds, every part in order
    shown = config(page)
    assert shown["channels"] == ["stats"]
    assert shown["seconds"] == 8
    assert shown["only"] == ["hands", "movers", "crossed", "leaders", "counts"]


def test_only_the_parts_asked_for_in_the_storys_order(client: TestClient, club: Setup) -> None:
    two_hands(client, club)
    page = story(client, club.tid, "?only=counts,leaders&seconds=12")
    assert config(page)["only"] == ["leaders", "counts"]
    assert config(page)["seconds"] == 12
    key, what, rows = card(page)
    # the segment is group B's half 1, whose hand came last (rule FM-2): eun leads table 2
    assert (key, what) == ("leaders", "Round 1 · Group B · Half 1 · Table leaders")
    assert rows == [("eun", "Table 2 KR Eun-ji Park +30 1 hand played")]
    key, what, rows = card(story(client, club.tid, "?only=counts"))
    assert (key, what) == ("counts", "Round 1 · How the hands ended")
    # the round's two hands, and the segment's one (rule HS-1)
    assert [row for _, row in rows] == [
        "Round 1 2 hands 1 self-draw · 1 discard win · 0 draws",
        "Group B · Half 1 1 hand 1 self-draw · 0 discard wins · 0 draws",
    ]
    key, what, rows = card(story(client, club.tid, "?only=movers"))
    # rule ST-2: eun's +30 keeps the second place the four shared on 0 (bo's 90 first); the
    # three others of table 2 fall a rank with -10 each (no climber: that card is left out)
    assert (key, what) == ("fallers", "Round 1 · Group B · Half 1 · Fallers")
    assert rows == [
        ("finn", "DK Finn Larsen \u221210 Rank 2 \u2192 3 \u221210.00"),
        ("gwen", "HK Gwen Ho \u221210 Rank 2 \u2192 3 \u221210.00"),
        ("hugo", "PT Hugo Silva \u221210 Rank 2 \u2192 3 \u221210.00"),
    ]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?seconds=2", "seconds"),
        ("?seconds=61", "seconds"),
        ("?seconds=eight", "seconds"),
        ("?seconds=99999999999999999999", "seconds"),
        ("?only=hands,gossip", "only"),
        ("?only=", "only"),
        ("?only=hands,,movers", "only"),
        ("?only=" + "hands," * 30, "only"),
        ("?caspar=yes", "caspar"),
        ("?caspar=2", "caspar"),
    ],
)
def test_bad_seconds_only_and_caspar_are_refused_naming_the_field(
    client: TestClient, club: Setup, query: str, field: str
) -> None:
    answer = client.get(f"/overlay/{club.tid}/story{query}")
    assert answer.status_code == 422, answer.text
    assert f"field '{field}'" in answer.text


def test_caspar_is_a_flag_every_overlay_takes(client: TestClient, club: Setup) -> None:
    for path in ("top", "cut", "bubble", "story", "clock", "table/1", "player/ami"):
        page = client.get(f"/overlay/{club.tid}/{path}?caspar=1")
        assert page.status_code == 200, (path, page.text)
        # the script that keeps the page off air until play(), before the first frame
        head = page.text.split("</head>")[0]
        assert '<script src="/static/overlay-air.js"></script>' in head, path
        assert client.get(f"/overlay/{club.tid}/{path}?caspar=on").status_code == 422, path


def test_a_round_with_no_hand_yet_says_so(client: TestClient, club: Setup) -> None:
    page = story(client, club.tid)
    key, what, rows = card(page)
    assert (key, what, rows) == ("", "Round 1 · The story of the session", [])
    assert '<p class="empty" data-field="empty">No hand played yet in this round</p>' in page
    # with hands, but nothing in the part asked for: eun's self-draw crossed no line (rule
    # ST-3: nobody changed sides with it)
    two_hands(client, club)
    page = story(client, club.tid, "?only=crossed")
    assert card(page) == ("", "Round 1 · The story of the session", [])
    assert '<p class="empty" data-field="empty">Nothing to tell yet</p>' in page


def test_the_story_in_a_language(client: TestClient, club: Setup) -> None:
    two_hands(client, club)
    page = story(client, club.tid, "?lang=ja")
    _, what, rows = card(page)
    assert what.startswith("第1ラウンド · ")
    assert "Biggest hands" not in what
    assert "Discard win" not in rows[0][1] and "dealt in by" not in rows[0][1]


def test_an_ari_ari_story_says_points(client: TestClient, store: TournamentStore) -> None:
    cup = open_tournament(store, club_opening(ARIARI_LOG))
    # rule AA-3: p3 ron on p2's discard, 3 fan 30 fu: 3,900 (AA-22: the win's value)
    accepted(client, cup, 1, 1, ron("p2", "p3", fan=3, fu=30))
    _, _, rows = card(story(client, cup.tid))
    assert rows[0][0] == "p3"
    assert " 3,900 Ron dealt in by " in rows[0][1], rows
    key, _, rows = card(story(client, cup.tid, "?only=movers"))
    # p3 keeps the first place all eight shared; p2 falls, in whole points with separators
    # (AA-17), not in 2 decimals
    assert key == "fallers"
    assert rows[0] == ("p2", "GB Ben Stone \u22123,900 Rank 1 \u2192 8 \u22123,900"), rows
    _, _, rows = card(story(client, cup.tid, "?only=counts"))
    assert rows[0][1].endswith("1 hand 0 tsumo · 1 ron · 0 draws"), rows


def test_an_unknown_tournament_has_no_story(client: TestClient) -> None:
    answer = client.get("/overlay/99/story")
    assert answer.status_code == 404
    assert "tournament 99 does not exist" in answer.text
