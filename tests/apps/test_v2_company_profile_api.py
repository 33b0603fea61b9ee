"""GET /v2/company-profile/{symbol}: Yahoo's recordings through the endpoint (values exact),
Alpha Vantage first with its key (and the fallbacks when it refuses, is spent, fails or does
not cover the symbol), the statuses, fields, the sandbox for an equity, an ETF and a
non-US listing, and /v2/health naming the key."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
import responses

from marketdata.capabilities import table as sources
from marketdata.providers import alphavantage
from marketdata.records.companies import CompanyProfile
from marketdata.records.members import member_names
from tests.apps.payloads import FAILURES, QUERY2, fail_url
from tests.conftest import calls_to

QS = "yahoo/v10-quoteSummary"
AV_URL = "https://www.alphavantage.co/query"
KEY = "av-k3y-0123456789abcdefSECRET"
AV_OVERVIEW = {
    "Symbol": "AAPL", "AssetType": "Common Stock", "Name": "Apple Inc",
    "Description": "Apple Inc. designs smartphones.", "CIK": "320193", "Exchange": "NASDAQ",
    "Currency": "USD", "Country": "USA", "Sector": "TECHNOLOGY",
    "Industry": "ELECTRONIC COMPUTERS", "Address": "ONE APPLE PARK WAY, CUPERTINO, CA, US",
    "OfficialSite": "https://www.apple.com", "MarketCapitalization": "3688676720640",
    "EBITDA": "None",
}


@pytest.fixture(autouse=True)
def _no_key_fast_av(settings, monkeypatch):
    settings.ALPHAVANTAGE_API_KEY = ""
    sources.reset_warnings()
    fast = dataclasses.replace(alphavantage.PROVIDER, backoff_seconds=0.001,
                               backoff_max_seconds=0.001)
    monkeypatch.setattr(alphavantage.AlphaVantageProvider, "config", fast)
    monkeypatch.setattr(alphavantage, "MIN_INTERVAL_SECONDS", 0.0)


@pytest.fixture
def keyed(settings):
    settings.ALPHAVANTAGE_API_KEY = KEY
    return settings


def merged(recording: Any, symbol: str, modules: tuple[str, ...]) -> dict[str, Any]:
    """One quoteSummary answer holding each module's recording of ``symbol``."""
    result: dict[str, Any] = {}
    for module in modules:
        body = recording(f"{QS}/{module}/{symbol}.json")
        result.update(body["quoteSummary"]["result"][0])
    return {"quoteSummary": {"result": [result], "error": None}}


def av_serve(yahoo, body: Any, status: int = 200) -> None:
    yahoo.mock.add(responses.GET, re.compile(re.escape(AV_URL) + r"(\?.*)?$"),
                   body=json.dumps(body), status=status, content_type="application/json")


def av_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "alphavantage.co/query")


def summary_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/v10/finance/quoteSummary/")


def test_company_from_yahoo_recordings(api, yahoo, recording):
    payload = merged(recording, "AAPL", ("assetProfile", "price", "quoteType"))
    yahoo.summary("AAPL", payload)
    response = api.get("/v2/company-profile/aapl")
    assert response.status_code == 200, response.content
    asset = payload["quoteSummary"]["result"][0]["assetProfile"]
    assert response.json() == {
        "symbol": "AAPL", "name": "Apple Inc.", "description": asset["longBusinessSummary"],
        "assetType": "EQUITY", "exchange": "NasdaqGS", "currency": "USD",
        "country": "United States", "sector": "Technology",
        "industry": "Consumer Electronics", "marketCapitalization": 3688676720640,
        "website": "https://www.apple.com", "phone": "(408) 996-1010",
        "address": "One Apple Park Way, Cupertino, CA 95014", "employees": 150000,
        "fundFamily": None, "fundCategory": None}
    assert list(response.json()) == list(member_names(CompanyProfile))
    (call,) = summary_calls(yahoo)
    assert "modules=assetProfile%2CsummaryProfile%2CfundProfile%2Cprice%2CquoteType" in \
        call.request.url
    assert not av_calls(yahoo)


