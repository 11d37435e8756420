"""The organizer's console routes (issue 6), on SQLite and PostgreSQL: the page, and what it
fetches with the admin header beside the admin API (its view of a tournament, seating slips,
judges' token QR codes, the results CSV), plus the public printable results.

Every admin route refuses an answer without the admin token in the Authorization header: a
judge's token or the admin token in the query string gets 401 like no token at all.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from fastapi.testclient import TestClient
from judging_setup import CLUB_LOG
from test_admin_api import (
    EARLY_END,
    api,
    create,
    created,
    play_round_one_to_a_tie,
    start,
)

from app.printouts.slips import qr_svg
from app.settings import Settings
from app.web import create_app
from app.web.admin_pages import RESULT_COLUMNS
from tests.integration.conftest import ADMIN_TOKEN

TRAP = '<script>alert("x")</script> & Zoë'
TRAP_ESCAPED = "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; Zoë"


def admin_routes(tournament_id: int) -> list[tuple[str, str, dict[str, Any] | None]]:
    """Every route of admin_pages.py that needs the admin token: method, path, JSON body."""
    return [
        ("GET", "/admin/session", None),
        ("GET", f"/admin/{tournament_id}/state", None),
        ("GET", f"/admin/{tournament_id}/slips/1", None),
        ("GET", f"/admin/{tournament_id}/slips/1.csv", None),
        ("POST", f"/admin/{tournament_id}/judge-card", {"token": "x"}),
        ("GET", f"/admin/{tournament_id}/links", None),
        ("GET", f"/admin/{tournament_id}/results.csv", None),
    ]


def register(
    client: TestClient, admin: dict[str, str], tournament_id: int, names: list[str]
) -> None:
    """Players 1..n in group A then B, by name, as a JSON list."""
    half = len(names) // 2
    players = [
        {"id": n, "name": name, "group": "A" if n <= half else "B", "country": "NL"}
        for n, name in enumerate(names, start=1)
    ]
    created(client.post(api(f"/{tournament_id}/players"), json=players, headers=admin))


def card(client: TestClient, admin: dict[str, str], tournament_id: int, token: str) -> Any:
    return client.post(f"/admin/{tournament_id}/judge-card", json={"token": token}, headers=admin)


def results_rows(client: TestClient, admin: dict[str, str], tournament_id: int) -> list[Any]:
    answer = client.get(f"/admin/{tournament_id}/results.csv", headers=admin)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/csv")
    assert f'filename="results-{tournament_id}.csv"' in answer.headers["content-disposition"]
    reader = csv.DictReader(io.StringIO(answer.text))
    assert tuple(reader.fieldnames or ()) == RESULT_COLUMNS
    return list(reader)


# -- the page and the token -----------------------------------------------------------------


def test_the_console_page_asks_for_the_token_and_holds_no_data(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    for path in ("/admin", f"/admin/{started.id}"):
        page = client.get(path)
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert 'id="gate"' in page.text and 'type="password"' in page.text
        assert '<script type="module" src="/static/admin.js">' in page.text
        assert "Player 1" not in page.text and started.draw_seed not in page.text
    assert f'data-tournament="{started.id}"' in client.get(f"/admin/{started.id}").text
    assert 'data-tournament=""' in client.get("/admin").text
    for asset in ("/static/admin.js", "/static/admin.css"):
        assert client.get(asset).status_code == 200


def test_every_admin_route_refuses_without_the_admin_token_in_the_header(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    judge = {"Authorization": f"Bearer {started.tokens[1]}"}
    wrong = {"Authorization": "Bearer not-the-admin-token"}
    for method, path, body in admin_routes(started.id):
        for headers in ({}, judge, wrong):
            answer = client.request(method, path, json=body, headers=headers)
            assert answer.status_code == 401, (path, headers, answer.text)
            assert answer.headers["WWW-Authenticate"] == "Bearer"
        # The token in the URL is not a credential: it would stay in logs and history.
        for query in (f"token={ADMIN_TOKEN}", f"access_token={ADMIN_TOKEN}"):
            answer = client.request(method, f"{path}?{query}", json=body)
            assert answer.status_code == 401, (path, query)


def test_every_admin_route_answers_with_the_admin_token(
    client: TestClient, admin_headers: dict[str, str], settings: Settings
) -> None:
    started = start(client, admin_headers)
    routes = admin_routes(started.id)
    for method, path, body in routes:
        if path.endswith("judge-card"):
            body = {"token": started.tokens[1]}
        answer = client.request(method, path, json=body, headers=admin_headers)
        assert answer.status_code == 200, (path, answer.text)
    session = client.get("/admin/session", headers=admin_headers).json()
    # Unset SCOREBOARD_PUBLIC_URL: the address the console was opened at (issue 13).
    assert settings.public_url is None
    assert session == {
        "public_url": "http://testserver",
        "public_url_set": False,
        "public_url_warning": None,
    }


# -- the console's view of a tournament -----------------------------------------------------------


def test_the_state_shows_players_segments_penalties_and_the_draw(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    state_of = lambda: client.get(f"/admin/{started.id}/state", headers=admin_headers).json()  # noqa: E731
    state = state_of()
    assert state["round"] == 1 and state["draw"] == {
        "seed": "api-test",
        "repeats": state["draw"]["repeats"],
        "superseded": [],
    }
    assert state["groups"] == state["registration_groups"] == ["A", "B"]
    assert state["draw_refused"] is None  # a redraw, until the first deal or hand
    assert len(state["unfinished"]) == 16  # 4 tables x 4 halves, nothing played yet
    assert len(state["players"]) == 16 and state["players"][0]["name"] == "Player 1"
    assert sorted(state["in_round"]) == list(range(1, 17))
    assert [(s["group"], s["segment"], s["state"]) for s in state["segments"]] == [
        (group, segment, "not opened") for group in "AB" for segment in (1, 2, 3, 4)
    ]
    assert {tuple(s["tables"]) for s in state["segments"]} == {(1, 2), (3, 4)}
    assert state["round_one_rate"] == "1/4" and not state["rate_locked"]

    for action in ("open", "close"):
        body = {"round": 1, "segment": 2, "group": "A"}
        created(
            client.post(api(f"/{started.id}/segments/{action}"), json=body, headers=admin_headers)
        )
    penalized = play_round_one_to_a_tie(client, admin_headers, started)
    state = state_of()
    second = state["segments"][1]
    assert second["state"] == "closed" and second["start"] is not None
    assert [s["state"] for s in state["segments"]].count("not opened") == 7
    assert state["penalties"] == [{"player": penalized, "points": -5, "reason": "late arrival"}]
    assert state["rate_locked"]  # a hand is in: rule SC-3
    assert "has started" in state["draw_refused"] and "rule SE-1" in state["draw_refused"]
    assert state["unfinished"][0] == {
        "group": "A",
        "segment": 1,
        "table": 1,
        "hands": 1,
        "planned": 8,
    }


def test_the_state_of_a_format_without_groups_names_none(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament_id = created(
        client.post(api(), json={"name": "Ari Ari", "format": "ariari"}, headers=admin_headers)
    )["id"]
    state_of = lambda: client.get(f"/admin/{tournament_id}/state", headers=admin_headers).json()  # noqa: E731
    state = state_of()
    assert state["groups"] == state["registration_groups"] == []
    assert state["unfinished"] == []
    # rule FM-9: nothing to draw yet, and the console is told why
    assert "0 registered player(s)" in state["draw_refused"]
    assert "rule FM-9" in state["draw_refused"]
    players = "id,name\n" + "".join(f"p{n},Player {n}\n" for n in range(1, 9))
    created(
        client.post(
            api(f"/{tournament_id}/players.csv"),
            content=players.encode(),
            headers={**admin_headers, "Content-Type": "text/csv"},
        )
    )
    created(client.post(api(f"/{tournament_id}/rounds/1/draw"), json={}, headers=admin_headers))
    state = state_of()
    assert [(s["group"], s["segment"], s["tables"]) for s in state["segments"]] == [
        (None, 1, [1, 2]),
        (None, 2, [1, 2]),
    ]
    # the console's "Open now" sends what the state names: no group (rule FM-2)
    first = state["segments"][0]
    body = {"round": 1, "segment": first["segment"]}
    created(client.post(api(f"/{tournament_id}/segments/open"), json=body, headers=admin_headers))
    assert state_of()["segments"][0]["state"] == "running"
    assert [t["planned"] for t in state_of()["unfinished"]] == [None] * 4  # games (AA-12)


# -- seating slips -------------------------------------------------------------------------------


def test_slips_print_the_recorded_seating_with_names_escaped(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament_id = create(client, admin_headers)
    register(client, admin_headers, tournament_id, [TRAP, *(f"Player {n}" for n in range(2, 17))])
    not_drawn = client.get(f"/admin/{tournament_id}/slips/1", headers=admin_headers)
    assert not_drawn.status_code == 409 and "not been drawn" in not_drawn.json()["detail"]
    drawn = created(
        client.post(
            api(f"/{tournament_id}/rounds/1/draw"), json={"seed": "s"}, headers=admin_headers
        )
    )

    page = client.get(f"/admin/{tournament_id}/slips/1", headers=admin_headers)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.text.count('<section class="slip"') == 16
    assert page.text.count("<svg") == 16  # a QR code of the player's page on each
    assert TRAP_ESCAPED in page.text and TRAP not in page.text
    # in the console's language, which asks for them with its own token: no switch of their own
    assert 'hreflang="ja"' not in page.text

    sheet = client.get(f"/admin/{tournament_id}/slips/1.csv", headers=admin_headers)
    assert sheet.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(sheet.text)))
    assert len(rows) == 16
    tables = {
        (s["segment"], p): s["table"] for s in drawn["seatings"] for p in s["seats"]
    }  # the draw's answer, segment by segment
    for row in rows:
        player = int(row["player"])
        assert [int(row[f"Half {h} table"]) for h in (1, 2, 3, 4)] == [
            tables[(h, player)] for h in (1, 2, 3, 4)
        ]
    assert next(r for r in rows if r["player"] == "1")["name"] == TRAP


def test_slips_of_a_round_that_is_not_there_are_refused(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    not_begun = client.get(f"/admin/{started.id}/slips/2", headers=admin_headers)
    assert not_begun.status_code == 409 and not_begun.json()["rule"] == "FM-1"
    no_such = client.get(f"/admin/{started.id}/slips/9.csv", headers=admin_headers)
    assert no_such.status_code == 422 and no_such.json()["field"] == "round"
    missing = client.get("/admin/999/slips/1", headers=admin_headers)
    assert missing.status_code == 404


# -- judges' token cards ---------------------------------------------------------------------------


def test_a_judge_card_is_the_qr_code_of_the_judges_page_with_the_token(
    client: TestClient, admin_headers: dict[str, str], settings: Settings
) -> None:
    started = start(client, admin_headers)
    issued = created(
        client.post(api(f"/{started.id}/tokens"), json={"table": 3}, headers=admin_headers)
    )
    answer = card(client, admin_headers, started.id, issued["token"])
    assert answer.status_code == 200, answer.text
    shown = answer.json()
    assert shown["table"] == 3 and shown["tournament"] == started.id
    assert shown["url"] == f"http://testserver/judge#token={issued['token']}"
    assert shown["warning"] is None
    assert shown["svg"].startswith("<svg") and shown["svg"].rstrip().endswith("</svg>")

    other = start(client, admin_headers)
    for token in ("not-a-token", other.tokens[1]):
        refused = card(client, admin_headers, started.id, token)
        assert refused.status_code == 404, token
        assert "not a valid table token" in refused.json()["detail"]
    extra = client.post(
        f"/admin/{started.id}/judge-card",
        json={"token": issued["token"], "table": 1},
        headers=admin_headers,
    )
    assert extra.status_code == 422


# -- the address QR codes open (issue 13, section 4) ---------------------------------------------


def issued_card(
    client: TestClient, headers: dict[str, str], tournament_id: int, table: int
) -> tuple[str, dict[str, Any]]:
    """A new token for a table, and its card, both asked for with these headers."""
    path = api(f"/{tournament_id}/tokens")
    token = created(client.post(path, json={"table": table}, headers=headers))["token"]
    return token, card(client, headers, tournament_id, token).json()


def test_qr_codes_open_the_address_the_console_was_opened_at(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    # Issue 13: under `scoreboard serve --port 8101` the cards and slips said 127.0.0.1:8000.
    started = start(client, admin_headers)
    hall = {**admin_headers, "Host": "192.168.1.10:8101"}
    token, shown = issued_card(client, hall, started.id, 2)
    assert shown["url"] == f"http://192.168.1.10:8101/judge#token={token}"
    assert shown["warning"] is None
    state = client.get(f"/admin/{started.id}/state", headers=hall).json()
    assert state["public_url"] == "http://192.168.1.10:8101"
    slips = client.get(f"/admin/{started.id}/slips/1", headers=hall).text
    assert qr_svg("http://192.168.1.10:8101/p/1") in slips and "this machine only" not in slips
    # A proxy's X-Forwarded-Host is not believed: anyone could send it.
    forged = {**hall, "X-Forwarded-Host": "evil.example"}
    assert "evil.example" not in card(client, forged, started.id, token).text


def test_a_qr_code_that_opens_this_machine_only_is_flagged(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    local = {**admin_headers, "Host": "127.0.0.1:8101"}
    _, shown = issued_card(client, local, started.id, 1)
    assert shown["url"].startswith("http://127.0.0.1:8101/judge#token=")
    assert "tablets and phones cannot open it" in shown["warning"]
    session = client.get("/admin/session", headers=local).json()
    assert session["public_url"] == "http://127.0.0.1:8101"
    assert "SCOREBOARD_PUBLIC_URL" in session["public_url_warning"]
    state = client.get(f"/admin/{started.id}/state", headers=local).json()
    assert state["public_url_warning"] == session["public_url_warning"]
    slips = client.get(f"/admin/{started.id}/slips/1", headers=local).text
    assert 'class="warning"' in slips and "QR: this machine only" in slips
    links = client.get(f"/admin/{started.id}/links", headers=local).json()
    assert links["warning"] == session["public_url_warning"]


def served_at(database_url: str, **addresses: str) -> TestClient:
    """The console of a server given its addresses (public_url, staff_url)."""
    settings = Settings(
        database_url=database_url,
        admin_token=ADMIN_TOKEN,  # type: ignore[arg-type]
        **addresses,  # type: ignore[arg-type]
    )
    return TestClient(create_app(settings))


def test_the_public_url_setting_wins_over_the_request(database_url: str) -> None:
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}", "Host": "127.0.0.1:8101"}
    with served_at(database_url, public_url="https://scores.example.org/") as client:
        started = start(client, admin)
        token, shown = issued_card(client, admin, started.id, 1)
        assert shown["url"] == f"https://scores.example.org/judge#token={token}"
        assert shown["warning"] is None
        session = client.get("/admin/session", headers=admin).json()
        assert session["public_url_set"] is True
        slips = client.get(f"/admin/{started.id}/slips/1", headers=admin).text
        assert qr_svg("https://scores.example.org/p/1") in slips


def test_the_staffs_codes_open_their_own_entry_and_the_players_the_publics(
    database_url: str,
) -> None:
    """With SCOREBOARD_STAFF_URL (issue 32, the staff's entry of their own), a judge's card and
    a scorer's sheet open the staff's address, which the public's entry would refuse (421),
    and a player's slip and the hall's links stay on the public's."""
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}", "Host": "127.0.0.1:8101"}
    with served_at(
        database_url, public_url="https://scores.example.org", staff_url="https://10.0.20.1:8443"
    ) as client:
        started = start(client, admin)
        token, shown = issued_card(client, admin, started.id, 1)
        assert shown["url"] == f"https://10.0.20.1:8443/judge#token={token}"
        sheets = client.get(f"/admin/{started.id}/sheets/1", headers=admin).text
        assert "https://10.0.20.1:8443/scorer/" in sheets
        assert "https://scores.example.org/scorer/" not in sheets
        slips = client.get(f"/admin/{started.id}/slips/1", headers=admin).text
        assert qr_svg("https://scores.example.org/p/1") in slips
        links = client.get(f"/admin/{started.id}/links", headers=admin).json()
        assert links["public_url"] == "https://scores.example.org"


