"""The `scoreboard` command line (CONTRACT.md section 2)."""

from typing import Annotated

import typer
import uvicorn
from pydantic import ValidationError

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


def main() -> None:
    cli()
