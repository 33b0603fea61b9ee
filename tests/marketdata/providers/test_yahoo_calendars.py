"""Yahoo's calendar service (``POST /v1/finance/visualization``): the query body, the table
parser and each entity's rows, on hand-made bodies in the service's shape (no recording of
it exists: ../shared/upstream/INDEX.md), and the fetchers' paging through the client."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import responses

from marketdata.errors import UpstreamBadResponse
from marketdata.providers.yahoo import calendars
from marketdata.providers.yahoo.calendars import (
    INCLUDE_FIELDS,
    PAGE_SIZE,
    VISUALIZATION_URL,
    earnings_row,
    economic_row,
    instant,
    ipo_row,
    parse_rows,
    parse_table,
    split_row,
    visualization_query,
)
from marketdata.records.calendars import EarningsRow, EconomicRow, IpoRow, SplitRow
from marketdata.records.members import as_json


def table(columns: list[str], rows: list[list[Any]], entity: str = "sp_earnings") -> dict:
    """A body in the service's shape: column objects (id, label, type) and positional rows."""
    return {"finance": {"result": [{"documents": [{
        "entityIdType": entity,
        "columns": [{"id": c, "label": c.title(), "type": "STRING"} for c in columns],
        "rows": rows}]}], "error": None}}


EARNINGS = table(list(INCLUDE_FIELDS["sp_earnings"]), [
    ["AAPL", "Apple Inc.", 3.52e12, "Q1 2025 Earnings Call", "2025-01-30T21:30:00.000Z",
     "AMC", 2.35, 2.4, 2.13],
    ["JPM", "JPMorgan Chase & Co.", 6.9e11, None, "2025-01-15T11:45:00Z", "BMO", 4.11, None,
     None],
    ["XYZ", None, None, None, "2025-01-16T00:00:00.000Z", "TNS", None, None, None],
    [None, "No ticker", 1, None, "2025-01-16T00:00:00Z", "TAS", 1, 1, 1],  # dropped
    ["BAD", "No date", 1, None, "not a date", "TAS", 1, 1, 1],  # dropped
])


def test_query_body_is_yahoos():
    body = visualization_query("sp_earnings", "2025-03-03", "2025-03-09", offset=100,
                               region="GB", symbols=("AAPL", "MSFT"))
    assert body["entityIdType"] == "sp_earnings"
    assert body["sortField"] == "startdatetime" and body["sortType"] == "ASC"
    assert body["includeFields"] == list(INCLUDE_FIELDS["sp_earnings"])
    assert (body["offset"], body["size"]) == (100, PAGE_SIZE)
    operands = body["query"]["operands"]
    assert body["query"]["operator"] == "and"
    assert operands[0] == {"operator": "gte", "operands": ["startdatetime", "2025-03-03"]}
    # the last day is inclusive: the exclusive bound sent is the day after it
    assert operands[1] == {"operator": "lt", "operands": ["startdatetime", "2025-03-10"]}
    assert {"operator": "eq", "operands": ["region", "gb"]} in operands
    assert {"operator": "or", "operands": [
        {"operator": "eq", "operands": ["eventtype", "EAD"]},
        {"operator": "eq", "operands": ["eventtype", "ERA"]}]} in operands
    assert operands[-1] == {"operator": "or", "operands": [
        {"operator": "eq", "operands": ["ticker", "AAPL"]},
        {"operator": "eq", "operands": ["ticker", "MSFT"]}]}


def test_other_entities_have_no_region_filter():
    body = visualization_query("splits", "2025-03-03", "2025-03-09")
    assert len(body["query"]["operands"]) == 2
    assert body["includeFields"] == ["ticker", "companyshortname", "startdatetime",
                                     "optionable", "old_share_worth", "share_worth"]


def test_table_is_read_by_column_id_whatever_the_order():
    body = table(["epsactual", "ticker"], [[1.5, "AAPL"]])
    assert parse_table(body) == [{"epsactual": 1.5, "ticker": "AAPL"}]


