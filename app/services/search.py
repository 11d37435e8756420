"""Finding a player by name on a phone: forgiving accents, case and typos.

A spectator types "emile dubois" for "Émile Dubois" or "hayshi" for "Hayashi", and a name in
Chinese characters as they read it: "やまだ" or "ヤマダ" for "山田 剛", "chen jia wei" (pinyin
without tones) for "陳家偉", or "陈家伟" in the other script (issue 17). Names and queries
are compared in a plain form (accents stripped, case folded, katakana as hiragana), token by
token:
players whose name tokens start with the query's tokens come first, then the rest by how
similar they are (difflib's ratio, as rapidfuzz computes it), and players that are not
similar enough are left out.
Pure functions: the caller hands in the players of one tournament.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz, process

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


def load_dictionaries() -> None:
    """Load the kana and pinyin dictionaries now (about 0.6 s): the server does it as it
    starts (issue 32), so that no reader's first search of a name in Chinese characters
    waits for them."""
    _readers()


_loading = threading.Lock()  # one load, whoever asks first: the server's start or a search


def _readers() -> tuple[Callable[[str], list[dict[str, str]]], Callable[[str], list[str]]]:
    with _loading:
        return _loaded()


@functools.cache
def _loaded() -> tuple[Callable[[str], list[dict[str, str]]], Callable[[str], list[str]]]:
    # Imported when first asked for, not with this module: `scoreboard replay` and the
    # other commands never need them (tests/integration/test_cli_imports.py).
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
    # rapidfuzz's ratio is difflib's (2 * matches / total length), in C: a field of 1,024
    # names is searched in milliseconds, where SequenceMatcher took 60 to 600 ms (issue 32).
    return float(fuzz.ratio(a, b)) / 100


def _token_score(query_token: str, name_tokens: Sequence[str]) -> tuple[bool, float]:
    """Whether the query token starts a name token, and its best similarity to one."""
    best = 0.0
    prefix = False
    others = []
    for name_token in name_tokens:
        if name_token.startswith(query_token):
            prefix = True
            best = max(best, 1.0 if name_token == query_token else PREFIX_SCORE)
        else:
            others.append(name_token)
    if others:
        closest = process.extractOne(query_token, others, scorer=fuzz.ratio)
        best = max(best, float(closest[1]) / 100)
    return prefix, best


MAX_QUERY_TOKENS = 8  # words of a query compared: a name has a few; the rest is noise


@dataclass(frozen=True)
class Indexed:
    """A candidate with what a search compares it by, worked out once: a field's names
    change only with its registrations (the spectators' search keeps one per version)."""

    candidate: Candidate
    name_tokens: tuple[str, ...]  # the name's, the local name's, their readings', the id's
    wholes: tuple[str, ...]  # each form of the name without its spaces


def indexed(candidate: Candidate) -> Indexed:
    local = candidate.local_name or ""
    read = readings(local)
    name_tokens = (
        tokens(candidate.name) + tokens(local) + read.tokens + tokens(str(candidate.player))
    )
    wholes = [
        "".join(tokens(name)) for name in (candidate.name, local, *read.whole, *read.pinyin) if name
    ]
    return Indexed(candidate, tuple(name_tokens), tuple(whole for whole in wholes if whole))


def index(candidates: Iterable[Candidate]) -> tuple[Indexed, ...]:
    return tuple(indexed(candidate) for candidate in candidates)


@dataclass(frozen=True)
class Query:
    """A query, read once for every candidate it is compared with."""

    wanted: tuple[str, ...]
    # each query token, and its pinyin: a name in Chinese characters typed in the other
    # script (陈家伟 for 陳家偉, as a Macau hall types both) sounds the same
    said: tuple[tuple[str, ...], ...]
    # the query without its spaces ("emiledubois", "山田剛"), and its pinyin
    typed: tuple[str, ...]


def read_query(query: str) -> Query | None:
    wanted = tuple(tokens(query)[:MAX_QUERY_TOKENS])
    if not wanted:
        return None
    said = tuple((token, *readings(token).pinyin) for token in wanted)
    joined = "".join(wanted)
    typed = tuple(form for form in (joined, "".join(readings(joined).pinyin)) if form)
    return Query(wanted, said, typed)


def _matched(entry: Indexed, query: Query) -> Match | None:
    hits = 0
    scores = []
    for forms in query.said:
        prefix, score = max(_token_score(form, entry.name_tokens) for form in forms)
        hits += prefix
        scores.append(score)
    similarity = sum(scores) / len(scores)
    # A name typed without its space is compared as a whole too.
    if entry.wholes:
        whole = max(
            float(process.extractOne(form, entry.wholes, scorer=fuzz.ratio)[1]) / 100
            for form in query.typed
        )
        similarity = max(similarity, whole)
    if hits == len(query.wanted) or similarity >= SIMILAR_ENOUGH:
        return Match(entry.candidate, hits, similarity)
    return None


def match(candidate: Candidate, query: str) -> Match | None:
    """How well `query` finds `candidate`, or None when it does not."""
    read = read_query(query)
    return None if read is None else _matched(indexed(candidate), read)


def search(candidates: Iterable[Candidate | Indexed], query: str, limit: int = 20) -> list[Match]:
    """The best matches for `query`, best first, at most `limit`. Candidates given already
    indexed (`index`) are not read again."""
    read = read_query(query)
    if read is None:
        return []
    entries = (c if isinstance(c, Indexed) else indexed(c) for c in candidates)
    found = [m for entry in entries if (m := _matched(entry, read)) is not None]
    found.sort(key=lambda m: m.sort_key)
    return found[:limit]
