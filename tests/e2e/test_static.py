"""The pages' shared client, loaded in real Chromium from our own server (no CDN)."""

from __future__ import annotations

import random
from typing import Any

from e2e_support import wait_for

from app.realtime.channels import change
from tests.live_standings import PLACED_ROWS, standings_pair


def test_the_live_client_follows_the_feed_in_the_browser(page: Any, hall: Any) -> None:
    # A blank page of our own origin, so the module and the websocket are same-origin.
    page.goto(f"{hall.base_url}/api/health")
    page.evaluate(
        """async (tid) => {
            const { LiveFeed } = await import('/static/live.js');
            window.states = {};
            window.feed = new LiveFeed(tid, ['standings', 'clocks'], {
              onState: (channel, state) => { window.states[channel] = state; },
            }).connect();
        }""",
        hall.tournament_id,
    )
    wait_for(page, "() => window.states.standings && window.feed.status === 'live'")
    rows = page.evaluate("() => Object.keys(window.states.standings.rows).length")
    assert rows == 64
    assert page.evaluate("() => window.states.standings.cut.advance") == 16


def test_the_live_client_applies_standings_changes_as_the_server_means_them(
    page: Any, hall: Any
) -> None:
    """live.js rebuilds the standings from a change (rows, moves, ranks by rule ST-2) exactly
    as app/realtime/channels.py's apply_change does: rank moves, shared ranks, ties at the cut,
    players leaving and joining."""
    picker = random.Random(2008)
    examples = []
    while len(examples) < 300:
        before, after = standings_pair(picker.randint, most_players=40)
        message = change("standings", before, after)
        if message is not None:
            examples.append((before, message, after))
    page.goto(f"{hall.base_url}/api/health")
    rebuilt = page.evaluate(
        """async (examples) => {
            const { applyChange } = await import('/static/live.js');
            return examples.map(([before, message]) => applyChange('standings', before, message));
        }""",
        [[before, message] for before, message, _ in examples],
    )
    wrong = [i for i, (_, _, after) in enumerate(examples) if rebuilt[i] != after]
    assert wrong == [], (examples[wrong[0]], rebuilt[wrong[0]]) if wrong else None


def test_the_live_client_works_out_each_distance_to_the_cut_exactly(page: Any, hall: Any) -> None:
    """live.js placedRow gives a row's side of the cut, its distance (rule ST-3), exact (SC-4)
    and shown rounded down (SC-5), and its status, as channels.placed_row does."""
    page.goto(f"{hall.base_url}/api/health")
    derived = page.evaluate(
        """async (cases) => {
            const { placedRow } = await import('/static/live.js');
            return cases.map(([total, position, cut, ended]) => {
              const row = placedRow({ player: 'P1', total }, position, position, cut, ended);
              return [row.above_cut, row.distance, row.distance_shown, row.status];
            });
        }""",
        [list(case[:4]) for case in PLACED_ROWS],
    )
    assert derived == [list(case[4]) for case in PLACED_ROWS]
