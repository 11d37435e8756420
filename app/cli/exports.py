"""The results exports on the configured database (issue 18, part 6): the EMA's results,
the players missing an EMA number, and every hand. They load the store, never the web app."""

import sys

import typer

from app.cli.database import _store
from app.domain.errors import RuleViolation
from app.services import exports
from app.services.errors import NotFound


def export_results(tournament_id: int, *, ema: bool, missing: bool, hands: bool) -> None:
    if hands == (ema or missing):
        typer.echo("scoreboard export: give --ema (with or without --missing) or --hands", err=True)
        raise typer.Exit(code=2)
    store = _store()
    try:
        if hands:
            sys.stdout.write(exports.hands_csv(store, tournament_id))
        elif missing:
            sys.stdout.write(exports.missing_csv(store, tournament_id))
        else:
            sys.stdout.write(exports.ema_csv(store, tournament_id))
    except (NotFound, RuleViolation) as error:
        typer.echo(f"scoreboard export: {error}", err=True)
        raise typer.Exit(code=1) from error
