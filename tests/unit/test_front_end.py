"""The front end's own checks, run by the README's test command so CI enforces them: the pure
modules' tests under Node's test runner (tests/js), TypeScript's type check of every page
script and service worker (tsconfig.json, tsconfig.sw.json) and ESLint (eslint.config.js).

The tools are the exact versions package.json pins; when node_modules is missing this runs
`npm ci` once (one process at a time, under a lock, for parallel workers). Without Node the
checks skip, saying why; with SCOREBOARD_REQUIRE_BROWSER set (CI) they fail instead.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"


def _need_node() -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if not missing:
        return
    message = f"no {' or '.join(missing)} on PATH: the front end's checks are skipped"
    if os.environ.get("SCOREBOARD_REQUIRE_BROWSER"):
        pytest.fail(message + " but SCOREBOARD_REQUIRE_BROWSER demands them")
    pytest.skip(message)


def _installed() -> None:
    """node_modules as package-lock.json has it: `npm ci` if a tool is missing."""
    if (BIN / "tsc").exists() and (BIN / "eslint").exists():
        return
    with (ROOT / ".npm-ci.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be installing them
        if (BIN / "tsc").exists() and (BIN / "eslint").exists():
            return
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, "npm ci failed:\n" + done.stdout + done.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["node", "--test", "tests/js/"],
        [str(BIN / "tsc"), "--noEmit", "-p", "tsconfig.json"],
        [str(BIN / "tsc"), "--noEmit", "-p", "tsconfig.sw.json"],
        [str(BIN / "eslint"), "--max-warnings", "0", "."],
    ],
    ids=["node-test", "tsc-pages", "tsc-service-workers", "eslint"],
)
def test_front_end_check_passes(command: list[str]) -> None:
    _need_node()
    _installed()
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