def test_summary_profile_recording(api, yahoo, recording):
    yahoo.summary("AAPL", merged(recording, "AAPL", ("summaryProfile",)))
    body = api.get("/v2/company-profile/AAPL").json()
    assert (body["sector"], body["industry"], body["employees"], body["website"]) == (
        "Technology", "Consumer Electronics", 150000, "https://www.apple.com")
    assert body["name"] is None and body["marketCapitalization"] is None


def test_fund_serves_what_exists(api, yahoo, recording):
    yahoo.summary("QQQ", recording(f"{QS}/_all-modules/QQQ.json"))
    body = api.get("/v2/company-profile/QQQ").json()
    assert body["name"] == "Invesco QQQ Trust" and body["assetType"] == "ETF"
    assert body["exchange"] == "NasdaqGM" and body["marketCapitalization"] == 206817771520
    assert body["description"].startswith("To maintain the correspondence")
    assert (body["fundFamily"], body["fundCategory"]) == ("Invesco", "Large Growth")
    assert body["sector"] is body["industry"] is body["address"] is body["employees"] is None


def test_listing_outside_the_us(api, yahoo, recording):
    yahoo.summary("OCDO.L", merged(recording, "OCDO.L", ("assetProfile",)))
    body = api.get("/v2/company-profile/OCDO.L").json()
    assert (body["symbol"], body["country"], body["sector"], body["employees"]) == (
        "OCDO.L", "United Kingdom", "Consumer Defensive", 18869)


def test_fields(api, yahoo, recording):
    yahoo.summary("AAPL", merged(recording, "AAPL", ("assetProfile", "price", "quoteType")))
    body = api.get("/v2/company-profile/AAPL?fields=sector, name,nope").json()
    assert body == {"name": "Apple Inc.", "sector": "Technology"}


def test_unknown_symbol_is_404(api, yahoo):
    yahoo.summary("NOPE", {"quoteSummary": {"result": None, "error": {
        "code": "Not Found", "description": "Quote not found for symbol: NOPE"}}}, status=404)
    response = api.get("/v2/company-profile/NOPE")
    assert response.status_code == 404
    assert set(response.json()) == {"error", "status"} and response.json()["status"] == 404


@pytest.mark.parametrize("symbol", ["AA%20PL", "A" * 40, "%24%24%24"])
def test_malformed_symbol_is_404_without_a_call(api, yahoo, symbol):
    response = api.get(f"/v2/company-profile/{symbol}")
    assert response.status_code == 404
    assert not summary_calls(yahoo)


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, f"{QUERY2}/v10/finance/quoteSummary/AAPL", kind)
    status, _ = FAILURES[kind]
    response = api.get("/v2/company-profile/AAPL")
    assert response.status_code == status
    assert response.json()["provider"] == "yahoo"


# -- Alpha Vantage first with its key ------------------------------------------------------------
def test_alpha_vantage_first_with_its_key(api, yahoo, keyed):
    av_serve(yahoo, AV_OVERVIEW)
    response = api.get("/v2/company-profile/AAPL")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "symbol": "AAPL", "name": "Apple Inc", "description": "Apple Inc. designs smartphones.",
        "assetType": "Common Stock", "exchange": "NASDAQ", "currency": "USD",
        "country": "USA", "sector": "TECHNOLOGY", "industry": "ELECTRONIC COMPUTERS",
        "marketCapitalization": 3688676720640, "website": "https://www.apple.com",
        "phone": None, "address": "ONE APPLE PARK WAY, CUPERTINO, CA, US", "employees": None,
        "fundFamily": None, "fundCategory": None}
    assert not summary_calls(yahoo)
    assert KEY.encode() not in response.content


