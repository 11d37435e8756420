"""Where the players sit after the first cycle (rules SE-6 and SE-10, issue 33), on SQLite and
PostgreSQL: the API, the tables and player feeds in each format, the table and player
overlays and the spectator's page all name the seats of the cycle in play and the dealer
under the wind they deal from. Seen: from hand 5 the tablet showed the exchanged seats while
the TV's table overlay, the tables feed and the player's overlay and page kept the seats
drawn for the half, with "South · Dealer" on the player who dealt from the West."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ElementTree

import pytest
from fastapi.testclient import TestClient

from app.services import feeds
from app.services.store import TournamentStore
from tests.integration.judging_setup import DRAW, Setup, club_opening, hand, open_tournament, post

WINDS = ("east", "south", "west", "north")
DRAWN = ("ami", "bo", "cleo", "dirk")  # table 1's seating for half 1 in examples/club.jsonl
NAMES = {"ami": "Ami Sato", "bo": "Bo Chen", "cleo": "Cléo Martin", "dirk": "Dirk Jansen"}


def played(client: TestClient, store: TournamentStore, hands: int) -> Setup:
    setup = open_tournament(store, club_opening())
    for number in range(1, hands + 1):
        answer = post(client, setup, "hands", hand(1, number, DRAW), key=f"t1-h{number}")
        assert answer.status_code == 201, answer.text
    return setup


# (hands played, seats now East to North, who deals the next hand): rule SE-6 exchanges East
# with North and South with West after the first cycle; rule FM-7 has the k-th seat of the
# cycle deal its k-th hand
CASES = [
    (3, DRAWN, "dirk"),  # hand 4: the first cycle's North
    (4, ("dirk", "cleo", "bo", "ami"), "dirk"),  # hand 5: the starting North is East now
    (6, ("dirk", "cleo", "bo", "ami"), "bo"),  # hand 7: dealt from the West, by bo
]


@pytest.mark.parametrize(("hands", "now", "dealer"), CASES)
def test_every_surface_names_the_seats_of_the_cycle_in_play(
    client: TestClient, store: TournamentStore, hands: int, now: tuple[str, ...], dealer: str
) -> None:
    setup = played(client, store, hands)
    wind_of = dict(zip(now, WINDS, strict=True))

    # the API: the seats drawn stay as drawn (CONTRACT), the seats now beside them
    tables = client.get(setup.url("tables")).json()["tables"]
    row = next(t for t in tables if t["table"] == 1 and t["segment"] == 1)
    assert row["seats"] == list(DRAWN)
    assert row["seats_now"] == list(now)
    assert row["next_dealer"] == dealer
    player = client.get(setup.url(f"players/{dealer}")).json()
    seat = next(s for s in player["rounds"][0]["seats"] if s["segment"] == 1)
    assert (seat["seat"], seat["seat_now"]) == (WINDS[DRAWN.index(dealer)], wind_of[dealer])

    # the tables feed, in each format: each wind's column names who sits there now
    for extension in ("json", "csv", "xml"):
        answer = client.get(f"/feeds/{setup.tid}/tables.{extension}")
        assert answer.status_code == 200
        (table_one,) = [r for r in rows(answer.text, extension) if r["Table"] == "1"]
        for wind, title in feeds.SEATS:
            assert table_one[title] == NAMES[now[WINDS.index(wind)]], (extension, wind)
        assert table_one["Dealer"] == NAMES[dealer]
        (mine,) = rows(
            client.get(f"/feeds/{setup.tid}/player-{dealer}.{extension}").text, extension
        )
        assert mine["Seat"] == wind_of[dealer], extension

    # the table overlay's first frame: the dealer marked at the wind they deal from
    overlay = client.get(f"/overlay/{setup.tid}/table/1").text
    drawn_seats = re.findall(
        r'<article class="seat( dealer)?" data-seat="(\w+)" data-player="(\w+)"', overlay
    )
    assert [(seat, who) for _, seat, who in drawn_seats] == list(zip(WINDS, now, strict=True))
    assert [who for marked, _, who in drawn_seats if marked] == [dealer]

    # the player's overlay and the spectator's page: "Table 1 · West"
    card = client.get(f"/overlay/{setup.tid}/player/{dealer}").text
    assert f"Table 1 · {wind_of[dealer].capitalize()}" in card
    page = client.get(f"/p/{dealer}?t={setup.tid}").text
    where = re.search(r'<span id="where-seat" class="seat">([^<]*)</span>', page)
    assert where is not None and where.group(1) == wind_of[dealer].capitalize()


def rows(text: str, extension: str) -> list[dict[str, str]]:
    if extension == "json":
        return [
            {k: "" if v is None else str(v) for k, v in row.items()} for row in json.loads(text)
        ]
    if extension == "csv":
        return list(csv.DictReader(io.StringIO(text)))
    titles = {
        feeds.xml_name(title): title for title in (*feeds.TABLE_COLUMNS, *feeds.PLAYER_COLUMNS)
    }
    return [
        {titles[child.tag]: child.text or "" for child in row}
        for row in ElementTree.fromstring(text)
    ]
