"""GET /v2/spark: Yahoo's v7 spark (no recording exists: bodies in Yahoo's documented shape,
``spark.result[].response[0]`` a chart result with the close column), null closes dropped
with their timestamps, request order and errors, the request sent (one per 20 symbols), the
statuses, and the sandbox for an equity, an ETF and non-US listings."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.apps.payloads import FAILURES, fail_url
from tests.conftest import QUERY1, calls_to

URL = f"{QUERY1}/v7/finance/spark"


def item(symbol, stamps, closes, **meta):
    return {"symbol": symbol, "response": [{
        "meta": {"currency": "USD", "symbol": symbol, "exchangeName": "NMS",
                 "fullExchangeName": "NasdaqGS", "instrumentType": "EQUITY",
                 "firstTradeDate": 345479400, "regularMarketTime": 1740171601,
                 "hasPrePostMarketData": True, "gmtoffset": -18000, "timezone": "EST",
                 "exchangeTimezoneName": "America/New_York", "regularMarketPrice": 245.55,
                 "fiftyTwoWeekHigh": 260.1, "fiftyTwoWeekLow": 164.08,
                 "regularMarketDayHigh": 248.69, "regularMarketDayLow": 245.22,
                 "regularMarketVolume": 53197431, "chartPreviousClose": 232.8,
                 "priceHint": 2, "dataGranularity": "1d", "range": "5d", **meta},
        "timestamp": stamps,
        "indicators": {"quote": [{"close": closes}]}}]}


def body(*items):
    return {"spark": {"result": list(items), "error": None}}


STAMPS = [1739802600, 1739889000, 1739975400, 1740061800, 1740148200]


@pytest.fixture
def two(yahoo):
    yahoo.get(URL, body(item("MSFT", STAMPS, [409.64, 414.77, None, 416.13, 408.21]),
                        item("AAPL", STAMPS, [244.47, 244.87, 244.87, None, 245.55])))


def sent(yahoo):
    return [parse_qs(urlsplit(c.request.url).query) for c in calls_to(yahoo.mock, "/spark")]


def test_sparks_in_request_order_with_null_closes_dropped(api, yahoo, two):
    response = api.get("/v2/spark?symbols=aapl,MSFT,ZZZZ,AA PL&range=5d")
    assert response.status_code == 200, response.content
    data = response.json()
    aapl, msft = data["sparks"]
    assert aapl["symbol"] == "AAPL" and msft["symbol"] == "MSFT"
    assert aapl["timestamps"] == [1739802600, 1739889000, 1739975400, 1740148200]
    assert aapl["closes"] == [244.47, 244.87, 244.87, 245.55]
    assert msft["timestamps"] == [1739802600, 1739889000, 1740061800, 1740148200]
    assert msft["closes"] == [409.64, 414.77, 416.13, 408.21]
    assert (aapl["interval"], aapl["range"]) == ("1d", "5d")
    meta = aapl["meta"]
    assert (meta["symbol"], meta["regularMarketPrice"], meta["gmtOffset"],
            meta["chartPreviousClose"], meta["fiftyTwoWeekHigh"], meta["exchangeName"],
            meta["regularMarketVolume"], meta["hasPrePostMarketData"]) == (
        "AAPL", 245.55, -18000, 232.8, 260.1, "NMS", 53197431, True)
    # The last daily bar is the session of regularMarketTime: its previous close is the
    # close before, as on /v2/chart.
    assert meta["previousClose"] == 244.87
    assert len(meta) == 22
    assert data["errors"] == [{"symbol": "ZZZZ", "message": "Symbol not found"},
                              {"symbol": "AA PL", "message": "Symbol not found"}]
    (query,) = sent(yahoo)
    assert query["symbols"] == ["AAPL,MSFT,ZZZZ"]
    assert (query["interval"], query["range"], query["indicators"],
            query["includeTimestamps"], query["includePrePost"]) == (
        ["1d"], ["5d"], ["close"], ["true"], ["false"])
    assert "crumb" in query


def test_defaults_fields_and_cache(api, yahoo, two):
    first = api.get("/v2/spark?symbols=MSFT&fields=closes,nope").json()
    assert first == {"sparks": [{"symbol": "MSFT",
                                 "closes": [409.64, 414.77, 416.13, 408.21]}], "errors": []}
    api.get("/v2/spark?symbols=MSFT,AAPL")
    queries = sent(yahoo)
    assert [q["symbols"] for q in queries] == [["MSFT"], ["AAPL"]]  # MSFT came from cache
    assert (queries[0]["interval"], queries[0]["range"]) == (["1d"], ["1mo"])


def test_more_than_twenty_symbols_take_two_requests(api, yahoo):
    symbols = [f"S{i}" for i in range(25)]
    yahoo.get(URL, body(item("S0", STAMPS, [1, 2, 3, 4, 5])))
    data = api.get(f"/v2/spark?symbols={','.join(symbols)}").json()
    assert [s["symbol"] for s in data["sparks"]] == ["S0"] and len(data["errors"]) == 24
    assert [len(q["symbols"][0].split(",")) for q in sent(yahoo)] == [20, 5]


def test_yahoo_404_lists_every_symbol_in_errors(api, yahoo):
    yahoo.get(URL, {"spark": {"result": None, "error": {
        "code": "Not Found", "description": "No data found for spark symbols"}}}, status=404)
    response = api.get("/v2/spark?symbols=ZZZZ,YYYY")
    assert response.status_code == 200
    assert response.json() == {"sparks": [], "errors": [
        {"symbol": "ZZZZ", "message": "Symbol not found"},
        {"symbol": "YYYY", "message": "Symbol not found"}]}


@pytest.mark.parametrize("path", [
    "/v2/spark", "/v2/spark?symbols=", "/v2/spark?symbols=,,",
    "/v2/spark?symbols=" + ",".join(f"S{i}" for i in range(51)),
    "/v2/spark?symbols=AAPL&interval=2h", "/v2/spark?symbols=AAPL&range=7d",
    "/v2/spark?symbols=AAPL&interval=1m&range=1mo", "/v2/spark?symbols=AAPL&range=max",
])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 400, response.content
    assert response.json()["status"] == 400 and response.json()["error"]
    assert not calls_to(yahoo.mock, "/spark")


def test_only_malformed_symbols_make_no_call(api, yahoo):
    data = api.get("/v2/spark?symbols=A%2FB").json()
    assert data["sparks"] == [] and data["errors"][0]["message"] == "Symbol not found"
    assert not calls_to(yahoo.mock, "/spark")


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, URL, kind)
    status, _ = FAILURES[kind]
    response = api.get("/v2/spark?symbols=AAPL,MSFT")
    assert response.status_code == status
    assert response.json()["status"] == status and response.json()["provider"] == "yahoo"


def test_a_body_that_is_no_spark_answer_is_a_502(api, yahoo):
    yahoo.get(URL, {"chart": {}})
    response = api.get("/v2/spark?symbols=AAPL")
    assert response.status_code == 502 and response.json()["provider"] == "yahoo"


@pytest.mark.parametrize(("interval", "range_"), [("1d", "1mo"), ("1h", "5d"), ("5m", "1d"),
                                                   ("1wk", "1y"), ("1mo", "max")])
def test_sparks_through_the_sandbox(api, sandbox_upstream, interval, range_):
    symbols = ["AAPL", "SPY", "SAP.DE", "7203.T"]
    data = api.get(f"/v2/spark?symbols={','.join(symbols)},ZZZZ&interval={interval}"
                   f"&range={range_}").json()
    assert [s["symbol"] for s in data["sparks"]] == symbols
    assert data["errors"] == [{"symbol": "ZZZZ", "message": "Symbol not found"}]
    for spark in data["sparks"]:
        assert len(spark["timestamps"]) == len(spark["closes"]) > 0
        assert spark["timestamps"] == sorted(spark["timestamps"])
        assert all(isinstance(c, float) for c in spark["closes"])
        assert spark["meta"]["symbol"] == spark["symbol"]
        assert spark["meta"]["dataGranularity"] == interval


def test_the_sandbox_spark_agrees_with_the_chart(api, sandbox_upstream):
    spark = api.get("/v2/spark?symbols=SAP.DE&interval=1h&range=5d").json()["sparks"][0]
    chart = api.get("/v2/chart/SAP.DE?interval=1h&range=5d").json()
    assert spark["timestamps"] == [c["timestamp"] for c in chart["candles"]]
    assert spark["closes"] == [c["close"] for c in chart["candles"]]
    assert spark["meta"] == chart["meta"]


def test_the_operation_is_described(api):
    operation = api.get("/openapi.json").json()["paths"]["/v2/spark"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert {"symbols", "interval", "range", "fields"} <= set(params)
    assert params["range"]["schema"]["default"] == "1mo"
