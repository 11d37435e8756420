"""Korean particles fitted to the value before them (issue 17; app/i18n/korean.py)."""

from __future__ import annotations

import pytest

from app.i18n.korean import fit_particles


@pytest.mark.parametrize(
    ("written", "fitted"),
    [
        ("선수 김민준은(는) 등록되지 않았습니다", "선수 김민준은 등록되지 않았습니다"),  # 준: ㄴ
        ("선수 이서가은(는) 없습니다", "선수 이서가는 없습니다"),  # 가: a vowel
        ("'0'이(가) 아닙니다", "'0'이 아닙니다"),  # 영: a consonant, behind a quote
        ("2이(가) 아닙니다", "2가 아닙니다"),  # 이: a vowel
        ("10을(를) 넘습니다", "10을 넘습니다"),  # 십
        ("(7)을(를)", "(7)을"),  # a bracket is not read
        ("3번 탁과(와) 4번 탁", "3번 탁과 4번 탁"),
        ("하프 1(으)로 옮깁니다", "하프 1로 옮깁니다"),  # 일: ㄹ takes 로
        ("3(으)로", "3으로"),  # 삼
        ("서울(으)로", "서울로"),
        ("부산(으)로", "부산으로"),
        ("선수 a1은(는) 없습니다", "선수 a1은 없습니다"),  # 일, after the letter
        ("선수 Kim은(는) 없습니다", "선수 Kim은(는) 없습니다"),  # a Latin ending: both kept
        ("은(는) 처음", "은(는) 처음"),  # nothing before it
        ("값 4이(가), 값 6이(가)", "값 4가, 값 6이"),  # each pair by its own value
    ],
)
def test_each_particle_takes_the_form_its_value_needs(written: str, fitted: str) -> None:
    assert fit_particles(written) == fitted


def test_a_sentence_without_pairs_is_left_as_it_is() -> None:
    assert fit_particles("이가 은는 을를") == "이가 은는 을를"
