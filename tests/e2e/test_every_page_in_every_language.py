"""Every page the server draws, in every language and the pseudo-locale (issue 17's "each page,
in each locale and the pseudo-locale, has a Chromium test"), in one sweep that cannot fall
behind: the list of pages is checked against the application's own HTML routes, so a page added
without a place here fails the first test.

Each page, opened in Chromium in en, ja, zh-Hant, zh-Hans, ko and en-XA, must
- say the language in `<html lang>` (a screen reader and the font choice go by it);
- in ja, zh-Hant, zh-Hans and ko, show its own words in the language's script, outside the
  data (names, ids) that `translate="no"` marks, with a title in that script too;
- in the pseudo-locale, show no visible text that missed the catalogs;
- carry the language switch with the language marked as current, except the printed slips
  and sheets (fetched by the console with its token, where a switch's link could not fetch
  them again).

The TV overlays (which take `?lang=` only, with no switch) have their own sweep with their
live frames, test_overlay_languages.py; the first test here holds it to every overlay route.

The deeper tests of each audience (the tablet's Ari Ari game in Japanese, the hall's screen
sizes, the overlays' live frames, axe-core on the spectators' pages) are in the other
test_*_languages.py files; this one makes sure no page is left out of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from app_routes import api_routes
from e2e_support import wait_for
from fastapi.responses import HTMLResponse
from i18n_support import unmarked_text
from test_overlay_languages import OVERLAYS

from app.web import create_app

pytestmark = pytest.mark.slow

LANGUAGES = ("en", "ja", "zh-Hant", "zh-Hans", "ko", "en-XA")
# The script each language's own words are written in (kana or kanji for Japanese).
SCRIPT = {
    "ja": r"[\u3040-\u30ff\u4e00-\u9fff]",
    "zh-Hant": r"[\u4e00-\u9fff]",
    "zh-Hans": r"[\u4e00-\u9fff]",
    "ko": r"[\uac00-\ud7af]",
}
# The page's own words: every visible text node outside the data marked translate="no".
OWN_WORDS = """
() => {
  const words = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('[translate="no"], script, style, template, [hidden]')) continue;
    const style = getComputedStyle(parent);
    if (style.display === "none" || style.visibility === "hidden") continue;
    const text = node.textContent.trim();
    if (text) words.push(text);
  }
  return words.join(" ");
}
"""
GATE = "document.querySelector('#token-input')?.checkVisibility()"
HALL_LIVE = "() => window.hallDisplay?.feed.status === 'live'"


@dataclass(frozen=True)
class Sheet:
    """One page of the sweep: how to open it at an address in a language."""

    route: str  # the application's route it stands for
    open: Callable[[Any, str], None]  # (browser page, language)
    switch: bool = True  # carries the language switch


@pytest.fixture(scope="module")
def context(browser: Any) -> Iterator[Any]:
    made = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True)
    yield made
    made.close()


def _html_routes() -> set[str]:
    return {
        route.path
        for route in api_routes(create_app().routes)
        if route.response_class is HTMLResponse and "GET" in route.methods
    }


@pytest.fixture(scope="module")
def sheets(hall: Any) -> list[Sheet]:
    base, tid = hall.base_url, hall.tournament_id
    admin = {"Authorization": f"Bearer {hall.admin_token}"}
    tables = httpx.get(f"{base}/api/tournaments/{tid}/tables?round=1", timeout=10).json()
    player = str(tables["tables"][0]["seats"][0])
    head_judge = httpx.post(
        f"{base}/api/tournaments/{tid}/head-judge-tokens", json={}, headers=admin, timeout=10
    ).json()["token"]

    def goto(path: str, ready: str | None = None) -> Callable[[Any, str], None]:
        def opened(page: Any, lang: str) -> None:
            address, _, fragment = path.partition("#")
            separator = "&" if "?" in address else "?"
            page.goto(
                f"{base}{address}{separator}lang={lang}" + (f"#{fragment}" if fragment else "")
            )
            page.wait_for_load_state("load")
            if ready:
                wait_for(page, ready)

        return opened

    def fetched(path: str) -> Callable[[Any, str], None]:
        # a document the console fetches with its token and opens as a page of its own
        def opened(page: Any, lang: str) -> None:
            answer = httpx.get(f"{base}{path}", params={"lang": lang}, headers=admin, timeout=10)
            assert answer.status_code == 200, answer.text
            page.set_content(answer.text)

        return opened

    def signed_in(path: str, ready: str) -> Callable[[Any, str], None]:
        def opened(page: Any, lang: str) -> None:
            goto(path)(page, lang)
            # the token is kept for the tab once given: the gate shows only the first time
            wait_for(page, f"() => ({ready})() || {GATE}")
            if page.locator("#token-input").is_visible():
                page.fill("#token-input", hall.admin_token)
                page.locator("#token-input").press("Enter")
            wait_for(page, ready)

        return opened

    return [
        Sheet("/", goto(f"/?t={tid}")),
        Sheet("/p/{player_id}", goto(f"/p/{player}?t={tid}")),
        Sheet("/p/{player_id}/check-in", goto(f"/p/{player}/check-in?t={tid}")),
        Sheet("/hall/{tournament_id}", goto(f"/hall/{tid}", HALL_LIVE)),
        Sheet("/hall/{tournament_id}", goto(f"/hall/{tid}?page=checkin", HALL_LIVE)),
        Sheet("/hall/{tournament_id}", goto(f"/hall/{tid}?story=1&page=story", HALL_LIVE)),
        Sheet(
            "/judge",
            goto(
                f"/judge#token={hall.tokens[min(hall.tokens)]}",
                "() => window.judgeTablet && judgeTablet.who && judgeTablet.table",
            ),
        ),
        Sheet("/judge", goto("/judge")),  # its sign-in screen
        Sheet("/head-judge/{tournament_id}", goto(f"/head-judge/{tid}#token={head_judge}")),
        Sheet("/admin", goto("/admin")),
        Sheet(
            "/admin/{tournament_id}",
            signed_in(
                f"/admin/{tid}",
                "() => !document.querySelector('#tournament-steps')?.hidden"
                " && document.querySelector('#standings tbody tr')",
            ),
        ),
        Sheet("/admin/{tournament_id}/results", goto(f"/admin/{tid}/results")),
        Sheet(
            "/admin/{tournament_id}/slips/{round_number}", fetched(f"/admin/{tid}/slips/1"), False
        ),
        Sheet(
            "/admin/{tournament_id}/sheets/{round_number}",
            fetched(f"/admin/{tid}/sheets/1?segment=1"),
            False,
        ),
        Sheet(
            "/scorer/{tournament_id}",
            signed_in(
                f"/scorer/{tid}?sheet=1-1-1", "() => document.querySelector('#rows tbody tr')"
            ),
        ),
    ]


def test_the_sweep_holds_every_page_the_server_draws(sheets: list[Sheet]) -> None:
    swept = {sheet.route for sheet in sheets}
    # The overlays have their own sweep, with the same checks and their live frames
    # (test_overlay_languages.py: ja, zh-Hant, zh-Hans, ko, en-XA; test_overlay.py: en).
    on_air = {path.split("?")[0].split("/")[0] for path in OVERLAYS.values()}
    for route in _html_routes() - swept:
        assert route.startswith("/overlay/{tournament_id}/"), f"{route}: no language test"
        assert route.split("/")[3] in on_air, f"{route}: not in test_overlay_languages"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_speaks_the_language(context: Any, sheets: list[Sheet], language: str) -> None:
    page = context.new_page()
    try:
        for sheet in sheets:
            where = f"{sheet.route} in {language}"
            sheet.open(page, language)
            assert page.evaluate("document.documentElement.lang") == language, where
            if language == "en-XA":
                assert unmarked_text(page) == [], f"{where}: text that no catalog translated"
            elif language in SCRIPT:
                script = SCRIPT[language]
                found = page.evaluate(f"() => new RegExp({script!r}, 'u').test(({OWN_WORDS})())")
                assert found, f"{where}: none of the page's own words in its script"
                assert page.evaluate(f"() => new RegExp({script!r}, 'u').test(document.title)"), (
                    f"{where}: title {page.title()!r}"
                )
            switch = page.locator("nav.languages")
            if sheet.switch:
                assert switch.count() == 1, f"{where}: no language switch"
                # the pseudo-locale is for the tests: not among the switch's choices
                current = switch.locator('a[aria-current="true"]')
                assert current.count() == (language != "en-XA"), where
                if language != "en-XA":
                    assert current.get_attribute("hreflang") == language, where
            else:
                assert switch.count() == 0, f"{where}: a switch"
    finally:
        page.close()
