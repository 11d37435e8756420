"""The organizer's API, driven end to end through HTTP on SQLite and PostgreSQL.

A small tournament (custom format: 16 players, 8 advance, then 4, then the final) is
created, registered by CSV, drawn, played by judges through their tokens, penalized and cut,
with a tie at the cut that only a draw decides (rule ST-5). Every refused request names
the field and the rule and changes nothing: the version and the log stay as they were.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from app.domain.errors import IllegalMove
from app.domain.replay import replay_lines, report
from app.services import admin
from app.services.store import TournamentStore
from tests.integration.cli_runner import scoreboard

FORMAT = {"preset": "wsom2008", "advance": [8, 4]}
PLAYERS_CSV = "id,name,group,country,substitute\n" + "".join(
    f"{n},Player {n},{'A' if n <= 8 else 'B'},{'JP' if n % 2 else 'NL'},\n" for n in range(1, 17)
)
Seats = list[Any]
# The tests play a few hands a round: ending one asks for the organizer's confirmation.
EARLY_END = {"confirm_unfinished": True, "reason": "the test has played the hands it needs"}


@dataclass
class Started:
    """A tournament with round 1 drawn and a judge's token for every table."""

    id: int
    seats: dict[tuple[int, int, int], Seats]  # (round, segment, table) -> east..north
    tokens: dict[int, str]  # table -> bearer token
    draw_seed: str


def api(path: str = "") -> str:
    return f"/api/tournaments{path}"


def created(response: Response, status: int = 201) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


def snapshot(client: TestClient, tournament_id: int) -> tuple[int, str]:
    """What a refused request must leave unchanged: the version and the whole log."""
    version = created(client.get(api(f"/{tournament_id}")), 200)["version"]
    return version, client.get(api(f"/{tournament_id}/log")).text


def assert_problem(
    response: Response, status: int, *, field: str, rule: str, line: int | None = None
) -> dict[str, Any]:
    assert response.status_code == status, response.text
    problem: dict[str, Any] = response.json()
    assert problem["field"] == field, problem
    assert problem["rule"] == rule, problem
    assert problem["line"] == line, problem
    assert field in problem["detail"] and rule in problem["detail"], problem
    return problem


def create(client: TestClient, admin: dict[str, str], name: str = "WSOM API test") -> int:
    body = created(client.post(api(), json={"name": name, "format": FORMAT}, headers=admin))
    assert body["version"] == 1
    assert body["lines"][0]["type"] == "tournament"
    return int(body["id"])


def register_csv(
    client: TestClient, admin: dict[str, str], tournament_id: int, text: str
) -> Response:
    return client.post(
        api(f"/{tournament_id}/players.csv"),
        content=text.encode(),
        headers={**admin, "Content-Type": "text/csv"},
    )


def issue_tokens(
    client: TestClient, admin: dict[str, str], tournament_id: int, tables: Iterable[int]
) -> dict[int, str]:
    """A judge's token for each of these tables."""
    return {
        table: created(
            client.post(api(f"/{tournament_id}/tokens"), json={"table": table}, headers=admin)
        )["token"]
        for table in sorted(tables)
    }


def start(client: TestClient, admin: dict[str, str], seed: str | None = "api-test") -> Started:
    tournament_id = create(client, admin)
    created(register_csv(client, admin, tournament_id, PLAYERS_CSV))
    drawn = created(
        client.post(
            api(f"/{tournament_id}/rounds/1/draw"),
            json={} if seed is None else {"seed": seed},
            headers=admin,
        )
    )
    seats = {(1, s["segment"], s["table"]): s["seats"] for s in drawn["seatings"]}
    tokens = issue_tokens(client, admin, tournament_id, {table for (_, _, table) in seats})
    return Started(tournament_id, seats, tokens, drawn["seed"])


def enter_hand(
    client: TestClient,
    started: Started,
    where: tuple[int, int, int],
    hand: int,
    result: dict[str, Any],
) -> dict[str, Any]:
    round_number, segment, table = where
    return created(
        client.post(
            api(f"/{started.id}/hands"),
            json={
                "round": round_number,
                "segment": segment,
                "table": table,
                "hand": hand,
                "result": result,
            },
            headers={
                "Authorization": f"Bearer {started.tokens[table]}",
                "Idempotency-Key": str(uuid.uuid4()),
            },
        )
    )


def play_round_one_to_a_tie(client: TestClient, admin: dict[str, str], started: Started) -> Any:
    """Two winners (+30), six payers (-10), one penalized player (-5) and seven players
    on 0 for the 6 places left above the cut of 8: no winning hands among them, so only a
    draw can decide (rules ST-4, ST-5). Returns the penalized player."""
    east, south, _, _ = started.seats[(1, 1, 1)]
    enter_hand(client, started, (1, 1, 1), 1, {"kind": "self_draw", "winner": east, "value": 10})
    winner, discarder, _, _ = started.seats[(1, 1, 3)]
    enter_hand(
        client,
        started,
        (1, 1, 3),
        1,
        {"kind": "discard", "winner": winner, "discarder": discarder, "value": 10},
    )
    penalized = started.seats[(1, 1, 2)][0]
    created(
        client.post(
            api(f"/{started.id}/penalties"),
            json={"round": 1, "player": penalized, "points": -5, "reason": "late arrival"},
            headers=admin,
        )
    )
    return penalized


# -- authentication -----------------------------------------------------------------------

