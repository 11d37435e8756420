"""Rate limits whose store is away never open (issue 32, item 2): with Redis dead (a closed
port) or mute (a stand-in that accepts and never answers), every limit counts in this
process's memory, from the very request that found Redis away, and no request waits on
Redis again for guards.REDIS_RETRY_AFTER. With Redis there (SCOREBOARD_TEST_REDIS_URL), the
counts are Redis's, shared by every process.

Seen before: with Redis away, the check-in guess limit (rule CI-4) let every guess through
(8 wrong codes, then the right one: 200), each check-in waited 260 ms for Redis, and the
first failed sign-in after Redis went away was not counted at all.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.domain.checkin import check_in_code, shown_code
from app.services.store import TournamentStore
from app.settings import Settings
from app.web import create_app
from app.web.guards import RateLimits
from tests.integration.conftest import ADMIN_TOKEN
from tests.integration.judging_setup import club_opening, hand, open_tournament, self_draw
from tests.integration.live_setup import SilentRedis, backplane_channel, redis_url

GUESSER = "203.0.113.9"  # a documentation address (RFC 5737)


def closed_port_url() -> str:
    """A Redis URL where nothing listens: every connection is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"


@pytest.fixture(params=["dead", "mute"])
def away(request: pytest.FixtureRequest) -> Iterator[tuple[str, SilentRedis | None]]:
    """A Redis that is away: its URL, and the mute stand-in (None for a closed port)."""
    if request.param == "dead":
        yield closed_port_url(), None
        return
    with SilentRedis() as mute:
        yield mute.url, mute


def limits_at(url: str, **rates: str) -> RateLimits:
    settings = Settings(
        redis_url=url,
        rate_limit_key_prefix=f"test-{uuid.uuid4().hex}",
        **rates,  # type: ignore[arg-type]
    )
    return RateLimits(settings)


def test_no_failed_sign_in_goes_uncounted_while_redis_is_away(
    away: tuple[str, SilentRedis | None],
) -> None:
    """Before: the sign-in that found Redis away was not counted (the 5th failure of 3 a
    minute was the first 429)."""
    url, mute = away
    limits = limits_at(url, auth_failures_per_address="3/minute")

    answers = [limits.failed_authentication(GUESSER, None) for _ in range(5)]

    assert [answer is None for answer in answers] == [True, True, True, False, False]
    assert limits.blocked_for(GUESSER) is not None
    if mute is not None:
        assert mute.given_up() == 1  # one wait for Redis, then none


def test_the_check_in_limit_counts_in_memory_and_waits_once_while_redis_is_away(
    away: tuple[str, SilentRedis | None],
) -> None:
    """rule CI-4. Before: check_in_refused answered None (let through) whenever Redis did
    not answer, and waited for it on every check-in."""
    url, mute = away
    limits = limits_at(url, checkin_failures_per_player="5/10 minutes")

    refused = []
    for _ in range(8):
        refusal = limits.check_in_refused(GUESSER, "1:ami")
        refused.append(refusal is not None)
        if refusal is None:
            limits.check_in_failed(GUESSER, "1:ami")

    assert refused == [False] * 5 + [True] * 3
    if mute is not None:
        assert mute.given_up() == 1


def test_with_redis_there_every_process_shares_one_count() -> None:
    """The normal path: two processes' counters (two RateLimits) on one Redis."""
    url = redis_url()
    settings = Settings(
        redis_url=url,
        rate_limit_key_prefix=f"test-{uuid.uuid4().hex}",
        auth_failures_per_address="3/minute",
        checkin_failures_per_player="5/10 minutes",
    )
    one, other = RateLimits(settings), RateLimits(settings)

    assert one.failed_authentication(GUESSER, None) is None
    assert other.failed_authentication(GUESSER, None) is None
    assert one.failed_authentication(GUESSER, None) is None
    assert other.failed_authentication(GUESSER, None) is not None
    for _ in range(5):
        assert one.check_in_refused(GUESSER, "1:ami") is None
        one.check_in_failed(GUESSER, "1:ami")
    assert other.check_in_refused(GUESSER, "1:ami") is not None
    assert one.shared_again_at == other.shared_again_at == 0.0  # Redis never failed


# -- the check-in as a phone sends it ---------------------------------------------------


def _settings_with_redis_away(database_url: str, redis_url: str, **more: Any) -> Settings:
    return Settings(
        database_url=database_url,
        admin_token=ADMIN_TOKEN,  # type: ignore[arg-type]
        redis_url=redis_url,
        redis_channel=backplane_channel(),
        # the backplane's own connections wait for the test's whole length: only the
        # rate limits' waits are what the mute stand-in counts as given up
        redis_socket_timeout=600,
        redis_connect_timeout=600,
        rate_limit_key_prefix=f"test-{uuid.uuid4().hex}",
        **more,
    )


@pytest.fixture
def server_away(
    database_url: str, away: tuple[str, SilentRedis | None]
) -> Iterator[tuple[TestClient, Settings]]:
    url, _ = away
    settings = _settings_with_redis_away(database_url, url)
    with TestClient(create_app(settings), client=(GUESSER, 40000)) as client:
        yield client, settings


def test_eight_wrong_codes_then_the_right_one_is_refused_while_redis_is_away(
    server_away: tuple[TestClient, Settings],
    store: TournamentStore,
    away: tuple[str, SilentRedis | None],
) -> None:
    """rule CI-4, as seen: 8 wrong codes and then the right one answered 200."""
    client, settings = server_away
    _, mute = away
    tid = store.import_log(club_opening()).tournament_id
    url = f"/api/tournaments/{tid}/check-in"

    def code(player: str) -> str:
        return shown_code(check_in_code(settings.check_in_key, tid, 1, player))

    statuses = [
        client.post(url, json={"player": "ami", "code": code("bo")}).status_code for _ in range(8)
    ]
    right = client.post(url, json={"player": "ami", "code": code("ami")})

    assert statuses == [422] * 5 + [429] * 3
    assert right.status_code == 429, right.text
    assert right.json()["field"] == "code"
    assert "SCOREBOARD_CHECKIN_FAILURES_PER_PLAYER" in right.json()["detail"]
    if mute is not None:
        assert mute.given_up() == 1  # one wait of 0.25 s, not one on every check-in


def test_writes_are_counted_in_memory_while_redis_is_away(
    database_url: str, store: TournamentStore, away: tuple[str, SilentRedis | None]
) -> None:
    """Before: the write that found Redis away was not counted."""
    url, mute = away
    settings = _settings_with_redis_away(database_url, url, writes_per_token="3/minute")
    setup = open_tournament(store, club_opening(), (1,))
    with TestClient(create_app(settings), client=(GUESSER, 40000)) as tablet:
        statuses = [
            tablet.post(
                setup.url("hands"),
                json=hand(1, number, self_draw("ami", 8)),
                headers=setup.headers(1, key=f"h{number}"),
            ).status_code
            for number in range(1, 5)
        ]
        if mute is not None:  # while the server runs: its shutdown closes its own
            assert mute.given_up() == 1

    assert statuses == [201, 201, 201, 429]
