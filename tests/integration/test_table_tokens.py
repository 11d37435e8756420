"""Judges' table tokens end (issue 14): revoked by the organizer, expired at the end of the
tournament day or at the organizer's time, reissued; a token that ended gets 401 at once,
on every process, saying why and never quoting it (rules TK-1, TK-2, docs/contract.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from in_process import IN_PROCESS_TIMEOUTS
from judging_setup import Setup, club_opening, hand, open_tournament, self_draw

from app.db.engine import make_engine
from app.services.store import TournamentStore
from app.settings import Settings
from app.web import create_app

WHOAMI = "/judge/whoami"


@pytest.fixture
def club(store: TournamentStore) -> Setup:
    return open_tournament(store, club_opening())


def whoami(client: TestClient, token: str) -> tuple[int, str]:
    response = client.get(WHOAMI, headers={"Authorization": f"Bearer {token}"})
    return response.status_code, response.json().get("detail", "")


def enter_hand(client: TestClient, setup: Setup, token: str, key: str) -> int:
    response = client.post(
        setup.url("hands"),
        json=hand(1, 1, self_draw("ami", 10)),
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key},
    )
    return response.status_code


def test_a_revoked_token_gets_401_at_once_saying_it_was_revoked(
    client: TestClient, club: Setup, admin_headers: dict[str, str]
) -> None:
    token = club.tokens[1]
    assert whoami(client, token)[0] == 200
    listed = client.get(club.url("tokens"), headers=admin_headers).json()
    token_id = next(row["id"] for row in listed if row["table"] == 1)

    revoked = client.delete(club.url(f"tokens/{token_id}"), headers=admin_headers)

    assert revoked.status_code == 200, revoked.text
    assert [row["id"] for row in revoked.json()["revoked"]] == [token_id]
    assert revoked.json()["revoked"][0]["revoked_at"] is not None
    status, detail = whoami(client, token)
    assert status == 401
    assert "revoked" in detail and "ask the organizer for a new one" in detail
    assert token not in detail
    assert enter_hand(client, club, token, "after-revoke") == 401
    assert whoami(client, club.tokens[2])[0] == 200  # the other table plays on
    assert token_id not in {
        row["id"] for row in client.get(club.url("tokens"), headers=admin_headers).json()
    }
    # Revoking it again answers it as it stands.
    again = client.delete(club.url(f"tokens/{token_id}"), headers=admin_headers)
    assert again.status_code == 200
    assert again.json()["revoked"][0]["revoked_at"] == revoked.json()["revoked"][0]["revoked_at"]


def test_a_revocation_holds_at_once_in_another_process_on_the_same_database(
    settings: Settings, club: Setup, admin_headers: dict[str, str]
) -> None:
    # Two apps, two stores, two engines: what one process revokes, the other refuses next.
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as other:
        token = club.tokens[1]
        assert whoami(other, token)[0] == 200  # seen (and any cache warm) before

        one.delete(club.url("tables/1/tokens"), headers=admin_headers).raise_for_status()

        assert whoami(other, token)[0] == 401


def test_revoking_a_table_revokes_every_live_token_of_that_table_only(
    client: TestClient, club: Setup, store: TournamentStore, admin_headers: dict[str, str]
) -> None:
    second = store.issue_token(club.tid, 1)

    answer = client.delete(club.url("tables/1/tokens"), headers=admin_headers)

    assert answer.status_code == 200, answer.text
    assert {row["table"] for row in answer.json()["revoked"]} == {1}
    assert len(answer.json()["revoked"]) == 2
    assert whoami(client, club.tokens[1])[0] == 401
    assert whoami(client, second)[0] == 401
    assert whoami(client, club.tokens[2])[0] == 200
    nothing = client.delete(club.url("tables/1/tokens"), headers=admin_headers)
    assert nothing.json() == {"revoked": []}


def test_a_token_of_another_tournament_or_none_at_all_is_not_found(
    client: TestClient, club: Setup, store: TournamentStore, admin_headers: dict[str, str]
) -> None:
    other = open_tournament(store, club_opening())
    other_id = client.get(other.url("tokens"), headers=admin_headers).json()[0]["id"]

    assert client.delete(club.url(f"tokens/{other_id}"), headers=admin_headers).status_code == 404
    assert client.delete(club.url("tokens/99999"), headers=admin_headers).status_code == 404
    assert whoami(client, other.tokens[1])[0] == 200


def test_a_token_expires_at_the_end_of_its_tournament_day(
    database_url: str, client: TestClient, club: Setup
) -> None:
    # A token issued yesterday morning, hall time: its day ended at 04:00 this morning.
    yesterday = datetime.now(UTC) - timedelta(days=1, hours=1)
    engine = make_engine(database_url, IN_PROCESS_TIMEOUTS)
    try:
        old_day = TournamentStore(engine, clock=lambda: yesterday)
        issued = old_day.issue_table_token(club.tid, 1)
    finally:
        engine.dispose()
    assert issued.record.expires_at <= datetime.now(UTC)

    status, detail = whoami(client, issued.token)

    assert status == 401
    assert "expired at" in detail and "ask the organizer for a new one" in detail
    assert issued.token not in detail
    assert enter_hand(client, club, issued.token, "expired") == 401


def test_the_organizer_sets_when_a_token_expires(
    client: TestClient, club: Setup, admin_headers: dict[str, str]
) -> None:
    until = (datetime.now(UTC) + timedelta(hours=30)).replace(microsecond=0)

    issued = client.post(
        club.url("tokens"),
        json={"table": 2, "expires_at": until.isoformat()},
        headers=admin_headers,
    )

    assert issued.status_code == 201, issued.text
    assert datetime.fromisoformat(issued.json()["expires_at"]) == until
    assert whoami(client, issued.json()["token"])[0] == 200
    listed = client.get(club.url("tokens"), headers=admin_headers).json()
    row = next(row for row in listed if row["id"] == issued.json()["id"])
    assert datetime.fromisoformat(row["expires_at"]) == until
    assert "token" not in row and "token_hash" not in row


@pytest.mark.parametrize(
    ("expires_at", "says"),
    [
        ("2020-01-01T00:00:00Z", "later than now"),
        ("2999-01-01T00:00:00Z", "within 14 days"),
        ("2026-12-02T23:00:00", "offset"),
    ],
)
def test_an_expiry_in_the_past_or_too_far_or_without_offset_is_refused_naming_the_field(
    client: TestClient, club: Setup, admin_headers: dict[str, str], expires_at: str, says: str
) -> None:
    answer = client.post(
        club.url("tokens"), json={"table": 1, "expires_at": expires_at}, headers=admin_headers
    )

    assert answer.status_code == 422, answer.text
    assert answer.json()["field"] == "expires_at"
    assert answer.json()["rule"] == "TK-1"
    assert says in answer.json()["detail"]


def test_a_token_is_reissued_revoking_the_earlier_one(
    client: TestClient, club: Setup, admin_headers: dict[str, str]
) -> None:
    kept = client.post(club.url("tokens"), json={"table": 1}, headers=admin_headers).json()

    reissued = client.post(
        club.url("tokens"), json={"table": 1, "revoke_earlier": True}, headers=admin_headers
    )

    assert reissued.status_code == 201, reissued.text
    assert {row["id"] for row in reissued.json()["revoked"]} >= {kept["id"]}
    assert whoami(client, reissued.json()["token"])[0] == 200
    assert whoami(client, kept["token"])[0] == 401
    assert whoami(client, club.tokens[1])[0] == 401
    assert whoami(client, club.tokens[2])[0] == 200


def test_issuing_again_without_revoking_keeps_the_earlier_token(
    client: TestClient, club: Setup, admin_headers: dict[str, str]
) -> None:
    issued = client.post(club.url("tokens"), json={"table": 1}, headers=admin_headers)

    assert issued.json()["revoked"] == []
    assert whoami(client, club.tokens[1])[0] == 200
    assert whoami(client, issued.json()["token"])[0] == 200


def test_no_card_for_a_revoked_token(
    client: TestClient, club: Setup, admin_headers: dict[str, str]
) -> None:
    client.delete(club.url("tables/1/tokens"), headers=admin_headers).raise_for_status()

    card = client.post(
        f"/admin/{club.tid}/judge-card", json={"token": club.tokens[1]}, headers=admin_headers
    )

    assert card.status_code == 404


def test_the_card_opens_the_page_with_the_token_in_the_fragment_only(
    client: TestClient, club: Setup, admin_headers: dict[str, str]
) -> None:
    # Issue 14: the QR code opened /judge?token=..., which every access log keeps.
    card = client.post(
        f"/admin/{club.tid}/judge-card", json={"token": club.tokens[1]}, headers=admin_headers
    ).json()

    path, _, fragment = card["url"].partition("#")
    assert path.endswith("/judge")
    assert fragment == f"token={club.tokens[1]}"
    assert card["token_id"] >= 1 and card["expires_at"]
