"""The languages of the hall (issue 17): English, Japanese, Traditional and Simplified Chinese
and Korean, plus a pseudo-locale that marks every translated string so a test can find text
that never went through a catalog.

The catalogs are gettext `.po` files under app/locales, one per language and audience
(`domain`): a phone loads the spectator's strings, never the admin console's. They are
compiled here, in memory, when first asked for (the compiled form is built, never committed).
The server's templates and Python code and the pages' JavaScript read the same catalogs: the
pages get theirs as JSON (`catalog_json`).

Which language a request gets (`choose`): an explicit `?lang=` wins, then the choice kept on
the device (the `lang` cookie, set by the language switch), then the browser's
Accept-Language, then the tournament's default, which the organizer sets.
"""

from __future__ import annotations

import gettext as gettext_module
import json
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass
from functools import cache
from io import BytesIO
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from app.domain.languages import DEFAULT_LANGUAGE, LANGUAGES

__all__ = ["LANGUAGES"]  # re-exported: the web and the command line read it from here

LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"

# BCP 47 tags, as pages carry them in <html lang> and `?lang=`; the source strings are English.
ENGLISH = DEFAULT_LANGUAGE
TRANSLATED = tuple(language for language in LANGUAGES if language != ENGLISH)
# The pseudo-locale: English, accented, lengthened by about 40% and bracketed. Android and
# Chrome use this tag for the same purpose. Never offered in the switch; reached by ?lang=.
PSEUDO = "en-XA"
PAGE_LANGUAGES = (*LANGUAGES, PSEUDO)

# Each language named in itself: the switch shows a reader their own language's name
# whatever language the page is in.
ENDONYMS = {
    "en": "English",
    "ja": "日本語",
    "zh-Hant": "繁體中文",
    "zh-Hans": "简体中文",
    "ko": "한국어",
    PSEUDO: "Ƥšéûðö",
}

# The audiences, each with its own catalog: a page loads `common` and its own.
DOMAINS = ("common", "spectator", "judge", "hall", "overlay", "admin")

# The cookie the language switch sets: the choice kept on the device.
COOKIE = "lang"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest a browser keeps a cookie (RFC 6265bis)

PSEUDO_OPEN, PSEUDO_CLOSE = "⟦", "⟧"


def babel_name(language: str) -> str:
    """The directory a language's catalogs live in: Babel's locale id (`zh_Hant`)."""
    return language.replace("-", "_")


def babel_locale(language: str) -> Locale:
    """The Babel locale that formats numbers and dates for a page language."""
    return Locale.parse(babel_name(ENGLISH if language == PSEUDO else language))


# -- choosing a language ------------------------------------------------------------------

# Accept-Language tags (lower case) that name a Chinese script by their region: Taiwan, Hong
# Kong and Macau write Traditional characters; the mainland and Singapore Simplified.
CHINESE_REGIONS = {
    "tw": "zh-Hant",
    "hk": "zh-Hant",
    "mo": "zh-Hant",
    "cn": "zh-Hans",
    "sg": "zh-Hans",
    "my": "zh-Hans",
}
_TAG = re.compile(r"^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$")
MAX_ACCEPT_LANGUAGE_ENTRIES = 32  # a header's first entries are the reader's; the rest noise


def page_language(tag: str | None, *, pseudo: bool = True) -> str | None:
    """The page language a BCP 47 tag asks for, or None if we do not speak it.

    Case does not matter (`zh-hant`, `ZH-TW`); a region picks the script for Chinese; any
    other region is dropped (`ja-JP` is `ja`). The pseudo-locale only when `pseudo`."""
    if not tag or len(tag) > 35 or not _TAG.match(tag):
        return None
    parts = tag.lower().split("-")
    if pseudo and tag.lower() == PSEUDO.lower():
        return PSEUDO
    primary = parts[0]
    if primary == "zh":
        for part in parts[1:]:
            if part in ("hant", "hans"):
                return "zh-Hant" if part == "hant" else "zh-Hans"
            if part in CHINESE_REGIONS:
                return CHINESE_REGIONS[part]
        return "zh-Hans"  # plain `zh`: the script most readers of it use
    if primary in ("en", "ja", "ko"):
        return primary
    return None