def test_a_staff_card_on_this_machine_only_names_the_staff_setting(database_url: str) -> None:
    """A judge's card whose address is SCOREBOARD_STAFF_URL's, on loopback, tells the
    organizer to set that one (seen: it said SCOREBOARD_PUBLIC_URL, which was right)."""
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    with served_at(
        database_url, public_url="https://scores.example.org", staff_url="https://127.0.0.1:8443"
    ) as client:
        started = start(client, admin)
        _, shown = issued_card(client, admin, started.id, 1)
        assert "SCOREBOARD_STAFF_URL" in shown["warning"]
        assert "SCOREBOARD_PUBLIC_URL" not in shown["warning"]
        session = client.get("/admin/session", headers=admin).json()
        assert session["public_url_warning"] is None  # the public's address is fine


# -- every page of the tournament, with its QR code (issue 13, section 3) -------------------------


def test_the_console_links_every_page_and_feed_with_a_qr_code(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    tid = started.id
    answer = client.get(f"/admin/{tid}/links", headers=admin_headers)
    assert answer.status_code == 200, answer.text
    links = answer.json()
    assert links["public_url"] == "http://testserver" and links["warning"] is None
    assert links["player"] == "1" and links["table"] == 1
    paths = {link["url"].removeprefix("http://testserver") for link in links["links"]}
    expected = {
        f"/hall/{tid}",
        f"/hall/{tid}?page=cut",
        f"/?t={tid}",
        f"/p/1?t={tid}",
        f"/overlay/{tid}/top",
        f"/overlay/{tid}/cut",
        f"/overlay/{tid}/bubble",  # issue 18
        f"/overlay/{tid}/story",
        f"/overlay/{tid}/clock",
        f"/overlay/{tid}/clock?group=A",
        f"/overlay/{tid}/clock?group=B",
        f"/overlay/{tid}/clock?table=1",
        f"/overlay/{tid}/player/1",
        f"/overlay/{tid}/table/1",
        *(
            f"/feeds/{tid}/{feed}.{extension}"
            for feed in ("standings", "top", "cut", "tables", "clocks", "player-1")
            for extension in ("json", "csv", "xml")
        ),
    }
    assert expected <= paths, expected - paths
    for link in links["links"]:
        assert link["group"] in ("Hall", "Spectators", "Overlays", "Feeds")
        assert link["svg"].startswith("<svg"), link["title"]
        # Every link opens: a page or a feed of this tournament, no credential needed.
        opened = client.get(link["url"])
        assert opened.status_code == 200, (link["url"], opened.text[:200])

    chosen = client.get(f"/admin/{tid}/links?player=5&table=3", headers=admin_headers).json()
    chosen_paths = {link["url"].removeprefix("http://testserver") for link in chosen["links"]}
    wanted = {f"/overlay/{tid}/player/5", f"/overlay/{tid}/table/3", f"/feeds/{tid}/player-5.csv"}
    assert wanted <= chosen_paths
    unknown = client.get(f"/admin/{tid}/links?player=nobody", headers=admin_headers)
    assert unknown.status_code == 404 and "'nobody' is not registered" in unknown.json()["detail"]
    assert client.get(f"/admin/{tid}/links?table=0", headers=admin_headers).status_code == 422
    assert client.get("/admin/999/links", headers=admin_headers).status_code == 404


# -- results ---------------------------------------------------------------------------------------


def test_the_results_csv_has_the_final_ranking_then_the_current_standings(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    before = results_rows(client, admin_headers, started.id)
    assert [row["list"] for row in before] == ["standings"] * 16  # nobody is ranked yet
    assert {row["total"] for row in before} == {"0"}

    penalized = play_round_one_to_a_tie(client, admin_headers, started)
    created(client.post(api(f"/{started.id}/rounds/1/end"), json=EARLY_END, headers=admin_headers))
    rows = results_rows(client, admin_headers, started.id)
    ranking = [row for row in rows if row["list"] == "final_ranking"]
    standings = [row for row in rows if row["list"] == "standings"]
    assert rows == ranking + standings
    assert len(ranking) == 8 and len(standings) == 8  # eliminated in round 1; round 2

    # The eliminated: one of the seven level at 0 lost the draw (rule ST-5), then the
    # penalized player, then the six on -10, who share rank 11 (rule PR-3).
    assert [row["rank"] for row in ranking] == ["9", "10"] + ["11"] * 6
    assert [row["total"] for row in ranking] == ["0", "-5"] + ["-10"] * 6
    assert {row["round"] for row in ranking} == {"1"}
    assert {row["status"] for row in ranking} == {"eliminated"}
    penalty_row = next(row for row in ranking if row["player"] == str(penalized))
    assert penalty_row | {"name": "", "country": ""} == {
        "list": "final_ranking",
        "round": "1",
        "rank": "10",
        "player": str(penalized),
        "name": "",
        "country": "",
        "status": "eliminated",
        "carry_in": "0",
        "play": "-5",
        "total": "-5",
        "total_shown": "-5.00",
        "cut": "below",
        "distance": "5",
        "distance_shown": "5.00",
        "prize": "0",
        "prize_shown": "0.00",
    }
    assert penalty_row["name"] == f"Player {penalized}"

    # Round 2's standings: carry-ins are exact (rule SC-4), a quarter of the round 1 total.
    assert {row["round"] for row in standings} == {"2"}
    assert sorted(row["carry_in"] for row in standings) == ["0"] * 6 + ["15/2"] * 2
    assert [row["total_shown"] for row in standings[:2]] == ["7.50", "7.50"]
    assert {row["prize"] for row in standings} == {""}


def test_the_printable_results_after_a_round_end_show_who_advanced_until_the_next_is_played(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    # Issue 13, the day as an organizer runs it: the sheet printed right after round 1 ends
    # is the round 1 standings (advanced, eliminated), not round 2's carry-ins, all level.
    started = start(client, admin_headers)
    play_round_one_to_a_tie(client, admin_headers, started)
    created(client.post(api(f"/{started.id}/rounds/1/end"), json=EARLY_END, headers=admin_headers))
    page = client.get(f"/admin/{started.id}/results")
    assert page.status_code == 200
    assert "Standings, round 1" in page.text and "Standings, round 2" not in page.text
    assert "round 1 has ended; round 2 has not begun play" in page.text
    assert page.text.count(">advanced<") == 8 and page.text.count(">eliminated<") == 8
    assert 'href="?round=2"' in page.text
    later = client.get(f"/admin/{started.id}/results?round=2")
    assert "Standings, round 2" in later.text and ">advanced<" not in later.text
    assert client.get(f"/admin/{started.id}/results?round=9").status_code == 422
    # the CSV keeps the current round unless it names one
    assert {row["round"] for row in results_rows(client, admin_headers, started.id)} >= {"2"}
    chosen = client.get(f"/admin/{started.id}/results.csv?round=1", headers=admin_headers)
    rows = list(csv.DictReader(io.StringIO(chosen.text)))
    assert {row["round"] for row in rows if row["list"] == "standings"} == {"1"}


def test_the_printable_results_are_public_and_list_the_final_ranking(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    imported = client.post(
        api("/import"),
        content=CLUB_LOG.read_bytes(),
        headers={**admin_headers, "Content-Type": "text/plain"},
    )
    tournament_id = created(imported)["id"]
    page = client.get(f"/admin/{tournament_id}/results")  # no credential
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Final ranking" in page.text and "final results" in page.text
    assert 'id="standings"' not in page.text  # the tournament is complete
    # examples/club.jsonl: the final's order, then round 1's eliminated (PR-1), with prizes.
    order = ["Eun-ji Park", "Finn Larsen", "Ami Sato", "Cléo Martin", "Gwen Ho", "Hugo Silva"]
    places = [page.text.index(name) for name in order]
    assert places == sorted(places)
    assert "1000.00" in page.text and "500.00" in page.text
    ranked = results_rows(client, admin_headers, tournament_id)
    assert [row["name"] for row in ranked if row["list"] == "final_ranking"][:6] == order
    assert [row["prize_shown"] for row in ranked[:4]] == ["1000.00", "500.00", "300.00", "200.00"]


def test_the_printable_results_show_the_current_standings_and_the_cut(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament_id = create(client, admin_headers, name=f"Cup {TRAP}")
    register(client, admin_headers, tournament_id, [TRAP, *(f"Player {n}" for n in range(2, 17))])
    page = client.get(f"/admin/{tournament_id}/results")
    assert page.status_code == 200
    assert "Standings, round 1" in page.text and "No round has ended yet." in page.text
    assert page.text.count("<tr class=") == 16 + 1  # 16 players and the cut line
    assert "cut: 8 advance" in page.text
    assert TRAP_ESCAPED in page.text and TRAP not in page.text
    assert client.get("/admin/999/results").status_code == 404


def test_every_console_screen_of_a_whole_ari_ari_event_answers(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    # examples/ariari.jsonl: both rounds played out; round 1 is one group (rule FM-2)
    log = (CLUB_LOG.parent / "ariari.jsonl").read_text()
    imported = created(
        client.post(
            api("/import"),
            content=log.encode(),
            headers={**admin_headers, "Content-Type": "text/plain"},
        )
    )
    tournament_id = imported["id"]
    state = client.get(f"/admin/{tournament_id}/state", headers=admin_headers).json()
    assert state["groups"] == state["registration_groups"] == []
    assert state["unfinished"] == []  # every game has ended (rule AA-12)
    assert "has ended" in state["draw_refused"]
    for round_number in (1, 2):
        slips = client.get(f"/admin/{tournament_id}/slips/{round_number}", headers=admin_headers)
        assert slips.status_code == 200, slips.text
        assert "group A" not in slips.text and "Game 1" in slips.text
        rows = client.get(f"/admin/{tournament_id}/slips/{round_number}.csv", headers=admin_headers)
        assert rows.text.splitlines()[0].endswith(
            "Game 1 table" if round_number == 2 else "Game 2 table"
        )
    results = results_rows(client, admin_headers, tournament_id)
    assert [row["list"] for row in results].count("final_ranking") == 8
    page = client.get(f"/admin/{tournament_id}/results")
    assert page.status_code == 200 and "Ari Ari Club Cup" in page.text
    # Ari Ari scores are points, whole with thousands separators (rule AA-17): never the
    # 2 decimals of SC-5 ("13200.00"), on the sheet or in its CSV, for the console to say
    assert state["ariari"] is True
    for row in results:
        assert "." not in row["total_shown"] and "." not in row["distance_shown"], row
    assert any("," in row["total_shown"] for row in results)
    # the sheet's cells are the CSV's rows (prize money keeps its decimals, rule PR-2), a
    # negative one with a true minus sign on the sheet (the CSV keeps ASCII's "-")
    on_sheet = [row["total_shown"].replace("-", "\u2212") for row in results]
    assert all(
        f">{shown}<" in page.text
        for shown, row in zip(on_sheet, results, strict=True)
        if row["list"] == "standings"
    )
    for round_number in (1, 2):
        sheet = client.get(f"/admin/{tournament_id}/results?round={round_number}").text
        assert "line total" not in sheet or re.search(r"line total -?[\d,]+<", sheet)
