"""The Ari Ari ruleset: riichi-style games (rules AA-1 to AA-17, decisions in docs/ariari.md).

A hand of an Ari Ari game depends on everything before it in the game: the dealer, the
counters and the riichi bets on the table. So a table's game is one pure function,
`play_game`, of its seats, its hands in order and the format's rules; the tournament runs
it again whenever a hand of the game is entered, corrected or voided.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Literal

from app.domain.bounds import MAX_HANDS, short
from app.domain.errors import HandRefused, IllegalMove, MalformedInput, RuleViolation, say
from app.domain.hands import PlayerId, Settlement, check_fields, check_seated, player_id

Seats = tuple[PlayerId, PlayerId, PlayerId, PlayerId]  # starting east, south, west, north
GameLength = Literal["east_south", "east_only"]

RIICHI_BET = 1000  # rule AA-5
# rule AA-1: starting points by game length
START_POINTS: Mapping[str, int] = {"east_south": 25_000, "east_only": 20_000}
UMA = (10_000, 5_000, -5_000, -10_000)  # rule AA-16, by final place
COUNTER_RON = 300  # rule AA-6: per counter, paid by the discarder
COUNTER_TSUMO = 100  # rule AA-6: per counter, from each payer
TWO_YAKU_COUNTERS = 5  # rule AA-7
MANGAN = 2_000  # rule AA-2: the cap below 5 fan, and the chombo penalty's base (AA-10)
# rule AA-2: the limits by name, as the judge enters them
LIMITS: Mapping[str, int] = {
    "mangan": 2_000,
    "haneman": 3_000,
    "baiman": 4_000,
    "sanbaiman": 6_000,
    "yakuman": 8_000,
}
# rule AA-19 (docs/ariari.md): the fu a judge may enter
VALID_FU = frozenset({20, 25, *range(30, 111, 10)})


@dataclass(frozen=True)
class AriAriRules:
    """The format's choices for its games (rules AA-1, AA-9, AA-12, AA-16)."""

    length: GameLength = "east_south"
    start_points: int = 25_000
    tenpai_payment: int = 0  # rule AA-9: off by default; else the total the noten pay
    uma: tuple[int, int, int, int] = UMA

    @property
    def rotations(self) -> int:
        """rule AA-12: how many times the deal passes before the game ends."""
        return 8 if self.length == "east_south" else 4


# -- results as the judge enters them -------------------------------------------------


@dataclass(frozen=True)
class Win:
    """One winner's hand: fan and fu, or a named limit (rule AA-2), and its yaku (AA-7)."""

    winner: PlayerId
    yaku: int
    fan: int | None = None
    fu: int | None = None
    limit: str | None = None


@dataclass(frozen=True)
class HandFacts:
    """What every Ari Ari result may carry besides its outcome: riichi declarations
    (AA-5), dead hands (AA-11) and the dealer and counters the judge saw (AA-6, AA-8)."""

    riichi: tuple[PlayerId, ...] = ()
    dead: tuple[PlayerId, ...] = ()
    dealer: PlayerId | None = None
    counters: int | None = None


@dataclass(frozen=True)
class Ron:
    discarder: PlayerId
    wins: tuple[Win, ...]  # rule AA-4: one or more winners on one discard
    facts: HandFacts = HandFacts()
    kind: str = "ron"


@dataclass(frozen=True)
class Tsumo:
    win: Win
    facts: HandFacts = HandFacts()
    kind: str = "tsumo"


@dataclass(frozen=True)
class ExhaustiveDraw:
    tenpai: tuple[PlayerId, ...]  # rule AA-9
    facts: HandFacts = HandFacts()
    kind: str = "exhaustive_draw"


@dataclass(frozen=True)
class Chombo:
    offender: PlayerId  # rule AA-10
    facts: HandFacts = HandFacts()
    kind: str = "chombo"


