"""The story overlay (issue 18, part 2) and CasparCG's HTML template protocol in real
Chromium, against the server as a real process (one round 1, 64 players, four hands deep at
every table):

- every part of the story drawn by overlay.js as the server draws it first, the cards in the
  order app/web/overlay.py gives them, a card turning when its seconds are up, and a new hand
  on the story as soon as the live feed brings it;
- play(), stop(), next() and update(data) called in the page as CasparCG's HTML producer
  calls them (its html_cg_proxy: `play()`, `update("...")`), `?caspar=1` and CasparCG's own
  `window.caspar` starting the page off air, and every overlay on air by itself otherwise
  (OBS, vMix).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from e2e_support import Tablets, first_halves_open, open_overlay, shown_text

from app.web.overlay import STORY_PARTS, story_cards

pytestmark = pytest.mark.slow

FULL_HD = {"viewport": {"width": 1920, "height": 1080}}
PLAYED = 4  # hands at every table before the tests
SLOW = "seconds=60"  # a card stays on air through a test that compares frames


@pytest.fixture(scope="module")
def tables(hall: Any) -> Iterator[Tablets]:
    with first_halves_open(hall) as tablets:
        for _ in range(PLAYED):
            for table in hall.round_one.tables:
                tablets.enter(table)
        yield tablets


def first_frame(browser: Any, hall: Any, path: str) -> str:
    """The overlay as the server draws it, before any script."""
    context = browser.new_context(**FULL_HD, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{hall.base_url}/overlay/{hall.tournament_id}/{path}")
        return shown_text(page)
    finally:
        context.close()


def card(page: Any) -> str:
    return str(page.get_attribute("#story", "data-card"))


def on_air(page: Any) -> bool:
    """Whether the graphic is on air, as a mixer would see it: fully drawn, or not at all."""
    state = page.evaluate("() => document.body.dataset.onAir")
    opacity = "1" if state == "true" else "0"
    page.wait_for_function(
        "(o) => getComputedStyle(document.querySelector('#safe > *')).opacity === o",
        arg=opacity,
        polling=50,
        timeout=3_000,
    )
    return bool(state == "true")


def test_every_part_is_drawn_live_as_the_server_draws_it(
    browser: Any, page: Any, hall: Any, tables: Tablets
) -> None:
    for part in STORY_PARTS:
        path = f"story?only={part}&{SLOW}"
        served = first_frame(browser, hall, path)
        open_overlay(page, hall, path)
        assert shown_text(page) == served, part
        assert served.strip(), part


def test_the_cards_come_in_the_servers_order_and_next_turns_them(
    page: Any, hall: Any, tables: Tablets
) -> None:
    open_overlay(page, hall, f"story?{SLOW}")
    stats = page.evaluate("() => overlayFeed.states.get('stats')")
    config = json.loads(page.text_content("#overlay-config"))
    expected = [
        shown["key"] for shown in story_cards(stats, STORY_PARTS, config["names"], config["rounds"])
    ]
    # four hands at 16 tables: the round's and the segment's biggest hands, climbers,
    # fallers, the tables' leaders and the counts at least
    assert {"hands-round", "climbers", "fallers", "leaders", "counts"} <= set(expected)
    seen = [card(page)]
    for _ in range(len(expected) - 1):
        page.evaluate("() => next()")  # CasparCG's CG NEXT
        seen.append(card(page))
    assert seen == expected
    page.evaluate("() => next()")
    assert card(page) == expected[0]  # round again


def test_a_card_turns_when_its_seconds_are_up(page: Any, hall: Any, tables: Tablets) -> None:
    open_overlay(page, hall, "story?seconds=3")
    first = card(page)
    page.wait_for_function(
        "(first) => document.getElementById('story').dataset.card !== first",
        arg=first,
        polling=100,
        timeout=10_000,
    )


def test_a_new_biggest_hand_is_on_the_story_at_once(
    browser: Any, page: Any, hall: Any, tables: Tablets
) -> None:
    open_overlay(page, hall, f"story?only=hands&{SLOW}")
    biggest = page.evaluate("() => overlayFeed.states.get('stats').hands.round[0].value")
    assert biggest < 320  # rule HS-3: the largest hand there is
    table = next(number for number in hall.round_one.tables if tables.entered(number) < 8)
    winner = tables.seats[table][1]
    number = tables.enter(table, {"kind": "self_draw", "winner": winner, "value": 320})
    first = page.locator("#rows .story-row").first
    page.wait_for_function(
        "(p) => document.querySelector('#rows .story-row')?.dataset.player === p",
        arg=winner,
        polling=50,
        timeout=5_000,
    )
    assert first.locator(".figure").text_content() == "320"
    assert first.locator(".note").text_content() == "Self-draw"
    assert first.locator(".aside").text_content() == f"Half 1 · Table {table} · Hand {number}"
    # and the same as the server's fresh first frame
    assert shown_text(page) == first_frame(browser, hall, f"story?only=hands&{SLOW}")


# -- CasparCG's HTML template protocol --------------------------------------------------


def test_caspar_starts_off_air_and_plays_steps_updates_and_stops(
    page: Any, hall: Any, tables: Tablets
) -> None:
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    open_overlay(page, hall, f"story?caspar=1&{SLOW}")
    assert not on_air(page)
    # CG ADD's data comes first (html_cg_proxy::add calls update, then play)
    page.evaluate("""() => update('{"only": "hands,leaders"}')""")
    page.evaluate("() => play()")
    assert on_air(page)
    assert card(page) == "hands-round"
    page.evaluate("() => next()")
    assert card(page) in ("hands-segment", "leaders")
    page.evaluate("""() => update('{"card": "leaders"}')""")
    assert card(page) == "leaders"
    # CasparCG's templateData XML, as its client sends a field by default
    xml = (
        '<templateData><componentData id="card"><data id="text" value="hands"/>'
        "</componentData></templateData>"
    )
    page.evaluate("(xml) => update(xml)", xml)
    assert card(page) == "hands-round"
    # what the page would refuse in its address is passed over
    page.evaluate("""() => update('{"only": "gossip", "card": "nothing"}')""")
    page.evaluate("() => update('not data at all')")
    assert card(page) == "hands-round"
    page.evaluate("() => stop()")
    assert not on_air(page)
    # played again, the story begins again from its first card
    page.evaluate("() => next()")
    page.evaluate("() => play()")
    assert on_air(page)
    assert card(page) == "hands-round"
    assert problems == []


def test_inside_casparcg_the_page_starts_off_air_without_asking(
    browser: Any, hall: Any, tables: Tablets
) -> None:
    """CasparCG sets no user agent of its own (CEF's Chrome one); its HTML producer puts
    `window.caspar` into every page before the page's scripts run, as this init script does."""
    context = browser.new_context(**FULL_HD)
    try:
        page = context.new_page()
        page.add_init_script("window.caspar = window.casparcg = {};")
        open_overlay(page, hall, "top")
        assert not on_air(page)
        page.evaluate("() => play()")
        assert on_air(page)
    finally:
        context.close()


def test_every_overlay_is_on_air_by_itself_and_answers_the_protocol(
    page: Any, hall: Any, tables: Tablets
) -> None:
    top = httpx.get(f"{hall.base_url}/feeds/{hall.tournament_id}/top.json").json()
    leader = top[0]["Player"]
    for path in ("top", "cut", "bubble", f"player/{leader}", "table/1", "clock", "story"):
        open_overlay(page, hall, path)
        assert on_air(page), path  # OBS or vMix: nobody calls play()
        kinds = page.evaluate("() => [play, stop, next, update].map((f) => typeof f)")
        assert kinds == ["function"] * 4, path
        page.evaluate("() => { next(); update('{}'); }")  # harmless where there is no step
        assert on_air(page), path
        page.evaluate("() => stop()")
        assert not on_air(page), path
        page.evaluate("() => play()")
        assert on_air(page), path


def test_update_changes_what_each_overlay_shows(page: Any, hall: Any, tables: Tablets) -> None:
    open_overlay(page, hall, "top?caspar=1")
    page.evaluate("""() => { update('{"n": 5}'); play(); }""")
    assert page.locator("#rows .row").count() == 5
    page.evaluate("""() => update('{"n": 99}')""")  # out of bounds: passed over
    assert page.locator("#rows .row").count() == 5
    open_overlay(page, hall, "bubble")
    page.evaluate("""() => update('{"n": 1}')""")
    assert page.locator("#rows .row").count() == 2
    # the player card: another registered player, drawn from their channel when it comes
    open_overlay(page, hall, "table/1")
    seated = page.locator("#seats .seat").first.get_attribute("data-player")
    open_overlay(page, hall, "table/2")
    other = page.locator("#seats .seat").first.get_attribute("data-player")
    assert seated != other
    page.evaluate("""() => update('{"table": 1}')""")
    page.wait_for_function(
        "(p) => document.querySelector('#seats .seat')?.dataset.player === p",
        arg=seated,
        polling=50,
        timeout=5_000,
    )
    open_overlay(page, hall, f"player/{seated}")
    page.evaluate("(p) => update(JSON.stringify({player: p}))", other)
    page.wait_for_function(
        "(name) => document.querySelector('[data-field=names] .name').textContent === name",
        arg=page.evaluate(
            "(p) => JSON.parse(document.getElementById('overlay-config')"
            ".textContent).names[p].name",
            other,
        ),
        polling=50,
        timeout=5_000,
    )


def test_update_in_another_language_comes_back_in_it_on_air(
    page: Any, hall: Any, tables: Tablets
) -> None:
    open_overlay(page, hall, "top?caspar=1")
    page.evaluate("() => play()")
    with page.expect_navigation():
        page.evaluate("""() => update('{"lang": "ja", "n": 4}')""")
    page.wait_for_function(
        "() => document.body.dataset.feed === 'live' && document.body.dataset.version",
        polling=100,
        timeout=10_000,
    )
    assert page.evaluate("() => document.documentElement.lang") == "ja"
    assert "lang=ja" in page.url
    assert on_air(page)  # it was on air: it comes back on air
    assert page.locator("#rows .row").count() == 4
    assert page.text_content("[data-field=what]") == "第1ラウンド · 上位4名"
