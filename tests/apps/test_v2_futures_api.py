"""GET /v2/futures/{symbol}: Yahoo's v7 quote of a contract (the GC=F recording, exact
values), bare roots, `fields`, the 404s (unknown, malformed, not a futures contract), the
upstream failures, the parser on hand-made v7 items in the recording's shape, the OpenAPI
operation and the in-process sandbox."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from apps.futures.services import contract_symbol
from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers.yahoo.client import YahooProvider
from marketdata.providers.yahoo.quote import (
    expiration_date,
    parse_contract,
    parse_contract_answer,
)
from marketdata.records.members import as_json
from tests.apps.payloads import EMPTY_QUOTE_RESPONSE, FAILURES, QUERY1, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import calls_to
from tests.marketdata.providers.helpers import wrap_numbers

MEMBERS = ("symbol", "name", "exchange", "underlying", "expirationDate", "price", "change",
           "changePercent", "openInterest", "volume", "timestamp")
GOLD = "yahoo/v7-quote/quote-GC_F.json"
GOLD_ANSWER = {"symbol": "GC=F", "name": "Gold Apr 25", "exchange": "CMX",
               "underlying": "GCJ25.CMX", "expirationDate": "2025-04-28", "price": 2910.3,
               "change": 9.600098, "changePercent": 0.33095798, "openInterest": 393731,
               "volume": 54706, "timestamp": 1739789091}


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch):
    fast = dataclasses.replace(YahooProvider.config, backoff_seconds=0.001,
                               backoff_max_seconds=0.001)
    monkeypatch.setattr(YahooProvider, "config", fast)


def quote_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/v7/finance/quote")


def assert_api_error(response, status: int, error: str | None = None) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    if error is not None:
        assert body["error"] == error
    return body


def v7(*items: dict) -> dict:
    return {"quoteResponse": {"result": list(items), "error": None}}


# -- the recording ------------------------------------------------------------------------------
def test_gold_recording_exact_values(api, yahoo, recording):
    yahoo.quote(recording(GOLD))
    response = api.get("/v2/futures/GC=F")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body == GOLD_ANSWER and list(body) == list(MEMBERS)
    (call,) = quote_calls(yahoo)
    assert "symbols=GC%3DF" in call.request.url and "formatted=false" in call.request.url


@pytest.mark.parametrize("path", ["/v2/futures/GC", "/v2/futures/gc", "/v2/futures/gc=f",
                                  "/v2/futures/GC%3DF"])
def test_a_bare_root_or_any_case_is_the_continuous_contract(api, yahoo, recording, path):
    yahoo.quote(recording(GOLD))
    assert api.get(path).json() == GOLD_ANSWER
    assert "symbols=GC%3DF" in quote_calls(yahoo)[0].request.url


def test_answers_are_cached(api, yahoo, recording):
    yahoo.quote(recording(GOLD))
    api.get("/v2/futures/GC=F")
    assert api.get("/v2/futures/GC").json() == GOLD_ANSWER
    assert len(quote_calls(yahoo)) == 1


def test_formatted_numbers_read_the_same(api, yahoo, recording):
    """Yahoo's {raw, fmt} values (formatted=true) are read as their raw numbers."""
    yahoo.quote(wrap_numbers(recording(GOLD)))
    assert api.get("/v2/futures/GC=F").json() == GOLD_ANSWER


def test_fields(api, yahoo, recording):
    yahoo.quote(recording(GOLD))
    assert api.get("/v2/futures/GC=F?fields=openInterest,expirationDate").json() == {
        "expirationDate": "2025-04-28", "openInterest": 393731}
    assert api.get("/v2/futures/GC=F?fields=nonsense").json() == GOLD_ANSWER


# -- the parser on hand-made items (the recording's key names) ------------------------------
def test_members_yahoo_does_not_send_are_null():
    body = as_json(parse_contract({"symbol": "ZQ=F", "quoteType": "FUTURE",
                                   "regularMarketPrice": 95.7}))
    assert body == {"symbol": "ZQ=F", "name": None, "exchange": None, "underlying": None,
                    "expirationDate": None, "price": 95.7, "change": None,
                    "changePercent": None, "openInterest": None, "volume": None,
                    "timestamp": None}


def test_long_name_wins_over_short_name():
    item = {"symbol": "ES=F", "quoteType": "FUTURE", "shortName": "S&P 500 Mar 26",
            "longName": "E-Mini S&P 500 Mar 26"}
    assert parse_contract(item).name == "E-Mini S&P 500 Mar 26"


