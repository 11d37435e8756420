"""The paper fallback (issue 18, part 5), on both databases: a score sheet's hands, typed in
by the scorer with the admin token, are stored once however often they arrive: the same
sheet entered twice, a hand its tablet stored first, or the tablet coming back online after
the sheet. Bad rows are refused naming the field and the rule, and lose nothing stored. The
printable sheets and `scoreboard sheets` carry the seats, the dealers and a QR code."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cli_runner import scoreboard
from fastapi.testclient import TestClient
from judging_setup import (
    DRAW,
    START,
    TABLE_1,
    Setup,
    SteppingClock,
    club_opening,
    discard,
    hand,
    line,
    open_tournament,
    post,
    self_draw,
    snapshot,
)

from app.domain.log import format_time
from app.services.store import TournamentStore

ROW = "sheet-hands"


def enter(client: TestClient, setup: Setup, body: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.post(setup.url(ROW), json=body, headers=headers)


def hand_lines(store: TournamentStore, tid: int, table: int, number: int) -> list[dict[str, Any]]:
    lines = [json.loads(text) for text in store.export(tid)]
    return [
        line
        for line in lines
        if line["type"] == "hand" and line["table"] == table and line["hand"] == number
    ]


@pytest.fixture
def setup(store: TournamentStore) -> Setup:
    return open_tournament(store, club_opening())


def test_a_sheet_entered_twice_stores_each_hand_once(
    client: TestClient, store: TournamentStore, setup: Setup, admin_headers: dict[str, str]
) -> None:
    rows = [
        hand(1, 1, discard("ami", "bo", 30)),
        hand(1, 2, self_draw("cleo", 8)),
        hand(1, 3, DRAW),
    ]
    first = [enter(client, setup, row, admin_headers) for row in rows]
    assert [answer.status_code for answer in first] == [201, 201, 201]
    assert first[0].json()["key"] == "sheet-1-1-1-1"
    assert first[0].json()["deltas"] == {"ami": 90, "bo": -40, "cleo": -25, "dirk": -25}
    assert first[0].json()["already"] is None
    version = store.version(setup.tid)

    again = [enter(client, setup, row, admin_headers) for row in rows]

    assert [answer.status_code for answer in again] == [200, 200, 200]
    assert [answer.json()["already"] for answer in again] == ["stored"] * 3
    assert again[1].json()["deltas"] == first[1].json()["deltas"]
    assert store.version(setup.tid) == version  # nothing appended
    for number in (1, 2, 3):
        stored = hand_lines(store, setup.tid, 1, number)
        assert len(stored) == 1
        assert stored[0]["id"] == f"sheet-1-1-1-{number}"
        assert stored[0]["by"] == "admin"


def test_a_tablets_hand_then_the_sheets_same_hand_stores_once(
    client: TestClient, store: TournamentStore, setup: Setup, admin_headers: dict[str, str]
) -> None:
    body = hand(1, 1, discard("ami", "bo", 30))
    tablet = post(client, setup, "hands", body, key="tablet-uuid-0001")
    assert tablet.status_code == 201

    sheet = enter(client, setup, body, admin_headers)

    assert sheet.status_code == 200
    assert sheet.json()["already"] == "stored"
    assert sheet.json()["key"] == "tablet-uuid-0001"  # the line that holds it
    assert sheet.json()["hands_entered"] == [1]
    assert [line["id"] for line in hand_lines(store, setup.tid, 1, 1)] == ["tablet-uuid-0001"]


def test_the_sheet_then_the_tablet_back_online_stores_once(
    client: TestClient, store: TournamentStore, setup: Setup, admin_headers: dict[str, str]
) -> None:
    body = hand(1, 1, self_draw("dirk", 12))
    assert enter(client, setup, body, admin_headers).status_code == 201
    before = snapshot(store, setup.tid)

    # The tablet's outbox sends the same hand under its own random key: the hand is in.
    tablet = post(client, setup, "hands", body, key="tablet-uuid-0002")

    assert tablet.status_code == 409
    assert tablet.json()["field"] == "hand"
    assert "already entered" in tablet.json()["detail"]
    assert snapshot(store, setup.tid) == before
    assert len(hand_lines(store, setup.tid, 1, 1)) == 1


def test_a_row_that_differs_from_the_stored_hand_is_refused_naming_it(
    client: TestClient, store: TournamentStore, setup: Setup, admin_headers: dict[str, str]
) -> None:
    assert post(client, setup, "hands", hand(1, 1, DRAW), key="k-1").status_code == 201
    assert (
        post(client, setup, "hands", hand(1, 2, self_draw("cleo", 8)), key="k-2").status_code == 201
    )
    before = snapshot(store, setup.tid)

    refused = enter(client, setup, hand(1, 2, self_draw("cleo", 9)), admin_headers)

    assert refused.status_code == 409
    problem = refused.json()
    assert (problem["field"], problem["rule"]) == ("result", "CONTRACT §3")
    assert "stored already with another result" in problem["detail"]
    assert "value 8" in problem["detail"]
    assert snapshot(store, setup.tid) == before


@pytest.mark.parametrize(
    ("result", "field", "rule"),
    [
        (self_draw("ami", 4), "value", "HS-3"),  # below the minimum, 5
        (discard("ami", "bo", 321), "value", "HS-3"),  # above the maximum, 320
        (discard("ami", "ami", 30), "discarder", "HS-1"),
        (discard("ami", "eun", 30), "discarder", "HS-1"),  # not at this table
        (self_draw("zed", 10), "winner", "HS-1"),  # not registered
    ],
)
def test_bad_rows_are_refused_with_the_field_and_the_rule(
    client: TestClient,
    store: TournamentStore,
    setup: Setup,
    admin_headers: dict[str, str],
    result: dict[str, Any],
    field: str,
    rule: str,
) -> None:
    before = snapshot(store, setup.tid)

    refused = enter(client, setup, hand(1, 1, result), admin_headers)

    assert refused.status_code in (409, 422), refused.text
    problem = refused.json()
    assert problem["field"].endswith(field), problem
    assert problem["rule"] == rule, problem
    assert snapshot(store, setup.tid) == before
    # the row, fixed, goes in under the same key: a refusal keeps no claim on it
    fixed = enter(client, setup, hand(1, 1, discard("ami", "bo", 30)), admin_headers)
    assert fixed.status_code == 201


def test_a_voided_hand_is_entered_again_from_the_sheet_under_a_new_key(
    client: TestClient, store: TournamentStore, setup: Setup, admin_headers: dict[str, str]
) -> None:
    assert enter(client, setup, hand(1, 1, self_draw("ami", 10)), admin_headers).status_code == 201
    void_body = {"round": 1, "segment": 1, "table": 1, "hand": 1, "reason": "wrong table"}
    void = post(client, setup, "voids", void_body, key="void-1")
    assert void.status_code == 201

    again = enter(client, setup, hand(1, 1, self_draw("ami", 10)), admin_headers)

    assert again.status_code == 201
    assert again.json()["key"].startswith("sheet-1-1-1-1-after-")
    assert again.json()["hands_entered"] == [1]


def test_only_the_admin_token_enters_a_sheet(
    client: TestClient, store: TournamentStore, setup: Setup
) -> None:
    before = snapshot(store, setup.tid)
    body = hand(1, 1, DRAW)
    assert client.post(setup.url(ROW), json=body).status_code == 401
    assert client.post(setup.url(ROW), json=body, headers=setup.headers(1)).status_code == 401
    view = client.get(setup.url("sheets/1/1/1"), headers=setup.headers(1))
    assert view.status_code == 401
    assert snapshot(store, setup.tid) == before


def test_the_scorer_screen_is_a_page_of_its_tournament(client: TestClient, setup: Setup) -> None:
    page = client.get(f"/scorer/{setup.tid}", headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert "Macau Club Open" in page.text
    assert f'data-tournament="{setup.tid}"' in page.text
    missing = client.get(f"/scorer/{setup.tid + 1}", headers={"Accept": "text/html"})
    assert missing.status_code == 404


def test_the_sheet_view_has_the_seats_the_dealers_and_the_stored_hands(
    client: TestClient, setup: Setup, admin_headers: dict[str, str]
) -> None:
    assert (
        post(client, setup, "hands", hand(1, 1, discard("ami", "bo", 30)), key="k").status_code
        == 201
    )

    sheet = client.get(setup.url("sheets/1/1/1"), headers=admin_headers)

    assert sheet.status_code == 200
    data = sheet.json()
    assert data["code"] == "1-1-1"
    assert [p["player"] for p in data["players"]] == list(TABLE_1)
    assert [p["seat"] for p in data["players"]] == ["east", "south", "west", "north"]
    # rule FM-7, then SE-6: after the first cycle East and North, South and West exchange,
    # and the starting North (dirk) starts the second cycle
    assert [row["dealer"] for row in data["hands"]] == [
        "ami", "bo", "cleo", "dirk", "dirk", "cleo", "bo", "ami",
    ]  # fmt: skip
    assert data["hands"][0]["stored"] == discard("ami", "bo", 30)
    assert data["hands"][1]["stored"] is None
    assert (data["min_value"], data["max_value"]) == (5, 320)  # rule HS-3
    missing = client.get(setup.url("sheets/1/2/1"), headers=admin_headers)
    assert missing.status_code == 409
    assert missing.json()["rule"] == "SE-1"


def test_the_printable_sheets_carry_seats_dealers_signatures_and_a_qr_code(
    client: TestClient, setup: Setup, admin_headers: dict[str, str]
) -> None:
    assert client.get(f"/admin/{setup.tid}/sheets/1").status_code == 401

    page = client.get(f"/admin/{setup.tid}/sheets/1?segment=1", headers=admin_headers)

    assert page.status_code == 200
    html = page.text
    assert html.count('class="sheet"') == 2  # one per table
    assert 'data-sheet="1-1-1"' in html and 'data-sheet="1-1-2"' in html
    assert html.count("<svg") == 2
    assert f"http://testserver/scorer/{setup.tid}?sheet=1-1-1" in html  # under its QR code
    for name in ("Ami Sato", "Bo Chen", "Cléo Martin", "Dirk Jansen", "Eun-ji Park"):
        assert name in html
    assert "1 · Ami Sato" in html  # a dealer, and a signature line
    assert "Cycle 2, seats:" in html  # rule SE-6
    assert html.count('class="signature"') == 12  # four players, the judge, the scorer
    assert "@page { size: A4" in html
    every = client.get(f"/admin/{setup.tid}/sheets/1", headers=admin_headers)
    assert every.status_code == 200  # every seated segment: here the first half only
    assert every.text.count('class="sheet"') == 2
    refused = client.get(f"/admin/{setup.tid}/sheets/1?segment=3", headers=admin_headers)
    assert refused.status_code == 409
    assert refused.json()["field"] == "segment"


def test_scoreboard_sheets_writes_them_from_the_database(
    database_url: str, store: TournamentStore, setup: Setup, tmp_path: Path
) -> None:
    env = {**os.environ, "SCOREBOARD_DATABASE_URL": database_url}
    out = tmp_path / "sheets.html"

    def sheets(round_number: str, *options: str | Path, env: dict[str, str]) -> Any:
        return scoreboard("sheets", str(setup.tid), "--round", round_number, *options, env=env)

    written = sheets("1", "--out", out, "--base-url", "http://10.0.0.5:8000", env=env)

    assert written.returncode == 0, written.stderr
    assert "2 score sheets" in written.stdout
    html = out.read_text(encoding="utf-8")
    assert html.count('class="sheet"') == 2
    assert html.count("<svg") == 2
    assert "Ami Sato" in html and "Hugo Silva" in html
    assert "4 · Dirk Jansen" in html  # the dealer of hand 4 and of hand 5 (rule SE-6)

    no_round = sheets("2", "--base-url", "http://10.0.0.5:8000", env=env)
    assert no_round.returncode == 1
    assert "rule FM-1" in no_round.stderr
    no_address = sheets("1", env={**env, "SCOREBOARD_PUBLIC_URL": "", "SCOREBOARD_STAFF_URL": ""})
    assert no_address.returncode == 2
    assert "--base-url" in no_address.stderr
    # the scorer's screen is the staff's: their own entry where they have one (issue 32)
    staffs = sheets(
        "1",
        "--out",
        out,
        env={
            **env,
            "SCOREBOARD_PUBLIC_URL": "https://10.0.0.5",
            "SCOREBOARD_STAFF_URL": "https://10.0.20.1:8443",
        },
    )
    assert staffs.returncode == 0, staffs.stderr
    html = out.read_text(encoding="utf-8")
    assert "https://10.0.20.1:8443/scorer/" in html and "https://10.0.0.5/" not in html


def test_scoreboard_sheets_never_loads_the_web_app(tmp_path: Path) -> None:
    # The paper fallback prints when the web pages cannot be reached: from the database alone.
    from test_cli_imports import WEB, among, loaded

    env = {**os.environ, "SCOREBOARD_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}"}
    log = tmp_path / "club.jsonl"
    log.write_text("".join(line + "\n" for line in club_opening()), encoding="utf-8")
    assert scoreboard("import", log, env=env).returncode == 0
    out = tmp_path / "sheets.html"

    address = ("--base-url", "http://10.0.0.5:8000")
    modules = loaded("sheets", "1", "--round", "1", "--out", str(out), *address, env=env)

    assert among(modules, WEB) == []
    assert out.is_file()


DEADLINE = START + timedelta(minutes=70)  # rule CL-1: a WSOM 2008 half of round 1


@pytest.fixture
def timed(store: TournamentStore) -> Setup:
    """The club night with group A's first half scheduled at START: its clock can end it."""
    schedule = {"type": "schedule", "round": 1, "segment": 1, "group": "A"}
    return open_tournament(
        store, [*club_opening(), line({**schedule, "start": format_time(START)})]
    )


