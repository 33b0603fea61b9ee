"""GET /v1/quotes and /v1/simple-quotes: formatted values, list rules, 404/422 and upstream
failures (502/503/504/429), stale serving and the response cache."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from tests.apps.payloads import (
    EMPTY_QUOTE_RESPONSE,
    FAILURES,
    QUOTE_SUMMARY_NOT_FOUND,
    REQUESTS,
    register_failure,
    simple_chart,
    upstream_calls,
)
from tests.conftest import calls_to

AAPL_SUMMARY = "yahoo/v10-quoteSummary/_all-modules/AAPL.json"
QQQ_SUMMARY = "yahoo/v10-quoteSummary/_all-modules/QQQ.json"
AAPL_QUOTE = "yahoo/v7-quote/quote-AAPL.json"
AAPL_BABA_QUOTE = "yahoo/v7-quote/quote-AAPL-BABA.json"
EURUSD_QUOTE = "yahoo/v7-quote/quote-EURUSD_X.json"

ENDPOINTS = ["/v1/quotes", "/v1/simple-quotes"]


def _symbols_param(call) -> str:
    return parse_qs(urlsplit(call.request.url).query)["symbols"][0]


# -- /v1/quotes: 200 ---------------------------------------------------------------------------
def test_full_quote_aapl_from_recording(api, yahoo, recording):
    payload = recording(AAPL_SUMMARY)
    yahoo.summary("AAPL", payload)
    response = api.get("/v1/quotes?symbols=AAPL")
    assert response.status_code == 200
    assert response["X-Cache"] == "MISS"
    about = payload["quoteSummary"]["result"][0]["assetProfile"]["longBusinessSummary"]
    assert response.json() == [{
        "symbol": "AAPL",
        "name": "Apple Inc.",
        "price": "245.55",
        # recorded in pre-market (preMarketTime after regularMarketTime)
        "preMarketPrice": "245.24",
        "change": "-0.28",
        "percentChange": "-0.11%",
        "open": "245.97",
        "high": "248.69",
        "low": "245.22",
        "yearHigh": "260.10",
        "yearLow": "164.08",
        "volume": 53197431,
        "avgVolume": 50792552,
        "marketCap": "3.69T",
        "beta": "1.20",
        "pe": "38.91",
        "eps": "6.31",
        "dividend": "1.00",
        "yield": "0.41%",
        "exDividend": "Feb 10, 2025",
        "earningsDate": "Apr 30, 2025 - May 05, 2025",
        "lastDividend": "0.25",
        "sector": "Technology",
        "industry": "Consumer Electronics",
        "about": about,
        "employees": "150000",
    }]


def test_full_quote_requests_the_quote_modules_with_a_crumb(api, yahoo, recording):
    yahoo.summary("AAPL", recording(AAPL_SUMMARY))
    api.get("/v1/quotes?symbols=AAPL")
    calls = calls_to(yahoo.mock, "/v10/finance/quoteSummary/AAPL")
    assert len(calls) == 1
    query = parse_qs(urlsplit(calls[0].request.url).query)
    assert set(query["modules"][0].split(",")) >= {
        "assetProfile", "price", "summaryDetail", "defaultKeyStatistics", "calendarEvents",
        "quoteUnadjustedPerformanceOverview"}
    assert query["crumb"] == ["haT3oykhHqZ"]


def test_full_quotes_omit_nulls(api, yahoo, recording):
    yahoo.summary("AAPL", recording(AAPL_SUMMARY))
    yahoo.summary("QQQ", recording(QQQ_SUMMARY))
    body = api.get("/v1/quotes?symbols=AAPL,QQQ").json()
    assert len(body) == 2
    for quote in body:
        assert all(value is not None for value in quote.values()), quote
        assert {"symbol", "name", "price", "change", "percentChange"} <= set(quote)
        assert all(isinstance(quote[k], str) for k in ("price", "change", "percentChange"))
    # AAPL has no fund fields: they are left out, not null
    assert "expenseRatio" not in body[0]
    assert "netAssets" not in body[0]


def test_full_quote_etf_fund_fields(api, yahoo, recording):
    yahoo.summary("QQQ", recording(QQQ_SUMMARY))
    quote = api.get("/v1/quotes?symbols=QQQ").json()[0]
    assert quote["name"] == "Invesco QQQ Trust"
    assert quote["price"] == "526.12"
    assert quote["change"] == "-11.11"
    assert quote["percentChange"] == "-2.07%"
    assert quote["marketCap"] == "206.82B"
    assert quote["netAssets"] == "328.3B"
    assert quote["nav"] == "526.07"
    assert quote["category"] == "Large Growth"
    assert quote["inceptionDate"] == "Mar 10, 1999"


def test_full_quote_prices_carry_thousands_separators(api, yahoo, recording):
    yahoo.summary("BTC-USD", recording("yahoo/v10-quoteSummary/_all-modules/BTC-USD.json"))
    response = api.get("/v1/quotes?symbols=btc-usd")
    assert response.status_code == 200
    quote = response.json()[0]
    assert quote["symbol"] == "BTC-USD"
    assert quote["name"] == "Bitcoin USD"
    assert quote["price"] == "96,021.96"
    assert quote["change"] == "-289.27"
    assert quote["percentChange"] == "-0.30%"
    assert quote["open"] == "96,267.85"
    assert quote["high"] == "96,473.94"
    assert quote["low"] == "95,168.77"
    assert quote["yearHigh"] == "109,114.88"
    assert quote["yearLow"] == "49,121.24"
    assert quote["marketCap"] == "1.9T"
    assert quote["volume"] == 23376617472
    assert "preMarketPrice" not in quote
    assert "afterHoursPrice" not in quote


def test_full_quote_refreshes_a_rejected_crumb(api, yahoo, recording):
    yahoo.summary("AAPL", {"finance": {"result": None, "error": {
        "code": "Unauthorized", "description": "Invalid Crumb"}}}, status=401)
    yahoo.summary("AAPL", recording(AAPL_SUMMARY))
    response = api.get("/v1/quotes?symbols=AAPL")
    assert response.status_code == 200
    assert response.json()[0]["price"] == "245.55"
    assert len(calls_to(yahoo.mock, "/v1/test/getcrumb")) == 2
    assert len(calls_to(yahoo.mock, "/quoteSummary/AAPL")) == 2


def test_full_quotes_keep_request_order(api, yahoo, recording):
    yahoo.summary("AAPL", recording(AAPL_SUMMARY))
    yahoo.summary("QQQ", recording(QQQ_SUMMARY))
    body = api.get("/v1/quotes?symbols=QQQ,AAPL").json()
    assert [q["symbol"] for q in body] == ["QQQ", "AAPL"]
    body = api.get("/v1/quotes?symbols=AAPL,QQQ").json()
    assert [q["symbol"] for q in body] == ["AAPL", "QQQ"]


def test_full_quotes_drop_duplicates_in_any_case(api, yahoo, recording):
    yahoo.summary("AAPL", recording(AAPL_SUMMARY))
    yahoo.summary("QQQ", recording(QQQ_SUMMARY))
    response = api.get("/v1/quotes?symbols=aapl,QQQ,AAPL,%20Aapl%20,qqq")
    assert response.status_code == 200
    assert [q["symbol"] for q in response.json()] == ["AAPL", "QQQ"]
    assert len(calls_to(yahoo.mock, "/quoteSummary/AAPL")) == 1
    assert len(calls_to(yahoo.mock, "/quoteSummary/QQQ")) == 1


def test_full_quotes_unknown_symbols_left_out(api, yahoo, recording):
    yahoo.summary("AAPL", recording(AAPL_SUMMARY))
    yahoo.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v1/quotes?symbols=ZZZZ,AAPL")
    assert response.status_code == 200
    assert [q["symbol"] for q in response.json()] == ["AAPL"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_non_ascii_symbols_are_not_upper_cased_into_others(api, yahoo, endpoint):
    """Issue 13 item 4: 'spy,msft' spelt with a long s (U+017F) upper-cases to SPY,MSFT; the
    items are invalid symbols (as on the single-symbol endpoints), so none resolves: 404 and
    Yahoo is never asked."""
    response = api.get(f"{endpoint}?symbols=%C5%BFpy,m%C5%BFft")
    assert response.status_code == 404, response.content
    assert response.json()["detail"].startswith("No quotes found for symbols: ")
    assert not [c for c in yahoo.mock.calls if "/finance/" in c.request.url]


def test_simple_quotes_non_ascii_item_left_out(api, yahoo, recording):
    yahoo.quote(recording(AAPL_QUOTE))
    response = api.get("/v1/simple-quotes?symbols=%C5%BFpy,AAPL")
    assert response.status_code == 200
    assert [q["symbol"] for q in response.json()] == ["AAPL"]
    assert _symbols_param(calls_to(yahoo.mock, "/v7/finance/quote")[0]) == "AAPL"


def test_full_quotes_none_known_404(api, yahoo):
    yahoo.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    yahoo.summary("YYYY", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v1/quotes?symbols=ZZZZ,YYYY")
    assert response.status_code == 404
    body = response.json()
    assert set(body) == {"detail"}
    assert isinstance(body["detail"], str)
    assert "ZZZZ" in body["detail"]


# -- /v1/simple-quotes: 200 ------------------------------------------------------------------
def test_simple_quote_aapl_from_recording(api, yahoo, recording):
    yahoo.quote(recording(AAPL_QUOTE))
    response = api.get("/v1/simple-quotes?symbols=AAPL")
    assert response.status_code == 200
    assert response.json() == [{"symbol": "AAPL", "name": "Apple Inc.", "price": "244.60",
                                "change": "+3.07", "percentChange": "+1.27%",
                                "afterHoursPrice": "244.64"}]
    calls = calls_to(yahoo.mock, "/v7/finance/quote")
    assert len(calls) == 1
    assert _symbols_param(calls[0]) == "AAPL"


def test_simple_quote_fx_keeps_price_hint(api, yahoo, recording):
    yahoo.quote(recording(EURUSD_QUOTE))
    response = api.get("/v1/simple-quotes?symbols=EURUSD=X")
    assert response.status_code == 200
    quote = response.json()[0]
    assert quote["symbol"] == "EURUSD=X"
    assert quote["name"] == "EUR/USD"
    assert quote["price"] == "1.0490"
    assert quote["percentChange"] == "-0.05%"
    assert quote["change"] == "-0.0006"
    assert "afterHoursPrice" not in quote
    assert "preMarketPrice" not in quote


def test_simple_quote_prices_have_no_thousands_separators(api, yahoo, recording):
    yahoo.quote(recording("yahoo/v7-quote/quote-BTC-USD.json"))
    quote = api.get("/v1/simple-quotes?symbols=BTC-USD").json()[0]
    assert quote == {"symbol": "BTC-USD", "name": "Bitcoin USD", "price": "96077.45",
                     "change": "-1225.89", "percentChange": "-1.26%"}


def _aapl_v7(recording, **changes):
    payload = recording(AAPL_QUOTE)
    payload["quoteResponse"]["result"][0].update(changes)
    return payload


def test_simple_quote_pre_market_price_when_newer(api, yahoo, recording):
    yahoo.quote(_aapl_v7(recording, preMarketPrice=245.123, preMarketTime=1739610000,
                         postMarketTime=1739560000))
    quote = api.get("/v1/simple-quotes?symbols=AAPL").json()[0]
    assert quote["preMarketPrice"] == "245.12"
    assert "afterHoursPrice" not in quote  # older than the regular-session trade


def test_simple_quote_zero_change_is_signed_plus(api, yahoo, recording):
    yahoo.quote(_aapl_v7(recording, regularMarketChange=0, regularMarketChangePercent=0))
    quote = api.get("/v1/simple-quotes?symbols=AAPL").json()[0]
    assert quote["change"] == "+0.00"
    assert quote["percentChange"] == "+0.00%"


def test_simple_quote_name_falls_back_to_short_name(api, yahoo, recording):
    yahoo.quote(_aapl_v7(recording, longName=None, shortName="Apple"))
    assert api.get("/v1/simple-quotes?symbols=AAPL").json()[0]["name"] == "Apple"


def test_simple_quotes_one_batch_call_request_order(api, yahoo, recording):
    yahoo.quote(recording(AAPL_BABA_QUOTE))  # Yahoo answers AAPL first, then BABA
    response = api.get("/v1/simple-quotes?symbols=BABA,AAPL")
    assert response.status_code == 200
    body = response.json()
    assert [q["symbol"] for q in body] == ["BABA", "AAPL"]
    assert body[0] == {"symbol": "BABA", "name": "Alibaba Group Holding Limited",
                       "price": "124.73", "change": "+5.19", "percentChange": "+4.34%",
                       "afterHoursPrice": "124.81"}
    calls = calls_to(yahoo.mock, "/v7/finance/quote")
    assert len(calls) == 1
    assert _symbols_param(calls[0]).split(",") == ["BABA", "AAPL"]


def test_simple_quotes_duplicates_in_any_case(api, yahoo, recording):
    yahoo.quote(recording(AAPL_QUOTE))
    response = api.get("/v1/simple-quotes?symbols=aapl,AAPL,Aapl,%20aApL")
    assert response.status_code == 200
    assert [q["symbol"] for q in response.json()] == ["AAPL"]
    assert _symbols_param(calls_to(yahoo.mock, "/v7/finance/quote")[0]) == "AAPL"


def test_simple_quotes_unknown_left_out(api, yahoo, recording):
    yahoo.quote(recording(AAPL_QUOTE))  # Yahoo silently omits ZZZZ
    response = api.get("/v1/simple-quotes?symbols=ZZZZ,AAPL")
    assert response.status_code == 200
    assert [q["symbol"] for q in response.json()] == ["AAPL"]


def test_simple_quotes_none_known_404(api, yahoo):
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    response = api.get("/v1/simple-quotes?symbols=ZZZZ,YYYY")
    assert response.status_code == 404
    body = response.json()
    assert set(body) == {"detail"}
    assert "ZZZZ" in body["detail"]


def test_simple_quotes_omit_nulls(api, yahoo, recording):
    yahoo.quote(recording(AAPL_BABA_QUOTE))
    for quote in api.get("/v1/simple-quotes?symbols=AAPL,BABA").json():
        assert all(value is not None for value in quote.values())
        assert "preMarketPrice" not in quote  # null in the recording


def test_fifty_symbols_are_accepted(api, yahoo, recording):
    yahoo.quote(recording(AAPL_QUOTE))
    symbols = ["AAPL"] + [f"S{i:03d}" for i in range(49)]
    response = api.get("/v1/simple-quotes?symbols=" + ",".join(symbols))
    assert response.status_code == 200
    assert [q["symbol"] for q in response.json()] == ["AAPL"]


# -- 422 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_symbols_missing_422(api, yahoo, endpoint):
    response = api.get(endpoint)
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request",
                               "errors": {"symbols": ["Field required"]}}
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("value", ["", ",", ",,,", " , , ", "%20"])
def test_symbols_empty_422(api, yahoo, endpoint, value):
    response = api.get(f"{endpoint}?symbols={value}")
    assert response.status_code == 422
    body = response.json()
    assert body["detail"] == "Invalid request"
    assert list(body["errors"]) == ["symbols"]
    assert body["errors"]["symbols"] == ["String should have at least 1 character"]
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_more_than_fifty_symbols_422(api, yahoo, endpoint):
    symbols = ",".join(f"S{i:03d}" for i in range(51))
    response = api.get(f"{endpoint}?symbols={symbols}")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": {
        "symbols": ["List should have at most 50 items after validation, not 51"]}}
    assert len(yahoo.mock.calls) == 0


# -- upstream failures -------------------------------------------------------------------------
@pytest.mark.parametrize("endpoint", ["quotes", "simple-quotes", "historical"])
@pytest.mark.parametrize("kind", list(FAILURES))
def test_upstream_failures(api, yahoo, endpoint, kind):
    register_failure(yahoo.mock, endpoint, kind)
    response = api.get(REQUESTS[endpoint])
    status, code = FAILURES[kind]
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"detail", "provider", "code"}
    assert body["provider"] == "yahoo"
    assert body["code"] == code
    assert isinstance(body["detail"], str) and body["detail"]
    assert "Traceback" not in response.content.decode()
    assert response["X-Correlation-ID"]
    calls = upstream_calls(yahoo.mock, endpoint)
    if kind == "yahoo_429":
        assert len(calls) == 1, "a 429 is an answer, not retried"
    else:
        assert len(calls) > 1, "transient failures are retried before giving up"


@pytest.mark.parametrize("endpoint", ["quotes", "simple-quotes", "historical"])
@pytest.mark.parametrize("kind", ["yahoo_429", "connection_error"])
def test_retry_after_on_429_and_503(api, yahoo, endpoint, kind):
    register_failure(yahoo.mock, endpoint, kind)
    response = api.get(REQUESTS[endpoint])
    assert response["Retry-After"].isdigit()


@pytest.mark.parametrize("endpoint", ["quotes", "simple-quotes"])
def test_yahoo_429_on_the_crumb_handshake_is_429(api, yahoo, endpoint):
    yahoo.mock.replace(responses.GET, "https://query1.finance.yahoo.com/v1/test/getcrumb",
                       status=429, body="Too Many Requests", content_type="text/plain")
    response = api.get(REQUESTS[endpoint])
    assert response.status_code == 429
    body = response.json()
    assert set(body) == {"detail", "provider", "code"}
    assert body["provider"] == "yahoo"
    assert body["code"] == "upstream_rate_limited"
    assert upstream_calls(yahoo.mock, endpoint) == []


def test_crumb_rejected_twice_is_a_bad_gateway_not_a_500(api, yahoo):
    yahoo.summary("AAPL", "Invalid Crumb", status=401, content_type="text/plain")
    response = api.get("/v1/quotes?symbols=AAPL")
    assert response.status_code == 502
    body = response.json()
    assert body["provider"] == "yahoo"
    assert body["code"] == "upstream_bad_response"


# -- stale and cached answers ------------------------------------------------------------------
def _register_ok(yahoo, recording, endpoint):
    if endpoint == "quotes":
        return yahoo.summary("AAPL", recording(AAPL_SUMMARY))
    if endpoint == "simple-quotes":
        return yahoo.quote(recording(AAPL_QUOTE))
    return yahoo.chart("AAPL", simple_chart("AAPL", "1d"))


@pytest.mark.parametrize("endpoint", ["quotes", "simple-quotes", "historical"])
@pytest.mark.parametrize("kind", ["yahoo_500", "connection_error", "timeout"])
def test_stale_answer_served_when_yahoo_fails(api, yahoo, recording, settings, cache_clock,
                                              endpoint, kind):
    settings.CACHE_TTL_CAP_SECONDS = 1
    ok = _register_ok(yahoo, recording, endpoint)
    first = api.get(REQUESTS[endpoint])
    assert first.status_code == 200
    assert first["X-Cache"] == "MISS"

    yahoo.mock.remove(ok)
    register_failure(yahoo.mock, endpoint, kind)
    cache_clock.advance(5)  # the cached answer is now past its freshness

    second = api.get(REQUESTS[endpoint])
    assert second.status_code == 200
    assert second["X-Cache"] == "STALE"
    assert second.json() == first.json()
    assert len(upstream_calls(yahoo.mock, endpoint)) > 1, "Yahoo was asked again"


@pytest.mark.parametrize("endpoint", ["quotes", "simple-quotes", "historical"])
def test_second_identical_request_is_a_cache_hit(api, yahoo, recording, endpoint):
    _register_ok(yahoo, recording, endpoint)
    first = api.get(REQUESTS[endpoint])
    second = api.get(REQUESTS[endpoint])
    assert first.status_code == second.status_code == 200
    assert first["X-Cache"] == "MISS"
    assert second["X-Cache"] == "HIT"
    assert second.json() == first.json()
    assert second["Content-Type"].startswith("application/json")
    assert len(upstream_calls(yahoo.mock, endpoint)) == 1


@pytest.mark.parametrize("endpoint", ["quotes", "simple-quotes", "historical"])
def test_cache_hit_keeps_the_response_headers(api, yahoo, recording, endpoint):
    _register_ok(yahoo, recording, endpoint)
    first = api.get(REQUESTS[endpoint])
    second = api.get(REQUESTS[endpoint])
    assert second["X-Cache"] == "HIT"
    assert second["Content-Type"] == first["Content-Type"]
    # ``Allow`` only describes the view's methods; every other header must survive the cache.
    missing = {h.lower() for h in first.headers} - {h.lower() for h in second.headers} - {"allow"}
    assert missing == set(), f"headers dropped on a response-cache hit: {sorted(missing)}"


def test_data_cache_shared_across_symbol_case(api, yahoo, recording):
    yahoo.summary("AAPL", recording(AAPL_SUMMARY))
    first = api.get("/v1/quotes?symbols=AAPL")
    second = api.get("/v1/quotes?symbols=aapl")
    assert second.status_code == 200
    assert second["X-Cache"] == "HIT"
    assert second.json() == first.json()
    assert len(calls_to(yahoo.mock, "/quoteSummary/AAPL")) == 1


def test_error_answers_are_not_served_from_the_response_cache(api, yahoo):
    register_failure(yahoo.mock, "simple-quotes", "yahoo_429")
    assert api.get(REQUESTS["simple-quotes"]).status_code == 429
    second = api.get(REQUESTS["simple-quotes"])
    assert second.get("X-Cache") != "HIT"
