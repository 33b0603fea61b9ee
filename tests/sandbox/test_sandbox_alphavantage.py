"""The simulated Alpha Vantage: OVERVIEW and EARNINGS in its shapes (strings, "None"),
deterministic, agreeing with the sandbox's Yahoo (names, sectors, reported quarters), US
stocks only, its 200 notices for keys, routing by host; and the FMP sandbox's
/stable/earnings."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from marketdata.providers import alphavantage
from marketdata.providers.yahoo.analysis import parse_earnings_history
from marketdata.providers.yahoo.profile import parse_company_profile
from marketdata.providers.yahoo.quote_summary import parse_quote_summary
from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.registry import PROVIDERS

HOST = "www.alphavantage.co"
CLOCK = datetime(2026, 11, 20, 22, 30, tzinfo=UTC)
KEY = "sandbox-av-key"


def make() -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: CLOCK)


def get(sb: UpstreamSandbox, function: str, symbol: str | None = "AAPL",
        key: str | None = KEY) -> tuple[int, Any]:
    params = {"function": [function]}
    if symbol is not None:
        params["symbol"] = [symbol]
    if key is not None:
        params["apikey"] = [key]
    answer = sb.handle("GET", HOST, "/query", params, {})
    return answer.status, json.loads(answer.body)


def crumb(sb: UpstreamSandbox) -> str:
    first = sb.handle("GET", "fc.yahoo.com", "/", {}, {})
    cookie = first.headers["Set-Cookie"].split(";")[0]
    return sb.handle("GET", "query1.finance.yahoo.com", "/v1/test/getcrumb", {},
                     {"Cookie": cookie}).body.decode()


def yahoo_modules(sb: UpstreamSandbox, symbol: str, modules: str) -> dict[str, Any]:
    answer = sb.handle("GET", "query2.finance.yahoo.com", f"/v10/finance/quoteSummary/{symbol}",
                       {"modules": [modules], "formatted": ["false"], "crumb": [crumb(sb)]},
                       {})
    return parse_quote_summary(json.loads(answer.body))


def test_registered():
    assert any(factory.__module__.endswith("alphavantage.router") for factory in PROVIDERS)


def test_overview_agrees_with_yahoo_and_is_deterministic():
    sb = make()
    status, body = get(sb, "OVERVIEW")
    assert status == 200 and all(isinstance(v, str) for v in body.values())
    assert body["EBITDA"] == "None" and body["Country"] == "USA"
    assert get(make(), "OVERVIEW") == (status, body)
    profile = alphavantage.parse_overview(body, "AAPL")
    yahoo = parse_company_profile(yahoo_modules(sb, "AAPL", "assetProfile,price"), "AAPL")
    assert profile.name == yahoo.name == "Apple Inc."
    assert profile.sector == yahoo.sector.upper() and profile.industry == yahoo.industry.upper()
    assert profile.description == yahoo.description and profile.website == yahoo.website
    assert profile.market_capitalization == yahoo.market_capitalization
    assert profile.exchange == "NASDAQ" and profile.asset_type == "Common Stock"


def test_earnings_are_the_yahoo_sandbox_quarters():
    sb = make()
    status, body = get(sb, "EARNINGS")
    assert status == 200 and body["symbol"] == "AAPL"
    quarters = body["quarterlyEarnings"]
    assert set(quarters[0]) == {"fiscalDateEnding", "reportedDate", "reportedEPS",
                                "estimatedEPS", "surprise", "surprisePercentage",
                                "reportTime"}
    assert all(q["reportedDate"] > q["fiscalDateEnding"] for q in quarters)
    ours = alphavantage.parse_earnings(body, "AAPL")
    yahoo = parse_earnings_history(yahoo_modules(sb, "AAPL", "earningsHistory")
                                   ["earningsHistory"])[::-1]
    assert [(r.date, r.eps_actual, r.eps_estimate) for r in ours] == \
        [(r.date, r.eps_actual, r.eps_estimate) for r in yahoo]


@pytest.mark.parametrize("symbol", ["SPY", "SAP.DE", "7203.T", "^GSPC", "BTC-USD", "ZZZZ"])
@pytest.mark.parametrize("function", ["OVERVIEW", "EARNINGS"])
def test_only_us_stocks(symbol, function):
    assert get(make(), function, symbol) == (200, {})


@pytest.mark.parametrize(("key", "member", "words"), [
    (None, "Error Message", "apikey is invalid or missing"),
    ("INVALID-x", "Error Message", "apikey is invalid or missing"),
    ("x-LIMIT", "Information", "25 requests per day"),
    ("PREMIUM", "Information", "premium endpoint"),
])
def test_key_notices_are_200s(key, member, words):
    status, body = get(make(), "OVERVIEW", key=key)
    assert status == 200 and list(body) == [member] and words in body[member]


def test_errors_in_its_words():
    assert get(make(), "OVERVIEW", symbol=None)[1]["Error Message"].startswith(
        "Invalid API call")
    assert "does not exist" in get(make(), "NOPE")[1]["Error Message"]


def test_fmp_earnings_rows():
    sb = make()
    answer = sb.handle("GET", "financialmodelingprep.com", "/stable/earnings",
                       {"symbol": ["AAPL"], "apikey": ["k"]}, {})
    rows = json.loads(answer.body)
    assert answer.status == 200 and rows[0]["epsActual"] is None  # the upcoming report
    assert set(rows[1]) == {"symbol", "date", "epsActual", "epsEstimated", "revenueActual",
                            "revenueEstimated", "lastUpdated"}
    dates = [row["date"] for row in rows]
    assert dates == sorted(dates, reverse=True)
    spy = sb.handle("GET", "financialmodelingprep.com", "/stable/earnings",
                    {"symbol": ["SPY"], "apikey": ["k"]}, {})
    assert json.loads(spy.body) == []
