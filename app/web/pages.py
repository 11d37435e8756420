"""What every page shares: the Jinja2 templates and the static files, served by us (the hall
may be offline: no CDN, no web font), the site's icon and the API's documentation page."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from babel.dates import format_date, format_time
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

import app
from app import i18n
from app.web.needs_words import needs_sentence, needs_short

PACKAGE = Path(app.__file__).resolve().parent


def _environment() -> jinja2.Environment:
    """The templates speak the request's language (issue 17): `{% trans %}` and `_()` read
    the catalogs of the language `web.languages` settled for this request."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(PACKAGE / "templates"), autoescape=True
    )
    i18n.speak_in_templates(environment)
    environment.globals["names_for"] = i18n.names_for
    # what a player needs, as the live pages' needs.js says it (issue 18)
    environment.globals["needs_sentence"] = needs_sentence
    environment.globals["needs_short"] = needs_short
    environment.filters["moment"] = _moment
    return environment


def _moment(value: str | datetime) -> str:
    """A moment as the reader's language writes a date, and the time on a 24-hour clock as
    the hall's clocks read ("2026年12月4日 17:00:00"), in UTC as the server keeps time (rule
    CL-6), saying so."""
    when = datetime.fromisoformat(value.replace("Z", "+00:00")) if isinstance(value, str) else value
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    locale = i18n.babel_locale(i18n.current())
    day = format_date(when, format="medium", locale=locale)
    return f"{day} {format_time(when, 'HH:mm:ss', tzinfo=UTC, locale=locale)} UTC"


def switch_links(request: Request) -> list[dict[str, Any]]:
    """The language switch's links: each language in its own name, back to this page."""
    language = i18n.current()
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return [
        {
            "tag": tag,
            "name": i18n.ENDONYMS[tag],
            "href": "/language?" + urlencode({"to": tag, "next": here}),
            "current": tag == language,
        }
        for tag in i18n.LANGUAGES
    ]


def _language_context(request: Request) -> dict[str, Any]:
    language = i18n.current()

    def catalog(*domains: str) -> Markup:
        # Inside a <script type="application/json">: no "</script>" can close it early.
        text = i18n.catalog_json(language, ("common", *domains))
        return Markup(text.replace("<", "\\u003c"))

    return {"lang": language, "switch": switch_links(request), "catalog": catalog}


templates = Jinja2Templates(env=_environment(), context_processors=[_language_context])


def render(request: Request, name: str, **context: Any) -> HTMLResponse:
    # The template's words are its own audience's (results.html is the spectators', though
    # the admin pages serve it).
    i18n.set_domain(i18n.template_domain(name))
    return templates.TemplateResponse(request, name, context)


SWAGGER_UI = "/static/vendor/swagger-ui"  # swagger-ui-dist, vendored (see its README.md)
FAVICON = PACKAGE / "static" / "icons" / "favicon.ico"  # drawn by icons/make_icons.py


def mount_static(application: FastAPI) -> None:
    application.mount("/static", StaticFiles(directory=PACKAGE / "static"), name="static")

    @application.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        """Browsers ask for it on every site, whatever the page's own icon says."""
        return FileResponse(FAVICON, media_type="image/x-icon")


def install_docs(application: FastAPI) -> None:
    """`/docs` from our own copy of Swagger UI: FastAPI's loads it from a CDN, and a page
    that needs the internet is blank in a hall without it. ReDoc (CDN only) is not offered:
    create_app turns it off."""
    openapi_url = application.openapi_url or "/openapi.json"

    @application.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{application.title} · API",
            swagger_js_url=f"{SWAGGER_UI}/swagger-ui-bundle.js",
            swagger_css_url=f"{SWAGGER_UI}/swagger-ui.css",
            swagger_favicon_url="/favicon.ico",
            # No badge from the online validator: it would call out to validator.swagger.io.
            swagger_ui_parameters={"validatorUrl": None},
        )