AriAriResult = Ron | Tsumo | ExhaustiveDraw | Chombo
KINDS = ("ron", "tsumo", "exhaustive_draw", "chombo")


# -- parsing and writing the log's `result` -------------------------------------------

_WIN_KEYS = {"winner", "yaku", "fan", "fu", "limit"}
_FACT_KEYS = {"riichi", "dead", "dealer", "counters"}
_RESULT_KEYS: Mapping[str, tuple[set[str], set[str]]] = {
    "ron": ({"kind", "discarder", "wins"}, _FACT_KEYS),
    "tsumo": ({"kind", "winner", "yaku"}, _FACT_KEYS | {"fan", "fu", "limit"}),
    "exhaustive_draw": ({"kind"}, _FACT_KEYS | {"tenpai"}),
    "chombo": ({"kind", "offender"}, _FACT_KEYS),
}


def _players(raw: Mapping[str, Any], key: str, field: str) -> tuple[PlayerId, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list):
        raise MalformedInput("CONTRACT §1", f"{field}.{key}", say("must be a list of player ids"))
    players = tuple(player_id(p, f"{field}.{key}[{i}]") for i, p in enumerate(value))
    if len({str(p) for p in players}) != len(players):
        raise MalformedInput("CONTRACT §1", f"{field}.{key}", say("names a player twice"))
    return players


def _count(raw: object, field: str, rule: str, minimum: int, maximum: int) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool) or not minimum <= raw <= maximum:
        raise MalformedInput(
            rule,
            field,
            say(
                "must be an integer from {minimum} to {maximum}, got {raw}",
                minimum=minimum,
                maximum=maximum,
                raw=short(raw),
            ),
        )
    return raw


# rule AA-2: 13 fan or more is a yakuman, whatever the count; no hand counts near 100.
MAX_FAN = 100
# rule AA-7, AA-20: a hand's yaku are counted one by one; no hand holds 40.
MAX_YAKU = 40
# rule AA-6: at most one counter is added per hand, and a game has at most 100 (AA-23).
MAX_COUNTERS = MAX_HANDS
# rule AA-1, AA-16: a game's points are tens of thousands; a format's starting points,
# tenpai payment and uma stay within this.
MAX_GAME_POINTS = 100_000


def _win(raw: object, field: str) -> Win:
    if not isinstance(raw, dict):
        raise MalformedInput(
            "AA-2", field, say("must be an object with winner, yaku and fan/fu or limit")
        )
    check_fields(
        raw, {"winner", "yaku"}, _WIN_KEYS - {"winner", "yaku"}, field, say("a win"), "AA-2"
    )
    fan = raw.get("fan")
    fu = raw.get("fu")
    limit = raw.get("limit")
    if limit is not None:
        if fan is not None or fu is not None:
            raise MalformedInput(
                "AA-2", f"{field}.limit", say("give fan and fu, or a limit, not both")
            )
        if limit not in LIMITS:
            raise MalformedInput(
                "AA-2",
                f"{field}.limit",
                say("{limit} is not one of {limits}", limit=repr(limit), limits=", ".join(LIMITS)),
            )
    else:
        if fan is None:
            raise MalformedInput(
                "AA-2", f"{field}.fan", say("a win needs fan (and fu), or a limit")
            )
        fan = _count(fan, f"{field}.fan", "AA-2", 1, MAX_FAN)
        if fu is None and fan < 5:
            # rule AA-2: below 5 fan the base comes from the fu
            raise MalformedInput(
                "AA-2", f"{field}.fu", say("a {fan}-fan hand needs its fu", fan=fan)
            )
        if fu is not None and (
            not isinstance(fu, int) or isinstance(fu, bool) or fu not in VALID_FU
        ):
            # rule AA-19: the fu a hand can score
            raise MalformedInput(
                "AA-19",
                f"{field}.fu",
                say("{fu} is not a valid fu: use 20, 25 or 30 to 110 by 10", fu=repr(fu)),
            )
    return Win(
        player_id(raw["winner"], f"{field}.winner"),
        # rule AA-20: every win has at least one yaku
        _count(raw["yaku"], f"{field}.yaku", "AA-20", 1, MAX_YAKU),
        fan,
        fu,
        limit,
    )


