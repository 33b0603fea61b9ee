"""Alpha Vantage: the parsers (OVERVIEW, EARNINGS), the request (URL, parameters, the key
as ``apikey``), how its 200 bodies are read (a refused key, a spent allowance, an unknown
symbol), no key no call, the refusal memory, pacing, and the sandbox package through the
real parsers.

No Alpha Vantage recording exists here: the bodies are hand-written in the shapes Alpha
Vantage's documentation shows (flat objects of strings; ``{"Error Message"|"Information"|
"Note": ...}`` notices).
"""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from marketdata.errors import (
    CredentialsRejected,
    NotFound,
    NotServed,
    UpstreamBadResponse,
    UpstreamRateLimited,
)
from marketdata.providers import alphavantage
from marketdata.providers.registry import PROVIDERS, provider_class
from marketdata.records.analysts import EarningsSurprise
from marketdata.records.companies import CompanyProfile

KEY = "av-secret-key-0123456789ABCDEF"
URL = "https://www.alphavantage.co/query"

# Alpha Vantage's documented OVERVIEW shape (IBM's example, abridged).
OVERVIEW = {
    "Symbol": "IBM", "AssetType": "Common Stock",
    "Name": "International Business Machines", "Description": "IBM is a technology company.",
    "CIK": "51143", "Exchange": "NYSE", "Currency": "USD", "Country": "USA",
    "Sector": "TECHNOLOGY", "Industry": "COMPUTER & OFFICE EQUIPMENT",
    "Address": "1 NEW ORCHARD ROAD, ARMONK, NY, US", "OfficialSite": "https://www.ibm.com",
    "FiscalYearEnd": "December", "LatestQuarter": "2024-12-31",
    "MarketCapitalization": "235227955000", "EBITDA": "14596000000", "PERatio": "37.91",
    "DividendDate": "None", "ExDividendDate": "-",
}
# Alpha Vantage's documented EARNINGS shape (abridged), newest first.
EARNINGS = {"symbol": "IBM", "annualEarnings": [
    {"fiscalDateEnding": "2024-12-31", "reportedEPS": "10.33"}], "quarterlyEarnings": [
    {"fiscalDateEnding": "2025-03-31", "reportedDate": "2025-04-23", "reportedEPS": "None",
     "estimatedEPS": "1.42", "surprise": "None", "surprisePercentage": "None",
     "reportTime": "post-market"},
    {"fiscalDateEnding": "2024-12-31", "reportedDate": "2025-01-29", "reportedEPS": "3.92",
     "estimatedEPS": "3.78", "surprise": "0.14", "surprisePercentage": "3.7037",
     "reportTime": "post-market"},
    {"fiscalDateEnding": "2024-06-30", "reportedDate": "2024-07-24", "reportedEPS": "2.43",
     "estimatedEPS": "2.2", "surprise": "None", "surprisePercentage": "None",
     "reportTime": "post-market"},
    {"fiscalDateEnding": "2024-09-30", "reportedDate": "2024-10-23", "reportedEPS": "2.3",
     "estimatedEPS": "0", "surprise": "", "surprisePercentage": "-",
     "reportTime": "post-market"},
]}
INVALID_KEY = {"Error Message": "the parameter apikey is invalid or missing. Please claim "
                                "your free API key on (https://www.alphavantage.co/support/"
                                "#api-key). It should take less than 20 seconds."}
DEMO_KEY = {"Information": "The **demo** API key is for demo purposes only. Please claim your "
                           "free API key at (https://www.alphavantage.co/support/#api-key) to "
                           "explore our full API offerings. It takes fewer than 20 seconds."}
DAILY_LIMIT = {"Information": "Thank you for using Alpha Vantage! Our standard API rate limit "
                              "is 25 requests per day. Please subscribe to any of the premium "
                              "plans at https://www.alphavantage.co/premium/ to instantly "
                              "remove all daily rate limits."}
FREQUENCY = {"Note": "Thank you for using Alpha Vantage! Our standard API call frequency is 5 "
                     "calls per minute and 500 calls per day."}
PREMIUM = {"Information": "Thank you for using Alpha Vantage! This is a premium endpoint. You "
                          "may subscribe to any of the premium plans at "
                          "https://www.alphavantage.co/premium/ to instantly unlock all "
                          "premium endpoints"}
INVALID_CALL = {"Error Message": "Invalid API call. Please retry or visit the documentation "
                                 "(https://www.alphavantage.co/documentation/) for OVERVIEW."}


