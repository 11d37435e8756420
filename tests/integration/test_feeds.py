"""The broadcast feeds (issue 6) on SQLite and PostgreSQL: every feed in every format, flat
rows with the documented columns, ETags and 304s, cached answers, and clock rows that
change at a phase boundary with no new log line."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from app.services import feeds
from app.services.store import TournamentStore
from tests.integration.judging_setup import (
    START,
    Setup,
    SteppingClock,
    club_opening,
    discard,
    hand,
    line,
    open_tournament,
    post,
)

FORMATS = {"json": "application/json", "csv": "text/csv", "xml": "application/xml"}
COLUMNS = {
    "standings": feeds.STANDING_COLUMNS,
    "top": feeds.STANDING_COLUMNS,
    "cut": feeds.STANDING_COLUMNS,
    "tables": feeds.TABLE_COLUMNS,
    "clocks": feeds.CLOCK_COLUMNS,
    "player-ami": feeds.PLAYER_COLUMNS,
}
ROWS = {"standings": 8, "top": 8, "cut": 8, "tables": 2, "clocks": 2, "player-ami": 1}
# A name that CSV must quote and XML must escape.
AWKWARD = 'Ami "<Sato> & Co", Jr'


@pytest.fixture
def club(store: TournamentStore) -> Setup:
    """examples/club.jsonl before its first hand, with a name that needs escaping."""
    opening = [text.replace("Ami Sato", AWKWARD.replace('"', '\\"')) for text in club_opening()]
    return open_tournament(store, opening)


def feed(client: TestClient, setup: Setup, name: str, extension: str, **headers: str) -> Response:
    return client.get(f"/feeds/{setup.tid}/{name}.{extension}", headers=headers)


def rows_of(response: Response, extension: str) -> list[dict[str, str]]:
    """A feed's rows as text, whatever the format: JSON values as CSV and XML write them."""
    if extension == "json":
        parsed = json.loads(response.content)
        return [{key: _text(value) for key, value in row.items()} for row in parsed]
    if extension == "csv":
        return list(csv.DictReader(io.StringIO(response.text)))
    root = ElementTree.fromstring(response.content)
    assert root.tag == "rows"
    every = [*COLUMNS.values(), feeds.NEEDS_COLUMNS]
    titles = {feeds.xml_name(title): title for columns in every for title in columns}
    return [{titles[child.tag]: child.text or "" for child in row} for row in root]


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def enter_first_hand(client: TestClient, club: Setup) -> None:
    body = hand(1, 1, discard("bo", "cleo", 30))
    answer = post(client, club, "hands", body, key="feed-h1")
    assert answer.status_code == 201, answer.text


# -- formats and columns ----------------------------------------------------------------


def test_every_feed_answers_in_every_format_with_its_columns(
    client: TestClient, club: Setup
) -> None:
    enter_first_hand(client, club)
    for name, columns in COLUMNS.items():
        as_json = None
        for extension, media_type in FORMATS.items():
            response = feed(client, club, name, extension)
            assert response.status_code == 200, (name, extension, response.text)
            assert response.headers["content-type"].split(";")[0] == media_type
            assert response.headers["cache-control"] == "no-cache"
            assert response.headers["etag"].startswith('"')
            if extension == "json":
                parsed = json.loads(response.content)
                assert isinstance(parsed, list) and len(parsed) == ROWS[name], name
                for row in parsed:
                    assert list(row) == list(columns)
                    assert all(v is None or isinstance(v, str | int | bool) for v in row.values())
                as_json = rows_of(response, "json")
            elif extension == "csv":
                header = next(csv.reader(io.StringIO(response.text)))
                assert header == list(columns)
                assert rows_of(response, "csv") == as_json, name
            else:
                tags = [feeds.xml_name(column) for column in columns]
                root = ElementTree.fromstring(response.content)
                assert [[child.tag for child in row] for row in root] == [tags] * ROWS[name]
                assert rows_of(response, "xml") == as_json, name


