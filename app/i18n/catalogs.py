"""`scoreboard catalogs`: extraction, merging and compiling of the catalogs in one command.

Extraction reads every string marked for translation in the templates (`{% trans %}`,
`_()`), the Python code (`gettext`, `ngettext`, `lazy`) and the pages' JavaScript (`t()`,
`tn()`) into one template (`.pot`) per audience; each language's `.po` is then brought up to
date with it, keeping every translation (Babel's merge, as `pybabel update` does), and
compiled in memory to prove it compiles with its placeholders matching the English.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import write_po

from app.i18n import (
    DOMAINS,
    LOCALES_DIR,
    TRANSLATED,
    babel_name,
    message_key,
    po_path,
    read_catalog,
    template_path,
)

PACKAGE = LOCALES_DIR.parent

# Which files feed which audience's catalog, by path inside the package.
SOURCES: dict[str, tuple[str, ...]] = {
    "common": (
        "templates/base.html",
        "templates/error.html",
        "templates/language_switch.html",
        "static/live.js",
        "static/i18n.js",
        # what a player needs, in words (issue 18): the player's page, the hall and the overlay
        "static/needs.js",
        "web/needs_words.py",
        "web/errors.py",
        "web/pages.py",
        # What a judge or an organizer reads when the server refuses something: the rules'
        # sentences (`say(...)`, app/domain/errors.py) wherever they are raised.
        "domain/*.py",
        "services/*.py",
        "web/deps.py",
        "web/guards.py",
        "web/lanes.py",
        "web/public_answers.py",
        "web/judges.py",
        "web/head_judge.py",
        "web/admin.py",
        "web/fields.py",
        "web/feeds.py",
        "loopback.py",
        "web/languages.py",
    ),
    "spectator": (
        "templates/spectator_*.html",
        "templates/results.html",
        "static/spectator.js",
        "static/replay.js",
        "web/spectator.py",
        "web/checkin_pages.py",  # a player's check-in on their phone (issue 18, part 4)
        "web/public.py",
        "read/*.py",
    ),
    "judge": (
        "templates/judge.html",
        "static/judge/*.js",
        "static/ariari.js",
        "web/judge_pages.py",
        # the head judge's desk (issue 18, part 3): the page, its script is static/judge/
        "templates/head_judge.html",
        "web/calls.py",
        # the paper fallback (issue 18, part 5): the sheet the table fills, the scorer's screen
        "templates/sheets.html",
        "templates/scorer.html",
        "static/scorer.js",
        "web/scorer.py",
    ),
    "hall": ("templates/hall.html", "static/hall.js", "static/hall/*.js", "web/hall.py"),
    # Babel's `*` matches one character or more: overlay.html itself is named
    "overlay": (
        "templates/overlay.html",
        "templates/overlay*.html",
        "static/overlay.js",
        "web/overlay.py",
    ),
    "admin": (
        "templates/admin.html",
        "templates/slips.html",
        "static/admin.js",
        "static/admin/*.js",
        "web/admin_pages.py",
        "printouts/*.py",
    ),
}

PYTHON_KEYWORDS = {
    "say": None,
    "Say": None,
    "gettext": None,
    "_": None,
    "lazy": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
}
JS_KEYWORDS = {"t": None, "tn": (1, 2)}
JINJA_OPTIONS = {"extensions": "jinja2.ext.i18n", "trimmed": "true"}
HEADER = "The WSOM scoreboard's strings (issue 17); built by `scoreboard catalogs`."


def _method(path: str) -> str:
    if path.endswith(".py"):
        return "python"
    if path.endswith(".js"):
        return "javascript"
    return "jinja2.ext:babel_extract"


def _options(path: str) -> dict[str, object]:
    if path.endswith(".js"):
        # The pages' scripts call t() inside a template literal's ${...} too ("· ${t("game
        # end: {parts}", ...)}"): Babel reads those only when asked. A call inside another
        # call's arguments it never reads (t("{a}", { a: t("b") })): the pages keep none
        # there (tests/unit/test_viewer_js_catalogs.py finds every literal t() call).
        return {"keywords": JS_KEYWORDS, "parse_template_string": True}
    if path.endswith(".html"):
        return dict(JINJA_OPTIONS)
    return {}


def extract(domain: str) -> Catalog:
    catalog = Catalog(domain=domain, header_comment=f"# {HEADER}", project="wsom-scoreboard")
    patterns = SOURCES[domain]
    # One pass per kind of file, each with its own keywords: `t(...)` marks a string in the
    # pages' JavaScript, but is an ordinary name in Python.
    for kind, keywords in (
        ("python", PYTHON_KEYWORDS),
        ("javascript", JS_KEYWORDS),
        ("jinja2.ext:babel_extract", PYTHON_KEYWORDS),
    ):
        mine = [pattern for pattern in patterns if _method(pattern) == kind]
        if not mine:
            continue
        for filename, lineno, message, comments, context in extract_from_dir(
            PACKAGE,
            [(pattern, kind) for pattern in mine],
            {pattern: _options(pattern) for pattern in mine},
            keywords=keywords,
            comment_tags=("translators:",),
            strip_comment_tags=True,
        ):
            # "" (never None): Babel's checks take a missing translation of a one-form
            # message for a plural one otherwise.
            catalog.add(message, "", [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


@dataclass
class Report:
    domain: str
    language: str
    translated: int = 0
    fuzzy: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _write(catalog: Catalog, path: Path, **options: bool) -> bool:
    buffer = BytesIO()
    # Files without line numbers: a catalog changes when a string does, not when code moves.
    write_po(buffer, catalog, width=100, omit_header=False, include_lineno=False, **options)
    data = buffer.getvalue()
    if path.exists() and _without_dates(path.read_bytes()) == _without_dates(data):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def _without_dates(data: bytes) -> bytes:
    # Babel stamps the time of writing into the header: a catalog whose messages did not
    # change is left alone, so running the command twice changes nothing.
    return b"\n".join(
        line
        for line in data.split(b"\n")
        if not line.startswith((b'"POT-Creation-Date', b'"PO-Revision-Date'))
    )


def run(domains: tuple[str, ...] = DOMAINS, *, write: bool = True) -> Iterator[Report]:
    """Brings each domain's template and catalogs up to date; yields what each holds."""
    for domain in domains:
        template = extract(domain)
        if write:
            _write(template, template_path(domain), sort_output=True)
        for language in TRANSLATED:
            path = po_path(language, domain)
            catalog = (
                read_catalog(path, language)
                if path.exists()
                else Catalog(locale=babel_name(language), domain=domain)
            )
            catalog.update(template, no_fuzzy_matching=True)
            if write:
                _write(catalog, path, sort_output=True, ignore_obsolete=True)
            report = Report(domain, language)
            for message in catalog:
                if not message.id:
                    continue
                strings = message.string
                if not strings or (isinstance(strings, tuple) and not all(strings)):
                    report.missing.append(message_key(message.id))
                elif message.fuzzy:
                    report.fuzzy.append(message_key(message.id))
                else:
                    report.translated += 1
            for message, errors in catalog.check():
                report.errors.extend(f"{message_key(message.id)!r}: {error}" for error in errors)
            write_mo(BytesIO(), catalog, use_fuzzy=False)  # compiles, or raises
            yield report


def _ids(catalog: Catalog) -> set[tuple[str, str | None]]:
    return {(message_key(message.id), message.context) for message in catalog if message.id}


def stale_templates(domains: tuple[str, ...] = DOMAINS) -> list[str]:
    """The domains whose committed template lacks a string the code marks, or keeps one it
    no longer does."""
    return [
        domain
        for domain in domains
        if not template_path(domain).exists()
        or _ids(extract(domain)) != _ids(read_catalog(template_path(domain)))
    ]
