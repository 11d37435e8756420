"""What a judge or an organizer reads when the server refuses something, in their language
(issue 17), on SQLite and PostgreSQL: the problem's `detail` follows the request's language
(its Accept-Language, a tablet's browser), its `field` and `rule` stay as they are for
programs, and nothing is stored by a refused request in any language."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.testclient import TestClient
from test_admin_api import api, snapshot, start

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


def test_an_address_that_is_not_there_is_said_in_the_readers_language(client: TestClient) -> None:
    """No route at all (a mistyped address): Starlette's bare "Not Found" was left in English
    beneath the page's Japanese heading (a reviewer saw "見つかりません Not Found。")."""
    page = client.get("/no-such-page?lang=ja", headers=BROWSER)
    assert page.status_code == 404 and '<html lang="ja">' in page.text
    assert "Not Found" not in page.text and "このアドレスには何もありません" in page.text
    api_answer = client.get("/api/no-such-thing", headers={"Accept-Language": "ko"})
    assert api_answer.status_code == 404
    assert api_answer.json()["detail"] == "이 주소에는 아무것도 없습니다"
    wrong_method = client.delete("/api/tournaments", headers={"Accept-Language": "zh-Hant"})
    assert wrong_method.status_code == 405 and "Method Not Allowed" not in wrong_method.text
    assert wrong_method.json()["detail"] == "此地址不接受 DELETE 請求"
    assert client.get("/no-such-page").json()["detail"] == "There is nothing at this address"


# -- the refusals a judge meets on the tablet, in Japanese and in Traditional Chinese ----------

JAPANESE = "ja-JP,ja;q=0.9"
CHINESE = "zh-Hant-MO,zh-Hant;q=0.9"


def _hand(
    client: TestClient,
    started: Any,
    table: int,
    result: dict[str, Any],
    language: str,
    *,
    token_table: int | None = None,
    key: str | None = None,
    hand: int = 1,
) -> Any:
    return client.post(
        api(f"/{started.id}/hands"),
        json={"round": 1, "segment": 1, "table": table, "hand": hand, "result": result},
        headers={
            "Authorization": f"Bearer {started.tokens[token_table or table]}",
            "Idempotency-Key": key or str(uuid.uuid4()),
            "Accept-Language": language,
        },
    )


def _refused(response: Any, status: int, field: str | None, rule: str | None) -> str:
    assert response.status_code == status, response.text
    problem = response.json()
    assert (problem["field"], problem["rule"]) == (field, rule), problem
    detail: str = problem["detail"]
    return detail


