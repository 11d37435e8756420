"""The `scoreboard` command line (CONTRACT.md section 2)."""

import gc
import json
import secrets
import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated, NoReturn

import typer
import uvicorn
from pydantic import ValidationError

from app.db.engine import make_engine, migrate
from app.domain.draw import draw_round
from app.domain.errors import IllegalMove, LogError, RuleViolation
from app.domain.log import DrawRecorded, event_to_log, format_time, parse_time
from app.domain.replay import clock_report, replay_lines, report
from app.domain.slips import seating_slips
from app.domain.tournament import RoundState, Tournament
from app.printouts.slips import render_slips_csv, render_slips_html
from app.services.errors import NotFound
from app.services.store import TokenRecord, TournamentStore
from app.settings import DEVELOPMENT_ADMIN_TOKEN, Settings, get_settings
from app.web.addresses import loopback_warning, reach_lines
from app.web.live_protocol import LiveFeedProtocol

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


@cli.command()
def serve(
    host: HostOption = None,
    port: PortOption = None,
    ssl_certfile: SslCertOption = None,
    ssl_keyfile: SslKeyOption = None,
) -> None:
    """Start the server (SQLite ./scoreboard.db unless SCOREBOARD_DATABASE_URL says otherwise)."""
    try:
        settings = get_settings()
    except ValidationError as error:
        typer.echo(f"scoreboard: invalid settings\n{error}", err=True)
        raise typer.Exit(code=2) from error
    if (ssl_certfile is None) != (ssl_keyfile is None):
        # One without the other would serve plain HTTP, or fail deep inside uvicorn.
        typer.echo("scoreboard: --ssl-certfile and --ssl-keyfile go together", err=True)
        raise typer.Exit(code=2)
    bound_host = host if host is not None else settings.host
    bound_port = port if port is not None else settings.port
    # Where the tablets and phones can open it: the address the QR codes should carry.
    scheme = "http" if ssl_certfile is None else "https"
    for line in reach_lines(bound_host, bound_port, scheme, settings):
        typer.echo(f"scoreboard: {line}", err=True)
    if settings.admin_token.get_secret_value() == DEVELOPMENT_ADMIN_TOKEN:
        # The known development default only: a token of one's own is never printed.
        typer.echo(
            f"scoreboard: the admin console (/admin) takes the development token "
            f"{DEVELOPMENT_ADMIN_TOKEN!r}; set SCOREBOARD_ADMIN_TOKEN for the real day",
            err=True,
        )
    _settle_garbage_collector()
    uvicorn.run(
        "app.web:create_app",
        factory=True,
        host=bound_host,
        port=bound_port,
        # Off unless asked for: per-message deflate keeps a compressor per connection, and
        # thousands of phones and screens would pay for it in memory and CPU (issue 5).
        ws_per_message_deflate=settings.ws_compression,
        # A client that answers no ping in time is gone (a phone off the hall's Wi-Fi).
        ws_ping_interval=settings.ws_ping_interval,
        ws_ping_timeout=settings.ws_ping_timeout,
        # A client's message over this is refused by the protocol itself (close 1009) before
        # it is buffered whole: uvicorn's default is 16 MiB (issue 14).
        ws_max_size=settings.ws_message_bytes,
        # The client's address behind a proxy: uvicorn takes X-Forwarded-For only from the
        # proxies in FORWARDED_ALLOW_IPS (127.0.0.1 unless set), as it does X-Forwarded-Proto
        # (app/web/guards.py; README, "What one client may ask").
        proxy_headers=True,
        ws=LiveFeedProtocol,  # lets the live feed write a frame once for every client
        # HTTPS lets tablets on the hall's LAN use the service worker and crypto.randomUUID,
        # which browsers allow only in a secure context (docs/https.md).
        ssl_certfile=None if ssl_certfile is None else str(ssl_certfile),
        ssl_keyfile=None if ssl_keyfile is None else str(ssl_keyfile),
    )


# Python's cyclic garbage collector stops the event loop while it runs. With its defaults, a
# full collection walks every object of the process (the 150,000 or so loaded at start, and
# over a hundred for each client of the live feed), and they kept coming while hands were
# entered. bench/fanout.py at 1,000 clients, one run of 60 hands: with the defaults, 4 full
# collections, the longest 309 ms without a single update (and the walk grows with the
# clients); with the settings below, none, and no collection over 73 ms.
YOUNG_GENERATION = 10_000  # objects, not 700: a hand's update is done before a collection