ADMIN_ROUTES = [
    ("POST", ""),
    ("POST", "/import"),
    ("POST", "/1/players"),
    ("POST", "/1/players.csv"),
    ("POST", "/1/prizes"),
    ("POST", "/1/language"),
    ("POST", "/1/carry-over-rate"),
    ("POST", "/1/rounds/1/draw"),
    ("POST", "/1/schedule"),
    ("POST", "/1/segments/open"),
    ("POST", "/1/segments/close"),
    ("POST", "/1/extensions"),
    ("POST", "/1/play-all"),
    ("POST", "/1/penalties"),
    ("POST", "/1/rounds/1/end"),
    ("POST", "/1/tokens"),
]


def test_every_admin_route_refuses_a_missing_token_and_a_judge_token(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    before = snapshot(client, started.id)
    judge = {"Authorization": f"Bearer {started.tokens[1]}"}
    for method, path in ADMIN_ROUTES:
        url = api(path.replace("/1/", f"/{started.id}/", 1))
        for headers in ({}, judge):
            response = client.request(method, url, json={}, headers=headers)
            assert response.status_code == 401, (path, headers, response.text)
            assert response.headers["WWW-Authenticate"] == "Bearer"
            assert "admin token" in response.json()["detail"]
    assert snapshot(client, started.id) == before


def test_openapi_documents_every_admin_route_and_its_problems(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for method, path in ADMIN_ROUTES:
        template = path.replace("/1/rounds/1/", "/{tournament_id}/rounds/{round_number}/")
        template = template.replace("/1/", "/{tournament_id}/")
        operation = paths[api(template)][method.lower()]
        assert operation["tags"] == ["admin"]
        assert {"401", "404", "409", "422"} <= set(operation["responses"]), path
        assert "requestBody" in operation, path
    imported = paths[api("/import")]["post"]["requestBody"]["content"]
    assert {"text/plain", "application/x-ndjson"} <= set(imported)


# -- a tournament end to end ----------------------------------------------------------------


def test_a_tournament_runs_end_to_end_through_the_api(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament_id = create(client, admin_headers)
    registered = created(register_csv(client, admin_headers, tournament_id, PLAYERS_CSV))
    assert [line["id"] for line in registered["lines"]] == list(range(1, 17))  # integer ids
    assert registered["lines"][0] | {"at": None} == {
        "type": "player",
        "id": 1,
        "name": "Player 1",
        "group": "A",
        "country": "JP",
        "at": None,
        "by": "admin",
    }
    assert registered["version"] == 2  # all 16 registrations in one append
    prizes = created(
        client.post(
            api(f"/{tournament_id}/prizes"),
            json={"amounts": [1000, 500, "500/3", 100.5]},
            headers=admin_headers,
        )
    )
    assert prizes["lines"][0]["amounts"] == [1000, 500, "500/3", "201/2"]
    rate = created(
        client.post(
            api(f"/{tournament_id}/carry-over-rate"), json={"rate": "1/2"}, headers=admin_headers
        )
    )
    assert rate["lines"][0] | {"at": None} == {
        "type": "carry_over_rate",
        "round": 1,
        "rate": "1/2",
        "at": None,
        "by": "admin",
    }

    drawn = created(
        client.post(api(f"/{tournament_id}/rounds/1/draw"), json={}, headers=admin_headers)
    )
    assert len(drawn["seed"]) == 16  # secrets.token_hex(8), recorded (rule SE-1)
    assert drawn["lines"][0] | {"at": None} == {
        "type": "draw",
        "round": 1,
        "seed": drawn["seed"],
        "at": None,
        "by": "admin",
    }
    # 2 groups x 2 tables x 4 halves, all in the same append as the draw line
    assert len(drawn["seatings"]) == 16 == len(drawn["lines"]) - 1
    assert {line["version"] for line in [drawn]} == {drawn["version"]}
    assert drawn["repeats"] >= 0
    seats = {(1, s["segment"], s["table"]): s["seats"] for s in drawn["seatings"]}
    tokens = issue_tokens(client, admin_headers, tournament_id, (1, 2, 3, 4))
    started = Started(tournament_id, seats, tokens, drawn["seed"])

    penalized = play_round_one_to_a_tie(client, admin_headers, started)
    rate_again = client.post(
        api(f"/{tournament_id}/carry-over-rate"), json={"rate": "1/3"}, headers=admin_headers
    )
    assert_problem(rate_again, 409, field="rate", rule="SC-3")

    ended = created(
        client.post(api(f"/{tournament_id}/rounds/1/end"), json=EARLY_END, headers=admin_headers)
    )
    assert ended["seed_generated"] is True
    seed = ended["draw_seed"]
    assert isinstance(seed, str) and len(seed) == 16
    assert ended["lines"][0] | {"at": None} == {
        "type": "round_end",
        "round": 1,
        "draw_seed": seed,
        "reason": EARLY_END["reason"],
        "at": None,
        "by": "admin",
    }
    standings = ended["standings"]
    assert standings["ended"] is True
    tie = standings["cut"]["tie"]
    assert tie["total"] == "0"
    assert len(tie["draw_among"]) == 7 and penalized not in tie["draw_among"]
    assert tie["draw_places"] == 6 and len(tie["draw_winners"]) == 6
    assert tie["draw_seed"] == seed and tie["draw_pending"] is False
    advanced = [row["player"] for row in standings["standings"] if row["status"] == "advanced"]
    assert len(advanced) == 8 and set(tie["draw_winners"]) <= set(advanced)
    # rule ST-5: anyone can rerun the draw from the exported log and get the same outcome
    replayed = replay_lines(client.get(api(f"/{tournament_id}/log")).text.splitlines())
    assert replayed.rounds[1].ended is not None
    assert replayed.rounds[1].ended.draw_seed == seed
    assert list(replayed.rounds[2].field) == advanced

    twice = client.post(api(f"/{tournament_id}/rounds/1/end"), headers=admin_headers)
    assert_problem(twice, 409, field="round", rule="FM-1")

    round_two = created(
        client.post(
            api(f"/{tournament_id}/rounds/2/draw"), json={"seed": "r2"}, headers=admin_headers
        )
    )
    assert round_two["seed"] == "r2"
    assert {p for s in round_two["seatings"] for p in s["seats"]} == set(advanced)
    assert {s["segment"] for s in round_two["seatings"]} == {1, 2, 3, 4}  # quarters (FM-4)
    first = round_two["seatings"][0]
    started.seats[(2, first["segment"], first["table"])] = first["seats"]
    east = first["seats"][0]
    hand = enter_hand(
        client,
        started,
        (2, first["segment"], first["table"]),
        1,
        {"kind": "self_draw", "winner": east, "value": 8},
    )
    assert hand["deltas"][str(east)] == 24
    summary = created(client.get(api(f"/{tournament_id}")), 200)
    assert summary["current_round"] == 2
    assert summary["version"] == hand["version"]
    assert [(r["round"], r["begun"], r["ended"]) for r in summary["rounds"]] == [
        (1, True, True),
        (2, True, False),
        (3, False, False),
    ]


def test_an_organizer_seed_at_the_cut_is_recorded_as_given(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    play_round_one_to_a_tie(client, admin_headers, started)
    ended = created(
        client.post(
            api(f"/{started.id}/rounds/1/end"),
            json={"draw_seed": "drawn-in-the-hall", **EARLY_END},
            headers=admin_headers,
        )
    )
    assert ended["seed_generated"] is False
    assert ended["draw_seed"] == ended["lines"][0]["draw_seed"] == "drawn-in-the-hall"
    assert ended["standings"]["cut"]["tie"]["draw_seed"] == "drawn-in-the-hall"


def test_a_round_end_needs_no_seed_when_the_cut_is_clear(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    # At every table east wins 10 then south 20: south +50, east +10, the others -30, so
    # the 8 easts and souths are clear of the cut at 8.
    for table in (1, 2, 3, 4):
        east, south, _, _ = started.seats[(1, 1, table)]
        enter_hand(
            client, started, (1, 1, table), 1, {"kind": "self_draw", "winner": east, "value": 10}
        )
        enter_hand(
            client, started, (1, 1, table), 2, {"kind": "self_draw", "winner": south, "value": 20}
        )
    ended = created(
        client.post(api(f"/{started.id}/rounds/1/end"), json=EARLY_END, headers=admin_headers)
    )
    assert ended["draw_seed"] is None and ended["seed_generated"] is False
    assert "draw_seed" not in ended["lines"][0]
    assert ended["standings"]["cut"]["tie"] is None


# -- registrations ---------------------------------------------------------------------------


def test_players_register_from_a_json_list_in_one_append(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament_id = create(client, admin_headers)
    players = [
        {"id": "P01", "name": "Aiko Ahn", "group": "A", "country": "JP"},
        {"id": 2, "name": "Bao Becker", "group": "B"},
        {"id": "S1", "name": "Sub Stitute", "group": "A", "substitute": True},
    ]
    body = created(
        client.post(api(f"/{tournament_id}/players"), json=players, headers=admin_headers)
    )
    assert body["version"] == 2
    assert [(line["id"], line.get("substitute")) for line in body["lines"]] == [
        ("P01", None),
        (2, None),
        ("S1", True),
    ]
    player = created(client.get(api(f"/{tournament_id}/players/2")), 200)
    assert player["player"] == {
        "id": 2,
        "name": "Bao Becker",
        "group": "B",
        "substitute": False,
        "country": None,
        "local_name": None,
    }


def test_a_csv_keeps_string_ids_and_reads_substitutes(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament_id = create(client, admin_headers)
    text = (
        "\ufeffid, name ,group,country,substitute\r\n007,Bond,A,GB,no\r\n\r\nS-1,Reserve,B,,yes\r\n"
    )
    body = created(register_csv(client, admin_headers, tournament_id, text))
    assert [
        (line["id"], line.get("substitute"), line.get("country")) for line in body["lines"]
    ] == [
        ("007", None, "GB"),
        ("S-1", True, None),
    ]


def test_a_name_in_the_players_own_script_is_registered_exported_and_found(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    """issue 17: `local_name` beside the Latin name, from a CSV column and a JSON field, in
    the log as written, in the API's registration, and found by the spectators' search."""
    tournament_id = create(client, admin_headers)
    text = "id,name,group,country,local_name\nP7,Takeshi Yamada,A,JP,山田 剛\nP8,Ann Lee,B,,\n"
    body = created(register_csv(client, admin_headers, tournament_id, text))
    assert [line.get("local_name") for line in body["lines"]] == ["山田 剛", None]
    created(
        client.post(
            api(f"/{tournament_id}/players"),
            json=[{"id": "P9", "name": "Ka Wai Chan", "group": "B", "local_name": "陳家偉"}],
            headers=admin_headers,
        )
    )
    player = created(client.get(api(f"/{tournament_id}/players/P7")), 200)
    assert player["player"]["local_name"] == "山田 剛"
    log = client.get(api(f"/{tournament_id}/log")).text
    assert '"local_name":"陳家偉"' in log.replace(" ", "")
    for query, found in [
        ("山田", "P7"),
        ("陳家偉", "P9"),
        ("yamada", "P7"),
        ("ヤマダ", "P7"),  # the kana a Japanese phone types
        ("chen jia wei", "P9"),  # the pinyin a Chinese phone types
    ]:
        answer = created(client.get("/search", params={"t": tournament_id, "q": query}), 200)
        assert answer["results"][0]["id"] == found, query
        assert answer["results"][0]["local_name"] in ("山田 剛", "陳家偉")


@pytest.mark.parametrize(
    ("text", "status", "line", "field", "rule"),
    [
        # a bad group on the third line: nothing of the first two rows is kept
        ("id,name,group\n1,Ann,A\n2,Bob,C\n", 422, 3, "group", "FM-2"),
        ("id,name,group\n1,Ann,A\n2,,B\n", 422, 3, "name", "CONTRACT §1"),
        ("id,name,group\n1,Ann,A\n,Bob,B\n", 422, 3, "id", "CONTRACT §1"),
        ("id,name,group,substitute\n1,Ann,A,maybe\n", 422, 2, "substitute", "FM-9"),
        ("id,name,group\n1,Ann,A\n2,Bob,B,extra\n", 422, 3, "row", "CONTRACT §1"),
        # rule FM-2: a format played in groups needs each player's group
        ("id,name\n1,Ann\n", 422, 2, "group", "FM-2"),
        ("id,group\n1,A\n", 422, 1, "name", "CONTRACT §1"),
        ("id,name,group,seat\n1,Ann,A,E\n", 422, 1, "seat", "CONTRACT §1"),
        # Excel's CSV in the languages that write a decimal comma
        ("id;name;group\r\n1;Ann;A\r\n", 422, 1, "id", "CONTRACT §1"),
        # a duplicate within the file, then one already registered
        ("id,name,group\n1,Ann,A\n1,Ann again,B\n", 409, 3, "id", "CONTRACT §1"),
        ("id,name,group\n9,Ivy,A\n5,Eve again,B\n", 409, 3, "id", "CONTRACT §1"),
    ],
)
def test_a_bad_csv_row_is_named_and_nothing_is_registered(
    client: TestClient,
    admin_headers: dict[str, str],
    text: str,
    status: int,
    line: int,
    field: str,
    rule: str,
) -> None:
    tournament_id = create(client, admin_headers)
    created(register_csv(client, admin_headers, tournament_id, "id,name,group\n5,Eve,A\n"))
    before = snapshot(client, tournament_id)
    response = register_csv(client, admin_headers, tournament_id, text)
    problem = assert_problem(response, status, field=field, rule=rule, line=line)
    assert problem["detail"].startswith(f"line {line}: ")
    if ";" in text:
        assert "apart by semicolons; save the CSV with commas" in problem["detail"]
    assert snapshot(client, tournament_id) == before


def test_a_bad_json_player_is_named_by_its_index(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament_id = create(client, admin_headers)
    before = snapshot(client, tournament_id)
    players = [{"id": 1, "name": "Ann", "group": "A"}, {"id": 2, "name": "Bob", "group": "Z"}]
    response = client.post(api(f"/{tournament_id}/players"), json=players, headers=admin_headers)
    assert_problem(response, 422, field="1.group", rule="FM-2")
    empty = client.post(api(f"/{tournament_id}/players"), json=[], headers=admin_headers)
    assert_problem(empty, 422, field="body", rule="CONTRACT §1")
    assert snapshot(client, tournament_id) == before


def test_a_csv_needs_a_text_body(client: TestClient, admin_headers: dict[str, str]) -> None:
    tournament_id = create(client, admin_headers)
    response = client.post(
        api(f"/{tournament_id}/players.csv"), json={"id": 1}, headers=admin_headers
    )
    assert response.status_code == 415
    assert "text/csv" in response.json()["detail"]


# -- refused requests change nothing -----------------------------------------------------------


def test_malformed_json_is_refused_naming_the_body(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    before = snapshot(client, started.id)
    response = client.post(
        api(f"/{started.id}/penalties"),
        content=b'{"round": 1, "player": ',
        headers={**admin_headers, "Content-Type": "application/json"},
    )
    assert_problem(response, 422, field="body", rule="CONTRACT §3")
    assert snapshot(client, started.id) == before


@pytest.mark.parametrize(
    ("path", "body", "status", "field", "rule"),
    [
        (
            "/penalties",
            {"round": 1, "player": 99, "points": -5, "reason": "x"},
            422,
            "player",
            "CONTRACT §1",
        ),
        (
            "/penalties",
            {"round": 1, "player": 1, "points": 0, "reason": "x"},
            422,
            "points",
            "PN-1",
        ),
        (
            "/penalties",
            {"round": 2, "player": 1, "points": -5, "reason": "x"},
            409,
            "round",
            "FM-1",
        ),
        ("/prizes", {"amounts": [100, -5]}, 422, "amounts[1]", "PR-2"),
        ("/carry-over-rate", {"rate": "0.3.3"}, 422, "rate", "SC-3"),
        ("/carry-over-rate", {"rate": "5/4"}, 422, "rate", "SC-3"),
        (
            "/schedule",
            {"round": 1, "segment": 1, "start": "2026-11-29T09:00:00Z"},
            422,
            "group",
            "FM-2",
        ),
        (
            "/schedule",
            {"round": 1, "segment": 1, "group": "A", "start": "09:00"},
            422,
            "start",
            "FM-8",
        ),
        (
            "/schedule",
            {"round": 1, "segment": 1, "group": "A", "start": "2026-11-29T09:00:00"},
            422,
            "start",
            "FM-8",
        ),
        (
            "/schedule",
            {"round": 1, "segment": 5, "group": "A", "start": "2026-11-29T09:00:00Z"},
            422,
            "segment",
            "FM-2",
        ),
        ("/extensions", {"round": 1, "segment": 1, "table": 9, "minutes": 5}, 409, "table", "SE-1"),
        (
            "/extensions",
            {"round": 1, "segment": 1, "table": 1, "minutes": 0},
            422,
            "minutes",
            "CL-2",
        ),
        ("/play-all", {"round": 1, "segment": 1, "table": 1, "reason": " "}, 422, "reason", "PN-2"),
        ("/segments/close", {"round": 1, "segment": 1}, 422, "group", "FM-2"),
        ("/rounds/2/draw", {"seed": "x"}, 409, "round", "FM-1"),
        ("/rounds/9/draw", {}, 422, "round", "FM-1"),
        ("/rounds/2/end", {}, 409, "round", "FM-1"),
        ("/rounds/1/end", {"draw_seed": " "}, 422, "draw_seed", "ST-5"),
        # a misspelt seed is refused, never taken for a missing one
        ("/rounds/1/end", {"draw_sed": "x"}, 422, "draw_sed", "CONTRACT §3"),
        ("/rounds/1/draw", {"seed": ""}, 422, "seed", "SE-1"),
        ("/rounds/0/draw", {}, 422, "round", "CONTRACT §1"),
        ("/segments/open", {"round": 1, "segment": 1, "group": "C"}, 422, "group", "FM-2"),
        ("/segments/open", {"round": 1, "segment": 1}, 422, "group", "FM-2"),
        ("/segments/open", {"round": 1, "segment": 9, "group": "A"}, 422, "segment", "FM-2"),
        ("/players", [{"id": 3, "name": "Again", "group": "A"}], 409, "0.id", "CONTRACT §1"),
    ],
)
def test_a_refused_write_names_field_and_rule_and_changes_nothing(
    client: TestClient,
    admin_headers: dict[str, str],
    path: str,
    body: Any,
    status: int,
    field: str,
    rule: str,
) -> None:
    started = start(client, admin_headers)
    before = snapshot(client, started.id)
    response = client.post(api(f"/{started.id}{path}"), json=body, headers=admin_headers)
    assert_problem(response, status, field=field, rule=rule)
    assert snapshot(client, started.id) == before


def test_a_bad_format_is_refused_naming_the_field_and_rule(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    before = client.get(api()).json()
    cases = [
        ({"preset": "wsom2008", "advance": [8, 6]}, "format.rounds[1].advance", "FM-6"),
        ({"preset": "wsom2009"}, "format", "FM-1"),
        ({"preset": "wsom2008", "colour": "red"}, "format.colour", "FM-1"),
        ("wsom1999", "format", "FM-1"),
    ]
    for fmt, field, rule in cases:
        response = client.post(api(), json={"name": "Bad", "format": fmt}, headers=admin_headers)
        assert_problem(response, 422, field=field, rule=rule)
    missing = client.post(api(), json={"format": "wsom2008"}, headers=admin_headers)
    assert_problem(missing, 422, field="name", rule="CONTRACT §3")
    assert client.get(api()).json() == before


def test_an_unknown_tournament_is_404(client: TestClient, admin_headers: dict[str, str]) -> None:
    response = client.post(
        api("/999/penalties"),
        json={"round": 1, "player": 1, "points": -5, "reason": "late"},
        headers=admin_headers,
    )
    assert response.status_code == 404
    assert "999" in response.json()["detail"]
    tokens = client.post(api("/999/tokens"), json={"table": 1}, headers=admin_headers)
    assert tokens.status_code == 404


# -- the schedule and the clock rulings ---------------------------------------------------------


def test_opening_a_segment_schedules_it_now_once_and_closing_ends_it(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    segment = {"round": 1, "segment": 1, "group": "A"}
    opened = created(
        client.post(api(f"/{started.id}/segments/open"), json=segment, headers=admin_headers)
    )
    line = opened["lines"][0]
    assert line["type"] == "schedule" and line["group"] == "A"
    started_at = datetime.fromisoformat(line["start"])
    assert abs(started_at - datetime.fromisoformat(line["at"])) < timedelta(seconds=5)  # now
    before = snapshot(client, started.id)
    again = client.post(api(f"/{started.id}/segments/open"), json=segment, headers=admin_headers)
    problem = assert_problem(again, 409, field="segment", rule="FM-8")
    assert line["start"] in problem["detail"]
    assert snapshot(client, started.id) == before

    extension = created(
        client.post(
            api(f"/{started.id}/extensions"),
            json={"round": 1, "segment": 1, "table": 1, "minutes": 5},
            headers=admin_headers,
        )
    )
    assert extension["lines"][0]["minutes"] == 5
    play_all = created(
        client.post(
            api(f"/{started.id}/play-all"),
            json={"round": 1, "segment": 1, "table": 2, "reason": "stalling by the leader"},
            headers=admin_headers,
        )
    )
    assert play_all["lines"][0]["type"] == "play_all"
    closed = created(
        client.post(api(f"/{started.id}/segments/close"), json=segment, headers=admin_headers)
    )
    assert closed["lines"][0] | {"at": None} == {
        "type": "segment_end",
        "round": 1,
        "segment": 1,
        "group": "A",
        "at": None,
        "by": "admin",
    }
    # a closed segment takes no new hand (rule CL-3)
    east = started.seats[(1, 1, 2)][0]
    refused = client.post(
        api(f"/{started.id}/hands"),
        json={
            "round": 1,
            "segment": 1,
            "table": 2,
            "hand": 1,
            "result": {"kind": "self_draw", "winner": east, "value": 10},
        },
        headers={"Authorization": f"Bearer {started.tokens[2]}", "Idempotency-Key": "k-closed"},
    )
    assert_problem(refused, 409, field="segment", rule="CL-3")


def test_two_organizers_opening_a_segment_at_once_keep_the_first_start(
    store: TournamentStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    appended = admin.create_tournament(store, "Race", FORMAT)
    tournament_id = appended.tournament_id
    admin.register_players(store, tournament_id, admin.csv_player_rows(PLAYERS_CSV))
    admin.draw(store, tournament_id, 1, "race")  # a segment opens once its round is drawn
    admin.open_segment(store, tournament_id, 1, 1, "A")
    before = store.export(tournament_id)
    # The second request read the state before the first committed: its check saw nothing.
    monkeypatch.setattr(store, "read", lambda tournament_id, view: None)
    with pytest.raises(IllegalMove) as refused:
        admin.open_segment(store, tournament_id, 1, 1, "A")
    assert (refused.value.rule, refused.value.field) == ("FM-8", "segment")
    monkeypatch.undo()
    assert store.export(tournament_id) == before
    assert store.rebuild(tournament_id).schedule == store.read(
        tournament_id, lambda t, _: t.schedule
    )


def test_a_schedule_takes_an_offset_time_and_reads_back_in_utc(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    body = {"round": 1, "segment": 2, "group": "B", "start": "2026-11-29T10:00:00+01:00"}
    recorded = created(
        client.post(api(f"/{started.id}/schedule"), json=body, headers=admin_headers)
    )
    assert recorded["lines"][0]["start"] == "2026-11-29T09:00:00Z"
    opened = client.post(
        api(f"/{started.id}/segments/open"),
        json={"round": 1, "segment": 2, "group": "B"},
        headers=admin_headers,
    )
    assert_problem(opened, 409, field="segment", rule="FM-8")


# -- import -------------------------------------------------------------------------------------

EXTERNAL_LOG = "\n".join(
    [
        '{"type": "tournament", "name": "Imported", '
        '"format": {"preset": "wsom2008", "advance": [8, 4]}}',
        *(
            f'{{"type": "player", "id": {n}, "name": "P{n}", "group": "{"A" if n <= 8 else "B"}"}}'
            for n in range(1, 17)
        ),
        '{"type":"prizes","amounts":[100,50]}',
    ]
)


def test_an_imported_log_exports_the_same_lines(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    for media in ("text/plain", "application/x-ndjson"):
        response = client.post(
            api("/import"),
            content=(EXTERNAL_LOG + "\n").encode(),
            headers={**admin_headers, "Content-Type": media},
        )
        body = created(response)
        assert body["line_count"] == 18
        exported = client.get(api(f"/{body['id']}/log"))
        assert exported.text == EXTERNAL_LOG + "\n"


def test_a_tournament_built_by_the_api_round_trips_through_export_and_import(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    play_round_one_to_a_tie(client, admin_headers, started)
    created(client.post(api(f"/{started.id}/rounds/1/end"), json=EARLY_END, headers=admin_headers))
    log = client.get(api(f"/{started.id}/log")).text
    imported = created(
        client.post(
            api("/import"),
            content=log.encode(),
            headers={**admin_headers, "Content-Type": "application/x-ndjson"},
        )
    )
    assert imported["id"] != started.id
    assert client.get(api(f"/{imported['id']}/log")).text == log
    original = client.get(api(f"/{started.id}/standings?round=1")).json()
    copy = client.get(api(f"/{imported['id']}/standings?round=1")).json()
    assert copy["rounds"] == original["rounds"]


def test_a_bad_log_is_refused_naming_its_line_and_stores_nothing(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    before = client.get(api()).json()
    lines = EXTERNAL_LOG.splitlines()
    bad = [*lines[:3], '{"type": "player", "id": 2, "name": "Twice", "group": "A"}', *lines[3:]]
    response = client.post(
        api("/import"),
        content="\n".join(bad).encode(),
        headers={**admin_headers, "Content-Type": "text/plain"},
    )
    assert_problem(response, 409, field="id", rule="CONTRACT §1", line=4)
    broken = client.post(
        api("/import"),
        content=(lines[0] + "\n{not json\n").encode(),
        headers={**admin_headers, "Content-Type": "text/plain"},
    )
    assert_problem(broken, 422, field="line", rule="CONTRACT §1", line=2)
    assert client.get(api()).json() == before


# -- issue 13: the admin console cannot brick a tournament -----------------------------------


def test_a_draw_without_a_full_table_is_refused_and_players_can_then_be_drawn(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament_id = create(client, admin_headers)
    before = snapshot(client, tournament_id)
    empty = client.post(api(f"/{tournament_id}/rounds/1/draw"), json={}, headers=admin_headers)
    problem = assert_problem(empty, 409, field="players", rule="FM-9")
    assert "0 registered player(s)" in problem["detail"]
    assert "register the players first" in problem["detail"]
    assert snapshot(client, tournament_id) == before
    rows = PLAYERS_CSV.splitlines()
    created(register_csv(client, admin_headers, tournament_id, "\n".join(rows[:15])))
    # 8 in group A, 6 in group B: group B fills no second table
    short = client.post(api(f"/{tournament_id}/rounds/1/draw"), json={}, headers=admin_headers)
    problem = assert_problem(short, 422, field="players", rule="FM-9")
    assert "group B has 6 players; register 2 substitute(s)" in problem["detail"]
    created(register_csv(client, admin_headers, tournament_id, "\n".join([rows[0], *rows[15:]])))
    drawn = created(
        client.post(api(f"/{tournament_id}/rounds/1/draw"), json={}, headers=admin_headers)
    )
    assert len({p for s in drawn["seatings"] for p in s["seats"]}) == 16


def test_a_field_the_cut_cannot_take_is_not_drawn(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    # rule FM-6: a round 1 advancing 8 with 8 players could never end
    tournament_id = create(client, admin_headers)
    eight = "id,name,group\n" + "".join(f"{n},P{n},{'AB'[n % 2]}\n" for n in range(8))
    created(register_csv(client, admin_headers, tournament_id, eight))
    before = snapshot(client, tournament_id)
    refused = client.post(api(f"/{tournament_id}/rounds/1/draw"), json={}, headers=admin_headers)
    problem = assert_problem(refused, 409, field="players", rule="FM-6")
    assert "needs more than 8 players" in problem["detail"]
    assert snapshot(client, tournament_id) == before


def test_a_round_is_redrawn_until_its_first_hand_and_replay_agrees_with_the_server(
    client: TestClient, admin_headers: dict[str, str], tmp_path: Path
) -> None:
    started = start(client, admin_headers, seed="first")
    late = "id,name,group\n" + "".join(f"L{n},Late {n},A\n" for n in range(1, 5))
    created(register_csv(client, admin_headers, started.id, late))
    redrawn = created(
        client.post(
            api(f"/{started.id}/rounds/1/draw"),
            json={"seed": "second", "replaces": "first"},
            headers=admin_headers,
        )
    )
    assert redrawn["seed"] == "second"
    seated = {p for s in redrawn["seatings"] for p in s["seats"]}
    assert {"L1", "L2", "L3", "L4"} <= seated and len(seated) == 20
    log = client.get(api(f"/{started.id}/log")).text.splitlines()
    # the superseded draw stays in the log, before the redraw
    lines = [json.loads(line) for line in log]
    assert [line["seed"] for line in lines if line["type"] == "draw"] == ["first", "second"]
    seats = {(1, s["segment"], s["table"]): s["seats"] for s in redrawn["seatings"]}
    tokens = issue_tokens(client, admin_headers, started.id, {t for (_, _, t) in seats})
    again = Started(started.id, seats, tokens, "second")
    for table in (1, 4):
        east, south, _, _ = seats[(1, 1, table)]
        enter_hand(
            client, again, (1, 1, table), 1, {"kind": "self_draw", "winner": east, "value": 8}
        )
        enter_hand(
            client, again, (1, 1, table), 2, {"kind": "self_draw", "winner": south, "value": 5}
        )
    before = snapshot(client, started.id)
    third = client.post(
        api(f"/{started.id}/rounds/1/draw"),
        json={"seed": "third", "replaces": "second"},
        headers=admin_headers,
    )
    problem = assert_problem(third, 409, field="round", rule="SE-1")
    assert "has started (a hand at table 1, segment 1)" in problem["detail"]
    assert snapshot(client, started.id) == before

    created(client.post(api(f"/{started.id}/rounds/1/end"), json=EARLY_END, headers=admin_headers))
    log_file = tmp_path / "redrawn.jsonl"
    log_file.write_text(client.get(api(f"/{started.id}/log")).text)
    run = scoreboard("replay", log_file)  # CONTRACT §2: offline, as an auditor runs it
    assert run.returncode == 0, run.stderr
    replayed = json.loads(run.stdout)
    live = created(client.get(api(f"/{started.id}/standings?round=1")), 200)
    assert replayed["rounds"][0]["standings"] == live["rounds"][0]["standings"]
    assert replayed["rounds"][0]["draw"]["superseded"] == ["first"]
    assert replayed["rounds"][0]["draw"]["deviations"] == []


def test_a_segment_is_not_opened_before_its_round_is_drawn(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    # A misclick on "Open now" before the draw started a 70-minute clock for nobody.
    tournament_id = create(client, admin_headers)
    created(register_csv(client, admin_headers, tournament_id, PLAYERS_CSV))
    before = snapshot(client, tournament_id)
    segment = {"round": 1, "segment": 1, "group": "A"}
    early = client.post(api(f"/{tournament_id}/segments/open"), json=segment, headers=admin_headers)
    problem = assert_problem(early, 409, field="segment", rule="SE-1")
    assert "round 1 is not drawn yet" in problem["detail"]
    assert snapshot(client, tournament_id) == before
    # a start time ahead is still set before the draw, and the drawn round opens
    ahead = segment | {"start": "2030-01-01T09:00:00Z"}
    created(client.post(api(f"/{tournament_id}/schedule"), json=ahead, headers=admin_headers))
    created(client.post(api(f"/{tournament_id}/rounds/1/draw"), json={}, headers=admin_headers))
    opened = segment | {"segment": 2}
    created(client.post(api(f"/{tournament_id}/segments/open"), json=opened, headers=admin_headers))


def test_a_redraw_names_the_draw_it_replaces(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    # Two consoles open on one tournament: the second has not seen the first's draw (or a
    # draw was sent again after its answer was lost). Neither may replace a draw whose
    # slips may be printed without naming it (rule SE-1).
    started = start(client, admin_headers, seed="printed")
    before = snapshot(client, started.id)
    draw = api(f"/{started.id}/rounds/1/draw")
    unnamed = client.post(draw, json={"seed": "second console"}, headers=admin_headers)
    problem = assert_problem(unnamed, 409, field="replaces", rule="SE-1")
    assert "round 1 is drawn already (seed 'printed')" in problem["detail"]
    assert "send replaces: 'printed'" in problem["detail"]
    stale = client.post(draw, json={"replaces": "an older draw"}, headers=admin_headers)
    problem = assert_problem(stale, 409, field="replaces", rule="SE-1")
    assert "has the seed 'printed', not 'an older draw'" in problem["detail"]
    assert snapshot(client, started.id) == before
    redrawn = created(client.post(draw, json={"replaces": "printed"}, headers=admin_headers))
    assert redrawn["seed"] != "printed"
    # nothing to replace in a round not drawn yet
    fresh = create(client, admin_headers)
    created(register_csv(client, admin_headers, fresh, PLAYERS_CSV))
    nothing = client.post(
        api(f"/{fresh}/rounds/1/draw"), json={"replaces": "printed"}, headers=admin_headers
    )
    assert_problem(nothing, 409, field="replaces", rule="SE-1")


def test_ending_a_round_with_unplayed_tables_lists_them_and_needs_a_reason(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    east = started.seats[(1, 1, 1)][0]
    enter_hand(client, started, (1, 1, 1), 1, {"kind": "self_draw", "winner": east, "value": 10})
    before = snapshot(client, started.id)
    url = api(f"/{started.id}/rounds/1/end")
    refused = client.post(url, headers=admin_headers)
    problem = assert_problem(refused, 409, field="confirm_unfinished", rule="FM-2")
    # 4 tables x 4 halves, one of them with a hand in
    assert len(problem["tables"]) == 16
    assert problem["tables"][0] == {
        "group": "A",
        "segment": 1,
        "table": 1,
        "hands": 1,
        "planned": 8,
    }
    assert "table 1, segment 1 of group A: 1 of 8 hands" in problem["detail"]
    assert "and 8 more" in problem["detail"]
    for body, field in [
        ({"confirm_unfinished": True}, "reason"),
        ({"confirm_unfinished": True, "reason": "  "}, "reason"),
    ]:
        assert_problem(
            client.post(url, json=body, headers=admin_headers), 422, field=field, rule="FM-1"
        )
    # a reason without the confirmation is no confirmation
    unconfirmed = client.post(url, json={"reason": "time is up"}, headers=admin_headers)
    assert_problem(unconfirmed, 409, field="confirm_unfinished", rule="FM-2")
    assert snapshot(client, started.id) == before

    ended = created(
        client.post(
            url,
            json={"confirm_unfinished": True, "reason": "the hall closes at six"},
            headers=admin_headers,
        )
    )
    assert ended["reason"] == "the hall closes at six"
    assert ended["lines"][0]["reason"] == "the hall closes at six"
    assert len(ended["unfinished"]) == 16
    replayed = report(replay_lines(client.get(api(f"/{started.id}/log")).text.splitlines()))
    assert replayed["rounds"][0]["end_reason"] == "the hall closes at six"


def test_an_undrawn_round_is_not_ended_without_a_confirmation(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament_id = create(client, admin_headers)
    created(register_csv(client, admin_headers, tournament_id, PLAYERS_CSV))
    refused = client.post(api(f"/{tournament_id}/rounds/1/end"), headers=admin_headers)
    problem = assert_problem(refused, 409, field="confirm_unfinished", rule="FM-2")
    assert problem["tables"] == []
    assert "has no seated table" in problem["detail"]


# A WSOM format whose round 1 has no groups: 8 players, one half of 4 hands, 4 advance.
NO_GROUPS = {
    "name": "one-half",
    "rounds": [{"segments": 1, "hands": 4, "advance": 4}, {"segments": 1, "hands": 4}],
}


def test_a_round_whose_tables_have_played_out_ends_without_confirmation(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    body = created(
        client.post(api(), json={"name": "Short", "format": NO_GROUPS}, headers=admin_headers)
    )
    tournament_id = body["id"]
    # rule FM-2: a format without groups takes a CSV without a group column
    players = "id,name,country\n" + "".join(f"{n},P{n},JP\n" for n in range(1, 9))
    registered = created(register_csv(client, admin_headers, tournament_id, players))
    assert {line["group"] for line in registered["lines"]} == {"A"}
    drawn = created(
        client.post(api(f"/{tournament_id}/rounds/1/draw"), json={}, headers=admin_headers)
    )
    seats = {(1, s["segment"], s["table"]): s["seats"] for s in drawn["seatings"]}
    tokens = issue_tokens(client, admin_headers, tournament_id, (1, 2))
    started = Started(tournament_id, seats, tokens, drawn["seed"])
    for table in (1, 2):
        for hand in range(1, 5):
            enter_hand(client, started, (1, 1, table), hand, {"kind": "draw"})
    ended = created(client.post(api(f"/{tournament_id}/rounds/1/end"), headers=admin_headers))
    assert ended["unfinished"] == [] and ended["reason"] is None
    assert "reason" not in ended["lines"][0]


def test_a_format_without_groups_is_registered_opened_and_closed_without_a_group(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    body = created(
        client.post(api(), json={"name": "Ari Ari", "format": "ariari"}, headers=admin_headers)
    )
    tournament_id = body["id"]
    players = [{"id": f"p{n}", "name": f"Player {n}"} for n in range(1, 9)]
    registered = created(
        client.post(api(f"/{tournament_id}/players"), json=players, headers=admin_headers)
    )
    assert {line["group"] for line in registered["lines"]} == {"A"}
    drawn = created(
        client.post(api(f"/{tournament_id}/rounds/1/draw"), json={}, headers=admin_headers)
    )
    assert {s["table"] for s in drawn["seatings"]} == {1, 2}
    tables = created(client.get(api(f"/{tournament_id}/tables")), 200)["tables"]
    assert {table["group"] for table in tables} == {None}
    opened = client.post(
        api(f"/{tournament_id}/segments/open"),
        json={"round": 1, "segment": 1},
        headers=admin_headers,
    )
    created(opened)
    # the schedule reaches the round's tables: their clocks run (rule CL-6)
    clocks = created(client.get(api(f"/{tournament_id}/clocks")), 200)["tables"]
    assert [(c["segment"], c["phase"]) for c in clocks] == [(1, "running"), (1, "running")]
    created(
        client.post(
            api(f"/{tournament_id}/segments/close"),
            json={"round": 1, "segment": 1},
            headers=admin_headers,
        )
    )
    token = issue_tokens(client, admin_headers, tournament_id, (1,))[1]
    # a closed segment takes no new hand (rule CL-3)
    refused = client.post(
        api(f"/{tournament_id}/hands"),
        json={
            "round": 1,
            "segment": 1,
            "table": 1,
            "hand": 1,
            "result": {"kind": "exhaustive_draw"},
        },
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "closed-1"},
    )
    assert_problem(refused, 409, field="segment", rule="CL-3")
