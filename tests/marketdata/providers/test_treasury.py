"""The Treasury's daily par yield curve CSV: request, parsing by header, errors, TTLs.

The only recording is one ``<m:properties>`` fragment of Treasury's XML feed (2022-02-01).
No CSV answer was recorded, so the parser tests use **hand-made CSVs in the real shape**
(``Date,"1 Mo","2 Mo",...``, ``MM/DD/YYYY`` dates, newest first) carrying that fragment's
real values, plus the header variants Treasury has used over the years.
"""

from __future__ import annotations

import dataclasses
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers import treasury
from marketdata.providers.treasury import (
    CSV_URL,
    TreasuryProvider,
    field_for_header,
    iso_date,
    parse_yield_csv,
    yield_curve,
)
from marketdata.records.macro import YieldCurveRow
from marketdata.records.members import as_json, member_names
from tests.conftest import load_recording

FRAGMENT = "treasury/xml-daily_treasury_yield_curve/entry-properties-2022-02-01.fragment.xml"
# The fragment's BC_* element -> the CSV header Treasury gives that maturity.
XML_TO_HEADER = {"BC_1MONTH": "1 Mo", "BC_2MONTH": "2 Mo", "BC_3MONTH": "3 Mo",
                 "BC_4MONTH": "4 Mo", "BC_6MONTH": "6 Mo", "BC_1YEAR": "1 Yr",
                 "BC_2YEAR": "2 Yr", "BC_3YEAR": "3 Yr", "BC_5YEAR": "5 Yr", "BC_7YEAR": "7 Yr",
                 "BC_10YEAR": "10 Yr", "BC_20YEAR": "20 Yr", "BC_30YEAR": "30 Yr"}
HEADER_2022 = ["1 Mo", "2 Mo", "3 Mo", "4 Mo", "6 Mo", "1 Yr", "2 Yr", "3 Yr", "5 Yr",
               "7 Yr", "10 Yr", "20 Yr", "30 Yr"]
EXPECTED_2022_02_01 = {"date": "2022-02-01", "y1M": 0.04, "y2M": 0.10, "y3M": 0.19,
                       "y4M": None, "y6M": 0.48, "y1": 0.78, "y2": 1.18, "y3": 1.39,
                       "y5": 1.63, "y7": 1.76, "y10": 1.81, "y20": 2.19, "y30": 2.12}


def fragment_values() -> dict[str, str]:
    """Header -> value text of the recorded 2022-02-01 curve (4 Mo did not exist yet)."""
    xml = load_recording(FRAGMENT)
    found = dict(re.findall(r"<d:(BC_\w+) [^>]*>([^<]*)</d:", xml))
    return {XML_TO_HEADER[k]: v for k, v in found.items() if k in XML_TO_HEADER}


def csv_2022() -> str:
    """The 2022 file's shape: its header (4 Mo is a column from October 2022, blank before)
    and rows newest first; the 02/01 row carries the recording's values."""
    values = fragment_values()
    header = "Date," + ",".join(f'"{h}"' for h in HEADER_2022)
    recorded = "02/01/2022," + ",".join(values.get(h, "") for h in HEADER_2022)
    later = "12/30/2022,4.12,4.41,4.42,4.69,4.76,4.73,4.41,4.22,3.99,3.96,3.88,4.14,3.97"
    return "\r\n".join([header, later, recorded]) + "\r\n"


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    monkeypatch.setattr(TreasuryProvider, "config", dataclasses.replace(
        treasury.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001))


@pytest.fixture
def mock():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as m:
        yield m


def _answer(mock, year: int, body: str, status: int = 200,
            content_type: str = "text/csv; charset=utf-8") -> None:
    url = CSV_URL.format(year=year)
    mock.add(responses.GET, re.compile(re.escape(url) + r"(\?.*)?$"), body=body,
             status=status, content_type=content_type)


# ---- parsing ----------------------------------------------------------------------------------

def test_recorded_curve_in_the_csv_shape():
    rows = parse_yield_csv(csv_2022())
    assert [r.date for r in rows] == ["2022-12-30", "2022-02-01"]  # Treasury's order
    assert as_json(rows[1]) == EXPECTED_2022_02_01
    assert list(as_json(rows[1])) == list(member_names(YieldCurveRow))
    assert rows[0].y4m == 4.69


