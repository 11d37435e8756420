"""The bubble overlay (issue 18) of an Ari Ari event in real Chromium: overlay.js draws the
`needs` channel in points, the totals whole with thousands separators (rule AA-17) and what
each player needs as a tsumo and a ron (AA-22), the same as the server's first frame; and in
the final, which has no cut (rule ST-3), it says so, live as on the first frame. The story overlay
(issue 18, part 2) of the same round says its hands in points too, tsumo and ron (AA-22).

The events are examples/ariari.jsonl: its first two hands (round 1, 8 players, 4 advance), and
the whole log but its last line (the final being played).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import open_overlay, shown_text

from app.web.overlay import STORY_PARTS
from bench.load import Server, free_port, import_log

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ariari.jsonl"
FULL_HD = {"viewport": {"width": 1920, "height": 1080}}


class Event:
    def __init__(self, base_url: str, tournament_id: int) -> None:
        self.base_url = base_url
        self.tournament_id = tournament_id


def _serve(folder: Path, lines: list[str]) -> Iterator[Event]:
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    tournament_id = import_log(url, lines, folder)
    with Server(url, free_port(), folder / "server.log") as server:
        yield Event(server.base_url, tournament_id)


@pytest.fixture(scope="module")
def round_one(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Event]:
    lines = EXAMPLE.read_text().splitlines()
    hands = [n for n, text in enumerate(lines) if json.loads(text)["type"] == "hand"]
    yield from _serve(tmp_path_factory.mktemp("ariari-r1"), lines[: hands[1] + 1])


@pytest.fixture(scope="module")
def final(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Event]:
    lines = EXAMPLE.read_text().splitlines()
    assert json.loads(lines[-1]) == {"type": "round_end", "round": 2}
    yield from _serve(tmp_path_factory.mktemp("ariari-final"), lines[:-1])


def first_frame(browser: Any, event: Event, path: str) -> str:
    """The overlay as the server draws it, before any script."""
    context = browser.new_context(**FULL_HD, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{event.base_url}/overlay/{event.tournament_id}/{path}")
        return shown_text(page)
    finally:
        context.close()


def test_an_ari_ari_bubble_draws_points_live(browser: Any, page: Any, round_one: Event) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_overlay(page, round_one, "bubble?n=4")
    assert shown_text(page) == first_frame(browser, round_one, "bubble?n=4")
    assert page.locator("#rows .row").count() == 8
    assert page.text_content("#rows .cut-line") == "Top 4 advance"
    totals = page.locator("#rows .total").all_text_contents()
    assert all("." not in total for total in totals), totals
    assert any("," in total for total in totals), totals  # p2's yakuman: 32,000 and more
    words = " ".join(page.locator("#rows .needs").all_text_contents())
    assert "self-draw" not in words and "discard" not in words, words
    assert "tsumo" in words or "ron" in words or "deal-in" in words, words
    assert errors == []


def test_a_final_has_no_line_and_says_so_live(browser: Any, page: Any, final: Event) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_overlay(page, final, "bubble")
    assert page.locator("#rows .row").count() == 0
    assert page.locator("[data-field=empty]").is_visible()
    assert page.text_content("[data-field=empty]") == "No cut this round"
    assert shown_text(page) == first_frame(browser, final, "bubble")
    assert errors == []


def test_an_ari_ari_story_draws_points_live(browser: Any, page: Any, round_one: Event) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    for part in STORY_PARTS:
        path = f"story?only={part}&seconds=60"
        open_overlay(page, round_one, path)
        assert shown_text(page) == first_frame(browser, round_one, path), part
    open_overlay(page, round_one, "story?only=hands&seconds=60")
    figures = page.locator("#rows .figure").all_text_contents()
    assert "32,000" in figures, figures  # p2's yakuman, its value as AA-22 counts it
    notes = set(page.locator("#rows .note").all_text_contents())
    assert notes and notes <= {"Tsumo", "Ron"}, notes
    open_overlay(page, round_one, "story?only=movers&seconds=60")
    shown = " ".join(page.locator("#rows .story-row").all_text_contents())
    assert ".00" not in shown and "," in shown, shown  # points, not 2 decimals (AA-17)
    assert errors == []
