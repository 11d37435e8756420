import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from app.settings import Settings
from app.web import create_app
from bench.load import stop_process

PACKAGE_VERSION = version("wsom-scoreboard")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path / 'scoreboard.db'}")


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:  # `with` runs the lifespan
        yield client


def test_health_answers_ok_with_the_package_version(client: TestClient) -> None:
    response = client.get("/api/health")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "version": PACKAGE_VERSION}


def test_openapi_describes_health(client: TestClient) -> None:
    response = client.get("/openapi.json")

    assert response.status_code == 200
    document = response.json()
    assert "/api/health" in document["paths"]
    assert document["info"]["version"] == PACKAGE_VERSION


def test_lifespan_hands_the_settings_to_requests(client: TestClient, settings: Settings) -> None:
    assert client.app_state["settings"] is settings


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def scoreboard_executable() -> str:
    """The console script installed beside this interpreter (not a pyenv shim)."""
    beside = Path(sys.executable).with_name("scoreboard")
    found = str(beside) if beside.exists() else shutil.which("scoreboard")
    assert found, "the `scoreboard` console script is not installed: pip install -e '.[test]'"
    return found


@pytest.mark.slow
def test_scoreboard_serve_answers_health_over_http(tmp_path: Path) -> None:
    port = free_port()
    env = {name: value for name, value in os.environ.items() if not name.startswith("SCOREBOARD_")}
    env["SCOREBOARD_DATABASE_URL"] = f"sqlite:///{tmp_path / 'scoreboard.db'}"
    log_path = tmp_path / "server.log"

    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [scoreboard_executable(), "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            response = wait_for_health(f"http://127.0.0.1:{port}/api/health", server)
        finally:
            stop_process(server)

    assert response is not None, f"server never answered:\n{log_path.read_text()}"
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "version": PACKAGE_VERSION}


def wait_for_health(url: str, server: subprocess.Popen[bytes]) -> httpx.Response | None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and server.poll() is None:
        try:
            return httpx.get(url, timeout=2)
        except httpx.TransportError:
            time.sleep(0.1)
    return None