@pytest.fixture
def clock(client: TestClient) -> SteppingClock:
    stepping = SteppingClock(DEADLINE + timedelta(minutes=30))  # the scorer types after the half
    client.app_state["store"].clock = stepping
    return stepping


def test_a_timed_segment_takes_each_hands_deal_time_from_the_sheet(
    client: TestClient,
    store: TournamentStore,
    timed: Setup,
    clock: SteppingClock,
    admin_headers: dict[str, str],
) -> None:
    view = client.get(timed.url("sheets/1/1/1"), headers=admin_headers).json()
    assert view["timed"] is True
    assert view["deadline"] == format_time(DEADLINE)  # rule CL-2
    before = snapshot(store, timed.tid)

    # rule CL-3: no tablet recorded the deal, and the row does not say when it was dealt
    undealt = enter(client, timed, hand(1, 1, DRAW), admin_headers)
    assert undealt.status_code == 409
    assert (undealt.json()["field"], undealt.json()["rule"]) == ("hand", "CL-3")
    # a deal after the deadline: refused, and nothing is recorded
    late = {**hand(1, 1, DRAW), "dealt": format_time(DEADLINE + timedelta(minutes=1))}
    refused = enter(client, timed, late, admin_headers)
    assert refused.status_code in (409, 422)
    assert refused.json()["rule"] == "CL-3"
    assert snapshot(store, timed.tid) == before

    dealt = START + timedelta(minutes=3)
    row = {**hand(1, 1, self_draw("bo", 10)), "dealt": format_time(dealt)}
    first = enter(client, timed, row, admin_headers)
    again = enter(client, timed, row, admin_headers)

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["already"] == "stored"
    lines = [json.loads(text) for text in store.export(timed.tid)]
    deals = [line for line in lines if line["type"] == "deal"]
    assert len(deals) == 1
    assert deals[0]["time"] == format_time(dealt)
    assert deals[0]["override"] == "score sheet 1-1-1"  # the head judge's, naming the sheet
    assert deals[0]["by"] == "admin"
    assert len(hand_lines(store, timed.tid, 1, 1)) == 1
    shown = client.get(timed.url("sheets/1/1/1"), headers=admin_headers).json()
    assert shown["hands"][0]["dealt"] == format_time(dealt)