@pytest.fixture(autouse=True)
def _key_fast_unpaced(settings, monkeypatch):
    settings.ALPHAVANTAGE_API_KEY = KEY
    fast = dataclasses.replace(alphavantage.PROVIDER, backoff_seconds=0.001,
                               backoff_max_seconds=0.001)
    monkeypatch.setattr(alphavantage.AlphaVantageProvider, "config", fast)
    monkeypatch.setattr(alphavantage, "MIN_INTERVAL_SECONDS", 0.0)


@pytest.fixture
def upstream():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def serve(mock, body, status: int = 200):
    return mock.add(responses.GET, re.compile(re.escape(URL) + r"(\?.*)?$"),
                    body=json.dumps(body), status=status, content_type="application/json")


# -- parsers ---------------------------------------------------------------------------------
def test_overview_as_the_profile_with_alpha_vantage_blanks_as_null():
    assert alphavantage.parse_overview(OVERVIEW, "IBM") == CompanyProfile(
        symbol="IBM", name="International Business Machines",
        description="IBM is a technology company.", asset_type="Common Stock",
        exchange="NYSE", currency="USD", country="USA", sector="TECHNOLOGY",
        industry="COMPUTER & OFFICE EQUIPMENT", market_capitalization=235227955000.0,
        website="https://www.ibm.com", address="1 NEW ORCHARD ROAD, ARMONK, NY, US")
    blank = {**OVERVIEW, "Sector": "None", "Industry": "-", "Country": "",
             "MarketCapitalization": "None", "Symbol": "None"}
    profile = alphavantage.parse_overview(blank, "IBM")
    assert profile.symbol == "IBM"  # the requested symbol when Alpha Vantage sends none
    assert profile.sector is profile.industry is profile.country is None
    assert profile.market_capitalization is None


@pytest.mark.parametrize("function", ["OVERVIEW", "EARNINGS"])
def test_an_empty_object_is_a_symbol_it_does_not_cover(function):
    parse = {"OVERVIEW": alphavantage.parse_overview,
             "EARNINGS": alphavantage.parse_earnings}[function]
    with pytest.raises(NotFound):
        parse({}, "SAP.DE")
    with pytest.raises(NotFound):
        parse(INVALID_CALL, "SAP.DE")


def test_earnings_reported_quarters_newest_first_surprise_derived_where_missing():
    rows = alphavantage.parse_earnings(EARNINGS, "IBM")
    assert rows == [
        EarningsSurprise(datetime(2024, 12, 31, tzinfo=UTC), 3.92, 3.78, 0.14, 0.037037),
        EarningsSurprise(datetime(2024, 9, 30, tzinfo=UTC), 2.3, 0.0, 2.3, None),
        EarningsSurprise(datetime(2024, 6, 30, tzinfo=UTC), 2.43, 2.2, 0.23, 0.104545),
    ]  # the unreported quarter is left out; 2.43 - 2.2 is exact (no float noise)


def test_earnings_without_reported_quarters_is_not_found():
    future = {"quarterlyEarnings": [EARNINGS["quarterlyEarnings"][0]]}
    with pytest.raises(NotFound, match="No earnings surprises data found for IBM"):
        alphavantage.parse_earnings(future, "IBM")


@pytest.mark.parametrize("body", [INVALID_KEY, DEMO_KEY])
def test_a_refused_key_in_a_200(body):
    with pytest.raises(CredentialsRejected, match="ALPHAVANTAGE_API_KEY") as caught:
        alphavantage.check_body(body, "OVERVIEW")
    assert caught.value.remember and caught.value.provider == "alphavantage"


def test_a_premium_function_is_refused_for_that_call_only():
    with pytest.raises(CredentialsRejected) as caught:
        alphavantage.check_body(PREMIUM, "EARNINGS")
    assert not caught.value.remember


@pytest.mark.parametrize("body", [DAILY_LIMIT, FREQUENCY])
def test_a_spent_allowance_is_a_429(body):
    with pytest.raises(UpstreamRateLimited) as caught:
        alphavantage.check_body(body, "OVERVIEW")
    assert caught.value.status_code == 429 and caught.value.provider == "alphavantage"


@pytest.mark.parametrize("body", [[], "text", {"Information": "Something else entirely."}])
def test_other_bodies_are_bad_answers(body):
    with pytest.raises(UpstreamBadResponse) as caught:
        alphavantage.check_body(body, "OVERVIEW")
    assert not isinstance(caught.value, CredentialsRejected)


# -- the request and the fetchers ---------------------------------------------------------------
def test_the_request_sends_function_symbol_and_key_as_apikey(upstream):
    serve(upstream, OVERVIEW)
    assert alphavantage.company_profile("IBM").name == "International Business Machines"
    (call,) = upstream.calls
    assert call.request.url.startswith(URL + "?")
    assert parse_qs(urlsplit(call.request.url).query) == {
        "function": ["OVERVIEW"], "symbol": ["IBM"], "apikey": [KEY]}
    assert "apikey" not in (call.request.headers.get("Authorization") or "")
    alphavantage.company_profile("IBM")
    assert len(upstream.calls) == 1, "cached"


