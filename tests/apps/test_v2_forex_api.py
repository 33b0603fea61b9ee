"""GET /v2/forex/{from}/{to}: Yahoo's quote of the pair (the EURUSD=X recording, exact
values), the ECB reference rate when Yahoo fails or does not list the pair, the identity
pair, code validation before any upstream call, `fields`, every error status, the OpenAPI
operation and the in-process sandbox.

Frankfurter payloads are hand-made in the API's real v1 time-series shape (no recording
exists; see tests/marketdata/providers/test_frankfurter.py).
"""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import Any

import pytest

from apps.forex import services
from apps.forex.currencies import ISO_4217_ACTIVE
from marketdata.providers import frankfurter
from marketdata.providers.frankfurter import FrankfurterProvider
from marketdata.providers.yahoo.client import YahooProvider
from marketdata.sandbox.core import PathFault
from tests.apps.payloads import EMPTY_QUOTE_RESPONSE, FAILURES, QUERY1, fail_url
from tests.conftest import CRUMB, calls_to, capture_logs, clear_cache
from tests.marketdata.providers.helpers import wrap_numbers

MEMBERS = ("symbol", "baseCurrency", "quoteCurrency", "price", "bid", "ask", "change",
           "changePercent", "timestamp")
RECORDING = "yahoo/v7-quote/quote-EURUSD_X.json"
TODAY = date(2025, 2, 17)
ECB_URL = "https://api.frankfurter.dev/v1/2025-02-07.."
ECB_EUR_USD = {"amount": 1.0, "base": "EUR", "start_date": "2025-02-07",
               "end_date": "2025-02-14",
               "rates": {"2025-02-07": {"USD": 1.0321}, "2025-02-10": {"USD": 1.0315},
                         "2025-02-11": {"USD": 1.0357}, "2025-02-12": {"USD": 1.0364},
                         "2025-02-13": {"USD": 1.0413}, "2025-02-14": {"USD": 1.0478}}}
ECB_ANSWER = {"symbol": "EURUSD", "baseCurrency": "EUR", "quoteCurrency": "USD",
              "price": 1.0478, "bid": None, "ask": None, "change": 0.0065,
              "changePercent": 0.62422, "timestamp": 1739491200}  # 2025-02-14T00:00Z
YAHOO_ANSWER = {"symbol": "EURUSD", "baseCurrency": "EUR", "quoteCurrency": "USD",
                "price": 1.0489877, "bid": 1.0489877, "ask": 1.0484378,
                "change": -0.0005505085, "changePercent": -0.052457344,
                "timestamp": 1739789683}


@pytest.fixture(autouse=True)
def _frozen_day_and_fast_retries(monkeypatch):
    monkeypatch.setattr(frankfurter, "utc_today", lambda: TODAY)
    for provider in (FrankfurterProvider, YahooProvider):
        fast = dataclasses.replace(provider.config, backoff_seconds=0.001,
                                   backoff_max_seconds=0.001)
        monkeypatch.setattr(provider, "config", fast)


def quote_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/v7/finance/quote")


def ecb_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "api.frankfurter.dev")


def assert_api_error(response, status: int, error: str | None = None) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    if error is not None:
        assert body["error"] == error
    return body


def yahoo_item(**values: Any) -> dict:
    return {"quoteResponse": {"result": [{"symbol": "EURUSD=X", "quoteType": "CURRENCY",
                                          **values}], "error": None}}


# -- Yahoo first ------------------------------------------------------------------------------
def test_yahoo_recording_exact_values(api, yahoo, recording):
    yahoo.quote(recording(RECORDING))
    response = api.get("/v2/forex/EUR/USD")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body == YAHOO_ANSWER and list(body) == list(YAHOO_ANSWER)
    (call,) = quote_calls(yahoo)
    assert "symbols=EURUSD%3DX" in call.request.url
    assert ecb_calls(yahoo) == []


def test_codes_are_case_insensitive_and_the_answer_upper_case(api, yahoo, recording):
    yahoo.quote(recording(RECORDING))
    assert api.get("/v2/forex/eur/Usd").json() == YAHOO_ANSWER
    assert len(quote_calls(yahoo)) == 1, "one cache entry for every spelling"


