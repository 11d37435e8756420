"""The live feed's changes (app/realtime/channels.py): a change applied to the state a
client holds gives the new state, and the standings' changes stay as small as the hand."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.read.views import LiveStandings
from app.realtime.channels import apply_change, change, placed_row
from tests.live_standings import (
    PLACED_ROWS,
    live_standings,
    standings_pair,
    standings_state,
)


@st.composite
def standings_pairs(draw: st.DrawFn) -> tuple[dict, dict]:  # type: ignore[type-arg]
    return standings_pair(lambda low, high: draw(st.integers(low, high)))


@settings(max_examples=300, deadline=None)
@given(standings_pairs())
def test_a_standings_change_on_the_state_held_gives_the_new_state(
    pair: tuple[dict, dict],  # type: ignore[type-arg]
) -> None:
    before, after = pair
    message = change("standings", before, after)
    if before == after:
        assert message is None
        return
    assert message is not None
    assert message["mode"] == "moves"
    assert apply_change("standings", before, message) == after


def both(*scores: Any) -> tuple[dict[str, Any], LiveStandings]:
    """A standings state made whole, and as the live feed holds it."""
    return standings_state(*scores), live_standings(*scores)


@st.composite
def live_pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    return standings_pair(lambda low, high: draw(st.integers(low, high)), build=both)


@settings(max_examples=300, deadline=None)
@given(live_pairs(), st.booleans())
def test_the_feeds_standings_give_the_snapshot_and_the_change_of_the_whole_states(
    pair: tuple[Any, Any], before_was_sent_whole: bool
) -> None:
    """The feed keeps the standings as LiveStandings, whose rows are made only when a snapshot
    or a change needs them, and compares two states by their order and each player's totals:
    it must send exactly what the whole states give (rules ST-1 to ST-3 live in the rows)."""
    (before, live_before), (after, live_after) = pair
    if before_was_sent_whole:
        assert live_before.full() == before  # a snapshot of it went out
    # the state after reuses the rows made for the state before, as the feed does
    live_after = LiveStandings.of(
        live_after.standings, live_after.header["advance"], live_before.made
    )

    assert change("standings", live_before, live_after) == change("standings", before, after)
    assert live_after.full() == after
    assert live_before.full() == before


def test_a_hand_sends_the_players_it_moved_not_everyone_between() -> None:
    """The last player wins a hand and goes top: their row and the three who paid, one move;
    the players they passed get their new rank and position from the order (rule ST-2)."""
    play = {"a": 30, "b": 20, "c": 20, "d": 10, "e": 5, "f": 0, "g": -5, "h": -10}
    before = standings_state(play, {}, {}, None)
    hand = {"h": 60, "e": -20, "f": -20, "g": -20}
    after = standings_state({p: v + hand.get(p, 0) for p, v in play.items()}, {}, {}, None)

    message = change("standings", before, after)

    assert message is not None
    data = message["data"]
    assert data["moves"] == [["h", 1]]
    # the payers' totals changed; a, b, c and d only moved down one place each
    assert set(data["rows"]) == {"e", "f", "g", "h"}
    assert set(data) == {"rows", "removed", "moves"}  # no other field changed
    assert apply_change("standings", before, message) == after
    assert [after["rows"][p]["rank"] for p in "habcd"] == [1, 2, 3, 3, 5]


def test_the_clocks_and_a_table_keep_their_changes() -> None:
    before = {"round": 1, "tables": {"1": {"phase": "play"}, "2": {"phase": "play"}}}
    after = {"round": 1, "tables": {"1": {"phase": "break"}, "3": {"phase": "play"}}}
    message = change("clocks", before, after)
    assert message == {
        "mode": "patch",
        "data": {
            "round": 1,
            "tables": {"1": {"phase": "break"}, "3": {"phase": "play"}},
            "removed": ["2"],
        },
    }
    assert apply_change("clocks", before, message) == after
    table = {"round": 1, "table": 1, "hands": []}
    replaced = change("table:1", table, {**table, "hands": [{"hand": 1}]})
    assert replaced == {"mode": "replace", "data": {**table, "hands": [{"hand": 1}]}}


def test_a_hand_that_moves_the_cut_line_sends_the_new_line_not_every_distance() -> None:
    """rule ST-3: every player's distance to the line changes when the line's total does;
    the client works them out from the new `cut`, so only the four players' rows travel."""
    play = {f"P{n:02d}": 100 - 10 * n for n in range(12)}  # 100, 90, ..., -10
    before = standings_state(play, {}, {}, 4)
    hand = {"P05": 45, "P03": -15, "P06": -15, "P07": -15}  # P05 passes P03, the line's
    after = standings_state({p: v + hand.get(p, 0) for p, v in play.items()}, {}, {}, 4)
    assert before["cut"]["line_total"] != after["cut"]["line_total"]

    message = change("standings", before, after)

    assert message is not None
    data = message["data"]
    assert set(data["rows"]) == set(hand)
    assert data["cut"] == after["cut"]
    rebuilt = apply_change("standings", before, message)
    assert rebuilt == after
    # below the line: the points to reach the 4th total; above: the margin over the 5th
    assert rebuilt["rows"]["P11"]["distance"] == "90"  # -10 up to 80 (P02, 4th now)
    assert rebuilt["rows"]["P05"]["distance_shown"] == "35.00"  # 95 over 60 (P04)
    assert {row["status"] for row in rebuilt["rows"].values()} == {"playing"}


@pytest.mark.parametrize(("total", "position", "cut", "ended", "expected"), PLACED_ROWS)
def test_a_placed_row_derives_its_side_distance_and_status_from_the_cut(
    total: str,
    position: int,
    cut: dict[str, Any] | None,
    ended: bool,
    expected: tuple[Any, ...],
) -> None:
    row = placed_row({"player": "P1", "total": total}, position, position, cut, ended)
    assert (row["above_cut"], row["distance"], row["distance_shown"], row["status"]) == expected
