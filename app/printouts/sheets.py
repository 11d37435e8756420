"""Score sheets as a printable A4 page, one sheet a page (issue 18, part 5).

The sheet's words are the judges' (the judge catalog, templates/sheets.html): the table
reads it, and the scorer who types it in reads the same words on the scorer's screen. This
module holds no words of its own, so nothing of it lands in another audience's catalog.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape

from app import i18n
from app.domain.hands import PlayerId
from app.domain.sheets import ScoreSheet
from app.printouts.slips import qr_svg


def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("app", "templates"), autoescape=select_autoescape(["html"])
    )
    i18n.speak_in_templates(environment)
    return environment


def scorer_url(base_url: str, tournament_id: int, sheet: ScoreSheet) -> str:
    """The scorer's screen for this table's segment, which the sheet's QR code opens (and a
    USB QR reader types into the scorer's sheet field)."""
    return f"{base_url.rstrip('/')}/scorer/{tournament_id}?sheet={quote(sheet.code, safe='')}"


def render_sheets_html(
    sheets: Sequence[ScoreSheet],
    *,
    tournament: str,
    tournament_id: int,
    base_url: str,
    warning: str | None = None,
    language: str | None = None,
) -> str:
    """The printable sheets, in `language` or the request's. `warning` says why their QR
    codes would not open on another machine (a loopback address), printed on every sheet."""
    if language is not None:
        with i18n.speaking(language):
            return render_sheets_html(
                sheets,
                tournament=tournament,
                tournament_id=tournament_id,
                base_url=base_url,
                warning=warning,
            )
    i18n.set_domain("judge")
    rows = []
    for sheet in sheets:
        url = scorer_url(base_url, tournament_id, sheet)
        number: Mapping[PlayerId, int] = {
            seated.player: index for index, seated in enumerate(sheet.players, start=1)
        }
        # a reader of Japanese, Chinese or Korean reads a name in its own script first
        shown = {
            seated.player: i18n.names_for(seated.name, seated.local_name)
            for seated in sheet.players
        }
        names = {player: forms[0] for player, forms in shown.items()}
        rows.append(
            {
                "sheet": sheet,
                "url": url,
                "qr": qr_svg(url),
                "number": number,
                "names": names,
                "other_names": {player: forms[1] for player, forms in shown.items()},
            }
        )
    return (
        _environment()
        .get_template("sheets.html")
        .render(
            lang=i18n.current(),
            tournament=tournament,
            rows=rows,
            warning=warning,
        )
    )
