"""The two lanes of the server (issue 32): the judges' and the public's.

The judges' lane is every write (a hand, a correction, a deal, a call, an admin's action, a
player's check-in) and every page and read of the judges, the head judge, the scorer and the
organizer. The public lane is everything else: what a spectator's phone, a hall screen or a
TV graphic reads, the live feed included. Nothing an anonymous client can make expensive is
in the judges' lane but what a credential or a rate limit refuses at once (a bad token, a
body too large, a wrong check-in code).

One `scoreboard serve` serves both; its public work is bounded so that it cannot hold up a
judge (app/web/public_answers.py). Behind the proxy the lanes are served by processes of
their own (`scoreboard serve --role judges|public`): deploy/Caddyfile routes each request by
the same rule as `lane_of` (tests/unit/test_lanes.py holds its pattern to ours, and
tests/integration/test_lanes_behind_the_proxy.py its routing).
"""

from __future__ import annotations

import re
from typing import Literal

from starlette.types import ASGIApp, Receive, Scope, Send

from app.domain.errors import say
from app.realtime.turns import JudgesFirst
from app.web.guards import _problem

Lane = Literal["judges", "public"]
JUDGES: Lane = "judges"
PUBLIC: Lane = "public"

# A `--role public` process serves the public lane only; `judges` and `all` serve both (a
# judges' process answers whatever the proxy sends it; all its public work is bounded too).
Role = Literal["all", "judges", "public"]
ROLES: tuple[Role, ...] = ("all", "judges", "public")

READS = frozenset({"GET", "HEAD", "OPTIONS"})

# The judges' reads: their pages (the tablet, the console, the head judge's desk, the
# scorer's screen) and the API reads only a credential opens. Keep deploy/Caddyfile's
# `@public` matcher the same (tests/unit/test_lanes.py).
_JUDGES_READS = re.compile(
    r"/(judge|admin|head-judge|scorer)(/.*)?"
    r"|/metrics"
    r"|/api/tournaments/[^/]+/(tokens|calls|check-ins|sheets|ema|ema\.csv|ema-ids|hands\.csv)"
    r"(/.*)?"
)


# The one write of the public's own (a player's check-in with the slip's code, rules CI-1 and
# CI-4): where the staff have an entry of their own, the public's entry passes this write on to
# the judges' lane and answers every other request of that lane 421 itself. Keep
# deploy/Caddyfile's `@players_writes` matcher the same (tests/unit/test_lanes.py).
_PLAYERS_WRITES = re.compile(r"/p/[^/]+/check-in|/api/tournaments/[^/]+/check-in")


def public_entry_passes(method: str, path: str) -> bool:
    """Whether the public's entry, beside a staff's entry, passes a request on: the public's
    reads, and a player's own check-in (deploy/Caddyfile, `entry_public`)."""
    if lane_of(method, path) == PUBLIC:
        return True
    return method == "POST" and _PLAYERS_WRITES.fullmatch(path) is not None


def lane_of(method: str, path: str) -> Lane:
    """The lane of a request: every write is the judges', and so are their own reads."""
    if method not in READS or _JUDGES_READS.fullmatch(path) is not None:
        return JUDGES
    return PUBLIC


def public_only(app: ASGIApp) -> ASGIApp:
    """A `--role public` process: a request of the judges' lane is answered 421 (Misdirected
    Request), never served, so that a proxy set up wrong shows at once, and no write, no
    judge's page and no organizer's action is ever served where the public's load is."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and lane_of(scope["method"], scope["path"]) == JUDGES:
            for message in _problem(
                421,
                say(
                    "this server process serves the public lane only (SCOREBOARD_ROLE=public): "
                    "the proxy sends the judges' requests to the judges' processes "
                    "(deploy/Caddyfile)"
                ),
                field="path",
            ):
                await send(message)
            return
        await app(scope, receive, send)

    return guarded


def judges_first(app: ASGIApp, judges: JudgesFirst) -> ASGIApp:
    """Each request of the judges' lane counted in flight until it is answered, for this
    process's public work to wait for (app/realtime/turns.py)."""

    async def counting(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or lane_of(scope["method"], scope["path"]) != JUDGES:
            await app(scope, receive, send)
            return
        judges.begin()
        try:
            await app(scope, receive, send)
        finally:
            judges.end()

    return counting
