"""What every page of the site shares (issue 13, section 7), on SQLite and PostgreSQL: a
browser that opens a page of a tournament or player that does not exist reads a page, not
JSON, while the API keeps its JSON problems (CONTRACT.md §3); every GET answers HEAD; the
site has its icon; `/docs` loads nothing from another host."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from test_admin_api import start

from app.web.pages import FAVICON

# What a browser sends when it opens an address.
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def page_routes(tid: int) -> list[tuple[str, int, str]]:
    """Every page route at something that is not there: path, status, what it says."""
    return [
        ("/hall/99", 404, "tournament 99 does not exist"),
        ("/overlay/99/top", 404, "tournament 99 does not exist"),
        ("/overlay/99/cut", 404, "tournament 99 does not exist"),
        ("/overlay/99/clock", 404, "tournament 99 does not exist"),
        ("/overlay/99/table/1", 404, "tournament 99 does not exist"),
        ("/overlay/99/player/1", 404, "tournament 99 does not exist"),
        (f"/overlay/{tid}/player/nobody", 404, "player 'nobody' is not registered"),
        ("/admin/99/results", 404, "tournament 99 does not exist"),
        ("/p/nobody", 404, "player 'nobody' is not registered"),
        (f"/p/nobody?t={tid}", 404, "player 'nobody' is not registered"),
        ("/hall/0", 422, "field 'tournament_id'"),
        ("/hall/not-a-number", 422, "field 'tournament_id'"),
        (f"/overlay/{tid}/top?n=99", 422, "field 'n'"),
        (f"/overlay/{tid}/table/0", 422, "field 'table'"),
        ("/no/such/page", 404, "There is nothing at this address"),
        ("/admin/99/slips/1", 401, "an admin token is needed"),
    ]


def test_a_browser_gets_a_page_for_what_is_not_there(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    for path, status, says in page_routes(started.id):
        answer = client.get(path, headers=BROWSER)
        assert answer.status_code == status, (path, answer.text[:200])
        assert answer.headers["content-type"].startswith("text/html"), path
        assert "<!doctype html>" in answer.text.lower(), path
        assert says.lower() in answer.text.lower().replace("&#39;", "'"), (path, answer.text)
        assert '{"detail"' not in answer.text, path  # not the JSON problem


def test_what_the_address_says_is_shown_as_text(client: TestClient) -> None:
    trap = "%3Cscript%3Ewindow.pwned%3D1%3C%2Fscript%3E"
    for path in (f"/p/{trap}", f"/overlay/1/player/{trap}", f"/hall/{trap}", f"/no/{trap}"):
        answer = client.get(path, headers=BROWSER)
        assert answer.headers["content-type"].startswith("text/html"), path
        assert "<script>" not in answer.text, path


def test_a_page_of_a_missing_tournament_links_the_same_page_of_the_others(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    answer = client.get("/hall/99", headers=BROWSER)
    assert f'href="/hall/{started.id}"' in answer.text
    overlay = client.get("/overlay/99/top", headers=BROWSER)
    assert f'href="/overlay/{started.id}/top"' in overlay.text
    # The tournament is there, the player is not: no list of other tournaments.
    player = client.get(f"/overlay/{started.id}/player/nobody", headers=BROWSER)
    assert 'class="elsewhere"' not in player.text


@pytest.mark.parametrize(
    "path",
    [
        "/api/tournaments/99",
        "/api/tournaments/99/standings?round=1",
        "/feeds/99/standings.json",
        "/hall/99/players.json",
        "/api/tournaments/0",
    ],
)
def test_the_api_keeps_its_json_problems_even_for_a_browser(client: TestClient, path: str) -> None:
    answer = client.get(path, headers=BROWSER)
    assert answer.status_code in (404, 422)
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["detail"]


def test_a_script_that_fetches_a_page_keeps_the_json_problem(client: TestClient) -> None:
    # The admin console fetches pages (the slips) and reads the problem's detail.
    for path in ("/hall/99", "/admin/99/results", "/overlay/1/top?n=99"):
        answer = client.get(path)
        assert answer.headers["content-type"] == "application/json", path
        assert answer.json()["detail"], path


def test_every_get_answers_head(client: TestClient, admin_headers: dict[str, str]) -> None:
    started = start(client, admin_headers)
    tid = started.id
    paths = [
        "/api/health",
        "/",
        f"/hall/{tid}",
        f"/overlay/{tid}/clock",
        f"/api/tournaments/{tid}/standings?round=1",
        "/favicon.ico",
        "/static/base.css",
        "/docs",
    ]
    for path in paths:
        got = client.get(path)
        head = client.head(path)
        assert head.status_code == got.status_code == 200, path
        assert head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"], path
    assert client.head("/hall/99").status_code == 404
    # A route that has no GET still refuses it.
    assert client.head(f"/api/tournaments/{tid}/hands").status_code == 405


def test_the_site_has_its_icon(client: TestClient) -> None:
    answer = client.get("/favicon.ico")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "image/x-icon"
    assert answer.content == FAVICON.read_bytes()
    assert answer.content[:4] == b"\x00\x00\x01\x00"  # an ICO file's header


def test_the_docs_load_nothing_from_another_host(client: TestClient) -> None:
    docs = client.get("/docs")
    assert docs.status_code == 200
    assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", docs.text), docs.text
    assets = re.findall(r"(?:src|href)=\"(/[^\"]+)\"", docs.text)
    assert {
        "/static/vendor/swagger-ui/swagger-ui-bundle.js",
        "/static/vendor/swagger-ui/swagger-ui.css",
        "/favicon.ico",
    } <= set(assets)
    for asset in assets:
        served = client.get(asset)
        assert served.status_code == 200 and len(served.content) > 1000, asset
    assert "url: '/openapi.json'" in docs.text
    assert '"validatorUrl": null' in docs.text  # no badge fetched from validator.swagger.io
    # ReDoc loads its script from a CDN only: it is not offered.
    assert client.get("/redoc").status_code == 404