def test_rows_say_what_a_graphic_shows(client: TestClient, club: Setup) -> None:
    enter_first_hand(client, club)  # bo wins 30 on cleo's discard: +90 / -40 / -25 / -25
    standings = json.loads(feed(client, club, "standings", "json").content)
    first, last = standings[0], standings[-1]
    assert (first["Rank"], first["Name"], first["Country"]) == (1, "Bo Chen", "CN")
    assert (first["Total"], first["Total exact"], first["Above cut"]) == ("90.00", "90", True)
    assert first["To cut"] == "+90.00"  # 4 advance: the 5th has 0 (rule ST-3)
    assert last["Name"] == "Cléo Martin"
    assert (last["Total"], last["Above cut"], last["To cut"]) == ("-40.00", False, "-40.00")
    top = json.loads(feed(client, club, "top", "json").content)
    assert top == standings[: feeds.TOP]
    tables = json.loads(feed(client, club, "tables", "json").content)
    assert tables[0]["East"] == AWKWARD and tables[0]["South"] == "Bo Chen"
    assert (tables[0]["South score"], tables[0]["West score"]) == (90, -40)
    assert (tables[0]["Hands"], tables[0]["Next hand"], tables[0]["Phase"]) == (1, 2, "running")
    (card,) = json.loads(feed(client, club, "player-ami", "json").content)
    assert (card["Name"], card["Table"], card["Seat"], card["Segment"]) == (AWKWARD, 1, "east", 1)


def test_names_come_back_exactly_from_csv_and_xml(client: TestClient, club: Setup) -> None:
    for extension in FORMATS:
        (card,) = rows_of(feed(client, club, "player-ami", extension), extension)
        assert card["Name"] == AWKWARD, extension
    assert b"&lt;Sato&gt; &amp; Co" in feed(client, club, "tables", "xml").content


def test_every_feed_that_names_a_player_names_them_in_their_own_script_too(
    client: TestClient, store: TournamentStore
) -> None:
    """Issue 33: the name in a player's own script (the log's `local_name`) had no column; a
    caption in Korean could not be made from the feeds. It is the last column of each feed
    that names a player (and one per seat in `tables`), so no column before it moved."""
    opening = [
        text.replace('"name": "Eun-ji Park",', '"name": "Eun-ji Park", "local_name": "박은지",')
        for text in club_opening()
    ]
    setup = open_tournament(store, opening)
    for extension in FORMATS:
        for name in ("standings", "needs", "player-eun"):
            rows = rows_of(feed(client, setup, name, extension), extension)
            assert rows[-1 if name == "player-eun" else 0] and all(
                list(row)[-1] == feeds.LOCAL_NAME for row in rows
            ), (name, extension)
            mine = [row for row in rows if row["Player"] == "eun"]
            assert [row[feeds.LOCAL_NAME] for row in mine] == ["박은지"], (name, extension)
            others = {row[feeds.LOCAL_NAME] for row in rows if row["Player"] != "eun"}
            assert others <= {""}, (name, extension)
        table_two = next(
            row
            for row in rows_of(feed(client, setup, "tables", extension), extension)
            if row["Table"] == "2"
        )
        assert (table_two["East"], table_two["East local name"]) == ("Eun-ji Park", "박은지")
        assert table_two["South local name"] == ""


# -- polling: ETags, 304s and the cache --------------------------------------------------


def test_a_repeated_request_with_the_etag_gets_304_and_no_body(
    client: TestClient, club: Setup
) -> None:
    for extension in FORMATS:
        first = feed(client, club, "standings", extension)
        etag = first.headers["etag"]
        for sent in (etag, f"W/{etag}", f'"other", {etag}', "*"):
            again = feed(client, club, "standings", extension, **{"If-None-Match": sent})
            assert again.status_code == 304, sent
            assert again.content == b""
            assert again.headers["etag"] == etag
            assert again.headers["cache-control"] == "no-cache"
        stale = feed(client, club, "standings", extension, **{"If-None-Match": '"other"'})
        assert stale.status_code == 200 and stale.content == first.content


