"""GET /v1/indices: selection (index list, region, union, order), MarketIndex values and
formatting, the 422 bodies, partial and total upstream failures, hostile input, and the
endpoint against the sandbox (all 73 symbols) through the real client."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
import responses

from tests.apps.payloads import FAILURES, QUOTE_SUMMARY_NOT_FOUND, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import QUERY2, calls_to
from tests.marketdata.providers.test_yahoo_indices import SPEC_IDS

SYMBOLS = {
    "snp": "^GSPC", "djia": "^DJI", "nasdaq": "^IXIC", "dax": "^GDAXI", "tsx-composite":
    "^GSPTSE", "asx-200": "^AXJO", "all-ordinaries": "^AORD", "nzx-50": "^NZ50",
    "usd": "DX-Y.NYB", "msci-world": "^990100-USD-STRD", "euro-stoxx-50": "^STOXX50E",
}
INDEX_MESSAGE = "Input should be " + ", ".join(f"'{i}'" for i in SPEC_IDS[:-1]) + \
    f" or '{SPEC_IDS[-1]}'"
REGION_MESSAGE = ("Input should be 'US', 'NA', 'SA', 'EU', 'AS', 'AF', 'ME', 'OCE' or "
                  "'global'")


def summary_url(symbol: str) -> str:
    return f"{QUERY2}/v10/finance/quoteSummary/{quote(symbol, safe='')}"


def index_body(symbol: str, price: float = 5000.0, change: float = 25.0,
               fraction: float = 0.005, *, short_name: str | None = "Short",
               long_name: str | None = "Long name", hint: int = 2,
               performance: dict[str, Any] | None = None) -> dict[str, Any]:
    """A quoteSummary answer (price + quoteUnadjustedPerformanceOverview) in Yahoo's shape,
    numbers as {raw, fmt} like formatted=true (the parser also reads bare numbers)."""
    def num(x: float, text: str) -> dict[str, Any]:
        return {"raw": x, "fmt": text}

    result: dict[str, Any] = {"price": {
        "maxAge": 1, "regularMarketChangePercent": num(fraction, f"{fraction * 100:.2f}%"),
        "regularMarketChange": num(change, f"{change:,.2f}"), "regularMarketTime": 1740171602,
        "priceHint": num(hint, str(hint)), "regularMarketPrice": num(price, f"{price:,.2f}"),
        "exchange": "SNP", "quoteType": "INDEX", "symbol": symbol, "shortName": short_name,
        "longName": long_name, "currency": "USD"}}
    if performance is not None:
        result["quoteUnadjustedPerformanceOverview"] = {"maxAge": 1,
                                                        "performanceOverview": performance}
    return {"quoteSummary": {"result": [result], "error": None}}


def register(yahoo, index: str, body: Any = None, status: int = 200, **kwargs: Any) -> Any:
    symbol = SYMBOLS[index]
    return yahoo.get(summary_url(symbol), body if body is not None else index_body(symbol),
                     status, **kwargs)


def register_any(yahoo, body: Any) -> None:
    """One answer for every quoteSummary symbol."""
    yahoo.mock.add(responses.GET, re.compile(re.escape(f"{QUERY2}/v10/finance/quoteSummary/")
                                             + r"[^/?]+(\?.*)?$"),
                   json=body, status=200)


def summary_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/v10/finance/quoteSummary/")


# -- values ---------------------------------------------------------------------------------
PERFORMANCE = {
    "asOfDate": {"raw": 1740096000, "fmt": "2025-02-21"},
    "fiveDaysReturn": {"raw": -0.0166, "fmt": "-1.66%"},
    "oneMonthReturn": {"raw": 0.0, "fmt": "0.00%"},
    "threeMonthReturn": {"raw": 0.01234, "fmt": "1.23%"},
    "sixMonthReturn": 0.07891,
    "ytdReturnPct": {"raw": 0.02271, "fmt": "2.27%"},
    "oneYearTotalReturn": {"raw": 0.2101, "fmt": "21.01%"},
    "threeYearTotalReturn": {"raw": 0.4388, "fmt": "43.88%"},
    "fiveYearTotalReturn": {"raw": 0.8105, "fmt": "81.05%"},
    "tenYearTotalReturn": {"raw": 1.8453, "fmt": "184.53%"},
    "maxReturn": {"raw": 353.12, "fmt": "35,312.00%"},
}


def test_single_index_exact_body(api, yahoo):
    register(yahoo, "snp", index_body("^GSPC", 6013.125, -104.39, -0.017124, short_name="S&P 500",
                                      long_name="S&P 500", performance=PERFORMANCE))
    response = api.get("/v1/indices?index=snp")
    assert response.status_code == 200
    assert response.json() == [{
        "name": "S&P 500", "value": 6013.13, "change": "-104.39", "percentChange": "-1.71%",
        "fiveDaysReturn": "-1.66%", "oneMonthReturn": "+0.00%", "threeMonthReturn": "+1.23%",
        "sixMonthReturn": "+7.89%", "ytdReturn": "+2.27%", "yearReturn": "+21.01%",
        "threeYearReturn": "+43.88%", "fiveYearReturn": "+81.05%", "tenYearReturn": "+184.53%",
        "maxReturn": "+35312.00%",
    }]
    calls = summary_calls(yahoo)
    assert len(calls) == 1
    url = urlsplit(calls[0].request.url)
    assert url.path == "/v10/finance/quoteSummary/%5EGSPC"
    query = parse_qs(url.query)
    assert query["modules"] == ["price,quoteUnadjustedPerformanceOverview"]
    assert query["crumb"] == ["haT3oykhHqZ"]


def test_large_change_has_thousands_separators_and_sign(api, yahoo):
    register(yahoo, "djia", index_body("^DJI", 44424.254, 1043.61, 0.024, long_name=None,
                                       short_name="Dow 30"))
    assert api.get("/v1/indices?index=djia").json() == [{
        "name": "Dow 30", "value": 44424.25, "change": "+1,043.61",
        "percentChange": "+2.40%"}]


def test_precision_from_price_hint_recording(api, yahoo, recording):
    """A real price module (EUR/USD, priceHint 4) served for the dollar index: the change
    keeps the instrument's precision; the value is a number rounded to 2 dp."""
    register(yahoo, "usd", recording("yahoo/v10-quoteSummary/price/EURUSD_X.json"))
    assert api.get("/v1/indices?index=usd").json() == [{
        "name": "EUR/USD", "value": 1.05, "change": "+0.0015", "percentChange": "+0.15%"}]


