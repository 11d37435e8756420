"""The languages of the hall (issue 17): which language a reader gets, the catalogs' upkeep
and the pseudo-locale."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from app import i18n
from app.i18n import catalogs

ROOT = Path(__file__).resolve().parents[2]


# -- choosing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tag", "language"),
    [
        ("ja", "ja"),
        ("ja-JP", "ja"),
        ("JA", "ja"),
        ("zh-Hant", "zh-Hant"),
        ("zh-hant-TW", "zh-Hant"),
        ("zh-TW", "zh-Hant"),
        ("zh-HK", "zh-Hant"),  # Hong Kong and Macau read Traditional characters
        ("zh-MO", "zh-Hant"),
        ("zh-CN", "zh-Hans"),
        ("zh-SG", "zh-Hans"),
        ("zh-Hans-HK", "zh-Hans"),  # the script named outranks the region
        ("zh", "zh-Hans"),
        ("ko-KR", "ko"),
        ("en-GB", "en"),
        ("en-XA", "en-XA"),
        ("fr", None),
        ("", None),
        ("ja;drop table", None),
        ("x" * 40, None),
    ],
)
def test_a_tag_names_the_page_language_it_asks_for(tag: str, language: str | None) -> None:
    assert i18n.page_language(tag) == language


def test_the_pseudo_locale_is_never_picked_from_a_browser_header() -> None:
    assert i18n.page_language("en-XA", pseudo=False) == "en"
    assert i18n.from_accept_language("en-XA, ja;q=0.5") == "en"


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("ja,en-US;q=0.9,en;q=0.8", "ja"),
        ("fr-FR,fr;q=0.9,zh-TW;q=0.8,en;q=0.7", "zh-Hant"),  # the first we speak
        ("en;q=0.5, ko;q=0.9", "ko"),  # by quality, not order
        ("de, ja;q=0", None),  # q=0: "not this one"
        ("zh-HK;q=0.8, ja;q=0.8", "zh-Hant"),  # equal quality: the order decides
        ("*", None),
        ("", None),
        (None, None),
        ("ja;q=abc", None),
    ],
)
def test_accept_language_gives_the_first_language_we_speak(
    header: str | None, language: str | None
) -> None:
    assert i18n.from_accept_language(header) == language


@pytest.mark.parametrize(
    ("query", "cookie", "header", "default", "expected"),
    [
        # an explicit ?lang= wins, then the device's kept choice, then the browser, then the
        # tournament's default
        ("ja", "ko", "zh-TW", "en", i18n.Choice("ja", True)),
        (None, "ko", "zh-TW", "en", i18n.Choice("ko", True)),
        (None, None, "zh-TW", "en", i18n.Choice("zh-Hant", True)),
        (None, None, "fr", "zh-Hans", i18n.Choice("zh-Hans", False)),
        (None, None, None, "en", i18n.Choice("en", False)),
        # a value we do not speak is passed over, not an error
        ("fr", "ko", None, "en", i18n.Choice("ko", True)),
        ("fr", "garbage!", None, "ja", i18n.Choice("ja", False)),
    ],
)
def test_the_language_is_chosen_in_order(
    query: str | None, cookie: str | None, header: str | None, default: str, expected: i18n.Choice
) -> None:
    assert i18n.choose(query, cookie, header, default) == expected


def test_a_tournament_default_replaces_only_a_fallback() -> None:
    with i18n.speaking("ko"):
        i18n.default_to("ja")
        assert i18n.current() == "ko"  # the reader chose Korean
    token = i18n.set_choice(i18n.Choice("en", False))
    try:
        i18n.default_to("ja")
        assert i18n.current() == "ja"
        i18n.default_to("fr")  # not one of ours: ignored
        assert i18n.current() == "ja"
    finally:
        i18n.reset_choice(token)  # the tests after this one run in English
    assert i18n.current() == "en"


# -- the catalogs --------------------------------------------------------------------------


@pytest.mark.parametrize("domain", i18n.DOMAINS)
def test_the_catalog_templates_hold_what_the_code_marks(domain: str) -> None:
    """`scoreboard catalogs` was run after the last string changed."""
    assert catalogs.stale_templates((domain,)) == [], (
        f"app/locales/{domain}.pot is behind the code: run `scoreboard catalogs`"
    )


@pytest.mark.parametrize("language", i18n.TRANSLATED)
@pytest.mark.parametrize("domain", i18n.DOMAINS)
def test_every_string_has_a_translation(domain: str, language: str) -> None:
    missing = list(i18n.untranslated(language, domain))
    assert missing == [], f"{language}/{domain}.po lacks: {missing}"


@pytest.mark.parametrize("language", i18n.TRANSLATED)
@pytest.mark.parametrize("domain", i18n.DOMAINS)
def test_every_translation_keeps_the_placeholders(domain: str, language: str) -> None:
    catalog = i18n.read_catalog(i18n.po_path(language, domain), language)
    for message in catalog:
        if not message.id or not message.string:
            continue
        source = message.id if isinstance(message.id, str) else message.id[-1]
        for text in [message.string] if isinstance(message.string, str) else message.string:
            # the same placeholders; a sentence may say one twice
            assert set(_placeholders(text)) == set(_placeholders(source)), (
                f"{language}/{domain}: {message.id!r} → {text!r}"
            )
    assert [errors for _, errors in catalog.check()] == []


def _placeholders(text: str) -> list[str]:
    return sorted(re.findall(r"%\([a-z_]+\)[sd]|\{[a-z_0-9]+(?:[:!][^{}]*)?\}", text))


def test_a_missing_translation_is_found() -> None:
    """The check above can fail: a catalog lacking a string the template holds is caught."""
    template = Catalog()
    template.add("Table {table}", "")
    language = Catalog(locale="ja")
    language.update(template)
    assert [m.id for m in language if m.id and not m.string] == ["Table {table}"]


def test_compiled_catalogs_are_built_never_committed() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "app/locales"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked, "the .po catalogs are committed"
    assert [path for path in tracked if not path.endswith((".po", ".pot"))] == []


# -- the pseudo-locale ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Table {table}",
        "%(count)s hands",
        "Ron",
        "<b>bold</b> move",
        "Rank {rank} of {field}",
        "a prize is at most {most:,}",
    ],
)
def test_the_pseudo_locale_marks_and_lengthens_and_keeps_placeholders(text: str) -> None:
    pseudo = i18n.pseudo_text(text)
    assert pseudo.startswith(i18n.PSEUDO_OPEN) and pseudo.endswith(i18n.PSEUDO_CLOSE)
    assert _placeholders(pseudo) == _placeholders(text)
    assert re.findall(r"<[^>]*>", pseudo) == re.findall(r"<[^>]*>", text)
    assert len(pseudo) >= len(text) * 1.3
    assert pseudo != text


def test_the_pseudo_locale_translates_every_string_of_every_domain() -> None:
    for domain in i18n.DOMAINS:
        template = i18n.read_catalog(i18n.template_path(domain))
        translations = i18n.translations(i18n.PSEUDO)
        for message in template:
            if message.id and isinstance(message.id, str) and not message.context:
                assert translations.gettext(message.id).startswith(i18n.PSEUDO_OPEN)


def test_a_compiled_catalog_leaves_out_fuzzy_and_empty_entries() -> None:
    catalog = Catalog(locale="ja")
    catalog.add("Ron", "ロン")
    catalog.add("Tsumo", "ツモ", flags=["fuzzy"])
    catalog.add("Draw", "")
    compiled = i18n.compiled(catalog)
    assert compiled.gettext("Ron") == "ロン"
    assert compiled.gettext("Tsumo") == "Tsumo"  # unsure: English until a reader confirms
    assert compiled.gettext("Draw") == "Draw"


def test_the_javascript_catalog_is_the_servers() -> None:
    import json

    data = json.loads(i18n.catalog_json("ja", ("spectator",)))
    assert data["language"] == "ja"
    server = i18n.translations("ja", "spectator")
    assert data["messages"] and all(
        server.gettext(key) == value
        for key, value in data["messages"].items()
        if isinstance(value, str)
    )


def test_the_javascript_catalog_holds_only_what_the_scripts_ask_for() -> None:
    """A phone loads the strings its script uses, not those the server already rendered."""
    import json

    messages = json.loads(i18n.catalog_json("ja", ("spectator",)))["messages"]
    assert "Won ron {value}" in messages  # spectator.js says it
    assert "Final ranking" not in messages  # only results.html does


@pytest.mark.parametrize(
    ("language", "shown"),
    [("en", ("Takeshi Yamada", "山田 剛")), ("ja", ("山田 剛", "Takeshi Yamada"))],
)
def test_a_name_shows_in_the_readers_script_first(language: str, shown: tuple[str, str]) -> None:
    with i18n.speaking(language):
        assert i18n.names_for("Takeshi Yamada", "山田 剛") == shown
        assert i18n.names_for("Takeshi Yamada", None) == ("Takeshi Yamada", None)


@pytest.mark.parametrize(
    ("domain", "draw"), [("spectator", "流局"), ("judge", "流局"), ("admin", "抽選")]
)
def test_a_word_is_said_as_its_own_audience_says_it(domain: str, draw: str) -> None:
    """ "Draw" is a hand with no winner at the table and the seating draw at the desk."""
    with i18n.speaking("ja", domain):
        assert i18n.gettext("Draw") == draw


@pytest.mark.parametrize(
    ("path", "domain"),
    [
        ("/", "spectator"),
        ("/p/P1", "spectator"),
        ("/hall/1", "hall"),
        ("/judge", "judge"),
        ("/overlay/1/top", "overlay"),
        ("/admin/1", "admin"),
        ("/api/tournaments", "common"),
    ],
)
def test_a_request_speaks_its_pages_words(path: str, domain: str) -> None:
    assert i18n.path_domain(path) == domain
