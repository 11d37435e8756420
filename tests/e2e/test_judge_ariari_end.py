"""The judge's tablet at the end of an Ari Ari game (issue 13), in real Chromium against the
server as a real process: the game's last hand shows what it paid, the leftover riichi bets
and the uma get a row of their own, the seat cards keep the players' points and give each
place, bets, uma and result, and the tablet says who took the bets left on the table.

The game (examples/ariari.jsonl's opening, East-only games of 20,000; table 1: p1 East, p2,
p3, p4): p1, the dealer, makes a chombo (4,000 to each, AA-10), declares riichi in two
exhaustive draws where only p1 is tenpai (2,000 stay on the table), and the judge enters a
second chombo from the tablet, which takes p1 to -6,000 (AA-14). p2, p3 and p4 are level
first at 28,000: the bets are 668, 666 and 666, the remainder to p2, nearest the starting
East (AA-15, AA-21); the uma of places 1 to 3, 10,000, is 3,334, 3,333 and 3,333 (AA-16,
AA-21).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import wait_for
from playwright.sync_api import expect

from bench.load import Server, free_port, import_log, issue_tokens

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ariari.jsonl"
CHOMBO_P1 = {"kind": "chombo", "offender": "p1"}
DRAW_P1_TENPAI = {"kind": "exhaustive_draw", "tenpai": ["p1"], "riichi": ["p1"]}


@pytest.fixture(scope="module")
def tablet_url(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("ariari-end")
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    lines = []
    for text in EXAMPLE.read_text().splitlines():
        if json.loads(text)["type"] == "hand":
            break
        lines.append(text)
    for number, result in enumerate((CHOMBO_P1, DRAW_P1_TENPAI, DRAW_P1_TENPAI), 1):
        hand = {"type": "hand", "round": 1, "segment": 1, "table": 1, "hand": number}
        lines.append(json.dumps({**hand, "result": result}))
    tournament_id = import_log(url, lines, folder)
    tokens = issue_tokens(url, tournament_id, [1])
    with Server(url, free_port(), folder / "server.log") as server:
        yield f"{server.base_url}/judge?token={tokens[1]}"


def test_the_end_of_the_game_shows_the_bets_and_uma_apart(browser: Any, tablet_url: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True)
    try:
        page = context.new_page()
        page.goto(tablet_url)
        wait_for(page, "() => window.judgeTablet && judgeTablet.table && judgeTablet.table.game")
        wait_for(page, "() => judgeTablet.nextHand(judgeTablet.segment()) === 4")
        # The judge enters p1's second chombo and hears that it ends the game
        page.tap('#aa-outcomes [data-aa-kind="chombo"]')
        page.tap('[data-role="aa-offender"] [data-player="p1"]')
        page.tap("#entry-review")
        assert page.text_content("#review-summary .aa-game-ends") == (
            " This hand ends the game: bankruptcy (rule AA-14); the 2,000 in riichi bets left on"
            " the table go to first place, and the uma is added after it."
        )
        page.tap("#review-send")
        wait_for(page, "() => Boolean(judgeTablet.table.game.ended)", 15_000)
        wait_for(page, "() => judgeTablet.nextHand(judgeTablet.segment()) === null")
        assert page.text_content("#next-dealer") == (
            "The game ended after hand 4: bankruptcy (rule AA-14). Riichi bets left on the "
            "table, 2,000: Ben Stone 668, Chloe Park 666, Dara Quinn 666 (rule AA-15)"
        )
        # The seat cards: the points the players hold, then the game's result (AA-17). The
        # result follows the table's live channel, which may come a moment before or after
        # the hand's answer: each is waited for, up to expect's timeout. (On a loaded machine
        # p1's card once read 4,000 here, its points less the game's bets and uma, when the
        # channel came first; tests/js/state.test.js holds the fix.)
        expect(page.locator("#seat-cards .score")).to_have_text(
            ["-6,000", "28,000", "28,000", "28,000"], use_inner_text=True
        )
        expect(page.locator("#seat-cards .aa-result")).to_have_text(
            [
                "4th · uma −10,000 · result −36,000",
                "1st · bets +668 · uma +3,334 · result +12,002",
                "1st · bets +666 · uma +3,333 · result +11,999",
                "1st · bets +666 · uma +3,333 · result +11,999",
            ],
            use_inner_text=True,
        )
        # Hand 4 is the chombo alone; the bets and the uma follow on a row of their own
        last = page.locator('#hands tbody tr[data-hand="4"]:not([data-end])')
        expect(last.locator(".delta")).to_have_text(
            ["−12,000", "+4,000", "+4,000", "+4,000"], use_inner_text=True
        )
        expect(last.locator(".running")).to_have_text(
            ["-6,000", "28,000", "28,000", "28,000"], use_inner_text=True
        )
        end = page.locator('#hands tbody tr[data-end="game"]')
        expect(end.locator("td.value")).to_have_text("Game end: bets and uma", use_inner_text=True)
        expect(end.locator(".delta")).to_have_text(
            ["−10,000", "+4,002", "+3,999", "+3,999"], use_inner_text=True
        )
        expect(end.locator(".running")).to_have_text(
            ["-16,000", "32,002", "31,999", "31,999"], use_inner_text=True
        )
    finally:
        context.close()
