"""The project's own static checks, run by the README's test command so CI enforces them:
ruff on the whole tree, and mypy in strict mode on all of app/ (pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "ruff", "check", "."],
        [sys.executable, "-m", "ruff", "format", "--check", "."],
        [sys.executable, "-m", "mypy"],  # files and strictness come from pyproject.toml
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict-app"],
)
def test_static_check_passes(command: list[str]) -> None:
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