def test_columns_by_name_new_missing_and_reordered():
    # Today's header has "1.5 Month" (no member in the row): it must not shift the others.
    today = ('Date,"1 Mo","1.5 Month","2 Mo","3 Mo","4 Mo","6 Mo","1 Yr","2 Yr","3 Yr",'
             '"5 Yr","7 Yr","10 Yr","20 Yr","30 Yr"\n'
             "10/07/2025,4.20,4.18,4.10,4.02,3.95,3.81,3.65,3.58,3.59,3.72,3.90,4.15,4.71,"
             "4.72\n")
    (row,) = parse_yield_csv(today)
    assert (row.y1m, row.y2m, row.y30) == (4.20, 4.10, 4.72)
    assert row.date == "2025-10-07"
    # 1990: nine maturities; the others are null.
    nineties = ('Date,"3 Mo","6 Mo","1 Yr","2 Yr","3 Yr","5 Yr","7 Yr","10 Yr","30 Yr"\n'
                "12/31/1990,6.63,6.73,6.82,7.15,7.40,7.68,8.00,8.08,8.26\n")
    (old,) = parse_yield_csv(nineties)
    assert old.y3m == 6.63 and old.y30 == 8.26
    assert old.y1m is old.y2m is old.y4m is old.y20 is None
    # A reordered file still lands each value on its maturity.
    shuffled = '"10 Yr",Date,"2 Yr"\n3.88,12/30/2022,4.41\n'
    (row,) = parse_yield_csv(shuffled)
    assert (row.date, row.y10, row.y2) == ("2022-12-30", 3.88, 4.41)


def test_blanks_and_na_are_null_and_undated_rows_are_left_out():
    body = ('\ufeffDate,"2 Yr","30 Yr"\n03/01/2004,1.79,\n03/02/2004,N/A,4.9\n'
            "not a date,1,2\n\n02/30/2004,1,2\n03/03/2004\n")
    assert parse_yield_csv(body) == [
        YieldCurveRow("2004-03-01", y2=1.79), YieldCurveRow("2004-03-02", y30=4.9),
        YieldCurveRow("2004-03-03")]


def test_a_year_without_data_is_empty_and_a_non_csv_is_a_bad_answer():
    assert parse_yield_csv('Date,"1 Mo","2 Mo"\r\n') == []
    for body in ("", "<!DOCTYPE html><html><title>Maintenance</title></html>",
                 '"1 Mo","2 Mo"\n1,2\n'):
        with pytest.raises(UpstreamBadResponse):
            parse_yield_csv(body)


@pytest.mark.parametrize(("header", "field"), [
    ("Date", "date"), ('"1 Mo"', "y1m"), ("4 Mo", "y4m"), ("6 Months", "y6m"),
    ("1 Yr", "y1"), ("10 Year", "y10"), ("30 Yr", "y30"), ("1.5 Month", None),
    ("15 Yr", None), ("Extra", None), ("", None)])
def test_field_for_header(header, field):
    assert field_for_header(header) == field


def test_every_yield_field_is_fed_by_its_maturity():
    assert field_for_header("2 Months") == "y2m" and field_for_header("20 Years") == "y20"
    assert sorted(treasury.FIELD_BY_MATURITY.values()) == sorted(
        name for name in YieldCurveRow.__dataclass_fields__ if name != "date")


@pytest.mark.parametrize(("text", "iso"), [
    ("02/01/2022", "2022-02-01"), ("2/1/2022", "2022-02-01"), ("2022-02-01", "2022-02-01"),
    ("13/01/2022", None), ("02/30/2022", None), ("", None), ("Feb 1, 2022", None)])
def test_iso_date(text, iso):
    assert iso_date(text) == iso


# ---- the call ---------------------------------------------------------------------------------

def test_request_and_cache(mock):
    _answer(mock, 2022, csv_2022())
    assert as_json(yield_curve(2022, 2026)[1]) == EXPECTED_2022_02_01
    (call,) = mock.calls
    parts = urlsplit(call.request.url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == (
        "https://home.treasury.gov/resource-center/data-chart-center/interest-rates/"
        "daily-treasury-rates.csv/2022/all")
    assert parse_qs(parts.query) == {"type": ["daily_treasury_yield_curve"],
                                     "field_tdr_date_value": ["2022"],
                                     "submit": ["time series 1"]}
    yield_curve(2022, 2026)
    assert len(mock.calls) == 1


def test_ttl_by_year(monkeypatch):
    seen = []

    def cached(self, call, params, fetch, policy, group=None):
        seen.append(policy)
        return []

    monkeypatch.setattr(TreasuryProvider, "cached", cached)
    yield_curve(2026, 2026)
    yield_curve(2025, 2026)
    assert seen == [treasury.CURRENT_YEAR_TTL, treasury.PAST_YEAR_TTL]
    assert seen[0].ttl() == 3600 and seen[1].ttl() >= 86400


@pytest.mark.parametrize("status", [400, 403, 404])
def test_any_4xx_is_a_bad_answer_not_a_not_found(mock, status):
    _answer(mock, 2020, "<html>Page Not Found</html>", status, "text/html")
    with pytest.raises(UpstreamBadResponse) as info:
        yield_curve(2020, 2026)
    assert not isinstance(info.value, NotFound)
    assert info.value.provider == "treasury" and info.value.upstream_status == status
