"""Caddy with deploy/Caddyfile in front of `scoreboard serve` processes, as compose.yaml runs
it: HTTPS on one address with a certificate of its own, websockets balanced over the
processes. The production set's test (tests/integration/test_production_set.py) and the
fan-out benchmark's scale runs (bench/fanout.py, `--processes`) start it the same way, on
free ports, its data in a folder of theirs. Debian's package `caddy` provides it."""

from __future__ import annotations

import contextlib
import os
import shutil
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.load import HOST, ROOT, free_port, stop_process

CADDYFILE = ROOT / "deploy" / "Caddyfile"
READY_WITHIN = 30.0  # seconds for the proxy's first health checks and certificate


def caddy() -> str | None:
    return shutil.which("caddy")


@dataclass
class Proxy:
    """Caddy in front of the processes, on free ports, its data in the caller's folder."""

    process: subprocess.Popen[bytes]
    port: int
    root: Path  # its certificate authority's root, which the clients trust

    @property
    def base_url(self) -> str:
        return f"https://{HOST}:{self.port}"

    def ws_url(self, tid: int, channels: str) -> str:
        return f"wss://{HOST}:{self.port}/ws/tournaments/{tid}?channels={channels}"

    def tls(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.root))


def ready_through(proxy: Proxy, timeout: float = 10.0) -> httpx.Response:
    """/api/ready through the proxy on a connection of its own: any process may answer."""
    with httpx.Client(base_url=proxy.base_url, verify=proxy.tls(), timeout=timeout) as fresh:
        return fresh.get("/api/ready")


@contextlib.contextmanager
def proxy_in_front_of(
    ports: list[int],
    folder: Path,
    public_ports: list[int] | None = None,
    nice: int = 0,
    entry: str = "everyone",
    beside: Proxy | None = None,
) -> Iterator[Proxy]:
    """Caddy in front of the processes on `ports`, once it answers /api/ready through them.
    With `public_ports`, the public lane goes to those and the judges' lane to `ports`
    (deploy/Caddyfile, issue 32); without, every request may go to any of `ports`. With
    `nice`, Caddy runs at that nice value (nice(1)). `entry` is deploy/Caddyfile's
    SCOREBOARD_ENTRY: "public" for the public's entry `beside` the staff's (the proxy already
    running), whose certificate authority it shares, as compose.yaml's two proxies do."""
    program = caddy()
    if program is None:
        raise RuntimeError("no caddy on this machine (Debian's package `caddy`)")
    https_port, http_port = free_port(), free_port()
    # the certificate authority lives in the data folder: a proxy beside another uses its
    data = folder / "data" if beside is None else beside.root.parents[4]
    env = {
        **os.environ,
        "HOME": str(folder),
        "XDG_DATA_HOME": str(data),
        "XDG_CONFIG_HOME": str(folder / "config"),
        "SCOREBOARD_ENTRY": entry,
        **({} if beside is None else {"SCOREBOARD_STAFF_URL": beside.base_url}),
        "SCOREBOARD_SITE": HOST,
        "SCOREBOARD_HTTPS_PORT": str(https_port),
        "SCOREBOARD_HTTP_PORT": str(http_port),
        "SCOREBOARD_JUDGES_UPSTREAMS": " ".join(f"{HOST}:{port}" for port in ports),
        "SCOREBOARD_PUBLIC_UPSTREAMS": " ".join(
            f"{HOST}:{port}" for port in (ports if public_ports is None else public_ports)
        ),
        # the health check every half second with 1 s to answer, not 2 s and 3 s: the same
        # check, a shorter wait
        "SCOREBOARD_HEALTH_INTERVAL": "500ms",
        "SCOREBOARD_HEALTH_TIMEOUT": "1s",
    }
    folder.mkdir(parents=True, exist_ok=True)
    log_path = folder / "caddy.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                *(["nice", "-n", str(nice)] if nice else []),
                *[program, "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    root = data / "caddy" / "pki" / "authorities" / "local" / "root.crt"
    proxy = Proxy(process, https_port, root)
    try:
        deadline = time.monotonic() + READY_WITHIN
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"caddy exited: {log_path.read_text()}")
            with contextlib.suppress(httpx.TransportError, OSError):
                if root.exists() and ready_through(proxy).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"caddy not ready in {READY_WITHIN} s: {log_path.read_text()}")
            time.sleep(0.2)
        yield proxy
    finally:
        stop_process(process)
