"""What each `scoreboard` command loads (issue 15): `--help` and the offline commands start
with Typer and the domain; the web app, uvicorn, SQLAlchemy and Alembic come only with the
commands that use them. A real process each time, whose `sys.modules` is read at its end: no
timing, so the test says the same on a loaded machine as on a quiet one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLUB = ROOT / "examples" / "club.jsonl"

# Run the command line as `python -m app.cli` does (or, without arguments, only import it, as
# the entry point's `from app.cli import main` does), then print what the process imported.
# Typer ends every command with SystemExit, even a successful one.
DRIVER = """
import json, runpy, sys
code = 0
if len(sys.argv) > 1:
    sys.argv = ["scoreboard", *sys.argv[1:]]
    try:
        runpy.run_module("app.cli", run_name="__main__", alter_sys=True)
    except SystemExit as done:
        code = done.code
else:
    import app.cli
sys.stderr.write("\\nMODULES " + json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

WEB = ("fastapi", "starlette", "uvicorn", "app.web")
DATABASE = (
    "sqlalchemy",
    "sqlmodel",
    "alembic",
    "app.db.engine",
    "app.db.queries",
    "app.db.tables",
    "app.services",
)
PRINTOUTS = ("jinja2", "segno", "redis", "pydantic_settings")
# Typer's rich help and errors: rich's console, tables and markdown cost more than the rest of
# `scoreboard --help` together, so the command line prints plain help.
RICH = ("rich", "typer.rich_utils")


def loaded(*args: str, env: dict[str, str] | None = None, code: int = 0) -> set[str]:
    """The modules a `scoreboard` process had imported by the time it ended (with `code`)."""
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )
    _, marker, report = done.stderr.rpartition("\nMODULES ")
    assert marker, done.stderr
    result = json.loads(report)
    assert result["code"] == code, done.stderr
    return set(result["modules"])


def among(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    """The packages of `packages` (or modules inside them) that were imported."""
    return sorted(
        name for name in packages if any(m == name or m.startswith(name + ".") for m in modules)
    )


pytestmark = pytest.mark.slow


def test_importing_the_command_line_loads_neither_the_web_app_nor_the_database() -> None:
    modules = loaded()

    assert among(modules, WEB + DATABASE + PRINTOUTS) == []
    assert "typer" in modules  # the parser itself, so the probe looks at the right process


@pytest.mark.parametrize("command", [["--help"], ["replay", "--help"], ["token", "--help"]])
def test_help_loads_neither_the_web_app_nor_the_database(command: list[str]) -> None:
    modules = loaded(*command)

    assert among(modules, WEB + DATABASE + PRINTOUTS + RICH) == []


def test_a_usage_error_is_printed_without_rich() -> None:
    modules = loaded("replay", code=2)  # its log is missing: a usage error

    assert among(modules, RICH) == []


def test_replay_loads_the_domain_and_nothing_of_the_server() -> None:
    modules = loaded("replay", str(CLUB))

    assert among(modules, WEB + DATABASE + PRINTOUTS) == []
    assert "app.domain.replay" in modules


def test_the_database_commands_never_load_the_web_app(tmp_path: Path) -> None:
    env = {**os.environ, "SCOREBOARD_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}"}

    modules = loaded("import", str(CLUB), env=env)

    assert among(modules, WEB) == []
    assert "sqlalchemy" in modules  # it did reach the database


def test_slips_load_the_printouts_and_the_settings_but_no_server(tmp_path: Path) -> None:
    # The address comes from the settings, so they are read too (pydantic-settings).
    env = {**os.environ, "SCOREBOARD_PUBLIC_URL": "http://192.168.1.10:8000"}

    modules = loaded("slips", str(CLUB), "--round", "1", "--out", str(tmp_path), env=env)

    assert among(modules, WEB + DATABASE) == []
    assert {"segno", "jinja2", "pydantic_settings"} <= modules
    assert (tmp_path / "slips-round-1.html").is_file()