def test_name_overrides_and_fallbacks(api, yahoo):
    register(yahoo, "dax", index_body("^GDAXI", short_name="DAX P", long_name="DAX P"))
    register(yahoo, "nasdaq", index_body("^IXIC", short_name="Nasdaq", long_name=None))
    register(yahoo, "djia", index_body("^DJI", short_name=None, long_name=None))
    body = api.get("/v1/indices?index=dax&index=nasdaq&index=djia").json()
    assert [i["name"] for i in body] == ["djia", "Nasdaq", "DAX Performance Index"]


def test_zero_change_is_signed_plus(api, yahoo):
    register(yahoo, "snp", index_body("^GSPC", 5000.0, 0.0, 0.0))
    body = api.get("/v1/indices?index=snp").json()[0]
    assert (body["change"], body["percentChange"]) == ("+0.00", "+0.00%")


def test_returns_are_left_out_when_missing(api, yahoo):
    register(yahoo, "snp", index_body("^GSPC", performance={"fiveDaysReturn": {}}))
    body = api.get("/v1/indices?index=snp").json()[0]
    assert set(body) == {"name", "value", "change", "percentChange"}


# -- selection ------------------------------------------------------------------------------
def test_response_order_is_the_contract_order(api, yahoo):
    for index in ("snp", "dax", "nzx-50"):
        register(yahoo, index, index_body(SYMBOLS[index], long_name=index.upper()))
    body = api.get("/v1/indices?index=nzx-50&index=dax&index=snp&index=dax").json()
    assert [i["name"] for i in body] == ["SNP", "DAX Performance Index", "S&P/NZX 50 Index"]
    assert len(summary_calls(yahoo)) == 3


def test_union_of_index_and_region(api, yahoo):
    for index in ("snp", "dax", "asx-200", "all-ordinaries", "nzx-50"):
        register(yahoo, index, index_body(SYMBOLS[index], long_name=index))
    body = api.get("/v1/indices?index=snp&index=dax&region=OCE").json()
    assert [i["name"] for i in body] == ["snp", "DAX Performance Index", "asx-200",
                                        "all-ordinaries", "S&P/NZX 50 Index"]


