"""The live feed's own copy of a tournament (issue 32): made from the log and brought up to
date line by line, as another server process follows it, so that the feed works out what it
sends without the store's lock and off the event loop.

The store's cached tournament is the writers': a judge's hand changes it under the
tournament's lock. The feed used to read it under that lock, on the event loop: with a hall
following every player (1,300 channels for 1,024 players, about 100 ms an update), each
update held the loop and the lock, and every judge's hand that came meanwhile waited for
both. The copy is the feed's alone: it takes each committed line once (from this process's
commit as it is published, or from the database when another process committed it, or a
line is missing), and between two of those the feed reads it in a thread, while judges
write, the loop serves them, and nobody waits for the feed.

A copy costs the tournament's memory once more (about 3 MiB for a 1,024-player round 1).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from app.domain.replay import apply_line, replay_lines
from app.domain.tournament import Tournament
from app.realtime.source import StoredLine, TournamentSource

# Commits of this process kept for the next update, at most: past it, the update reads the
# lines from the database instead (a feed whose updates stopped, or a storm of commits).
PENDING = 1024


@dataclass(frozen=True)
class Committed:
    """A commit of this process, as the store published it: its lines from `first_seq`."""

    first_seq: int
    version: int
    lines: tuple[str, ...]


class TournamentGone(Exception):
    """The tournament has no log (it was never made, or a restore removed it)."""


@dataclass(eq=False)
class Replica:
    """One tournament, as its log stood at `version` (`seq` lines). Only the feed's own
    coroutines change it, one at a time (under the feed's lock), never while a thread reads
    it."""

    source: TournamentSource
    tournament_id: int
    tournament: Tournament | None = None
    seq: int = 0
    version: int = -1
    pending: deque[Committed] = field(default_factory=lambda: deque(maxlen=PENDING))

    def committed(self, commit: Committed) -> None:
        """A commit of this process, kept for the next `catch_up` (on the event loop)."""
        self.pending.append(commit)

    async def catch_up(self, at_least: int | None = None) -> None:
        """Take every line committed since: this process's commits from memory when they
        follow on (`at_least`: the version a commit announced), else the database's."""
        self._take_pending()
        if self.tournament is not None and at_least is not None and self.version >= at_least:
            return
        stored = await asyncio.to_thread(self.source.lines_after, self.tournament_id, self.seq)
        self._apply(stored)

    def _take_pending(self) -> None:
        while self.pending and self.tournament is not None:
            commit = self.pending.popleft()
            if commit.first_seq + len(commit.lines) - 1 <= self.seq:
                continue  # already taken from the database
            if commit.first_seq != self.seq + 1:
                self.pending.clear()  # a line missing between: the database has it
                return
            for line in commit.lines:
                apply_line(self.tournament, line)
            self.seq += len(commit.lines)
            self.version = commit.version
        self.pending.clear()

    def _apply(self, stored: Sequence[StoredLine]) -> None:
        if self.tournament is None:
            if not stored:
                raise TournamentGone(self.tournament_id)
            self.tournament = replay_lines([line.body for line in stored], stored=True)
        else:
            for line in stored:
                apply_line(self.tournament, line.body)
        if stored:
            self.seq, self.version = stored[-1].seq, stored[-1].version
