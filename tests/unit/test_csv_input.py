"""The one place the server reads a CSV (app/services/csv_input.py, issue 32): every record
with the line it ends on, a cell of any length read whole (the csv module's own cap of
131,072 characters answered 500), and a record the module cannot read refused naming its
line, never raised as csv.Error."""

from __future__ import annotations

import csv
from collections.abc import Iterator

import pytest

from app.domain.errors import LogError
from app.services import csv_input
from app.services.csv_input import csv_records

CSV_MODULE_CAP = 131_072  # csv.field_size_limit() as Python sets it


@pytest.fixture
def cap_kept() -> Iterator[None]:
    """The csv module's cap as the test found it: the process shares one."""
    kept = csv.field_size_limit()
    yield
    csv.field_size_limit(kept)


@pytest.mark.parametrize(
    ("text", "records"),
    [
        ("id,name\n1,Ann\n", [(1, ["id", "name"]), (2, ["1", "Ann"])]),
        ("\ufeffid,name\r\n1,Ann\r\n", [(1, ["id", "name"]), (2, ["1", "Ann"])]),
        # a quoted cell over two lines ends on the second; an empty line has no cells
        (
            'id,name\n1,"Ann\nLee"\n\n2,Bo',
            [(1, ["id", "name"]), (3, ["1", "Ann\nLee"]), (4, []), (5, ["2", "Bo"])],
        ),
        ("", []),
    ],
)
def test_each_record_comes_with_the_line_it_ends_on(
    text: str, records: list[tuple[int, list[str]]]
) -> None:
    assert list(csv_records(text)) == records


def test_a_cell_past_the_csv_modules_own_cap_is_read_whole(cap_kept: None) -> None:
    long = "x" * (CSV_MODULE_CAP + 1)

    assert list(csv_records(f'id,name\n1,{long}\n2,"{long}"\n')) == [
        (1, ["id", "name"]),
        (2, ["1", long]),
        (3, ["2", long]),
    ]


def test_a_record_the_csv_module_cannot_read_is_refused_naming_its_line(
    monkeypatch: pytest.MonkeyPatch, cap_kept: None
) -> None:
    monkeypatch.setattr(csv_input, "CELL_CAP", 10)

    with pytest.raises(LogError) as caught:
        list(csv_records("id,name\n1,Ann\n2,Bartholomew\n", rule="CONTRACT §1"))

    assert caught.value.line_number == 3
    assert (caught.value.violation.field, caught.value.violation.rule) == ("row", "CONTRACT §1")
    assert "cannot be read as CSV" in str(caught.value)
