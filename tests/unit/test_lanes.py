"""Which lane a request takes (issue 32; app/web/lanes.py), and the proxy's copy of the rule."""

from __future__ import annotations

import inspect
import re
import subprocess
from pathlib import Path

import pytest
import uvicorn
import yaml
from app_routes import api_routes, calls

from app.web import create_app
from app.web.lanes import (
    _JUDGES_READS,
    _PLAYERS_WRITES,
    JUDGES,
    PUBLIC,
    lane_of,
    public_entry_passes,
)

CADDYFILE = Path(__file__).parents[2] / "deploy" / "Caddyfile"


@pytest.mark.parametrize(
    ("method", "path", "lane"),
    [
        # every write is the judges', whoever sends it (a token guess, a player's check-in)
        ("POST", "/api/tournaments/1/hands", JUDGES),
        ("POST", "/api/tournaments/1/corrections", JUDGES),
        ("POST", "/api/tournaments/1/deals", JUDGES),
        ("POST", "/api/tournaments/1/players", JUDGES),
        ("POST", "/api/tournaments/import", JUDGES),
        ("POST", "/api/tournaments/1/check-in", JUDGES),
        ("POST", "/p/P0001/check-in", JUDGES),
        ("DELETE", "/api/tournaments/1/tokens/3", JUDGES),
        ("PUT", "/anything", JUDGES),
        # the judges', the head judge's, the scorer's and the organizer's own reads
        ("GET", "/judge", JUDGES),
        ("GET", "/judge/sw.js", JUDGES),
        ("GET", "/judge/whoami", JUDGES),
        ("GET", "/admin", JUDGES),
        ("GET", "/admin/1/results.csv", JUDGES),
        ("GET", "/head-judge/1", JUDGES),
        ("GET", "/scorer/1", JUDGES),
        ("GET", "/metrics", JUDGES),
        ("GET", "/api/tournaments/1/tokens", JUDGES),
        ("GET", "/api/tournaments/1/calls", JUDGES),
        ("GET", "/api/tournaments/1/check-ins", JUDGES),
        ("GET", "/api/tournaments/1/sheets/1/1/3", JUDGES),
        ("GET", "/api/tournaments/1/ema.csv", JUDGES),
        ("GET", "/api/tournaments/1/ema/missing", JUDGES),
        ("GET", "/api/tournaments/1/hands.csv", JUDGES),
        # what the public reads
        ("GET", "/", PUBLIC),
        ("GET", "/search", PUBLIC),
        ("GET", "/p/P0001", PUBLIC),
        ("GET", "/p/P0001/check-in", PUBLIC),
        ("GET", "/hall/1", PUBLIC),
        ("GET", "/overlay/1/top", PUBLIC),
        ("GET", "/feeds/1/standings.json", PUBLIC),
        ("GET", "/api/tournaments/1/standings", PUBLIC),
        ("GET", "/api/tournaments/1/log", PUBLIC),
        ("GET", "/api/tournaments/1/players/P0001", PUBLIC),
        ("GET", "/ws/tournaments/1", PUBLIC),
        ("GET", "/static/live.js", PUBLIC),
        ("HEAD", "/api/tournaments/1/standings", PUBLIC),
        ("GET", "/api/health", PUBLIC),
        # a name that only starts like a judges' page is the public's
        ("GET", "/judges", PUBLIC),
        ("GET", "/administrator", PUBLIC),
        ("GET", "/api/tournaments/1/tokenless", PUBLIC),
    ],
)
def test_a_request_takes_its_lane(method: str, path: str, lane: str) -> None:
    assert lane_of(method, path) == lane


CREDENTIALS = {"require_admin", "require_judge", "require_head_judge", "require_metrics_reader"}


def test_every_route_that_needs_a_credential_is_in_the_judges_lane() -> None:
    """A route a judge's, the head judge's, the organizer's or the metrics' token opens is
    the judges' lane, whatever its method: a public process would refuse it (421), and the
    proxy must send it to the judges. Held over the app's own routes, so a new one has its
    lane from the start."""
    app = create_app()
    checked = 0
    for route in api_routes(app.routes):
        if not CREDENTIALS & {getattr(call, "__name__", "") for call in calls(route.dependant)}:
            continue
        for method in route.methods:
            assert lane_of(method, route.path) == JUDGES, (method, route.path)
            checked += 1
    assert checked > 40  # every admin, judge and head-judge route was looked at


def test_the_proxy_routes_by_the_same_pattern() -> None:
    """deploy/Caddyfile's public matcher holds app/web/lanes.py's pattern character for
    character: the proxy and a public process agree on every path."""
    caddyfile = CADDYFILE.read_text()
    assert f"not path_regexp ^({_JUDGES_READS.pattern})$" in caddyfile
    assert "method GET HEAD OPTIONS" in caddyfile


