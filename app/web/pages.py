"""What every page shares: the Jinja2 templates and the static files, served by us (the hall
may be offline: no CDN, no web font)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

import app

PACKAGE = Path(app.__file__).resolve().parent
templates = Jinja2Templates(directory=PACKAGE / "templates")


def render(request: Request, name: str, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context)


def mount_static(application: FastAPI) -> None:
    application.mount("/static", StaticFiles(directory=PACKAGE / "static"), name="static")
