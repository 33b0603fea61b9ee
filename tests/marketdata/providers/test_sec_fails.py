"""The SEC's fails-to-deliver files: the text and zip parsers in the published layout, the
half-month periods, and the sandbox's zips through the real parser."""

from __future__ import annotations

import io
import zipfile
from datetime import date

import pytest

from marketdata.errors import UpstreamBadResponse
from marketdata.providers.sec_fails import parse_fails_text, parse_fails_zip
from marketdata.records.disclosures import HalfMonth, ftd_periods, window_start
from marketdata.sandbox.sec import fails as sandbox_fails

# The layout the SEC documents: header, data lines, and the trailer some files end with.
TEXT = """SETTLEMENT DATE|CUSIP|SYMBOL|QUANTITY (FAILS)|DESCRIPTION|PRICE
20250203|037833100|AAPL|12345|APPLE INC|228.01
20250203|G0176J109|ALLO|7|ALLOGENE  THERAPEUTICS INC |3.1
20250204|037833100|AAPL|1020|APPLE INC|.
20250204|000000000||55|NO SYMBOL ROW|1.00
2025020X|037833100|AAPL|9|BAD DATE|1.00
20250205|037833100|aapl|12|APPLE INC|
20250206|037833100|AAPL|5|APPLE|INC|229.5
Trailer record count 6
"""


def zipped(text: str, name: str = "cnsfails202502a.txt") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, text.encode("latin-1"))
    return buffer.getvalue()


def test_text_rows_by_symbol_in_file_order():
    parsed = parse_fails_text(TEXT)
    assert set(parsed) == {"AAPL", "ALLO"}
    assert parsed["AAPL"] == [("2025-02-03", "037833100", 12345, 228.01, "APPLE INC"),
                              ("2025-02-04", "037833100", 1020, None, "APPLE INC"),
                              ("2025-02-05", "037833100", 12, None, "APPLE INC"),
                              ("2025-02-06", "037833100", 5, 229.5, "APPLE|INC")]
    assert parsed["ALLO"] == [("2025-02-03", "G0176J109", 7, 3.1, "ALLOGENE THERAPEUTICS INC")]


def test_zip_is_read_as_latin1():
    text = TEXT.replace("APPLE INC|228.01", "SOCIÉTÉ GÉNÉRALE|228.01")
    assert parse_fails_zip(zipped(text))["AAPL"][0][4] == "SOCIÉTÉ GÉNÉRALE"


@pytest.mark.parametrize("content", [b"<html>not found</html>", b"", zipped("a|b|c\n1|2|3\n")])
def test_anything_else_is_a_bad_answer(content):
    with pytest.raises(UpstreamBadResponse) as caught:
        parse_fails_zip(content)
    assert caught.value.provider == "sec"


def test_half_months_and_publication():
    assert HalfMonth(2025, 2, "b").last_day == date(2025, 2, 28)
    assert HalfMonth(2024, 2, "b").last_day == date(2024, 2, 29)
    assert HalfMonth(2025, 1, "a").previous() == HalfMonth(2024, 12, "b")
    # 202502a ends Feb 15: out from Mar 1 (14 days later), not on Feb 28.
    assert [p.name for p in ftd_periods(date(2025, 3, 1), 1)] == ["202502a", "202501b"]
    assert [p.name for p in ftd_periods(date(2025, 2, 28), 1)] == ["202501b", "202501a"]
    assert len(ftd_periods(date(2025, 3, 1), 12)) == 24
    assert window_start(date(2025, 3, 1), 1) == date(2025, 1, 16)


def test_sandbox_zip_through_the_real_parser():
    period = HalfMonth(2025, 1, "b")
    parsed = parse_fails_zip(sandbox_fails.zipped(period))
    assert "AAPL" in parsed and "SPY" in parsed and "KO" not in parsed
    assert set(parsed) <= set(sandbox_fails.universe())
    for rows in parsed.values():
        for day, cusip, quantity, price, description in rows:
            assert period.first_day.isoformat() <= day <= period.last_day.isoformat()
            assert len(cusip) == 9 and quantity > 0 and price > 0 and description
    assert parsed["AAPL"][0][1] == "037833100"
