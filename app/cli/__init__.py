"""The `scoreboard` command line (CONTRACT.md section 2).

This module is the parser only: every command's options and help, and a body that imports
what the command runs when it runs. `scoreboard --help` and `scoreboard replay` start with
Typer and the domain alone; the web app, uvicorn, SQLAlchemy and Alembic load only in the
commands that use them (issue 15; tests/integration/test_cli_imports.py holds it).
"""

from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

# Plain help (rich_markup_mode=None): Typer's rich help loads rich's console, tables and
# markdown, which took longer than the whole rest of `scoreboard --help` (issue 15). Each
# command's docstring opens with one short sentence, the line `--help` lists it with.
cli = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None)


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


SslCertOption = Annotated[
    Path | None,
    typer.Option(
        "--ssl-certfile",
        help="Serve HTTPS with this certificate (PEM; see docs/https.md)",
        exists=True,
        dir_okay=False,
    ),
]
SslKeyOption = Annotated[
    Path | None,
    typer.Option(
        "--ssl-keyfile",
        help="The certificate's private key (PEM)",
        exists=True,
        dir_okay=False,
    ),
]


MAX_WORKERS = 64  # processes on one port; a bound on what the option takes, far above the cores
WorkersOption = Annotated[
    int,
    typer.Option(
        min=1,
        max=MAX_WORKERS,
        help="Server processes on the one port (more than 1 needs SCOREBOARD_REDIS_URL)",
    ),
]


class Role(StrEnum):
    """`serve --role`: the lanes of app/web/lanes.py (issue 32)."""

    all = "all"
    judges = "judges"
    public = "public"


RoleOption = Annotated[
    Role | None,
    typer.Option(
        help="The lane this process serves behind the proxy: judges (every write, the judges' "
        "and organizer's pages) or public (what spectators, screens and TV read); all, alone "
        "(default: SCOREBOARD_ROLE or all; docs/security.md)",
    ),
]


@cli.command()
def serve(
    host: HostOption = None,
    port: PortOption = None,
    ssl_certfile: SslCertOption = None,
    ssl_keyfile: SslKeyOption = None,
    workers: WorkersOption = 1,
    role: RoleOption = None,
) -> None:
    """Start the server.

    On SQLite ./scoreboard.db unless SCOREBOARD_DATABASE_URL says otherwise."""
    from app.cli import serving

    serving.serve(
        host, port, ssl_certfile, ssl_keyfile, workers, None if role is None else role.value
    )


# --- Other commands ----------------------------------------------------------------------------
# Each command is one function under `@cli.command()` here, and its body in a module of this
# package: offline.py for the commands that read a log file (replay, draw, slips, clocks),
# database.py for those that need the database (migrate, import, export, backup, token).


LogArgument = Annotated[
    Path, typer.Argument(help="A tournament log (JSON Lines, CONTRACT.md section 1)")
]
RoundOption = Annotated[int, typer.Option("--round", help="The round number (the final is 8)")]


@cli.command()
def replay(log: LogArgument) -> None:
    """Replay a log; print its standings as JSON.

    Offline: the standings and the final ranking the log gives, as JSON."""
    from app.cli import offline

    offline.replay(log)


@cli.command()
def draw(
    log: LogArgument,
    round_number: RoundOption,
    seed: Annotated[
        str | None, typer.Option(help="The draw's seed (default: a new random one, printed)")
    ] = None,
) -> None:
    """Print the seating draw of a round.

    As log lines: a draw line with its seed, then the seats of every segment. Round 1 draws
    the registrations; later rounds the players who advanced. Append the output to the log
    to record it."""
    from app.cli import offline

    offline.draw(log, round_number, seed)


@cli.command()
def slips(
    log: LogArgument,
    round_number: RoundOption,
    out: Annotated[Path, typer.Option(help="Folder to write the HTML and CSV into")] = Path("."),
    base_url: Annotated[
        str | None,
        typer.Option(help="Address of the hall server for the QR codes (SCOREBOARD_PUBLIC_URL)"),
    ] = None,
) -> None:
    """Write the seating slips of a round.

    A printable A4 page and a CSV (rule SE-4)."""
    from app.cli import offline

    offline.slips(log, round_number, out, base_url)


@cli.command()
def sheets(
    tournament_id: Annotated[int, typer.Argument(help="The tournament's id")],
    round_number: RoundOption,
    segment: Annotated[
        int | None, typer.Option(min=1, help="One segment only (default: every segment)")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="The HTML file to write (default: sheets-TID-round-R.html)"),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(help="Address of the hall server for the QR codes (SCOREBOARD_PUBLIC_URL)"),
    ] = None,
) -> None:
    """Write the score sheets of a round, for play on paper.

    From the database: one A4 page per table and segment, with the seats, each hand's
    dealer, a row per hand, signature lines and a QR code of the scorer's screen."""
    from app.cli import paper

    paper.sheets(tournament_id, round_number, segment, out, base_url)


