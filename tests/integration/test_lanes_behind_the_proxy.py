"""The lanes behind the proxy (issue 32), as compose.yaml runs them: Caddy with
deploy/Caddyfile in front of a `scoreboard serve --role judges` and a `--role public`
process, on one PostgreSQL and one Redis.

Through the proxy's one address: a judge's hand, the organizer's console and the tablet's
page reach the judges' process, and never the public's; every public read reaches the
public's process, and never the judges'; a hand entered through the judges' lane reaches
the public's answers and feed; and the public process runs at the nice value the settings
give it, below the judges'."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, select
from websockets.asyncio.client import connect

from app.db.engine import make_engine
from app.db.tables import ServerProcessRow
from app.services.store import TournamentStore
from bench.load import RoundOne, free_port, hand_headers, hands_url, in_own_schema
from bench.proxy import Proxy, proxy_in_front_of
from tests.integration.conftest import postgres_url
from tests.integration.live_setup import (
    ADMIN_TOKEN,
    LiveServer,
    Tournament,
    open_tournament,
    redis_url,
    with_database_number,
)
from tests.integration.test_live_backplane import organizer_store
from tests.integration.test_production_set import require_caddy


@dataclass
class Lanes:
    proxy: Proxy
    judges: LiveServer
    public: LiveServer
    tournament: Tournament
    generated: RoundOne
    database_url: str


@pytest.fixture(scope="module")
def lanes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lanes]:
    require_caddy()
    tmp_path = tmp_path_factory.mktemp("lanes")
    database_url = in_own_schema(postgres_url(), "lanes")
    stores = organizer_store(database_url)
    store: TournamentStore = next(stores)
    generated = RoundOne.generate(players=16, seed=32)
    tournament = open_tournament(store, generated.setup_lines, generated.tables)
    redis = with_database_number(redis_url(), 6)
    judges = LiveServer(
        database_url, free_port(), tmp_path / "judges.log", redis, ["--role", "judges"]
    )
    public = LiveServer(
        database_url, free_port(), tmp_path / "public.log", redis, ["--role", "public"]
    )
    try:
        judges.start()
        public.start()
        with proxy_in_front_of([judges.port], tmp_path / "caddy", [public.port]) as proxy:
            yield Lanes(proxy, judges, public, tournament, generated, database_url)
    finally:
        public.stop()
        judges.stop()
        stores.close()


def served(server: LiveServer, method: str, path: str) -> bool:
    """Whether the process's access log holds a line of this request."""
    line = re.compile(rf'"{method} {re.escape(path)} HTTP/[0-9.]+" \d+')
    return line.search(server.log_path.read_text(errors="replace")) is not None


def eventually(condition: object, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.05)
    return False


def test_each_request_reaches_the_process_of_its_lane(lanes: Lanes) -> None:
    proxy, tid = lanes.proxy, lanes.tournament.tid
    first = lanes.generated.hands[lanes.generated.tables[0]][0]
    table = first["table"]
    with httpx.Client(base_url=proxy.base_url, verify=proxy.tls(), timeout=10) as http:
        entered = http.post(
            hands_url("", tid),
            json=first,
            headers=hand_headers(lanes.tournament.tokens[table], "l1"),
        )
        assert entered.status_code == 201, entered.text
        admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        judges_reads = ["/judge", "/admin", f"/api/tournaments/{tid}/tokens", f"/head-judge/{tid}"]
        for path in judges_reads:
            answer = http.get(path, headers=admin)
            assert answer.status_code != 421, (path, answer.text)  # never the public's
        public_reads = [
            f"/api/tournaments/{tid}/standings",
            f"/hall/{tid}",
            f"/feeds/{tid}/standings.json",
            f"/overlay/{tid}/top",
            "/",
        ]
        for path in public_reads:
            assert http.get(path).status_code == 200, path
        # the hand, through the judges' lane, is in the public lane's answer
        standings = http.get(f"/api/tournaments/{tid}/standings").json()
        assert standings["version"] >= entered.json()["version"]
    hands = f"/api/tournaments/{tid}/hands"
    assert eventually(lambda: served(lanes.judges, "POST", hands))
    assert not served(lanes.public, "POST", hands)
    for path in judges_reads:
        assert eventually(lambda path=path: served(lanes.judges, "GET", path)), path
        assert not served(lanes.public, "GET", path), path
    for path in public_reads:
        assert eventually(lambda path=path: served(lanes.public, "GET", path)), path
        assert not served(lanes.judges, "GET", path), path