def test_formatted_yahoo_numbers_read_the_same(api, yahoo, recording):
    """The shared v2 fetch asks Yahoo for formatted values: {raw, fmt} reads as raw."""
    yahoo.quote(wrap_numbers(recording(RECORDING)))
    assert api.get("/v2/forex/EUR/USD").json() == YAHOO_ANSWER


def test_shares_the_v2_quotes_cache(api, yahoo, recording):
    yahoo.quote(recording(RECORDING))
    assert api.get("/v2/quotes?symbols=EURUSD=X").status_code == 200
    assert api.get("/v2/forex/EUR/USD").json() == YAHOO_ANSWER
    assert len(quote_calls(yahoo)) == 1


def test_a_zero_bid_or_ask_is_null(api, yahoo):
    yahoo.quote(yahoo_item(regularMarketPrice=1.05, bid=0, ask=0.0, regularMarketTime=1))
    body = api.get("/v2/forex/EUR/USD").json()
    assert (body["price"], body["bid"], body["ask"]) == (1.05, None, None)
    assert body["change"] is None and body["timestamp"] == 1


# -- fields -----------------------------------------------------------------------------------
def test_fields(api, yahoo, recording):
    yahoo.quote(recording(RECORDING))
    assert api.get("/v2/forex/EUR/USD?fields=price,bid").json() == {
        "price": 1.0489877, "bid": 1.0489877}
    assert api.get("/v2/forex/EUR/USD?fields=symbol, nonsense").json() == {"symbol": "EURUSD"}
    assert api.get("/v2/forex/EUR/USD?fields=nonsense").json() == YAHOO_ANSWER
    assert api.get("/v2/forex/EUR/USD?fields=").json() == YAHOO_ANSWER


def test_fields_keep_requested_nulls(api, yahoo):
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    yahoo.get(ECB_URL, ECB_EUR_USD)
    assert api.get("/v2/forex/EUR/USD?fields=bid,ask,price").json() == {
        "price": 1.0478, "bid": None, "ask": None}


# -- the identity pair --------------------------------------------------------------------------
def test_a_currency_against_itself_makes_no_upstream_call(api, yahoo, monkeypatch):
    monkeypatch.setattr(services, "utc_now", lambda: 1739789683)
    body = api.get("/v2/forex/usd/USD").json()
    assert body == {"symbol": "USDUSD", "baseCurrency": "USD", "quoteCurrency": "USD",
                    "price": 1.0, "bid": 1.0, "ask": 1.0, "change": 0.0,
                    "changePercent": 0.0, "timestamp": 1739789683}
    assert len(yahoo.mock.calls) == 0


# -- the ECB after Yahoo ------------------------------------------------------------------------
def test_a_pair_yahoo_does_not_list_is_asked_of_the_ecb(api, yahoo):
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    yahoo.get(ECB_URL, ECB_EUR_USD)
    response = api.get("/v2/forex/EUR/USD")
    assert response.status_code == 200, response.content
    assert response.json() == ECB_ANSWER
    (call,) = ecb_calls(yahoo)
    assert call.request.url.endswith("/v1/2025-02-07..?base=EUR&symbols=USD")


@pytest.mark.parametrize("item", [
    {"regularMarketPrice": None},  # listed without a price
    {"regularMarketPrice": 1.05, "quoteType": "EQUITY"},  # not a currency
])
def test_a_yahoo_answer_without_a_pair_quote_is_asked_of_the_ecb(api, yahoo, item):
    yahoo.quote(yahoo_item(**item))
    yahoo.get(ECB_URL, ECB_EUR_USD)
    assert api.get("/v2/forex/EUR/USD").json() == ECB_ANSWER


@pytest.mark.parametrize("kind", list(FAILURES))
def test_a_yahoo_failure_falls_back_to_the_ecb(api, yahoo, kind):
    fail_url(yahoo.mock, f"{QUERY1}/v7/finance/quote", kind)
    yahoo.get(ECB_URL, ECB_EUR_USD)
    response = api.get("/v2/forex/EUR/USD")
    assert response.status_code == 200, response.content
    assert response.json() == ECB_ANSWER


