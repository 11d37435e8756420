"""Backup and restore (issue 16): `scoreboard backup` copies a SQLite database online, and
pg_dump does it for PostgreSQL (README, "Backup and restore"). Each backup is restored into a
fresh database, and `scoreboard export` gives the same log as before."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
import sqlalchemy
from cli_runner import scoreboard
from in_process import IN_PROCESS_TIMEOUTS
from judging_setup import append_line, club_opening

from app.db.engine import make_engine, normalize_url
from app.domain.replay import replay_lines
from app.services.store import TournamentStore
from bench.load import RoundOne
from tests.integration.conftest import configured_postgres_url, fresh_postgres, postgres_url


def imported(database_url: str, tmp_path: Path, lines: list[str] | None = None) -> int:
    log = tmp_path / "opening.jsonl"
    opening = club_opening() if lines is None else lines
    log.write_text("".join(line + "\n" for line in opening), encoding="utf-8")
    answer = scoreboard("import", log, env=environment(database_url))
    assert answer.returncode == 0, answer.stderr
    return int(answer.stdout)


def environment(database_url: str) -> dict[str, str]:
    return {**os.environ, "SCOREBOARD_DATABASE_URL": database_url}


def exported(database_url: str, tid: int) -> str:
    answer = scoreboard("export", str(tid), env=environment(database_url))
    assert answer.returncode == 0, answer.stderr
    return answer.stdout


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def test_a_sqlite_backup_restores_to_the_same_log(tmp_path: Path) -> None:
    live = tmp_path / "scoreboard.db"
    tid = imported(sqlite_url(live), tmp_path)
    before = exported(sqlite_url(live), tid)

    taken = scoreboard("backup", tmp_path / "backup.db", env=environment(sqlite_url(live)))

    assert taken.returncode == 0, taken.stderr
    assert "backed up 1 tournament(s)" in taken.stdout
    # Restored as an organizer would: the file copied to where a new server will read it.
    restored = tmp_path / "restored" / "scoreboard.db"
    restored.parent.mkdir()
    shutil.copyfile(tmp_path / "backup.db", restored)
    assert exported(sqlite_url(restored), tid) == before
    assert not list(tmp_path.glob("*.partial"))


def test_a_sqlite_backup_taken_while_hands_come_in_is_the_log_at_one_moment(
    tmp_path: Path,
) -> None:
    """Online: the server goes on writing during the backup. The copy holds a log that
    replays, and it is the start of the log as it ends, never a torn middle."""
    live = tmp_path / "scoreboard.db"
    generated = RoundOne.generate(players=64, seed=16)
    tid = imported(sqlite_url(live), tmp_path, generated.setup_lines)
    engine = make_engine(sqlite_url(live), IN_PROCESS_TIMEOUTS)
    store = TournamentStore(engine)
    stop = threading.Event()
    written: list[int] = []
    # every table's first hand, then every table's second, ...: as the judges enter them
    hands = [
        entered
        for number in range(4)
        for table in generated.tables
        for entered in generated.hands[table][number : number + 1]
    ]

    def judges() -> None:
        for fields in hands:
            if stop.is_set():
                return
            append_line(store, tid, json.dumps({"type": "hand", **fields}))
            written.append(fields["hand"])

    writer = threading.Thread(target=judges)
    writer.start()
    try:
        while len(written) < 5:  # the writes are under way
            stop.wait(0.01)
        taken = scoreboard("backup", tmp_path / "backup.db", env=environment(sqlite_url(live)))
    finally:
        stop.set()
        writer.join()
        engine.dispose()
    assert taken.returncode == 0, taken.stderr

    copy = exported(sqlite_url(tmp_path / "backup.db"), tid).splitlines()
    final = exported(sqlite_url(live), tid).splitlines()
    replay_lines(copy)
    assert len(generated.setup_lines) < len(copy) < len(final)
    assert final[: len(copy)] == copy


def test_a_backup_never_overwrites_a_file_and_says_so(tmp_path: Path) -> None:
    live = tmp_path / "scoreboard.db"
    imported(sqlite_url(live), tmp_path)
    kept = tmp_path / "yesterday.db"
    kept.write_bytes(b"yesterday's backup")

    refused = scoreboard("backup", kept, env=environment(sqlite_url(live)))
    onto_itself = scoreboard("backup", live, env=environment(sqlite_url(live)))

    assert refused.returncode == 1
    assert "already exists" in refused.stderr and "never overwrites" in refused.stderr
    assert kept.read_bytes() == b"yesterday's backup"
    assert onto_itself.returncode == 1
    assert "already exists" in onto_itself.stderr


def test_a_backup_of_no_database_file_says_where_it_looked(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.db"
    answer = scoreboard("backup", tmp_path / "backup.db", env=environment(sqlite_url(missing)))
    assert answer.returncode == 1
    assert f"no database file at {missing}" in answer.stderr
    assert not (tmp_path / "backup.db").exists()


def test_a_backup_on_postgresql_points_to_pg_dump(tmp_path: Path) -> None:
    answer = scoreboard("backup", tmp_path / "backup.db", env=environment(postgres_url()))
    assert answer.returncode == 2
    assert "pg_dump --format=custom" in answer.stderr and "pg_restore" in answer.stderr
    assert not (tmp_path / "backup.db").exists()


def test_a_pg_dump_restores_into_a_fresh_database_to_the_same_log(tmp_path: Path) -> None:
    """The README's commands for PostgreSQL, run as written."""
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.fail("pg_dump and pg_restore are needed (Debian's postgresql-client)")
    source = postgres_url()
    fresh_postgres(source)
    tid = imported(source, tmp_path)
    before = exported(source, tid)
    dump = tmp_path / "scoreboard.dump"
    libpq_source = normalize_url(source).replace("postgresql+psycopg://", "postgresql://")
    subprocess.run(
        ["pg_dump", "--format=custom", f"--file={dump}", libpq_source], check=True, timeout=60
    )

    fresh = configured_postgres_url().rsplit("/", 1)[0] + "/" + restore_database()
    subprocess.run(
        ["pg_restore", "--no-owner", f"--dbname={fresh}", str(dump)], check=True, timeout=60
    )
    assert exported(fresh, tid) == before


def restore_database() -> str:
    """A new, empty database for the restore, made afresh for each run."""
    name = f"restore_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    maintenance = normalize_url(configured_postgres_url())
    engine = sqlalchemy.create_engine(maintenance, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    finally:
        engine.dispose()
    return name
