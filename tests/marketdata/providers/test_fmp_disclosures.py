"""FMP's fails-to-deliver (legacy /api/v4) and congressional trades parsers, on bodies in
FMP's documented shapes (no recording exists), and the sandbox's bodies through them."""

from __future__ import annotations

import pytest

from marketdata.errors import CredentialsRejected, UpstreamBadResponse
from marketdata.providers.fmp import parse_congressional_trades, parse_fails_to_deliver
from marketdata.records.members import as_json

FTD = [
    {"symbol": "AAPL", "date": "2025-01-31", "price": 237.59, "quantity": 77,
     "cusip": "037833100", "name": "APPLE INC"},
    {"symbol": "AAPL", "date": "2025-02-14 00:00:00", "price": None, "quantity": 1020.0,
     "cusip": "037833100", "name": ""},
]
SENATE = [{
    "symbol": "AAPL", "disclosureDate": "2025-01-08", "transactionDate": "2024-12-19",
    "firstName": "Markwayne", "lastName": "Mullin", "office": "Markwayne Mullin",
    "district": "OK", "owner": "Self", "assetDescription": "Apple Inc", "assetType": "Stock",
    "type": "Sale (Partial)", "amount": "$15,001 - $50,000", "capitalGainsOver200USD": "False",
    "comment": "", "link": "https://efdsearch.senate.gov/search/view/ptr/e37322e3/"}, "junk"]


def test_fails_rows_newest_first():
    rows = parse_fails_to_deliver(FTD, "AAPL")
    assert [as_json(r) for r in rows] == [
        {"symbol": "AAPL", "date": "2025-02-14", "quantity": 1020, "price": None, "name": None,
         "description": None, "cusip": "037833100"},
        {"symbol": "AAPL", "date": "2025-01-31", "quantity": 77, "price": 237.59,
         "name": "APPLE INC", "description": "APPLE INC", "cusip": "037833100"},
    ]
    assert parse_fails_to_deliver([], "AAPL") == []


def test_trades_rows_in_fmp_order():
    (row,) = parse_congressional_trades(SENATE, "AAPL", "senate")
    assert as_json(row) == {
        "symbol": "AAPL", "chamber": "senate", "firstName": "Markwayne", "lastName": "Mullin",
        "office": "Markwayne Mullin", "district": "OK", "tradeType": "Sale (Partial)",
        "amount": "$15,001 - $50,000", "assetDescription": "Apple Inc", "assetType": "Stock",
        "owner": "Self", "transactionDate": "2024-12-19", "disclosureDate": "2025-01-08",
        "link": "https://efdsearch.senate.gov/search/view/ptr/e37322e3/"}


def test_refusal_in_a_200_body_and_other_bodies():
    with pytest.raises(CredentialsRejected):
        parse_congressional_trades({"Error Message": "Invalid API KEY."}, "AAPL", "house")
    with pytest.raises(UpstreamBadResponse):
        parse_fails_to_deliver({"unexpected": 1}, "AAPL")