@pytest.mark.parametrize(("item", "expected"), [
    ({"expireIsoDate": "2025-04-28T00:00:00Z", "expireDate": 1}, "2025-04-28"),
    ({"expireDate": 1745798400}, "2025-04-28"),
    ({"expireDate": {"raw": 1745798400, "fmt": "2025-04-28"}}, "2025-04-28"),
    ({"expireIsoDate": "soon", "expireDate": 1745798400}, "2025-04-28"),
    ({"expireIsoDate": ""}, None), ({}, None),
])
def test_expiration_date(item, expected):
    assert expiration_date(item) == expected


def test_not_a_future_raises_not_found():
    with pytest.raises(NotFound, match="EURUSD=X is not a futures contract"):
        parse_contract({"symbol": "EURUSD=X", "quoteType": "CURRENCY"})


@pytest.mark.parametrize(("text", "symbol"), [
    ("GC", "GC=F"), ("es", "ES=F"), ("6E", "6E=F"), ("GC=F", "GC=F"),
    ("GCZ26.CMX", "GCZ26.CMX"), ("BRK-B", "BRK-B"), ("^GSPC", "^GSPC"),
])
def test_contract_symbol(text, symbol):
    assert contract_symbol(text) == symbol


# -- errors -------------------------------------------------------------------------------------
def test_a_symbol_yahoo_knows_as_something_else_is_404(api, yahoo, recording):
    yahoo.quote(recording("yahoo/v7-quote/quote-EURUSD_X.json"))
    assert_api_error(api.get("/v2/futures/EURUSD=X"), 404,
                     "EURUSD=X is not a futures contract")


def test_an_unknown_symbol_is_404(api, yahoo):
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    assert_api_error(api.get("/v2/futures/zzzz"), 404, "Futures contract not found: ZZZZ=F")


def test_an_answer_for_another_symbol_is_no_answer(api, yahoo, recording):
    yahoo.quote(recording(GOLD))
    assert_api_error(api.get("/v2/futures/SI=F"), 404, "Futures contract not found: SI=F")


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_without_upstream_call(api, yahoo, raw):
    assert_api_error(api.get(f"/v2/futures/{raw}"), 404)
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("kind", list(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, f"{QUERY1}/v7/finance/quote", kind)
    status, _ = FAILURES[kind]
    body = assert_api_error(api.get("/v2/futures/GC=F"), status)
    assert body["provider"] == "yahoo"


@pytest.mark.parametrize("payload", [{"finance": {"result": None}}, [1], "<html></html>"])
def test_a_body_without_a_quote_response_is_502(api, yahoo, payload):
    yahoo.quote(payload)
    body = assert_api_error(api.get("/v2/futures/GC=F"), 502)
    assert body["provider"] == "yahoo"


def test_parse_contract_answer_rejects_foreign_bodies():
    with pytest.raises(UpstreamBadResponse):
        parse_contract_answer({"quoteResponse": None}, "GC=F")
    assert parse_contract_answer(v7({"symbol": "gc=f", "quoteType": "FUTURE"}),
                                 "GC=F").symbol == "GC=F"


# -- OpenAPI ------------------------------------------------------------------------------------
def openapi() -> dict[str, Any]:
    """The served document, built once per test process (tests/openapi_validation.py)."""
    from tests.openapi_validation import served_document

    return served_document()


def test_openapi_operation():
    op = openapi()["paths"]["/v2/futures/{symbol}"]["get"]
    assert op["operationId"] == "get_futures" and op["tags"] == ["Futures (v2)"]
    assert {(p["name"], p["in"]) for p in op["parameters"]} == {("symbol", "path"),
                                                               ("fields", "query")}
    body = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert list(body["properties"]) == list(MEMBERS)
    assert {"400", "404", "429", "500", "502", "503", "504"} <= op["responses"].keys()
    for word in ("bare root", "other than a futures contract", "percent units",
                 "expireIsoDate"):
        assert word in op["description"]


# -- sandbox ------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/v2/futures/GC=F", "/v2/futures/cl"])
def test_sandbox_serves_contracts(api, sandbox_upstream, path):
    response = api.get(path)
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == list(MEMBERS)
    assert body["symbol"].endswith("=F") and body["underlying"].startswith(body["symbol"][:2])
    assert None not in body.values(), body
    assert body["expirationDate"] == body["expirationDate"][:10] and \
        body["expirationDate"][4] == "-"
    assert body["openInterest"] > 0 and body["price"] > 0


@pytest.mark.parametrize(("path", "error"), [
    ("/v2/futures/EURUSD=X", "EURUSD=X is not a futures contract"),
    ("/v2/futures/AAPL.L", "AAPL.L is not a futures contract"),
    ("/v2/futures/ZZZZ", "Futures contract not found: ZZZZ=F"),
])
def test_sandbox_404s(api, sandbox_upstream, path, error):
    assert_api_error(api.get(path), 404, error)
