"""The standings at any moment of the day (issue 18, part 2): the log replayed up to a time,
for `GET /api/tournaments/{tid}/standings?at=TIME` and the spectators' time slider.

A line's time is the one it carries, as `scoreboard clocks --at` reads a log
(`domain.log.line_time`): a deal's or an early start's `time`, else the `at` the server
stamped when it stored the line. The log is in the order things happened (CONTRACT §1), so
the tournament at a moment is the log's first lines up to the first line that happened later
(`replay_lines(until=...)`); a line without a time (a registration in a log written by hand
and imported) goes with the lines around it.

A slider asks for many moments, back and forth, of a log of tens of thousands of lines, so
each tournament keeps, per store (all derived from the log, and rebuilt from it on demand):
- the stored lines read so far, each with the latest time of the lines up to it, so a moment
  is a number of lines found by bisection; only lines stored since are read again;
- a replayed tournament at some number of lines (the cursor), which a later moment carries
  forward line by line, and a pickled copy every CHECKPOINT lines, from which an earlier
  moment starts (never more than CHECKPOINT lines to apply);
- the last ANSWERS reports, by number of lines: a moment between the same two lines is the
  same answer.
"""

from __future__ import annotations

import bisect
import gc
import pickle
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from weakref import WeakKeyDictionary

from sqlmodel import Session

from app.db import queries
from app.domain.errors import MalformedInput, say
from app.domain.log import TournamentDeclared, decode_line, format_time, line_time, parse_event
from app.domain.replay import apply_line, report
from app.domain.tournament import Tournament
from app.services.errors import NotFound
from app.services.reports import round_state
from app.services.store import TournamentStore

CHECKPOINT = 2000  # lines between two pickled copies of the replayed tournament
# The pickled copies kept per tournament, at most (issue 32: a reader jumping to moment after
# moment must not grow the server without end): the least recently used go first, and a
# moment after one that went starts from an earlier copy, a little slower.
CHECKPOINT_BYTES = 128 * 1024 * 1024
# Reports kept per tournament. A report of a 1,024-player round holds about 1.2 MiB of
# objects: 64 of them, what a client asking for moment after moment filled, grew the server
# by 60 to 75 MiB (issue 32, bench/hostile.py). The encoded answers are kept besides, by the
# public answers' cache (app/web/public_answers.py), a fifth of the size.
ANSWERS = 8
_EARLIEST = datetime.min.replace(tzinfo=UTC)  # the time of a line that has none


