"""The hall's cut page says what each player near the line needs (issue 18, part 1), in real
Chromium against the server as a real process: a column more on the cut page alone, its words
those of the server's app/web/needs_words.py for the `needs` channel's rows (the players 4
places each side of the line; blank for the others), kept live when a hand is entered, on every
screen size the hall supports and in every language, a second language spoken in turn like the
other words, and an Ari Ari event in points. With SCOREBOARD_SCREENSHOTS set, writes
docs/screens/hall-cut-needs.png.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import Tablets, first_halves_open
from i18n_support import overflowing, unmarked_text
from test_hall import EXAMPLES, SCREEN_FAULTS, SCREEN_SIZES, SCREENS

from app import i18n
from app.read.needs import NeedsView
from app.web.needs_words import needs_short
from bench.load import Server, free_port, hand_headers, hands_url, import_log, issue_tokens

pytestmark = pytest.mark.slow

ADVANCE = 16
BAND = 4  # the `needs` channel's places each side of the line (app/read/views.py NEEDS_BAND)
HANDS_BEFORE = 3  # each table's hands before the tests: totals spread out around the line

# What the cut page shows, read in one go (the page redraws as the feed speaks): every row's
# player and needs cell, the column's head, and the `needs` channel's state it was drawn from.
SHOWN = """() => {
    const head = document.querySelector('.hall-columns .col-needs');
    return {
        page: document.getElementById('pager').dataset.page,
        head: head.hidden ? null : head.textContent,
        rows: [...document.querySelectorAll('#rows .hall-row')].map((row) => [
            row.dataset.player, row.querySelector('.col-needs')?.textContent ?? null]),
        state: window.hallDisplay.feed.states.get('needs') ?? null,
        lang: document.getElementById('hall').lang,
    };
}"""


def expected_words(state: dict[str, Any], language: str = "en") -> dict[str, str]:
    """The server's short words for each player of the `needs` channel's state."""
    with i18n.speaking(language, "hall"):
        return {
            player: needs_short(_view(row), state["ariari"])
            for player, row in state["rows"].items()
        }


def _view(row: dict[str, Any]) -> NeedsView:
    keys = ("table", "hands_left", "needs", "self_draw", "discard", "lose_self_draw")
    return {key: row[key] for key in (*keys, "lose_discard")}  # type: ignore[return-value]


def shown_matches_channel(shown: dict[str, Any], language: str = "en") -> list[str]:
    """Where the page's column says other than the server would for the channel's rows."""
    words = expected_words(shown["state"], language)
    return [
        f"{player}: {cell!r}, expected {words.get(player, '')!r}"
        for player, cell in shown["rows"]
        if cell != words.get(player, "")
    ]


@pytest.fixture(scope="module")
def judges(hall: Any) -> Iterator[Tablets]:
    with first_halves_open(hall) as tablets:
        for table in hall.round_one.tables:
            for _ in range(HANDS_BEFORE):
                tablets.enter(table)
        yield tablets


def open_cut(page: Any, base_url: str, tournament_id: int, query: str = "") -> dict[str, Any]:
    """The hall's cut page once its feed is live and the needs column has its words."""
    page.goto(f"{base_url}/hall/{tournament_id}?page=cut&{query}")
    page.wait_for_function(
        "() => window.hallDisplay?.feed.status === 'live'"
        " && window.hallDisplay.feed.states.get('needs')"
        " && [...document.querySelectorAll('#rows .hall-row .col-needs')]"
        "      .some((cell) => cell.textContent !== '')"
        " && !/^\\d+$/.test(document.querySelector('#rows .name-text')?.textContent ?? '1')",
        polling=100,
        timeout=10_000,
    )
    return dict(page.evaluate(SHOWN))


def test_the_cut_page_says_what_each_player_near_the_line_needs(
    page: Any, hall: Any, judges: Tablets
) -> None:
    shown = open_cut(page, hall.base_url, hall.tournament_id, "rows=16")
    assert shown["page"] == "cut"
    assert shown["head"] == "Next hand"
    state = shown["state"]
    assert state["advance"] == ADVANCE and not state["ariari"]
    # the channel holds the players 4 places each side of the line, each with what they need
    positions = sorted(row["position"] for row in state["rows"].values())
    assert positions == list(range(ADVANCE - BAND + 1, ADVANCE + BAND + 1)), positions
    assert shown_matches_channel(shown) == []
    filled = [player for player, cell in shown["rows"] if cell]
    assert len(filled) == 2 * BAND  # every one of them at a table with hands left
    blank = [player for player, cell in shown["rows"] if player not in state["rows"]]
    assert len(blank) == 16 - 2 * BAND and all(not cell for _, cell in shown["rows"][:4])
    # the words are a WSOM table's: a self-draw and a discard win, or how much they can lose
    words = " ".join(cell for _, cell in shown["rows"])
    assert "self-draw" in words and "discard" in words, words
    cells = dict(shown["rows"])
    for player, row in state["rows"].items():
        if row["needs"] == "over the line":
            # safe to some loss, or dropped by any hand of a kind (rule HS-3's smallest)
            cell = cells[player]
            assert cell.startswith("safe") or cell.endswith("drops them"), (player, cell)
        elif row["needs"] == "can reach":
            assert "self-draw" in cells[player] or "discard" in cells[player], cells[player]


