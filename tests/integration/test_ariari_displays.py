"""What the displays say of an Ari Ari round (issue 13), on SQLite and PostgreSQL: the feeds,
the overlays' first frame and the spectator's player page show points as the players count
them, whole and with thousands separators (rule AA-17), never the 2 decimals of SC-5, and no
planned number of hands (AA-23: the 100 a game's clock carries is its cap, not a plan).

The game is a tie for first with leftover riichi bets (AA-15, AA-21) at table 1 of
examples/ariari.jsonl's opening (East-only games of 20,000; p1 East, p2, p3, p4): p1, the
dealer, makes a chombo (4,000 to each, AA-10), declares riichi in two exhaustive draws where
only p1 is tenpai (the deal stays, 2,000 in bets stay on the table), and makes a second
chombo: p1 is at -6,000 (AA-14). p2, p3 and p4 are level at 28,000: the 2,000 in bets are
668, 666 and 666 (the remainder to p2, nearest the starting East), the uma of places 1 to 3
is 10,000 split 3,334, 3,333 and 3,333 (AA-21), so p2's result is 12,002.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.services.store import TournamentStore
from tests.integration.judging_setup import Setup, club_opening, hand, open_tournament, post
from tests.integration.test_ariari_api import ARIARI_LOG

CHOMBO_P1 = {"kind": "chombo", "offender": "p1"}
DRAW_P1_TENPAI = {"kind": "exhaustive_draw", "tenpai": ["p1"], "riichi": ["p1"]}


@pytest.fixture
def tied(client: TestClient, store: TournamentStore) -> Setup:
    cup = open_tournament(store, club_opening(ARIARI_LOG))
    for number, result in enumerate((CHOMBO_P1, DRAW_P1_TENPAI, DRAW_P1_TENPAI, CHOMBO_P1), 1):
        answer = post(client, cup, "hands", hand(1, number, result), table=1, key=str(uuid.uuid4()))
        assert answer.status_code == 201, answer.text
    return cup


def feed(client: TestClient, cup: Setup, name: str) -> Any:
    answer = client.get(f"/feeds/{cup.tid}/{name}.json")
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_game_splits_the_leftover_bets_and_the_uma(client: TestClient, tied: Setup) -> None:
    tables = client.get(f"/api/tournaments/{tied.tid}/tables").json()["tables"]
    game = next(t for t in tables if t["table"] == 1)["game"]
    assert (game["end_rule"], game["bets"]) == ("AA-14", 2_000)
    assert [(p["player"], p["bets"], p["uma"], p["result"]) for p in game["players"]] == [
        ("p1", 0, -10_000, -36_000),
        ("p2", 668, 3_334, 12_002),
        ("p3", 666, 3_333, 11_999),
        ("p4", 666, 3_333, 11_999),
    ]


def test_the_feeds_give_points_with_separators_and_no_planned_hands(
    client: TestClient, tied: Setup
) -> None:
    rows = {row["Player"]: row for row in feed(client, tied, "standings")}
    assert (rows["p2"]["Total"], rows["p2"]["Total exact"]) == ("12,002", "12002")
    assert (rows["p2"]["To cut"], rows["p2"]["To cut exact"]) == ("+12,002", "+12002")
    assert (rows["p1"]["Total"], rows["p1"]["To cut"]) == ("-36,000", "-36,000")
    assert feed(client, tied, "player-p3")[0]["Total"] == "11,999"
    csv = client.get(f"/feeds/{tied.tid}/standings.csv").text
    assert '"12,002",12002' in csv
    assert "<Total>12,002</Total>" in client.get(f"/feeds/{tied.tid}/standings.xml").text
    # rule AA-23: table 2's game is played with no planned hands; table 1's ended after 4
    clocks = {row["Table"]: row for row in feed(client, tied, "clocks")}
    assert (clocks[1]["Planned hands"], clocks[2]["Planned hands"]) == (4, None)
    tables = {row["Table"]: row for row in feed(client, tied, "tables")}
    assert (tables[1]["Planned hands"], tables[2]["Planned hands"]) == (4, None)


def test_the_overlays_show_points_and_no_planned_hands(client: TestClient, tied: Setup) -> None:
    # the first frame the server draws (the page's config keeps the channel states as they are)
    top = client.get(f"/overlay/{tied.tid}/top").text
    assert '<span class="total">12,002</span>' in top
    assert '<span class="total">\u221236,000</span>' in top
    assert ".00</span>" not in top and '"ariari": true' in top
    cut = client.get(f"/overlay/{tied.tid}/cut").text
    assert '<span class="to-cut">+12,002</span>' in cut and ".00</span>" not in cut
    table = client.get(f"/overlay/{tied.tid}/table/1").text
    # the hand that ended the game carries the chombo, the bets and the uma (AA-27)
    assert "+8,002" in table and "\u221222,000" in table
    playing = client.get(f"/overlay/{tied.tid}/table/2").text
    assert "Hand 1<" in playing and " of 100" not in playing
    assert '<span class="table-clock" data-field="clock"></span>' in playing  # not "0/100"
    clock = client.get(f"/overlay/{tied.tid}/clock").text
    assert "/100" not in clock and "No limit" in clock and "1 of 2 games over" in clock
    player = client.get(f"/overlay/{tied.tid}/player/p2").text
    assert "12,002" in player and "+12,002" in player


def test_an_ari_ari_win_is_named_as_the_players_say_it(
    client: TestClient, store: TournamentStore
) -> None:
    cup = open_tournament(store, club_opening(ARIARI_LOG))
    double = {
        "kind": "ron",
        "discarder": "p1",
        "wins": [
            {"winner": "p2", "fan": 3, "fu": 30, "yaku": 1},
            {"winner": "p3", "limit": "mangan", "yaku": 1},
        ],
    }
    tsumo = {"kind": "tsumo", "winner": "p2", "fan": 1, "fu": 30, "yaku": 1}
    for number, result in enumerate((double, tsumo), 1):
        answer = post(client, cup, "hands", hand(1, number, result), key=str(uuid.uuid4()))
        assert answer.status_code == 201, answer.text
    page = client.get(f"/p/p2?t={cup.tid}").text
    assert "Won ron 3 fan 30 fu · Chloe Park ron mangan" in page
    assert "Won tsumo 1 fan 30 fu" in page
    assert "won 3900" not in page.lower()


def test_the_player_page_shows_points_and_games(client: TestClient, tied: Setup) -> None:
    page = client.get(f"/p/p2?t={tied.tid}").text
    assert "12,002" in page and "12002.00" not in page
    assert "12,002 above the cut" in page
    assert "Game 1 · Table 1 · South" in page
    assert "of 100" not in page and "Segment" not in page
    assert "+8,002" in page and "+4,000" in page
    # the hand that ended the game says what the end added to it (AA-15, AA-16, AA-27)
    assert "Aiko Mori chombo · game end: 1st, bets +668, uma +3,334" in page
    last = client.get(f"/p/p1?t={tied.tid}").text
    assert "Chombo · game end: 4th, uma \u221210,000" in last  # a true minus sign on a page
    chart = client.get(f"/p/p2/chart?t={tied.tid}").text
    assert "R1: 12,002 so far" in chart and ".00" not in chart
