"""The layers of app/ as the import-linter contracts in pyproject.toml write them down
(README, "Layout"): the domain imports nothing of the app, a layer imports only those below
it, and the services and the live feed (realtime) never import each other: the feed asks
the store through its own protocol (app/realtime/source.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT = (
    "import sys; from importlinter.cli import lint_imports_command; "
    "sys.exit(lint_imports_command())"
)


def test_every_import_linter_contract_is_kept() -> None:
    # In a child process run from the work tree, so that its own `app` is the one analyzed.
    run = subprocess.run(
        [sys.executable, "-c", LINT, "--no-cache", "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout, run.stdout