def test_after_a_new_hand_the_etag_changes_and_the_body_shows_the_new_total(
    client: TestClient, club: Setup
) -> None:
    before = {ext: feed(client, club, "player-bo", ext) for ext in FORMATS}
    enter_first_hand(client, club)
    for extension, old in before.items():
        fresh = feed(client, club, "player-bo", extension, **{"If-None-Match": old.headers["etag"]})
        assert fresh.status_code == 200
        assert fresh.headers["etag"] != old.headers["etag"]
        (row,) = rows_of(fresh, extension)
        assert (row["Total"], row["Rank"], row["To cut"]) == ("90.00", "1", "+90.00")
        (was,) = rows_of(old, extension)
        assert was["Total"] == "0.00"


def test_answers_are_built_once_per_version(
    client: TestClient, club: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    build = feeds.build

    def counted(*args: Any) -> feeds.Feed:
        built.append(args[2])
        return build(*args)

    monkeypatch.setattr(feeds, "build", counted)
    first = [feed(client, club, "cut", "csv").content for _ in range(5)]
    assert built == ["cut"] and len(set(first)) == 1
    enter_first_hand(client, club)
    after = [feed(client, club, "cut", "csv").content for _ in range(5)]
    assert built == ["cut", "cut"] and len(set(after)) == 1 and after[0] != first[0]


# -- clocks: a phase changes with the time alone -----------------------------------------


@pytest.fixture
def clock(client: TestClient) -> Iterator[SteppingClock]:
    """The server's clock, moved by hand (rule CL-6: the server is the only clock)."""
    served: TournamentStore = client.app_state["store"]
    stepping = SteppingClock(START - timedelta(minutes=10))
    kept, served.clock = served.clock, stepping
    yield stepping
    served.clock = kept


def test_clock_rows_change_at_a_phase_boundary_with_no_new_log_line(
    client: TestClient, store: TournamentStore, clock: SteppingClock
) -> None:
    start = START.strftime("%Y-%m-%dT%H:%M:%SZ")
    schedule = {"type": "schedule", "round": 1, "segment": 1, "group": "A", "start": start}
    timed = open_tournament(store, [*club_opening(), line(schedule)])
    version = store.version(timed.tid)

    def table_one() -> tuple[str, dict[str, Any]]:
        answer = feed(client, timed, "clocks", "json")
        return answer.headers["etag"], json.loads(answer.content)[0]

    standings_etag = feed(client, timed, "standings", "json").headers["etag"]
    waiting_etag, waiting = table_one()
    assert (waiting["Phase"], waiting["Starts at"]) == ("not_started", "2026-07-04T09:00:00Z")
    assert waiting["Deadline"] == "2026-07-04T10:10:00Z"  # 70 minutes (rule CL-1)
    clock.advance(minutes=9)
    assert table_one()[0] == waiting_etag  # no boundary passed: the same answer
    clock.advance(minutes=2)
    running_etag, running = table_one()
    assert running["Phase"] == "running" and running_etag != waiting_etag
    clock.advance(minutes=71)
    over_etag, over = table_one()
    assert over["Phase"] == "finished_short" and over_etag != running_etag  # rule CL-3
    tables = json.loads(feed(client, timed, "tables", "json").content)
    assert tables[0]["Phase"] == "finished_short"
    assert store.version(timed.tid) == version
    assert feed(client, timed, "standings", "json").headers["etag"] == standings_etag


def test_the_clocks_feed_counts_the_seconds_left_at_the_server_time(
    client: TestClient, store: TournamentStore, clock: SteppingClock
) -> None:
    # Issue 13: a vision mixer shows the feed's text as it comes; it cannot count down.
    start = START.strftime("%Y-%m-%dT%H:%M:%SZ")
    schedule = {"type": "schedule", "round": 1, "segment": 1, "group": "A", "start": start}
    dealt = START + timedelta(minutes=5)
    deal = {
        "type": "deal",
        "round": 1,
        "segment": 1,
        "table": 1,
        "hand": 1,
        "time": dealt.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    timed = open_tournament(store, [*club_opening(), line(schedule), line(deal)])

    def table_one(extension: str = "json") -> tuple[str, dict[str, str]]:
        answer = feed(client, timed, "clocks", extension)
        return answer.headers["etag"], rows_of(answer, extension)[0]

    ticks = ("Seconds left", "Time left", "Break seconds left", "Break time left")
    _, waiting = table_one()
    assert waiting["Phase"] == "not_started" and [waiting[c] for c in ticks] == [""] * 4
    clock.now = START + timedelta(minutes=10)
    running_etag, running = table_one()
    assert running["Phase"] == "running"  # 70 minutes from 09:00 (rule CL-1)
    assert (running["Seconds left"], running["Time left"]) == ("3600", "60:00")
    clock.advance(seconds=0.4)  # the same whole second: the same answer (rounded up)
    assert table_one()[0] == running_etag
    clock.advance(seconds=0.7)
    ticked_etag, ticked = table_one()
    assert (ticked["Seconds left"], ticked["Time left"]) == ("3599", "59:59")
    assert ticked_etag != running_etag
    clock.now = START + timedelta(minutes=65, seconds=30)
    for extension in ("json", "csv", "xml"):
        assert table_one(extension)[1]["Time left"] == "04:30", extension
    # Past the deadline with a hand dealt in time: overtime, counted up (rule CL-3).
    clock.now = START + timedelta(minutes=70, seconds=12, milliseconds=500)
    _, over = table_one()
    assert over["Phase"] == "overtime"
    assert (over["Seconds left"], over["Time left"]) == ("-12", "-00:12")
    assert json.loads(feed(client, timed, "clocks", "json").content)[0]["Seconds left"] == -12


def test_a_feed_answers_head_like_get_without_the_body(client: TestClient, club: Setup) -> None:
    # Issue 13: vision mixers and monitors check a feed with HEAD; it was 405.
    for extension, media_type in FORMATS.items():
        got = feed(client, club, "standings", extension)
        head = client.head(f"/feeds/{club.tid}/standings.{extension}")
        assert head.status_code == 200, extension
        assert head.content == b""
        assert head.headers["content-type"].split(";")[0] == media_type
        assert head.headers["etag"] == got.headers["etag"]
        assert head.headers["content-length"] == str(len(got.content))
    etag = feed(client, club, "top", "json").headers["etag"]
    cached = client.head(f"/feeds/{club.tid}/top.json", headers={"If-None-Match": etag})
    assert cached.status_code == 304
    assert client.head(f"/feeds/{club.tid}/nothing.json").status_code == 404
    assert client.head("/feeds/9999/standings.json").status_code == 404


# -- what is not there ------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "{tid}/nothing.json",
        "{tid}/standings.txt",
        "{tid}/standings",
        "{tid}/player-nobody.csv",
        "9999/standings.json",
    ],
)
def test_an_unknown_feed_format_player_or_tournament_is_a_404_problem(
    client: TestClient, club: Setup, path: str
) -> None:
    response = client.get("/feeds/" + path.format(tid=club.tid))
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert response.json()["detail"]


def test_openapi_documents_the_feeds_in_each_media_type(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"][
        "/feeds/{tournament_id}/{name}.{extension}"
    ]["get"]
    assert operation["tags"] == ["feeds"]
    assert set(operation["responses"]["200"]["content"]) == set(FORMATS.values())
    assert {"200", "304", "404", "422"} <= set(operation["responses"])
    assert {"ETag", "Cache-Control"} <= set(operation["responses"]["200"]["headers"])
    for name in feeds.NAMES:
        assert f"`{name}`" in operation["description"]
