"""What every page shares: the Jinja2 templates and the static files, served by us (the hall
may be offline: no CDN, no web font), the site's icon and the API's documentation page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

import app

PACKAGE = Path(app.__file__).resolve().parent
templates = Jinja2Templates(directory=PACKAGE / "templates")


def render(request: Request, name: str, **context: Any) -> HTMLResponse:
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
