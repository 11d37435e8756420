"""Properties of what a player needs (issue 18, part 1), on generated rounds: winning the
stated hand does lift the player over the current line (rule ST-3) and no smaller hand does;
losing the stated hand keeps a player above it and a bigger one does not (rule HS-2, values
within rule HS-3's bounds). The same for an Ari Ari game played on from a generated start
(rules AA-2 to AA-17), checked against the whole game played again with that hand."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain import ariari
from app.domain.hands import Discard, HandResult, PlayerId, SelfDraw, settle, wsom_deltas
from app.domain.needs import FieldTotals, ariari_needs, needs, over_the_line, wsom_payoffs

BOUNDS = {"min_value": 5, "max_value": 320}  # rule HS-3

# A round of 5 to 16 players with totals in quarter points (carry-over, rule SC-3), the first
# four at the player's table, and 1 to all-but-one advancing.
rounds = st.integers(5, 16).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-4000, 4000), min_size=n, max_size=n),
        st.integers(1, n - 1),
        st.integers(0, 3),
    )
)


def _setup(
    drawn: tuple[list[int], int, int],
) -> tuple[dict[str, Fraction], tuple[str, ...], int, str]:
    quarters, advance, seat = drawn
    totals = {f"p{i}": Fraction(q, 4) for i, q in enumerate(quarters)}
    table = ("p0", "p1", "p2", "p3")
    return totals, table, advance, table[seat]


def after(
    totals: dict[str, Fraction], hand: HandResult, table: tuple[str, ...]
) -> dict[str, Fraction]:
    """The totals once the hand is paid at the table (rule HS-2)."""
    moved = dict(totals)
    for seated, delta in settle(hand, table, **BOUNDS).deltas:
        moved[seated] += delta
    return moved


def _over(
    totals: dict[str, Fraction], hand: HandResult, table: tuple[str, ...], player: str, advance: int
) -> bool:
    return over_the_line(after(totals, hand, table), player, advance)


@settings(max_examples=150, deadline=None)
@given(rounds)
def test_the_stated_win_lifts_the_player_and_no_smaller_one_does(
    drawn: tuple[list[int], int, int],
) -> None:
    totals, table, advance, player = _setup(drawn)
    answer = needs(totals, player, table, advance, **BOUNDS)
    if answer.above:
        return
    wins = {"self-draw": lambda v: SelfDraw(player, v)}
    for other in table:
        if other != player:
            wins[other] = lambda v, other=other: Discard(player, other, v)
    stated = {"self-draw": answer.self_draw, **(answer.discard or {})}
    for how, win in wins.items():
        value = stated[how]
        if value is None:  # out of reach: not even the biggest hand
            assert not _over(totals, win(BOUNDS["max_value"]), table, player, advance)
            continue
        assert _over(totals, win(value), table, player, advance), how
        assert not any(
            _over(totals, win(v), table, player, advance) for v in range(BOUNDS["min_value"], value)
        ), how


@settings(max_examples=150, deadline=None)
@given(rounds)
def test_the_stated_loss_keeps_the_player_above_and_a_bigger_one_does_not(
    drawn: tuple[list[int], int, int],
) -> None:
    totals, table, advance, player = _setup(drawn)
    answer = needs(totals, player, table, advance, **BOUNDS)
    if not answer.above:
        return
    for other in table:
        if other == player:
            continue
        for hand, stated in (
            (lambda v, other=other: SelfDraw(other, v), answer.lose_self_draw),
            (lambda v, other=other: Discard(other, player, v), answer.lose_discard),
        ):
            assert stated is not None
            value = stated[other]
            if value is None:  # safe against this hand, whatever its value
                assert _over(totals, hand(BOUNDS["max_value"]), table, player, advance)
            elif value == 0:  # even the smallest win drops the player
                assert not _over(totals, hand(BOUNDS["min_value"]), table, player, advance)
            else:  # every loss up to the stated one keeps the player over, the next does not
                assert all(
                    _over(totals, hand(v), table, player, advance)
                    for v in range(BOUNDS["min_value"], value + 1)
                )
                assert not _over(totals, hand(value + 1), table, player, advance)


# -- Ari Ari ---------------------------------------------------------------------------------

SEATS = ("p0", "p1", "p2", "p3")
RULES = ariari.AriAriRules()
# every hand a judge can enter (rule AA-2), with its base
HANDS = [
    (ariari.base_points(ariari.Win("", 1, fan, fu)), fan, fu, None)
    for fan in range(1, 5)
    for fu in sorted(ariari.VALID_FU)
] + [(base, None, None, limit) for limit, base in ariari.LIMITS.items()]

earlier_hands = st.lists(
    st.tuples(
        st.sampled_from(["tsumo", "ron", "exhaustive_draw"]),
        st.integers(0, 3),
        st.integers(0, 3),
        st.sampled_from(HANDS),
        st.lists(st.integers(0, 3), max_size=2, unique=True),
    ),
    max_size=10,
)


def _result(
    kind: str, winner: PlayerId, other: PlayerId | None, hand: tuple, riichi: tuple = ()
) -> ariari.AriAriResult:
    _, fan, fu, limit = hand
    win = ariari.Win(winner, 1 if fan == 1 else 2, fan, fu, limit)
    facts = ariari.HandFacts(riichi=riichi)
    if kind == "tsumo" or other is None:
        return ariari.Tsumo(win, facts)
    return ariari.Ron(other, (win,), facts)


def _game(drawn: list[tuple]) -> tuple[ariari.Game, list[tuple[int, ariari.AriAriResult]]]:
    """A game of the generated hands that the rules accept, in order, until it ends."""
    played: list[tuple[int, ariari.AriAriResult]] = []
    game = ariari.play_game(SEATS, [], RULES)
    for kind, winner, other, hand, riichi in drawn:
        facts = ariari.HandFacts(riichi=tuple(SEATS[i] for i in riichi))
        result: ariari.AriAriResult = (
            ariari.ExhaustiveDraw((SEATS[winner],), facts)
            if kind == "exhaustive_draw"
            else _result(kind, SEATS[winner], SEATS[other], hand, facts.riichi)
        )
        if kind == "ron" and winner == other:
            continue
        try:
            tried = ariari.play_game(SEATS, [*played, (len(played) + 1, result)], RULES)
        except ariari.HandRefused:
            continue
        if tried.ended is not None:
            break
        played.append((len(played) + 1, result))
        game = tried
    return game, played


def _over_after_ariari(
    totals: dict[str, Fraction],
    played: list[tuple[int, ariari.AriAriResult]],
    result: ariari.AriAriResult,
    player: PlayerId,
    advance: int,
) -> bool | None:
    """Whether the player is over the line after `result`, by playing the whole game again;
    None where the rules refuse that hand (two yaku with five counters, rule AA-7)."""
    try:
        before = ariari.play_game(SEATS, played, RULES).results()
        after_hand = ariari.play_game(SEATS, [*played, (len(played) + 1, result)], RULES)
    except ariari.HandRefused:
        return None
    moved = dict(totals)
    for seated, points in after_hand.results().items():
        moved[seated] += points - before[seated]
    return over_the_line(moved, player, advance)


ariari_rounds = st.tuples(
    earlier_hands,
    st.integers(5, 12).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(-60, 60), min_size=n, max_size=n),
            st.integers(1, n - 1),
            st.integers(0, 3),
        )
    ),
)


@settings(max_examples=60, deadline=None)
@given(ariari_rounds)
def test_ariari_the_stated_win_lifts_and_no_smaller_hand_does(
    drawn: tuple[list[tuple], tuple[list[int], int, int]],
) -> None:
    hands, (thousands, advance, seat) = drawn
    game, played = _game(hands)
    totals = {f"p{i}": Fraction(t * 1000) for i, t in enumerate(thousands)}
    player = SEATS[seat]
    answer = ariari_needs(totals, player, game, advance)
    ways: dict[str, PlayerId | None] = {"tsumo": None}
    ways.update({other: other for other in SEATS if other != player})
    if answer.above:
        for other in SEATS:
            if other == player:
                continue
            for kind, stated, winner, payer in (
                ("tsumo", answer.lose_self_draw, other, None),
                ("ron", answer.lose_discard, other, player),
            ):
                assert stated is not None
                _check_loss(totals, played, player, advance, kind, winner, payer, stated[other])
        return
    stated = {"tsumo": answer.self_draw, **(answer.discard or {})}
    for how, discarder in ways.items():
        kind = "tsumo" if discarder is None else "ron"
        outcomes = [
            (value, over)
            for value, over in (
                _valued(totals, played, player, advance, _result(kind, player, discarder, hand))
                for hand in HANDS
            )
            if over is not None
        ]
        lifting = [value for value, over in outcomes if over]
        if stated[how] is None:
            assert lifting == [], how
        else:
            assert stated[how] == min(lifting), how
            assert all(not over for value, over in outcomes if value < min(lifting)), how


def _valued(
    totals: dict[str, Fraction],
    played: list[tuple[int, ariari.AriAriResult]],
    player: PlayerId,
    advance: int,
    result: ariari.AriAriResult,
) -> tuple[int, bool | None]:
    """The hand's value (rule AA-22) and whether it leaves the player over the line."""
    try:
        game = ariari.play_game(SEATS, [*played, (len(played) + 1, result)], RULES)
    except ariari.HandRefused:
        return 0, None
    return game.hands[-1].wins[0][1], _over_after_ariari(totals, played, result, player, advance)


