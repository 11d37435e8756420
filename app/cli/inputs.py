"""What the commands read, a log file or the settings, with the message and exit code each
failure gets. Nothing heavy at import: the offline commands start with this module."""

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from app.settings import Settings


def read_lines(command: str, log: Path) -> list[str]:
    try:
        text = log.read_text(encoding="utf-8")
    except OSError as error:
        typer.echo(f"scoreboard {command}: cannot read {log}: {error.strerror}", err=True)
        raise typer.Exit(code=2) from error
    except UnicodeDecodeError as error:
        typer.echo(f"scoreboard {command}: {log} is not UTF-8 text", err=True)
        raise typer.Exit(code=2) from error
    # JSON Lines split at new lines alone (app/domain/log.py, log_lines)
    from app.domain.log import log_lines

    return log_lines(text)


def settings_for(command: str) -> "Settings":
    # Only the commands that read a setting pay for pydantic-settings.
    from pydantic import ValidationError

    from app.settings import get_settings

    try:
        return get_settings()
    except ValidationError as error:
        typer.echo(f"scoreboard {command}: invalid settings\n{error}", err=True)
        raise typer.Exit(code=2) from error
