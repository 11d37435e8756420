"""The public read API on SQLite and PostgreSQL: no token, nothing written, and every figure
the same as `scoreboard replay` gives for the exported log (CONTRACT §2, §3)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient
from test_admin_api import (
    EARLY_END,
    Started,
    api,
    assert_problem,
    created,
    enter_hand,
    play_round_one_to_a_tie,
    start,
)

from app.domain.replay import replay_lines, report

PUBLIC_PATHS = [
    "",
    "/{tournament_id}",
    "/{tournament_id}/standings",
    "/{tournament_id}/tables",
    "/{tournament_id}/tables/{table}/audit",
    "/{tournament_id}/players/{player_id}",
    "/{tournament_id}/log",
    "/{tournament_id}/clocks",
]


def replayed(client: TestClient, tournament_id: int) -> dict[str, Any]:
    """`scoreboard replay` of the exported log, as JSON would carry it."""
    log = client.get(api(f"/{tournament_id}/log")).text
    result: dict[str, Any] = json.loads(json.dumps(report(replay_lines(log.splitlines()))))
    return result


def assert_standings_match_replay(client: TestClient, tournament_id: int, number: int) -> None:
    answer = created(client.get(api(f"/{tournament_id}/standings?round={number}")), 200)
    offline = replayed(client, tournament_id)
    assert answer["rounds"] == [r for r in offline["rounds"] if r["round"] == number]
    assert answer["final_ranking"] == offline["final_ranking"]
    assert answer["version"] == client.get(api(f"/{tournament_id}")).json()["version"]


def test_public_routes_need_no_token(client: TestClient, admin_headers: dict[str, str]) -> None:
    started = start(client, admin_headers)
    for path in PUBLIC_PATHS:
        url = api(path.format(tournament_id=started.id, table=1, player_id=1))
        response = client.get(url)
        assert response.status_code == 200, (path, response.text)


def test_openapi_documents_every_public_route_with_its_answers(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in PUBLIC_PATHS:
        operation = paths[api(path)]["get"]
        assert operation["tags"] == ["public"]
        assert {"200", "404", "409", "422"} <= set(operation["responses"]), path
        assert operation["responses"]["200"]["content"], path
    log = paths[api("/{tournament_id}/log")]["get"]["responses"]["200"]["content"]
    assert "application/x-ndjson" in log
    standings = paths[api("/{tournament_id}/standings")]["get"]
    # issue 18 adds `at`: the standings at a moment of the day
    assert [p["name"] for p in standings["parameters"]] == [
        "tournament_id",
        "round",
        "at",
        "top",
        "players",
    ]


def test_standings_equal_the_replay_of_the_exported_log(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    assert_standings_match_replay(client, started.id, 1)
    play_round_one_to_a_tie(client, admin_headers, started)
    # live: the provisional cut and the tie the draw will decide (rule ST-7)
    assert_standings_match_replay(client, started.id, 1)
    live = client.get(api(f"/{started.id}/standings")).json()["rounds"][0]
    assert live["round"] == 1 and live["ended"] is False
    assert live["cut"]["tie"]["draw_pending"] is True
    assert {row["status"] for row in live["standings"]} == {"playing"}

    created(client.post(api(f"/{started.id}/rounds/1/end"), json=EARLY_END, headers=admin_headers))
    assert_standings_match_replay(client, started.id, 1)
    drawn = created(
        client.post(api(f"/{started.id}/rounds/2/draw"), json={"seed": "r2"}, headers=admin_headers)
    )
    first = drawn["seatings"][0]
    east, south = first["seats"][:2]
    where = (2, first["segment"], first["table"])
    enter_hand(
        client,
        started,
        where,
        1,
        {"kind": "discard", "winner": east, "discarder": south, "value": 30},
    )
    assert_standings_match_replay(client, started.id, 2)
    assert_standings_match_replay(client, started.id, 1)
    current = client.get(api(f"/{started.id}/standings")).json()
    assert [r["round"] for r in current["rounds"]] == [2]
    row = next(r for r in current["rounds"][0]["standings"] if r["player"] == south)
    assert row["play"] == "-40"  # rule HS-2: the discarder of a 30 pays 3 x 30 - 50
    assert len(current["final_ranking"]) == 8  # the eliminated of round 1 (rule PR-1)


def test_a_round_not_begun_is_refused_clearly(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    for path in ("standings", "tables"):
        later = client.get(api(f"/{started.id}/{path}?round=2"))
        problem = assert_problem(later, 409, field="round", rule="FM-1")
        assert "round 2 has not begun" in problem["detail"]
        beyond = client.get(api(f"/{started.id}/{path}?round=9"))
        assert_problem(beyond, 422, field="round", rule="FM-1")
    assert client.get(api("/999/standings")).status_code == 404
    assert client.get(api("/999")).status_code == 404
    assert client.get(api("/999/log")).status_code == 404
    assert client.get(api("/999/tables/1/audit")).status_code == 404


def test_the_list_and_the_summary(client: TestClient, admin_headers: dict[str, str]) -> None:
    started = start(client, admin_headers)
    listed = client.get(api()).json()
    summary = client.get(api(f"/{started.id}")).json()
    assert {"id": started.id, "name": "WSOM API test", "version": summary["version"]} in listed
    assert summary["format"] == "custom"
    assert summary["players"] == 16
    assert summary["current_round"] == 1 and summary["complete"] is False
    assert summary["rounds"][0] | {"begun": None} == {
        "round": 1,
        "advance": 8,
        "segments": 4,
        "segment_kind": "half",
        "hands_per_segment": 8,
        "begun": None,
        "ended": False,
    }
    assert [r["advance"] for r in summary["rounds"]] == [8, 4, None]


def test_tables_show_seats_hands_next_dealer_and_the_current_clock(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    east, south, west, north = started.seats[(1, 1, 1)]
    enter_hand(client, started, (1, 1, 1), 1, {"kind": "self_draw", "winner": west, "value": 6})
    opened = created(
        client.post(
            api(f"/{started.id}/segments/open"),
            json={"round": 1, "segment": 1, "group": "B"},
            headers=admin_headers,
        )
    )
    start_time = datetime.fromisoformat(opened["lines"][0]["start"])
    answer = created(client.get(api(f"/{started.id}/tables")), 200)
    assert answer["round"] == 1
    rows = {(row["segment"], row["table"]): row for row in answer["tables"]}
    assert set(rows) == {(segment, table) for segment in (1, 2, 3, 4) for table in (1, 2, 3, 4)}
    first = rows[(1, 1)]
    assert first["seats"] == [east, south, west, north]
    assert first["group"] == "A"
    assert first["hands_entered"] == [1]
    assert first["next_hand"] == 2
    assert first["next_dealer"] == south  # rule FM-7: hand 2 is dealt by the second seat
    assert rows[(2, 1)]["next_dealer"] == rows[(2, 1)]["seats"][0]  # starting East deals first
    for (segment, table), row in rows.items():
        assert (row["clock"] is not None) == (segment == 1), (segment, table)
    timed = rows[(1, 3)]["clock"]
    assert timed["phase"] == "running"
    deadline = datetime.fromisoformat(timed["deadline"])
    assert deadline == start_time + timedelta(minutes=70)  # rule CL-1
    assert 4100 <= timed["seconds_left"] <= 4200
    assert rows[(1, 1)]["clock"]["deadline"] is None  # rule CL-3a: no schedule, no limit
    again = client.get(api(f"/{started.id}/tables?round=1")).json()["tables"]
    assert [row | {"clock": None} for row in again] == [
        row | {"clock": None} for row in answer["tables"]
    ]


def test_clocks_give_the_server_time_and_every_table(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    created(
        client.post(
            api(f"/{started.id}/segments/open"),
            json={"round": 1, "segment": 1, "group": "A"},
            headers=admin_headers,
        )
    )
    created(
        client.post(
            api(f"/{started.id}/extensions"),
            json={"round": 1, "segment": 1, "table": 2, "minutes": 10},
            headers=admin_headers,
        )
    )
    answer = created(client.get(api(f"/{started.id}/clocks")), 200)
    server_time = datetime.fromisoformat(answer["server_time"])
    assert abs(server_time - datetime.now(server_time.tzinfo)) < timedelta(seconds=30)
    clocks = {clock["table"]: clock for clock in answer["tables"]}
    assert sorted(clocks) == [1, 2, 3, 4]
    assert clocks[1]["phase"] == clocks[2]["phase"] == "running"
    one, two = (datetime.fromisoformat(clocks[t]["deadline"]) for t in (1, 2))
    assert two - one == timedelta(minutes=10)  # rule CL-2: the extension moves the deadline
    assert clocks[3]["deadline"] is None and clocks[3]["group"] == "B"
    assert all(clock["server_time"] == answer["server_time"] for clock in answer["tables"])


def test_the_audit_lists_every_line_of_a_table_with_who_and_when(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    east, south, _, _ = started.seats[(1, 1, 1)]
    hand = enter_hand(
        client, started, (1, 1, 1), 1, {"kind": "self_draw", "winner": east, "value": 8}
    )
    judged = created(
        client.post(
            api(f"/{started.id}/table-penalties"),
            json={"round": 1, "player": south, "points": -10, "reason": "stalling"},
            headers={"Authorization": f"Bearer {started.tokens[1]}"},
        )
    )
    created(
        client.post(
            api(f"/{started.id}/extensions"),
            json={"round": 1, "segment": 1, "table": 1, "minutes": 5},
            headers=admin_headers,
        )
    )
    enter_hand(client, started, (1, 1, 2), 1, {"kind": "draw"})  # another table's line

    audit = created(client.get(api(f"/{started.id}/tables/1/audit")), 200)
    lines = audit["lines"]
    assert [line["seq"] for line in lines] == sorted(line["seq"] for line in lines)
    kinds = [line["line"]["type"] for line in lines]
    seatings = [s for s in started.seats if s[2] == 1]
    assert kinds == ["seating"] * len(seatings) + ["hand", "penalty", "extension"]
    assert all(line["line"].get("table", 1) == 1 for line in lines)
    by_judge = lines[len(seatings)]
    assert by_judge["entered_by"] == "judge" and by_judge["token_id"] is not None
    assert by_judge["version"] == hand["version"] and by_judge["seq"] == hand["seq"]
    assert by_judge["line"]["result"] == {"kind": "self_draw", "winner": east, "value": 8}
    assert lines[-2]["token_id"] == by_judge["token_id"] and lines[-2]["seq"] == judged["seq"]
    assert lines[-1]["entered_by"] == "admin" and lines[-1]["token_id"] is None
    assert lines[0]["entered_by"] == "admin"
    assert all(line["entered_at"].endswith("Z") for line in lines)
    assert client.get(api(f"/{started.id}/tables/1/audit?round=2")).json()["lines"] == []


def test_a_player_page_by_id_with_rounds_seats_and_hands(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    penalized = play_round_one_to_a_tie(client, admin_headers, started)
    winner = started.seats[(1, 1, 1)][0]
    answer = created(client.get(api(f"/{started.id}/players/{winner}")), 200)
    assert answer["player"]["id"] == winner  # an integer id, matched by its decimal form
    (round_one,) = answer["rounds"]
    assert round_one | {"rank": None, "position": None, "seats": None} == {
        "round": 1,
        "carry_in": "0",
        "play": "30",
        "total": "30",
        "shown": "30.00",
        "rank": None,
        "position": None,
        "status": "playing",
        "above_cut": True,
        "distance": "30",  # rule ST-3: the margin over the (A+1)-th player, on 0
        "distance_shown": "30.00",
        "seats": None,
        "winning_hands": [10],
        "penalties": [],
    }
    assert round_one["rank"] == 1
    seats = round_one["seats"]
    assert [s["segment"] for s in seats] == [1, 2, 3, 4]
    assert seats[0] == {"segment": 1, "table": 1, "seat": "east", "seat_now": "east"}
    for seat in seats:
        table_seats = started.seats[(1, seat["segment"], seat["table"])]
        assert table_seats[["east", "south", "west", "north"].index(seat["seat"])] == winner

    punished = created(client.get(api(f"/{started.id}/players/{penalized}")), 200)
    assert punished["rounds"][0]["penalties"] == [{"points": -5, "reason": "late arrival"}]
    assert punished["rounds"][0]["play"] == "-5"
    missing = client.get(api(f"/{started.id}/players/nobody"))
    assert missing.status_code == 404 and "nobody" in missing.json()["detail"]


def test_a_substitute_has_seats_but_no_standing(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament_id = created(
        client.post(
            api(),
            json={"name": "Subs", "format": {"preset": "wsom2008", "advance": [4]}},
            headers=admin_headers,
        )
    )["id"]
    # rule FM-6: 7 players for the 4 places, and a substitute to fill the second table
    players = [{"id": f"A{n}", "name": f"A{n}", "group": "A"} for n in range(7)]
    players.append({"id": "SUB", "name": "Sub", "group": "A", "substitute": True})
    created(client.post(api(f"/{tournament_id}/players"), json=players, headers=admin_headers))
    created(client.post(api(f"/{tournament_id}/rounds/1/draw"), headers=admin_headers))
    answer = created(client.get(api(f"/{tournament_id}/players/SUB")), 200)
    assert answer["player"]["substitute"] is True
    (round_one,) = answer["rounds"]
    assert round_one["rank"] is None and round_one["status"] is None
    assert len(round_one["seats"]) == 4
    standings = client.get(api(f"/{tournament_id}/standings")).json()["rounds"][0]["standings"]
    assert "SUB" not in [row["player"] for row in standings]  # rule FM-9


def test_the_log_is_json_lines_as_stored(client: TestClient, admin_headers: dict[str, str]) -> None:
    started: Started = start(client, admin_headers)
    response = client.get(api(f"/{started.id}/log"))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert response.text.endswith("}\n") and "\n\n" not in response.text
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert lines[0] == {
        "type": "tournament",
        "name": "WSOM API test",
        "format": {"preset": "wsom2008", "advance": [8, 4]},
        "at": lines[0]["at"],
        "by": "admin",
    }
    assert [line["type"] for line in lines[1:17]] == ["player"] * 16
    assert lines[17] == {
        "type": "draw",
        "round": 1,
        "seed": started.draw_seed,
        "at": lines[17]["at"],
        "by": "admin",
    }


def test_a_snapshot_carries_an_etag_and_a_repeat_with_it_gets_304_until_a_hand_changes_it(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    """A CDN or the proxy can keep the standings and revalidate them (docs/scaling.md,
    issue 16): the same answer has the same ETag, and only a change of the log changes it."""
    started = start(client, admin_headers)
    standings = api(f"/{started.id}/standings?round=1")
    first = client.get(standings)
    etag = first.headers["etag"]
    assert first.status_code == 200 and etag.startswith('"') and etag.endswith('"')
    assert first.headers["cache-control"] == "no-cache"
    assert client.get(standings).headers["etag"] == etag  # made again, the same bytes

    again = client.get(standings, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag
    weak = client.get(standings, headers={"If-None-Match": f'"other", W/{etag}'})
    assert weak.status_code == 304
    head = client.head(standings, headers={"If-None-Match": etag})
    assert head.status_code == 304 and head.content == b""

    east = started.seats[(1, 1, 1)][0]
    enter_hand(client, started, (1, 1, 1), 1, {"kind": "self_draw", "winner": east, "value": 8})
    changed = client.get(standings, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag
    assert changed.json()["version"] > first.json()["version"]
    assert int(changed.headers["content-length"]) == len(changed.content)
    # A refusal is never one to revalidate
    missing = client.get(api("/999999/standings"))
    assert missing.status_code == 404 and "etag" not in missing.headers
