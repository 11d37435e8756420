"""The tournament's default language through the admin API (issue 17), on SQLite and
PostgreSQL: given when the tournament is created, changed later by a `language` line, and a
language the pages do not speak refused naming the field, with nothing written."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from tests.integration.test_admin_api import api, assert_problem, created, snapshot
from tests.integration.test_language_switch import BROWSER, lang_of

FORMAT = {"preset": "wsom2008", "advance": [8, 4]}


def log_lines(client: TestClient, tournament_id: int) -> list[dict[str, object]]:
    return [
        json.loads(line)
        for line in client.get(api(f"/{tournament_id}/log")).text.split("\n")
        if line
    ]


def page_language(client: TestClient, tournament_id: int) -> str:
    """The language a reader gets who names none we speak: the tournament's default."""
    french = {**BROWSER, "Accept-Language": "fr-FR,fr;q=0.9"}
    answer = client.get(f"/hall/{tournament_id}", headers=french)
    assert answer.status_code == 200, answer.text
    return lang_of(answer.text)


def test_a_tournament_created_in_a_language_then_changed(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    body = {"name": "Macau", "format": FORMAT, "language": "zh-Hant"}
    tournament = created(client.post(api(), json=body, headers=admin_headers))["id"]
    assert log_lines(client, tournament)[0]["language"] == "zh-Hant"
    assert page_language(client, tournament) == "zh-Hant"
    state = client.get(f"/admin/{tournament}/state", headers=admin_headers).json()
    assert state["language"] == "zh-Hant"

    answer = created(
        client.post(api(f"/{tournament}/language"), json={"language": "ja"}, headers=admin_headers)
    )
    [line] = answer["lines"]
    assert (line["type"], line["language"], line["by"]) == ("language", "ja", "admin")
    assert log_lines(client, tournament)[-1] == line
    assert page_language(client, tournament) == "ja"
    state = client.get(f"/admin/{tournament}/state", headers=admin_headers).json()
    assert state["language"] == "ja"


def test_without_a_language_the_tournament_line_names_none(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament = created(
        client.post(api(), json={"name": "Club", "format": FORMAT}, headers=admin_headers)
    )["id"]
    assert "language" not in log_lines(client, tournament)[0]
    state = client.get(f"/admin/{tournament}/state", headers=admin_headers).json()
    assert state["language"] == "en"


@pytest.mark.parametrize("bad", ["fr", "", "zh-TW", "JA"])
def test_a_language_we_do_not_speak_is_refused(
    client: TestClient, admin_headers: dict[str, str], bad: str
) -> None:
    body = {"name": "Nowhere", "format": FORMAT, "language": bad}
    assert_problem(
        client.post(api(), json=body, headers=admin_headers),
        422,
        field="language",
        rule="CONTRACT §1",
    )
    tournament = created(
        client.post(api(), json={"name": "Club", "format": FORMAT}, headers=admin_headers)
    )["id"]
    before = snapshot(client, tournament)
    answer = client.post(
        api(f"/{tournament}/language"), json={"language": bad}, headers=admin_headers
    )
    assert_problem(answer, 422, field="language", rule="CONTRACT §1")
    assert snapshot(client, tournament) == before


def test_the_language_needs_the_admin_token(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    tournament = created(
        client.post(api(), json={"name": "Club", "format": FORMAT}, headers=admin_headers)
    )["id"]
    answer = client.post(api(f"/{tournament}/language"), json={"language": "ko"})
    assert answer.status_code == 401, answer.text


def test_openapi_documents_the_language_route(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"][api("/{tournament_id}/language")][
        "post"
    ]
    assert operation["tags"] == ["admin"]
    assert {"401", "404", "409", "422"} <= set(operation["responses"])
    created_body = client.get("/openapi.json").json()["components"]["schemas"]["TournamentBody"]
    assert "language" in created_body["properties"]
