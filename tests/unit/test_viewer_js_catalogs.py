"""Every string the pages' scripts translate reaches the page's catalog (issue 17).

A page's scripts get only the messages whose template (`app/locales/*.pot`) names a script
among their locations (app/i18n `_script_messages`): a `t("...")` the extraction passes over
shows in English on a Japanese page, though its words may be translated for the server. The
extraction is Babel's; this reads the scripts another way, by a pattern over the text, and
holds every literal `t()` / `tn()` call of every script under app/static to the templates."""

from __future__ import annotations

import json
import re
from pathlib import Path

from babel.messages.pofile import read_po

from app.i18n import DOMAINS, template_path
from app.i18n.catalogs import PACKAGE, SOURCES, extract

STATIC = PACKAGE / "static"

# Comments hold example calls (`({ t }) => t("Rank")`) that are no calls: block comments, and
# line comments that start a line or follow a space ("http://" has none before it).
COMMENTS = re.compile(r"/\*[\s\S]*?\*/|(?:^|(?<=\s))//.*$", re.MULTILINE)
LITERAL = r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)"""
# t("a") and tn("a", "b", n), whoever's t it is (`second.t(...)`, the hall's speakers); a
# message may be split in pieces joined by +.
CALL = re.compile(rf"(?<![\w$])(?P<name>tn?)\(\s*(?P<first>{LITERAL}(?:\s*\+\s*{LITERAL})*)")
PIECE = re.compile(LITERAL)


def _unquote(piece: str) -> str:
    body = piece[1:-1]
    if piece[0] == "'":
        body = body.replace('"', '\\"').replace("\\'", "'")
    if piece[0] == "`":
        body = body.replace('"', '\\"').replace("\\`", "`")
    return str(json.loads(f'"{body}"'))


def calls_in(source: str) -> list[tuple[int, str]]:
    """The literal messages of the t() and tn() calls of a script, by line."""
    code = COMMENTS.sub(lambda comment: "\n" * comment.group().count("\n"), source)
    return [
        (
            code.count("\n", 0, call.start()) + 1,
            "".join(_unquote(piece) for piece in PIECE.findall(call.group("first"))),
        )
        for call in CALL.finditer(code)
    ]


def scripts() -> list[Path]:
    return sorted(path for path in STATIC.rglob("*.js") if "vendor" not in path.parts)


def _templates() -> dict[str, set[str]]:
    """Per script (its path inside app/), the messages the committed templates list it for."""
    found: dict[str, set[str]] = {}
    for domain in DOMAINS:
        with template_path(domain).open("rb") as file:
            for message in read_po(file):
                key = message.id if isinstance(message.id, str) else message.id[0]
                for filename, _ in message.locations:
                    found.setdefault(filename, set()).add(key)
    return found


def test_the_pattern_reads_what_the_pages_write() -> None:
    """The reading below is only as good as the pattern: it finds calls where the pages put
    them (in a template literal's ${...}, in another call's arguments, split by +), and none
    in a comment."""
    source = "\n".join(
        [
            '// ({ t }) => t("Rank")',
            "/** t('Nope') */",
            'next.textContent = `${t("Then:")} ${later.map((s) => t("table {table}", { s }))',
            '  .join(t(", "))}`;',
            "const game = t(\"game end: {parts}\", { parts: parts.join(t('、')) });",
            'speaker.t(\'It\\\'s "{name}"\') + tn("{count} hand", "{count} hands", n);',
            'alert(t("one " +',
            '  "two"));  // and t("not this")',
            'fetch("http://example/t(x)");',
        ]
    )
    assert calls_in(source) == [
        (3, "Then:"),
        (3, "table {table}"),
        (4, ", "),
        (5, "game end: {parts}"),
        (5, "、"),
        (6, 'It\'s "{name}"'),
        (6, "{count} hand"),
        (7, "one two"),
    ]


def test_every_script_that_translates_feeds_a_catalog() -> None:
    sources = {pattern for patterns in SOURCES.values() for pattern in patterns}
    loose = [
        path.relative_to(PACKAGE).as_posix()
        for path in scripts()
        if calls_in(path.read_text(encoding="utf-8"))
        and not any(path.match(f"app/{pattern}") for pattern in sources)
    ]
    assert loose == [], f"scripts with t() calls in no catalog (catalogs.py SOURCES): {loose}"


def test_every_literal_t_call_of_every_script_reaches_the_page_catalog() -> None:
    """What the reviewer found on /p/p6?t=3&lang=ja: "Aiko Mori ロン 3翻30符 · game end: 2位,
    ウマ +5,000" (a call inside a template literal's ${...}, and ", " inside another call's
    arguments, both passed over)."""
    listed = _templates()
    extracted: dict[str, set[str]] = {}
    for domain in DOMAINS:
        for message in extract(domain):
            if message.id:
                key = message.id if isinstance(message.id, str) else message.id[0]
                for filename, _ in message.locations:
                    extracted.setdefault(filename, set()).add(key)
    missed = []
    for path in scripts():
        name = path.relative_to(PACKAGE).as_posix()
        for line, message in calls_in(path.read_text(encoding="utf-8")):
            if "${" in message:
                missed.append(f"app/{name}:{line}: {message!r} is no message (it has a ${{...}})")
            elif message not in extracted.get(name, set()):
                # Babel reads no call inside another call's arguments: say it before the call
                missed.append(f"app/{name}:{line}: {message!r} is not extracted")
            elif message not in listed.get(name, set()):
                missed.append(f"app/{name}:{line}: {message!r}: run `scoreboard catalogs`")
    assert missed == [], "\n".join(missed)
