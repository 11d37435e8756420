import re
from typing import Any

import pytest
import typer
import uvicorn
from typer.testing import CliRunner

from app.cli import cli
from app.settings import get_settings
from app.web import addresses

runner = CliRunner()
# Unset: the test's own environment must not choose the address or the host.
CLEAN: dict[str, str | None] = {"SCOREBOARD_PUBLIC_URL": None, "SCOREBOARD_HOST": None}


def test_help_lists_serve_among_the_commands() -> None:
    result = runner.invoke(cli, ["--help"], prog_name="scoreboard")

    assert result.exit_code == 0, result.output
    assert "Usage: scoreboard [OPTIONS] COMMAND" in result.output
    assert "Commands" in result.output
    assert re.search(r"^\W*serve\s", result.output, re.MULTILINE), result.output


def test_help_lists_every_command_with_its_whole_first_sentence() -> None:
    """Plain help cuts a command's line at about 45 characters with "...": each docstring
    opens with a sentence short enough to be listed whole."""
    result = runner.invoke(cli, ["--help"], prog_name="scoreboard", terminal_width=80)
    listed = result.output.partition("Commands:")[2].splitlines()

    names = [command.name for command in typer.main.get_command(cli).commands.values()]
    for name in names:
        (line,) = [line for line in listed if line.split()[:1] == [name]]
        assert line.rstrip().endswith(".") and "..." not in line, line


def test_serve_help_offers_host_and_port() -> None:
    result = runner.invoke(cli, ["serve", "--help"], prog_name="scoreboard")

    assert result.exit_code == 0, result.output
    assert "Usage: scoreboard serve [OPTIONS]" in result.output
    assert "--host" in result.output
    assert "--port" in result.output


def test_serve_refuses_unsafe_production_settings_with_a_message() -> None:
    get_settings.cache_clear()
    try:
        result = runner.invoke(
            cli,
            ["serve"],
            prog_name="scoreboard",
            env={"SCOREBOARD_ENVIRONMENT": "production", "SCOREBOARD_ADMIN_TOKEN": None},
        )
    finally:
        get_settings.cache_clear()

    assert result.exit_code == 2, result.output
    assert "SCOREBOARD_ADMIN_TOKEN" in result.output


def test_serve_prints_where_the_tablets_can_reach_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 13: `serve --port 8101` said nothing, and the QR codes pointed at 127.0.0.1:8000.
    started: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda *_, **options: started.update(options))
    monkeypatch.setattr(addresses, "lan_addresses", lambda: ["192.168.1.10"])
    get_settings.cache_clear()
    try:
        every = runner.invoke(cli, ["serve", "--host", "0.0.0.0", "--port", "8101"], env=CLEAN)
        local = runner.invoke(cli, ["serve", "--port", "8101"], env=CLEAN)
    finally:
        get_settings.cache_clear()

    assert every.exit_code == 0, every.output
    assert "http://192.168.1.10:8101" in every.output
    assert started["port"] == 8101
    assert local.exit_code == 0, local.output
    assert "tablets and phones cannot reach it" in local.output
    assert "--host 0.0.0.0" in local.output
    assert "development token 'development-admin-token'" in local.output


def test_serve_never_prints_an_admin_token_of_ones_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uvicorn, "run", lambda *_, **__: None)
    secret = "x7Yq2-9fKpL0wRt3ZbN8vC1mHs4JdE6a-own"
    get_settings.cache_clear()
    try:
        result = runner.invoke(cli, ["serve"], env={**CLEAN, "SCOREBOARD_ADMIN_TOKEN": secret})
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert secret not in result.output and "development token" not in result.output


def test_serve_with_several_workers_needs_redis_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 16: each process has its own live feed; without the backplane a hand entered
    through one would never reach the screens on the others."""
    started: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **options: started.append((args, options)))
    get_settings.cache_clear()
    try:
        alone = runner.invoke(
            cli, ["serve", "--workers", "2"], env={**CLEAN, "SCOREBOARD_REDIS_URL": None}
        )
        get_settings.cache_clear()
        shared = runner.invoke(
            cli,
            ["serve", "--workers", "3"],
            env={**CLEAN, "SCOREBOARD_REDIS_URL": "redis://127.0.0.1:6379/0"},
        )
        get_settings.cache_clear()
        one = runner.invoke(cli, ["serve"], env={**CLEAN, "SCOREBOARD_REDIS_URL": None})
    finally:
        get_settings.cache_clear()

    assert alone.exit_code == 2, alone.output
    assert "--workers 2 needs SCOREBOARD_REDIS_URL" in alone.output
    assert shared.exit_code == 0, shared.output
    assert one.exit_code == 0, one.output
    assert [options["workers"] for _, options in started] == [3, None]
    # every process builds its app with the factory, which settles its own collector
    assert [(args, options["factory"]) for args, options in started] == [
        (("app.cli.serving:serving_app",), True)
    ] * 2


@pytest.mark.parametrize("workers", ["0", "65", "-1", "two"])
def test_serve_refuses_a_worker_count_out_of_bounds(workers: str) -> None:
    result = runner.invoke(cli, ["serve", "--workers", workers], env=CLEAN)
    assert result.exit_code == 2, result.output
    assert "--workers" in result.output
