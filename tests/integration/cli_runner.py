"""The `scoreboard` command line as a user runs it, with what it prints and its exit status.

`scoreboard` runs the entry point (`app.cli:main`, pyproject's [project.scripts]) in this
process, with the given environment, from the repository root, as `python -m app.cli` would
(issue 15: a process costs a second or more to start, and over twenty tests ran one where
the process was not the point). `scoreboard_process` starts a real process, for a command
that might not return (`serve`) and for a test of the process itself.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path

from sqlalchemy import Connection, Engine, event

ROOT = Path(__file__).resolve().parents[2]


def scoreboard_process(
    *args: str | Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )


def scoreboard(
    *args: str | Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    from app.cli import main
    from app.settings import get_settings

    argv = ["scoreboard", *map(str, args)]
    stdout, stderr = io.StringIO(), io.StringIO()
    code: int = 0
    with (
        _environment(env),
        contextlib.chdir(ROOT),
        _argv(argv),
        _engines_disposed_after(),
        contextlib.redirect_stdout(stdout),
        contextlib.redirect_stderr(stderr),
    ):
        get_settings.cache_clear()  # the settings of this environment, read afresh
        try:
            main()
        except SystemExit as exit:
            code = _exit_status(exit, stderr)
        except Exception:
            traceback.print_exc(file=stderr)  # as the interpreter prints it, and exits 1
            code = 1
        finally:
            get_settings.cache_clear()
    return subprocess.CompletedProcess(argv, code, stdout.getvalue(), stderr.getvalue())


def _exit_status(exit: SystemExit, stderr: io.StringIO) -> int:
    if exit.code is None:
        return 0
    if isinstance(exit.code, int):
        return exit.code
    print(exit.code, file=stderr)  # sys.exit("message"): the message, status 1
    return 1


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    """`env` as the whole environment (as subprocess.run's `env`), then the one before."""
    if env is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _argv(argv: list[str]) -> Iterator[None]:
    saved = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = saved


@contextlib.contextmanager
def _engines_disposed_after() -> Iterator[None]:
    """A process's exit closes the connections its engines hold; here they are disposed."""
    engines: set[Engine] = set()

    def seen(connection: Connection) -> None:
        engines.add(connection.engine)

    event.listen(Engine, "engine_connect", seen)
    try:
        yield
    finally:
        event.remove(Engine, "engine_connect", seen)
        for engine in engines:
            engine.dispose()
