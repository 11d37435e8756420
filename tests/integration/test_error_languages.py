"""What a judge or an organizer reads when the server refuses something, in their language
(issue 17), on SQLite and PostgreSQL: the problem's `detail` follows the request's language
(its Accept-Language, a tablet's browser), its `field` and `rule` stay as they are for
programs, and nothing is stored by a refused request in any language."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.testclient import TestClient
from test_admin_api import api, start

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def _refused_hand(client: TestClient, started: Any, language: str | None) -> Any:
    east, south, _, _ = started.seats[(1, 1, 1)]
    headers = {
        "Authorization": f"Bearer {started.tokens[1]}",
        "Idempotency-Key": str(uuid.uuid4()),
    }
    if language:
        headers["Accept-Language"] = language
    return client.post(
        api(f"/{started.id}/hands"),
        json={"round": 1, "segment": 1, "table": 1, "hand": 1, "result": {"kind": "nonsense"}},
        headers=headers,
    )


def test_a_refused_hand_is_explained_in_the_judges_language(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    english = _refused_hand(client, started, None)
    japanese = _refused_hand(client, started, "ja-JP,ja;q=0.9")
    assert english.status_code == japanese.status_code == 422
    first, second = english.json(), japanese.json()
    assert first["detail"].startswith(f"field '{first['field']}':")
    assert second["detail"].startswith(f"項目「{first['field']}」: ")
    assert f"（規則 {first['rule']}）" in second["detail"]
    # what programs read is the same in every language
    assert (second["field"], second["rule"]) == (first["field"], first["rule"])
    standings = client.get(api(f"/{started.id}/standings")).json()
    assert all(row["play"] == "0" for r in standings["rounds"] for row in r["standings"])


def test_an_error_page_speaks_the_readers_language(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    start(client, admin_headers)
    page = client.get("/hall/99?lang=zh-Hant", headers=BROWSER)
    assert page.status_code == 404
    assert '<html lang="zh-Hant">' in page.text and "<h1>找不到</h1>" in page.text
    assert "此伺服器上的比賽：" in page.text
    english = client.get("/hall/99", headers=BROWSER)
    assert (
        "<h1>Not found</h1>" in english.text and "The tournaments on this server:" in english.text
    )
