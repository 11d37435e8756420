"""Bad input gets a clear 4xx naming the field and the bound, never a 500 or a wrong store
(issue 14, section 4), on SQLite and PostgreSQL:

- an imported line nested 100,000 deep (RecursionError in `decode_line`), by the admin API
  and by `scoreboard import` / `scoreboard replay`, which name the line;
- a NUL in a tournament's name (psycopg.DataError on PostgreSQL; on SQLite the name was cut
  short), and in every other text a request writes: names, reasons, seeds, overrides;
- a segment scheduled in the year 9999: the clocks, tables and player feeds answered 500
  for good (OverflowError); now every read of the tournament answers, whatever is stored;
- an Idempotency-Key sent as UTF-8 bytes was stored as other characters (HTTP hands header
  bytes over as Latin-1): a key is printable ASCII, and a key that is not is refused.

And what a hostile probe found after them (issue 32, item 5):
- a registration CSV with a cell of 131,073 characters (past the csv module's own cap)
  answered 500 and the connection was reset; a cell is now held to its column's text bound,
  as the JSON registration's field is;
- a line written in the year 9999 (its `at`) was stored by an import, and a stored hand or
  call with one made the tournament unreadable;
- a name holding U+2028 (LINE SEPARATOR) was stored.
"""

from __future__ import annotations

import http.client
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from in_process import IN_PROCESS_TIMEOUTS
from sqlmodel import Session
from typer.testing import CliRunner

from app.cli import cli
from app.db import queries
from app.db.engine import make_engine
from app.db.tables import LogLine
from app.domain.text import MAX_DEPTH
from app.services.store import TournamentStore
from app.settings import get_settings
from tests.integration.conftest import ADMIN_TOKEN
from tests.integration.judging_setup import club_opening, snapshot
from tests.integration.live_setup import ADMIN as LIVE_ADMIN
from tests.integration.live_setup import app_state, scoreboard_in_a_thread

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
DEEP = 100_000
DEEP_LINE = '{"type": "prizes", "amounts": ' + "[" * DEEP + "]" * DEEP + "}"
NUL = "\x00"


@pytest.fixture
def tid(store: TournamentStore) -> int:
    return store.import_log(club_opening()).tournament_id