def _settle_garbage_collector() -> None:
    """What is loaded before serving lives as long as the process: frozen, no collection
    walks it again. With a larger young generation, the temporary objects of a hand's update
    die young instead of being promoted, so full collections stop coming in steady play."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_GENERATION, middle, old)


# --- Other commands ----------------------------------------------------------------------------
# Each command is one function under `@cli.command()` here, with its imports at the top of the
# module (import, export, token, draw, replay: CONTRACT.md section 2).


LogArgument = Annotated[
    Path, typer.Argument(help="A tournament log (JSON Lines, CONTRACT.md section 1)")
]
RoundOption = Annotated[int, typer.Option("--round", help="The round number (the final is 8)")]


def _load(command: str, log: Path, *, until: datetime | None = None) -> Tournament:
    """Replay a log for a command, turning every failure into a message and an exit code."""
    lines = _read_lines(command, log)
    try:
        return replay_lines(lines, until=until)
    except LogError as error:
        # The line, the field and the rule: enough to find and fix the line by hand.
        typer.echo(f"scoreboard {command}: {log}: {error}", err=True)
        raise typer.Exit(code=1) from error


def _read_lines(command: str, log: Path) -> list[str]:
    try:
        return log.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        typer.echo(f"scoreboard {command}: cannot read {log}: {error.strerror}", err=True)
        raise typer.Exit(code=2) from error
    except UnicodeDecodeError as error:
        typer.echo(f"scoreboard {command}: {log} is not UTF-8 text", err=True)
        raise typer.Exit(code=2) from error


def _refuse(command: str, violation: RuleViolation) -> NoReturn:
    typer.echo(f"scoreboard {command}: {violation}", err=True)
    raise typer.Exit(code=1)


def _round(command: str, tournament: Tournament, number: int) -> RoundState:
    state = tournament.rounds.get(number)
    if state is None:
        _refuse(command, IllegalMove("FM-1", "round", f"round {number} has not begun in this log"))
    return state


@cli.command()
def replay(log: LogArgument) -> None:
    """Replay a tournament log offline and print its standings and final ranking as JSON."""
    tournament = _load("replay", log)
    json.dump(report(tournament), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


@cli.command()
def draw(
    log: LogArgument,
    round_number: RoundOption,
    seed: Annotated[
        str | None, typer.Option(help="The draw's seed (default: a new random one, printed)")
    ] = None,
) -> None:
    """Print the seating draw of a round as log lines: a draw line with its seed, then the
    seats of every segment. Round 1 draws the registrations; later rounds the players who
    advanced. Append the output to the log to record it."""
    tournament = _load("draw", log)
    state = _round("draw", tournament, round_number)
    # what the server refuses too: an ended or started round, too few players (SE-1, FM-9, FM-6)
    refusal = tournament.draw_refusal(round_number)
    if refusal is not None:
        _refuse("draw", refusal)
    chosen = seed if seed is not None else secrets.token_hex(8)  # rule SE-1: recorded
    try:
        drawn = draw_round(state.format, tournament.round_groups(state), chosen)
    except RuleViolation as violation:
        _refuse("draw", violation)
    lines = [DrawRecorded(round_number, chosen), *drawn.seatings]
    for event in lines:
        sys.stdout.write(json.dumps(event_to_log(event), ensure_ascii=False) + "\n")
    tables = len({s.table for s in drawn.seatings})
    typer.echo(
        f"round {round_number}: seed {chosen!r}, {tables} tables, "
        f"{drawn.repeats} repeat meeting(s) the rotation could not avoid (rule SE-2)",
        err=True,
    )


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
    """Write the seating slips of a round (rule SE-4): a printable A4 page and a CSV."""
    tournament = _load("slips", log)
    state = _round("slips", tournament, round_number)
    # The draw fixes every segment; recorded seatings (a substitute who came in) win.
    seat_of = {**(state.draw.table_of() if state.draw else {}), **state.seat_of}
    if not seat_of:
        _refuse(
            "slips",
            IllegalMove("SE-4", "round", f"round {round_number} has no seating yet: draw it first"),
        )
    round_slips = seating_slips(state.format, tournament.players, seat_of)
    url = base_url or _settings("slips").public_url
    if url is None:
        # Offline there is no request to take the address from.
        typer.echo(
            "scoreboard slips: give --base-url (or SCOREBOARD_PUBLIC_URL): the address of the "
            "hall server that the QR codes open, such as http://192.168.1.10:8000",
            err=True,
        )
        raise typer.Exit(code=2)
    warning = loopback_warning(url)
    if warning is not None:
        typer.echo(f"scoreboard slips: warning: {warning}", err=True)
    out.mkdir(parents=True, exist_ok=True)
    html_path = out / f"slips-round-{round_number}.html"
    csv_path = out / f"slips-round-{round_number}.csv"
    html_path.write_text(
        render_slips_html(round_slips, tournament=tournament.name, base_url=url, warning=warning),
        encoding="utf-8",
    )
    csv_path.write_text(render_slips_csv(round_slips), encoding="utf-8")
    typer.echo(f"{len(round_slips)} slips: {html_path} and {csv_path}")


def _moment(text: str) -> datetime:
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
    """Print every table's clock at a moment, from the log as it stood then (rule CL-6)."""
    tournament = _load("clocks", log, until=at)
    json.dump(
        {
            "server_time": format_time(at),
            "tables": [clock_report(c) for c in tournament.table_clocks(at)],
        },
        sys.stdout,
        ensure_ascii=False,
        indent=2,
    )
    sys.stdout.write("\n")


