"""marketdata.formatting: the v1 formatted strings (reference notes section 2.2)."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime

import pytest

from marketdata import formatting as fmt

NAN = float("nan")


class TestRaw:
    @pytest.mark.parametrize(("value", "expected"), [
        ({"raw": 1.5, "fmt": "1.50"}, 1.5),
        ({"raw": 3688676720640, "fmt": "3.69T", "longFmt": "3,688,676,720,640"}, 3688676720640),
        ({"raw": -0.0011389935, "fmt": "-0.11%"}, -0.0011389935),
        ({}, None),  # Yahoo sends {} for a missing value
        ({"fmt": "N/A"}, None),
        (2.675, 2.675),
        (7, 7),
        (None, None),
        ("text", "text"),
    ])
    def test_reads_bare_and_wrapped_values(self, value, expected):
        assert fmt.raw(value) == expected

    def test_nan_is_none(self):
        assert fmt.raw(NAN) is None
        assert fmt.raw({"raw": NAN, "fmt": "NaN"}) is None

    def test_wrapped_value_formats_like_the_bare_value(self):
        assert fmt.fixed(fmt.raw({"raw": 2.675, "fmt": "2.67"})) == "2.68"
        assert fmt.percent(fmt.raw({"raw": 0.0069, "fmt": "0.69%"}), fraction=True) == "+0.69%"
        assert fmt.compact(fmt.raw({"raw": 2.5e12, "fmt": "2.5T"})) == "2.5T"


class TestFixed:
    @pytest.mark.parametrize(("value", "decimals", "commas", "expected"), [
        (1234.5, 2, False, "1234.50"),
        (1234.5, 2, True, "1,234.50"),
        (6506.48, 2, True, "6,506.48"),
        (-2388.66, 2, True, "-2,388.66"),
        (1234567.891, 2, True, "1,234,567.89"),
        (999.999, 2, True, "1,000.00"),
        (145, 2, False, "145.00"),
        (5, 0, False, "5"),
        (1.1553, 2, False, "1.16"),  # simple quotes lose FX precision (reference 2.2)
        (0.0, 2, False, "0.00"),
    ])
    def test_values(self, value, decimals, commas, expected):
        assert fmt.fixed(value, decimals, commas) == expected

    @pytest.mark.parametrize(("value", "expected"), [
        (2.675, "2.68"),   # binary float is 2.67499999..., printed half up as a person reads it
        (1.005, "1.01"),
        (2.005, "2.01"),
        (0.125, "0.13"),
        (-2.675, "-2.68"),  # half away from zero
        (1.0049, "1.00"),
    ])
    def test_half_up(self, value, expected):
        assert fmt.fixed(value) == expected

    @pytest.mark.parametrize("value", [-0.0, -0.001, -0.004999])
    def test_never_prints_negative_zero(self, value):
        assert fmt.fixed(value) == "0.00"
        assert fmt.fixed(value, commas=True) == "0.00"

    def test_none(self):
        assert fmt.fixed(None) is None

    @pytest.mark.parametrize(("value", "expected"), [
        (1e30, "1" + "0" * 30 + ".00"),
        (-1e30, "-1" + "0" * 30 + ".00"),
        (1e40, "1" + "0" * 40 + ".00"),
    ])
    def test_huge_values_do_not_raise(self, value, expected):
        # decimal's default 28-digit context cannot quantize 1e30 to 2 places
        assert fmt.fixed(value) == expected
        assert fmt.compact(value) is not None
        assert fmt.price(value) is not None

    def test_nan_is_not_printed(self):
        # raw() turns NaN into None ("no value"); the formatters must not print 'NaN'.
        assert fmt.fixed(NAN) is None

    def test_infinity_is_not_printed_and_does_not_raise(self):
        assert fmt.fixed(float("inf")) is None


class TestSigned:
    @pytest.mark.parametrize(("value", "expected"), [
        (1.0, "+1.00"),
        (0.0, "+0.00"),
        (-0.0, "+0.00"),
        (-0.004, "+0.00"),  # rounds to zero: no '-0.00'
        (-4.6, "-4.60"),
        (-0.005, "-0.01"),
        (1234.5, "+1234.50"),
    ])
    def test_signed_fixed(self, value, expected):
        assert fmt.signed_fixed(value) == expected

    def test_signed_fixed_with_commas(self):
        assert fmt.signed_fixed(2388.66, commas=True) == "+2,388.66"
        assert fmt.signed_fixed(-2388.66, commas=True) == "-2,388.66"

    @pytest.mark.parametrize(("text", "expected"), [
        ("1.00", "+1.00"), ("+1.00", "+1.00"), ("-1.00", "-1.00"), ("0.00%", "+0.00%"),
        (None, None),
    ])
    def test_signed(self, text, expected):
        assert fmt.signed(text) == expected


class TestPercent:
    @pytest.mark.parametrize(("kwargs", "value", "expected"), [
        ({}, 0.69, "+0.69%"),
        ({}, -3.12, "-3.12%"),
        ({}, 0.0, "+0.00%"),
        ({}, -0.0, "+0.00%"),
        ({}, -0.001, "+0.00%"),
        ({}, 1.2710667, "+1.27%"),
        ({}, 2.675, "+2.68%"),
        ({"fraction": True}, 0.0069, "+0.69%"),
        ({"fraction": True}, -0.0011389935, "-0.11%"),
        ({"fraction": True}, 0.0, "+0.00%"),
        ({"fraction": True}, 0.02345, "+2.35%"),  # 0.02345 * 100 == 2.3449999999999998
        ({"fraction": True}, -0.00005, "-0.01%"),
        ({"sign": False}, 0.56, "0.56%"),
        ({"sign": False}, -0.56, "-0.56%"),
        ({"decimals": 1}, 12.345, "+12.3%"),
        ({"fraction": True, "sign": False}, 0.1, "10.00%"),
    ])
    def test_values(self, kwargs, value, expected):
        assert fmt.percent(value, **kwargs) == expected

    def test_none_and_nan(self):
        assert fmt.percent(None) is None
        assert fmt.percent(NAN) is None  # not '+NaN%'


class TestCompact:
    @pytest.mark.parametrize(("value", "expected"), [
        (3688676720640, "3.69T"),
        (2.5e12, "2.5T"),
        (950.2e9, "950.2B"),
        (1.29e9, "1.29B"),
        (53197431, "53.2M"),
        (1e6, "1M"),
        (1234, "1.23k"),
        (1000, "1k"),
        (950, "950"),
        (12.345, "12.35"),
        (0, "0"),
        (-2.5e12, "-2.5T"),
        (-1234, "-1.23k"),
        (-950, "-950"),
    ])
    def test_values(self, value, expected):
        assert fmt.compact(value) == expected

    def test_decimals(self):
        assert fmt.compact(3688676720640, decimals=3) == "3.689T"
        assert fmt.compact(3688676720640, decimals=0) == "4T"

    @pytest.mark.parametrize(("value", "expected"), [
        (999_999.999, "1M"),         # rounds up to the next unit, not '1000k'
        (999_999_999, "1B"),         # not '1000M'
        (999_995_000_000, "1T"),     # not '1000B'
    ])
    def test_rounding_rolls_over_to_the_next_unit(self, value, expected):
        assert fmt.compact(value) == expected

    def test_none(self):
        assert fmt.compact(None) is None


class TestPrice:
    @pytest.mark.parametrize(("value", "hint", "expected"), [
        (6506.48, 2, "6,506.48"),
        (145, 2, "145.00"),
        (1.0489877, 4, "1.0490"),
        (1.04895, 4, "1.0490"),  # half up at the 4th decimal
        (1234.56789, 4, "1,234.5679"),
        (0.5, 0, "0.50"),       # never fewer than 2 decimals
        (1.23456789, 8, "1.23456789"),
        (1.5, None, "1.50"),
        (1.5, 9, "1.50"),       # out-of-range hint -> 2
        (1.5, -1, "1.50"),
        (-0.001, 2, "0.00"),
    ])
    def test_values(self, value, hint, expected):
        assert fmt.price(value, hint) == expected

    def test_without_commas(self):
        assert fmt.price(1234.5, 2, commas=False) == "1234.50"

    def test_none(self):
        assert fmt.price(None) is None


class TestLongDate:
    @pytest.mark.parametrize("value", [
        1707091200,                   # 2024-02-05 00:00:00 UTC
        1707177599,                   # 2024-02-05 23:59:59 UTC
        1707091200.0,
        "2024-02-05",
        "2024-02-05T13:30:00Z",
        date(2024, 2, 5),
        datetime(2024, 2, 5, 9, 30, tzinfo=UTC),
    ])
    def test_feb_05(self, value):
        assert fmt.long_date(value) == "Feb 05, 2024"

    def test_other_dates(self):
        assert fmt.long_date("2024-04-24") == "Apr 24, 2024"
        assert fmt.long_date(0) == "Jan 01, 1970"
        assert fmt.long_date("1999-12-31") == "Dec 31, 1999"

    @pytest.mark.parametrize("value", [None, "not a date", "", "2024-13-01", object(), [1]])
    def test_unusable_values(self, value):
        assert fmt.long_date(value) is None


class TestRoundHalfUp:
    @pytest.mark.parametrize(("value", "decimals", "expected"), [
        (2.675, 2, 2.68),
        (1.005, 2, 1.01),
        (2.005, 2, 2.01),
        (-2.675, 2, -2.68),
        (1.23456, 4, 1.2346),
        (75.0875015258789, 2, 75.09),
        (7, 2, 7.0),
        (0.5, 0, 1.0),
    ])
    def test_values(self, value, decimals, expected):
        result = fmt.round_half_up(value, decimals)
        assert result == expected
        assert isinstance(result, float)

    def test_negative_zero_is_positive_zero(self):
        result = fmt.round_half_up(-0.001)
        assert result == 0.0
        assert math.copysign(1.0, result) == 1.0

    def test_matches_fixed(self):
        for value in (2.675, 1.005, 0.125, 6506.475, 1.0489877):
            assert f"{fmt.round_half_up(value):.2f}" == fmt.fixed(value)


class TestPayloadReaders:
    def test_text_collapses_padding_and_blank_is_none(self):
        assert fmt.text("BAYERISCHE MOTOREN WERKE AG   S") == "BAYERISCHE MOTOREN WERKE AG S"
        assert fmt.text("  ") is None
        assert fmt.text(12) is None

    def test_text_as_sent(self):
        assert fmt.text("", clean=False) == ""
        assert fmt.text(" Buy ", clean=False) == " Buy "
        assert fmt.text(None, clean=False) is None

    def test_mapping_and_rows(self):
        assert fmt.mapping({"a": 1}) == {"a": 1}
        assert fmt.mapping([1]) == {}
        assert fmt.rows([{"a": 1}, 2, None, {"b": 2}]) == [{"a": 1}, {"b": 2}]
        assert fmt.rows({"a": 1}) == []

    def test_json_ready_renders_datetimes(self):
        import dataclasses
        from datetime import UTC, datetime

        @dataclasses.dataclass
        class Row:
            name: str
            when: datetime | None

        assert fmt.json_ready(Row("x", datetime(2024, 12, 31, tzinfo=UTC))) == {
            "name": "x", "when": "2024-12-31T00:00:00Z"}
        assert fmt.json_ready(Row("y", None)) == {"name": "y", "when": None}