def test_a_hand_entered_changes_the_column(page: Any, hall: Any, judges: Tablets) -> None:
    # every row on the page, so the winner's row stays on it wherever the hand takes them
    shown = open_cut(page, hall.base_url, hall.tournament_id, "rows=64")
    state = shown["state"]
    # The first player below the line wins the smallest self-draw that lifts them over it.
    below = min(
        (row for row in state["rows"].values() if not row["above_cut"]),
        key=lambda row: row["position"],
    )
    player, table = str(below["player"]), below["table"]
    before = dict(shown["rows"])[player]
    assert below["needs"] == "can reach" and below["self_draw"] is not None, below
    value = below["self_draw"]
    judges.enter(table, {"kind": "self_draw", "winner": player, "value": value})
    page.wait_for_function(
        "([player, before]) => {"
        " const row = document.querySelector(`#rows .hall-row[data-player='${player}']`);"
        " return row && row.querySelector('.col-needs').textContent !== before; }",
        arg=[player, before],
        polling=100,
        timeout=10_000,
    )
    after = page.evaluate(SHOWN)
    assert shown_matches_channel(after) == []
    # over the line now: safe to some loss (or dropped by any hand of a kind), or out of the
    # channel's band above it
    now = after["state"]["rows"].get(player)
    cell = dict(after["rows"])[player]
    over = cell.startswith("safe") or cell.endswith("drops them")
    assert (now is None and cell == "") or (now["above_cut"] and over), cell


def test_numbered_pages_have_no_needs_column(page: Any, hall: Any, judges: Tablets) -> None:
    open_cut(page, hall.base_url, hall.tournament_id, "rows=16")
    page.goto(f"{hall.base_url}/hall/{hall.tournament_id}?page=1&rows=16")
    page.wait_for_function(
        "() => window.hallDisplay?.feed.status === 'live'"
        " && window.hallDisplay.feed.states.get('needs')"
        " && document.querySelectorAll('#rows .hall-row').length === 16",
        polling=100,
        timeout=10_000,
    )
    shown = page.evaluate(SHOWN)
    assert shown["page"] == "1" and shown["head"] is None
    assert all(cell is None for _, cell in shown["rows"]), shown["rows"]
    # ... and the rotation brings the column back with the cut page, and takes it away again
    page.clock.install()
    page.goto(f"{hall.base_url}/hall/{hall.tournament_id}?rows=16&interval=5")
    page.wait_for_function(
        "() => window.hallDisplay?.feed.status === 'live'"
        " && window.hallDisplay.feed.states.get('needs')"
        " && document.querySelectorAll('#rows .hall-row').length === 16",
        polling=100,
        timeout=10_000,
    )
    seen = []
    for _ in range(5):
        shown = page.evaluate(SHOWN)
        seen.append((shown["page"], shown["head"] is not None))
        if shown["page"] == "cut":
            assert shown_matches_channel(shown) == []
        page.clock.run_for(5_000)
    assert seen == [("1", False), ("2", False), ("3", False), ("4", False), ("cut", True)]


@pytest.mark.parametrize("language", ["en", "ja", "zh-Hant", "zh-Hans", "ko", "en-XA"])
def test_the_column_fits_every_screen_in_every_language(
    page: Any, hall: Any, judges: Tablets, language: str
) -> None:
    shown = open_cut(page, hall.base_url, hall.tournament_id, f"lang={language}")
    assert shown["lang"] == language
    faults: list[str] = []
    for rows in (None, 24):
        query = f"lang={language}" + (f"&rows={rows}" if rows else "")
        open_cut(page, hall.base_url, hall.tournament_id, query)
        for width, height in SCREEN_SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_function(
                "([w, h]) => window.hallDisplay.laidOut?.width === w"
                " && window.hallDisplay.laidOut?.height === h",
                arg=[width, height],
                polling=50,
            )
            where = f"{width}x{height}, rows={rows or 'default'}"
            seen = page.evaluate(SCREEN_FAULTS)
            faults += [f"{where}: {fault}" for fault in seen["faults"]]
            faults += [f"{where}: {fault}" for fault in overflowing(page)]
            shown = page.evaluate(SHOWN)
            faults += [f"{where}: {fault}" for fault in shown_matches_channel(shown, language)]
            if not any(cell for _, cell in shown["rows"]):
                faults.append(f"{where}: no needs on the screen")
            if language == "en-XA":
                faults += [f"{where}: {text}" for text in unmarked_text(page)]
    assert not faults, "\n".join(faults[:40])