def from_accept_language(header: str | None) -> str | None:
    """The first language we speak among those the browser prefers, by quality then order."""
    if not header:
        return None
    ranked: list[tuple[float, int, str]] = []
    for index, entry in enumerate(header.split(",")[:MAX_ACCEPT_LANGUAGE_ENTRIES]):
        tag, _, params = entry.strip().partition(";")
        quality = 1.0
        if params.strip():
            # RFC 9110: `q=` and a weight from 0 to 1 with at most 3 decimals; anything
            # else makes the entry unreadable, and it is passed over
            match = re.fullmatch(r"\s*q\s*=\s*(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)\s*", params)
            if match is None:
                continue
            quality = float(match.group(1))
        language = page_language(tag.strip(), pseudo=False)
        if language is not None and quality > 0:
            ranked.append((-quality, index, language))
    return min(ranked)[2] if ranked else None


@dataclass(frozen=True)
class Choice:
    """The language of one request, and whether the reader chose it (a `?lang=`, the kept
    choice or their browser's) or it is only the fallback, which a tournament's own default
    language replaces."""

    language: str
    chosen: bool


def choose(
    query: str | None, cookie: str | None, accept_language: str | None, default: str
) -> Choice:
    for tag in (query, cookie):
        language = page_language(tag)
        if language is not None:
            return Choice(language, True)
    language = from_accept_language(accept_language)
    if language is not None:
        return Choice(language, True)
    return Choice(default, False)


_CHOICE: ContextVar[Choice | None] = ContextVar("language", default=None)
_UNCHOSEN = Choice(ENGLISH, False)


def current_choice() -> Choice:
    return _CHOICE.get() or _UNCHOSEN


def current() -> str:
    return current_choice().language


def set_choice(choice: Choice) -> Token[Choice | None]:
    return _CHOICE.set(choice)


def reset_choice(token: Token[Choice | None]) -> None:
    _CHOICE.reset(token)


def default_to(language: str | None) -> None:
    """A tournament's default language, for a reader who has chosen none."""
    if language in LANGUAGES and not current_choice().chosen:
        _CHOICE.set(Choice(language, False))


@contextmanager
def speaking(language: str, domain: str | None = None) -> Iterator[None]:
    """Code outside a request (a printout, a test) in one language, in one audience's words."""
    token = _CHOICE.set(Choice(language, True))
    domain_token = _DOMAIN.set(domain) if domain in DOMAINS else None
    try:
        yield
    finally:
        _CHOICE.reset(token)
        if domain_token is not None:
            _DOMAIN.reset(domain_token)


def speak_in_templates(environment: Any) -> None:
    """A Jinja2 environment whose `{% trans %}` and `_()` say the current language, in the
    current audience's words (the web pages and the printed slips)."""
    environment.add_extension("jinja2.ext.i18n")
    # Whitespace inside {% trans %} is the template's layout, not the sentence's.
    environment.policies["ext.i18n.trimmed"] = True
    environment.install_gettext_callables(
        gettext=lambda message: gettext(message),
        ngettext=lambda singular, plural, n: ngettext(singular, plural, n),
        pgettext=lambda context, message: pgettext(context, message),
        newstyle=True,
    )


# The languages whose readers read a name in its owner's script first.
OWN_SCRIPT_FIRST = frozenset({"ja", "zh-Hant", "zh-Hans", "ko"})


def names_for(name: str, local_name: str | None) -> tuple[str, str | None]:
    """A player's name as the page's language shows it, and the other form beside it: "山田 剛"
    over "Takeshi Yamada" for a reader of Japanese, Chinese or Korean, the other way round
    otherwise; the other form is None when the player has only one."""
    if local_name and current() in OWN_SCRIPT_FIRST:
        return local_name, name
    return name, local_name