@pytest.fixture
def judge(store: TournamentStore, tid: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {store.issue_token(tid, 1)}"}


def refused(response: Any, field: str, status: int = 422) -> dict[str, Any]:
    assert response.status_code == status, response.text
    problem: dict[str, Any] = response.json()
    assert problem["field"] == field, problem
    return problem


# -- nesting ----------------------------------------------------------------------------


def test_an_imported_line_nested_100000_deep_is_refused_with_its_line_number(
    client: TestClient,
) -> None:
    text = "\n".join([*club_opening(), DEEP_LINE]) + "\n"

    response = client.post(
        "/api/tournaments/import", content=text, headers={**ADMIN, "content-type": "text/plain"}
    )

    problem = refused(response, "line")
    assert problem["line"] == len(club_opening()) + 1
    assert f"more than {MAX_DEPTH} levels" in problem["detail"]
    assert client.get("/api/tournaments").json() == []  # nothing stored


def test_a_request_body_nested_past_the_bound_is_refused(client: TestClient) -> None:
    deep_format: Any = "wsom2008"
    for _ in range(MAX_DEPTH + 1):
        deep_format = {"preset": deep_format}

    response = client.post(
        "/api/tournaments", json={"name": "Deep", "format": deep_format}, headers=ADMIN
    )

    assert response.status_code == 422, response.text
    assert response.json()["field"].startswith("format")
    assert client.get("/api/tournaments").json() == []


def test_scoreboard_import_and_replay_name_the_line_nested_too_deep(tmp_path: Path) -> None:
    """The command line as a user runs it (in-process: the refusal comes before any
    database, so one database is enough)."""
    log = tmp_path / "deep.jsonl"
    log.write_text("\n".join([*club_opening(), DEEP_LINE]) + "\n", encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    line = len(club_opening()) + 1

    get_settings.cache_clear()
    try:
        replayed = CliRunner().invoke(cli, ["replay", str(log)])
        imported = CliRunner().invoke(
            cli, ["import", str(log)], env={"SCOREBOARD_DATABASE_URL": url}
        )
    finally:
        get_settings.cache_clear()

    for done in (replayed, imported):
        assert done.exit_code == 1, done.output
        assert f"line {line}: field 'line': nests more than {MAX_DEPTH} levels" in done.output
        assert done.exception is None or isinstance(done.exception, SystemExit)
    assert "Traceback" not in replayed.output + imported.output


# -- NUL and other control characters ---------------------------------------------------


def test_a_nul_in_a_tournament_name_is_refused_naming_the_field(client: TestClient) -> None:
    response = client.post(
        "/api/tournaments", json={"name": f"WSOM{NUL}2026", "format": "wsom2008"}, headers=ADMIN
    )

    problem = refused(response, "name")
    assert "control character U+0000" in problem["detail"]
    assert client.get("/api/tournaments").json() == []  # not stored, not cut short


ORGANIZER_TEXTS = [
    ("players", [{"id": "ivy", "name": f"Ivy{NUL}", "group": "A"}], "0.name"),
    ("players", [{"id": f"i{NUL}vy", "name": "Ivy", "group": "A"}], "0.id"),
    ("players", [{"id": "ivy", "name": "Ivy", "group": "A", "country": "\x1b"}], "0.country"),
    ("players", [{"id": "ivy", "name": "I" * 201, "group": "A"}], "0.name"),
    ("penalties", {"round": 1, "player": "ami", "points": -5, "reason": f"late{NUL}"}, "reason"),
    ("rounds/1/draw", {"seed": f"s{NUL}"}, "seed"),
    ("rounds/1/end", {"confirm_unfinished": True, "reason": f"r{NUL}"}, "reason"),
    ("play-all", {"round": 1, "segment": 1, "table": 1, "reason": f"r{NUL}"}, "reason"),
]


def test_a_nul_in_any_text_the_organizer_sends_is_refused_and_nothing_is_stored(
    client: TestClient, store: TournamentStore, tid: int
) -> None:
    before = store.export(tid)

    for path, body, field in ORGANIZER_TEXTS:
        response = client.post(f"/api/tournaments/{tid}/{path}", json=body, headers=ADMIN)
        refused(response, field)

    assert store.export(tid) == before


def test_a_nul_in_a_registration_csv_names_its_line(
    client: TestClient, store: TournamentStore, tid: int
) -> None:
    csv = f"id,name,group\nivy,Ivy Ito,A\njo,Jo{NUL},A\n"

    response = client.post(
        f"/api/tournaments/{tid}/players.csv",
        content=csv,
        headers={**ADMIN, "content-type": "text/csv"},
    )

    assert refused(response, "name")["line"] == 3
    assert "ivy" not in "".join(store.export(tid))  # all or none


def test_a_nul_in_a_head_judges_override_is_refused(
    client: TestClient, store: TournamentStore, tid: int
) -> None:
    body = {
        "type": "deal",
        "round": 1,
        "segment": 1,
        "table": 1,
        "hand": 1,
        "time": "2026-11-29T09:00:00Z",
        "reason": f"tablet down{NUL}",
    }
    before = store.export(tid)

    response = client.post(f"/api/tournaments/{tid}/overrides", json=body, headers=ADMIN)

    refused(response, "reason")  # the request's name for the line's `override`
    assert store.export(tid) == before


HAND = {"round": 1, "segment": 1, "table": 1, "hand": 1, "result": {"kind": "draw"}}


def test_a_nul_in_any_text_a_judge_sends_is_refused_and_nothing_is_stored(
    client: TestClient, store: TournamentStore, tid: int, judge: dict[str, str]
) -> None:
    entered = client.post(
        f"/api/tournaments/{tid}/hands",
        json=HAND,
        headers={**judge, "Idempotency-Key": str(uuid.uuid4())},
    )
    assert entered.status_code == 201, entered.text
    before = store.export(tid)
    bad_winner = {**HAND, "hand": 2, "result": {"kind": "self_draw", "winner": NUL, "value": 8}}

    for path, body, field in [
        ("table-penalties", {"round": 1, "player": "ami", "points": -5, "reason": NUL}, "reason"),
        ("corrections", {**HAND, "reason": f"typo{NUL}"}, "reason"),
        ("voids", {**HAND, "reason": f"typo{NUL}"}, "reason"),
        ("hands", bad_winner, "result.winner"),
    ]:
        headers = {**judge, "Idempotency-Key": str(uuid.uuid4())}
        response = client.post(f"/api/tournaments/{tid}/{path}", json=body, headers=headers)
        refused(response, field)

    assert store.export(tid) == before


# -- dates at the end of the calendar ---------------------------------------------------


def store_line(database_url: str, tid: int, fields: dict[str, Any]) -> None:
    """A line written straight into the log, as an older server or an import left it: the
    reads must answer whatever the log holds, not only what today's checks let in."""
    engine = make_engine(database_url, IN_PROCESS_TIMEOUTS)
    with Session(engine) as session:
        version = queries.bump_version(session, tid)
        assert version is not None
        line = LogLine(
            tournament_id=tid,
            seq=queries.last_seq(session, tid) + 1,
            version=version,
            type=fields["type"],
            round=fields.get("round"),
            table_number=fields.get("table"),
            body=json.dumps(fields),
            entered_by="admin",
            entered_at=datetime.now(UTC),
        )
        queries.add_lines(session, [line])
        session.commit()
    engine.dispose()


READS = (
    "/feeds/{tid}/clocks.json",
    "/feeds/{tid}/clocks.csv",
    "/feeds/{tid}/tables.json",
    "/feeds/{tid}/tables.csv",
    "/feeds/{tid}/tables.xml",
    "/feeds/{tid}/player-ami.xml",
    "/feeds/{tid}/player-ami.json",
    "/api/tournaments/{tid}/clocks",
    "/api/tournaments/{tid}/tables",
    "/api/tournaments/{tid}/players/ami",
    "/api/tournaments/{tid}",
    "/overlay/{tid}/clock",
    "/overlay/{tid}/table/1",
    "/hall/{tid}",
    "/admin/{tid}/state",
    "/judge/whoami",
)


@pytest.mark.parametrize(
    "start", ["9999-12-31T23:00:00Z", "9999-12-31T23:59:59.999999Z", "0001-01-01T00:00:00Z"]
)
def test_every_read_answers_with_a_segment_at_the_end_of_the_calendar(
    client: TestClient, store: TournamentStore, database_url: str, start: str
) -> None:
    tid = store.import_log(club_opening()).tournament_id
    judge = {"Authorization": f"Bearer {store.issue_token(tid, 1)}"}
    for group in ("A", "B"):
        store_line(
            database_url,
            tid,
            {"type": "schedule", "round": 1, "segment": 1, "group": group, "start": start},
        )

    for path in READS:
        response = client.get(path.format(tid=tid), headers={**ADMIN, **judge})
        assert response.status_code < 500, (path, response.text)
    for feed in ("clocks.json", "tables.csv", "player-ami.xml"):  # the three seen failing
        assert client.get(f"/feeds/{tid}/{feed}").status_code == 200, feed
    # a deal or a hand at that table is judged against the same clock: an answer, not a 500
    for path, body in (("deals", {**HAND}), ("hands", HAND)):
        headers = {**judge, "Idempotency-Key": str(uuid.uuid4())}
        response = client.post(f"/api/tournaments/{tid}/{path}", json=body, headers=headers)
        assert response.status_code < 500, (path, response.text)


def test_a_live_client_gets_the_clocks_of_a_segment_in_the_year_9999(
    client: TestClient, database_url: str, tid: int
) -> None:
    store_line(
        database_url,
        tid,
        {"type": "schedule", "round": 1, "segment": 1, "group": "A", "start": "9999-12-31T23:00Z"},
    )

    url = f"/ws/tournaments/{tid}?channels=clocks,table:1&format=text"
    with client.websocket_connect(url) as feed:
        messages = [json.loads(feed.receive_text()) for _ in range(3)]  # hello, 2 snapshots

    assert [m["type"] for m in messages] == ["hello", "snapshot", "snapshot"], messages
    # the deadline, held at the calendar's last moment
    assert "9999-12-31T23:59:59.999999Z" in json.dumps(messages)


# -- the Idempotency-Key ----------------------------------------------------------------


NOT_ASCII_KEYS = [
    "clé-1".encode(),  # UTF-8 bytes: Starlette reads them as Latin-1, "clÃ©-1"
    b"cl\xe9-1",  # Latin-1 bytes
    b"two words",
    b"tab\there",
]
KEYS = [str(uuid.uuid4()), "t1-r1s1h4-5d2c", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "k" * 200]


def test_a_key_that_is_not_printable_ascii_is_refused_naming_the_header(
    client: TestClient, store: TournamentStore, tid: int, judge: dict[str, str]
) -> None:
    before = store.export(tid)

    for key in NOT_ASCII_KEYS:
        response = client.post(
            f"/api/tournaments/{tid}/hands",
            json=HAND,
            headers=[*judge.items(), ("Idempotency-Key", key)],  # type: ignore[list-item]
        )
        problem = refused(response, "Idempotency-Key")
        assert "printable ASCII" in problem["detail"], key

    assert store.export(tid) == before


def test_a_stored_key_round_trips_to_the_log_and_to_a_retry(
    client: TestClient, store: TournamentStore, tid: int, judge: dict[str, str]
) -> None:
    for number, key in enumerate(KEYS, start=1):
        headers = {**judge, "Idempotency-Key": key}
        hand = {**HAND, "hand": number}

        first = client.post(f"/api/tournaments/{tid}/hands", json=hand, headers=headers)
        retry = client.post(f"/api/tournaments/{tid}/hands", json=hand, headers=headers)

        assert first.status_code == 201, first.text
        assert retry.status_code == 201 and retry.json() == first.json()

    lines = [json.loads(line) for line in store.export(tid)]
    assert [line["id"] for line in lines if line["type"] == "hand"] == KEYS


# -- a registration CSV's cells (issue 32) ----------------------------------------------

CSV_MODULE_CAP = 131_072  # Python's csv.field_size_limit() as it comes
LONG = "x" * (CSV_MODULE_CAP + 1)


def post_csv(client: TestClient, tid: int, text: str) -> Any:
    return client.post(
        f"/api/tournaments/{tid}/players.csv",
        content=text.encode(),
        headers={**ADMIN, "content-type": "text/csv"},
    )


@pytest.mark.parametrize(
    ("text", "line", "field", "says"),
    [
        (f"id,name,group\nivy,Ivy Ito,A\njo,{LONG},A\n", 3, "name", "131073 characters long"),
        (f"id,name,group\njo,Jo,A\nkim,Kim,{LONG}\n", 3, "group", "at most 200"),
        (f"id,name,group,country\njo,Jo,A,{LONG}\n", 2, "country", "at most 64"),
        (f"id,name,group,local_name\njo,Jo,A,{LONG}\n", 2, "local_name", "at most 200"),
        (f"id,name,group\n{'7' * (CSV_MODULE_CAP + 1)},Jo,A\n", 2, "id", "at most 200"),
        # an id of digits is read as a number: 5,000 digits are past Python's own limit on
        # converting one (sys.get_int_max_str_digits()), and answered 500 too
        (f"id,name,group\n{'7' * 5000},Jo,A\n", 2, "id", "at most 200"),
        # a quoted cell over several lines: the line it ends on, as for any other row
        (f'id,name,group\njo,"Jo\n{LONG}",A\n', 3, "name", "at most 200"),
        (f"id,name,{LONG}\njo,Jo,A\n", 1, "header", "at most 200"),
    ],
)
def test_a_csv_cell_past_its_bound_is_refused_naming_line_field_and_bound(
    client: TestClient,
    store: TournamentStore,
    tid: int,
    text: str,
    line: int,
    field: str,
    says: str,
) -> None:
    before = snapshot(store, tid)

    problem = refused(post_csv(client, tid, text), field)

    assert problem["line"] == line and problem["rule"] == "CONTRACT §1", problem
    assert problem["detail"].startswith(f"line {line}: field {field!r}: "), problem
    assert says in problem["detail"] and len(problem["detail"]) < 300, problem
    assert snapshot(store, tid) == before


def test_a_long_name_gets_the_same_answer_from_a_csv_and_from_json(
    client: TestClient, tid: int
) -> None:
    from_csv = refused(post_csv(client, tid, f"id,name,group\njo,{LONG},A\n"), "name")
    from_json = refused(
        client.post(
            f"/api/tournaments/{tid}/players",
            json=[{"id": "jo", "name": LONG, "group": "A"}],
            headers=ADMIN,
        ),
        "0.name",
    )

    sentence = "is 131073 characters long; at most 200 are allowed here (rule CONTRACT §1)"
    assert from_csv["detail"] == f"line 2: field 'name': {sentence}"
    assert from_json["detail"] == f"field '0.name': {sentence}"


def test_the_connection_that_sent_a_long_csv_cell_serves_the_next_request(
    database_url: str,
) -> None:
    """uvicorn as `scoreboard serve` runs it: the 500 ended the connection, and the next
    request on it was reset; a 422 keeps it open."""
    with scoreboard_in_a_thread(database_url) as server:
        store: TournamentStore = app_state(server)["store"]
        tid = store.import_log(club_opening()).tournament_id
        connection = http.client.HTTPConnection("127.0.0.1", server.config.port, timeout=30)
        try:
            connection.request(
                "POST",
                f"/api/tournaments/{tid}/players.csv",
                body=f"id,name,group\njo,{LONG},A\n".encode(),
                headers={**LIVE_ADMIN, "Content-Type": "text/csv"},
            )
            first = connection.getresponse()
            assert (first.status, json.loads(first.read())["field"]) == (422, "name")
            assert first.getheader("connection") != "close"
            socket_used = connection.sock

            connection.request("GET", f"/api/tournaments/{tid}/log", headers=LIVE_ADMIN)
            second = connection.getresponse()
            assert second.status == 200 and b'"jo"' not in second.read()  # nothing stored
            assert connection.sock is socket_used  # the same connection, not a new one
        finally:
            connection.close()


# -- the time a line was written (issue 32) ---------------------------------------------


def test_an_imported_line_written_in_the_year_9999_is_refused_naming_it(
    client: TestClient,
) -> None:
    dated = {"type": "penalty", "round": 1, "player": "ami", "points": -5, "reason": "late"}
    for at in ("9999-12-31T23:00:00Z", "1970-01-01T00:00:00Z", "not a time"):
        text = "\n".join([*club_opening(), json.dumps({**dated, "at": at})]) + "\n"

        response = client.post(
            "/api/tournaments/import", content=text, headers={**ADMIN, "content-type": "text/plain"}
        )

        problem = refused(response, "at")
        assert (problem["line"], problem["rule"]) == (len(club_opening()) + 1, "CL-6"), at
    assert client.get("/api/tournaments").json() == []  # nothing stored


def test_a_tournament_with_a_stored_hand_and_call_of_the_year_9999_stays_readable(
    client: TestClient, database_url: str, tid: int, judge: dict[str, str]
) -> None:
    """Stored before the bound, as issue 14's stored lines: every read answers, and the
    next line is written (the server replays the stored ones first)."""
    in_9999 = "9999-12-31T23:00:00Z"
    store_line(database_url, tid, {**HAND, "type": "hand", "at": in_9999, "by": "table 1"})
    call = {"type": "call", "round": 1, "table": 2, "reason": "dispute", "id": "c9"}
    store_line(database_url, tid, {**call, "at": in_9999, "by": "table 2"})

    assert client.get(f"/api/tournaments/{tid}/standings?round=1").status_code == 200
    issued = client.post(f"/api/tournaments/{tid}/head-judge-tokens", headers=ADMIN, json={})
    head = {"Authorization": f"Bearer {issued.json()['token']}"}
    calls = client.get(f"/api/tournaments/{tid}/calls", headers=head)
    assert calls.status_code == 200 and calls.json()["calls"][0]["id"] == "c9", calls.text
    entered = client.post(
        f"/api/tournaments/{tid}/hands",
        json={**HAND, "hand": 2},
        headers={**judge, "Idempotency-Key": str(uuid.uuid4())},
    )
    assert entered.status_code == 201, entered.text


# -- line separators and bidi controls (issue 32) ---------------------------------------

LS, PS, RLO = "\u2028", "\u2029", "\u202e"


def test_a_line_separator_or_a_bidi_override_in_a_tournament_name_is_refused(
    client: TestClient,
) -> None:
    for character in (LS, PS, RLO):
        response = client.post(
            "/api/tournaments",
            json={"name": f"WSOM{character}2026", "format": "wsom2008"},
            headers=ADMIN,
        )

        problem = refused(response, "name")
        assert f"U+{ord(character):04X}" in problem["detail"]
    assert client.get("/api/tournaments").json() == []


def test_a_line_separator_in_any_text_the_organizer_sends_is_refused(
    client: TestClient, store: TournamentStore, tid: int
) -> None:
    before = snapshot(store, tid)

    for path, body, field in [
        ("players", [{"id": "ivy", "name": f"Ivy{LS}Ito", "group": "A"}], "0.name"),
        ("players", [{"id": "ivy", "name": "Ivy", "group": "A", "local_name": PS}], "0.local_name"),
        ("penalties", {"round": 1, "player": "ami", "points": -5, "reason": f"late{LS}"}, "reason"),
        ("play-all", {"round": 1, "segment": 1, "table": 1, "reason": f"r{RLO}"}, "reason"),
    ]:
        response = client.post(f"/api/tournaments/{tid}/{path}", json=body, headers=ADMIN)
        detail = refused(response, field)["detail"]
        assert any(f"U+{ord(c):04X} at character" in detail for c in (LS, PS, RLO)), detail
    problem = refused(post_csv(client, tid, f"id,name,group\nivy,Ivy{LS}Ito,A\n"), "name")
    assert problem["line"] == 2 and "U+2028" in problem["detail"]

    assert snapshot(store, tid) == before


def test_a_stored_name_holding_a_line_separator_stays_readable(
    client: TestClient, database_url: str, tid: int
) -> None:
    stored = {
        "type": "player",
        "id": "zed",
        "name": f"Zed{LS}Zhou",
        "group": "A",
        "at": "2026-11-29T08:00:00Z",
    }
    store_line(database_url, tid, stored)

    player = client.get(f"/api/tournaments/{tid}/players/zed")
    assert player.status_code == 200 and player.json()["player"]["name"] == f"Zed{LS}Zhou"
    assert client.get(f"/api/tournaments/{tid}/standings?round=1").status_code == 200