def test_the_proxy_lets_go_of_an_idle_connection_before_a_process_does() -> None:
    """A judge's hand sent by the proxy down a connection the process is closing, idle, at
    that instant is answered 502, and a POST is never sent again (bench/hostile.py: the
    first hand after five quiet seconds). Caddy's `keepalive` is that wait on its side."""
    process_waits = inspect.signature(uvicorn.Config).parameters["timeout_keep_alive"].default
    proxy_waits = re.findall(r"^\s*keepalive (\d+)s\s*$", CADDYFILE.read_text(), re.MULTILINE)
    assert proxy_waits, "deploy/Caddyfile sets no upstream keepalive (Caddy's default: 2m)"
    assert all(int(seconds) < process_waits for seconds in proxy_waits), (
        proxy_waits,
        process_waits,
    )


# -- the public's entry beside a staff's entry of their own (issue 32) ----------------------------


@pytest.mark.parametrize(
    ("method", "path", "passes"),
    [
        # the public's reads
        ("GET", "/hall/1", True),
        ("GET", "/ws/tournaments/1", True),
        ("GET", "/p/P0001/check-in", True),
        # a player's own check-in, with the slip's code (rules CI-1, CI-4)
        ("POST", "/p/P0001/check-in", True),
        ("POST", "/api/tournaments/1/check-in", True),
        # the staff's: never passed on from the public's Wi-Fi
        ("POST", "/api/tournaments/1/hands", False),
        ("POST", "/api/tournaments/1/players", False),
        ("POST", "/api/tournaments/import", False),
        ("POST", "/api/tournaments/1/check-ins", False),  # the desk's, with the admin token
        ("PUT", "/p/P0001/check-in", False),
        ("POST", "/p/P0001/check-in/more", False),
        ("GET", "/judge", False),
        ("GET", "/admin", False),
        ("GET", "/metrics", False),
    ],
)
def test_the_public_entry_passes_on_the_publics_reads_and_a_players_check_in(
    method: str, path: str, passes: bool
) -> None:
    assert public_entry_passes(method, path) is passes


def test_every_write_without_a_credential_passes_the_public_entry() -> None:
    """A write that no token opens is a player's own: the public's entry must pass it on, or a
    player could not do it from the hall's Wi-Fi. Held over the app's routes, so a new one is
    seen at once."""
    app = create_app()
    open_writes = [
        (method, route.path)
        for route in api_routes(app.routes)
        if not CREDENTIALS & {getattr(call, "__name__", "") for call in calls(route.dependant)}
        for method in route.methods
        if method not in ("GET", "HEAD", "OPTIONS")
    ]
    assert open_writes, "no write without a credential found: the walk over the routes is wrong"
    for method, path in open_writes:
        concrete = re.sub(r"\{[^}]+\}", "1", path)
        assert public_entry_passes(method, concrete), (method, path)


def test_the_public_entry_of_the_proxy_passes_the_same_writes() -> None:
    """deploy/Caddyfile's `entry_public` holds app/web/lanes.py's players' writes character
    for character, and the site imports the entry the environment names, everyone's by
    default."""
    caddyfile = CADDYFILE.read_text()
    assert f"path_regexp ^({_PLAYERS_WRITES.pattern})$" in caddyfile
    assert "import entry_{$SCOREBOARD_ENTRY:everyone}" in caddyfile
    assert "(entry_everyone) {" in caddyfile and "(entry_public) {" in caddyfile


@pytest.mark.parametrize(
    ("environment", "entry"),
    [
        ({}, "everyone"),  # one proxy for every audience, as before
        ({"SCOREBOARD_STAFF_URL": ""}, "everyone"),
        ({"SCOREBOARD_STAFF_URL": "https://10.0.20.1"}, "public"),
        ({"SCOREBOARD_STAFF_URL": "https://10.0.20.1", "SCOREBOARD_ENTRY": "everyone"}, "everyone"),
    ],
)
def test_compose_runs_the_public_entry_once_the_staff_have_theirs(
    environment: dict[str, str], entry: str
) -> None:
    """compose.yaml's proxies run one script: the public's proxy takes the public's entry
    when SCOREBOARD_STAFF_URL names the staff's; the staff's proxy sets `everyone` itself.
    The script as compose hands it to sh (`$$` is a `$`), Caddy's start replaced by a print."""
    compose = yaml.safe_load((CADDYFILE.parents[1] / "compose.yaml").read_text())
    script = compose["services"]["caddy"]["command"][2].replace("$$", "$")
    assert script.rstrip().endswith(
        "exec caddy run --config /etc/caddy/Caddyfile --adapter caddyfile"
    )
    script = script.replace("exec caddy run", 'echo "$SCOREBOARD_ENTRY" #')
    shown = subprocess.run(
        ["sh", "-c", script],
        env={
            "PATH": "/usr/bin:/bin",
            "SCOREBOARD_JUDGES_PROCESSES": "1",
            "SCOREBOARD_PUBLIC_PROCESSES": "2",
            **environment,
        },
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.strip() == entry
    staff = compose["services"]["caddy-staff"]
    assert staff["command"] == compose["services"]["caddy"]["command"]
    assert staff["environment"]["SCOREBOARD_ENTRY"] == "everyone"