def test_region_na_includes_the_us(api, yahoo):
    register_any(yahoo, index_body("^X"))
    body = api.get("/v1/indices?region=NA").json()
    assert len(body) == 8
    paths = [urlsplit(c.request.url).path.rsplit("/", 1)[1] for c in summary_calls(yahoo)]
    assert sorted(paths) == sorted(quote(s, safe="") for s in (
        "^GSPC", "^DJI", "^IXIC", "^NYA", "^XAX", "^RUT", "^VIX", "^GSPTSE"))


def test_no_parameters_is_all_73_in_order(api, yahoo):
    register_any(yahoo, index_body("^X", long_name=None, short_name=None))
    response = api.get("/v1/indices")
    assert response.status_code == 200
    body = response.json()
    overrides = {"dax": "DAX Performance Index", "euro-stoxx-50": "EURO STOXX 50",
                 "nzx-50": "S&P/NZX 50 Index", "set": "Thailand SET Index",
                 "jse-40": "FTSE JSE Top 40- USD Net TRI", "sa-40": "South Africa Top 40"}
    assert [i["name"] for i in body] == [overrides.get(i, i) for i in SPEC_IDS]
    assert len(summary_calls(yahoo)) == 73


# -- 422 ------------------------------------------------------------------------------------
def test_invalid_index_422(api, yahoo):
    response = api.get("/v1/indices?index=foo")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": {"index.0": [INDEX_MESSAGE]}}
    assert INDEX_MESSAGE.startswith("Input should be 'snp', 'djia', 'nasdaq', ")
    assert INDEX_MESSAGE.endswith("'msci-world' or 'cboe-uk-100'")
    assert len(yahoo.mock.calls) == 0


def test_invalid_items_are_keyed_by_position(api, yahoo):
    response = api.get("/v1/indices?index=snp&index=SNP&index=dax&index=")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": {
        "index.1": [INDEX_MESSAGE], "index.3": [INDEX_MESSAGE]}}
    assert len(yahoo.mock.calls) == 0


def test_invalid_region_422(api, yahoo):
    response = api.get("/v1/indices?region=Europe")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": {"region": [REGION_MESSAGE]}}
    assert len(yahoo.mock.calls) == 0


def test_invalid_index_and_region_in_one_body(api, yahoo):
    response = api.get("/v1/indices?index=snp&index=nope&region=na")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": {
        "index.1": [INDEX_MESSAGE], "region": [REGION_MESSAGE]}}


def test_comma_lists_are_not_an_index(api, yahoo):
    response = api.get("/v1/indices?index=snp,dax")
    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["index.0"]


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_hostile_values_422_and_no_upstream_call(api, yahoo, raw):
    response = api.get(f"/v1/indices?index={raw}&region={raw}")
    assert response.status_code == 422, response.content
    assert response.json() == {"detail": "Invalid request", "errors": {
        "index.0": [INDEX_MESSAGE], "region": [REGION_MESSAGE]}}
    assert len(yahoo.mock.calls) == 0


# -- failures -------------------------------------------------------------------------------
def _left_out(logs) -> list[dict[str, Any]]:
    return [r for r in logs.records() if r["message"] == "index left out"]


def test_one_failing_index_is_left_out_and_logged(api, yahoo, logs):
    register(yahoo, "snp")
    fail_url(yahoo.mock, summary_url("^GDAXI"), "yahoo_500")
    register(yahoo, "nzx-50")
    response = api.get("/v1/indices?index=snp&index=dax&index=nzx-50")
    assert response.status_code == 200
    assert [i["name"] for i in response.json()] == ["Long name", "S&P/NZX 50 Index"]
    [record] = _left_out(logs)
    assert record["level"] == "WARNING"
    assert record["index"] == "dax"
    assert record["symbol"] == "^GDAXI"
    assert "500" in record["reason"]
    assert record["correlation_id"] == response["X-Correlation-ID"]


def test_a_partial_answer_is_not_stored_as_a_whole_response(api, yahoo, logs):
    """The data cache keeps snp; the response cache must not keep the answer without dax,
    or dax would stay missing for the whole TTL after Yahoo recovers."""
    register(yahoo, "snp")
    fail_url(yahoo.mock, summary_url("^GDAXI"), "yahoo_500")
    first = api.get("/v1/indices?index=snp&index=dax")
    assert len(first.json()) == 1
    assert first["Cache-Control"] == "no-store"
    second = api.get("/v1/indices?index=snp&index=dax")
    assert len(second.json()) == 1
    assert len(_left_out(logs)) == 2  # the service ran again: not a stored response


