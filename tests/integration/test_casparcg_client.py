"""The CasparCG client example (docs/examples/casparcg_client.py, docs/casparcg.md) against a
fake AMCP server on a real socket: the commands it sends, in order, and their parameters as
CasparCG's own tokenizer reads them back (a port of its src/protocol/util/tokenize.cpp), so
that the overlay's address and update()'s JSON reach the page whole; an error answer stops
the script with CasparCG's words."""

from __future__ import annotations

import importlib.util
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "examples" / "casparcg_client.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("casparcg_client", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


client = load()


def tokens(command: str) -> list[str]:
    """CasparCG's AMCP tokenizer: split on spaces outside quotes, a backslash escaping the
    next character, a parenthesised list kept whole."""
    found: list[str] = []
    current, quoted, in_list, escape = "", False, 0, False
    for char in command:
        if escape:
            current += {"\\": "\\", '"': '"', "n": "\n"}.get(char, "")
            escape = False
            continue
        if char == "\\":
            escape = True
            continue
        if char == " " and not quoted and in_list == 0:
            if current:
                found.append(current)
                current = ""
            continue
        if not quoted and char == "(":
            in_list += 1
        elif not quoted and char == ")":
            in_list -= 1
            if in_list == 0:
                found.append(current + char)
                current = ""
                continue
        elif char == '"':
            quoted = not quoted
            if in_list == 0:
                if not quoted:
                    found.append(current)
                    current = ""
                continue
        current += char
    if current:
        found.append(current)
    return found


class FakeCaspar:
    """Answers every command with `202 CG OK`, or with `refuse` when it starts with it."""

    def __init__(self, refuse: str | None = None) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.commands: list[str] = []
        self.refuse = refuse
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        try:
            connection, _ = self.listener.accept()
        except OSError:
            # closed by `close` before this thread reached accept (a loaded machine): the
            # test sent nothing, which its own assertions check
            return
        with connection, connection.makefile("rb") as lines:
            for raw in lines:
                command = raw.decode("utf-8").rstrip("\r\n")
                self.commands.append(command)
                if self.refuse and command.startswith(self.refuse):
                    connection.sendall(b"404 CG ADD FAILED\r\n")
                else:
                    connection.sendall(b"202 CG OK\r\n")

    def close(self) -> None:
        self.listener.close()
        self.thread.join(timeout=5)


@pytest.fixture
def caspar() -> Iterator[FakeCaspar]:
    fake = FakeCaspar()
    yield fake
    fake.close()


def run(fake: FakeCaspar, *argv: str) -> int:
    code: int = client.main(
        [
            "--caspar",
            f"127.0.0.1:{fake.port}",
            "--scoreboard",
            "http://hall.local:8000/",
            "--tournament",
            "3",
            *argv,
        ]
    )
    fake.thread.join(timeout=5)
    return code


def test_a_show_adds_plays_turns_the_cards_and_stops(caspar: FakeCaspar) -> None:
    data = json.dumps({"only": "hands,movers", "lang": "ja", "note": 'a "quoted" \\ word'})
    code = run(caspar, "--query", "bg=green", "show", data, "--cards", "3", "--every", "0")
    assert code == 0
    url = "http://hall.local:8000/overlay/3/story?caspar=1&bg=green"
    assert [tokens(command)[:4] for command in caspar.commands] == [
        ["CG", "1-20", "ADD", "1"],
        ["CG", "1-20", "PLAY", "1"],
        ["CG", "1-20", "NEXT", "1"],
        ["CG", "1-20", "NEXT", "1"],
        ["CG", "1-20", "STOP", "1"],
    ]
    # CG ADD's template is the overlay's address, not played on load, and its data the JSON
    # exactly, quotes and backslashes included, once CasparCG has read the line
    assert tokens(caspar.commands[0])[4:] == [url, "0", data]
    assert caspar.commands[1:] == [
        "CG 1-20 PLAY 1",
        "CG 1-20 NEXT 1",
        "CG 1-20 NEXT 1",
        "CG 1-20 STOP 1",
    ]


def test_one_command_at_a_time_on_another_layer(caspar: FakeCaspar) -> None:
    update = '{"card": "leaders", "seconds": 12}'
    assert run(caspar, "--channel", "2", "--layer", "30", "update", update) == 0
    assert caspar.commands == [f'CG 2-30 UPDATE 1 "{update.replace(chr(34), chr(92) + chr(34))}"']
    assert tokens(caspar.commands[0])[4] == update


def test_an_error_answer_stops_the_script_with_casparcgs_words() -> None:
    fake = FakeCaspar(refuse="CG 1-20 ADD")
    try:
        with pytest.raises(RuntimeError, match="404 CG ADD FAILED"):
            run(fake, "--overlay", "top", "add")
        assert len(fake.commands) == 1
    finally:
        fake.close()


@pytest.mark.parametrize("scoreboard", ["hall.local:8000", "file:///etc/passwd", "ftp://x"])
def test_the_scoreboard_is_an_http_address(scoreboard: str) -> None:
    with pytest.raises(ValueError, match="--scoreboard"):
        client.overlay_url(scoreboard, 1, "story")


def test_the_overlay_is_one_of_ours(caspar: FakeCaspar, capsys: pytest.CaptureFixture[str]) -> None:
    assert client.main(["--caspar", f"127.0.0.1:{caspar.port}", "--overlay", "news", "play"]) == 2
    assert "--overlay" in capsys.readouterr().err
    # nothing was sent: a connection that closes unused
    socket.create_connection(("127.0.0.1", caspar.port)).close()
