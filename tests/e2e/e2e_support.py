"""Small helpers the browser tests share."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.load import Server, free_port, hand_headers


@dataclass(frozen=True)
class Site:
    """A running server on an empty SQLite database of its own, where a module's tests
    import the events they need."""

    base_url: str
    database_url: str
    folder: Path


@contextmanager
def empty_site(folder: Path) -> Iterator[Site]:
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    with Server(url, free_port(), folder / "server.log") as server:
        yield Site(server.base_url, url, folder)


def open_overlay(page: Any, server: Any, path: str) -> None:
    """An overlay of `server`'s tournament (its base_url and tournament_id), once its feed is
    live and it has drawn a version."""
    page.goto(f"{server.base_url}/overlay/{server.tournament_id}/{path}")
    page.wait_for_function(
        "() => document.body.dataset.feed === 'live' && document.body.dataset.version",
        polling=100,
        timeout=10_000,
    )


def shown_text(page: Any) -> str:
    """What an overlay shows, with any clock reading masked (it ticks)."""
    return re.sub(r"\b\d+:\d\d\b", "m:ss", " ".join(page.inner_text("#safe").split()))


def wait_for(page: Any, predicate: str, timeout_ms: int = 30_000) -> None:
    """Wait until a JavaScript predicate holds in the page (polls, then fails with a timeout).
    The timeout is only how long a loaded machine may take: a wait that holds ends at once."""
    page.wait_for_function(predicate, timeout=timeout_ms)


def review_deltas(page: Any) -> dict[str, str]:
    """The judge tablet's review screen: each row's point change as shown, by player id (and
    "table" for the riichi bets an Ari Ari hand puts on or takes off the table)."""
    rows = page.locator("#review-table tbody tr")
    return {
        rows.nth(i).get_attribute("data-player"): rows.nth(i).locator("td.num").inner_text()
        for i in range(rows.count())
    }


class Tablets:
    """The judges' tablets of round 1, half 1, as the hall's tests drive them: deal and enter
    each table's next hand in order (the generated one, or a given result), correct a hand."""

    def __init__(self, client: httpx.Client, hall: Any) -> None:
        self.client = client
        self.hall = hall
        self.next_hand = dict.fromkeys(hall.round_one.tables, 1)
        self.dealt: set[int] = set()  # tables whose next hand is dealt
        self.seats: dict[int, list[str]] = {}
        for text in hall.round_one.setup_lines:
            line = json.loads(text)
            if line["type"] == "seating" and line["round"] == 1 and line["segment"] == 1:
                self.seats[line["table"]] = line["seats"]

    def entered(self, table: int) -> int:
        return self.next_hand[table] - 1

    def _post(self, path: str, table: int, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.client.post(
            f"/api/tournaments/{self.hall.tournament_id}/{path}",
            json=body,
            headers=hand_headers(self.hall.tokens[table], f"e2e-{uuid.uuid4()}"),
        )
        assert answer.status_code == 201, answer.text
        return dict(answer.json())

    def deal(self, table: int) -> None:
        """Record the deal of the table's next hand: a timed half needs it (rule CL-3)."""
        place = {"round": 1, "segment": 1, "table": table, "hand": self.next_hand[table]}
        self._post("deals", table, place)
        self.dealt.add(table)

    def enter(self, table: int, result: dict[str, Any] | None = None) -> int:
        """Enter the table's next hand: `result`, or the generated one. Returns its number."""
        if table not in self.dealt:
            self.deal(table)
        number = self.next_hand[table]
        body = dict(self.hall.round_one.hands[table][number - 1])
        assert (body["segment"], body["hand"]) == (1, number)
        if result is not None:
            body["result"] = result
        self._post("hands", table, body)
        self.next_hand[table] = number + 1
        self.dealt.discard(table)
        return number

    def correct(self, table: int, hand: int, result: dict[str, Any], reason: str) -> None:
        body = {"round": 1, "segment": 1, "table": table, "hand": hand, "result": result}
        self._post("corrections", table, {**body, "reason": reason})


@contextmanager
def first_halves_open(hall: Any) -> Iterator[Tablets]:
    """Both groups start their first half now (the session clock counts down 70 minutes);
    yields the tables' tablets."""
    admin = {"Authorization": f"Bearer {hall.admin_token}"}
    with httpx.Client(base_url=hall.base_url, timeout=10.0) as client:
        for group in ("A", "B"):
            opened = client.post(
                f"/api/tournaments/{hall.tournament_id}/segments/open",
                json={"round": 1, "segment": 1, "group": group},
                headers=admin,
            )
            assert opened.status_code == 201, opened.text
        yield Tablets(client, hall)


def fill_hand(page: Any, result: dict[str, Any]) -> None:
    """Enter a result with taps: outcome, winner, discarder, keypad; up to the Review button."""
    page.tap(f'#outcomes [data-kind="{result["kind"]}"]')
    if result["kind"] in ("self_draw", "discard"):
        page.tap(f'[data-role="winner"] [data-player="{result["winner"]}"]')
    if result["kind"] == "discard":
        page.tap(f'[data-role="discarder"] [data-player="{result["discarder"]}"]')
    if result["kind"] == "points":
        for player, points in result["deltas"].items():
            page.tap(f'[data-role="points"] [data-player="{player}"]')
            for digit in str(abs(points)):
                page.tap(f'#keypad [data-key="{digit}"]')
            if points < 0:
                page.tap('#keypad [data-key="sign"]')
    elif "value" in result:
        for digit in str(result["value"]):
            page.tap(f'#keypad [data-key="{digit}"]')
