"""What the live feed needs of the store, and nothing more: a `typing.Protocol`.

The feed reads a tournament's state and version and hears of every commit; the store
(`app.services.store.TournamentStore`) provides that. Written down here, in the feed's own
terms, `realtime` never imports `services` and `services` never imports `realtime` (the
import-linter contracts in pyproject.toml): the app factory hands the one to the other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from app.domain.tournament import Tournament

T = TypeVar("T")


class Commit(Protocol):
    """A committed change: the tournament is now at `version` (STYLE.md, convention 5)."""

    @property
    def tournament_id(self) -> int: ...

    @property
    def version(self) -> int: ...


class TournamentSource(Protocol):
    def read(self, tournament_id: int, view: Callable[[Tournament, int], T]) -> T:
        """`view(tournament, version)` on the up-to-date state."""
        ...

    def read_cached(
        self, tournament_id: int, view: Callable[[Tournament, int], T], at_least: int
    ) -> tuple[T] | None:
        """`(view(tournament, version),)` on a state of version `at_least` or later held in
        memory, without waiting; None when there is none."""
        ...

    def version(self, tournament_id: int) -> int:
        """The tournament's version, as read() sees it."""
        ...

    def stored_version(self, tournament_id: int) -> int | None:
        """The committed version in the database (another process may be ahead of us);
        None when there is no such tournament."""
        ...

    def subscribe(self, subscriber: Callable[[Commit], None]) -> None:
        """Call `subscriber` after every commit, in the committing thread."""
        ...