def _check_loss(
    totals: dict[str, Fraction],
    played: list[tuple[int, ariari.AriAriResult]],
    player: PlayerId,
    advance: int,
    kind: str,
    winner: PlayerId,
    payer: PlayerId | None,
    stated: int | None,
) -> None:
    outcomes = [
        outcome
        for outcome in (
            _valued(totals, played, player, advance, _result(kind, winner, payer, hand))
            for hand in HANDS
        )
        if outcome[1] is not None
    ]
    if stated is None:  # safe against this hand, whatever its size
        assert all(over for _, over in outcomes)
    elif stated == 0:  # even the smallest hand drops the player
        assert not min(outcomes)[1]
    else:
        assert all(over for value, over in outcomes if value <= stated)
        assert any(not over for value, over in outcomes if value > stated)


@settings(max_examples=200, deadline=None)
@given(
    rounds,
    st.integers(0, 3),
    st.one_of(st.none(), st.integers(0, 3)),
    st.integers(BOUNDS["min_value"], BOUNDS["max_value"]),
)
def test_the_whole_point_count_agrees_with_the_paid_hand(
    drawn: tuple[list[int], int, int], winner: int, discarder: int | None, value: int
) -> None:
    """issue 32: FieldTotals.over_after_points, the search's shortcut for a WSOM hand, says
    what over_after_paying says of the same hand paid by rule HS-2 (wsom_deltas)."""
    totals, table, advance, player = _setup(drawn)
    if discarder == winner:
        discarder = None
    field = FieldTotals(totals)
    by_seat = wsom_payoffs(table, **BOUNDS)
    assert by_seat.points is not None
    points = by_seat.points(winner, discarder, value - BOUNDS["min_value"])
    deltas = dict(
        wsom_deltas(table, table[winner], None if discarder is None else table[discarder], value)
    )
    assert points == tuple(deltas[seated] for seated in table)
    before = [field.scaled[seated] for seated in table]
    assert field.over_after_points(before, points, table.index(player), advance) == (
        field.over_after_paying(deltas, player, advance)
    )
