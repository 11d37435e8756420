"""Finding a player by name on a phone: forgiving accents, case and typos.

A spectator types "emile dubois" for "Émile Dubois" or "hayshi" for "Hayashi", and a name in
Chinese characters as they read it: "やまだ" or "ヤマダ" for "山田 剛", "chen jia wei" (pinyin
without tones) for "陳家偉", or "陈家伟" in the other script (issue 17). Names and queries
are compared in a plain form (accents stripped, case folded, katakana as hiragana), token by
token:
players whose name tokens start with the query's tokens come first, then the rest by how
similar they are (difflib's ratio), and players that are not similar enough are left out.
Pure functions: the caller hands in the players of one tournament.
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

# Letters that NFKD does not split into a base letter and an accent; and katakana as the
# hiragana of the same sound, so that "ヤマダ" and "やまだ" are one reading.
_PLAIN_LETTERS = str.maketrans(
    {"ø": "o", "đ": "d", "ð": "d", "ł": "l", "æ": "ae", "œ": "oe", "þ": "th", "ı": "i"}
    | {chr(katakana): chr(katakana - 0x60) for katakana in range(0x30A1, 0x30F7)}
)
_IDEOGRAPHS_FROM = "\u2e80"  # CJK radicals onwards: kana, Chinese characters, hangul
_TOKEN = re.compile(r"[^\W_]+")

SIMILAR_ENOUGH = 0.75  # below this a name is not offered ("hayshi" is 0.92 of "hayashi")
PREFIX_SCORE = 0.95  # a token that starts the name's token: better than any typo


def normalize(text: str) -> str:
    """Casefolded, without accents: "Émile Endō" -> "emile endo"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return stripped.translate(_PLAIN_LETTERS)


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(normalize(text))


@dataclass(frozen=True)
class Readings:
    """How a phone types a name written in Chinese characters or kana, word by word."""

    kana: tuple[str, ...] = ()  # Japanese: "やまだ", "つよし"
    pinyin: tuple[str, ...] = ()  # Chinese, without tones: "chenjiawei"
    syllables: tuple[str, ...] = ()  # the pinyin one syllable at a time: "chen", "jia", "wei"

    @property
    def tokens(self) -> list[str]:
        return [*self.kana, *self.pinyin, *self.syllables]

    @property
    def whole(self) -> list[str]:
        """Each reading as one string, as a name typed without its spaces."""
        return ["".join(self.kana), "".join(self.pinyin)] if self.kana else []


@functools.lru_cache(maxsize=8192)
def readings(name: str) -> Readings:
    """The kana reading (pykakasi) and the toneless pinyin (pypinyin) of each word of a
    name; nothing for a name in Latin letters. Kept per name: a hall's 1,024 names take a
    few milliseconds, once."""
    if not any(c >= _IDEOGRAPHS_FROM for c in name):
        return Readings()
    kana_of, pinyin_of = _readers()
    kana, pinyin, syllables = [], [], []
    for word in name.split():
        kana += tokens("".join(part["hira"] for part in kana_of(word)))
        sounds = [t for syllable in pinyin_of(word) for t in tokens(syllable)]
        pinyin.append("".join(sounds))
        syllables += sounds
    return Readings(tuple(kana), tuple(p for p in pinyin if p), tuple(syllables))


@functools.cache
def _readers() -> tuple[Callable[[str], list[dict[str, str]]], Callable[[str], list[str]]]:
    # Imported on the first search of such a name, not when the server starts: their
    # dictionaries take about 0.6 s to load.
    import pykakasi
    from pypinyin import Style, lazy_pinyin

    kakasi: Any = pykakasi.kakasi
    return kakasi().convert, functools.partial(lazy_pinyin, style=Style.NORMAL)


@dataclass(frozen=True)
class Candidate:
    player: str | int
    name: str
    country: str | None = None
    local_name: str | None = None  # "山田 剛" beside "Takeshi Yamada": found by either


@dataclass(frozen=True)
class Match:
    candidate: Candidate
    prefix_hits: int  # query tokens that start one of the name's tokens (or the id)
    similarity: float  # 0..1

    @property
    def sort_key(self) -> tuple[int, float, str]:
        # More prefix hits first, then the closer spelling, then by name for a stable list.
        return (-self.prefix_hits, -self.similarity, normalize(self.candidate.name))


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _token_score(query_token: str, name_tokens: list[str]) -> tuple[bool, float]:
    """Whether the query token starts a name token, and its best similarity to one."""
    best = 0.0
    prefix = False
    for name_token in name_tokens:
        if name_token.startswith(query_token):
            prefix = True
            best = max(best, 1.0 if name_token == query_token else PREFIX_SCORE)
        else:
            best = max(best, _ratio(query_token, name_token))
    return prefix, best


def match(candidate: Candidate, query: str) -> Match | None:
    """How well `query` finds `candidate`, or None when it does not."""
    wanted = tokens(query)
    if not wanted:
        return None
    local = candidate.local_name or ""
    read = readings(local)
    name_tokens = (
        tokens(candidate.name) + tokens(local) + read.tokens + tokens(str(candidate.player))
    )
    hits = 0
    scores = []
    for query_token in wanted:
        # A name in Chinese characters typed in the other script (陈家伟 for 陳家偉, as a
        # Macau hall types both): its pinyin is the same, and compared with the name's.
        said = (query_token, *readings(query_token).pinyin)
        prefix, score = max(_token_score(form, name_tokens) for form in said)
        hits += prefix
        scores.append(score)
    similarity = sum(scores) / len(scores)
    # A name typed without its space ("emiledubois", "山田剛") is compared as a whole too.
    typed = ("".join(wanted), "".join(readings("".join(wanted)).pinyin))
    whole = max(
        _ratio(form, "".join(tokens(name)))
        for name in (candidate.name, local, *read.whole, *read.pinyin)
        for form in typed
        if name and form
    )
    similarity = max(similarity, whole)
    if hits == len(wanted) or similarity >= SIMILAR_ENOUGH:
        return Match(candidate, hits, similarity)
    return None


def search(candidates: Iterable[Candidate], query: str, limit: int = 20) -> list[Match]:
    """The best matches for `query`, best first, at most `limit`."""
    found = [m for c in candidates if (m := match(c, query)) is not None]
    found.sort(key=lambda m: m.sort_key)
    return found[:limit]
