"""Hostile input at the door, on both databases (issue 14): a judge's token penalizes only
the players at its own table in the segment it plays, by a deduction the format bounds
(PN-1, HS-6); every number of a request is bounded and strict like the log; a late
registration is refused (FM-2); and every 4xx names the field and the rule in words a
judge can act on.

One test per database walks a table of requests (each refused one leaves the log as it was),
so the table covers every field without setting up a database per row.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.services.store import TournamentStore
from tests.integration.judging_setup import (
    Setup,
    club_opening,
    generated_opening,
    hand,
    open_tournament,
    points,
    self_draw,
    snapshot,
)

PENALTY = {"round": 1, "player": "dirk", "points": -5, "reason": "late arrival"}
HAND_1 = hand(1, 1, self_draw("ami", 10))


@dataclass(frozen=True)
class Refused:
    id: str
    route: str  # under /api/tournaments/{tid}/; "" is /api/tournaments itself
    body: Any
    status: int
    field: str
    rule: str
    admin: bool = False
    says: tuple[str, ...] = ()  # what the detail must say, besides the field and the rule
    headers: dict[str, str] = field(default_factory=dict)


def judge_hand(result: dict[str, Any], **place: Any) -> dict[str, Any]:
    return {**hand(1, 1, result), **place}


CASES = [
    # -- the judge's penalty: a deduction on the format's scale (rules PN-1, HS-6) --------
    Refused(
        "penalty-plus-500", "table-penalties", {**PENALTY, "points": 500}, 422, "points", "PN-1"
    ),
    Refused(
        "penalty-plus-10^9", "table-penalties", {**PENALTY, "points": 10**9}, 422, "points", "PN-1"
    ),
    Refused(
        "penalty-minus-10^30",
        "table-penalties",
        {**PENALTY, "points": -(10**30)},
        422,
        "points",
        "PN-1",
    ),
    Refused(
        "penalty-beyond-the-format",
        "table-penalties",
        {**PENALTY, "points": -961},
        422,
        "points",
        "PN-1",
        says=("960",),
    ),
    Refused("penalty-zero", "table-penalties", {**PENALTY, "points": 0}, 422, "points", "PN-1"),
    Refused(
        "penalty-as-text", "table-penalties", {**PENALTY, "points": "-5"}, 422, "points", "PN-1"
    ),
    Refused(
        "penalty-elsewhere",
        "table-penalties",
        {**PENALTY, "player": "eun"},
        403,
        "player",
        "PN-1",
        says=("table 1", "segment 1"),
    ),
    # -- the head judge's penalty: any table, still a bounded deduction -------------------
    Refused(
        "admin-penalty-plus-500",
        "penalties",
        {**PENALTY, "points": 500},
        422,
        "points",
        "PN-1",
        True,
    ),
    Refused(
        "admin-penalty-minus-10^30",
        "penalties",
        {**PENALTY, "points": -(10**30)},
        422,
        "points",
        "PN-1",
        True,
    ),
    Refused(
        "admin-penalty-beyond",
        "penalties",
        {**PENALTY, "points": -961},
        422,
        "points",
        "PN-1",
        True,
    ),
    Refused(
        "admin-penalty-round-text",
        "penalties",
        {**PENALTY, "round": "1"},
        422,
        "round",
        "FM-1",
        True,
    ),
    # -- hands: strict like the log, and bounded ------------------------------------------
    Refused(
        "value-as-text",
        "hands",
        judge_hand({"kind": "self_draw", "winner": "ami", "value": "10"}),
        422,
        "result.value",
        "HS-3",
        says=("a whole number", "'10'"),
    ),
    Refused(
        "winner-object",
        "hands",
        judge_hand({"kind": "self_draw", "winner": {"id": "ami"}, "value": 10}),
        422,
        "result.winner",
        "CONTRACT §1",
        says=("a player id such as P0001 is needed, not an object",),
    ),
    Refused(
        "nine-gates",
        "hands",
        judge_hand({"kind": "nine_gates", "winner": "ami", "value": 320}),
        422,
        "result.kind",
        "HS-1",
        says=(
            "'nine_gates' is not a way a hand ends; one of self_draw, discard, draw, points "
            "(rule HS-1)",
        ),
    ),
    Refused(
        "no-kind",
        "hands",
        judge_hand({"winner": "ami", "value": 10}),
        422,
        "result.kind",
        "HS-1",
        says=("how the hand ended is needed",),
    ),
    Refused(
        "misspelt-result-field",
        "hands",
        judge_hand({"kind": "self_draw", "winner": "ami", "value": 10, "valeu": 12}),
        422,
        "result.valeu",
        "CONTRACT §3",
    ),
    Refused(
        "value-10^30",
        "hands",
        judge_hand(self_draw("ami", 10**30)),
        422,
        "result.value",
        "HS-3",
    ),
    Refused(
        "points-beyond-a-hand",
        "hands",
        judge_hand(points(ami=961, bo=-961, cleo=0, dirk=0)),
        422,
        "result.deltas.ami",
        "HS-7",
        says=("960",),
    ),
    Refused(
        "points-10^30",
        "hands",
        judge_hand(points(ami=10**30, bo=-(10**30), cleo=0, dirk=0)),
        422,
        "result.deltas.ami",
        "HS-7",
    ),
    Refused("round-9", "hands", {**HAND_1, "round": 9}, 422, "round", "FM-1"),
    Refused("table-10001", "hands", {**HAND_1, "table": 10_001}, 422, "table", "FM-9"),
    Refused("hand-101", "hands", {**HAND_1, "hand": 101}, 422, "hand", "FM-7"),
    Refused("hand-2^31", "hands", {**HAND_1, "hand": 2**31}, 422, "hand", "FM-7"),
    Refused(
        "deal-in-9999",
        "deals",
        {
            "round": 1,
            "segment": 1,
            "table": 1,
            "hand": 1,
            "time": "9999-12-31T23:00:00Z",
            "sent": "9999-12-31T23:00:00Z",
        },
        422,
        "time",
        "CL-3",
    ),
    Refused(
        "cycle-26",
        "seats",
        {"round": 1, "segment": 1, "table": 1, "seats": ["ami", "bo", "cleo", "dirk"], "cycle": 26},
        422,
        "cycle",
        "SE-8",
    ),
    # -- the organizer's numbers ----------------------------------------------------------
    Refused(
        "schedule-in-9999",
        "schedule",
        {"round": 1, "segment": 2, "group": "A", "start": "9999-12-31T23:00:00Z"},
        422,
        "start",
        "FM-8",
        True,
        says=("9999",),
    ),
    Refused(
        "extension-10^9",
        "extensions",
        {"round": 1, "segment": 1, "table": 1, "minutes": 10**9},
        422,
        "minutes",
        "CL-2",
        True,
    ),
    Refused("prize-10^9", "prizes", {"amounts": [10**9]}, 422, "amounts[0]", "PR-2", True),
    Refused("token-table-10^6", "tokens", {"table": 10**6}, 422, "table", "FM-9", True),
    Refused(
        "player-number-2^40",
        "players",
        [{"id": 2**40, "name": "Big", "group": "A"}],
        422,
        "0.id",
        "CONTRACT §1",
        True,
    ),
    Refused("draw-seed-129", "rounds/2/draw", {"seed": "x" * 129}, 422, "seed", "SE-1", True),
    Refused(
        "advance-10^30",
        "",
        {"name": "Big Open", "format": {"preset": "wsom2008", "advance": [10**30, 4]}},
        422,
        "format.rounds[0].advance",
        "FM-6",
        True,
    ),
    Refused(
        "segments-17",
        "",
        {"name": "Long Open", "format": {"rounds": [{"advance": 4, "segments": 17}, {}]}},
        422,
        "format.rounds[0].segments",
        "FM-8",
        True,
    ),
]


def send(client: TestClient, club: Setup, case: Refused, admin_headers: dict[str, str]) -> Any:
    url = f"/api/tournaments/{club.tid}/{case.route}" if case.route else "/api/tournaments"
    headers = admin_headers if case.admin else club.headers(1, f"key-{case.id}")
    # json.dumps: a body of 10^30 and of text, exactly as a tablet would send it
    headers = {**headers, "Content-Type": "application/json", **case.headers}
    return client.post(url, content=json.dumps(case.body), headers=headers)


def test_every_number_is_bounded_and_strict_and_its_refusal_names_field_and_rule(
    client: TestClient, store: TournamentStore, admin_headers: dict[str, str]
) -> None:
    club = open_tournament(store, club_opening())
    before = snapshot(store, club.tid)
    wrong = []
    for case in CASES:
        response = send(client, club, case, admin_headers)
        problem = response.json()
        detail = str(problem.get("detail", ""))
        expected = (case.status, case.field, case.rule)
        if (response.status_code, problem.get("field"), problem.get("rule")) != expected or any(
            text not in detail for text in (case.field, f"(rule {case.rule})", *case.says)
        ):
            wrong.append(f"{case.id}: {response.status_code} {problem}")
        elif str(10**30) in detail or "Input tag" in detail or ".str" in detail:
            wrong.append(f"{case.id}: not in a judge's words: {detail}")
    assert not wrong, "\n".join(wrong)
    assert snapshot(store, club.tid) == before  # nothing refused was stored


def test_deductions_within_the_bound_are_taken_at_the_judges_table_and_by_the_head_judge(
    client: TestClient, store: TournamentStore, admin_headers: dict[str, str]
) -> None:
    club = open_tournament(store, club_opening())
    url = f"/api/tournaments/{club.tid}"

    judge = client.post(
        f"{url}/table-penalties", json={**PENALTY, "points": -960}, headers=club.headers(1)
    )
    # the head judge penalizes a player of any table (eun sits at table 2)
    head = client.post(f"{url}/penalties", json={**PENALTY, "player": "eun"}, headers=admin_headers)

    assert judge.status_code == 201, judge.text
    assert head.status_code == 201, head.text
    state = client.get(f"{url}/standings", params={"round": 1}).json()
    plays = {row["player"]: row["play"] for row in state["rounds"][0]["standings"]}
    assert (plays["dirk"], plays["eun"]) == ("-960", "-5")  # rule PN-1


def test_a_judge_penalizes_only_the_players_of_the_segment_their_table_plays(
    client: TestClient, store: TournamentStore
) -> None:
    opening = generated_opening()
    seated = {
        (line["segment"], line["table"]): line["seats"]
        for line in map(json.loads, opening)
        if line["type"] == "seating" and line["round"] == 1
    }
    setup = open_tournament(store, opening, tables=(1,))
    now, later = seated[(1, 1)], seated[(2, 1)]
    # at table 1 in the second half, not in the first: not the judge's player yet
    coming = next(player for player in later if player not in now)

    refused = client.post(
        setup.url("table-penalties"), json={**PENALTY, "player": coming}, headers=setup.headers(1)
    )
    given = client.post(
        setup.url("table-penalties"), json={**PENALTY, "player": now[0]}, headers=setup.headers(1)
    )

    assert refused.status_code == 403, refused.text
    assert (refused.json()["field"], refused.json()["rule"]) == ("player", "PN-1")
    assert "segment 1" in refused.json()["detail"]
    assert given.status_code == 201, given.text


@pytest.mark.parametrize("substitute", [False, True], ids=["player", "substitute"])
def test_a_registration_after_round_1_began_is_refused_unless_a_substitute(
    client: TestClient, store: TournamentStore, admin_headers: dict[str, str], substitute: bool
) -> None:
    club = open_tournament(store, club_opening())
    url = f"/api/tournaments/{club.tid}/players"
    late = [{"id": "zed", "name": "Zed Late", "group": "A", "substitute": substitute}]
    assert (
        client.post(club.url("hands"), json=HAND_1, headers=club.headers(1, "h1")).status_code
        == 201
    )
    before = snapshot(store, club.tid)

    response = client.post(url, json=late, headers=admin_headers)

    if substitute:  # rule FM-9: a substitute fills a seat and is never ranked
        assert response.status_code == 201, response.text
        return
    assert response.status_code == 409, response.text
    assert (response.json()["field"], response.json()["rule"]) == ("0.id", "FM-2")
    assert "round 1 has begun" in response.json()["detail"]
    assert snapshot(store, club.tid) == before
    standings = client.get(f"/api/tournaments/{club.tid}/standings", params={"round": 1}).json()
    assert "zed" not in {row["player"] for row in standings["rounds"][0]["standings"]}