@pytest.mark.parametrize("body", [
    {},  # a symbol Alpha Vantage does not cover
    {"Error Message": "the parameter apikey is invalid or missing."},
    {"Information": "Our standard API rate limit is 25 requests per day."},
    {"Error Message": "Invalid API call. Please retry."},
])
def test_alpha_vantage_passes_on_to_yahoo(api, yahoo, recording, keyed, body):
    av_serve(yahoo, body)
    yahoo.summary("QQQ", recording(f"{QS}/_all-modules/QQQ.json"))
    response = api.get("/v2/company-profile/QQQ")
    assert response.status_code == 200
    assert response.json()["assetType"] == "ETF"
    assert len(av_calls(yahoo)) == 1 and len(summary_calls(yahoo)) == 1


def test_alpha_vantage_failure_falls_back(api, yahoo, recording, keyed):
    fail_url(yahoo.mock, AV_URL, "yahoo_500")
    yahoo.summary("AAPL", merged(recording, "AAPL", ("assetProfile", "price", "quoteType")))
    assert api.get("/v2/company-profile/AAPL").json()["sector"] == "Technology"


def test_both_failing_names_the_first_failure(api, yahoo, keyed):
    av_serve(yahoo, {"Note": "Our standard API call frequency is 5 calls per minute."})
    fail_url(yahoo.mock, f"{QUERY2}/v10/finance/quoteSummary/AAPL", "timeout")
    response = api.get("/v2/company-profile/AAPL")
    assert response.status_code == 429
    assert response.json()["provider"] == "alphavantage"


def test_unknown_to_both_is_404(api, yahoo, keyed):
    av_serve(yahoo, {})
    yahoo.summary("NOPE", {"quoteSummary": {"result": None, "error": {
        "code": "Not Found", "description": "Quote not found for symbol: NOPE"}}}, status=404)
    assert api.get("/v2/company-profile/NOPE").status_code == 404


# -- the sandbox --------------------------------------------------------------------------------
@pytest.mark.parametrize(("symbol", "kind", "sector"), [
    ("AAPL", "EQUITY", "Technology"), ("SPY", "ETF", None), ("SAP.DE", "EQUITY", "Real Estate")])
def test_through_the_sandbox(api, sandbox_upstream, symbol, kind, sector):
    body = api.get(f"/v2/company-profile/{symbol}").json()
    assert body["symbol"] == symbol and body["assetType"] == kind
    assert body["sector"] == sector and body["name"] and body["description"]
    assert body["currency"] == ("EUR" if symbol == "SAP.DE" else "USD")
    if kind == "ETF":
        assert body["fundFamily"] and body["address"] is None


@pytest.mark.parametrize(("symbol", "kind"), [("AAPL", "Common Stock"), ("SPY", "ETF"),
                                              ("SAP.DE", "EQUITY")])
def test_through_the_sandbox_with_a_key(api, sandbox_upstream, keyed, symbol, kind):
    body = api.get(f"/v2/company-profile/{symbol}").json()
    assert body["assetType"] == kind  # AAPL from Alpha Vantage, the others from Yahoo


def test_unknown_symbol_in_the_sandbox_is_404(api, sandbox_upstream):
    assert api.get("/v2/company-profile/ZZZZQ").status_code == 404


# -- /v2/health names the key -------------------------------------------------------------------
def test_health_names_the_key(api, settings):
    notices = api.get("/v2/health").json()["notices"]
    profile = next(n for n in notices if n.startswith("Company profiles"))
    assert "Yahoo Finance quoteSummary profile modules" in profile
    assert "set ALPHAVANTAGE_API_KEY to use Alpha Vantage OVERVIEW first" in profile
    settings.ALPHAVANTAGE_API_KEY = KEY
    notices = api.get("/v2/health").json()["notices"]
    profile = next(n for n in notices if n.startswith("Company profiles"))
    assert profile.startswith("Company profiles (/v2/company-profile/{symbol}): Alpha Vantage "
                              "OVERVIEW (ALPHAVANTAGE_API_KEY set)")
    assert not any(KEY in n for n in notices)
