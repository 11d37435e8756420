import re

from typer.testing import CliRunner

from app.cli import cli
from app.settings import get_settings

runner = CliRunner()


def test_help_lists_serve_among_the_commands() -> None:
    result = runner.invoke(cli, ["--help"], prog_name="scoreboard")

    assert result.exit_code == 0, result.output
    assert "Usage: scoreboard [OPTIONS] COMMAND" in result.output
    assert "Commands" in result.output
    assert re.search(r"^\W*serve\s", result.output, re.MULTILINE), result.output


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
