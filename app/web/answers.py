"""The answer every write endpoint gives: which version and log lines the request made.

Judges' and admin routes both append log lines; they answer with the same fields so that a
client (the tablet's outbox, the admin console) can follow the version it caused.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from app.services.store import Appended


class Recorded(BaseModel):
    tournament: int
    version: int
    seq: int
    lines: list[dict[str, Any]]


def recorded_fields(appended: Appended) -> dict[str, Any]:
    """The `Recorded` fields of an append, for answers that extend `Recorded`."""
    return {
        "tournament": appended.tournament_id,
        "version": appended.version,
        "seq": appended.first_seq,
        "lines": [json.loads(line) for line in appended.lines],
    }


def recorded(appended: Appended) -> Recorded:
    return Recorded(**recorded_fields(appended))