# -- catalogs -----------------------------------------------------------------------------


def template_path(domain: str) -> Path:
    return LOCALES_DIR / f"{domain}.pot"


def po_path(language: str, domain: str) -> Path:
    return LOCALES_DIR / babel_name(language) / "LC_MESSAGES" / f"{domain}.po"


def read_catalog(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, locale=babel_name(language) if language else None)


# What a translation must keep as it is: gettext's %(name)s, str.format's {name} and
# {name:,} (an error's `say`), and markup.
PLACEHOLDER = r"(%\([a-z_]+\)[sd]|%[sd]|\{[a-z_0-9]*(?:[:!][^{}]*)?\}|<[^>]*>|&[a-z]+;)"


def pseudo_text(text: str) -> str:
    """English, accented and lengthened, with its placeholders and tags left as they are."""
    pieces = re.split(PLACEHOLDER, text)
    out = []
    for index, piece in enumerate(pieces):
        out.append(piece if index % 2 else piece.translate(_ACCENTED))
    letters = sum(char.isalpha() for char in text)
    return PSEUDO_OPEN + "".join(out) + "·" * max(1, (letters * 2) // 5) + PSEUDO_CLOSE


_ACCENTED = str.maketrans(
    "abcdeghiklnorstuyzABCDEGHIKLNORSTUYZ",
    "åƀçðéĝĥîķļñöŕšţûýžÅƁÇÐÉĜĤÎĶĻÑÖŔŠŢÛÝŽ",
)


@cache
def _catalog(language: str, domain: str) -> Catalog:
    if language == PSEUDO:
        source = read_catalog(template_path(domain))
        catalog = Catalog(locale="en", domain=domain)
        for message in source:
            if not message.id:
                continue
            if isinstance(message.id, str):
                catalog.add(message.id, pseudo_text(message.id), context=message.context)
            else:
                forms = tuple(pseudo_text(form) for form in message.id)
                catalog.add(message.id, forms, context=message.context)
        return catalog
    return read_catalog(po_path(language, domain), language)


def _mo(catalog: Catalog) -> bytes:
    buffer = BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def compiled(catalog: Catalog) -> Translations:
    """A catalog compiled as gettext reads it: fuzzy entries stay out, as msgfmt leaves them.
    (An entry we could not judge is kept in the catalog, flagged fuzzy, and shown in English
    until a reader of the language confirms it.)"""
    return Translations(BytesIO(_mo(catalog)))


@cache
def _compiled_mo(language: str, domain: str) -> bytes:
    """One audience's catalog in one language, compiled once: every audience's merge
    (translations) reads it again from these bytes."""
    return _mo(_catalog(language, domain))


@cache
def translations(language: str, domain: str = "common") -> gettext_module.NullTranslations:
    """A language's catalogs for the server, `domain`'s own words first: one English word can
    be two in Japanese ("Draw": 流局 for a hand at the table, 抽選 for the organizer's seating
    draw), so a page says it as its own audience's catalog does, then as the shared one does,
    and only then as any other audience's (a sentence the page's code borrows)."""
    if language == ENGLISH or language not in PAGE_LANGUAGES:
        return gettext_module.NullTranslations()
    # Babel's merge lets the later catalog win: the page's own domain comes last.
    order = [d for d in DOMAINS if d not in (domain, "common")] + ["common", domain]
    merged: Translations | None = None
    for name in dict.fromkeys(order):
        if language != PSEUDO and not po_path(language, name).exists():
            continue
        if language == PSEUDO and not template_path(name).exists():
            continue
        # a fresh object from the bytes each time: Babel's merge changes the one it merges into
        compiled_domain = Translations(BytesIO(_compiled_mo(language, name)))
        merged = compiled_domain if merged is None else merged.merge(compiled_domain)
    return merged if merged is not None else gettext_module.NullTranslations()


_DOMAIN: ContextVar[str] = ContextVar("domain", default="common")


def set_domain(domain: str) -> None:
    """Whose words this request speaks (the hall's, the judge's...): set by the page's
    address, and by the template a page is rendered from."""
    _DOMAIN.set(domain if domain in DOMAINS else "common")


def current_domain() -> str:
    return _DOMAIN.get()


# Whose words a request speaks, by the start of its address (a page's template says it
# again when it is rendered: template_domain).
_PATH_DOMAINS = (
    ("/hall", "hall"),
    ("/overlay", "overlay"),
    ("/judge", "judge"),
    ("/admin", "admin"),
    ("/p/", "spectator"),
    ("/search", "spectator"),
)


def path_domain(path: str) -> str:
    if path == "/":
        return "spectator"
    return next((domain for start, domain in _PATH_DOMAINS if path.startswith(start)), "common")


@cache
def template_domain(name: str) -> str:
    """The audience whose catalog a template's strings are extracted into (catalogs.SOURCES)."""
    from fnmatch import fnmatch

    from app.i18n.catalogs import SOURCES

    for domain, patterns in SOURCES.items():
        if any(fnmatch(f"templates/{name}", pattern) for pattern in patterns):
            return domain
    return "common"


def gettext(message: str) -> str:
    return translations(current(), current_domain()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    return translations(current(), current_domain()).ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    return translations(current(), current_domain()).pgettext(context, message)


_ = gettext


def lazy(message: str) -> str:
    """Marks a string for extraction where it is defined; it is translated where it is shown
    (`gettext(constant)`)."""
    return message


@cache
def _script_messages(domain: str) -> frozenset[tuple[str, str | None]]:
    """The messages the pages' JavaScript asks for (its `t()` calls, by the template's
    locations): a phone gets those only, the rest of the page comes rendered."""
    return frozenset(
        (message_key(message.id), message.context)
        for message in read_catalog(template_path(domain))
        if message.id and any(path.endswith(".js") for path, _ in message.locations)
    )


def message_key(message_id: str | tuple[str, ...] | list[str]) -> str:
    """A message's msgid; a plural message's singular one."""
    return message_id if isinstance(message_id, str) else message_id[0]


@cache
def catalog_json(language: str, domains: tuple[str, ...]) -> str:
    """The pages' JavaScript catalog: msgid → translation (a list for plural forms) of the
    strings the pages' scripts use, for the given domains, with fuzzy and untranslated
    entries left out so the page shows English."""
    messages: dict[str, Any] = {}
    if language != ENGLISH:
        for domain in domains:
            path = template_path(domain) if language == PSEUDO else po_path(language, domain)
            if not path.exists():
                continue
            scripts = _script_messages(domain)
            for message in _catalog(language, domain):
                if not message.id or message.fuzzy or not message.string:
                    continue
                if (message_key(message.id), message.context) not in scripts:
                    continue  # the server's own: the page needs none of its text twice
                key = message_key(message.id)
                if message.context:
                    key = f"{message.context}\x04{key}"
                value = message.string
                if isinstance(value, tuple):
                    if not all(value):
                        continue
                    messages[key] = list(value)
                else:
                    messages[key] = value
    return json.dumps(
        {"language": language, "messages": messages}, ensure_ascii=False, sort_keys=True
    )


def untranslated(language: str, domain: str) -> Iterable[str]:
    """The msgids of the template that a language's catalog lacks or leaves empty (fuzzy
    entries count as translated: they are there, waiting for a reader's review)."""
    template = read_catalog(template_path(domain))
    path = po_path(language, domain)
    catalog = read_catalog(path, language) if path.exists() else Catalog()
    for message in template:
        if not message.id:
            continue
        found = catalog.get(message.id, context=message.context)
        strings = found.string if found is not None else None
        if not strings or (isinstance(strings, tuple) and not all(strings)):
            yield message_key(message.id)
