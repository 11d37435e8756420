"""A CasparCG client for the scoreboard's overlays (issue 18, docs/casparcg.md): plain AMCP
over TCP (port 5250), the Python standard library only.

    python docs/examples/casparcg_client.py --caspar 10.0.0.5 --scoreboard http://10.0.0.2:8000 \\
        --tournament 1 --overlay story --query "only=hands,movers" show --cards 4 --every 8

sends, on channel 1, layer 20, CasparCG layer 1 (`--channel`, `--layer`, `--cg-layer`):

    CG 1-20 ADD 1 "http://10.0.0.2:8000/overlay/1/story?caspar=1&only=hands,movers" 0 "{}"
    CG 1-20 PLAY 1
    CG 1-20 NEXT 1          (three times, 8 seconds apart: the story's next card)
    CG 1-20 STOP 1

and the commands one at a time: `add [DATA]`, `play`, `next`, `update DATA`, `stop`,
`remove`; DATA is JSON, such as '{"n": 5}' or '{"lang": "ja"}' (docs/casparcg.md lists what
each overlay takes). Each command waits for CasparCG's answer; an error answer (4xx, 5xx)
stops the script with CasparCG's words.
"""

from __future__ import annotations

import argparse
import socket
import sys
import time
from collections.abc import Sequence
from urllib.parse import urlsplit

AMCP_PORT = 5250
OVERLAYS = ("top", "cut", "bubble", "story", "player", "table", "clock")


def quoted(text: str) -> str:
    """An AMCP parameter: in double quotes, with a backslash before a quote or a backslash
    (CasparCG's tokenizer reads them back; a line break would end the command)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def overlay_url(scoreboard: str, tournament: int, overlay: str, query: str = "") -> str:
    """The overlay's address, off air until CasparCG's play() (?caspar=1)."""
    base = scoreboard.rstrip("/")
    scheme = urlsplit(base).scheme
    if scheme not in ("http", "https"):
        raise ValueError(f"--scoreboard must be an http:// or https:// address, not {base!r}")
    parameters = "&".join(part for part in ("caspar=1", query.lstrip("?&")) if part)
    return f"{base}/overlay/{tournament}/{overlay}?{parameters}"


class Amcp:
    """One connection to CasparCG's AMCP port: a command a line, answered by a code line
    (`202 CG OK`), and for a 201 a line of data after it."""

    def __init__(self, host: str, port: int = AMCP_PORT, timeout: float = 10.0) -> None:
        self.connection = socket.create_connection((host, port), timeout=timeout)
        self.answers = self.connection.makefile("r", encoding="utf-8", newline="\r\n")

    def send(self, command: str) -> str:
        self.connection.sendall(f"{command}\r\n".encode())
        answer = self.answers.readline().rstrip("\r\n")
        if not answer:
            raise ConnectionError("CasparCG closed the connection")
        if answer.startswith("201"):
            answer += " " + self.answers.readline().rstrip("\r\n")
        if not answer[:1] == "2":
            raise RuntimeError(f"CasparCG answered {command!r} with {answer!r}")
        return answer

    def close(self) -> None:
        self.answers.close()
        self.connection.close()

    def __enter__(self) -> Amcp:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class Template:
    """The CG commands for one HTML template (our overlay) on a channel's layer."""

    def __init__(self, amcp: Amcp, channel: int, layer: int, cg_layer: int = 1) -> None:
        self.amcp = amcp
        self.target = f"{channel}-{layer}"
        self.cg_layer = cg_layer

    def add(self, url: str, data: str = "{}", play: bool = False) -> str:
        # CG ADD loads the page by its address (CasparCG 2.2 and later) and calls update(data)
        flag = "1" if play else "0"
        return self.amcp.send(
            f"CG {self.target} ADD {self.cg_layer} {quoted(url)} {flag} {quoted(data)}"
        )

    def play(self) -> str:
        return self.amcp.send(f"CG {self.target} PLAY {self.cg_layer}")

    def next(self) -> str:
        return self.amcp.send(f"CG {self.target} NEXT {self.cg_layer}")

    def update(self, data: str) -> str:
        return self.amcp.send(f"CG {self.target} UPDATE {self.cg_layer} {quoted(data)}")

    def stop(self) -> str:
        return self.amcp.send(f"CG {self.target} STOP {self.cg_layer}")

    def remove(self) -> str:
        return self.amcp.send(f"CG {self.target} REMOVE {self.cg_layer}")


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--caspar", required=True, help="CasparCG's host, HOST or HOST:PORT")
    parser.add_argument("--scoreboard", default="http://127.0.0.1:8000", help="our server")
    parser.add_argument("--tournament", type=int, default=1)
    parser.add_argument("--overlay", default="story", help="story, top, player/ID, table/N...")
    parser.add_argument("--query", default="", help="the overlay's parameters: n=5&bg=...")
    parser.add_argument("--channel", type=int, default=1)
    parser.add_argument("--layer", type=int, default=20)
    parser.add_argument("--cg-layer", type=int, default=1)
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add", help="load the overlay off air (CG ADD), with DATA")
    add.add_argument("data", nargs="?", default="{}")
    for name in ("play", "next", "stop", "remove"):
        commands.add_parser(name, help=f"CG {name.upper()}")
    update = commands.add_parser("update", help="CG UPDATE with DATA (JSON)")
    update.add_argument("data")
    show = commands.add_parser("show", help="add, play, a few cards, stop")
    show.add_argument("data", nargs="?", default="{}")
    show.add_argument("--cards", type=int, default=4, help="how many cards before the stop")
    show.add_argument("--every", type=float, default=8.0, help="seconds between the cards")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    given = arguments(argv)
    if given.overlay.split("/")[0] not in OVERLAYS:
        print(f"--overlay: one of {', '.join(OVERLAYS)}", file=sys.stderr)
        return 2
    host, _, port = given.caspar.partition(":")
    url = overlay_url(given.scoreboard, given.tournament, given.overlay, given.query)
    with Amcp(host, int(port or AMCP_PORT)) as amcp:
        template = Template(amcp, given.channel, given.layer, given.cg_layer)
        if given.command in ("add", "show"):
            print(template.add(url, given.data))
        if given.command == "show":
            print(template.play())
            for _ in range(max(0, given.cards - 1)):
                time.sleep(given.every)
                print(template.next())
            time.sleep(given.every)
            print(template.stop())
        elif given.command == "update":
            print(template.update(given.data))
        elif given.command != "add":
            print(getattr(template, given.command)())
    return 0


if __name__ == "__main__":
    sys.exit(main())
