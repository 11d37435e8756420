"""The judge's tablet at an Ari Ari table (issues 6 and 7) in real Chromium, against the
server as a real process: the tablet's payments agree with the server's game hand by hand,
a ron with a riichi is entered by taps and reviewed with the bets on the table, and hands
queued offline are reviewed from the game as the hands before them leave it, then land once.
With SCOREBOARD_SCREENSHOTS set, the ron test writes docs/screens/judge-ariari.png.

The tournament is the first lines of examples/ariari.jsonl: eight players, two tables of an
East-only game (rule AA-1: 20,000 points each).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import review_deltas, wait_for

from app.domain.ariari import (
    RIICHI_BET,
    VALID_FU,
    AriAriRules,
    parse_result,
    play_game,
    rules_from_log,
)
from bench.load import Server, free_port, import_log, issue_tokens

pytestmark = pytest.mark.slow

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ariari.jsonl"
TABLET = {"width": 1280, "height": 800}


@dataclass(frozen=True)
class Club:
    base_url: str
    tournament_id: int
    tokens: dict[int, str]
    seats: dict[int, list[str]]


@pytest.fixture(scope="module")
def club(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    folder = tmp_path_factory.mktemp("club")
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    setup = [
        line
        for line in EXAMPLE.read_text().splitlines()
        if json.loads(line)["type"] in ("tournament", "player", "seating")
        and json.loads(line).get("round", 1) == 1
        and json.loads(line).get("segment", 1) == 1
    ]
    seats = {
        json.loads(line)["table"]: json.loads(line)["seats"]
        for line in setup
        if json.loads(line)["type"] == "seating"
    }
    tournament_id = import_log(url, setup, folder)
    tokens = issue_tokens(url, tournament_id, sorted(seats))
    with Server(url, free_port(), folder / "server.log") as server:
        yield Club(server.base_url, tournament_id, tokens, seats)


@pytest.fixture
def tablet(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=TABLET, has_touch=True)
    yield context
    context.close()


def open_tablet(context: Any, club: Club, table: int) -> Any:
    page = context.new_page()
    page.goto(f"{club.base_url}/judge?token={club.tokens[table]}")
    wait_for(page, "() => window.judgeTablet && judgeTablet.who && judgeTablet.table")
    return page


def random_game(rng: random.Random, seats: list[str], rules: AriAriRules) -> list[dict[str, Any]]:
    """Results for one whole game, each legal where it falls, played by the server's rules."""
    results: list[dict[str, Any]] = []
    while True:
        game = play_game(
            tuple(seats),  # type: ignore[arg-type]
            [(n + 1, parse_result(r)) for n, r in enumerate(results)],
            rules,
        )
        if game.ended is not None or len(results) >= 40:
            return results
        points = dict(game.points)

        def win(player: str) -> dict[str, Any]:
            if rng.random() < 0.2:
                limit = rng.choice(["mangan", "haneman", "yakuman"])
                return {"winner": player, "limit": limit, "yaku": 2}
            fan = rng.randint(1, 6)
            return {"winner": player, "fan": fan, "fu": rng.choice(sorted(VALID_FU)), "yaku": 2}

        kind = rng.choice(["ron", "ron", "tsumo", "exhaustive_draw", "chombo"])
        if kind == "ron":
            discarder = rng.choice(seats)
            others = [p for p in seats if p != discarder]
            winners = rng.sample(others, 2 if rng.random() < 0.2 else 1)
            result: dict[str, Any] = {
                "kind": "ron",
                "discarder": discarder,
                "wins": [win(p) for p in winners],
            }
        elif kind == "tsumo":
            result = {"kind": "tsumo", **win(rng.choice(seats))}
        elif kind == "exhaustive_draw":
            result = {"kind": "exhaustive_draw", "tenpai": [p for p in seats if rng.random() < 0.5]}
        else:
            result = {"kind": "chombo", "offender": rng.choice(seats)}
        riichi = [p for p in seats if points[p] >= RIICHI_BET and rng.random() < 0.3]
        if riichi:
            result["riichi"] = riichi
        results.append(result)


