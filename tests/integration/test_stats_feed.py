"""The story of the session (issue 18, part 2) on SQLite and PostgreSQL: the `stats` feed
for the vision mixer and the `stats` live channel, with a real websocket client against a
real server, both the same as the domain's story (app/domain/story.py) of the log stored."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient
from live_setup import Client, app_state, scoreboard_in_a_thread
from websockets.exceptions import ConnectionClosed

from app.domain.ariari import points_shown
from app.domain.replay import replay_lines
from app.read.stats import stats_state
from app.services import feeds, stats_feed
from app.services.store import TournamentStore
from bench.load import HOST
from tests.integration.judging_setup import (
    Setup,
    club_opening,
    discard,
    hand,
    open_tournament,
    post,
    self_draw,
)

ARIARI_LOG = Path(__file__).resolve().parents[2] / "examples" / "ariari.jsonl"


@pytest.fixture
def club(store: TournamentStore) -> Setup:
    """examples/club.jsonl before its first hand: 8 players, 4 advance."""
    return open_tournament(store, club_opening())


def two_hands(client: TestClient, club: Setup) -> None:
    # rule HS-2: bo's 30 on cleo's discard (table 1, group A), eun's self-draw of 10
    # (table 2, group B): the segment is group B's, whose hand came last (rule FM-2)
    for table, body, key in (
        (1, hand(1, 1, discard("bo", "cleo", 30)), "stats-1"),
        (2, hand(2, 1, self_draw("eun", 10)), "stats-2"),
    ):
        answer = post(client, club, "hands", body, table=table, key=key)
        assert answer.status_code == 201, answer.text


def rows(client: TestClient, tid: int, query: str = "") -> list[dict[str, object]]:
    answer = client.get(f"/feeds/{tid}/stats.json{query}")
    assert answer.status_code == 200, answer.text
    parsed: list[dict[str, object]] = json.loads(answer.content)
    return parsed


def test_the_stats_feed_tells_the_story_of_the_log_stored(
    client: TestClient, store: TournamentStore, club: Setup
) -> None:
    two_hands(client, club)
    got = rows(client, club.tid)
    assert all(list(row) == list(stats_feed.COLUMNS) for row in got)
    # the same rows as the domain's story of the log as stored, replayed afresh
    replayed = replay_lines(store.export(club.tid), stored=True)
    assert got == stats_feed.rows(stats_state(replayed))
    biggest = [
        (row["Scope"], row["Rank"], row["Player"], row["Value"], row["Win"], row["Discarder"])
        for row in got
        if row["Kind"] == "hand"
    ]
    assert biggest == [
        ("round", 1, "bo", 30, "discard", "cleo"),  # rule HS-4: the value as scored
        ("round", 2, "eun", 10, "self_draw", None),
        ("segment", 1, "eun", 10, "self_draw", None),
    ]
    counts = {(row["Scope"], row["Win"]): row["Count"] for row in got if row["Kind"] == "count"}
    assert counts[("round", "hands")] == 2 and counts[("segment", "hands")] == 1
    assert counts[("round", "discard")] == 1 and counts[("round", "draw")] == 0
    (leader,) = [row for row in got if row["Kind"] == "leader"]
    assert (leader["Player"], leader["Table"], leader["Change"], leader["Count"]) == (
        "eun",
        2,
        30,
        1,
    )
    assert {row["Name"] for row in got if row["Player"] == "bo"} == {"Bo Chen"}


def test_the_stats_feed_in_every_format_and_cached(client: TestClient, club: Setup) -> None:
    two_hands(client, club)
    for extension in ("json", "csv", "xml"):
        answer = client.get(f"/feeds/{club.tid}/stats.{extension}")
        assert answer.status_code == 200 and answer.headers["etag"], extension
    csv = client.get(f"/feeds/{club.tid}/stats.csv").text
    assert csv.splitlines()[0] == ",".join(stats_feed.COLUMNS)
    etag = client.get(f"/feeds/{club.tid}/stats.json").headers["etag"]
    unchanged = client.get(f"/feeds/{club.tid}/stats.json", headers={"If-None-Match": etag})
    assert unchanged.status_code == 304
    post(client, club, "hands", hand(1, 2, {"kind": "draw"}), key="stats-3")
    assert client.get(f"/feeds/{club.tid}/stats.json").headers["etag"] != etag


def test_a_stats_feed_before_the_first_hand(client: TestClient, club: Setup) -> None:
    got = rows(client, club.tid)
    # nothing but the counts, all 0
    assert {row["Kind"] for row in got} == {"count"}
    assert {row["Count"] for row in got} == {0}


def test_an_ari_ari_rounds_stats(client: TestClient, store: TournamentStore) -> None:
    """Ari Ari (AA rules): a tsumo is a self-draw, a ron a discard win, the value AA-22's;
    totals in whole points (AA-31)."""
    lines = ARIARI_LOG.read_text(encoding="utf-8").splitlines()
    first_game = lines[: next(i for i, t in enumerate(lines) if '"segment": 2' in t)]
    tid = store.import_log(first_game).tournament_id
    got = rows(client, tid)
    top = next(row for row in got if row["Kind"] == "hand" and row["Scope"] == "round")
    assert (top["Player"], top["Value"], top["Win"], top["Discarder"]) == (
        "p2",
        32000,
        "discard",
        "p1",
    )
    counts = {
        row["Win"]: row["Count"]
        for row in got
        if row["Kind"] == "count" and row["Scope"] == "round"
    }
    assert counts == {"hands": 8, "self_draw": 2, "discard": 2, "draw": 4, "other": 0}
    movers = [row for row in got if row["Kind"] in ("climber", "faller")]
    assert movers
    for row in movers:  # rule AA-31: whole points with thousands separators, not 2 decimals
        assert row["Total"] == points_shown(str(row["Total exact"]))


def test_no_such_feed_still_names_stats(client: TestClient, club: Setup) -> None:
    answer = client.get(f"/feeds/{club.tid}/story.json")
    assert answer.status_code == 404 and "stats" in answer.json()["detail"]
    assert "stats" in feeds.NAMES


# -- the live channel, a real client against a real server ----------------------------


@pytest.fixture
def server(database_url: str) -> Iterator[uvicorn.Server]:
    with scoreboard_in_a_thread(database_url) as running:
        yield running


async def _follow_stats(server: uvicorn.Server) -> tuple[dict[str, object], dict[str, object]]:
    """The stats channel a client holds after a hand, and the state the server's store says."""
    store: TournamentStore = app_state(server)["store"]
    tid = store.import_log(club_opening()).tournament_id
    token = store.issue_token(tid, 1)
    port = server.config.port
    url = f"ws://{HOST}:{port}/ws/tournaments/{tid}?channels=stats"
    async with Client.open(url) as follower, httpx.AsyncClient() as judge:
        snapshot = (await follower.until(lambda m: m.type == "snapshot"))[-1]
        assert snapshot.channel == "stats"
        assert snapshot.body["data"]["counts"]["round"]["hands"] == 0
        answer = await judge.post(
            f"http://{HOST}:{port}/api/tournaments/{tid}/hands",
            json=hand(1, 1, discard("bo", "cleo", 30)),
            headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "stats-live"},
            timeout=10,
        )
        assert answer.status_code == 201, answer.text
        version = answer.json()["version"]
        changes = await follower.until_version("stats", version)
        assert changes[-1].type == "change" and changes[-1].body["mode"] == "replace"
        held = follower.held["stats"].state
    expected = store.read(tid, lambda tournament, _: stats_state(tournament))
    return held, dict(expected)


