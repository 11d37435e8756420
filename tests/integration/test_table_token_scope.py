"""A table token does a judge's work and no more (issue 14): every route that needs the
admin token, the head judge's included, refuses a judge's table token with 401 and changes
nothing. The routes are read from the app itself, so a route added later is walked too."""

from __future__ import annotations

import pytest
from app_routes import api_routes, calls
from fastapi.testclient import TestClient
from judging_setup import Setup, club_opening, open_tournament

from app.services.store import TournamentStore
from app.web import create_app
from app.web.deps import require_admin, require_judge

ROUTES = list(api_routes(create_app().routes))
ADMIN_ROUTES = [
    (method, route.path)
    for route in ROUTES
    if require_admin in set(calls(route.dependant))
    for method in sorted(route.methods - {"HEAD"})
]


def test_the_walk_covers_the_admin_and_head_judge_routes() -> None:
    paths = {path for _, path in ADMIN_ROUTES}
    assert len(ADMIN_ROUTES) >= 25
    assert "/api/tournaments/{tournament_id}/overrides" in paths  # the head judge's rulings
    assert "/api/tournaments/{tournament_id}/penalties" in paths
    assert "/api/tournaments/{tournament_id}/tokens/{token_id}" in paths
    assert "/admin/{tournament_id}/judge-card" in paths
    assert "/api/tournaments/{tournament_id}/head-judge-tokens" in paths  # issue 18


# Writes a credential does not guard, each for its reason: a player's check-in carries the
# code printed on their slip (CI-1), its guesses limited per player and address (CI-4): the
# API, and the phone's form that works without JavaScript.
SLIP_CODE_WRITES = {
    ("POST", "/api/tournaments/{tournament_id}/check-in"),
    ("POST", "/p/{player_id}/check-in"),
}


def test_every_write_needs_the_admin_token_or_a_table_token() -> None:
    unguarded = [
        (sorted(route.methods), route.path)
        for route in ROUTES
        if route.methods - {"GET", "HEAD"}
        and not {require_admin, require_judge} & set(calls(route.dependant))
        and not {(method, route.path) for method in route.methods} <= SLIP_CODE_WRITES
    ]
    assert unguarded == []


@pytest.fixture
def club(store: TournamentStore) -> Setup:
    return open_tournament(store, club_opening())


@pytest.mark.parametrize("credential", ["table", "head_judge"])
@pytest.mark.parametrize(("method", "path"), ADMIN_ROUTES)
def test_a_judges_token_is_refused_on_every_admin_and_head_judge_route(
    client: TestClient,
    club: Setup,
    admin_headers: dict[str, str],
    method: str,
    path: str,
    credential: str,
) -> None:
    """A table's token, and the head judge's (issue 18, part 3: every table, and no admin
    action, not even issuing or revoking a head-judge token)."""
    if credential == "table":
        token, still = club.tokens[1], "/judge/whoami"
    else:
        issued = client.post(club.url("head-judge-tokens"), headers=admin_headers, json={})
        token, still = issued.json()["token"], club.url("calls")
    tokens_before = client.get(club.url("tokens"), headers=admin_headers).json()
    log_before = client.get(club.url("log")).text
    url = path.format(
        tournament_id=club.tid,
        round_number=1,
        segment=1,
        table=1,
        token_id=tokens_before[0]["id"],
    )
    judge = {"Authorization": f"Bearer {token}"}

    answer = client.request(method, url, headers=judge, json={})

    assert answer.status_code in (401, 403), (method, url, answer.status_code, answer.text)
    assert "admin token" in answer.json()["detail"]
    assert token not in answer.text
    assert client.get(club.url("tokens"), headers=admin_headers).json() == tokens_before
    assert client.get(club.url("log")).text == log_before
    assert client.get(still, headers=judge).status_code == 200  # still a judge's