def test_the_tablets_payments_agree_with_the_servers_game(page: Any, club: Club) -> None:
    """rules AA-2 to AA-16: ariari.js moves a game on exactly as app/domain/ariari.py plays
    it, hand by hand, over many random games (tenpai payments on, rule AA-25)."""
    page.goto(f"{club.base_url}/static/judge.css")  # any page of the server: the module's origin
    rng = random.Random(7)
    seats = ["p1", "p2", "p3", "p4"]
    for length, tenpai in (("east_only", 3000), ("east_south", 0)):
        rules = rules_from_log({"length": length, "tenpai_payment": tenpai})
        for _ in range(12):
            results = random_game(rng, seats, rules)
            game = play_game(
                tuple(seats),  # type: ignore[arg-type]
                [(n + 1, parse_result(r)) for n, r in enumerate(results)],
                rules,
            )
            expected = [
                {
                    "dealer": hand.dealer,
                    "counters": hand.counters,
                    "bets": hand.bets_before,
                    "deltas": dict(hand.deltas),
                    "ended": hand.ended,
                }
                for hand in game.hands
            ]
            shown = page.evaluate(
                """async ([results, seats, rules]) => {
                    const { advance } = await import('/static/ariari.js');
                    let table = { seats, dealer: seats[0], counters: 0, bets: 0, passes: 0,
                                  points: Object.fromEntries(seats.map((p) => [p, rules.start])),
                                  tenpai_payment: rules.tenpai, rotations: rules.rotations };
                    const out = [];
                    for (const result of results) {
                        const next = advance(table, result);
                        out.push({ dealer: table.dealer, counters: table.counters,
                                   bets: table.bets, deltas: next.deltas, ended: next.ended });
                        table = next;
                    }
                    return out;
                }""",
                [
                    results,
                    seats,
                    {
                        "start": rules.start_points,
                        "tenpai": rules.tenpai_payment,
                        "rotations": rules.rotations,
                    },
                ],
            )
            assert shown == expected, results


def tap_seat(page: Any, role: str, player: str) -> None:
    page.tap(f'[data-role="{role}"] [data-player="{player}"]')


def server_table(club: Club, table: int) -> dict[str, Any]:
    answer = httpx.get(f"{club.base_url}/api/tournaments/{club.tournament_id}/tables")
    return next(row for row in answer.json()["tables"] if row["table"] == table)


def hand_lines(club: Club, table: int) -> list[dict[str, Any]]:
    text = httpx.get(f"{club.base_url}/api/tournaments/{club.tournament_id}/log").text
    lines = [json.loads(line) for line in text.splitlines()]
    return [line for line in lines if line["type"] == "hand" and line["table"] == table]


def test_a_ron_with_a_riichi_is_reviewed_with_the_bets_and_lands(tablet: Any, club: Club) -> None:
    page = open_tablet(tablet, club, 1)
    east, south, west, north = club.seats[1]
    # rules AA-1, AA-12: an East-only game starts at 20,000 with East dealing hand 1
    assert page.text_content("#next-title") == "East 1 · hand 1"
    assert "0 counters" in page.text_content("#next-dealer")
    cards = page.locator("#seat-cards .score")
    assert [cards.nth(i).inner_text() for i in range(4)] == ["20,000"] * 4
    buttons = page.locator("#aa-outcomes button")
    for i in range(buttons.count()):
        box = buttons.nth(i).bounding_box()
        assert box["height"] >= 48 and box["width"] >= 48

    # South declares riichi; West wins 3 fan 30 fu on East's discard (rule AA-3: 4 x 960 =
    # 3,840, rounded up to 3,900) and takes South's bet (rule AA-5).
    page.tap('#aa-outcomes [data-aa-kind="ron"]')
    tap_seat(page, "aa-discarder", east)
    tap_seat(page, "aa-winners", west)
    card = page.locator(f'.win-card[data-winner="{west}"]')
    for _ in range(2):
        card.locator('[data-field="fan"] button[aria-label="more fan"]').tap()
    assert card.locator('[data-field="fan"] output').inner_text() == "3"
    card.locator('[data-field="fu"] [data-value="30"]').tap()
    tap_seat(page, "aa-riichi", south)
    assert page.text_content("#entry-problem") == ""
    if os.environ.get("SCOREBOARD_SCREENSHOTS"):
        page.screenshot(path=str(SCREENS / "judge-ariari.png"), full_page=True)
    page.tap("#entry-review")
    assert review_deltas(page) == {
        east: "−3,900",
        south: "−1,000",
        west: "+4,900",
        north: "0",
        "table": "0",
    }
    assert page.text_content("#review-sum") == "0 ✓"
    page.tap("#review-send")
    wait_for(page, "() => judgeTablet.entries.some(e => e.status === 'sent')")

    # The server filled in the dealer and counters the hand was played with (rule AA-28).
    (line,) = hand_lines(club, 1)
    assert line["result"]["dealer"] == east and line["result"]["counters"] == 0
    game = server_table(club, 1)["game"]
    assert {p["player"]: p["points"] for p in game["players"]} == {
        east: 16_100,
        south: 19_000,
        west: 24_900,
        north: 20_000,
    }
    # The deal passed to South (rule AA-8); no counter after a non-dealer's win (AA-6).
    wait_for(page, "() => document.querySelector('#next-title').textContent === 'East 2 · hand 2'")
    assert [cards.nth(i).inner_text() for i in range(4)] == ["16,100", "19,000", "24,900", "20,000"]


