"""Which language each request is answered in (issue 17), the language switch and the pages'
JavaScript catalogs.

`speaking_reader` settles the language before any route runs, so that the text the server
composes in Python (a hand's result, an error's sentence) and the template around it agree:
an explicit `?lang=` wins, then the choice kept on the device (the `lang` cookie the switch
sets), then Accept-Language, then the tournament's default (a page that knows its tournament
calls `i18n.default_to`), then the server's (SCOREBOARD_LANGUAGE). The TV overlays go by the
`?lang=` of their address alone, then the tournament's and the server's default.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import parse_qsl, urlencode, urlsplit

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n
from app.domain.errors import MalformedInput, say
from app.services.errors import NotFound

router = APIRouter(include_in_schema=False)

MAX_NEXT = 2000  # characters of the page to go back to; an address is never longer


def speaking_reader(app: ASGIApp, default: str) -> ASGIApp:
    async def speaking(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        if scope["path"].startswith("/static/"):
            await app(scope, receive, send)  # the same file in every language
            return
        # Starlette's own reading of the query, the cookies and the headers, as a route
        # would see them (its cookie parser passes over another site's malformed cookies)
        asked = HTTPConnection(scope)
        domain = i18n.path_domain(scope["path"])
        i18n.set_domain(domain)
        # The TV overlays take `?lang=` only (issue 17): the graphics PC's browser languages
        # and a cookie from a page its operator once opened must not change what is on air.
        on_air = domain == "overlay"
        i18n.set_choice(
            i18n.choose(
                next(iter(asked.query_params.getlist("lang")), None),
                None if on_air else asked.cookies.get(i18n.COOKIE),
                None if on_air else asked.headers.get("accept-language"),
                default,
            )
        )

        async def varying(message: Message) -> None:
            # The same address answers in several languages: a cache between must key on
            # what chose the language (a `?lang=` is in the address itself).
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": [*message.get("headers", ()), (b"vary", b"Accept-Language, Cookie")],
                }
            await send(message)

        await app(scope, receive, varying)

    return speaking


async def tournament_default(request: Request) -> None:
    """A page of one tournament (its id in the path, or `?t=`) speaks that tournament's
    language to a reader who chose none. Settled before the route runs, in the request's own
    context, so that every sentence of the page agrees."""
    if i18n.current_choice().chosen:
        return  # nearly every browser: its Accept-Language names a language we speak
    named = request.path_params.get("tournament_id") or request.query_params.get("t")
    try:
        tournament_id = int(named) if named is not None else None
    except ValueError:
        return  # the route itself refuses the bad id, with the field named
    if tournament_id is None or not 0 < tournament_id < 2**31:
        return
    store = request.state.store

    def language() -> str | None:
        try:
            return str(store.read(tournament_id, lambda tournament, _: tournament.language))
        except NotFound:
            return None

    i18n.default_to(await run_in_threadpool(language))


def _local(next_page: str) -> str:
    """Back to a page of this site only (never an open redirect), without the `?lang=` that
    would outrank the choice just made."""
    parts = urlsplit(next_page)
    if parts.scheme or parts.netloc or not next_page.startswith("/") or "\\" in next_page:
        return "/"
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "lang"]
    return parts.path + (f"?{urlencode(query)}" if query else "")


@router.get("/language")
def switch_language(
    to: Annotated[str, Query(max_length=35, description="The language chosen (BCP 47)")],
    next: Annotated[str, Query(max_length=MAX_NEXT)] = "/",  # noqa: A002 (the page's word)
) -> Response:
    """The language switch: keeps the choice on this device and goes back to the page."""
    language = i18n.page_language(to, pseudo=False)
    if language is None:
        raise MalformedInput(
            "issue 17",
            "to",
            say(
                "must be one of {languages}, got {value}",
                languages=", ".join(i18n.LANGUAGES),
                value=repr(to),
            ),
        )
    answer = RedirectResponse(_local(next), status_code=303)
    answer.set_cookie(
        i18n.COOKIE, language, max_age=i18n.COOKIE_MAX_AGE, samesite="lax", httponly=False
    )
    return answer


@router.get("/i18n/{language}/{domain}.json")
def catalog(language: str, domain: str) -> Response:
    """A page's JavaScript catalog, the same strings as the server's (msgid → translation)."""
    if language not in i18n.PAGE_LANGUAGES or domain not in i18n.DOMAINS:
        raise NotFound(say("no catalog {language}/{domain}", language=language, domain=domain))
    return Response(
        i18n.catalog_json(language, (domain,)),
        media_type="application/json",
        headers={"cache-control": "no-cache"},
    )