@dataclass
class _History:
    """One tournament's log as the slider reads it (see the module's text)."""

    bodies: list[str] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)  # the version each line committed as
    reach: list[datetime] = field(default_factory=list)  # latest time of lines[: i + 1]
    first_time: datetime | None = None
    # lines applied -> pickle, least recently used first, CHECKPOINT_BYTES at most in all
    checkpoints: OrderedDict[int, bytes] = field(default_factory=OrderedDict)
    checkpoint_bytes: int = 0
    cursor: Tournament | None = None
    cursor_lines: int = 0
    answers: OrderedDict[int, dict[str, Any]] = field(default_factory=OrderedDict)
    guard: threading.Lock = field(default_factory=threading.Lock)

    def extend(self, bodies: list[tuple[str, int]]) -> None:
        for body, version in bodies:
            try:
                happened = line_time(decode_line(body, stored=True))
            except MalformedInput:
                # a time stored before the bounds on times came in (issue 14): the line is
                # read as it is, as replay reads it, and goes with the lines around it
                happened = None
            if happened is not None and self.first_time is None:
                self.first_time = happened
            latest = self.reach[-1] if self.reach else _EARLIEST
            self.bodies.append(body)
            self.versions.append(version)
            self.reach.append(latest if happened is None or happened < latest else happened)

    def lines_at(self, moment: datetime) -> int:
        """How many lines the log had at `moment`: up to the first that happened later; at
        least the tournament's own line (a moment before it gives the tournament declared)."""
        return max(1, bisect.bisect_right(self.reach, moment))

    def tournament_at(self, lines: int) -> Tournament:
        """The tournament after the log's first `lines` lines."""
        start = max((n for n in self.checkpoints if n <= lines), default=0)
        if start:
            self.checkpoints.move_to_end(start)
        # back from the cursor, or further forward than a checkpoint nearer the moment: from
        # that checkpoint (bytes this process pickled from the log above)
        if self.cursor is None or not start <= self.cursor_lines <= lines:
            if start:
                self.cursor = pickle.loads(self.checkpoints[start])
            else:
                self.cursor = _declared(self.bodies[0])
                start = 1
            self.cursor_lines = start
        tournament = self.cursor
        for number in range(self.cursor_lines, lines):
            apply_line(tournament, self.bodies[number])
            if (number + 1) % CHECKPOINT == 0 and number + 1 not in self.checkpoints:
                self._keep(number + 1, pickle.dumps(tournament, pickle.HIGHEST_PROTOCOL))
        self.cursor_lines = lines
        return tournament

    def _keep(self, lines: int, pickled: bytes) -> None:
        self.checkpoints[lines] = pickled
        self.checkpoint_bytes += len(pickled)
        while self.checkpoint_bytes > CHECKPOINT_BYTES and len(self.checkpoints) > 1:
            _, dropped = self.checkpoints.popitem(last=False)
            self.checkpoint_bytes -= len(dropped)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """The cycle collector paused while a replayed tournament is unpickled and carried
    forward: it made hundreds of thousands of objects, each making the collector walk every
    one of them again (an unpickle of a 1,000-player day: 0.14 s with it, 0.04 s without).
    Reference counting still frees what is dropped; the collector runs again after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _declared(body: str) -> Tournament:
    event = parse_event(decode_line(body, stored=True), stored=True)
    assert isinstance(event, TournamentDeclared)  # the store keeps it first (CONTRACT §1)
    return Tournament(event)


_histories: WeakKeyDictionary[TournamentStore, dict[int, _History]] = WeakKeyDictionary()
_histories_guard = threading.Lock()


def _history_of(store: TournamentStore, tournament_id: int) -> _History:
    """The tournament's history, made when a tournament with lines is first asked for (a
    request for one that does not exist leaves nothing behind)."""
    with _histories_guard:
        known = _histories.setdefault(store, {}).get(tournament_id)
    if known is not None:
        return known
    with Session(store.engine) as session:
        if queries.last_seq(session, tournament_id) == 0:
            raise NotFound(
                say("tournament {tournament_id} does not exist", tournament_id=tournament_id)
            )
    with _histories_guard:
        return _histories[store].setdefault(tournament_id, _History())


def standings_at(
    store: TournamentStore, tournament_id: int, moment: datetime, round_number: int | None
) -> dict[str, Any]:
    """The standings as they were at `moment` (a later one than now is now): the shape of
    the public standings answer, with `at` (the moment answered), `lines` (of the log, up to
    it) and `first_time`, `last_time` (the log's first and latest times, the slider's ends).
    Raises NotFound for no such tournament, IllegalMove for a round not begun by then."""
    moment = min(moment, store.clock())
    history = _history_of(store, tournament_id)
    with history.guard:
        with Session(store.engine) as session:
            stored = queries.lines_after(session, tournament_id, len(history.bodies))
            fresh = [(line.body, line.version) for line in stored]
        history.extend(fresh)
        lines = history.lines_at(moment)
        full = history.answers.get(lines)
        if full is None:
            with _no_cycle_collection():
                full = report(history.tournament_at(lines))
            history.answers[lines] = full
            while len(history.answers) > ANSWERS:
                history.answers.popitem(last=False)
        history.answers.move_to_end(lines)
        begun = [r["round"] for r in full["rounds"]]
        number = max(begun) if round_number is None else round_number
        if number not in begun:
            # rule FM-1, as the standings without `at` refuse it: not in this format, or not
            # begun by then
            round_state(history.tournament_at(lines), round_number)
        return {
            "version": history.versions[lines - 1],
            "at": format_time(moment),
            "lines": lines,
            "first_time": None if history.first_time is None else format_time(history.first_time),
            "last_time": None if history.reach[-1] == _EARLIEST else format_time(history.reach[-1]),
            "rounds": [r for r in full["rounds"] if r["round"] == number],
            "final_ranking": full["final_ranking"],
        }
