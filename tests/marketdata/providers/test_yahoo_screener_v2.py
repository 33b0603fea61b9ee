"""Yahoo screeners for v2: parse_predefined on every recording (every ScreenerQuote member
exactly as sent; bare numbers become ``{raw}``), parse_custom on Yahoo's records answer,
error bodies, and the custom screen's upstream body."""

from __future__ import annotations

from typing import Any

import pytest

from marketdata.errors import UpstreamBadResponse
from marketdata.providers.yahoo.screener import (
    custom_query,
    parse_custom,
    parse_predefined,
    screener_row,
)
from marketdata.records.members import as_json, members_of
from marketdata.records.screeners import INCLUDE_FIELDS, CustomScreen, ScreenerRow, ScreenFilter

SCREENER_QUOTE_MEMBERS = tuple(m.name for m in members_of(ScreenerRow))
SCREENER_TEXT_MEMBERS = tuple(m.name for m in members_of(ScreenerRow) if "type" in m.schema)
SCREENER_NUMBER_MEMBERS = tuple(m.name for m in members_of(ScreenerRow) if "anyOf" in m.schema)

DIR = "yahoo/v1-screener-predefined"
RECORDINGS = {"day_gainers.json": ("DAY_GAINERS", 76, 1699393457948),
              "day_losers.json": ("DAY_LOSERS", 259, 1699393574578),
              "most_actives-finance-query.json": ("MOST_ACTIVES", None, 1747133602605)}


def _quotes(payload: dict[str, Any]) -> list[dict[str, Any]]:
    result = payload["finance"]["result"][0] if "finance" in payload else payload
    return result["quotes"]


@pytest.mark.parametrize("name", sorted(RECORDINGS))
def test_every_recording(recording, name):
    payload = recording(f"{DIR}/{name}")
    found = parse_predefined(payload)
    kind, total, updated = RECORDINGS[name]
    assert (found.type, found.total, found.last_updated) == (kind, total, updated)
    assert found.description and found.description.startswith("Discover the ")
    sent = _quotes(payload)
    assert [row.symbol for row in found.quotes] == [q["symbol"] for q in sent]
    for row, quote in zip(as_json(found.quotes), sent, strict=True):
        assert tuple(row) == SCREENER_QUOTE_MEMBERS
        for member in SCREENER_TEXT_MEMBERS:
            assert row[member] == quote.get(member), member
        for member in SCREENER_NUMBER_MEMBERS:
            want = {"raw": quote[member]} if member in quote else None
            assert row[member] == want, member


def test_first_actives_row(recording):
    row = as_json(parse_predefined(recording(f"{DIR}/most_actives-finance-query.json")).quotes[0])
    assert row["symbol"] == "AAL" and row["shortName"] == "American Airlines Group, Inc."
    assert row["regularMarketVolume"] == {"raw": 152888435}
    assert row["postMarketPrice"] == {"raw": 14.99} and row["preMarketPrice"] is None


def test_formatted_values_keep_fmt_and_long_fmt():
    row = as_json(screener_row({"symbol": " msft ", "marketCap": {"raw": 3.1e12, "fmt": "3.1T",
                                                          "longFmt": "3,100,000,000,000"},
                        "bid": {"raw": None, "fmt": "-"}, "ask": True, "currency": "",
                        "regularMarketPrice": {"raw": 410.5, "fmt": "410.50", "x": 1}}))
    assert row is not None and row["symbol"] == "MSFT"
    assert row["marketCap"] == {"raw": 3.1e12, "fmt": "3.1T", "longFmt": "3,100,000,000,000"}
    assert row["regularMarketPrice"] == {"raw": 410.5, "fmt": "410.50"}
    assert row["bid"] is None and row["ask"] is None and row["currency"] is None
    assert screener_row({"shortName": "no symbol"}) is None and screener_row([1]) is None


@pytest.mark.parametrize("payload", [
    {"finance": {"result": None, "error": {"code": "Bad", "description": "nope"}}},
    {"finance": {"result": [], "error": None}},
    {"finance": {"result": [{"quotes": "x"}], "error": None}},
    {"finance": "x"},
    [],
])
def test_bad_predefined_bodies_are_502(payload):
    with pytest.raises(UpstreamBadResponse):
        parse_predefined(payload)


def test_custom_records():
    found = parse_custom({"finance": {"result": [{"total": 9, "records": [
        {"ticker": "vfiax", "companyshortname": "Vanguard 500",
         "intradayprice": {"raw": 540.1, "fmt": "540.10"}, "categoryname": "Large Blend",
         "intradaypricechange": -1.5},
        {"ticker": "FXAIX"},
        {"intradayprice": 3}]}], "error": None}}, "MUTUALFUND")
    assert (found.type, found.total, found.last_updated) == ("custom", 9, None)
    first, second = as_json(found.quotes)
    assert (first["symbol"], first["shortName"], first["quoteType"]) == (
        "VFIAX", "Vanguard 500", "MUTUALFUND")
    assert first["regularMarketPrice"] == {"raw": 540.1, "fmt": "540.10"}
    assert first["regularMarketChange"] == {"raw": -1.5}
    assert (second["symbol"], second["shortName"], second["regularMarketPrice"]) == (
        "FXAIX", "FXAIX", None)


def test_custom_quotes_answer_and_errors():
    found = parse_custom({"finance": {"result": [{"quotes": [
        {"symbol": "AAPL", "regularMarketPrice": 1.0}]}], "error": None}}, "EQUITY")
    assert found.quotes[0].regular_market_price == {"raw": 1.0} and found.total is None
    with pytest.raises(UpstreamBadResponse):
        parse_custom({"finance": {"result": [{"count": 0}], "error": None}}, "EQUITY")
    with pytest.raises(UpstreamBadResponse):
        parse_custom({"finance": {"result": None, "error": {"code": "x"}}}, "EQUITY")


def test_custom_query_body():
    screen = CustomScreen("MUTUALFUND", 10, 20, "ASC", "intradayprice", (
        ScreenFilter("categoryname", "eq", "Large Growth"),
        ScreenFilter("intradayprice", "btwn", (10, 200))))
    assert custom_query(screen) == {
        "size": 10, "offset": 20, "sortType": "ASC", "sortField": "intradayprice",
        "includeFields": list(INCLUDE_FIELDS["MUTUALFUND"]), "topOperator": "and",
        "query": {"operator": "and", "operands": [
            {"operator": "eq", "operands": ["categoryname", "Large Growth"]},
            {"operator": "btwn", "operands": ["intradayprice", 10, 200]}]},
        "quoteType": "MUTUALFUND"}
    assert screen.canonical() != CustomScreen().canonical()
    assert CustomScreen().canonical() == CustomScreen().canonical()
