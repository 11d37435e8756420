"""What the live feed needs of the store, and nothing more: a `typing.Protocol`.

The feed follows a tournament's log and version and hears of every commit; the store
(`app.services.store.TournamentStore`) provides that. Written down here, in the feed's own
terms, `realtime` never imports `services` and `services` never imports `realtime` (the
import-linter contracts in pyproject.toml): the app factory hands the one to the other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol


class Commit(Protocol):
    """A committed change: the tournament is now at `version` (STYLE.md, convention 5), its
    log `lines` appended from line `first_seq` on."""

    @property
    def tournament_id(self) -> int: ...

    @property
    def version(self) -> int: ...

    @property
    def first_seq(self) -> int: ...

    @property
    def lines(self) -> tuple[str, ...]: ...


class StoredLine(Protocol):
    """A log line as the database keeps it: its place in the log and its commit's version."""

    @property
    def seq(self) -> int: ...

    @property
    def version(self) -> int: ...

    @property
    def body(self) -> str: ...


class TournamentSource(Protocol):
    def lines_after(self, tournament_id: int, seq: int) -> Sequence[StoredLine]:
        """The tournament's log lines after the first `seq`, in order (the live feed's own
        copy follows the log with them: app/realtime/replica.py)."""
        ...

    def version(self, tournament_id: int) -> int:
        """The tournament's version, once this process has caught up with the log; raises
        the store's NotFound for no such tournament."""
        ...

    def stored_version(self, tournament_id: int) -> int | None:
        """The committed version in the database (another process may be ahead of us);
        None when there is no such tournament."""
        ...

    def subscribe(self, subscriber: Callable[[Commit], None]) -> None:
        """Call `subscriber` after every commit, in the committing thread."""
        ...