def test_hands_queued_offline_are_reviewed_from_the_game_before_them(
    tablet: Any, club: Club
) -> None:
    """The second hand entered offline starts from the dealer, counters and bets the first
    leaves (rules AA-5, AA-6, AA-8); both land once when the network returns."""
    page = open_tablet(tablet, club, 2)
    east, south, west, north = club.seats[2]
    wait_for(page, "() => navigator.serviceWorker.controller !== null")
    tablet.set_offline(True)

    # Hand 1: an exhaustive draw, East and North tenpai, West declared riichi: the deal stays
    # with East, a counter is added and West's bet stays on the table.
    page.tap('#aa-outcomes [data-aa-kind="exhaustive_draw"]')
    tap_seat(page, "aa-tenpai", east)
    tap_seat(page, "aa-tenpai", north)
    tap_seat(page, "aa-riichi", west)
    page.tap("#entry-review")
    assert review_deltas(page)["table"] == "+1,000"
    page.tap("#review-send")
    wait_for(page, "() => judgeTablet.entries.filter(e => e.status === 'queued').length === 1")
    assert page.text_content("#next-title") == "East 1 · hand 2"
    assert "1 counter · 1 riichi bet" in page.text_content("#next-dealer")

    # Hand 2: the dealer's tsumo for a mangan: 4,000 each plus 100 for the counter, and the
    # bet on the table (rules AA-3, AA-5, AA-6).
    page.tap('#aa-outcomes [data-aa-kind="tsumo"]')
    tap_seat(page, "aa-winners", east)
    card = page.locator(f'.win-card[data-winner="{east}"]')
    card.locator('[data-field="limit"] [data-value="mangan"]').tap()
    page.tap("#entry-review")
    assert review_deltas(page) == {
        east: "+13,300",
        south: "−4,100",
        west: "−4,100",
        north: "−4,100",
        "table": "−1,000",
    }
    page.tap("#review-send")
    wait_for(page, "() => judgeTablet.entries.filter(e => e.status === 'queued').length === 2")

    tablet.set_offline(False)
    page.evaluate("() => judgeTablet.flush()")
    wait_for(page, "() => judgeTablet.entries.every(e => e.status === 'sent')", 15_000)
    lines = hand_lines(club, 2)
    assert [line["hand"] for line in lines] == [1, 2]
    game = server_table(club, 2)["game"]
    assert {p["player"]: p["points"] for p in game["players"]} == {
        east: 20_000 + 13_300,
        south: 20_000 - 4_100,
        west: 20_000 - 1_000 - 4_100,
        north: 20_000 - 4_100,
    }
    assert (game["dealer"], game["counters"], game["bets"]) == (east, 2, 0)


def test_the_game_is_played_to_its_end_from_the_tablet(tablet: Any, club: Club) -> None:
    """After the ron above (the deal passed to South), three tsumo by the player after the
    dealer pass the deal three more times: the East-only game ends (rule AA-12), the tablet
    says so and offers no next hand, and the game's uma is in the table's game (AA-16)."""
    page = open_tablet(tablet, club, 1)
    seats = club.seats[1]
    for number in (2, 3, 4):
        wait_for(page, f"() => judgeTablet.nextHand(judgeTablet.segment()) === {number}")
        dealer = page.evaluate(f"() => judgeTablet.dealerOf(judgeTablet.segment(), {number})")
        winner = seats[(seats.index(dealer) + 1) % 4]
        page.tap('#aa-outcomes [data-aa-kind="tsumo"]')
        tap_seat(page, "aa-winners", winner)
        card = page.locator(f'.win-card[data-winner="{winner}"]')
        card.locator('[data-field="fu"] [data-value="30"]').tap()
        page.tap("#entry-review")
        assert page.text_content("#review-sum") == "0 ✓"
        page.tap("#review-send")
        wait_for(page, f"() => judgeTablet.table.hands.length === {number}", 15_000)

    wait_for(page, "() => judgeTablet.nextHand(judgeTablet.segment()) === null")
    assert page.text_content("#next-title") == "Game 1 is complete"
    assert page.text_content("#next-dealer") == (
        "The game ended after hand 4: the last round ended (rule AA-12)"
    )
    assert page.locator("#deal-button").is_hidden()
    game = server_table(club, 1)["game"]
    assert game["end_rule"] == "AA-12"
    assert sum(p["uma"] for p in game["players"]) == 0
    assert sorted(p["uma"] for p in game["players"]) == [-10_000, -5_000, 5_000, 10_000]