def parse_result(raw: Mapping[str, Any], field: str = "result") -> AriAriResult:
    """An Ari Ari `result` object (docs/log-format.md §7), checked for shape only."""
    kind = raw.get("kind")
    required, optional = _RESULT_KEYS[str(kind)]
    check_fields(raw, required, optional, field, say("a {kind}", kind=kind), "AA-2")
    counters = raw.get("counters")
    dealer = raw.get("dealer")
    facts = HandFacts(
        _players(raw, "riichi", field),
        _players(raw, "dead", field),
        None if dealer is None else player_id(dealer, f"{field}.dealer"),
        None
        if counters is None
        else _count(counters, f"{field}.counters", "AA-6", 0, MAX_COUNTERS),
    )
    if kind == "ron":
        wins = raw["wins"]
        if not isinstance(wins, list) or not 1 <= len(wins) <= 3:
            raise MalformedInput(
                "AA-4", f"{field}.wins", say("must list 1 to 3 winners on the one discard")
            )
        return Ron(
            player_id(raw["discarder"], f"{field}.discarder"),
            tuple(_win(w, f"{field}.wins[{i}]") for i, w in enumerate(wins)),
            facts,
        )
    if kind == "tsumo":
        return Tsumo(_win({k: raw[k] for k in _WIN_KEYS if k in raw}, field), facts)
    if kind == "exhaustive_draw":
        return ExhaustiveDraw(_players(raw, "tenpai", field), facts)
    return Chombo(player_id(raw["offender"], f"{field}.offender"), facts)


def _win_to_log(win: Win) -> dict[str, Any]:
    out: dict[str, Any] = {"winner": win.winner}
    if win.limit is not None:
        out["limit"] = win.limit
    if win.fan is not None:
        out["fan"] = win.fan
    if win.fu is not None:
        out["fu"] = win.fu
    out["yaku"] = win.yaku
    return out


def result_to_log(result: AriAriResult) -> dict[str, Any]:
    """The inverse of parse_result, for writing a log line."""
    out: dict[str, Any] = {"kind": result.kind}
    if isinstance(result, Ron):
        out["discarder"] = result.discarder
        out["wins"] = [_win_to_log(w) for w in result.wins]
    elif isinstance(result, Tsumo):
        out |= _win_to_log(result.win)
    elif isinstance(result, ExhaustiveDraw):
        out["tenpai"] = list(result.tenpai)
    else:
        out["offender"] = result.offender
    facts = result.facts
    if facts.riichi:
        out["riichi"] = list(facts.riichi)
    if facts.dead:
        out["dead"] = list(facts.dead)
    if facts.dealer is not None:
        out["dealer"] = facts.dealer
    if facts.counters is not None:
        out["counters"] = facts.counters
    return out


def with_table_state(result: AriAriResult, dealer: PlayerId, counters: int) -> AriAriResult:
    """The result with the dealer and counters filled in where the judge left them out."""
    facts = result.facts
    filled = HandFacts(
        facts.riichi,
        facts.dead,
        dealer if facts.dealer is None else facts.dealer,
        counters if facts.counters is None else facts.counters,
    )
    return replace(result, facts=filled)


# -- payments (rules AA-2, AA-3) --------------------------------------------------------


