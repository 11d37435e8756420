"""The feeds' text columns in a language (issue 17), on SQLite and PostgreSQL: `?lang=`
says Status, Phase and Seat in words a caption can show, the columns keep their names, and
without it the codes stay as vision mixers already match them."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from test_feeds import enter_first_hand, feed, rows_of

from app.services import feeds
from app.services.store import TournamentStore
from tests.integration.judging_setup import Setup, club_opening, open_tournament


@pytest.fixture
def club(store: TournamentStore) -> Setup:
    """examples/club.jsonl before its first hand."""
    return open_tournament(store, club_opening())


WORDS = {
    "ja": ("対局中", "東家"),
    "zh-Hant": ("比賽中", "東家"),
    "zh-Hans": ("比赛中", "东家"),
    "ko": ("대국 중", "동가"),
}


@pytest.mark.parametrize("language", WORDS)
def test_text_columns_in_words_of_the_language(
    client: TestClient,
    club: Setup,
    language: str,
) -> None:
    enter_first_hand(client, club)
    playing, east = WORDS[language]
    standings = json.loads(client.get(f"/feeds/{club.tid}/standings.json?lang={language}").content)
    assert {row["Status"] for row in standings} == {playing}
    assert list(standings[0]) == list(feeds.STANDING_COLUMNS)  # the same columns, by name
    (card,) = json.loads(client.get(f"/feeds/{club.tid}/player-ami.json?lang={language}").content)
    assert card["Seat"] == east
    tables = client.get(f"/feeds/{club.tid}/tables.csv?lang={language}")
    assert rows_of(tables, "csv")[0]["Phase"] == playing
    # the codes without ?lang=, as before; each language its own answer and ETag
    plain = feed(client, club, "standings", "json")
    assert {row["Status"] for row in json.loads(plain.content)} == {"playing"}
    said = client.get(f"/feeds/{club.tid}/standings.json?lang={language}")
    assert said.headers["etag"] != plain.headers["etag"]


def test_a_language_we_do_not_speak_is_refused_naming_the_field(
    client: TestClient,
    club: Setup,
) -> None:
    answer = client.get(f"/feeds/{club.tid}/standings.json?lang=fr")
    assert answer.status_code == 422
    problem = answer.json()
    assert problem["field"] == "lang" and "zh-Hant" in problem["detail"]