def test_earnings_rows():
    rows = parse_rows(EARNINGS, earnings_row)
    assert rows == [
        EarningsRow("AAPL", "Apple Inc.", "2025-01-30", "AFTER_CLOSE", 2.35, 2.4, 2.13,
                    3520000000000),
        EarningsRow("JPM", "JPMorgan Chase & Co.", "2025-01-15", "BEFORE_OPEN", 4.11, None,
                    None, 690000000000),
        EarningsRow("XYZ", None, "2025-01-16", "UNKNOWN", None, None, None, None)]
    assert as_json(rows[0]) == {
        "symbol": "AAPL", "name": "Apple Inc.", "date": "2025-01-30", "timing": "AFTER_CLOSE",
        "epsEstimate": 2.35, "epsActual": 2.4, "surprisePercent": 2.13,
        "marketCap": 3520000000000}


def test_earnings_day_is_new_yorks():
    # 01:30 UTC on the 31st is the evening of the 30th in New York
    row = earnings_row({"ticker": "x", "startdatetime": "2025-01-31T01:30:00Z",
                        "startdatetimetype": "amc"})
    assert row is not None and (row.symbol, row.date, row.timing) == ("X", "2025-01-30",
                                                                      "AFTER_CLOSE")


def test_split_rows():
    body = table(list(INCLUDE_FIELDS["splits"]), [
        ["NVDA", "NVIDIA Corporation", "2024-06-10T00:00:00.000Z", "true", 1, 10],
        ["ABC", "Reverse Inc.", "2024-06-11T00:00:00Z", False, 20, 1],
        ["DEF", "Odd Co.", "2024-06-12T00:00:00Z", None, 2, 3],
        ["ZERO", "Bad", "2024-06-12T00:00:00Z", "true", 0, 2],  # dropped
    ], "splits")
    assert parse_rows(body, split_row) == [
        SplitRow("NVDA", "2024-06-10", 10, 1, "10:1", True),
        SplitRow("ABC", "2024-06-11", 1, 20, "1:20", False),
        SplitRow("DEF", "2024-06-12", 3, 2, "3:2", None)]
    assert as_json(parse_rows(body, split_row)[0]) == {
        "symbol": "NVDA", "date": "2024-06-10", "numerator": 10, "denominator": 1,
        "ratio": "10:1", "optionable": True}


def test_ipo_rows():
    body = table(list(INCLUDE_FIELDS["ipo_info"]), [
        ["CRWV", "CoreWeave, Inc.", "NASDAQ", "2025-03-03T00:00:00Z",
         "2025-03-28T00:00:00.000Z", None, 47.0, 55.0, 40.0, "USD", 37500000, "Priced"],
        [None, "Unnamed Holdings", "NYSE", None, "2025-03-31T00:00:00Z", None, "10", "12",
         None, "USD", "5,000,000", "Expected"],
        ["NODATE", "x", "NYSE", None, None, None, 1, 2, None, "USD", 1, "Filed"],  # dropped
    ], "ipo_info")
    assert parse_rows(body, ipo_row) == [
        IpoRow("CRWV", "CoreWeave, Inc.", "NASDAQ", "2025-03-28", 47.0, 55.0, 40.0, 37500000,
               "PRICED"),
        IpoRow(None, "Unnamed Holdings", "NYSE", "2025-03-31", 10.0, 12.0, None, 5000000,
               "EXPECTED")]


def test_economic_rows():
    body = table(list(INCLUDE_FIELDS["economic_event"]), [
        ["CPI YY", "us", "2025-03-12T12:30:00.000Z", "Feb", 2.8, 2.9, 3.0, None],
        ["ZEW Economic Sentiment", "DE", "2025-03-18T10:00:00Z", "Mar", None, 48.1, 26.0,
         None],
        [None, "US", "2025-03-12T12:30:00Z", "Feb", 1, 1, 1, None],  # no name: dropped
    ], "economic_event")
    assert parse_rows(body, economic_row) == [
        EconomicRow("2025-03-12", "12:30", "US", "CPI YY", "Feb", 2.8, 2.9, 3.0, None, None),
        EconomicRow("2025-03-18", "10:00", "DE", "ZEW Economic Sentiment", "Mar", None, 48.1,
                    26.0, None, None)]


