"""Exact score arithmetic (rules SC-4, SC-5)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from app.domain.errors import say

_RATE = re.compile(r"^\s*\d{1,9}\s*(/\s*\d{1,9}\s*)?$|^\s*\d{0,9}\.\d{1,9}\s*$")
# An exact fraction as exports write a shared prize ("1000/3"): digits only, so that no
# exponent ("1e999999999") makes a number too big to hold.
_FRACTION = re.compile(r"^\s*-?\d{1,15}\s*/\s*\d{1,15}\s*$")
# A decimal amount ("1500.50") has at most this many digits either side of its point.
_DECIMAL_DIGITS = 15


def exact(value: Fraction | int) -> str:
    """The exact form of a score: a reduced fraction string such as "45/4" or "-3".

    rule SC-4: no rounding ever happens in storage or in exports.
    """
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def shown(value: Fraction | int) -> str:
    """The displayed form: 2 decimals, rounded towards minus infinity.

    rule SC-5: 10.125 shows "10.12" and -10.125 shows "-10.13".
    """
    value = Fraction(value)
    return shown_scaled(value.numerator, value.denominator)


def exact_scaled(scaled: int, denominator: int) -> str:
    """exact(Fraction(scaled, denominator)), without a Fraction when the value is whole.

    Standings rows keep their values scaled over one denominator, and the live feed reports
    a 1,000-player round after every hand: Fractions were most of that report's cost.
    """
    if denominator == 1:
        return str(scaled)
    return exact(Fraction(scaled, denominator))


def shown_scaled(scaled: int, denominator: int) -> str:
    """shown(Fraction(scaled, denominator)) in integers (denominator > 0).

    rule SC-5: floor division rounds towards minus infinity, as shown() does.
    """
    cents = scaled * 100 // denominator
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{whole}.{part:02d}"


def parse_rate(text: str) -> Fraction:
    """Parse an exact rate string such as "1/4" (or "0.25"); raises ValueError otherwise.

    Floats never reach here: a rate travels as a string so it stays exact (CONTRACT.md §1).
    """
    if not _RATE.match(text):
        raise ValueError(say('{text} is not an exact rate such as "1/4"', text=repr(text)))
    try:
        return Fraction(text.replace(" ", ""))
    except (ValueError, ZeroDivisionError) as error:
        raise ValueError(
            say('{text} is not an exact rate such as "1/4"', text=repr(text))
        ) from error


def parse_amount(raw: object) -> Fraction:
    """Prize money as an exact number: an integer, a JSON number, or a string holding a
    decimal ("1500.50") or an exact fraction ("1000/3", as exports write a shared prize).

    A JSON float is read through its shortest decimal form, so 1500.5 stays 1500.5 exactly.
    """
    if isinstance(raw, bool):
        raise ValueError(say("a prize amount is a number, not true/false"))
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, str) and "/" in raw:
        if not _FRACTION.match(raw):
            raise ValueError(
                say("{raw} is not a number such as 1500.50 or 1000/3", raw=repr(raw[:40]))
            )
        try:
            return Fraction(raw.strip())
        except (ValueError, ZeroDivisionError) as error:
            raise ValueError(say("{raw} is not a number", raw=repr(raw))) from error
    if isinstance(raw, float | str):
        try:
            decimal = Decimal(str(raw))
        except InvalidOperation as error:
            raise ValueError(say("{raw} is not a number", raw=repr(raw))) from error
        if not decimal.is_finite():
            raise ValueError(say("{raw} is not a finite number", raw=repr(raw)))
        exponent = decimal.as_tuple().exponent
        assert isinstance(exponent, int)
        if abs(decimal.adjusted()) > _DECIMAL_DIGITS or exponent < -_DECIMAL_DIGITS:
            raise ValueError(f"{raw!r} is not a sum of money (too many digits)")
        return Fraction(decimal)
    raise ValueError(say("{raw} is not a number", raw=repr(raw)))
