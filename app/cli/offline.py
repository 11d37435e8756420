"""The commands that read a log file and no database: replay, draw, slips, clocks.

They import the domain; slips alone adds the printouts (Jinja2, the QR codes) and the
settings, when it runs."""

import json
import secrets
import sys
from datetime import datetime
from pathlib import Path
from typing import NoReturn

import typer

from app.cli.inputs import read_lines, settings_for
from app.domain.draw import draw_round
from app.domain.errors import IllegalMove, LogError, RuleViolation
from app.domain.log import DrawRecorded, Event, event_to_log, format_time
from app.domain.replay import clock_report, replay_lines, report
from app.domain.tournament import RoundState, Tournament


def _load(command: str, log: Path, *, until: datetime | None = None) -> Tournament:
    """Replay a log for a command, turning every failure into a message and an exit code."""
    lines = read_lines(command, log)
    try:
        return replay_lines(lines, until=until)
    except LogError as error:
        # The line, the field and the rule: enough to find and fix the line by hand.
        typer.echo(f"scoreboard {command}: {log}: {error}", err=True)
        raise typer.Exit(code=1) from error


def _refuse(command: str, violation: RuleViolation) -> NoReturn:
    typer.echo(f"scoreboard {command}: {violation}", err=True)
    raise typer.Exit(code=1)


def _round(command: str, tournament: Tournament, number: int) -> RoundState:
    state = tournament.rounds.get(number)
    if state is None:
        _refuse(command, IllegalMove("FM-1", "round", f"round {number} has not begun in this log"))
    return state


def replay(log: Path) -> None:
    tournament = _load("replay", log)
    json.dump(report(tournament), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def draw(log: Path, round_number: int, seed: str | None) -> None:
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
    lines: list[Event] = [DrawRecorded(round_number, chosen), *drawn.seatings]
    for event in lines:
        sys.stdout.write(json.dumps(event_to_log(event), ensure_ascii=False) + "\n")
    tables = len({s.table for s in drawn.seatings})
    typer.echo(
        f"round {round_number}: seed {chosen!r}, {tables} tables, "
        f"{drawn.repeats} repeat meeting(s) the rotation could not avoid (rule SE-2)",
        err=True,
    )


def slips(log: Path, round_number: int, out: Path, base_url: str | None) -> None:
    from app import i18n
    from app.domain.slips import seating_slips
    from app.loopback import loopback_warning
    from app.printouts.slips import render_slips_csv, render_slips_html

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
    url = base_url or settings_for("slips").public_url
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
    # printed in the tournament's own language (issue 17); the warning above is the
    # operator's, in English like the rest of the command line
    with i18n.speaking(tournament.language, "admin"):
        printed_warning = loopback_warning(url)
    html_path.write_text(
        render_slips_html(
            round_slips,
            tournament=tournament.name,
            base_url=url,
            warning=printed_warning,
            language=tournament.language,
        ),
        encoding="utf-8",
    )
    csv_path.write_text(render_slips_csv(round_slips), encoding="utf-8")
    typer.echo(f"{len(round_slips)} slips: {html_path} and {csv_path}")


def clocks(log: Path, at: datetime) -> None:
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