@pytest.mark.parametrize(("value", "expected"), [
    ("2025-01-30T21:30:00.000Z", "2025-01-30T21:30:00+00:00"),
    ("2025-01-30T16:30:00-05:00", "2025-01-30T21:30:00+00:00"),
    ("2025-01-30", "2025-01-30T00:00:00+00:00"),
    (1738272600000, "2025-01-30T21:30:00+00:00"),  # epoch milliseconds
    (1738272600, "2025-01-30T21:30:00+00:00"),
    ("", None), (None, None), (True, None), ("soon", None), (float("nan"), None)])
def test_instants(value, expected):
    found = instant(value)
    assert (found.isoformat() if found else None) == expected


@pytest.mark.parametrize("body", [
    {"finance": {"result": None, "error": {"code": "Bad Request", "description": "invalid"}}},
    {"finance": {"result": []}}, {"finance": "x"}, {"other": {}}, [],
    {"finance": {"result": [{"documents": [{"columns": "x", "rows": []}]}]}},
    {"finance": {"result": [{"documents": "x"}]}},
])
def test_unusable_answers_are_502(body):
    with pytest.raises(UpstreamBadResponse) as caught:
        parse_table(body)
    assert caught.value.provider == "yahoo"


def test_no_documents_is_no_rows():
    assert parse_table({"finance": {"result": [{"documents": []}], "error": None}}) == []


# -- the fetchers, through the client -----------------------------------------------------------
def _calls(yahoo: Any) -> list[Any]:
    return [c for c in yahoo.mock.calls if "/v1/finance/visualization" in c.request.url]


def test_fetcher_posts_with_the_crumb_and_pages(yahoo):
    row = ["AAPL", "Apple Inc.", 1, None, "2025-01-30T21:30:00Z", "AMC", 1, None, None]
    full = table(list(INCLUDE_FIELDS["sp_earnings"]), [row] * PAGE_SIZE)
    last = table(list(INCLUDE_FIELDS["sp_earnings"]), [row] * 3)
    pattern = re.compile(re.escape(VISUALIZATION_URL) + r"(\?.*)?$")
    yahoo.mock.add(responses.POST, pattern, json=full)
    yahoo.mock.add(responses.POST, pattern, json=last)
    rows = calendars.earnings_calendar("2025-01-27", "2025-01-31", "US", ())
    assert len(rows) == PAGE_SIZE + 3
    first, second = _calls(yahoo)
    assert "crumb=" in first.request.url and "lang=en-US" in first.request.url
    assert first.request.headers["Content-Type"] == "application/json"
    assert json.loads(first.request.body)["offset"] == 0
    assert json.loads(second.request.body)["offset"] == PAGE_SIZE
    # one cache entry per window: asked again, no call
    calendars.earnings_calendar("2025-01-27", "2025-01-31", "US", ())
    assert len(_calls(yahoo)) == 2


def test_fetcher_stops_at_the_page_cap(yahoo, monkeypatch):
    monkeypatch.setattr(calendars, "MAX_PAGES", 2)
    row = ["AAPL", "Apple", "2025-01-30T00:00:00Z", "true", 1, 2]
    yahoo.mock.add(responses.POST, re.compile(re.escape(VISUALIZATION_URL) + r"(\?.*)?$"),
                   json=table(list(INCLUDE_FIELDS["splits"]), [row] * PAGE_SIZE, "splits"))
    assert len(calendars.splits_calendar("2025-01-27", "2025-01-31", ())) == 2 * PAGE_SIZE
    assert len(_calls(yahoo)) == 2