def test_the_fallback_is_logged(api, yahoo):
    fail_url(yahoo.mock, f"{QUERY1}/v7/finance/quote", "yahoo_500")
    yahoo.get(ECB_URL, ECB_EUR_USD)
    with capture_logs("marketdata.capabilities") as logs:
        api.get("/v2/forex/EUR/USD")
    (line,) = [r for r in logs.records() if r.get("message") == "source_failed"]
    assert (line["capability"], line["provider"], line["status"]) == ("forex", "yahoo", 502)


def test_one_fix_gives_no_change(api, yahoo):
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    yahoo.get(ECB_URL, {**ECB_EUR_USD, "rates": {"2025-02-14": {"USD": 1.0478}}})
    body = api.get("/v2/forex/EUR/USD").json()
    assert (body["price"], body["change"], body["changePercent"]) == (1.0478, None, None)


def test_neither_source_has_the_pair(api, yahoo):
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    yahoo.get(ECB_URL, {"message": "not found"}, status=404)
    assert_api_error(api.get("/v2/forex/eur/aed"), 404, "No quote for EUR/AED")
    assert len(ecb_calls(yahoo)) == 1


@pytest.mark.parametrize("kind", list(FAILURES))
def test_yahoo_failed_and_the_ecb_lacks_the_pair_is_yahoos_failure(api, yahoo, kind):
    """Nobody said the pair does not exist: a 404 would be wrong."""
    fail_url(yahoo.mock, f"{QUERY1}/v7/finance/quote", kind)
    yahoo.get(ECB_URL, {"message": "not found"}, status=404)
    status, _ = FAILURES[kind]
    body = assert_api_error(api.get("/v2/forex/EUR/AED"), status)
    assert body["provider"] == "yahoo"


@pytest.mark.parametrize("kind", list(FAILURES))
def test_both_fail_is_yahoos_failure(api, yahoo, kind):
    fail_url(yahoo.mock, f"{QUERY1}/v7/finance/quote", kind)
    fail_url(yahoo.mock, ECB_URL, "yahoo_500")
    status, _ = FAILURES[kind]
    body = assert_api_error(api.get("/v2/forex/EUR/USD"), status)
    assert body["provider"] == "yahoo"


@pytest.mark.parametrize("kind", list(FAILURES))
def test_the_ecb_failing_after_yahoo_lacks_the_pair_names_frankfurter(api, yahoo, kind):
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    fail_url(yahoo.mock, ECB_URL, kind)
    status, _ = FAILURES[kind]
    body = assert_api_error(api.get("/v2/forex/EUR/USD"), status)
    assert body["provider"] == "frankfurter"


def test_answers_are_cached(api, yahoo):
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    yahoo.get(ECB_URL, ECB_EUR_USD)
    first = api.get("/v2/forex/EUR/USD").json()
    assert api.get("/v2/forex/EUR/USD").json() == first
    assert (len(quote_calls(yahoo)), len(ecb_calls(yahoo))) == (1, 1)


def test_no_credential_reaches_the_body_or_the_logs(api, yahoo, recording):
    yahoo.quote(recording(RECORDING))
    with capture_logs() as logs:
        response = api.get("/v2/forex/EUR/USD")
    assert CRUMB in quote_calls(yahoo)[0].request.url  # it was sent upstream...
    assert CRUMB not in response.content.decode()  # ...and goes nowhere else
    assert CRUMB not in logs.text()


# -- codes --------------------------------------------------------------------------------------
CODE = "Input should be a 3-letter ISO 4217 currency code"


@pytest.mark.parametrize(("path", "error"), [
    ("/v2/forex/EU/USD", f"from: {CODE}"),
    ("/v2/forex/EUR/USDT", f"to: {CODE}"),
    ("/v2/forex/E1R/US$", f"from: {CODE}; to: {CODE}"),
    ("/v2/forex/%C3%89UR/USD", f"from: {CODE}"),  # ÉUR: letters, not ASCII
    ("/v2/forex/EUR/U%20D", f"to: {CODE}"),
    ("/v2/forex/EUR/%00SD", f"to: {CODE}"),
    ("/v2/forex/EURUSD/X", f"from: {CODE}; to: {CODE}"),
])
def test_a_code_that_is_not_three_letters_is_400_before_any_upstream_call(api, yahoo, path,
                                                                           error):
    assert_api_error(api.get(path), 400, error)
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize(("path", "code"), [
    ("/v2/forex/XYZ/USD", "XYZ"), ("/v2/forex/eur/abc", "ABC"),
    ("/v2/forex/USD/CNH", "CNH"),  # offshore yuan: not an ISO 4217 code
    ("/v2/forex/BGN/EUR", "BGN"),  # withdrawn: Bulgaria uses the euro since 2026
    ("/v2/forex/XXX/USD", "XXX"), ("/v2/forex/USD/XTS", "XTS"),
])
def test_an_unknown_code_is_404_before_any_upstream_call(api, yahoo, path, code):
    assert_api_error(api.get(path), 404, f"Unknown currency code: {code}")
    assert len(yahoo.mock.calls) == 0


