"""The form of a European Mahjong Association number (issue 18, part 6).

An EMA number names a player in the EMA's ranking (MERS). It is 8 digits: the first two
are the code of the player's national association in the EMA (01 Austria, 02 Belgium,
03 Denmark, 04 France, 05 Germany, ... 14 Finland, ... 22 Czech Republic), the other six
the association's own, e.g. "04160092" for a French player, "14990053" for a Finnish one.
The EMA's results pages write it so, leading zero included. The association codes are the
EMA's member list (the Japanese Mahjong Wiki's "European Mahjong Association" page lists
each member with its code in brackets, "[04] France").

The log keeps it as a string, so "04160092" keeps its leading zero: a JSON number would
drop it. The server checks the form only (no association has code 00): which numbers the
EMA has handed out, only the EMA knows, and a member that joins takes a code no list here
would know yet.
"""

from __future__ import annotations

import re

from app.domain.errors import MalformedInput, say

EMA_ID_LENGTH = 8
EXAMPLE_EMA_ID = "04160092"
_EMA_ID = re.compile(r"[0-9]{8}")


def check_ema_id(raw: object, field: str = "ema_id") -> str:
    """`raw` as an EMA number: a string of 8 ASCII digits whose first two (the national
    association's code) are not 00. Raises MalformedInput naming `field`."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        # 4160092 is "04160092" with its association's zero lost: say so, not "wrong length"
        raise MalformedInput(
            "CONTRACT §1",
            field,
            say(
                'must be an EMA number written as a string, such as "{example}": as a '
                "number it loses its leading zero (got {raw})",
                example=EXAMPLE_EMA_ID,
                raw=repr(raw),
            ),
        )
    if not isinstance(raw, str) or _EMA_ID.fullmatch(raw) is None:
        shown = repr(raw[:20]) if isinstance(raw, str) else repr(raw)
        raise MalformedInput(
            "CONTRACT §1",
            field,
            say(
                "must be an EMA number: 8 digits, the first two the code of the player's "
                'national association, such as "{example}"; got {raw}',
                example=EXAMPLE_EMA_ID,
                raw=shown,
            ),
        )
    if raw.startswith("00"):
        raise MalformedInput(
            "CONTRACT §1",
            field,
            say(
                "{raw} starts with 00, which is no national association's code: an EMA "
                'number starts with its association\'s code, such as 04 in "{example}"',
                raw=repr(raw),
                example=EXAMPLE_EMA_ID,
            ),
        )
    return raw