def _store() -> TournamentStore:
    """The store on the configured database, its schema migrated first."""
    settings = _settings("store")
    migrate(settings.database_url)
    return TournamentStore(
        make_engine(settings.database_url, settings.database_timeouts), hall_zone=settings.hall_zone
    )


def _settings(command: str) -> Settings:
    try:
        return get_settings()
    except ValidationError as error:
        typer.echo(f"scoreboard {command}: invalid settings\n{error}", err=True)
        raise typer.Exit(code=2) from error


TournamentArgument = Annotated[int, typer.Argument(help="The tournament's id")]


@cli.command(name="migrate")
def migrate_database() -> None:
    """Bring the database schema to the newest revision (the server also does it at start-up)."""
    migrate(_settings("migrate").database_url)
    typer.echo("database schema is up to date")


@cli.command(name="import")
def import_log(log: LogArgument) -> None:
    """Load a tournament log into the database and print the new tournament's id."""
    lines = _read_lines("import", log)
    try:
        appended = _store().import_log(lines)
    except LogError as error:
        typer.echo(f"scoreboard import: {log}: {error}", err=True)
        raise typer.Exit(code=1) from error
    typer.echo(appended.tournament_id)


@cli.command()
def export(tournament_id: TournamentArgument) -> None:
    """Write a tournament's log to stdout, line for line as stored."""
    try:
        lines = _store().export(tournament_id)
    except NotFound as error:
        typer.echo(f"scoreboard export: {error}", err=True)
        raise typer.Exit(code=1) from error
    for line in lines:
        sys.stdout.write(line + "\n")


def _expiry(text: str | None) -> datetime | None:
    """--expires: ISO 8601; a time without an offset is the hall's (SCOREBOARD_HALL_TIMEZONE)."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as error:
        raise typer.BadParameter(
            f"{text!r} is not a time; write it as 2026-12-02T23:00 (hall time) or "
            "2026-12-02T15:00:00Z",
            param_hint="--expires",
        ) from error
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_settings("token").hall_zone)
    return moment


def _token_line(record: TokenRecord) -> str:
    expires = record.expires_at.strftime("%Y-%m-%d %H:%M UTC")
    state = "live" if record.revoked_at is None else "revoked"
    return f"token {record.id}: table {record.table}, expires {expires}, {state}"


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
) -> None:
    """Print a new bearer token for one table's judge (scoped to that table only); or revoke
    or list tokens. The token alone goes to stdout; what it is goes to stderr."""
    try:
        if show:
            for record in _store().live_tokens(tournament_id):
                typer.echo(_token_line(record))
            return
        if revoke:
            if (table is None) == (token_id is None):
                raise typer.BadParameter(
                    "--revoke takes --table N (every live token of that table) or --id ID "
                    "(one token), one of the two",
                    param_hint="--revoke",
                )
            revoked = _store().revoke_tokens(tournament_id, token_id=token_id, table=table)
            for record in revoked:
                typer.echo(f"revoked {_token_line(record)}")
            if not revoked:
                typer.echo(f"table {table} has no live token", err=True)
            return
        if table is None:
            raise typer.BadParameter("which table the token is for", param_hint="--table")
        if token_id is not None:
            raise typer.BadParameter("--id goes with --revoke", param_hint="--id")
        issued = _store().issue_table_token(
            tournament_id, table, expires_at=_expiry(expires), revoke_earlier=replace
        )
    except NotFound as error:
        typer.echo(f"scoreboard token: {error}", err=True)
        raise typer.Exit(code=1) from error
    except RuleViolation as violation:
        typer.echo(f"scoreboard token: {violation}", err=True)
        raise typer.Exit(code=2) from violation
    typer.echo(issued.token)
    typer.echo(f"scoreboard token: {_token_line(issued.record)}", err=True)
    for record in issued.revoked:
        typer.echo(f"scoreboard token: revoked {_token_line(record)}", err=True)


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
