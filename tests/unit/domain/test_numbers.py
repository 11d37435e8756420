"""Exact score arithmetic and its shown form (rules SC-4, SC-5)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.numbers import exact, exact_scaled, parse_rate, shown, shown_scaled


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param(Fraction(45, 4), "45/4", id="SC-4 a quarter fraction"),
        pytest.param(Fraction(90, 8), "45/4", id="SC-4 reduced"),
        pytest.param(Fraction(-6, 2), "-3", id="SC-4 a whole negative number has no denominator"),
        pytest.param(Fraction(0), "0", id="SC-4 zero"),
        pytest.param(0, "0", id="SC-4 int zero"),
        pytest.param(120, "120", id="SC-4 int"),
        pytest.param(Fraction(-1, 3), "-1/3", id="SC-4 negative fraction keeps its sign in front"),
        pytest.param(Fraction(89, 16), "89/16", id="SC-4 a carry-in after two rounds"),
    ],
)
def test_exact(value: Fraction | int, text: str) -> None:
    assert exact(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param(Fraction(81, 8), "10.12", id="SC-5 10.125 rounds down"),
        pytest.param(Fraction(-81, 8), "-10.13", id="SC-5 -10.125 rounds towards minus infinity"),
        pytest.param(Fraction(-1, 1000), "-0.01", id="SC-5 -0.001 shows -0.01"),
        pytest.param(Fraction(1, 1000), "0.00", id="SC-5 0.001 shows 0.00"),
        pytest.param(0, "0.00", id="SC-5 zero"),
        pytest.param(Fraction(1, 3), "0.33", id="SC-5 one third"),
        pytest.param(Fraction(-1, 3), "-0.34", id="SC-5 minus one third"),
        pytest.param(Fraction(2, 3), "0.66", id="SC-5 two thirds round down not to nearest"),
        pytest.param(Fraction(1999, 200), "9.99", id="SC-5 9.995"),
        pytest.param(Fraction(-1, 100), "-0.01", id="SC-5 exactly -0.01"),
        pytest.param(120, "120.00", id="SC-5 whole"),
        pytest.param(-5, "-5.00", id="SC-5 whole negative"),
        pytest.param(Fraction(-1, 2), "-0.50", id="SC-5 minus a half"),
        pytest.param(Fraction(89, 16), "5.56", id="SC-5 89/16 = 5.5625"),
    ],
)
def test_shown(value: Fraction | int, text: str) -> None:
    assert shown(value) == text


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        pytest.param("1/4", Fraction(1, 4), id="SC-3 the default rate"),
        pytest.param("1/3", Fraction(1, 3), id="SC-3 an organizer's rate"),
        pytest.param("0.25", Fraction(1, 4), id="SC-3 a decimal rate is exact"),
        pytest.param("2/8", Fraction(1, 4), id="SC-3 unreduced"),
        pytest.param("0", Fraction(0), id="SC-3 zero"),
        pytest.param("1", Fraction(1), id="SC-3 whole"),
    ],
)
def test_parse_rate(text: str, rate: Fraction) -> None:
    assert parse_rate(text) == rate


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("abc", id="SC-3 not a number"),
        pytest.param("1/0", id="SC-3 division by zero"),
        pytest.param("-1/4", id="SC-3 negative"),
        pytest.param("", id="SC-3 empty"),
        pytest.param("1/4/2", id="SC-3 two slashes"),
        pytest.param("1e-1", id="SC-3 exponent"),
    ],
)
def test_parse_rate_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="is not an exact rate"):
        parse_rate(text)


@given(st.integers(-(10**9), 10**9), st.integers(1, 4096))
def test_scaled_forms_are_those_of_the_fraction(scaled: int, denominator: int) -> None:
    """rules SC-4, SC-5: the standings report's fast forms say what exact() and shown() say."""
    value = Fraction(scaled, denominator)
    assert exact_scaled(scaled, denominator) == exact(value)
    assert shown_scaled(scaled, denominator) == shown(value)