def test_the_validation_order_is_400_then_404(api, yahoo):
    assert_api_error(api.get("/v2/forex/XYZ/US"), 400, f"to: {CODE}")


def test_the_curated_set():
    assert len(ISO_4217_ACTIVE) > 150
    assert {"EUR", "USD", "JPY", "GBP", "CHF", "XAU", "XDR", "XCG", "ZWG", "VES"} \
        <= ISO_4217_ACTIVE
    assert not {"BGN", "ANG", "HRK", "CNH", "XXX", "XTS", "USN", "CLF"} & ISO_4217_ACTIVE
    assert all(len(c) == 3 and c.isascii() and c.isupper() for c in ISO_4217_ACTIVE)


def test_an_encoded_slash_is_404(api, yahoo):
    path = "/v2/forex/EUR%2FUSD/X"
    assert_api_error(api.get(path, REQUEST_URI=path), 404)
    assert len(yahoo.mock.calls) == 0


# -- OpenAPI ------------------------------------------------------------------------------------
def openapi() -> dict[str, Any]:
    """The served document, built once per test process (tests/openapi_validation.py)."""
    from tests.openapi_validation import served_document

    return served_document()


def test_openapi_operation():
    op = openapi()["paths"]["/v2/forex/{from}/{to}"]["get"]
    assert op["operationId"] == "get_forex" and op["tags"] == ["Forex (v2)"]
    params = {(p["name"], p["in"]) for p in op["parameters"]}
    assert params == {("from", "path"), ("to", "path"), ("fields", "query")}
    body = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert list(body["properties"]) == list(MEMBERS)
    assert {"400", "404", "429", "500", "502", "503", "504"} <= op["responses"].keys()
    for word in ("Frankfurter", "percent units", "`{FROM}{TO}`", "no upstream call"):
        assert word in op["description"]


# -- sandbox ------------------------------------------------------------------------------------
REAL_UTC_TODAY = frankfurter.utc_today


@pytest.fixture
def sandbox(sandbox_upstream, monkeypatch):
    """The in-process sandbox; the service's day is the real UTC day, as is the sandbox's
    clock (fixes are only checked against each other and against Yahoo's price)."""
    monkeypatch.setattr(frankfurter, "utc_today", REAL_UTC_TODAY)
    yield sandbox_upstream
    sandbox_upstream.configure(faults=[])


def test_sandbox_serves_yahoos_quote(api, sandbox):
    response = api.get("/v2/forex/EUR/USD")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["symbol"], body["baseCurrency"], body["quoteCurrency"]) == (
        "EURUSD", "EUR", "USD")
    assert 0.5 < body["price"] < 2 and body["bid"] and body["ask"]
    assert isinstance(body["timestamp"], int) and isinstance(body["changePercent"], float)
    assert sandbox.requests_matching("/v7/finance/quote")
    assert not sandbox.requests_matching("/", provider="frankfurter")


def test_sandbox_falls_back_to_the_ecb(api, sandbox):
    from django.core.cache import cache

    live = api.get("/v2/forex/EUR/JPY").json()["price"]
    clear_cache(cache)
    sandbox.configure(faults=[PathFault("/v7/finance/quote")])
    response = api.get("/v2/forex/EUR/JPY")
    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "no-store"  # built after a failure: never stored
    body = response.json()
    assert body["bid"] is None and body["ask"] is None
    assert body["timestamp"] % 86400 == 0
    assert body["change"] is not None and body["changePercent"] is not None
    assert len(sandbox.requests_matching("/v1/", provider="frankfurter")) == 1
    # Both sources derive from the same daily series of EURJPY=X: the last fix is within a
    # few percent of Yahoo's live price.
    assert abs(body["price"] / live - 1) < 0.05