def test_a_points_hand_that_does_not_sum_to_zero_is_refused_in_japanese_and_chinese(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    east, south, west, north = started.seats[(1, 1, 1)]
    result = {"kind": "points", "deltas": {east: 10, south: -5, west: 0, north: 0}}
    before = snapshot(client, started.id)
    japanese = _refused(_hand(client, started, 1, result, JAPANESE), 422, "result.deltas", "HS-7")
    assert japanese == ("項目「result.deltas」: 点数の増減の合計が 0 ではなく 5 です（規則 HS-7）")
    chinese = _refused(_hand(client, started, 1, result, CHINESE), 422, "result.deltas", "HS-7")
    assert chinese == "欄位「result.deltas」：分數變動的總和是 5，不是零（規則 HS-7）"
    assert snapshot(client, started.id) == before


def test_a_winner_who_is_not_at_the_table_is_refused_naming_the_table_in_the_judges_language(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    seats = ", ".join(map(str, started.seats[(1, 1, 1)]))
    result = {"kind": "self_draw", "winner": "P9999", "value": 10}
    before = snapshot(client, started.id)
    japanese = _refused(_hand(client, started, 1, result, JAPANESE), 422, "result.winner", "HS-1")
    assert japanese == (
        f"項目「result.winner」: プレイヤー 'P9999' はこの卓にいません（{seats}）（規則 HS-1）"
    )
    chinese = _refused(_hand(client, started, 1, result, CHINESE), 422, "result.winner", "HS-1")
    assert chinese == f"欄位「result.winner」：玩家 'P9999' 不在這一桌（{seats}）（規則 HS-1）"
    assert snapshot(client, started.id) == before


def test_a_hand_for_a_closed_segment_is_refused_in_the_judges_language(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    segment = {"round": 1, "segment": 1, "group": "A"}
    for step in ("open", "close"):
        response = client.post(
            api(f"/{started.id}/segments/{step}"), json=segment, headers=admin_headers
        )
        assert response.status_code == 201, response.text
    east = started.seats[(1, 1, 2)][0]
    result = {"kind": "self_draw", "winner": east, "value": 10}
    before = snapshot(client, started.id)
    japanese = _refused(_hand(client, started, 2, result, JAPANESE), 409, "segment", "CL-3")
    assert japanese == "項目「segment」: ラウンド 1 のセグメント 1 は終了しています（規則 CL-3）"
    chinese = _refused(_hand(client, started, 2, result, CHINESE), 409, "segment", "CL-3")
    assert chinese == "欄位「segment」：第 1 輪第 1 時段已完成（規則 CL-3）"
    assert snapshot(client, started.id) == before


def test_a_replayed_idempotency_key_with_another_hand_is_refused_in_the_judges_language(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    east, south, _, _ = started.seats[(1, 1, 1)]
    first = _hand(
        client, started, 1, {"kind": "self_draw", "winner": east, "value": 10}, JAPANESE, key="k-1"
    )
    assert first.status_code == 201, first.text
    before = snapshot(client, started.id)
    other = {"kind": "self_draw", "winner": south, "value": 12}
    japanese = _refused(
        _hand(client, started, 1, other, JAPANESE, key="k-1"), 422, "Idempotency-Key", "CONTRACT §3"
    )
    assert japanese == (
        "Idempotency-Key 'k-1' は別の要求に使われています。新しい和了には新しいキーを送ってください"
    )
    chinese = _refused(
        _hand(client, started, 1, other, CHINESE, key="k-1"), 422, "Idempotency-Key", "CONTRACT §3"
    )
    assert chinese == "Idempotency-Key 'k-1' 已用於另一個請求；新的一局請送新的鍵"
    assert snapshot(client, started.id) == before


def test_a_token_for_another_table_is_refused_naming_both_tables_in_the_judges_language(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    east = started.seats[(1, 1, 2)][0]
    result = {"kind": "self_draw", "winner": east, "value": 10}
    before = snapshot(client, started.id)
    refused = _hand(client, started, 2, result, JAPANESE, token_table=1)
    japanese = _refused(refused, 403, None, None)
    assert japanese == "このトークンは卓 1 用です。卓 2 には書き込めません"
    refused = _hand(client, started, 2, result, CHINESE, token_table=1)
    assert _refused(refused, 403, None, None) == "此權杖屬於第 1 桌；不能寫入第 2 桌"
    assert snapshot(client, started.id) == before
    # the English sentence is as it always was
    refused = _hand(client, started, 2, result, "en", token_table=1)
    assert _refused(refused, 403, None, None) == (
        "this token is for table 1; it cannot write to table 2"
    )


def test_a_correction_without_its_reason_is_refused_in_korean_and_simplified_chinese(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    east = started.seats[(1, 1, 1)][0]
    entered = _hand(client, started, 1, {"kind": "self_draw", "winner": east, "value": 10}, "ko")
    assert entered.status_code == 201, entered.text
    before = snapshot(client, started.id)

    def correction(language: str) -> Any:
        return client.post(
            api(f"/{started.id}/corrections"),
            json={
                "round": 1,
                "segment": 1,
                "table": 1,
                "hand": 1,
                "result": {"kind": "self_draw", "winner": east, "value": 12},
                "reason": "",
            },
            headers={
                "Authorization": f"Bearer {started.tokens[1]}",
                "Idempotency-Key": str(uuid.uuid4()),
                "Accept-Language": language,
            },
        )

    english = _refused(correction("en"), 422, "reason", "CONTRACT §3")
    assert english == "field 'reason': String should have at least 1 character (rule CONTRACT §3)"
    korean = _refused(correction("ko-KR,ko;q=0.9"), 422, "reason", "CONTRACT §3")
    assert korean == "항목 'reason': 1자 이상이어야 합니다 (규칙 CONTRACT §3)"
    chinese = _refused(correction("zh-CN,zh;q=0.9"), 422, "reason", "CONTRACT §3")
    assert chinese == "字段“reason”：至少需要 1 个字符（规则 CONTRACT §3）"
    assert snapshot(client, started.id) == before


def test_a_hand_without_a_table_token_is_refused_in_the_judges_language(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    started = start(client, admin_headers)
    east = started.seats[(1, 1, 1)][0]
    body = {
        "round": 1,
        "segment": 1,
        "table": 1,
        "hand": 1,
        "result": {"kind": "self_draw", "winner": east, "value": 10},
    }
    before = snapshot(client, started.id)
    answers = {
        language: client.post(
            api(f"/{started.id}/hands"),
            json=body,
            headers={"Idempotency-Key": str(uuid.uuid4()), "Accept-Language": language},
        )
        for language in ("en", JAPANESE, CHINESE)
    }
    assert {answer.status_code for answer in answers.values()} == {401}
    assert answers["en"].json()["detail"] == "a table token is needed (Authorization: Bearer ...)"
    assert answers[JAPANESE].json()["detail"] == "卓トークンが必要です（Authorization: Bearer ...）"
    assert answers[CHINESE].json()["detail"] == "需要牌桌權杖（Authorization: Bearer ...）"
    assert snapshot(client, started.id) == before


def test_a_korean_refusal_takes_the_particle_its_value_needs(
    client: TestClient, admin_headers: dict[str, str]
) -> None:
    """The catalog writes "{player}은(는)" for any value; the reader gets the one form (rule-free
    grammar, issue 17): "zz2는" (이, a vowel), "zz7은" (칠, a consonant)."""
    started = start(client, admin_headers)
    korean = {"Accept-Language": "ko"}
    for player, particle in (("zz2", "는"), ("zz7", "은")):
        answer = client.get(api(f"/{started.id}/players/{player}"), headers=korean)
        assert answer.status_code == 404, answer.text
        detail = answer.json()["detail"]
        assert f"'{player}'{particle} " in detail and "(는)" not in detail, detail
    # a value ending in a Latin letter keeps both forms: its reading is not written
    latin = client.get(api(f"/{started.id}/players/zzx"), headers=korean).json()["detail"]
    assert "'zzx'은(는)" in latin