def round_up(points: int) -> int:
    """rule AA-3: every single payment is rounded up to a multiple of 100."""
    return -(-points // 100) * 100


def base_points(win: Win) -> int:
    """rule AA-2: the hand's base from its fan and fu, or its limit."""
    if win.limit is not None:
        return LIMITS[win.limit]
    fan = win.fan
    assert fan is not None
    if fan >= 13:
        return 8_000
    if fan >= 11:
        return 6_000
    if fan >= 8:
        return 4_000
    if fan >= 6:
        return 3_000
    if fan == 5:
        return MANGAN
    assert win.fu is not None
    # rule AA-2: fu rounded up to 10 (so 25 scores as 30, rule AA-19), capped at a mangan
    fu = -(-win.fu // 10) * 10
    return min(fu * (1 << (fan + 2)), MANGAN)  # fu x 2^(fan+2)


def ron_payment(base: int, *, dealer_wins: bool) -> int:
    """rule AA-3: what the discarder pays, counters not included."""
    return round_up((6 if dealer_wins else 4) * base)


def tsumo_payments(base: int, *, dealer_wins: bool) -> tuple[int, int]:
    """rule AA-3: (what the dealer pays, what each other loser pays), counters not
    included; when the dealer wins, the first figure is unused."""
    if dealer_wins:
        return 0, round_up(2 * base)
    return round_up(2 * base), round_up(base)


def split_evenly(total: int, among: Sequence[PlayerId]) -> dict[PlayerId, int]:
    """rules AA-16, AA-21 (uma): whole points each; the points left over go one each to
    the players nearest the starting East in turn order (`among` is in that order)."""
    share, left = divmod(total, len(among))
    return {p: share + (1 if i < left else 0) for i, p in enumerate(among)}


def split_bets(total: int, among: Sequence[PlayerId]) -> dict[PlayerId, int]:
    """rule AA-15 (leftover riichi bets): whole points each, and the whole remainder to
    the one player nearest the starting East in turn order (`among` is in that order).
    Not AA-21's one point each: 2,000 among three is 668, 666, 666, not 667, 667, 666."""
    share, left = divmod(total, len(among))
    return {p: share + (left if i == 0 else 0) for i, p in enumerate(among)}


# -- the game --------------------------------------------------------------------------


EndReason = Literal["AA-12", "AA-13", "AA-14"]
END_WORDS: Mapping[str, str] = {
    "AA-12": say("the last round ended"),
    "AA-13": say("agari-yame: the dealer led alone in the last hand"),
    "AA-14": say("bankruptcy: a score fell below zero"),
}


@dataclass(frozen=True)
class HandPlay:
    """One hand as the game played it."""

    number: int
    dealer: PlayerId
    counters: int  # on the table when the hand began (rule AA-6)
    bets_before: int  # riichi bets on the table when the hand began (rule AA-5)
    payments: tuple[tuple[PlayerId, int], ...]  # the hand's payments alone, seat order
    deltas: tuple[tuple[PlayerId, int], ...]  # payments plus bets placed and collected
    bets_after: int
    wins: tuple[tuple[PlayerId, int], ...]  # (winner, value for the tie-break, rule AA-22)
    points_after: tuple[tuple[PlayerId, int], ...]
    ended: EndReason | None = None


@dataclass(frozen=True)
class Standing:
    """A player's end of the game (rules AA-15 to AA-17)."""

    player: PlayerId
    place: int  # 1-4, tied players share the better place
    points: int  # after the last hand
    bets: int  # leftover riichi bets collected (rule AA-15)
    uma: int  # rule AA-16
    result: int  # rule AA-17: points + bets - start + uma


@dataclass(frozen=True)
class Game:
    seats: Seats
    rules: AriAriRules
    hands: tuple[HandPlay, ...]
    points: tuple[tuple[PlayerId, int], ...]  # after the last hand, seat order
    bets: int  # riichi bets on the table
    dealer: PlayerId | None  # who deals next; None once the game has ended
    counters: int  # counters for the next hand
    ended: EndReason | None
    standings: tuple[Standing, ...] = ()  # seat order, once the game has ended
    passes: int = 0  # how often the deal has passed (rule AA-8)

    def results(self) -> dict[PlayerId, int]:
        """rule AA-17: each player's result so far: points minus start during play, with
        leftover bets and uma once the game has ended."""
        if self.standings:
            return {s.player: s.result for s in self.standings}
        return {p: points - self.rules.start_points for p, points in self.points}

    def settlements(self) -> dict[int, Settlement]:
        """The game as the tournament counts it (rule SC-1): each hand's point changes;
        the hand that ended the game also carries the leftover bets and the uma."""
        out: dict[int, Settlement] = {}
        for hand in self.hands:
            deltas = dict(hand.deltas)
            if hand.ended is not None:
                for standing in self.standings:
                    deltas[standing.player] += standing.bets + standing.uma
            first = hand.wins[0] if hand.wins else (None, None)
            out[hand.number] = Settlement(
                tuple((p, deltas[p]) for p in self.seats), first[0], first[1], hand.wins[1:]
            )
        return out


def play_game(seats: Seats, hands: Sequence[tuple[int, AriAriResult]], rules: AriAriRules) -> Game:
    """Play a table's game from the first deal: `hands` are (hand number, result) in
    order. Raises HandRefused naming the first hand that breaks a rule."""
    return continue_game(new_game(seats, rules), hands)


def new_game(seats: Seats, rules: AriAriRules) -> Game:
    """A game before its first deal (rule AA-1)."""
    return Game(
        seats=seats,
        rules=rules,
        hands=(),
        points=tuple((p, rules.start_points) for p in seats),
        bets=0,
        dealer=seats[0],
        counters=0,
        ended=None,
    )


def continue_game(game: Game, hands: Sequence[tuple[int, AriAriResult]]) -> Game:
    """The game once `hands` are played after the ones it holds: how what a player needs
    (app/domain/needs.py) plays one more hand without playing the game again."""
    seats, rules = game.seats, game.rules
    points = dict(game.points)
    passes = game.passes  # how often the deal has passed (rule AA-8)
    counters = game.counters
    bets = game.bets
    ended = game.ended
    played = list(game.hands)
    for number, result in hands:
        try:
            if ended is not None:
                raise IllegalMove(
                    ended,
                    "hand",
                    say(
                        "the game ended after hand {number} ({end_words}); no hand follows it",
                        number=played[-1].number,
                        end_words=END_WORDS[ended],
                    ),
                )
            hand = _play_hand(
                seats, number, result, rules, points, seats[passes % 4], counters, bets
            )
        except RuleViolation as violation:
            raise HandRefused(number, violation) from violation
        points = dict(hand.points_after)
        bets = hand.bets_after
        dealer = seats[passes % 4]
        keeps = _dealer_keeps(result, dealer)
        counters = _next_counters(result, dealer, counters)
        if not keeps:
            passes += 1  # rule AA-8: South becomes East, and so on
        if any(p < 0 for p in points.values()):
            ended = "AA-14"
        elif passes == rules.rotations:
            ended = "AA-12"
        elif (
            keeps
            and not isinstance(result, Chombo)  # rule AA-24: a re-deal is not a repeat
            and passes == rules.rotations - 1
            and all(points[dealer] > points[p] for p in seats if p != dealer)
        ):
            ended = "AA-13"
        if ended is not None:
            hand = replace(hand, ended=ended)
        played.append(hand)
    return Game(
        seats=seats,
        rules=rules,
        hands=tuple(played),
        points=tuple((p, points[p]) for p in seats),
        bets=bets,
        dealer=None if ended is not None else seats[passes % 4],
        counters=counters,
        ended=ended,
        standings=end_of_game(seats, points, bets, rules) if ended is not None else (),
        passes=passes,
    )


def game_dealer(game: Game | None, seats: Seats, hand: int) -> PlayerId | None:
    """Who deals hand number `hand` of a table's game (rule AA-8): a played hand's dealer,
    the next dealer for the hand after the last, None past the end of the game."""
    if game is None or not game.hands:
        return seats[0] if hand == 1 else None
    for played in game.hands:
        if played.number == hand:
            return played.dealer
    return game.dealer if hand == game.hands[-1].number + 1 else None


def _dealer_keeps(result: AriAriResult, dealer: PlayerId) -> bool:
    """rule AA-8: East stays after winning or a tenpai draw; rule AA-10: after a chombo."""
    if isinstance(result, Ron):
        return any(w.winner == dealer for w in result.wins)
    if isinstance(result, Tsumo):
        return result.win.winner == dealer
    if isinstance(result, ExhaustiveDraw):
        return dealer in result.tenpai
    return True


def _next_counters(result: AriAriResult, dealer: PlayerId, counters: int) -> int:
    """rule AA-6: a counter after East wins or an exhaustive draw; none left after another
    player wins alone; rule AA-10: a chombo leaves them."""
    if isinstance(result, Chombo):
        return counters
    if isinstance(result, ExhaustiveDraw) or _dealer_keeps(result, dealer):
        return counters + 1
    return 0


def _play_hand(
    seats: Seats,
    number: int,
    result: AriAriResult,
    rules: AriAriRules,
    points: Mapping[PlayerId, int],
    dealer: PlayerId,
    counters: int,
    bets: int,
) -> HandPlay:
    facts = result.facts
    _check_facts(seats, facts, dealer, counters, points)
    payments = {p: 0 for p in seats}
    wins: list[tuple[PlayerId, int]] = []
    placed = len(facts.riichi) * RIICHI_BET  # rule AA-5
    bet_changes = {p: (-RIICHI_BET if p in facts.riichi else 0) for p in seats}
    bets_after = bets + placed
    if isinstance(result, Ron):
        check_seated(result.discarder, seats, "result.discarder", "AA-3")
        winners = [w.winner for w in result.wins]
        if len({str(w) for w in winners}) != len(winners):
            raise MalformedInput("AA-4", "result.wins", say("names a winner twice"))
        for index, win in enumerate(result.wins):
            where = f"result.wins[{index}]"
            _check_win(seats, win, facts, counters, where)
            if win.winner == result.discarder:
                raise MalformedInput(
                    "AA-3", f"{where}.winner", say("the discarder cannot win on their own discard")
                )
            value = ron_payment(base_points(win), dealer_wins=win.winner == dealer)
            # rule AA-4: the discarder pays each winner in full, counters included (AA-6)
            paid = value + COUNTER_RON * counters
            payments[win.winner] += paid
            payments[result.discarder] -= paid
            wins.append((win.winner, value))  # rule AA-22
        # rule AA-4: the bets go to the winner first in turn order after the discarder
        start = seats.index(result.discarder)
        first = next(
            seats[(start + step) % 4]
            for step in range(1, 4)
            if seats[(start + step) % 4] in winners
        )
        bet_changes[first] += bets_after
        bets_after = 0
    elif isinstance(result, Tsumo):
        win = result.win
        _check_win(seats, win, facts, counters, "result")
        dealer_pays, other_pays = tsumo_payments(base_points(win), dealer_wins=win.winner == dealer)
        value = 0
        for player in seats:
            if player == win.winner:
                continue
            owed = dealer_pays if player == dealer else other_pays
            value += owed
            paid = owed + COUNTER_TSUMO * counters  # rule AA-6
            payments[player] -= paid
            payments[win.winner] += paid
        wins.append((win.winner, value))  # rule AA-22
        bet_changes[win.winner] += bets_after  # rule AA-5: the winner collects every bet
        bets_after = 0
    elif isinstance(result, ExhaustiveDraw):
        for index, player in enumerate(result.tenpai):
            check_seated(player, seats, f"result.tenpai[{index}]", "AA-3")
            if player in facts.dead:
                # rule AA-11: a dead hand is never tenpai
                raise IllegalMove(
                    "AA-11",
                    f"result.tenpai[{index}]",
                    say("player {player} has a dead hand", player=repr(player)),
                )
        payments = _tenpai_payments(seats, result.tenpai, rules.tenpai_payment)
        # rule AA-5: the bets stay on the table through a draw
    else:
        check_seated(result.offender, seats, "result.offender", "AA-3")
        # rule AA-10: a mangan, 4,000 to East and 2,000 to each other; 4,000 each from East
        for player in seats:
            if player == result.offender:
                continue
            owed = 2 * MANGAN if result.offender == dealer or player == dealer else MANGAN
            payments[player] += owed
            payments[result.offender] -= owed
        # rule AA-10: this hand's riichi bets go back to their owners
        bet_changes = {p: 0 for p in seats}
        bets_after = bets
    deltas = {p: payments[p] + bet_changes[p] for p in seats}
    return HandPlay(
        number=number,
        dealer=dealer,
        counters=counters,
        bets_before=bets,
        payments=tuple((p, payments[p]) for p in seats),
        deltas=tuple((p, deltas[p]) for p in seats),
        bets_after=bets_after,
        wins=tuple(wins),
        points_after=tuple((p, points[p] + deltas[p]) for p in seats),
    )


def _tenpai_payments(seats: Seats, tenpai: Sequence[PlayerId], total: int) -> dict[PlayerId, int]:
    """rule AA-9: with tenpai payments on, the noten players pay `total` between them and
    the tenpai players share it; nothing moves when all or none are tenpai."""
    if total == 0 or len(tenpai) in (0, 4):
        return {p: 0 for p in seats}
    noten = [p for p in seats if p not in tenpai]
    return {p: total // len(tenpai) if p in tenpai else -(total // len(noten)) for p in seats}


def _check_facts(
    seats: Seats,
    facts: HandFacts,
    dealer: PlayerId,
    counters: int,
    points: Mapping[PlayerId, int],
) -> None:
    for index, player in enumerate(facts.dead):
        check_seated(player, seats, f"result.dead[{index}]", "AA-3")
    for index, player in enumerate(facts.riichi):
        check_seated(player, seats, f"result.riichi[{index}]", "AA-3")
        if points[player] < RIICHI_BET:
            # rule AA-18: the bet must come from the player's own points
            raise IllegalMove(
                "AA-18",
                f"result.riichi[{index}]",
                say(
                    "player {player} has {points} points; a riichi needs at least {riichi_bet}",
                    player=repr(player),
                    points=points[player],
                    riichi_bet=RIICHI_BET,
                ),
            )
    if facts.dealer is not None and facts.dealer != dealer:
        raise IllegalMove(
            "AA-8",
            "result.dealer",
            say(
                "this hand is dealt by {dealer}, not {expected}",
                dealer=repr(dealer),
                expected=repr(facts.dealer),
            ),
        )
    if facts.counters is not None and facts.counters != counters:
        raise IllegalMove(
            "AA-6",
            "result.counters",
            say(
                "this hand has {counters} counter(s) on the table, not {expected}",
                counters=counters,
                expected=facts.counters,
            ),
        )


def _check_win(seats: Seats, win: Win, facts: HandFacts, counters: int, where: str) -> None:
    check_seated(win.winner, seats, f"{where}.winner", "AA-3")
    if win.winner in facts.dead:
        # rule AA-11: a dead hand may not win
        raise IllegalMove(
            "AA-11",
            f"{where}.winner",
            say("player {winner} has a dead hand", winner=repr(win.winner)),
        )
    if counters >= TWO_YAKU_COUNTERS and win.yaku < 2:
        # rule AA-7: with five or more counters a win needs two yaku
        raise IllegalMove(
            "AA-7",
            f"{where}.yaku",
            say(
                "{counters} counters are on the table: a win needs 2 yaku, this one has {yaku}",
                counters=counters,
                yaku=win.yaku,
            ),
        )


def end_of_game(
    seats: Seats, points: Mapping[PlayerId, int], bets: int, rules: AriAriRules
) -> tuple[Standing, ...]:
    """rules AA-15, AA-16, AA-17: places by the points after the last hand; leftover bets
    to first place (tied players splitting them, the remainder to the one nearest East,
    AA-15) and uma by place (tied players splitting it evenly, AA-21)."""
    order = sorted(seats, key=lambda p: -points[p])
    place: dict[PlayerId, int] = {}
    uma: dict[PlayerId, int] = {}
    index = 0
    while index < 4:
        tied = [p for p in order if points[p] == points[order[index]]]
        for player in tied:
            place[player] = index + 1
        in_turn = [p for p in seats if p in tied]  # nearest the starting East first
        uma |= split_evenly(sum(rules.uma[index : index + len(tied)]), in_turn)
        index += len(tied)
    first = [p for p in seats if place[p] == 1]
    collected = {p: 0 for p in seats} | split_bets(bets, first)
    return tuple(
        Standing(
            player=p,
            place=place[p],
            points=points[p],
            bets=collected[p],
            uma=uma[p],
            result=points[p] + collected[p] - rules.start_points + uma[p],
        )
        for p in seats
    )


def rules_from_log(raw: object, field: str = "format.game") -> AriAriRules:
    """The `game` object of an Ari Ari format (docs/log-format.md §8)."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise MalformedInput("AA-1", field, say("must be an object"))
    unknown = set(raw) - {"length", "start_points", "tenpai_payment", "uma"}
    if unknown:
        raise MalformedInput("AA-1", f"{field}.{sorted(unknown)[0]}", say("is not a game field"))
    length = raw.get("length", "east_south")
    if length not in START_POINTS:
        raise MalformedInput("AA-12", f"{field}.length", say("must be east_south or east_only"))
    start = _count(
        raw.get("start_points", START_POINTS[length]),
        f"{field}.start_points",
        "AA-1",
        1_000,
        MAX_GAME_POINTS,
    )
    tenpai = _count(
        raw.get("tenpai_payment", 0), f"{field}.tenpai_payment", "AA-9", 0, MAX_GAME_POINTS
    )
    if tenpai % 600:
        raise MalformedInput(
            "AA-9",
            f"{field}.tenpai_payment",
            say("must be a multiple of 600, so that two or three tenpai players share it evenly"),
        )
    uma_raw = raw.get("uma", list(UMA))
    if (
        not isinstance(uma_raw, list)
        or len(uma_raw) != 4
        or not all(isinstance(u, int) and not isinstance(u, bool) for u in uma_raw)
        or sum(uma_raw) != 0
        or any(abs(u) > MAX_GAME_POINTS for u in uma_raw)
    ):
        raise MalformedInput(
            "AA-16",
            f"{field}.uma",
            say(
                "must be 4 integers by place that sum to zero, each within {max_game_points:,}",
                max_game_points=MAX_GAME_POINTS,
            ),
        )
    return AriAriRules(
        length="east_south" if length == "east_south" else "east_only",
        start_points=start,
        tenpai_payment=tenpai,
        uma=(uma_raw[0], uma_raw[1], uma_raw[2], uma_raw[3]),
    )


def rules_to_log(rules: AriAriRules) -> dict[str, Any]:
    return {
        "length": rules.length,
        "start_points": rules.start_points,
        "tenpai_payment": rules.tenpai_payment,
        "uma": list(rules.uma),
    }


def points_shown(value: str | int | Fraction, *, minus: str = "-", signed: bool = False) -> str:
    """A score as the displays show it at an Ari Ari table (AA-17): whole points, rounded
    down as SC-5 rounds (a quarter carried over can leave a fraction, SC-3), with thousands
    separators: "13,200", "-5,400" ("+3,000" with `signed`). `value` is exact ("45/4")."""
    points = Fraction(value) // 1  # floor, as SC-5 rounds towards minus infinity
    text = f"{abs(points):,}"
    if points < 0:
        return minus + text
    return f"+{text}" if signed and points > 0 else text
