"""The `needs` feed (issue 18, part 1) on SQLite and PostgreSQL: the players either side of
the cut, each with what the next hand at their table would have to be, the same answer as
the domain's (app/domain/needs.py) on the standings as they stand."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from test_ariari_api import ARIARI_LOG, accepted, ron
from test_feeds import enter_first_hand

from app.services import feeds
from app.services.store import TournamentStore
from tests.integration.judging_setup import Setup, club_opening, open_tournament


@pytest.fixture
def club(store: TournamentStore) -> Setup:
    """examples/club.jsonl before its first hand: 8 players, 4 advance."""
    return open_tournament(store, club_opening())


def test_the_players_near_the_cut_and_what_they_need(client: TestClient, club: Setup) -> None:
    enter_first_hand(client, club)  # bo wins 30 on cleo's discard: +90 / -40 / -25 / -25
    rows = {
        row["Player"]: row
        for row in json.loads(client.get(f"/feeds/{club.tid}/needs.json").content)
    }
    assert list(next(iter(rows.values()))) == list(feeds.NEEDS_COLUMNS)
    # cleo on -40, four players on 0 at the other table, bo on 90 (rule ST-3, 4 advance):
    # a self-draw of 14 makes 2 (rule HS-2: 3 x 14 - 40), above the four 0s; 13 makes -1.
    cleo = rows["cleo"]
    assert (cleo["Table"], cleo["Hands left"], cleo["Needs"]) == (1, 7, "can reach")
    assert (cleo["Needs self-draw"], cleo["Needs discard"]) == (14, 14)
    assert cleo["Can lose self-draw"] is None and cleo["Can lose discard"] is None
    # bo on 90 is over the line: an opponent's self-draw of v costs v and lifts no 0 over
    # 90 - v before v reaches 45; his own discard of v over 25 costs 3v - 50 (rule HS-2)
    bo = rows["bo"]
    assert bo["Needs"] == "over the line"
    assert bo["Needs self-draw"] is None
    assert isinstance(bo["Can lose self-draw"], int) and isinstance(bo["Can lose discard"], int)
    assert bo["Can lose discard"] < bo["Can lose self-draw"]


def test_a_needs_feed_in_every_format(client: TestClient, club: Setup) -> None:
    enter_first_hand(client, club)
    for extension in ("json", "csv", "xml"):
        answer = client.get(f"/feeds/{club.tid}/needs.{extension}")
        assert answer.status_code == 200 and answer.headers["etag"]


def test_needs_in_words_of_a_language(client: TestClient, club: Setup) -> None:
    enter_first_hand(client, club)
    said = json.loads(client.get(f"/feeds/{club.tid}/needs.json?lang=ja").content)
    assert {row["Player"]: row["Needs"] for row in said}["cleo"] == "1局で通過圏に届く"
    assert {row["Player"]: row["Needs"] for row in said}["bo"] == "通過圏内"


def test_needs_at_an_ariari_table(client: TestClient, store: TournamentStore) -> None:
    cup = open_tournament(store, club_opening(ARIARI_LOG))
    # rule AA-3: p3 ron on p2's discard, 3 fan 30 fu: 3,900 (p2 -3,900, p3 +3,900)
    accepted(client, cup, 1, 1, ron("p2", "p3", fan=3, fu=30))
    rows = {
        row["Player"]: row for row in json.loads(client.get(f"/feeds/{cup.tid}/needs.json").content)
    }
    # p2 on -3,900 deals now (rule AA-8: p3 won, the deal passed) and must pass the four on 0
    # at table 2 (rule ST-3, 4 advance). A dealer's ron is 6 x base (rule AA-3): 1 fan 90 fu
    # gives 4,320, paid 4,400 (+500); the next smaller, 3,900, leaves p2 level on 0. A
    # dealer's tsumo is 2 x base from each: 3 x 1,500 = 4,500; 3 x 1,300 = 3,900 is level.
    p2 = rows["p2"]
    assert (p2["Table"], p2["Hands left"], p2["Needs"]) == (1, None, "can reach")
    assert (p2["Needs self-draw"], p2["Needs discard"]) == (4500, 4400)
    # p3 leads on 3,900: over the line, and can lose a hand up to a size before they fall
    p3 = rows["p3"]
    assert p3["Needs"] == "over the line" and p3["Needs self-draw"] is None
    assert 0 < p3["Can lose discard"] < p3["Can lose self-draw"]
