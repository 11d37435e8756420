"""The spectator's player page and the overlays of an Ari Ari event in real Chromium (issue 13):
their scripts draw the live feed's states in whole points with thousands separators (rule
AA-17, decision AA-31), and a final, which has no cut, draws without an error.

The event is examples/ariari.jsonl without its last line: the final is being played, each
finalist with a quarter of their round 1 total carried over (SC-3).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import wait_for

from app.domain.ariari import points_shown
from bench.load import Server, free_port, import_log

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ariari.jsonl"


@pytest.fixture(scope="module")
def final(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    folder = tmp_path_factory.mktemp("ariari-final")
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    lines = EXAMPLE.read_text().splitlines()
    assert json.loads(lines[-1]) == {"type": "round_end", "round": 2}
    tournament_id = import_log(url, lines[:-1], folder)
    with Server(url, free_port(), folder / "server.log") as server:
        yield server.base_url, tournament_id


def opened(browser: Any, url: str, viewport: dict[str, int]) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    return context, page, errors


def test_a_finalists_page_draws_points_live(browser: Any, final: tuple[str, int]) -> None:
    base_url, tid = final
    context, page, errors = opened(
        browser, f"{base_url}/p/p2?t={tid}", {"width": 390, "height": 844}
    )
    try:
        wait_for(page, "() => document.querySelector('.feed-status.status-live') !== null")
        page.wait_for_timeout(500)  # the first states of the feed are drawn
        assert errors == []
        total = page.text_content("#total")
        assert total is not None and "." not in total
        assert page.text_content("#distance").strip() == ""  # a final has no cut
        assert "of 100" not in page.inner_text("body")
    finally:
        context.close()


def test_the_overlays_draw_the_feed_in_points(browser: Any, final: tuple[str, int]) -> None:
    base_url, tid = final
    context, page, errors = opened(
        browser, f"{base_url}/overlay/{tid}/top", {"width": 1920, "height": 1080}
    )
    try:
        # the standings' snapshot drawn (the overlay marks its version once it has drawn it)
        wait_for(page, "() => (document.body.dataset.version || '') !== ''")
        totals = page.locator("#rows .total").all_inner_texts()
        assert totals and all("." not in total for total in totals), totals
        standings = page.evaluate("() => overlayFeed.states.get('standings')")
        expected = [
            points_shown(row["total"], minus="\u2212")
            for row in sorted(standings["rows"].values(), key=lambda row: row["position"])
        ]
        assert totals == expected
        assert errors == []
    finally:
        context.close()
