"""The live feed's changes (app/realtime/channels.py): a change applied to the state a
client holds gives the new state, and the standings' changes stay as small as the hand."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.realtime.channels import apply_change, change
from tests.live_standings import standings_pair, standings_state


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


def test_a_hand_sends_the_players_it_moved_not_everyone_between() -> None:
    """The last player wins a hand and goes top: their row and the three who paid, one move;
    the players they passed get their new rank and position from the order (rule ST-2).
    (With a cut, a new total at the line would change every player's distance to it.)"""
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
