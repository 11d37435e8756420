"""The head judge's desk (issue 18, part 3), on SQLite and PostgreSQL: the head judge's token
(every table, no admin action, revocable, expiring: rules TK-1, TK-2), calls from the
tablets (rules CA-1 to CA-4) and rulings recorded against them (rule CA-5), kept by replay
and export."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from judging_setup import Setup, club_opening, hand, open_tournament, self_draw

from app.domain.replay import replay_lines
from app.services.store import TournamentStore


@pytest.fixture
def club(store: TournamentStore) -> Setup:
    return open_tournament(store, club_opening())


@pytest.fixture
def head(client: TestClient, club: Setup, admin_headers: dict[str, str]) -> dict[str, str]:
    answer = client.post(club.url("head-judge-tokens"), headers=admin_headers, json={})
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"Bearer {answer.json()['token']}"}


def _call(
    client: TestClient, club: Setup, key: str, *, table: int = 1, reason: str = "dispute", **kw: Any
) -> Any:
    headers = kw.pop("headers", None) or club.headers(table, key)
    headers = {**headers, "Idempotency-Key": key}
    return client.post(
        club.url("calls"), json={"round": 1, "table": table, "reason": reason}, headers=headers
    )


def _lines(client: TestClient, club: Setup) -> list[dict[str, Any]]:
    return [json.loads(line) for line in client.get(club.url("log")).text.splitlines()]


# -- the head judge's token -----------------------------------------------------------------


def test_the_head_judge_enters_a_hand_at_any_table_and_the_line_says_so(
    client: TestClient, club: Setup, head: dict[str, str]
) -> None:
    for table, winner in ((1, "ami"), (2, "eun")):
        answer = client.post(
            club.url("hands"),
            json=hand(table, 1, self_draw(winner, 10)),
            headers={**head, "Idempotency-Key": f"hj-{table}"},
        )
        assert answer.status_code == 201, answer.text
    entered = [line for line in _lines(client, club) if line["type"] == "hand"]
    assert [(line["table"], line["by"]) for line in entered] == [
        (1, "head judge"),
        (2, "head judge"),
    ]
    audit = client.get(club.url("tables/2/audit")).json()["lines"]
    assert audit[-1]["line"]["by"] == "head judge"
    assert audit[-1]["entered_by"] == "head_judge"


def test_the_head_judge_penalizes_at_a_table_named_in_the_body(
    client: TestClient, club: Setup, head: dict[str, str]
) -> None:
    body = {"round": 1, "player": "eun", "points": -5, "reason": "stalling"}
    missing = client.post(club.url("table-penalties"), json=body, headers=head)
    assert missing.status_code == 422
    assert (missing.json()["field"], missing.json()["rule"]) == ("table", "PN-1")

    given = client.post(club.url("table-penalties"), json={**body, "table": 2}, headers=head)
    assert given.status_code == 201, given.text
    assert given.json()["lines"][0]["table"] == 2
    assert given.json()["lines"][0]["by"] == "head judge"
    audit = client.get(club.url("tables/2/audit")).json()["lines"]
    assert audit[-1]["line"]["type"] == "penalty"
    # a table's judge still penalizes at their own table only
    other = client.post(
        club.url("table-penalties"), json={**body, "table": 2}, headers=club.headers(1)
    )
    assert other.status_code == 403


def test_a_revoked_head_judge_token_is_refused_at_once(
    client: TestClient, club: Setup, head: dict[str, str], admin_headers: dict[str, str]
) -> None:
    assert client.get(club.url("calls"), headers=head).status_code == 200
    listed = client.get(club.url("tokens"), headers=admin_headers).json()
    assert [token["role"] for token in listed].count("head_judge") == 1

    revoked = client.delete(club.url("head-judge-tokens"), headers=admin_headers)
    assert revoked.status_code == 200
    assert [token["role"] for token in revoked.json()["revoked"]] == ["head_judge"]

    refused = client.get(club.url("calls"), headers=head)
    assert refused.status_code == 401
    assert "revoked" in refused.json()["detail"]
    # the table tokens are untouched
    assert client.get("/judge/whoami", headers=club.headers(1)).status_code == 200


def test_the_head_judge_token_is_another_tournaments_nothing(
    client: TestClient, store: TournamentStore, club: Setup, head: dict[str, str]
) -> None:
    other = open_tournament(store, club_opening())
    answer = client.post(
        other.url("hands"),
        json=hand(1, 1, self_draw("ami", 10)),
        headers={**head, "Idempotency-Key": "elsewhere"},
    )
    assert answer.status_code == 403


def test_a_table_token_cannot_read_the_calls_or_take_one(
    client: TestClient, club: Setup, head: dict[str, str]
) -> None:
    made = _call(client, club, "c-1")
    assert made.status_code == 201
    for answer in (
        client.get(club.url("calls"), headers=club.headers(1)),
        client.post(club.url("calls/c-1/taken"), headers=club.headers(1)),
    ):
        assert answer.status_code == 403
        assert answer.json()["field"] == "Authorization"


# -- calls ---------------------------------------------------------------------------------


def test_calls_are_made_taken_and_resolved_in_the_order_they_came(
    client: TestClient, club: Setup, head: dict[str, str]
) -> None:
    first = _call(client, club, "c-table-2", table=2, reason="chombo")
    second = _call(client, club, "c-table-1", table=1, reason="late_player")
    assert (first.status_code, second.status_code) == (201, 201)
    assert first.json()["call"]["state"] == "waiting"

    listed = client.get(club.url("calls"), headers=head).json()
    assert [(c["id"], c["table"], c["reason"]) for c in listed["calls"]] == [
        ("c-table-2", 2, "chombo"),
        ("c-table-1", 1, "late_player"),
    ]
    assert listed["reasons"] == ["dispute", "chombo", "late_player", "broken_tablet"]
    # who sits at each calling table, for a penalty against its call
    assert [seat["player"] for seat in listed["calls"][1]["seated"]] == [
        "ami",
        "bo",
        "cleo",
        "dirk",
    ]
    assert listed["calls"][1]["seated"][0]["name"] == "Ami Sato"

    taken = client.post(club.url("calls/c-table-2/taken"), headers=head)
    assert taken.status_code == 201
    assert taken.json()["call"]["state"] == "taken"
    again = client.post(club.url("calls/c-table-2/taken"), headers=head)
    assert (again.status_code, again.json()["already"]) == (200, True)

    resolved = client.post(
        club.url("calls/c-table-2/resolved"), json={"note": "false win: 1 point"}, headers=head
    )
    assert resolved.status_code == 201
    assert resolved.json()["call"]["state"] == "resolved"
    assert "note" not in resolved.json()["call"]  # the answer is the channel's shape

    listed = client.get(club.url("calls"), headers=head).json()
    states = {c["id"]: (c["state"], c["note"]) for c in listed["calls"]}
    assert states == {
        "c-table-2": ("resolved", "false win: 1 point"),
        "c-table-1": ("waiting", None),
    }
    lines = [line for line in _lines(client, club) if line["type"].startswith("call")]
    assert [line["type"] for line in lines] == ["call", "call", "call_taken", "call_resolved"]
    assert lines[0]["by"] == "judge table 2"
    assert lines[2]["by"] == "head judge"
    # a resolved call is closed (rule CA-3)
    other_note = client.post(
        club.url("calls/c-table-2/resolved"), json={"note": "changed my mind"}, headers=head
    )
    assert (other_note.status_code, other_note.json()["rule"]) == (409, "CA-3")


def test_a_call_sent_twice_is_one_call_and_another_body_under_its_key_is_refused(
    client: TestClient, club: Setup
) -> None:
    first = _call(client, club, "twice")
    retry = _call(client, club, "twice")
    assert (first.status_code, retry.status_code) == (201, 200)
    assert retry.json()["call"] == first.json()["call"]
    other = _call(client, club, "twice", reason="broken_tablet")
    assert other.status_code == 422
    calls = [line for line in _lines(client, club) if line["type"] == "call"]
    assert len(calls) == 1


def test_a_bad_reason_is_refused_naming_the_field_and_rule(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    version = store.version(club.tid)
    answer = _call(client, club, "bad", reason="bored")
    assert answer.status_code == 422
    assert (answer.json()["field"], answer.json()["rule"]) == ("reason", "CA-1")
    assert store.version(club.tid) == version


def test_a_table_token_calls_for_its_own_table_only(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    version = store.version(club.tid)
    answer = _call(client, club, "not-mine", table=2, headers=club.headers(1))
    assert answer.status_code == 403
    assert store.version(club.tid) == version


def test_resolving_needs_a_note_and_an_unknown_call_is_not_found(
    client: TestClient, club: Setup, head: dict[str, str]
) -> None:
    _call(client, club, "c-1")
    empty = client.post(club.url("calls/c-1/resolved"), json={"note": "  "}, headers=head)
    assert (empty.status_code, empty.json()["field"], empty.json()["rule"]) == (422, "note", "CA-3")
    unknown = client.post(club.url("calls/nope/taken"), headers=head)
    assert unknown.status_code == 404


def test_a_ruling_names_its_call_and_the_audit_list_shows_its_effect_on_the_cut(
    client: TestClient, club: Setup, head: dict[str, str], store: TournamentStore
) -> None:
    client.post(
        club.url("hands"),
        json=hand(1, 1, self_draw("ami", 10)),
        headers=club.headers(1, "h1"),
    )
    _call(client, club, "c-chombo", reason="chombo")
    client.post(club.url("calls/c-chombo/taken"), headers=head)
    penalty = client.post(
        club.url("table-penalties"),
        json={
            "round": 1,
            "player": "ami",
            "points": -100,
            "reason": "false win",
            "table": 1,
            "call": "c-chombo",
        },
        headers=head,
    )
    assert penalty.status_code == 201, penalty.text
    assert penalty.json()["lines"][0]["call"] == "c-chombo"
    assert {"player": "ami", "now": "below"} in penalty.json()["cut_changes"]
    correction = client.post(
        club.url("corrections"),
        json={**hand(1, 1, self_draw("ami", 12)), "reason": "value", "call": "c-chombo"},
        headers={**head, "Idempotency-Key": "fix-1"},
    )
    assert correction.status_code == 201, correction.text
    client.post(club.url("calls/c-chombo/resolved"), json={"note": "chombo: -100"}, headers=head)

    audit = client.get(club.url("tables/1/audit")).json()["lines"]
    by_type = [(line["line"]["type"], line["line"].get("call")) for line in audit[-5:]]
    assert by_type == [
        ("call", None),
        ("call_taken", "c-chombo"),
        ("penalty", "c-chombo"),
        ("hand", "c-chombo"),
        ("call_resolved", "c-chombo"),
    ]
    assert {"player": "ami", "now": "below"} in audit[-3]["cut_changes"]
    listed = client.get(club.url("calls"), headers=head).json()["calls"]
    assert listed[0]["rulings"] == ["penalty", "hand"]

    # a ruling naming a call of another table, or no call, is refused, nothing stored
    version = store.version(club.tid)
    _call(client, club, "c-two", table=2)
    version = store.version(club.tid)
    wrong = client.post(
        club.url("voids"),
        json={"round": 1, "segment": 1, "table": 1, "hand": 1, "reason": "x", "call": "c-two"},
        headers={**head, "Idempotency-Key": "void-1"},
    )
    assert (wrong.status_code, wrong.json()["rule"]) == (409, "CA-5")
    assert store.version(club.tid) == version


def test_replay_and_export_keep_the_calls(
    client: TestClient, club: Setup, head: dict[str, str], store: TournamentStore
) -> None:
    _call(client, club, "kept", table=2, reason="broken_tablet")
    client.post(club.url("calls/kept/taken"), headers=head)
    client.post(club.url("calls/kept/resolved"), json={"note": "new tablet"}, headers=head)
    _call(client, club, "open")

    exported = store.export(club.tid)
    replayed = replay_lines(exported)
    assert [(c.id, c.state, c.note) for c in replayed.calls.values()] == [
        ("kept", "resolved", "new tablet"),
        ("open", "waiting", None),
    ]
    assert replayed.calls["kept"].called_at is not None
    assert store.rebuild(club.tid).calls == replayed.calls
    # imported elsewhere, the same calls
    again = store.import_log(exported).tournament_id
    assert store.read(again, lambda t, _: list(t.calls)) == ["kept", "open"]


def test_the_head_judge_records_deals_seats_and_voids_at_any_table(
    client: TestClient, club: Setup, head: dict[str, str]
) -> None:
    where = {"round": 1, "segment": 1, "table": 2}
    deal = client.post(club.url("deals"), json={**where, "hand": 1}, headers=head)
    assert deal.status_code == 201, deal.text
    assert deal.json()["lines"][0]["by"] == "head judge"
    seats = client.post(
        club.url("seats"), json={**where, "seats": ["eun", "finn", "gwen", "hugo"]}, headers=head
    )
    assert seats.status_code == 200, seats.text  # the seats in the log already
    entered = client.post(
        club.url("hands"),
        json=hand(2, 1, self_draw("eun", 10)),
        headers={**head, "Idempotency-Key": "to-void"},
    )
    assert entered.status_code == 201, entered.text
    void = client.post(
        club.url("voids"),
        json={**where, "hand": 1, "reason": "wrong table"},
        headers={**head, "Idempotency-Key": "void-it"},
    )
    assert void.status_code == 201, void.text
    audit = client.get(club.url("tables/2/audit")).json()["lines"]
    assert [line["line"]["type"] for line in audit if line["entered_by"] == "head_judge"] == [
        "deal",
        "hand",
        "void",
    ]


def test_the_head_judges_token_on_a_tablet_is_sent_to_the_head_judges_page(
    client: TestClient, club: Setup, head: dict[str, str]
) -> None:
    answer = client.get("/judge/whoami", headers=head)
    assert answer.status_code == 403
    assert f"/head-judge/{club.tid}" in answer.json()["detail"]
    page = client.get(f"/head-judge/{club.tid}")
    assert page.status_code == 200 and 'id="desk"' in page.text
