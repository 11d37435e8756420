"""The errors' sentences in every language (issue 17): every template of the `common`
catalog (the `say(...)` sentences a judge or an organizer reads when the server refuses
something) is said in each language with the values its English takes, so a translation
that lost, renamed or misspelt a placeholder fails here, not at a tablet as an English
fallback. And a refusal keeps its English byte for byte outside the web layer."""

from __future__ import annotations

import asyncio
import json
import string
from collections.abc import Callable, Coroutine
from typing import Any, cast

import pytest
from babel.messages.pofile import read_po
from fastapi import FastAPI, Request, Response

from app import i18n
from app.domain.ariari import END_WORDS
from app.domain.errors import HandRefused, IllegalMove, MalformedInput, say
from app.web.errors import framed, install, said, violation_text

Handler = Callable[[Request, Exception], Coroutine[Any, Any, Response]]

FORMATTER = string.Formatter()


def _placeholders(template: str) -> dict[str, str]:
    """Each placeholder's name and format spec: {n:,} is ("n", ","); a name said twice
    (-1 to -{n}, {n:,}) keeps the spec of either."""
    found: dict[str, str] = {}
    for _, name, spec, _ in FORMATTER.parse(template):
        if name:
            found[name] = found.get(name) or spec or ""
    return found


def _values(template: str) -> dict[str, object]:
    # A number wherever a format spec asks for one ({n:,}, {c:04X}); text elsewhere.
    return {name: 1234 if spec else f"<{name}>" for name, spec in _placeholders(template).items()}


def _translations(language: str) -> list[tuple[str, str]]:
    with i18n.po_path(language, "common").open("rb") as file:
        catalog = read_po(file, locale=i18n.babel_name(language))
    return [
        (message.id, message.string)
        for message in catalog
        if isinstance(message.id, str)
        and message.id
        and isinstance(message.string, str)
        and message.string
    ]


@pytest.mark.parametrize("language", i18n.TRANSLATED)
def test_every_template_formats_with_its_own_values_in_every_language(language: str) -> None:
    broken = []
    for template, translation in _translations(language):
        if not _placeholders(template):
            continue
        values = _values(template)
        template.format(**values)
        try:
            said_here = translation.format(**values)
        except (KeyError, IndexError, ValueError) as error:
            broken.append(f"{template!r} -> {translation!r}: {error!r}")
            continue
        if set(_placeholders(translation)) != set(values):
            broken.append(f"{template!r} -> {translation!r}: not the same placeholders")
        elif any(
            str(value) not in said_here for value in values.values() if isinstance(value, str)
        ):
            broken.append(f"{template!r} -> {translation!r}: a value is not said")
    assert broken == []


def test_a_refusal_is_the_same_english_sentence_it_always_was() -> None:
    sentence = say("the point changes sum to {total}, not zero", total=5)
    assert sentence == "the point changes sum to 5, not zero"
    refused = MalformedInput("HS-7", "result.deltas", sentence)
    assert str(refused) == "field 'result.deltas': the point changes sum to 5, not zero (rule HS-7)"
    with i18n.speaking(i18n.ENGLISH):
        assert violation_text(refused) == str(refused)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("ja", "項目「result.deltas」: 点数の増減の合計が 0 ではなく 5 です（規則 HS-7）"),
        ("zh-Hant", "欄位「result.deltas」：分數變動的總和是 5，不是零（規則 HS-7）"),
        ("zh-Hans", "字段“result.deltas”：分数变动的总和是 5，不是零（规则 HS-7）"),
        ("ko", "항목 'result.deltas': 점수 변동의 합이 0이 아니라 5입니다 (규칙 HS-7)"),
    ],
)
def test_a_refusal_is_said_in_the_readers_language(language: str, expected: str) -> None:
    refused = MalformedInput(
        "HS-7", "result.deltas", say("the point changes sum to {total}, not zero", total=5)
    )
    with i18n.speaking(language):
        assert violation_text(refused) == expected


def test_a_value_that_is_itself_a_sentence_is_said_in_the_readers_language_too() -> None:
    why = say("this table token expired at {moment}", moment="2026-12-04 04:00 UTC")
    sentence = say("{why}; ask the organizer for a new one", why=why)
    assert (
        sentence
        == "this table token expired at 2026-12-04 04:00 UTC; ask the organizer for a new one"
    )
    with i18n.speaking("ja"):
        assert said(sentence) == (
            "この卓トークンは 2026-12-04 04:00 UTC に期限切れになりました。"
            "主催者に新しいトークンを依頼してください"
        )
        assert framed("x", "plain text", "R-1").startswith("項目「x」: ")


def test_a_hand_a_tables_play_stopped_at_is_named_with_its_violation_in_the_language() -> None:
    app = FastAPI()
    install(app)
    handler = cast(Handler, app.exception_handlers[HandRefused])
    violation = IllegalMove(
        "AA-12",
        "hand",
        say(
            "the game ended after hand {number} ({end_words}); no hand follows it",
            number=7,
            end_words=END_WORDS["AA-14"],
        ),
    )
    refused = HandRefused(8, violation)
    request = Request({"type": "http", "method": "POST", "path": "/api/x", "headers": []})

    def detail(language: str) -> dict[str, object]:
        with i18n.speaking(language):
            response = asyncio.run(handler(request, refused))
        assert response.status_code == 409
        body: dict[str, object] = json.loads(bytes(response.body))
        return body

    assert detail(i18n.ENGLISH)["detail"] == str(refused)
    japanese = detail("ja")
    assert japanese["detail"] == (
        "第 8 局: 項目「hand」: 対局は第 7 局で終わりました（トビ：持ち点が 0 未満になりました）。"
        "その後に局はありません（規則 AA-12）"
    )
    assert (japanese["field"], japanese["rule"]) == ("hand", "AA-12")
