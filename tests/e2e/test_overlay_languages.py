"""The TV overlays in every language (issue 17), in real Chromium at 1920x1080: each overlay
in ja, zh-Hant, zh-Hans, ko and the pseudo-locale (where no visible text may have missed the
catalogs), its first frame drawn by the server in the same words as the live feed then draws,
and a name's other form (Latin or in its owner's script) with `?names=both`. With
SCOREBOARD_SCREENSHOTS set, writes docs/screens/overlay-ja.png and overlay-zh-Hant.png.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import open_overlay, shown_text
from i18n_support import platform_fonts, unmarked_text
from test_hall_languages import FULL_HD, SCREENS, Macau, macau

from app.web.overlay import STORY_PARTS

pytestmark = pytest.mark.slow

__all__ = ["macau"]  # the module's server, shared with the hall's language tests

# "Round 1 · Top 8" in each language's words (the overlay's catalog).
TOP_EIGHT = {
    "ja": "第1ラウンド · 上位8名",
    "zh-Hant": "第1輪 · 前8名",
    "zh-Hans": "第1轮 · 前8名",
    "ko": "1라운드 · 상위 8명",
}


@pytest.fixture(scope="module")
def screen(browser: Any) -> Iterator[Any]:
    context = browser.new_context(**FULL_HD)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="module")
def still(browser: Any) -> Iterator[Any]:
    """A page without scripts: the first frame as the server draws it."""
    context = browser.new_context(**FULL_HD, java_script_enabled=False)
    yield context.new_page()
    context.close()


def _player(macau: Macau, country: str) -> tuple[str, str, str]:
    for player, (name, local, where) in sorted(macau.local_names.items()):
        if where == country and local:
            return player, name, local
    raise AssertionError(country)


# Every overlay, at the address this sweep opens it ({player}: a Japanese player's id); the
# sweep of every other page (test_every_page_in_every_language.py) leaves the overlays to it.
OVERLAYS = {
    "top": "top?n=8",
    "cut": "cut",
    "player": "player/{player}",
    "table": "table/3",
    "clock": "clock",
    # issue 18: what the players either side of the line need (here, their half over:
    # no hand left), four a side
    "bubble": "bubble?n=4",
    # issue 18: the story of the session, its first card (a minute a card: no turn
    # between the two frames compared), and each part alone
    "story": "story?seconds=60",
    **{f"story-{part}": f"story?only={part}&seconds=60" for part in STORY_PARTS},
}


def _overlays(macau: Macau) -> dict[str, str]:
    player, _, _ = _player(macau, "JP")
    return {kind: path.format(player=player) for kind, path in OVERLAYS.items()}


@pytest.mark.parametrize("language", ["ja", "zh-Hant", "zh-Hans", "ko", "en-XA"])
def test_every_overlay_speaks_the_language(
    screen: Any, still: Any, macau: Macau, language: str
) -> None:
    for kind, path in _overlays(macau).items():
        separator = "&" if "?" in path else "?"
        address = f"{path}{separator}lang={language}"
        still.goto(f"{macau.base_url}/overlay/{macau.tournament_id}/{address}")
        served = shown_text(still)
        open_overlay(screen, macau, address)
        assert screen.evaluate("document.documentElement.lang") == language
        # the server and overlay.js say the same in every language
        assert shown_text(screen) == served, kind
        # a longer heading wraps rather than being cut off at the panel's edge
        clipped = screen.evaluate(
            "() => [...document.querySelectorAll('.head, .card-head')]"
            ".filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent)"
        )
        assert clipped == [], kind
        if language == "en-XA":
            assert unmarked_text(screen) == [], f"{kind}: text that no catalog translated"
        elif kind == "top":
            assert screen.text_content("[data-field=what]") == TOP_EIGHT[language]
    # no language switch on air
    assert screen.locator("nav.languages").count() == 0


def test_a_names_other_form_only_when_asked(screen: Any, macau: Macau) -> None:
    player, name, local = _player(macau, "JP")
    open_overlay(screen, macau, f"player/{player}?lang=ja&names=both")
    card = screen.locator("[data-field=names]")
    assert card.locator(".name").text_content() == local
    assert card.locator(".name").get_attribute("lang") == "ja"
    assert card.locator(".name").get_attribute("translate") == "no"
    assert card.locator(".other-name").text_content() == name
    assert any("CJK" in font for font in platform_fonts(screen, "[data-field=names] .name"))
    # without the parameter, the one name the language reads first
    open_overlay(screen, macau, f"player/{player}?lang=ja")
    assert card.locator(".name").text_content() == local
    assert card.locator(".other-name").count() == 0
    # in English, the Latin name first and the other form beneath, in its own glyphs
    open_overlay(screen, macau, f"player/{player}?lang=en&names=both")
    assert card.locator(".name").text_content() == name
    assert card.locator(".other-name").text_content() == local
    assert card.locator(".other-name").get_attribute("lang") == "ja"
    # a table's four players, each with both forms where they have two
    open_overlay(screen, macau, "table/1?lang=zh-Hant&names=both")
    seats = screen.locator("#seats .seat")
    assert seats.count() == 4
    for index in range(4):
        seat = seats.nth(index)
        _, local_name, _ = macau.local_names[str(seat.get_attribute("data-player"))]
        if local_name:
            assert seat.locator(".name").text_content() == local_name


@pytest.mark.parametrize("language", ["ja", "zh-Hant"])
def test_screens_of_an_overlay(screen: Any, macau: Macau, language: str, tmp_path: Path) -> None:
    """docs/screens/overlay-ja.png and overlay-zh-Hant.png (with SCOREBOARD_SCREENSHOTS set),
    on the chroma green so that the page shows."""
    folder = SCREENS if os.environ.get("SCOREBOARD_SCREENSHOTS") else tmp_path
    open_overlay(screen, macau, f"top?n=8&bg=green&names=both&lang={language}")
    assert any("CJK" in font for font in platform_fonts(screen, "[data-field=what]"))
    assert any("CJK" in font for font in platform_fonts(screen, "#rows .row .name"))
    folder.mkdir(parents=True, exist_ok=True)
    screen.screenshot(path=str(folder / f"overlay-{language}.png"))
