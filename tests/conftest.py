"""The whole suite runs in parallel by default (issue 15): the README's bare `pytest` takes
one pytest-xdist worker per core, as if it were given `-n auto --dist loadfile`.

Not in `addopts`, where `-p no:xdist` would turn `-n` into an unknown option: a run that
says `-n` itself (`-n 0` for one process, to debug a test) or disables xdist keeps what it
said. `--dist loadfile` keeps each test file on one worker, so a module's browser, server
and fuzzing app are started once, as without xdist. Each worker has its own databases,
Redis channel and ports (tests/integration/conftest.py, live_setup.py).
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a worker: it runs the tests it is sent
        return
    if not config.pluginmanager.hasplugin("xdist"):
        return
    if config.option.numprocesses is None:
        config.option.numprocesses = "auto"
        if config.option.dist == "no":
            config.option.dist = "loadfile"
