"""The sandbox's screeners beyond the day's movers: every predefined id (equity and fund),
and POST /v1/finance/screener (a custom screen): filtering, sorting, paging, records, its
400s, determinism."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from marketdata.records.screeners import EQUITY_FIELDS, FUND_FIELDS, PREDEFINED
from marketdata.sandbox import SandboxResponse, UpstreamSandbox
from marketdata.sandbox.yahoo.screener import SCREENERS, fund_universe
from tests.sandbox.test_sandbox_screener import crumb_for, get, result

REGULAR = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)


def make() -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: REGULAR)


def screen(sb: UpstreamSandbox, body: Any) -> SandboxResponse:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return sb.handle("POST", "query1.finance.yahoo.com", "/v1/finance/screener",
                     {"crumb": [crumb_for(sb)], "useRecordsResponse": ["true"]},
                     {"Content-Type": "application/json"}, raw)


def test_every_predefined_id_has_a_sandbox_screener():
    assert {p.scr_id.upper() for p in PREDEFINED} == set(SCREENERS)


@pytest.mark.parametrize("scr_id", sorted(SCREENERS))
def test_every_predefined_screener_answers(scr_id):
    got = result(get(make(), scrIds=scr_id.lower(), count="4"))
    assert got["canonicalName"] == scr_id and 1 <= got["count"] <= 4
    want = SCREENERS[scr_id].quote_type
    assert {q["quoteType"] for q in got["quotes"]} == {want}
    assert got["criteriaMeta"]["quoteType"] == want


def test_fund_universe_is_mutual_funds():
    funds = fund_universe()
    assert len(funds) == len(set(funds)) == 60 and funds[:3] == ("VFIAX", "FXAIX", "VTSAX")


def test_custom_screen_filters_sorts_and_pages():
    sb = make()
    body = {"size": 5, "offset": 0, "sortType": "DESC", "sortField": "percentchange",
            "quoteType": "EQUITY", "includeFields": ["ticker", "percentchange", "beta", "nope"],
            "query": {"operator": "and", "operands": [
                {"operator": "gt", "operands": ["percentchange", 0]},
                {"operator": "btwn", "operands": ["beta", 0.5, 1.8]}]}}
    first = result(screen(sb, body))
    records = first["records"]
    assert first["count"] == 5 and first["total"] > 5
    assert all(set(r) == {"ticker", "percentchange", "beta"} for r in records)
    changes = [r["percentchange"]["raw"] for r in records]
    assert changes == sorted(changes, reverse=True) and min(changes) > 0
    assert all(0.5 <= r["beta"]["raw"] <= 1.8 for r in records)
    second = result(screen(sb, {**body, "offset": 5}))["records"]
    assert second[0]["percentchange"]["raw"] <= changes[-1]
    assert result(screen(make(), body)) == first  # deterministic


def test_custom_fund_screen():
    got = result(screen(make(), {"quoteType": "MUTUALFUND", "sortField": "ticker",
                                 "sortType": "ASC", "size": 250,
                                 "includeFields": list(FUND_FIELDS)}))
    tickers = [r["ticker"] for r in got["records"]]
    assert tickers == sorted(tickers) and got["total"] == len(tickers) == 60
    assert set(got["records"][0]) == set(FUND_FIELDS)


@pytest.mark.parametrize("body", [
    b"{", b"[]", {"quoteType": "ETF"}, {"size": -1}, {"sortField": "nope"},
    {"sortType": "sideways"}, {"query": {"operator": "or", "operands": []}},
    {"query": {"operator": "and", "operands": [{"operator": "gt", "operands": ["nope", 1]}]}},
    {"query": {"operator": "and", "operands": [{"operator": "gt",
                                                "operands": ["sector", 1]}]}},
    {"query": {"operator": "and", "operands": [{"operator": "btwn",
                                                "operands": ["beta", 1]}]}},
    {"query": {"operator": "and", "operands": [{"operator": "like",
                                                "operands": ["beta", 1]}]}},
])
def test_bad_screens_are_400(body):
    response = screen(make(), body)
    assert response.status == 400
    assert json.loads(response.body)["finance"]["error"]["code"] == "Bad Request"


def test_every_equity_field_has_a_value():
    got = result(screen(make(), {"size": 3, "includeFields": list(EQUITY_FIELDS),
                                 "sortField": "intradaymarketcap"}))
    for record in got["records"]:
        assert set(record) == set(EQUITY_FIELDS)
        assert all(v is not None for v in record.values()), record
