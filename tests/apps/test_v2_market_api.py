"""GET /v2/trending, /v2/market-summary and /v2/indices: the recordings' values exactly
(trending symbols, the v7 quote batch, the market summary in every ``format``), the
requests sent (region, language, one batch), the statuses (400 before any upstream call,
the upstream failures), ``fields``, and the sandbox for several regions."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.records.market import INDEX_GROUPS
from tests.apps.payloads import EMPTY_QUOTE_RESPONSE, FAILURES, fail_url
from tests.conftest import QUERY1, QUERY2, calls_to

TRENDING_URL = f"{QUERY2}/v1/finance/trending"
SUMMARY_URL = f"{QUERY2}/v6/finance/quote/marketSummary"
QUOTE_URL = f"{QUERY1}/v7/finance/quote"
SUMMARY = "yahoo/v6-marketSummary/marketSummary-finance-query.json"


def query_of(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


# -- trending -------------------------------------------------------------------------------------
@pytest.fixture
def trending_us(yahoo, recording):
    yahoo.get(f"{TRENDING_URL}/US", recording("yahoo/v1-trending/US.json"))
    yahoo.quote(recording("yahoo/v7-quote/quote-BTC-USD.json"))


def test_trending_as_recorded_with_the_quote_batch(api, yahoo, trending_us):
    response = api.get("/v2/trending")
    assert response.status_code == 200, response.content
    assert response.json() == [
        {"symbol": "BTC-USD", "shortName": "Bitcoin USD", "regularMarketPrice": 96077.45,
         "regularMarketChangePercent": -1.2598631},
        *({"symbol": s, "shortName": None, "regularMarketPrice": None,
           "regularMarketChangePercent": None} for s in ("PLTR", "MSTR", "HIMS", "TEM")),
    ]
    (trend,) = calls_to(yahoo.mock, "/v1/finance/trending/US")
    assert query_of(trend)["lang"] == ["en-US"] and query_of(trend)["region"] == ["US"]
    (batch,) = calls_to(yahoo.mock, "/v7/finance/quote")
    assert query_of(batch)["symbols"] == ["BTC-USD,PLTR,MSTR,HIMS,TEM"]


def test_trending_uk_is_gb_and_fields(api, yahoo, recording):
    yahoo.get(f"{TRENDING_URL}/GB", recording("yahoo/v1-trending/GB.json"))
    yahoo.quote(recording("yahoo/v7-quote/quote-BTC-USD.json"))
    body = api.get("/v2/trending?region=UK&fields=symbol,regularMarketChangePercent").json()
    assert body == [{"symbol": "BTC-USD", "regularMarketChangePercent": -1.2598631},
                    {"symbol": "PLTR", "regularMarketChangePercent": None}]
    (trend,) = calls_to(yahoo.mock, "/v1/finance/trending/GB")
    assert query_of(trend)["lang"] == ["en-GB"] and query_of(trend)["region"] == ["GB"]


def test_trending_finance_query_list(api, yahoo, recording):
    quotes = recording("yahoo/v1-trending/US-finance-query.json")
    yahoo.get(f"{TRENDING_URL}/US", {"finance": {"result": [{"quotes": quotes}], "error": None}})
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    body = api.get("/v2/trending?fields=symbol").json()
    assert [item["symbol"] for item in body] == [q["symbol"] for q in quotes]


def test_no_trending_symbols_make_no_quote_call(api, yahoo):
    yahoo.get(f"{TRENDING_URL}/JP", {"finance": {"result": [], "error": None}})
    assert api.get("/v2/trending?region=JP").json() == []
    assert not calls_to(yahoo.mock, "/v7/finance/quote")


@pytest.mark.parametrize("path", ["/v2/trending?region=uk", "/v2/trending?region=XX",
                                  "/v2/trending?region=", "/v2/market-summary?region=us",
                                  "/v2/market-summary?region=EU", "/v2/market-summary?lang=%21",
                                  "/v2/indices?region=mars", "/v2/indices?region=EUROPE",
                                  "/v2/indices?format=", "/v2/market-summary?format=%20"])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 400, response.content
    assert response.json()["status"] == 400 and response.json()["error"]
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_trending_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, f"{TRENDING_URL}/US", kind)
    status, _ = FAILURES[kind]
    response = api.get("/v2/trending")
    assert response.status_code == status and response.json()["provider"] == "yahoo"


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_a_failed_quote_batch_fails_trending(api, yahoo, recording, kind):
    yahoo.get(f"{TRENDING_URL}/US", recording("yahoo/v1-trending/US.json"))
    fail_url(yahoo.mock, QUOTE_URL, kind)
    status, _ = FAILURES[kind]
    response = api.get("/v2/trending")
    assert response.status_code == status and response.json()["provider"] == "yahoo"


def test_yahoo_404_for_a_region_is_a_404(api, yahoo):
    yahoo.get(f"{TRENDING_URL}/VN", {"finance": {"result": None, "error": {
        "code": "Not Found", "description": "No data"}}}, status=404)
    response = api.get("/v2/trending?region=VN")
    assert response.status_code == 404 and response.json()["status"] == 404


@pytest.fixture
def frozen_sandbox(sandbox_upstream):
    """The in-process sandbox stopped at one instant of a US session: trending's ranking and
    the quote batch that follows it see the same prices (at real time a price could move
    between the two calls, and the ranking then disagreed with the quotes: a flake once)."""
    instant = datetime(2026, 11, 24, 15, 0, tzinfo=UTC)
    sandbox_upstream.set_clock(lambda: instant)
    yield sandbox_upstream
    sandbox_upstream.set_clock(None)


@pytest.mark.parametrize("region", ["US", "UK", "JP", "DE"])
def test_trending_through_the_sandbox(api, frozen_sandbox, region):
    body = api.get(f"/v2/trending?region={region}").json()
    assert len(body) == 20
    assert all(item["shortName"] and item["regularMarketPrice"] > 0 for item in body)
    moves = [abs(item["regularMarketChangePercent"]) for item in body]
    assert moves == sorted(moves, reverse=True)
    local = {"UK": ".L", "JP": ".T", "DE": ".DE"}.get(region)
    if local:
        assert any(item["symbol"].endswith(local) for item in body)


# -- market summary -------------------------------------------------------------------------------
@pytest.fixture
def summary(yahoo, recording):
    # finance-query kept the result list only: the envelope is put back around it.
    result = recording(SUMMARY)
    yahoo.get(SUMMARY_URL, {"marketSummaryResponse": {"result": result, "error": None}})
    return result


def test_market_summary_as_recorded(api, yahoo, summary):
    response = api.get("/v2/market-summary")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [item["symbol"] for item in body] == [r["symbol"] for r in summary]
    assert body[0] == {
        "symbol": "^GSPC", "shortName": "S&P 500", "exchange": "SNP",
        "fullExchangeName": "SNP", "quoteType": "INDEX", "marketState": "CLOSED",
        "regularMarketPrice": 6506.48, "regularMarketChange": -100.010254,
        "regularMarketChangePercent": -1.5138183, "regularMarketPreviousClose": 6606.49,
        "regularMarketTime": 1774040720, "spark": None}
    for item, recorded in zip(body, summary, strict=True):
        assert item["regularMarketPrice"] == recorded["regularMarketPrice"]["raw"]
        assert item["fullExchangeName"] == recorded["fullExchangeName"]
    (call,) = calls_to(yahoo.mock, "/v6/finance/quote/marketSummary")
    assert query_of(call)["region"] == ["US"] and query_of(call)["lang"] == ["en-US"]
    assert "crumb" in query_of(call)


@pytest.mark.parametrize("value", ["pretty", "fmt", "PRETTY", "Fmt"])
def test_market_summary_pretty(api, yahoo, summary, value):
    body = api.get(f"/v2/market-summary?format={value}&fields=symbol,regularMarketPrice,"
                   "regularMarketChangePercent,regularMarketTime").json()
    assert body[0] == {"symbol": "^GSPC", "regularMarketPrice": "6,506.48",
                       "regularMarketChangePercent": "-1.51%",
                       "regularMarketTime": None}  # Yahoo's object carries no fmt here


@pytest.mark.parametrize("value", ["both", "full", "BOTH"])
def test_market_summary_both(api, yahoo, summary, value):
    body = api.get(f"/v2/market-summary?format={value}&fields=regularMarketChange,"
                   "regularMarketTime").json()
    assert body[0] == {"regularMarketChange": {"raw": -100.010254, "fmt": "-100.01"},
                       "regularMarketTime": {"raw": 1774040720}}


@pytest.mark.parametrize("value", ["raw", "RAW", "nonsense", "p r e t t y"])
def test_market_summary_unknown_format_is_raw(api, yahoo, summary, value):
    response = api.get(f"/v2/market-summary?format={value}&fields=regularMarketPrice")
    assert response.status_code == 200
    assert response.json()[0] == {"regularMarketPrice": 6506.48}


def test_market_summary_region_and_language(api, yahoo, summary):
    api.get("/v2/market-summary?region=UK")
    api.get("/v2/market-summary?region=JP", HTTP_ACCEPT_LANGUAGE="de-CH")  # not read
    api.get("/v2/market-summary?region=DE&lang=fr-fr")
    sent = [(query_of(c)["region"][0], query_of(c)["lang"][0])
            for c in calls_to(yahoo.mock, "/v6/finance/quote/marketSummary")]
    assert sent == [("GB", "en-GB"), ("JP", "ja-JP"), ("DE", "fr-FR")]


def test_market_summary_spark(api, yahoo):
    item = {"symbol": "^N225", "shortName": "Nikkei 225",
            "regularMarketPrice": {"raw": 38000.5, "fmt": "38,000.50"},
            "spark": {"symbol": "^N225", "timestamp": [1700000000, 1700000300, 1700000600],
                      "close": [37990.0, None, 38000.5], "previousClose": 37900.0,
                      "chartPreviousClose": 37900.0, "dataGranularity": 300}}
    yahoo.get(SUMMARY_URL, {"marketSummaryResponse": {"result": [item], "error": None}})
    body = api.get("/v2/market-summary?region=JP&fields=symbol,spark").json()
    assert body == [{"symbol": "^N225", "spark": {
        "symbol": "^N225", "timestamp": [1700000000, 1700000300, 1700000600],
        "close": [37990.0, None, 38000.5], "previousClose": 37900.0,
        "chartPreviousClose": 37900.0}}]


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_market_summary_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, SUMMARY_URL, kind)
    status, _ = FAILURES[kind]
    response = api.get("/v2/market-summary")
    assert response.status_code == status and response.json()["provider"] == "yahoo"


def test_a_market_summary_without_a_result_is_a_502(api, yahoo):
    yahoo.get(SUMMARY_URL, {"marketSummaryResponse": {}})
    response = api.get("/v2/market-summary")
    assert response.status_code == 502 and response.json()["provider"] == "yahoo"


@pytest.mark.parametrize("region", ["US", "GB", "JP"])
def test_market_summary_through_the_sandbox(api, sandbox_upstream, region):
    body = api.get(f"/v2/market-summary?region={region}").json()
    assert len(body) >= 15
    assert {"^GSPC", "BTC-USD", "CL=F"} <= {item["symbol"] for item in body}
    for item in body:
        assert item["regularMarketPrice"] > 0 and isinstance(item["regularMarketTime"], int)
        spark = item["spark"]
        assert spark["symbol"] == item["symbol"]
        assert len(spark["timestamp"]) == len(spark["close"]) > 0
    pretty = api.get(f"/v2/market-summary?region={region}&format=pretty").json()
    assert all(isinstance(item["regularMarketPrice"], str) for item in pretty)
    assert all(re.fullmatch(r"1?[0-9]:[0-5][0-9][AP]M [A-Z+0-9-]+", item["regularMarketTime"])
               for item in pretty), [item["regularMarketTime"] for item in pretty]
    quotes = api.get(f"/v2/quotes?symbols={body[0]['symbol']}").json()["quotes"][0]
    assert quotes["regularMarketPrice"] == body[0]["regularMarketPrice"]


def test_each_region_starts_with_its_own_indices_in_the_sandbox(api, sandbox_upstream):
    assert api.get("/v2/market-summary?region=JP").json()[0]["symbol"] == "^N225"
    assert api.get("/v2/market-summary?region=DE").json()[0]["symbol"] == "^GDAXI"


# -- indices --------------------------------------------------------------------------------------
@pytest.fixture
def vix(yahoo, recording):
    # The recorded v7 index quote (^VXAPL), answered for ^VIX, an index of the americas.
    body = recording("yahoo/v7-quote/quote-idx_VXAPL.json")
    result = body["quoteResponse"]["result"][0]
    yahoo.quote({"quoteResponse": {"result": [{**result, "symbol": "^VIX"}], "error": None}})
    return result


def test_indices_one_batch_of_every_group(api, yahoo, vix):
    response = api.get("/v2/indices")
    assert response.status_code == 200, response.content
    (item,) = response.json()
    assert item["symbol"] == "^VIX"
    assert (item["shortName"], item["regularMarketPrice"], item["regularMarketChange"],
            item["regularMarketChangePercent"], item["regularMarketPreviousClose"],
            item["exchange"], item["exchangeName"], item["marketState"],
            item["regularMarketTime"]) == (
        "CBOE EQUITY VIXON APPLE", 23.77, -0.5100002, -2.100495, 24.28, "WCB",
        "Chicago Options", "CLOSED", 1739566922)
    (call,) = calls_to(yahoo.mock, "/v7/finance/quote")
    sent = query_of(call)["symbols"][0].split(",")
    assert sent == [s for group in INDEX_GROUPS.values() for s in group] and len(sent) == 41


@pytest.mark.parametrize(("region", "group"), [
    ("europe", "europe"), ("eu", "europe"), ("apac", "asia-pacific"), ("fx", "currencies"),
    ("emea", "middle-east-africa"), ("am", "americas"), ("middle_east_africa",
                                                         "middle-east-africa")])
def test_index_groups_and_aliases(api, yahoo, region, group):
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    assert api.get(f"/v2/indices?region={region}").json() == []
    (call,) = calls_to(yahoo.mock, "/v7/finance/quote")
    assert query_of(call)["symbols"] == [",".join(INDEX_GROUPS[group])]


def test_indices_fields(api, yahoo, vix):
    body = api.get("/v2/indices?region=americas&fields=symbol,regularMarketPrice").json()
    assert body == [{"symbol": "^VIX", "regularMarketPrice": 23.77}]


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_indices_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, QUOTE_URL, kind)
    status, _ = FAILURES[kind]
    response = api.get("/v2/indices")
    assert response.status_code == status and response.json()["provider"] == "yahoo"


def test_indices_through_the_sandbox(api, sandbox_upstream):
    body = api.get("/v2/indices").json()
    assert [item["symbol"] for item in body] == [s for g in INDEX_GROUPS.values() for s in g]
    assert all(item["regularMarketPrice"] > 0 for item in body)
    pretty = api.get("/v2/indices?region=asia&format=fmt&fields=symbol,regularMarketPrice")
    assert [item["symbol"] for item in pretty.json()] == list(INDEX_GROUPS["asia-pacific"])
    assert all(isinstance(item["regularMarketPrice"], str) for item in pretty.json())
    both = api.get("/v2/indices?region=fx&format=Full&fields=regularMarketPrice").json()
    assert all(set(item["regularMarketPrice"]) >= {"raw", "fmt"} for item in both)


def test_the_operations_are_described(api):
    paths = api.get("/openapi.json").json()["paths"]
    trending = {p["name"]: p for p in paths["/v2/trending"]["get"]["parameters"]}
    assert "UK" in trending["region"]["schema"]["enum"]
    assert "GB" in trending["region"]["schema"]["enum"]
    summary = {p["name"] for p in paths["/v2/market-summary"]["get"]["parameters"]}
    assert {"region", "format", "lang", "fields"} <= summary
    indices = {p["name"]: p for p in paths["/v2/indices"]["get"]["parameters"]}
    assert {"eu", "europe", "fx"} <= set(indices["region"]["schema"]["enum"])
    assert indices["format"]["schema"]["type"] == "string"
