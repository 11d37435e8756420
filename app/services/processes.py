"""Which server processes are alive, so that a claim of one that is gone is released at once.

A request claims its Idempotency-Key before it enters the hand (app/services/judging.py). A
process killed mid-hand leaves its claim behind, and a retry used to be refused with 409 until
the claim window (ABANDONED_CLAIM) had passed: 7 to 14 s of refused retries at every table
after a crash (issue 14). Now each claim names its process, and each process keeps a row in
`server_processes` that it refreshes every HEARTBEAT_INTERVAL. A claim's process is gone when
its row is missing (it stopped, or a restart on its host cleared it), when its heartbeat is
older than HEARTBEAT_STALE (its host is gone, or it is frozen), or when its pid is not alive
on this very host (killed a moment ago). Such a claim is taken over by the retry at once; the
claim window stays only for a process that is alive and merely slow.

Taking over is always safe: the first request stores its answer only while its claim is still
its own (queries.finish_idempotency_key), in the transaction of the hand, so a process that
was only frozen and wakes up rolls its hand back instead of entering it twice.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from app.db import queries

log = logging.getLogger(__name__)

HEARTBEAT_INTERVAL = 1.0  # seconds between two heartbeats of a process
# A process whose heartbeat is older than this is gone (or frozen): several missed beats, so
# that a process slowed down by load is not taken for dead.
HEARTBEAT_STALE = timedelta(seconds=5)
# Rows of processes unseen for this long are removed by the next process to start.
FORGOTTEN_AFTER = timedelta(hours=1)


def this_host() -> str:
    """The host name, with the pid namespace when there is one: two containers on one host
    name do not see each other's pids."""
    try:
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return socket.gethostname()
    return f"{socket.gethostname()}/pidns:{namespace}"


def pid_alive(pid: int) -> bool:
    """Whether a process of this host has that pid (a zombie, killed but not yet reaped by
    its parent, is dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            state = stat.read().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return True  # no /proc here: it answered the signal
    return state not in ("Z", "X")


@dataclass(frozen=True)
class ProcessIdentity:
    """One start of one server process: random, so a restart is another process."""

    id: str
    host: str
    pid: int

    @staticmethod
    def new() -> ProcessIdentity:
        return ProcessIdentity(secrets.token_hex(8), this_host(), os.getpid())


class Heartbeat:
    """This process's row in `server_processes`, kept fresh by a thread of its own (a busy
    event loop must not make the process look dead)."""

    def __init__(
        self,
        engine: Engine,
        clock: Callable[[], datetime],
        identity: ProcessIdentity | None = None,
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.identity = identity if identity is not None else ProcessIdentity.new()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Register this process, and forget the earlier ones of this host that are dead:
        a restart releases the claims its previous run left at once."""
        me = self.identity
        now = self.clock()
        with Session(self.engine) as session:
            dead = [
                row.id
                for row in queries.server_processes_on(session, me.host)
                if row.pid == me.pid or not pid_alive(row.pid)
            ]
            queries.delete_server_processes(session, dead, unseen_since=now - FORGOTTEN_AFTER)
            queries.insert_server_process(session, me.id, me.host, me.pid, now)
        self._thread = threading.Thread(target=self._beat, name="server-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """A process that stops says so: its claims (none should be left) go at once."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=HEARTBEAT_INTERVAL * 2)
        try:
            with Session(self.engine) as session:
                queries.delete_server_processes(session, [self.identity.id])
        except SQLAlchemyError:
            log.warning("could not remove this process from server_processes", exc_info=True)

    def _beat(self) -> None:
        me = self.identity
        while not self._stop.wait(HEARTBEAT_INTERVAL):
            try:
                with Session(self.engine) as session:
                    if not queries.beat(session, me.id, self.clock()):
                        # Another process took us for dead and removed the row (we were
                        # frozen): our claims are being taken over; we live on, row anew.
                        queries.insert_server_process(session, me.id, me.host, me.pid, self.clock())
            except SQLAlchemyError:
                log.warning("heartbeat not written; retrying", exc_info=True)


def owner_gone(session: Session, owner: str, me: ProcessIdentity | None, now: datetime) -> bool:
    """Whether the process `owner` that made a claim is gone (see the module's docstring)."""
    if me is not None and owner == me.id:
        return False  # we are running: the claim window decides
    row = queries.server_process(session, owner)
    if row is None:
        return True
    if me is not None and row.host == me.host and not pid_alive(row.pid):
        return True
    return now - queries.as_utc(row.last_seen) > HEARTBEAT_STALE