def test_a_hand_reaches_the_public_lanes_feed(lanes: Lanes) -> None:
    """The public process hears of the judges' commits through Redis, as several processes'
    feeds do: a phone following the standings on the public lane gets the hand at once."""
    proxy, tid = lanes.proxy, lanes.tournament.tid
    second = lanes.generated.hands[lanes.generated.tables[1]][0]

    async def scenario() -> None:
        async with connect(proxy.ws_url(tid, "standings"), ssl=proxy.tls()) as phone:
            snapshot = None
            while snapshot is None:
                message = json.loads(await asyncio.wait_for(phone.recv(), 10))
                snapshot = message if message["type"] == "snapshot" else None
            async with httpx.AsyncClient(
                base_url=proxy.base_url, verify=proxy.tls(), timeout=10
            ) as http:
                token = lanes.tournament.tokens[second["table"]]
                entered = await http.post(
                    hands_url("", tid), json=second, headers=hand_headers(token, "l2")
                )
                assert entered.status_code == 201, entered.text
                version = entered.json()["version"]
            while True:
                message = json.loads(await asyncio.wait_for(phone.recv(), 10))
                if message["type"] == "change" and message["version"] >= version:
                    return

    asyncio.run(scenario())


@pytest.fixture(scope="module")
def public_entry(lanes: Lanes, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    """The public's entry beside the staff's (the lanes' proxy), as compose.yaml runs them
    where the staff have an entry of their own: the same processes, one certificate
    authority."""
    folder = tmp_path_factory.mktemp("public-entry")
    with proxy_in_front_of(
        [lanes.judges.port], folder, [lanes.public.port], entry="public", beside=lanes.proxy
    ) as proxy:
        yield proxy


def test_the_public_entry_passes_on_no_request_of_the_staff(
    lanes: Lanes, public_entry: Proxy
) -> None:
    """Beside a staff's entry, the public's answers every request of the judges' lane 421
    itself, names the staff's address, and stores nothing; the public's reads and a player's
    check-in go through. Both entries show one certificate authority, so a tablet that
    trusts one trusts the other."""
    tid, staff = lanes.tournament.tid, lanes.proxy
    assert public_entry.root == staff.root
    hand = lanes.generated.hands[lanes.generated.tables[3]][0]
    token = lanes.tournament.tokens[hand["table"]]
    standings = f"/api/tournaments/{tid}/standings"
    with httpx.Client(
        base_url=public_entry.base_url, verify=public_entry.tls(), timeout=10
    ) as http:
        before = http.get(standings)
        assert before.status_code == 200, before.text
        refused = http.post(hands_url("", tid), json=hand, headers=hand_headers(token, "e1"))
        assert refused.status_code == 421, refused.text
        assert refused.json()["field"] == "path"
        assert staff.base_url in refused.json()["detail"]
        upload = http.post(
            f"/api/tournaments/{tid}/players",
            content=b"x" * (4 * 1024 * 1024),
            headers={"Content-Type": "application/json"},
        )
        assert upload.status_code == 421
        for path in ["/judge", "/admin", f"/head-judge/{tid}", f"/api/tournaments/{tid}/tokens"]:
            assert http.get(path).status_code == 421, path
        check_in = http.post(
            f"/api/tournaments/{tid}/check-in", json={"player": "nobody", "code": "AAA-AAAA"}
        )
        assert check_in.status_code not in (421, 502), check_in.text  # the app's own answer
        assert http.get(standings).json()["version"] == before.json()["version"]
    assert eventually(lambda: served(lanes.judges, "POST", f"/api/tournaments/{tid}/check-in"))
    assert not served(lanes.judges, "POST", f"/api/tournaments/{tid}/players")
    # the same hand, through the staff's entry: stored once, as new
    with httpx.Client(base_url=staff.base_url, verify=public_entry.tls(), timeout=10) as http:
        entered = http.post(hands_url("", tid), json=hand, headers=hand_headers(token, "e1"))
        assert entered.status_code == 201, entered.text


def nice_of(pid: int) -> int:
    """The process's nice value (proc(5): the 19th field of /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[16])


def test_the_public_process_yields_the_cpu_to_the_judges(lanes: Lanes) -> None:
    assert lanes.judges.process is not None and lanes.public.process is not None
    judges, public = nice_of(lanes.judges.process.pid), nice_of(lanes.public.process.pid)
    assert public - judges == 10  # SCOREBOARD_PUBLIC_NICE
    assert "runs at nice" in lanes.public.log


def test_the_public_process_writes_nothing_to_the_database(lanes: Lanes) -> None:
    """Every process kept a heartbeat row (issue 14), written every second. In a public
    process, at nice 10 and busy with whatever the public asks, that write was the public
    lane's one hold on the database's write lock, which every hand needs: it lasted until the
    process was given the CPU again. (bench/hostile.py, the lanes beside every attack at
    once, once in seven runs: the hands waited 34 s and were answered 503. That run's logs
    were not kept, so this write is the suspect, not the proven cause.) A public process
    serves no write and claims no hand: it keeps no row, and never takes the write lock."""
    assert lanes.judges.process is not None and lanes.public.process is not None
    engine = make_engine(lanes.database_url)
    try:
        with Session(engine) as session:
            pids = {row.pid for row in session.exec(select(ServerProcessRow)).all()}
    finally:
        engine.dispose()
    assert lanes.judges.process.pid in pids  # its claims are released at once if it dies
    assert lanes.public.process.pid not in pids


def test_a_lane_without_redis_is_refused_at_start(tmp_path: Path) -> None:
    """A lane's process hears of the other lane's commits through Redis: without it, it
    would serve a public lane that never moves."""
    server = LiveServer(
        f"sqlite:///{tmp_path / 'scoreboard.db'}",
        free_port(),
        tmp_path / "public.log",
        options=["--role", "public"],
    )
    with pytest.raises(RuntimeError, match="exited with 2"):
        server.start()
    assert "--role public needs SCOREBOARD_REDIS_URL" in server.log_path.read_text()
    assert os.environ.get("SCOREBOARD_ROLE") is None


def test_an_upload_refused_before_it_is_read_leaves_the_judges_lane_open(lanes: Lanes) -> None:
    """Seen by bench/hostile.py (issue 32): a 16 MiB player list without the admin token,
    refused by the judges' process before it reads the body, ended the proxy's request
    early; Caddy took that for the process failing and left it out for 10 s, every hand
    meanwhile answered 503, and the uploader got the proxy's 502 for its 401. The proxy now
    leaves that to its health check, and the process reads the rest of the body it refused
    (dropping it) until the proxy has the answer (HttpProtocol.linger)."""
    proxy, tid = lanes.proxy, lanes.tournament.tid
    table = lanes.generated.tables[2]
    upload = b"[" + b'{"id":"Z1","name":"' + b"z" * (16 * 1024 * 1024) + b'","group":"A"}]'
    with httpx.Client(base_url=proxy.base_url, verify=proxy.tls(), timeout=30) as http:
        for _ in range(3):
            # the process's own answer, through the proxy: never the proxy's 502
            refused = http.post(f"/api/tournaments/{tid}/players", content=upload)
            assert refused.status_code in (401, 429), refused.text
        hand = lanes.generated.hands[table][0]
        entered = http.post(
            hands_url("", tid),
            json=hand,
            headers=hand_headers(lanes.tournament.tokens[table], "l3"),
        )
        assert entered.status_code == 201, entered.text