def _moment(text: str) -> datetime:
    from app.domain.errors import RuleViolation
    from app.domain.log import parse_time

    try:
        return parse_time(text, "--at", "CL-6")
    except RuleViolation as violation:
        raise typer.BadParameter(violation.message) from violation


@cli.command()
def clocks(
    log: LogArgument,
    at: Annotated[
        datetime,
        typer.Option(
            parser=_moment,
            help='The moment to show, ISO 8601 with its offset ("2026-11-29T09:30:00Z")',
            metavar="TIME",
        ),
    ],
) -> None:
    """Print every table's clock at a moment.

    From the log as it stood at that moment (rule CL-6)."""
    from app.cli import offline

    offline.clocks(log, at)


TournamentArgument = Annotated[int, typer.Argument(help="The tournament's id")]


@cli.command(name="migrate")
def migrate_database() -> None:
    """Bring the database schema up to date.

    To the newest revision; the server also does it at start-up."""
    from app.cli import database

    database.migrate_database()


@cli.command(name="import")
def import_log(log: LogArgument) -> None:
    """Load a log into the database; print its id.

    Imports a tournament log and prints the new tournament's id."""
    from app.cli import database

    database.import_log(log)


@cli.command()
def export(
    tournament_id: TournamentArgument,
    ema: Annotated[
        bool, typer.Option("--ema", help="The final results in the EMA's columns (CSV)")
    ] = False,
    missing: Annotated[
        bool, typer.Option("--missing", help="With --ema: the players with no EMA number (CSV)")
    ] = False,
    hands: Annotated[
        bool, typer.Option("--hands", help="Every player's every hand (CSV), for rating sites")
    ] = False,
) -> None:
    """Write a tournament's log to stdout.

    Line for line as stored. With --ema, the final results as the European Mahjong
    Association ranks them instead (README, "Results for ranking bodies (EMA)"); with
    --ema --missing, who has no EMA number yet; with --hands, every hand."""
    if ema or missing or hands:
        from app.cli import exports

        exports.export_results(tournament_id, ema=ema, missing=missing, hands=hands)
        return
    from app.cli import database

    database.export(tournament_id)


@cli.command()
def backup(
    destination: Annotated[
        Path, typer.Argument(help="The backup's file: a new one (a backup never overwrites)")
    ],
) -> None:
    """Copy the SQLite database, online, to a new file.

    A consistent copy taken while the server runs (SQLite's backup API), checked before it
    is named. On PostgreSQL, use pg_dump (README, "Backup and restore")."""
    from app.cli import database

    database.backup(destination)


@cli.command()
def token(
    tournament_id: TournamentArgument,
    table: Annotated[
        int | None, typer.Option(min=1, help="The table the token may write to")
    ] = None,
    expires: Annotated[
        str | None,
        typer.Option(
            help="When the token stops working (ISO 8601; without an offset, hall time). "
            "Default: the end of the tournament day, 04:00 hall time (rule TK-1)"
        ),
    ] = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Reissue: revoke the table's earlier tokens")
    ] = False,
    revoke: Annotated[
        bool,
        typer.Option(
            "--revoke",
            help="Revoke instead of issuing: every live token of --table, or the token --id",
        ),
    ] = False,
    token_id: Annotated[
        int | None, typer.Option("--id", min=1, help="With --revoke: the token's id")
    ] = None,
    show: Annotated[
        bool, typer.Option("--list", help="List the live tokens (ids, tables, expiry)")
    ] = False,
    head_judge: Annotated[
        bool,
        typer.Option(
            "--head-judge",
            help="The head judge's token instead of a table's: every table, no admin action",
        ),
    ] = False,
) -> None:
    """Issue, revoke or list judges' table tokens.

    Prints a new bearer token for one table's judge (scoped to that table only), or the head
    judge's (--head-judge), or revokes or lists tokens. The token alone goes to stdout; what
    it is goes to stderr."""
    from app.cli import database

    database.token(
        tournament_id,
        table=table,
        expires=expires,
        replace=replace,
        revoke=revoke,
        token_id=token_id,
        show=show,
        head_judge=head_judge,
    )


@cli.command()
def catalogs(
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Change nothing; fail if a catalog is behind the code or a string lacks "
            "a translation",
        ),
    ] = False,
    domain: Annotated[
        list[str] | None,
        typer.Option(
            "--domain",
            help="Only this audience's catalogs (common, spectator, judge, hall, overlay, "
            "admin); repeatable",
        ),
    ] = None,
) -> None:
    """Extract, merge and compile the translation catalogs (app/locales).

    Reads every marked string of the templates, the Python code and the pages' JavaScript,
    brings each language's catalog up to date, keeping its translations, and compiles it.
    Lists the strings that lack a translation and those flagged fuzzy (to be reviewed)."""
    from app.cli import translations

    translations.catalogs(check=check, domains=domain)


def main() -> None:
    cli()
