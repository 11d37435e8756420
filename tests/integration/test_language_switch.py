"""The language switch and the pages' catalogs over HTTP (issue 17), on SQLite and
PostgreSQL: the choice is kept on the device, the switch sends the reader back to a page of
this site only, and what picks a page's language is in the order the issue gives."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from test_admin_api import api

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def lang_of(page: str) -> str:
    start = page.index('<html lang="') + len('<html lang="')
    return page[start : page.index('"', start)]


def test_the_switch_keeps_the_choice_and_goes_back(client: TestClient) -> None:
    answer = client.get(
        "/language",
        params={"to": "zh-Hant", "next": "/results?lang=ja&t=2"},
        follow_redirects=False,
    )
    assert answer.status_code == 303
    # back to the page, without the ?lang= that would outrank the choice just made
    assert answer.headers["location"] == "/results?t=2"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith("lang=zh-Hant;") and "SameSite=lax" in cookie
    assert lang_of(client.get("/", headers=BROWSER).text) == "zh-Hant"


@pytest.mark.parametrize(
    "elsewhere",
    ["//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", "evil"],
)
def test_the_switch_never_sends_the_reader_to_another_site(
    client: TestClient, elsewhere: str
) -> None:
    answer = client.get("/language", params={"to": "ja", "next": elsewhere}, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/"


@pytest.mark.parametrize("asked", ["fr", "", "de-DE", "x" * 36])
def test_a_language_the_switch_does_not_offer_is_refused(client: TestClient, asked: str) -> None:
    answer = client.get("/language", params={"to": asked}, follow_redirects=False)
    assert answer.status_code == 422
    assert answer.json()["field"] in ("to", "query.to")
    assert "set-cookie" not in answer.headers


def _imported(client: TestClient, admin: dict[str, str], *lines: str) -> int:
    answer = client.post(
        api("/import"),
        content=("\n".join(lines) + "\n").encode(),
        headers={**admin, "Content-Type": "application/x-ndjson"},
    )
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


def test_the_order_query_then_device_then_browser_then_tournament(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tid = _imported(
        client,
        admin_headers,
        '{"type": "tournament", "name": "Macau", "format": "wsom2008", "language": "zh-Hant"}',
        '{"type": "player", "id": "P1", "name": "Ami Sato", "group": "A"}',
    )
    page = f"/hall/{tid}"
    # a browser that names no language we speak: the tournament's own
    french = {**BROWSER, "Accept-Language": "fr-FR,fr;q=0.9"}
    assert lang_of(client.get(page, headers=french).text) == "zh-Hant"
    assert lang_of(client.get(f"/p/P1?t={tid}", headers=french).text) == "zh-Hant"
    korean = {**BROWSER, "Accept-Language": "ko-KR,ko;q=0.9"}
    assert lang_of(client.get(page, headers=korean).text) == "ko"  # the browser's
    client.cookies.set("lang", "ja")
    assert lang_of(client.get(page, headers=korean).text) == "ja"  # the device's choice
    assert lang_of(client.get(f"{page}?lang=zh-Hans", headers=korean).text) == "zh-Hans"
    client.cookies.set("lang", "garbage<script>")
    assert lang_of(client.get(page, headers=korean).text) == "ko"  # a bad cookie: passed over
    client.cookies.clear()
    # the organizer changes the default with a `language` line
    other = _imported(
        client,
        admin_headers,
        '{"type": "tournament", "name": "Tokyo", "format": "wsom2008"}',
        '{"type": "language", "language": "ja"}',
    )
    assert lang_of(client.get(f"/hall/{other}", headers=french).text) == "ja"
    # with nothing at all: the server's default, English
    plain = _imported(
        client, admin_headers, '{"type": "tournament", "name": "Club", "format": "wsom2008"}'
    )
    assert lang_of(client.get(f"/hall/{plain}", headers=french).text) == "en"


def test_pages_say_they_vary_by_language(client: TestClient) -> None:
    page = client.get("/", headers=BROWSER)
    assert "Accept-Language" in page.headers["vary"] and "Cookie" in page.headers["vary"]


def test_the_pages_scripts_get_their_catalog(client: TestClient) -> None:
    answer = client.get("/i18n/ja/spectator.json")
    assert answer.status_code == 200
    catalog = json.loads(answer.text)
    assert catalog["language"] == "ja" and catalog["messages"]["Table {table}"] == "{table}番卓"
    assert client.get("/i18n/fr/spectator.json").status_code == 404
    assert client.get("/i18n/ja/secrets.json").status_code == 404


def test_another_sites_malformed_cookie_does_not_hide_the_choice(client: TestClient) -> None:
    """A cookie header with something unreadable beside `lang` (another app on the same
    host) still keeps the reader's choice."""
    headers = {**BROWSER, "Cookie": 'tracker="unterminated; lang=ja; x=1'}
    assert lang_of(client.get("/", headers=headers).text) == "ja"


def test_an_overlay_takes_its_language_from_the_address_only(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    """The TV crew's graphics PC has its own browser languages and may have a lang cookie from
    a page its operator looked at: neither may change the captions on air. `?lang=` says
    the language, else the tournament's, else English (issue 17)."""
    tid = _imported(
        client,
        admin_headers,
        '{"type": "tournament", "name": "Macau", "format": "wsom2008", "language": "zh-Hant"}',
        '{"type": "player", "id": "P1", "name": "Ami Sato", "group": "A"}',
    )
    korean = {**BROWSER, "Accept-Language": "ko-KR,ko;q=0.9"}
    client.cookies.set("lang", "ja")
    for overlay in ("top", "cut", "clock", "player/P1"):
        page = f"/overlay/{tid}/{overlay}"
        assert lang_of(client.get(page, headers=korean).text) == "zh-Hant", overlay
        assert lang_of(client.get(f"{page}?lang=ko", headers=korean).text) == "ko", overlay
    client.cookies.clear()
    plain = _imported(
        client, admin_headers, '{"type": "tournament", "name": "Club", "format": "wsom2008"}'
    )
    assert lang_of(client.get(f"/overlay/{plain}/top", headers=korean).text) == "en"
    # the pages around them still follow the reader
    assert lang_of(client.get(f"/hall/{tid}", headers=korean).text) == "ko"