def test_the_stats_channel_follows_the_hands(server: uvicorn.Server) -> None:
    held, expected = asyncio.run(_follow_stats(server))
    assert held == json.loads(json.dumps(expected))
    hands = held["hands"]
    assert isinstance(hands, dict)
    assert [(big["player"], big["value"]) for big in hands["round"]] == [("bo", 30)]
    # rule ST-3: before the hand 8 level on 0 (the draw to come places ami, bo, cleo, dirk
    # over the line, ST-5); bo's 90 keeps him over it, cleo's -40 puts her under it
    crossed = {(c["player"], c["up"]) for c in held["crossed"]}  # type: ignore[attr-defined]
    assert ("cleo", False) in crossed and ("bo", True) not in crossed
    assert held["players"]["bo"]["name"] == "Bo Chen"  # type: ignore[index]


async def _refused(server: uvicorn.Server, channel: str) -> int | None:
    store: TournamentStore = app_state(server)["store"]
    tid = store.import_log(club_opening()).tournament_id
    url = f"ws://{HOST}:{server.config.port}/ws/tournaments/{tid}?channels={channel}"
    async with Client.open(url) as client:
        with pytest.raises(ConnectionClosed):
            await client.until(lambda m: m.type == "snapshot")
        return client.close_code


def test_a_stats_channel_takes_no_argument(server: uvicorn.Server) -> None:
    assert asyncio.run(_refused(server, "stats:1")) == 1008


def test_the_stats_feed_in_words_of_a_language(client: TestClient, club: Setup) -> None:
    """`?lang=` says Kind, Scope and Win in a caption's words (issue 17); without it, the
    codes stay."""
    two_hands(client, club)
    said = rows(client, club.tid, "?lang=ja")
    codes = rows(client, club.tid)
    assert [row["Player"] for row in said] == [row["Player"] for row in codes]
    top = said[0]
    assert (top["Kind"], top["Scope"], top["Win"]) == ("高打点", "今ラウンド", "放銃")
    assert {row["Win"] for row in said if row["Kind"] == "局数集計"} == {
        "局数",
        "自摸",
        "放銃",
        "流局",
        "その他",
    }
    assert codes[0]["Kind"] == "hand" and codes[0]["Win"] == "discard"
