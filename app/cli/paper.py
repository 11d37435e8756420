"""`scoreboard sheets`: a round's score sheets from the configured database, printable on A4
(issue 18, part 5). The paper fallback must print when the server's web pages cannot be
reached, so this reads the database itself, as `export` does; it never loads the web app."""

from pathlib import Path

import typer

from app.cli.database import _store
from app.cli.inputs import settings_for
from app.domain.errors import RuleViolation
from app.domain.sheets import ScoreSheet, score_sheets
from app.domain.tournament import Tournament
from app.services.errors import NotFound


def sheets(
    tournament_id: int,
    round_number: int,
    segment: int | None,
    out: Path | None,
    base_url: str | None,
) -> None:
    from app import i18n
    from app.loopback import loopback_warning
    from app.printouts.sheets import render_sheets_html
    from app.services.reports import round_state

    settings = settings_for("sheets")
    # the scorer's screen is the staff's: their own entry where they have one (issue 32);
    # the setting is named in the warning of an address on this machine only
    url, setting = (base_url, "--base-url") if base_url else settings.staff_address
    if url is None:
        # Offline there is no request to take the address from.
        typer.echo(
            "scoreboard sheets: give --base-url (or SCOREBOARD_STAFF_URL or "
            "SCOREBOARD_PUBLIC_URL): the address of "
            "the hall server whose scorer's screen the QR codes open, such as "
            "http://192.168.1.10:8000",
            err=True,
        )
        raise typer.Exit(code=2)

    def view(tournament: Tournament, _: int) -> tuple[str, str, tuple[ScoreSheet, ...]]:
        state = round_state(tournament, round_number)
        found = score_sheets(tournament.format, state, tournament.players, segment)
        return tournament.name, tournament.language, found

    try:
        name, language, found = _store().read(tournament_id, view)
    except (NotFound, RuleViolation) as error:
        typer.echo(f"scoreboard sheets: {error}", err=True)
        raise typer.Exit(code=1) from error
    warning = loopback_warning(url, setting)
    if warning is not None:
        typer.echo(f"scoreboard sheets: warning: {warning}", err=True)
    # printed in the tournament's language, like the slips; the warning above is the
    # operator's, in English like the rest of the command line
    with i18n.speaking(language, "judge"):
        printed_warning = loopback_warning(url, setting)
    where = f"round-{round_number}" + (f"-segment-{segment}" if segment is not None else "")
    path = out or Path(f"sheets-{tournament_id}-{where}.html")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        render_sheets_html(
            found,
            tournament=name,
            tournament_id=tournament_id,
            base_url=url,
            warning=printed_warning,
            language=language,
        ),
        encoding="utf-8",
    )
    typer.echo(f"{len(found)} score sheets: {path}")
