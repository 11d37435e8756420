"""An Ari Ari tournament through the server on SQLite and PostgreSQL (issue 7): created
with the `ariari` preset or a custom format object, drawn and played by judges whose
hands are checked against the game's state (rules AA-1 to AA-17, decisions AA-18 to AA-24
in docs/ariari.md). Every refusal names its rule and field and changes nothing.

The played tournament is examples/ariari.jsonl up to its first hand: East-only games of
20,000 points; table 1 seats p1 (East), p2, p3, p4; table 2 seats p5 (East), p6, p7, p8.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.domain.replay import replay_lines, report
from app.services.store import TournamentStore
from tests.integration.cli_runner import ROOT, scoreboard
from tests.integration.judging_setup import (
    Setup,
    club_opening,
    exported_report,
    hand,
    open_tournament,
    post,
    snapshot,
)
from tests.integration.test_judges_api import assert_problem

ARIARI_LOG = ROOT / "examples" / "ariari.jsonl"


@pytest.fixture
def cup(store: TournamentStore) -> Setup:
    return open_tournament(store, club_opening(ARIARI_LOG))


def enter(client: TestClient, cup: Setup, table: int, number: int, result: dict[str, Any]) -> Any:
    return post(
        client, cup, "hands", hand(table, number, result), table=table, key=str(uuid.uuid4())
    )


def accepted(
    client: TestClient, cup: Setup, table: int, number: int, result: dict[str, Any]
) -> Any:
    response = enter(client, cup, table, number, result)
    assert response.status_code == 201, response.text
    return response.json()


def ron(discarder: str, winner: str, yaku: int = 1, **value: Any) -> dict[str, Any]:
    return {
        "kind": "ron",
        "discarder": discarder,
        "wins": [{"winner": winner, "yaku": yaku, **value}],
    }


CHOMBO_P2 = {"kind": "chombo", "offender": "p2"}


def test_hands_are_scored_and_the_server_records_dealer_and_counters(
    client: TestClient, cup: Setup, store: TournamentStore
) -> None:
    # rule AA-10: p2 pays p1 (East) 4,000, p3 and p4 2,000; the dealer stays
    first = accepted(client, cup, 1, 1, CHOMBO_P2)
    assert first["deltas"] == {"p1": 4_000, "p2": -8_000, "p3": 2_000, "p4": 2_000}
    assert (first["next_hand"], first["next_dealer"]) == (2, "p1")
    # rule AA-3: p3 ron on p2's discard, 3 fan 30 fu: 3,900; the deal passes (AA-8)
    second = accepted(client, cup, 1, 2, ron("p2", "p3", fan=3, fu=30))
    assert second["deltas"] == {"p1": 0, "p2": -3_900, "p3": 3_900, "p4": 0}
    assert second["next_dealer"] == "p2"
    hands = [json.loads(t) for t in store.export(cup.tid) if json.loads(t)["type"] == "hand"]
    assert [(h["result"]["dealer"], h["result"]["counters"]) for h in hands] == [
        ("p1", 0),
        ("p1", 0),
    ]
    tables = client.get(f"/api/tournaments/{cup.tid}/tables").json()["tables"]
    game = tables[0]["game"]
    assert (game["dealer"], game["counters"], game["bets"], game["ended"]) == ("p2", 0, 0, False)
    assert [p["points"] for p in game["players"]] == [24_000, 8_100, 25_900, 22_000]
    assert exported_report(store, cup.tid) == report(replay_lines(store.export(cup.tid)))


def test_refusals_name_the_rule_and_change_nothing(
    client: TestClient, cup: Setup, store: TournamentStore
) -> None:
    before = snapshot(store, cup.tid)
    cases = [
        # rule AA-11: a dead hand cannot win
        ({**ron("p5", "p6", fan=1, fu=30), "dead": ["p6"]}, 409, "result.wins[0].winner", "AA-11"),
        # rule AA-19: fu is 20, 25 or 30 to 110 by 10
        (ron("p5", "p6", fan=1, fu=35), 422, "result.wins[0].fu", "AA-19"),
        # rule AA-2: a limit by its name
        (ron("p5", "p6", limit="double"), 422, "result.wins[0].limit", "AA-2"),
        # a WSOM result at an Ari Ari table
        ({"kind": "self_draw", "winner": "p6", "value": 10}, 422, "result.kind", "AA-30"),
        # rule AA-8: the judge's dealer is checked
        ({"kind": "exhaustive_draw", "dealer": "p6"}, 409, "result.dealer", "AA-8"),
        # rule AA-6: and the counters
        ({"kind": "exhaustive_draw", "counters": 1}, 409, "result.counters", "AA-6"),
    ]
    for result, status, field, rule in cases:
        assert_problem(enter(client, cup, 2, 1, result), status, field, rule)
    assert snapshot(store, cup.tid) == before


def test_two_yaku_at_five_counters(client: TestClient, cup: Setup, store: TournamentStore) -> None:
    """rule AA-7: five tenpai draws by the dealer put five counters on the table."""
    for number in range(1, 6):
        accepted(client, cup, 2, number, {"kind": "exhaustive_draw", "tenpai": ["p5"]})
    before = snapshot(store, cup.tid)
    one_yaku = ron("p5", "p6", fan=1, fu=30)
    assert_problem(enter(client, cup, 2, 6, one_yaku), 409, "result.wins[0].yaku", "AA-7")
    assert snapshot(store, cup.tid) == before
    # 1,000 + 5 x 300 from p5
    answer = accepted(client, cup, 2, 6, ron("p5", "p6", yaku=2, fan=1, fu=30))
    assert answer["deltas"] == {"p5": -2_500, "p6": 2_500, "p7": 0, "p8": 0}


def test_riichi_bankruptcy_and_the_end_of_the_game(
    client: TestClient, cup: Setup, store: TournamentStore
) -> None:
    accepted(client, cup, 1, 1, CHOMBO_P2)  # p2: 12,000
    accepted(client, cup, 1, 2, CHOMBO_P2)  # p2: 4,000
    accepted(client, cup, 1, 3, ron("p2", "p3", fan=3, fu=30))  # p2: 100; p2 deals next
    before = snapshot(store, cup.tid)
    riichi = {"kind": "exhaustive_draw", "tenpai": [], "riichi": ["p2"]}
    # rule AA-18: a riichi needs 1,000 points
    assert_problem(enter(client, cup, 1, 4, riichi), 409, "result.riichi[0]", "AA-18")
    assert snapshot(store, cup.tid) == before
    # p4 ron on p2's discard, 1 fan 30 fu: 1,000 takes p2 to -900 (AA-14)
    last = accepted(client, cup, 1, 4, ron("p2", "p4", fan=1, fu=30))
    assert (last["next_hand"], last["next_dealer"]) == (None, None)
    before = snapshot(store, cup.tid)
    response = enter(client, cup, 1, 5, {"kind": "exhaustive_draw"})
    assert_problem(response, 409, "hand", "AA-14")
    assert snapshot(store, cup.tid) == before
    game = client.get(f"/api/tournaments/{cup.tid}/tables").json()["tables"][0]["game"]
    assert (game["ended"], game["end_rule"]) == (True, "AA-14")
    # p1 28,000 first; p3 27,900; p4 25,000; p2 -900 (AA-16, AA-17)
    assert [(p["player"], p["place"], p["result"]) for p in game["players"]] == [
        ("p1", 1, 18_000),
        ("p2", 4, -30_900),
        ("p3", 2, 12_900),
        ("p4", 3, 0),
    ]
    standings = client.get(f"/api/tournaments/{cup.tid}/standings?round=1").json()
    play = {row["player"]: row["play"] for row in standings["rounds"][0]["standings"]}
    assert (play["p1"], play["p2"], play["p3"], play["p4"]) == ("18000", "-30900", "12900", "0")


def test_a_correction_that_breaks_a_later_hand_is_refused(
    client: TestClient, cup: Setup, store: TournamentStore
) -> None:
    accepted(client, cup, 1, 1, CHOMBO_P2)
    accepted(client, cup, 1, 2, CHOMBO_P2)  # recorded as dealt by p1
    before = snapshot(store, cup.tid)
    # A noten draw in hand 1 would pass the deal: hand 2 was dealt by p1, not p2 (AA-8)
    body = {**hand(1, 1, {"kind": "exhaustive_draw"}), "reason": "was a draw"}
    response = post(client, cup, "corrections", body, key=str(uuid.uuid4()))
    assert_problem(response, 409, "hand", "AA-8")
    assert "hand 2" in response.json()["detail"]
    assert snapshot(store, cup.tid) == before
    # A correction that keeps the deal is taken, and the game is played again from it
    chombo_p3 = {**hand(1, 1, {"kind": "chombo", "offender": "p3"}), "reason": "it was p3"}
    response = post(client, cup, "corrections", chombo_p3, key=str(uuid.uuid4()))
    assert response.status_code == 201, response.text
    game = client.get(f"/api/tournaments/{cup.tid}/tables").json()["tables"][0]["game"]
    assert [p["points"] for p in game["players"]] == [28_000, 14_000, 14_000, 24_000]


def test_a_void_that_breaks_a_later_hand_is_refused(
    client: TestClient, cup: Setup, store: TournamentStore
) -> None:
    accepted(client, cup, 1, 1, {"kind": "exhaustive_draw"})  # noten: p2 deals hand 2
    accepted(client, cup, 1, 2, CHOMBO_P2)
    before = snapshot(store, cup.tid)
    void = {"round": 1, "segment": 1, "table": 1, "hand": 1, "reason": "never played"}
    assert_problem(post(client, cup, "voids", void, key=str(uuid.uuid4())), 409, "hand", "AA-8")
    assert snapshot(store, cup.tid) == before
    # Voiding the last hand is always possible
    void_2 = {**void, "hand": 2}
    assert post(client, cup, "voids", void_2, key=str(uuid.uuid4())).status_code == 201


def test_the_preset_is_chosen_drawn_and_played_through_the_admin_api(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    """The `ariari` preset: two East-South games in round 1, 4 advance to a one-game final."""
    made = client.post(
        "/api/tournaments", json={"name": "Ari Ari", "format": "ariari"}, headers=admin_headers
    )
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    players = [{"id": f"q{n}", "name": f"Player {n}", "group": "A"} for n in range(1, 9)]
    registered = client.post(f"/api/tournaments/{tid}/players", json=players, headers=admin_headers)
    assert registered.status_code == 201, registered.text
    drawn = client.post(
        f"/api/tournaments/{tid}/rounds/1/draw", json={"seed": "aa"}, headers=admin_headers
    )
    assert drawn.status_code == 201, drawn.text
    seatings = drawn.json()["seatings"]
    assert sorted((s["segment"], s["table"]) for s in seatings) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    seats = next(s["seats"] for s in seatings if (s["segment"], s["table"]) == (1, 1))
    token = client.post(f"/api/tournaments/{tid}/tokens", json={"table": 1}, headers=admin_headers)
    headers = {"Authorization": f"Bearer {token.json()['token']}", "Idempotency-Key": "k1"}
    # rule AA-3: East's tsumo, mangan: 4,000 from each
    result = {"kind": "tsumo", "winner": seats[0], "limit": "mangan", "yaku": 3}
    answer = client.post(f"/api/tournaments/{tid}/hands", json=hand(1, 1, result), headers=headers)
    assert answer.status_code == 201, answer.text
    assert answer.json()["deltas"][str(seats[0])] == 12_000
    assert answer.json()["next_dealer"] == seats[0]  # rule AA-8: East won and stays
    summary = client.get(f"/api/tournaments/{tid}").json()
    assert summary["format"] == "ariari"
    assert [r["segment_kind"] for r in summary["rounds"]] == ["game", "game"]


def test_a_custom_format_object_and_its_refusals(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    custom = {"ruleset": "ariari", "rounds": [{"advance": 4}, {}], "game": {"length": "east_only"}}
    made = client.post(
        "/api/tournaments", json={"name": "A", "format": custom}, headers=admin_headers
    )
    assert made.status_code == 201, made.text
    bad = {"ruleset": "ariari", "game": {"tenpai_payment": 1_000}}
    refused = client.post(
        "/api/tournaments", json={"name": "B", "format": bad}, headers=admin_headers
    )
    assert refused.status_code == 422, refused.text
    assert (refused.json()["rule"], refused.json()["field"]) == (
        "AA-9",
        "format.game.tenpai_payment",
    )


def test_the_log_imports_and_replays_to_the_same_standings(
    client: TestClient, admin_headers: dict[str, str], store: TournamentStore
) -> None:
    imported = client.post(
        "/api/tournaments/import",
        content=ARIARI_LOG.read_bytes(),
        headers={**admin_headers, "Content-Type": "application/x-ndjson"},
    )
    assert imported.status_code == 201, imported.text
    tid = imported.json()["id"]
    offline = report(replay_lines(ARIARI_LOG.read_text(encoding="utf-8").splitlines()))
    for number in (1, 2):
        served = client.get(f"/api/tournaments/{tid}/standings?round={number}").json()
        assert served["rounds"] == [offline["rounds"][number - 1]]  # the games included


def test_scoreboard_replay_prints_the_games() -> None:
    done = scoreboard("replay", ARIARI_LOG)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    final = result["rounds"][1]
    assert [row["player"] for row in final["standings"]] == ["p2", "p4", "p8", "p6"]
    assert [(p["player"], p["uma"]) for p in final["games"][0]["players"]] == [
        ("p6", -10_000),
        ("p8", -5_000),
        ("p4", 10_000),
        ("p2", 5_000),
    ]


def test_scoreboard_replay_names_the_line_and_rule_of_a_bad_hand(tmp_path: Path) -> None:
    lines = ARIARI_LOG.read_text(encoding="utf-8").splitlines()
    first_hand = next(i for i, t in enumerate(lines) if json.loads(t)["type"] == "hand")
    bad = json.loads(lines[first_hand])
    bad["result"]["dead"] = ["p2"]
    lines[first_hand] = json.dumps(bad)
    log = tmp_path / "bad.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = scoreboard("replay", log)
    assert done.returncode != 0
    assert f"line {first_hand + 1}" in done.stderr and "AA-11" in done.stderr


def test_scoreboard_import_loads_the_log_and_export_gives_it_back(database_url: str) -> None:
    """`scoreboard import` (CONTRACT §2) takes an Ari Ari log like any other."""
    env = {**os.environ, "SCOREBOARD_DATABASE_URL": database_url}
    done = scoreboard("import", ARIARI_LOG, env=env)
    assert done.returncode == 0, done.stderr
    exported = scoreboard("export", done.stdout.strip(), env=env)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.splitlines() == ARIARI_LOG.read_text(encoding="utf-8").splitlines()