def test_unknown_to_yahoo_is_left_out(api, yahoo, logs):
    register(yahoo, "snp")
    register(yahoo, "dax", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v1/indices?index=snp&index=dax")
    assert response.status_code == 200
    assert len(response.json()) == 1
    assert [r["index"] for r in _left_out(logs)] == ["dax"]


def test_an_index_without_a_price_is_left_out(api, yahoo, logs):
    register(yahoo, "snp")
    body = index_body("^GDAXI")
    del body["quoteSummary"]["result"][0]["price"]["regularMarketPrice"]
    register(yahoo, "dax", body)
    response = api.get("/v1/indices?index=snp&index=dax")
    assert response.status_code == 200
    assert len(response.json()) == 1
    assert _left_out(logs)[0]["index"] == "dax"


@pytest.mark.parametrize("kind", list(FAILURES))
def test_every_index_failing_is_the_upstream_error(api, yahoo, kind):
    fail_url(yahoo.mock, summary_url("^GSPC"), kind)
    fail_url(yahoo.mock, summary_url("^GDAXI"), kind)
    response = api.get("/v1/indices?index=snp&index=dax")
    status, code = FAILURES[kind]
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body == {"detail": body["detail"], "provider": "yahoo", "code": code}


def test_upstream_error_wins_over_not_found_when_nothing_is_served(api, yahoo):
    register(yahoo, "snp", QUOTE_SUMMARY_NOT_FOUND, status=404)
    fail_url(yahoo.mock, summary_url("^GDAXI"), "timeout")
    response = api.get("/v1/indices?index=snp&index=dax")
    assert response.status_code == 504
    assert response.json()["provider"] == "yahoo"


def test_no_index_known_to_yahoo_is_a_bad_gateway(api, yahoo):
    register(yahoo, "snp", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v1/indices?index=snp")
    assert response.status_code == 502
    assert response.json() == {"detail": "Yahoo Finance has no data for the requested indices",
                                "provider": "yahoo", "code": "upstream_bad_response"}


def test_second_request_is_a_cache_hit(api, yahoo):
    register(yahoo, "snp")
    first = api.get("/v1/indices?index=snp")
    second = api.get("/v1/indices?index=snp")
    assert (first["X-Cache"], second["X-Cache"]) == ("MISS", "HIT")
    assert second.json() == first.json()
    assert len(summary_calls(yahoo)) == 1


def test_indices_share_the_data_cache_across_selections(api, yahoo):
    register(yahoo, "snp")
    register(yahoo, "dax")
    api.get("/v1/indices?index=snp")
    api.get("/v1/indices?index=snp&index=dax")
    assert len(calls_to(yahoo.mock, "quoteSummary/%5EGSPC")) == 1
    assert len(calls_to(yahoo.mock, "quoteSummary/%5EGDAXI")) == 1


# -- against the sandbox, through the real client ----------------------------------------------
FIXED = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)


@pytest.fixture
def sandbox(sandbox_upstream, monkeypatch):
    monkeypatch.setattr(sandbox_upstream, "clock", lambda: FIXED)
    return sandbox_upstream


def test_sandbox_answers_all_73_indices(api, sandbox):
    response = api.get("/v1/indices")
    assert response.status_code == 200, response.content
    body = response.json()
    assert len(body) == 73
    assert body[0]["name"] == "S&P 500"
    assert body[15]["name"] == "DAX Performance Index"
    for item in body:
        assert isinstance(item["value"], float)
        assert item["change"][0] in "+-" and item["percentChange"].endswith("%")
        assert item["yearReturn"][0] in "+-"
    calls = sandbox.requests_matching("/v10/finance/quoteSummary/")
    assert len(calls) == 73
    assert all(c["status"] == 200 for c in calls)


def test_sandbox_index_matches_the_quote(api, sandbox):
    index = api.get("/v1/indices?index=snp").json()[0]
    quote_ = api.get("/v1/quotes?symbols=^GSPC").json()[0]
    assert index["change"] == quote_["change"]
    assert index["percentChange"] == quote_["percentChange"]
    assert f"{index['value']:,.2f}" == quote_["price"]


def test_sandbox_failure_is_an_upstream_error(api, sandbox):
    sandbox.configure(fail_rate=1.0)
    try:
        response = api.get("/v1/indices?index=snp&index=dax")
    finally:
        sandbox.configure(fail_rate=0.0)
    assert response.status_code in (502, 503)
    assert response.json()["provider"] == "yahoo"
