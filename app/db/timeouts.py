"""How long one connection waits for the database (issue 14; app/db/engine.py applies it).

Apart from the engine so that the settings, which carry it, load no SQLAlchemy: a command
that reads a setting and no database (scoreboard slips) stays light.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class DatabaseTimeouts:
    """How long, in seconds, one connection waits for the database before it gives up."""

    # PostgreSQL: a writer waiting for the tournament's row lock (or any other lock) gives
    # up after this; the store retries it once (TournamentStore.append).
    lock: float = 3.0
    # PostgreSQL: the server ends a session that sits this long inside a transaction without
    # sending anything (its process is frozen): the transaction rolls back, its locks go.
    # Shorter than two waits for a lock, so a writer queued behind a frozen holder gets it
    # on its second wait; longer than a busy machine's pause in a live process (at 2 s, a
    # loaded CI machine had a healthy import's session ended).
    idle_in_transaction: float = 4.0
    # PostgreSQL: no statement runs longer than this (a query stuck behind something else).
    statement: float = 30.0
    # SQLite: a writer waits this long for another connection's write lock.
    sqlite_busy: float = 10.0
