"""Reading a CSV someone sent (a registration list): the one place the server reads CSV,
so that no cell of one answers 500, whatever its length (issue 32).

Python's csv module has a cap of its own on a cell, 131,072 characters
(`csv.field_size_limit()`), and raises `csv.Error` past it: a registration CSV with a longer
cell answered 500, and the connection it came on was lost. The cap protects nothing here: a
body is bounded before anything reads it (SCOREBOARD_IMPORT_BODY_LIMIT_BYTES,
app/web/guards.py), and no cell is longer than its body. So the cap is lifted, and a long
cell meets the text bound of its column (app/domain/text.py), which names its line, its
column and the bound, as the same field sent as JSON is answered.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from app.domain.errors import LogError, MalformedInput, say

# The csv module's cap, for every reader of the process (it has one, not one per reader):
# the most a C long holds on every platform, beyond any body the server reads.
CELL_CAP = 2**31 - 1


def csv_records(text: str, rule: str = "CONTRACT §1") -> Iterator[tuple[int, list[str]]]:
    """Each record of a CSV text (Excel's dialect: commas, cells in double quotes where
    they hold one) with the line it ends on, the first line being 1: a quoted cell over
    several lines ends on its last. An empty line is a record of no cells. A byte order
    mark before the first cell (Excel writes one) is not part of it.

    A record the csv module cannot read raises LogError naming its line and `rule`."""
    csv.field_size_limit(CELL_CAP)
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as error:  # with the cap lifted, no text of a bounded body does
            unread = say("cannot be read as CSV: {error}", error=str(error))
            raise LogError(reader.line_num, MalformedInput(rule, "row", unread)) from error
        yield reader.line_num, record
