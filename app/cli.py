"""The `scoreboard` command line (CONTRACT.md section 2)."""

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
import uvicorn
from pydantic import ValidationError

from app.domain.errors import LogError
from app.domain.replay import replay_lines, report
from app.settings import get_settings

cli = typer.Typer(no_args_is_help=True, add_completion=False)


@cli.callback()
def scoreboard() -> None:
    """Live scoreboard for World Series of Mahjong tournaments."""
    # Without a callback Typer folds a one-command app into its root, and `--help` lists nothing.


HostOption = Annotated[
    str | None, typer.Option(help="Interface to bind (default: SCOREBOARD_HOST or 127.0.0.1)")
]
PortOption = Annotated[
    int | None, typer.Option(help="Port to listen on (default: SCOREBOARD_PORT or 8000)")
]


@cli.command()
def serve(host: HostOption = None, port: PortOption = None) -> None:
    """Start the server (SQLite ./scoreboard.db unless SCOREBOARD_DATABASE_URL says otherwise)."""
    try:
        settings = get_settings()
    except ValidationError as error:
        typer.echo(f"scoreboard: invalid settings\n{error}", err=True)
        raise typer.Exit(code=2) from error
    uvicorn.run(
        "app.web:create_app",
        factory=True,
        host=host if host is not None else settings.host,
        port=port if port is not None else settings.port,
    )


# --- Other commands ----------------------------------------------------------------------------
# Each command is one function under `@cli.command()` here, with its imports at the top of the
# module (import, export, token, draw, replay: CONTRACT.md section 2).


@cli.command()
def replay(
    log: Annotated[
        Path, typer.Argument(help="A tournament log (JSON Lines, CONTRACT.md section 1)")
    ],
) -> None:
    """Replay a tournament log offline and print its standings and final ranking as JSON."""
    try:
        with log.open(encoding="utf-8") as lines:
            tournament = replay_lines(lines)
    except OSError as error:
        typer.echo(f"scoreboard replay: cannot read {log}: {error.strerror}", err=True)
        raise typer.Exit(code=2) from error
    except UnicodeDecodeError as error:
        typer.echo(f"scoreboard replay: {log} is not UTF-8 text", err=True)
        raise typer.Exit(code=2) from error
    except LogError as error:
        # The line, the field and the rule: enough to find and fix the line by hand.
        typer.echo(f"scoreboard replay: {log}: {error}", err=True)
        raise typer.Exit(code=1) from error
    json.dump(report(tournament), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
