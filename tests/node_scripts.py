"""A page's script run under Node, for the tests that hold a twin in JS to the Python it
mirrors (what a player needs in words, where the players of a cycle sit): the module's
answer, printed as JSON."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_module(script: str, stdin: str | None = None) -> Any:
    """Run `script` as an ES module from the repository's root (it imports the page's
    modules by their paths, ./app/static/...) and parse what it prints. `stdin` carries
    what is too long for an argument."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    run = subprocess.run(
        [node, "--input-type=module", "-e", script],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(run.stdout)
