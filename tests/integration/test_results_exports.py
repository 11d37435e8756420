"""Results for sanctioning bodies (issue 18, part 6), on SQLite and PostgreSQL: EMA numbers
registered, set and corrected through the admin API and kept by the log's export; the
players missing one; the EMA's results CSV and every hand's CSV, from the admin API and
from `scoreboard export --ema / --missing / --hands`; admin-only, bad input refused."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from cli_runner import scoreboard
from fastapi.testclient import TestClient

CLUB = Path(__file__).resolve().parents[2] / "examples" / "club.jsonl"
EMA_HEADER = "Place,EMA number,Last name,First name,Country,Points,Score"


def _import_club(client: TestClient, admin_headers: dict[str, str]) -> int:
    answer = client.post(
        "/api/tournaments/import",
        content=CLUB.read_bytes(),
        headers={**admin_headers, "Content-Type": "application/x-ndjson"},
    )
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_ema_numbers_are_set_corrected_listed_and_exported(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tid = _import_club(client, admin_headers)
    url = f"/api/tournaments/{tid}"

    missing = client.get(f"{url}/ema/missing", headers=admin_headers)
    assert missing.status_code == 200
    assert [m["player"] for m in missing.json()][:2] == ["ami", "bo"]
    assert len(missing.json()) == 8

    for player, number in [("eun", "05000001"), ("ami", "23000002"), ("ami", "23000003")]:
        answer = client.post(
            f"{url}/ema-ids", json={"player": player, "ema_id": number}, headers=admin_headers
        )
        assert answer.status_code == 201, answer.text
    assert answer.json()["lines"][0] == {
        **answer.json()["lines"][0],
        "type": "ema_id",
        "player": "ami",
        "ema_id": "23000003",
    }
    still = [m["player"] for m in client.get(f"{url}/ema/missing", headers=admin_headers).json()]
    assert "ami" not in still and "eun" not in still and len(still) == 6

    exported = client.get(f"{url}/ema.csv", headers=admin_headers)
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("text/csv")
    assert "attachment" in exported.headers["content-disposition"]
    assert exported.text.splitlines()[0] == EMA_HEADER
    rows = _rows(exported.text)
    assert rows[0] == {
        "Place": "1",
        "EMA number": "05000001",
        "Last name": "Park",
        "First name": "Eun-ji",
        "Country": "KR",
        "Points": "6",
        "Score": "76.5",
    }
    assert [(r["Place"], r["EMA number"]) for r in rows][2:6] == [
        ("3", "23000003"),  # the correction, not the first number
        ("4", "-"),
        ("5", "-"),  # rule PR-3: equal totals share the place
        ("5", "-"),
    ]

    # The log keeps every line: an export and a re-import give the same numbers.
    log = client.get(f"{url}/log")
    assert log.status_code == 200
    assert '"type": "ema_id"' in log.text or '"type":"ema_id"' in log.text
    again = client.post(
        "/api/tournaments/import",
        content=log.content,
        headers={**admin_headers, "Content-Type": "application/x-ndjson"},
    )
    assert again.status_code == 201, again.text
    copied = client.get(f"/api/tournaments/{again.json()['id']}/ema.csv", headers=admin_headers)
    assert copied.text == exported.text


def test_registration_takes_an_ema_number_and_refuses_a_bad_one(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    created = client.post(
        "/api/tournaments", json={"name": "EMA Open", "format": "wsom2008"}, headers=admin_headers
    )
    tid = created.json()["id"]
    url = f"/api/tournaments/{tid}"
    good = client.post(
        f"{url}/players",
        json=[{"id": "P1", "name": "Anna Rossi", "group": "A", "ema_id": "07000001"}],
        headers=admin_headers,
    )
    assert good.status_code == 201, good.text
    assert good.json()["lines"][0]["ema_id"] == "07000001"
    by_csv = client.post(
        f"{url}/players.csv",
        content="id,name,group,ema_id\nP2,Jan de Vries,A,08000001\nP3,Ida Berg,B,\n",
        headers={**admin_headers, "Content-Type": "text/csv"},
    )
    assert by_csv.status_code == 201, by_csv.text
    assert by_csv.json()["lines"][0]["ema_id"] == "08000001"
    assert "ema_id" not in by_csv.json()["lines"][1]

    version = client.get(f"{url}/log").text
    for body, status, field, says in [
        (
            [{"id": "P4", "name": "X", "group": "A", "ema_id": "8000001"}],
            422,
            "0.ema_id",
            "8 digits",
        ),
        ([{"id": "P4", "name": "X", "group": "A", "ema_id": "00000001"}], 422, "0.ema_id", "00"),
        ([{"id": "P4", "name": "X", "group": "A", "ema_id": "07000001"}], 409, "ema_id", "'P1'"),
    ]:
        refused = client.post(f"{url}/players", json=body, headers=admin_headers)
        assert refused.status_code == status, refused.text
        problem = refused.json()
        assert problem["field"] == field and problem["rule"] == "CONTRACT §1", problem
        assert says in problem["detail"], problem
    for body, status, field in [
        ({"player": "P2", "ema_id": "0800000X"}, 422, "ema_id"),
        ({"player": "P2", "ema_id": "07000001"}, 409, "ema_id"),  # P1's number
        ({"player": "nobody", "ema_id": "09000001"}, 409, "player"),
    ]:
        refused = client.post(f"{url}/ema-ids", json=body, headers=admin_headers)
        assert refused.status_code == status, refused.text
        assert refused.json()["field"] == field and refused.json()["rule"] == "CONTRACT §1"
    assert client.get(f"{url}/log").text == version  # nothing refused was stored

    # The final has not ended: there are no final results for the EMA yet (rule PR-1).
    early = client.get(f"{url}/ema.csv", headers=admin_headers)
    assert early.status_code == 409 and early.json()["rule"] == "PR-1"


def test_the_exports_are_for_the_admin_only(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tid = _import_club(client, admin_headers)
    url = f"/api/tournaments/{tid}"
    wrong = {"Authorization": "Bearer not-the-admin-token"}
    for path in ("ema.csv", "hands.csv", "ema/missing"):
        assert client.get(f"{url}/{path}").status_code == 401
        assert client.get(f"{url}/{path}", headers=wrong).status_code == 401
    body = {"player": "ami", "ema_id": "04000001"}
    assert client.post(f"{url}/ema-ids", json=body).status_code == 401
    assert client.get("/api/tournaments/999/ema.csv", headers=admin_headers).status_code == 404


def test_every_hand_csv_has_a_row_per_player_per_hand(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tid = _import_club(client, admin_headers)
    answer = client.get(f"/api/tournaments/{tid}/hands.csv", headers=admin_headers)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    rows = _rows(answer.text)
    assert len(rows) == 28  # 7 live hands (a correction replaces one) x 4 players
    assert rows[0] == {
        "round": "1",
        "segment": "1",
        "table": "1",
        "hand": "1",
        "seat": "east",
        "player": "ami",
        "name": "Ami Sato",
        "result": "discard",
        "role": "winner",
        "value": "30",
        "delta": "90",
        "running_total": "90",
    }
    finn = [r for r in rows if r["player"] == "finn" and r["round"] == "1"]
    assert finn[-1]["running_total"] == str(sum(int(r["delta"]) for r in finn))


def test_the_command_line_exports_the_same_csv(
    client: TestClient, admin_headers: dict[str, str], database_url: str
) -> None:
    tid = _import_club(client, admin_headers)
    client.post(
        f"/api/tournaments/{tid}/ema-ids",
        json={"player": "bo", "ema_id": "01000009"},
        headers=admin_headers,
    )
    env = {**os.environ, "SCOREBOARD_DATABASE_URL": database_url}
    ema = scoreboard("export", str(tid), "--ema", env=env)
    assert ema.returncode == 0, ema.stderr
    api = client.get(f"/api/tournaments/{tid}/ema.csv", headers=admin_headers).text
    assert ema.stdout == api and ",01000009,Chen,Bo," in ema.stdout
    missing = scoreboard("export", str(tid), "--ema", "--missing", env=env)
    assert missing.returncode == 0, missing.stderr
    assert missing.stdout.splitlines()[:2] == ["player,name,country", "ami,Ami Sato,JP"]
    assert len(missing.stdout.splitlines()) == 1 + 7
    hands = scoreboard("export", str(tid), "--hands", env=env)
    assert (
        hands.stdout == client.get(f"/api/tournaments/{tid}/hands.csv", headers=admin_headers).text
    )
    log = scoreboard("export", str(tid), env=env)
    assert '"ema_id": "01000009"' in log.stdout or '"ema_id":"01000009"' in log.stdout
    unknown = scoreboard("export", "999", "--ema", env=env)
    assert unknown.returncode == 1 and "999" in unknown.stderr
    both = scoreboard("export", str(tid), "--ema", "--hands", env=env)
    assert both.returncode == 2


def test_a_name_a_spreadsheet_would_run_is_written_as_text(
    client: TestClient, admin_headers: dict[str, str], database_url: str
) -> None:
    created = client.post(
        "/api/tournaments", json={"name": "Trap Open", "format": "wsom2008"}, headers=admin_headers
    )
    tid = created.json()["id"]
    trap = '=HYPERLINK("http://x","y")'
    answer = client.post(
        f"/api/tournaments/{tid}/players",
        json=[{"id": "P1", "name": trap, "group": "A", "country": "@NL"}],
        headers=admin_headers,
    )
    assert answer.status_code == 201, answer.text
    env = {**os.environ, "SCOREBOARD_DATABASE_URL": database_url}
    listed = scoreboard("export", str(tid), "--ema", "--missing", env=env)
    assert listed.returncode == 0, listed.stderr
    (row,) = _rows(listed.stdout)
    assert row == {"player": "P1", "name": "'" + trap, "country": "'@NL"}
