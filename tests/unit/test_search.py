"""The spectator's name search: accents, case and typos forgiven, prefixes first."""

from __future__ import annotations

import pytest

from app.services.search import Candidate, match, normalize, readings, search, tokens

FIELD = [
    Candidate("P0001", "Émile Dubois", "FR"),
    Candidate("P0002", "Emil Duval", "DK"),
    Candidate("P0003", "Hiro Hayashi", "JP"),
    Candidate("P0004", "Hana Hayes", "US"),
    Candidate("P0005", "Tomás García", "ES"),
    Candidate("P0006", "Jun Endō", "JP"),
    Candidate("P0007", "Lars Møller", "DK"),
    Candidate("P0008", "Grace Müller", "DE"),
    Candidate("P0009", "Ming Lau", "HK"),
    Candidate(42, "René Ahn", "FR"),
]


def names(query: str) -> list[str]:
    return [m.candidate.name for m in search(FIELD, query)]


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("Émile Dubois", "emile dubois"),
        ("Jun Endō", "jun endo"),
        ("Lars Møller", "lars moller"),
        ("STRAẞE", "strasse"),
        ("ＡＢＣ", "abc"),  # full-width letters from a phone keyboard
    ],
)
def test_normalize_strips_accents_and_case(text: str, plain: str) -> None:
    assert normalize(text) == plain


def test_tokens_split_on_anything_but_letters_and_digits() -> None:
    assert tokens("  García-López, T. 12 ") == ["garcia", "lopez", "t", "12"]


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("emile dubois", "Émile Dubois"),  # no accent typed
        ("EMILE DUBOIS", "Émile Dubois"),
        ("emile dubios", "Émile Dubois"),  # letters swapped
        ("hayshi", "Hiro Hayashi"),  # a letter missing
        ("hayasi", "Hiro Hayashi"),
        ("garcia", "Tomás García"),
        ("endo", "Jun Endō"),
        ("moller", "Lars Møller"),
        ("muller", "Grace Müller"),
        ("emiledubois", "Émile Dubois"),  # the space forgotten
        ("dubois emile", "Émile Dubois"),  # surname first
        ("p0009", "Ming Lau"),  # the id on the seating slip
        ("42", "René Ahn"),
    ],
)
def test_the_intended_player_comes_first(query: str, first: str) -> None:
    assert names(query)[0] == first


def test_prefix_matches_rank_above_closer_spellings() -> None:
    # "ha" starts Hayashi and Hayes and Hana: those come before anything merely similar.
    found = search(FIELD, "ha")
    assert {m.candidate.name for m in found[:2]} == {"Hiro Hayashi", "Hana Hayes"}
    assert all(m.prefix_hits == 1 for m in found[:2])


def test_both_tokens_matching_beats_one() -> None:
    # Both names start with "emil" and "du"; the exact "emil" puts Emil Duval first.
    found = search(FIELD, "emil du")
    assert [m.candidate.name for m in found] == ["Emil Duval", "Émile Dubois"]
    assert [m.prefix_hits for m in found] == [2, 2]
    assert names("emile du")[0] == "Émile Dubois"


def test_unrelated_names_are_left_out() -> None:
    assert names("hayshi") == ["Hiro Hayashi"]
    assert names("zzzz") == []


def test_an_empty_or_punctuation_query_finds_nobody() -> None:
    assert names("") == []
    assert names(" ,.- ") == []


def test_the_limit_caps_the_list() -> None:
    many = [Candidate(f"P{i}", f"Aiko Ahn {i}") for i in range(50)]
    assert len(search(many, "aiko", limit=20)) == 20


def test_a_match_reports_its_prefix_hits_and_similarity() -> None:
    found = match(FIELD[0], "emile dubios")
    assert found is not None
    assert found.prefix_hits == 1
    assert 0.8 < found.similarity < 1
    assert match(FIELD[0], "hayashi") is None


LOCAL = [
    Candidate("P0101", "Takeshi Yamada", "JP", "山田 剛"),
    Candidate("P0102", "Ka Wai Chan", "HK", "陳家偉"),
    Candidate("P0103", "Taro Yamamoto", "JP", "山本 太郎"),
]


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("山田", "Takeshi Yamada"),  # the family name in the player's own script (issue 17)
        ("山田剛", "Takeshi Yamada"),  # typed without the space
        ("剛", "Takeshi Yamada"),
        ("陳家偉", "Ka Wai Chan"),  # a Cantonese reader's spelling of the name
        ("陳", "Ka Wai Chan"),
        ("山本", "Taro Yamamoto"),
        ("yamada", "Takeshi Yamada"),  # the Latin form still finds them
    ],
)
def test_a_player_is_found_by_the_name_in_their_own_script(query: str, first: str) -> None:
    found = search(LOCAL, query)
    assert found and found[0].candidate.name == first


def test_a_name_in_another_script_matches_nobody_it_does_not_name() -> None:
    assert search(LOCAL, "田中") == []
    assert search(FIELD, "山田") == []  # players without a local name are not offered for it


@pytest.mark.parametrize(
    ("query", "first"),
    [
        # issue 17: as a Japanese phone types a name in kanji, in hiragana or katakana
        ("やまだ", "Takeshi Yamada"),
        ("ヤマダ", "Takeshi Yamada"),
        ("つよし", "Takeshi Yamada"),
        ("やまもと", "Taro Yamamoto"),
        # as a Chinese phone types it, in pinyin without tones
        ("chen", "Ka Wai Chan"),
        ("chen jia wei", "Ka Wai Chan"),
        ("chenjiawei", "Ka Wai Chan"),
        ("jiawei", "Ka Wai Chan"),
    ],
)
def test_a_name_in_chinese_characters_is_found_by_its_kana_or_its_pinyin(
    query: str, first: str
) -> None:
    found = search(LOCAL, query)
    assert found and found[0].candidate.name == first


LOCAL_BOTH_SCRIPTS = [
    *LOCAL,
    Candidate("P0104", "Li Xiaoming", "CN", "李晓明"),  # registered in Simplified characters
    Candidate("P0105", "Wong Siu Ming", "HK", "黃小明"),  # and in Traditional
]


@pytest.mark.parametrize(
    ("query", "first"),
    [
        # issue 17: a Macau hall types both scripts; a name is found in the one it was not
        # registered in
        ("陈家伟", "Ka Wai Chan"),
        ("陈", "Ka Wai Chan"),
        ("李曉明", "Li Xiaoming"),
        ("曉明", "Li Xiaoming"),
        ("黄小明", "Wong Siu Ming"),
        ("黄 小明", "Wong Siu Ming"),
    ],
)
def test_a_chinese_name_is_found_in_the_other_script(query: str, first: str) -> None:
    found = search(LOCAL_BOTH_SCRIPTS, query)
    assert found and found[0].candidate.name == first


def test_the_other_script_finds_no_one_the_name_does_not_sound_like() -> None:
    assert search(LOCAL_BOTH_SCRIPTS, "张伟") == []


def test_a_latin_name_has_no_readings_and_a_reading_finds_only_its_name() -> None:
    assert readings("Takeshi Yamada") == readings("")
    assert search(LOCAL, "たなか") == []
    assert readings("陳家偉").pinyin == ("chenjiawei",)
