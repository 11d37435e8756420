"""Korean particles after a value (issue 17): a catalog cannot know whether "{player}" ends in
a consonant, so its sentences write both forms, "{player}은(는)", as Korean software does;
once the value is in, the one form that fits is kept: "a1은", "김민준은", "3번 탁은" but
"2는", "서가는". A value ending in a Latin letter keeps both forms: its Korean reading is not
written, and a wrong guess reads worse than the pair.
"""

from __future__ import annotations

import re

# each pair: (after a final consonant, after a vowel); 으로/로 goes by ㄹ as by a vowel
_PAIRS = {
    "이(가)": ("이", "가"),
    "을(를)": ("을", "를"),
    "은(는)": ("은", "는"),
    "과(와)": ("과", "와"),
}
_PARTICLE = re.compile(r"(이\(가\)|을\(를\)|은\(는\)|과\(와\)|\(으\)로)")
# what stands between a value and its particle without being read: quotes, brackets
_SILENT = "'\"’”)]}」』>》〉 "
# the last digit as Korean reads a number: 영 일 이 삼 사 오 육 칠 팔 구 (10 십, 100 백,
# 1000 천 end in a consonant too, as 영 does)
_DIGIT_FINAL = {
    "0": "ㅇ",
    "1": "ㄹ",
    "2": "",
    "3": "ㅁ",
    "4": "",
    "5": "",
    "6": "ㄱ",
    "7": "ㄹ",
    "8": "ㄹ",
    "9": "",
}
_RIEUL = 8  # ㄹ's index among a syllable's final consonants


def _final(before: str) -> str | None:
    """The final consonant of what is read last before a particle: "" for a vowel, "ㄹ" for
    ㄹ, "+" for any other consonant, None when it cannot be told."""
    rest = before.rstrip(_SILENT)
    if not rest:
        return None
    last = rest[-1]
    if "가" <= last <= "힣":
        index = (ord(last) - ord("가")) % 28
        return "" if index == 0 else "ㄹ" if index == _RIEUL else "+"
    if last in _DIGIT_FINAL:
        final = _DIGIT_FINAL[last]
        return final if final in ("", "ㄹ") else "+"
    return None


def fit_particles(text: str) -> str:
    """Each "X은(는)"-style pair after a value turned into the form X takes."""
    parts = _PARTICLE.split(text)
    out = [parts[0]]
    for particle, after in zip(parts[1::2], parts[2::2], strict=True):
        final = _final("".join(out))
        if final is None:
            out.append(particle)
        elif particle == "(으)로":
            out.append("로" if final in ("", "ㄹ") else "으로")
        else:
            consonant, vowel = _PAIRS[particle]
            out.append(vowel if final == "" else consonant)
        out.append(after)
    return "".join(out)