def test_a_hall_in_two_languages_says_the_needs_in_turn(
    page: Any, hall: Any, judges: Tablets
) -> None:
    # the second beneath: the column's head in both, its words in the first like the rows'
    shown = open_cut(page, hall.base_url, hall.tournament_id, "lang=en&second=zh-Hant")
    head = page.locator(".hall-columns .col-needs")
    assert head.locator(".second").text_content() == "下一局所需"
    assert head.locator(".second").get_attribute("lang") == "zh-Hant"
    assert shown_matches_channel(shown, "en") == []
    # page by page: the whole screen turns, the needs with it
    page.clock.install()
    shown = open_cut(
        page, hall.base_url, hall.tournament_id, "lang=en&second=ja&bilingual=alternate&interval=5"
    )
    assert shown["lang"] == "en" and shown["head"] == "Next hand"
    assert shown_matches_channel(shown, "en") == []
    page.clock.run_for(5_000)
    shown = page.evaluate(SHOWN)
    assert shown["lang"] == "ja" and shown["head"] == "次局の条件"
    assert shown_matches_channel(shown, "ja") == []
    assert any(cell for _, cell in shown["rows"])


@dataclass(frozen=True)
class AriAri:
    base_url: str
    tournament_id: int
    games_over: int  # the example's round 1 with every game of it played, not yet ended


@pytest.fixture(scope="module")
def ariari(browser: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AriAri]:
    """The Ari Ari example's round 1 (8 players at 2 tables, 4 advance) after one hand: p3
    wins a ron of 3,900 on p2's discard (rules AA-2, AA-3), so p2 needs a tsumo or a ron
    of thousands of points and p3 can lose some (tests/integration/test_feed_needs.py)."""
    folder = tmp_path_factory.mktemp("ariari")
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    example = (EXAMPLES / "ariari.jsonl").read_text(encoding="utf-8").splitlines()
    opening = example[: next(i for i, t in enumerate(example) if '"type": "hand"' in t)]
    tournament_id = import_log(url, opening, folder)
    (folder / "over").mkdir()
    played = example[: next(i for i, t in enumerate(example) if '"round_end"' in t)]
    games_over = import_log(url, played, folder / "over")
    tokens = issue_tokens(url, tournament_id, [1, 2])
    ron = {
        "kind": "ron",
        "discarder": "p2",
        "wins": [{"winner": "p3", "yaku": 1, "fan": 3, "fu": 30}],
    }
    first = {"round": 1, "segment": 1, "table": 1, "hand": 1, "result": ron}
    with Server(url, free_port(), folder / "server.log") as server:
        httpx.post(
            hands_url(server.base_url, tournament_id),
            json=first,
            headers=hand_headers(tokens[1], "hall-needs-ariari-1"),
            timeout=10,
        ).raise_for_status()
        yield AriAri(server.base_url, tournament_id, games_over)


def test_an_ariari_round_says_its_needs_in_points(page: Any, ariari: AriAri) -> None:
    shown = open_cut(page, ariari.base_url, ariari.tournament_id)
    assert shown["state"]["ariari"] is True
    assert shown_matches_channel(shown) == []
    words = " ".join(cell for _, cell in shown["rows"] if cell)
    assert "self-draw" not in words and "discard" not in words, words
    # rule AA-3: p2, East now, needs a dealer's tsumo of 4,500 or a ron of 4,400
    assert dict(shown["rows"])["p2"] == "4,500 tsumo · 4,400 ron"
    assert dict(shown["rows"])["p3"].startswith("safe to "), shown["rows"]


def test_screenshot_of_the_cut_page_with_its_needs(page: Any, hall: Any, judges: Tablets) -> None:
    if not os.environ.get("SCOREBOARD_SCREENSHOTS"):
        pytest.skip("writes docs/screens only with SCOREBOARD_SCREENSHOTS set")
    open_cut(page, hall.base_url, hall.tournament_id)
    Path(SCREENS).mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / "hall-cut-needs.png"))


def test_no_column_while_no_one_at_the_line_has_a_hand_left(page: Any, ariari: AriAri) -> None:
    # Every game of the round is over: the channel holds the players near the line, each with
    # no hand left, and the cut page keeps its room for the names.
    page.goto(f"{ariari.base_url}/hall/{ariari.games_over}?page=cut")
    page.wait_for_function(
        "() => window.hallDisplay?.feed.status === 'live'"
        " && window.hallDisplay.feed.states.get('needs')"
        " && document.querySelectorAll('#rows .hall-row').length > 0",
        polling=100,
        timeout=10_000,
    )
    shown = page.evaluate(SHOWN)
    assert shown["page"] == "cut" and shown["state"]["rows"]
    assert {row["needs"] for row in shown["state"]["rows"].values()} == {"no hand left"}
    assert shown["head"] is None
    assert all(cell is None for _, cell in shown["rows"]), shown["rows"]
