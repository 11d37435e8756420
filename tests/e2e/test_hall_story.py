"""The hall's story page (issue 18, part 2), in real Chromium against the server as a real
process: with `?story=1` the rotation has a page more, the story of the session drawn from the
live `stats` channel (the biggest hands of the round and of the segment, the biggest movers,
who crossed the line with the last hand, each table's leader, how the hands ended); `?page=story`
pins it; it follows a hand entered; it fits every screen size the hall supports in every
language, with no untranslated text in the pseudo-locale; a second language speaks its headings
beneath or in turn; an Ari Ari round shows points. Without the parameter the page never follows
`stats`. With SCOREBOARD_SCREENSHOTS set, writes docs/screens/hall-story.png.
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
from test_hall import EXAMPLES, SCREEN_SIZES, SCREENS

from bench.load import Server, free_port, hand_headers, hands_url, import_log, issue_tokens

pytestmark = pytest.mark.slow

HANDS_BEFORE = 3  # each table's hands before the tests: a story to tell
CARDS = ["hands-round", "hands-segment", "movers", "crossed", "leaders", "counts"]

# What the story page shows, read in one go (the page redraws as the feed speaks): each card's
# title and entries, the `stats` state they were drawn from, and the page's language.
SHOWN = """() => {
    // a detail line's parts, with the spaces their gaps draw
    const said = (element) => element.children.length
        ? [...element.children].map(said).join(' ') : element.textContent;
    const story = document.getElementById('story');
    const cards = {};
    for (const card of story.querySelectorAll('.story-card')) {
        cards[card.dataset.card] = {
            title: card.querySelector('.story-title').textContent,
            items: [...card.querySelectorAll('.story-item')].map((item) => ({
                player: item.dataset.player,
                lead: item.querySelector('.story-lead')?.textContent ?? null,
                name: item.querySelector('.name-text')?.textContent ?? null,
                side: item.querySelector('.story-side')?.textContent ?? null,
                detail: said(item.querySelector('.story-detail')),
            })),
            counts: Object.fromEntries([...card.querySelectorAll('.story-count[data-count]')]
                .map((row) => [row.dataset.count,
                               [...row.querySelectorAll('.num')].map((n) => n.textContent)])),
            empty: card.querySelector('.story-empty')?.textContent ?? null,
        };
    }
    return {
        page: document.getElementById('pager').dataset.page,
        pager: document.getElementById('pager').textContent,
        hidden: story.hidden,
        standingsSeen: getComputedStyle(document.querySelector('.hall-standings')).visibility,
        cards,
        state: window.hallDisplay.feed.states.get('stats') ?? null,
        channels: [...window.hallDisplay.feed.channels],
        lang: document.getElementById('hall').lang,
    };
}"""

# Where the story does not fit its screen: a card outside the window, or its entries cut off
# by its box (hall/story.js shrinks a card's font, then drops its last entries, to fit).
STORY_FAULTS = """() => {
    const faults = [];
    const inside = (b) => b.top >= -0.5 && b.left >= -0.5
        && b.bottom <= innerHeight + 0.5 && b.right <= innerWidth + 0.5;
    for (const card of document.querySelectorAll('#story .story-card')) {
        const name = card.dataset.card;
        if (!inside(card.getBoundingClientRect())) faults.push(`${name}: off the screen`);
        if (card.scrollHeight > card.clientHeight + 1) faults.push(`${name}: cut off`);
        const list = card.querySelector('.story-list');
        if (list.scrollHeight > list.clientHeight + 1) faults.push(`${name}: entries cut off`);
        if (!list.children.length) faults.push(`${name}: no entry`);
        for (const item of card.querySelectorAll('.story-item, .story-count')) {
            const box = item.getBoundingClientRect();
            const within = list.getBoundingClientRect();
            if (box.bottom > within.bottom + 0.5) faults.push(`${name}: an entry below its card`);
        }
        const title = card.querySelector('.story-title');
        if (title.getBoundingClientRect().height < 4) faults.push(`${name}: no title`);
    }
    return faults;
}"""

READY = (
    "() => window.hallDisplay?.feed.status === 'live'"
    " && window.hallDisplay.feed.states.get('stats')"
    " && window.hallDisplay.feed.states.get('standings')"
    " && document.querySelectorAll('#story .story-card').length === 6"
    " && !/^\\d+$/.test(document.querySelector('#story .name-text')?.textContent ?? '1')"
)


@pytest.fixture(scope="module")
def judges(hall: Any) -> Iterator[Tablets]:
    with first_halves_open(hall) as tablets:
        for table in hall.round_one.tables:
            for _ in range(HANDS_BEFORE):
                tablets.enter(table)
        yield tablets


def open_story(page: Any, base_url: str, tournament_id: int, query: str = "") -> dict[str, Any]:
    """The hall pinned on its story page once its feed is live and the cards are drawn."""
    page.goto(f"{base_url}/hall/{tournament_id}?page=story&{query}")
    page.wait_for_function(READY, polling=100, timeout=10_000)
    return dict(page.evaluate(SHOWN))


def names_of(state: dict[str, Any], entries: list[dict[str, Any]]) -> list[str]:
    return [state["players"][str(entry["player"])]["name"] for entry in entries]


def test_the_story_page_tells_the_stats_channel(page: Any, hall: Any, judges: Tablets) -> None:
    shown = open_story(page, hall.base_url, hall.tournament_id, "lang=en")
    state = shown["state"]
    assert shown["page"] == "story" and not shown["hidden"]
    assert shown["pager"] == "the story of the session"
    assert shown["standingsSeen"] == "hidden"  # the story in their place
    assert "stats" in shown["channels"]
    cards = shown["cards"]
    assert list(cards) == CARDS
    assert state["round"] == 1 and state["segment"] == 1
    assert cards["hands-round"]["title"] == "Biggest hands · Round 1"
    assert cards["hands-segment"]["title"] == "Biggest hands · Half 1 · group " + state["group"]
    # the biggest hands, biggest first, with their values (rule HS-4), winner and table
    for scope in ("round", "segment"):
        items = cards[f"hands-{scope}"]["items"]
        expected = state["hands"][scope][: len(items)]
        assert items and len(items) <= 3
        assert [item["lead"] for item in items] == [str(hand["value"]) for hand in expected]
        assert [item["name"] for item in items] == names_of(state, expected)
        for item, hand in zip(items, expected, strict=True):
            word = "Self-draw" if hand["kind"] == "self_draw" else "Discard win"
            assert item["detail"].startswith(f"{word} · Table {hand['table']}"), item
            if hand["discarder"]:
                discarder = state["players"][str(hand["discarder"])]["name"]
                assert f"dealt in by {discarder}" in item["detail"], item
    # climbers first, then a faller, with the rank before and now (rule ST-2)
    movers = cards["movers"]["items"]
    climbers, fallers = state["climbers"], state["fallers"]
    assert movers and len(movers) <= 3
    expected_movers = climbers[: 2 if fallers else 3] + fallers
    for item, mover in zip(movers, expected_movers, strict=False):
        assert item["player"] == str(mover["player"])
        assert f"Rank {mover['rank_before']} → {mover['rank']}" in item["detail"]
        assert item["side"] == (f"+{mover['change']}" if mover["change"] > 0 else None) or (
            item["side"].lstrip("−+") == str(abs(mover["change"]))
        )
    # each table's leader, the biggest lead first
    leaders = cards["leaders"]["items"]
    assert [item["player"] for item in leaders] == [
        str(leader["player"]) for leader in state["leaders"][: len(leaders)]
    ]
    assert leaders and leaders[0]["detail"].startswith(f"Table {state['leaders'][0]['table']}")
    # how the hands ended: the segment's and the round's counts
    counts = cards["counts"]["counts"]
    for key in ("self_draws", "discards", "draws"):
        assert counts[key] == [
            str(state["counts"]["segment"][key]),
            str(state["counts"]["round"][key]),
        ]
    assert sum(int(counts[key][1]) for key in counts) == state["counts"]["round"]["hands"]
    # the crossed card: entries or the words saying no one crossed
    crossed = cards["crossed"]
    assert [item["player"] for item in crossed["items"]] == [
        str(c["player"]) for c in state["crossed"][: len(crossed["items"])]
    ]
    assert crossed["items"] or crossed["empty"] == "No one crossed the line"


def test_the_page_follows_stats_only_when_it_tells_the_story(
    page: Any, hall: Any, judges: Tablets
) -> None:
    page.goto(f"{hall.base_url}/hall/{hall.tournament_id}?rows=16")
    page.wait_for_function(
        "() => window.hallDisplay?.feed.status === 'live'"
        " && window.hallDisplay.feed.states.get('standings')",
        polling=100,
        timeout=10_000,
    )
    shown = page.evaluate(SHOWN)
    assert "stats" not in shown["channels"] and shown["state"] is None
    assert shown["hidden"] and shown["standingsSeen"] == "visible"


def test_the_rotation_comes_to_the_story(page: Any, hall: Any, judges: Tablets) -> None:
    page.clock.install()
    page.goto(f"{hall.base_url}/hall/{hall.tournament_id}?rows=16&interval=5&story=1")
    page.wait_for_function(
        "() => window.hallDisplay?.feed.status === 'live'"
        " && window.hallDisplay.feed.states.get('stats')"
        " && document.querySelectorAll('#rows .hall-row').length === 16",
        polling=100,
        timeout=10_000,
    )
    seen = []
    for _ in range(7):
        shown = page.evaluate(SHOWN)
        seen.append((shown["page"], shown["hidden"], shown["standingsSeen"]))
        if shown["page"] == "story":
            assert list(shown["cards"]) == CARDS
        page.clock.run_for(5_000)
    story = ("story", False, "hidden")
    numbered = [(str(n), True, "visible") for n in (1, 2, 3, 4)]
    assert seen == [*numbered, ("cut", True, "visible"), story, numbered[0]]


def test_a_hand_entered_is_told_at_once(page: Any, hall: Any, judges: Tablets) -> None:
    shown = open_story(page, hall.base_url, hall.tournament_id)
    # the biggest self-draw there can be (rule HS-3), at a table whose tablet is ours
    table = hall.round_one.tables[0]
    winner = judges.seats[table][1]
    judges.enter(table, {"kind": "self_draw", "winner": winner, "value": 320})
    assert shown["cards"]["hands-round"]["items"][0]["lead"] != "320"
    page.wait_for_function(
        "([player]) => {"
        " const first = document.querySelector('#story .story-hands-round .story-item');"
        " return first && first.dataset.player === player"
        "   && first.querySelector('.story-lead').textContent === '320'; }",
        arg=[winner],
        polling=100,
        timeout=10_000,
    )
    after = page.evaluate(SHOWN)
    first = after["cards"]["hands-segment"]["items"][0]
    assert first["player"] == winner and first["lead"] == "320"
    assert first["detail"] == f"Self-draw · Table {table}"
    assert after["state"]["last_hand"]["table"] == table
    counts = after["cards"]["counts"]["counts"]
    assert int(counts["self_draws"][1]) == after["state"]["counts"]["round"]["self_draws"]


@pytest.mark.parametrize("language", ["en", "ja", "zh-Hant", "zh-Hans", "ko", "en-XA"])
def test_the_story_fits_every_screen_in_every_language(
    page: Any, hall: Any, judges: Tablets, language: str
) -> None:
    shown = open_story(page, hall.base_url, hall.tournament_id, f"lang={language}")
    assert shown["lang"] == language
    faults: list[str] = []
    for width, height in SCREEN_SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function(
            "([w, h]) => window.hallDisplay.laidOut?.width === w"
            " && window.hallDisplay.laidOut?.height === h",
            arg=[width, height],
            polling=50,
        )
        where = f"{width}x{height}"
        faults += [f"{where}: {fault}" for fault in page.evaluate(STORY_FAULTS)]
        faults += [f"{where}: {fault}" for fault in overflowing(page)]
        if language == "en-XA":
            faults += [f"{where}: {text}" for text in unmarked_text(page)]
        seen = page.evaluate(SHOWN)
        if not seen["cards"]["hands-round"]["items"]:
            faults.append(f"{where}: no biggest hand on the screen")
    assert not faults, "\n".join(faults[:40])


def test_a_hall_in_two_languages_tells_the_story_in_both(
    page: Any, hall: Any, judges: Tablets
) -> None:
    # the second beneath: each card's title in both, its entries in the first
    open_story(page, hall.base_url, hall.tournament_id, "lang=en&second=zh-Hant")
    title = page.locator("#story .story-counts .story-title")
    assert title.locator(".second").text_content() == "各局結果"
    assert title.locator(".second").get_attribute("lang") == "zh-Hant"
    assert page.evaluate(STORY_FAULTS) == []
    # in turn: the whole screen turns, the story with it
    page.clock.install()
    shown = open_story(
        page, hall.base_url, hall.tournament_id, "lang=en&second=ja&bilingual=alternate&interval=5"
    )
    assert shown["lang"] == "en" and shown["cards"]["counts"]["title"] == "How the hands ended"
    page.clock.run_for(5_000)
    shown = page.evaluate(SHOWN)
    assert shown["lang"] == "ja" and shown["cards"]["counts"]["title"] == "局の結果"
    assert shown["cards"]["hands-round"]["title"] == "高打点 · 第1ラウンド"
    assert any(
        item["detail"].startswith(("自摸", "ロン和了"))
        for item in shown["cards"]["hands-round"]["items"]
    )


@dataclass(frozen=True)
class AriAri:
    base_url: str
    tournament_id: int


@pytest.fixture(scope="module")
def ariari(browser: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AriAri]:
    """The Ari Ari example's round 1 after one hand: p3 wins a ron of 3,900 on p2's discard
    (rules AA-2, AA-3)."""
    folder = tmp_path_factory.mktemp("ariari")
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    example = (EXAMPLES / "ariari.jsonl").read_text(encoding="utf-8").splitlines()
    opening = example[: next(i for i, t in enumerate(example) if '"type": "hand"' in t)]
    tournament_id = import_log(url, opening, folder)
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
            headers=hand_headers(tokens[1], "hall-story-ariari-1"),
            timeout=10,
        ).raise_for_status()
        yield AriAri(server.base_url, tournament_id)


def test_an_ariari_round_tells_its_story_in_points(page: Any, ariari: AriAri) -> None:
    shown = open_story(page, ariari.base_url, ariari.tournament_id, "lang=en")
    biggest = shown["cards"]["hands-round"]["items"][0]
    # rule AA-22: the ron's payment, in points with thousands separators
    assert biggest["player"] == "p3" and biggest["lead"] == "3,900"
    assert biggest["detail"].startswith("Ron · Table 1 · dealt in by ")
    assert shown["cards"]["hands-segment"]["title"] == "Biggest hands · Game 1"
    counts = shown["cards"]["counts"]["counts"]
    assert counts["discards"] == ["1", "1"] and counts["self_draws"] == ["0", "0"]
    leader = shown["cards"]["leaders"]["items"][0]
    assert leader["player"] == "p3" and leader["side"].startswith("+") and "," in leader["side"]


def test_screenshot_of_the_story_page(page: Any, hall: Any, judges: Tablets) -> None:
    if not os.environ.get("SCOREBOARD_SCREENSHOTS"):
        pytest.skip("writes docs/screens only with SCOREBOARD_SCREENSHOTS set")
    open_story(page, hall.base_url, hall.tournament_id, "lang=en")
    Path(SCREENS).mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / "hall-story.png"))