def test_earnings_fetcher(upstream):
    serve(upstream, EARNINGS)
    rows = alphavantage.earnings_surprises("IBM")
    assert [row.date.date().isoformat() for row in rows if row.date] == [
        "2024-12-31", "2024-09-30", "2024-06-30"]
    assert parse_qs(urlsplit(upstream.calls[0].request.url).query)["function"] == ["EARNINGS"]


def test_an_uncovered_symbol_is_not_served_so_the_next_source_answers(upstream):
    serve(upstream, {})
    with pytest.raises(NotServed):
        alphavantage.company_profile("SPY")
    serve(upstream, {})
    with pytest.raises(NotServed):
        alphavantage.earnings_surprises("SPY")


def test_no_key_no_call(settings, upstream):
    settings.ALPHAVANTAGE_API_KEY = ""
    with pytest.raises(CredentialsRejected, match="ALPHAVANTAGE_API_KEY is not set"):
        alphavantage.company_profile("IBM")
    assert len(upstream.calls) == 0


def test_a_refused_key_is_not_sent_again(upstream):
    serve(upstream, INVALID_KEY)
    with pytest.raises(CredentialsRejected):
        alphavantage.company_profile("IBM")
    with pytest.raises(CredentialsRejected, match="not sent again"):
        alphavantage.earnings_surprises("IBM")
    assert len(upstream.calls) == 1


@pytest.mark.parametrize(("status", "error"), [(401, CredentialsRejected),
                                               (403, CredentialsRejected),
                                               (400, UpstreamBadResponse)])
def test_status_map(upstream, status, error):
    serve(upstream, {"Error Message": "x"}, status=status)
    with pytest.raises(error):
        alphavantage.company_profile("IBM")


def test_no_message_carries_the_key(upstream):
    serve(upstream, DAILY_LIMIT)
    with pytest.raises(UpstreamRateLimited) as caught:
        alphavantage.company_profile("IBM")
    assert KEY not in str(caught.value.detail) and URL not in str(caught.value.detail)


def test_registered_and_paced_a_second_apart(monkeypatch):
    assert provider_class("alphavantage") is alphavantage.AlphaVantageProvider
    assert "alphavantage" in PROVIDERS
    monkeypatch.setattr(alphavantage, "MIN_INTERVAL_SECONDS", 1.0)
    from marketdata.http import get_client

    assert alphavantage.AlphaVantageProvider(get_client()).pacer.interval == 1.0


def test_a_turn_too_far_away_is_a_429_without_a_call():
    pacer = alphavantage.CallPacer(1000.0)
    pacer.wait()  # the first turn is now
    with pytest.raises(UpstreamRateLimited, match="one request a second"):
        pacer.wait()


# -- the sandbox package through the real parsers --------------------------------------------
def test_sandbox_overview_and_earnings_of_a_us_stock(sandbox_upstream):
    profile = alphavantage.company_profile("AAPL")
    assert (profile.symbol, profile.name, profile.asset_type, profile.exchange,
            profile.country, profile.currency) == (
        "AAPL", "Apple Inc.", "Common Stock", "NASDAQ", "USA", "USD")
    assert profile.sector == "TECHNOLOGY" and profile.market_capitalization > 0
    rows = alphavantage.earnings_surprises("AAPL")
    assert len(rows) == 4 and all(row.eps_actual is not None for row in rows)
    dates = [row.date for row in rows]
    assert dates == sorted(dates, reverse=True)
    provider = alphavantage.alphavantage_provider()
    first, second = (provider.query("EARNINGS", "AAPL") for _ in range(2))
    assert first == second, "deterministic"
    assert alphavantage.parse_earnings(first, "AAPL") == rows


@pytest.mark.parametrize("symbol", ["SPY", "SAP.DE", "ZZZZ"])
def test_sandbox_covers_us_stocks_only(sandbox_upstream, symbol):
    with pytest.raises(NotServed):
        alphavantage.company_profile(symbol)
    with pytest.raises(NotServed):
        alphavantage.earnings_surprises(symbol)


@pytest.mark.parametrize(("key", "error"), [("INVALID", CredentialsRejected),
                                            ("LIMIT-k", UpstreamRateLimited),
                                            ("PREMIUM-k", CredentialsRejected)])
def test_sandbox_key_answers(settings, sandbox_upstream, key, error):
    settings.ALPHAVANTAGE_API_KEY = key
    with pytest.raises(error):
        alphavantage.company_profile("AAPL")
