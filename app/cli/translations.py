"""`scoreboard catalogs` (issue 17): the body of the command; app/i18n/catalogs.py does the work."""

import typer

from app.i18n import DOMAINS
from app.i18n import catalogs as catalog_files


def catalogs(*, check: bool, domains: list[str] | None) -> None:
    unknown = sorted(set(domains or ()) - set(DOMAINS))
    if unknown:
        typer.echo(
            f"--domain: no catalog {', '.join(unknown)}; one of {', '.join(DOMAINS)}", err=True
        )
        raise typer.Exit(2)
    chosen = tuple(domains) if domains else DOMAINS
    failed = False
    for report in catalog_files.run(chosen, write=not check):
        summary = (
            f"{report.domain:<10} {report.language:<8} {report.translated:>4} translated, "
            f"{len(report.fuzzy):>3} fuzzy, {len(report.missing):>3} missing"
        )
        typer.echo(summary)
        for message in report.fuzzy:
            typer.echo(f"    fuzzy:   {message!r}")
        for message in report.missing:
            typer.echo(f"    missing: {message!r}")
        for error in report.errors:
            typer.echo(f"    error:   {error}", err=True)
        failed = failed or bool(report.errors) or (check and bool(report.missing))
    if check:
        stale = catalog_files.stale_templates(chosen)
        for domain in stale:
            typer.echo(f"app/locales/{domain}.pot is behind the code: run `scoreboard catalogs`")
        failed = failed or bool(stale)
    if failed:
        raise typer.Exit(1)
