"""GET /v2/chart/{symbol}, /v2/charts, /v2/capital-gains/{symbol} and /v2/capital-gains.

Yahoo is mocked with the real recordings (values must come out exactly as recorded) or
small hand-made bodies in Yahoo's shape; the sandbox tests run the real client and parsers
against the in-process simulator.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.indicators.patterns import PATTERNS, detect_patterns
from tests.apps.payloads import CHART_NOT_FOUND, FAILURES, QUERY2, chart_payload, fail_url
from tests.conftest import calls_to

AAPL_SPLIT = "yahoo/v8-chart/chart-AAPL-2020-08-31-to-2020-11-07.json"
MSFT_DIVIDENDS = "yahoo/v8-chart/historical-via-chart-MSFT-dividends-2021-02-01-to-2022-01-31.json"
FUND = "yahoo/v8-chart/chart-0P000071W8.TO-2020-01-01-to-2020-01-03.json"
EMPTY_1M = ("yahoo/v8-chart/"
            "chart-AAPL-2025-02-01-to-2025-02-02-includePrePost-false-interval-1m.json")
CANDLE_KEYS = ["timestamp", "open", "high", "low", "close", "adjClose", "volume"]
META_KEYS = {
    "chartPreviousClose", "fiftyTwoWeekHigh", "fiftyTwoWeekLow", "previousClose",
    "regularMarketDayHigh", "regularMarketDayLow", "regularMarketPrice", "currency",
    "dataGranularity", "exchangeName", "exchangeTimezoneName", "fullExchangeName",
    "instrumentType", "range", "symbol", "timezone", "firstTradeDate", "gmtOffset",
    "priceHint", "regularMarketTime", "regularMarketVolume", "hasPrePostMarketData"}


def chart_calls(yahoo) -> list[dict[str, list[str]]]:
    return [parse_qs(urlsplit(c.request.url).query)
            for c in calls_to(yahoo.mock, "/v8/finance/chart/")]


def recorded_candles(payload) -> list[dict]:
    result = payload["chart"]["result"][0]
    quote = result["indicators"]["quote"][0]
    adj = (result["indicators"].get("adjclose") or [{}])[0].get("adjclose")
    out = []
    for i, ts in enumerate(result["timestamp"]):
        if any(quote[f][i] is None for f in ("open", "high", "low", "close")):
            continue
        out.append({"timestamp": ts, "open": quote["open"][i], "high": quote["high"][i],
                    "low": quote["low"][i], "close": quote["close"][i],
                    "adjClose": adj[i] if adj else None, "volume": quote["volume"][i] or 0})
    return out


@pytest.fixture
def aapl(yahoo, recording):
    payload = recording(AAPL_SPLIT)
    yahoo.chart("AAPL", payload)
    return payload


# ---- /v2/chart/{symbol} -----------------------------------------------------------------------

def test_chart_values_exactly_as_recorded(api, yahoo, aapl):
    response = api.get("/v2/chart/aapl?range=3mo")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == ["symbol", "interval", "range", "meta", "candles"]
    assert (body["symbol"], body["interval"], body["range"]) == ("AAPL", "1d", "3mo")
    assert body["candles"] == recorded_candles(aapl)
    assert all(list(c) == CANDLE_KEYS for c in body["candles"])
    meta = aapl["chart"]["result"][0]["meta"]
    assert set(body["meta"]) == META_KEYS
    assert body["meta"]["gmtOffset"] == meta["gmtoffset"] == -18000
    assert body["meta"]["firstTradeDate"] == meta["firstTradeDate"]
    assert body["meta"]["regularMarketTime"] == meta["regularMarketTime"]
    assert body["meta"]["regularMarketPrice"] == meta["regularMarketPrice"]
    assert body["meta"]["hasPrePostMarketData"] is True
    # Yahoo sends no previousClose on daily bars; this window (2020) ends long before the
    # recording's regularMarketTime, so the session before it is not in the chart.
    assert meta.get("previousClose") is None and body["meta"]["previousClose"] is None
    assert chart_calls(yahoo) == [{"range": ["3mo"], "interval": ["1d"],
                                   "includePrePost": ["false"],
                                   "events": ["div,split,capitalGain"]}]


def test_chart_defaults(api, yahoo, aapl):
    body = api.get("/v2/chart/AAPL").json()
    assert (body["interval"], body["range"]) == ("1d", "1mo")
    assert chart_calls(yahoo)[0]["range"] == ["1mo"]


def test_events(api, yahoo, aapl):
    body = api.get("/v2/chart/AAPL?range=3mo&events=true").json()
    assert body["events"] == {
        "dividends": [{"timestamp": 1604673000, "amount": 0.205}],
        "splits": [{"timestamp": 1598880600, "numerator": 4, "denominator": 1,
                    "ratio": "4:1"}],
        "capitalGains": []}
    # The same cached answer serves the chart with and without events.
    assert "events" not in api.get("/v2/chart/AAPL?range=3mo&events=false").json()
    assert len(chart_calls(yahoo)) == 1


def test_dividend_events_sorted(api, yahoo, recording):
    yahoo.chart("MSFT", recording(MSFT_DIVIDENDS))
    body = api.get("/v2/chart/MSFT?range=1y&events=true").json()
    assert [d["timestamp"] for d in body["events"]["dividends"]] == [
        1613572200, 1621431000, 1629293400, 1637159400]
    assert [d["amount"] for d in body["events"]["dividends"]] == [0.56, 0.56, 0.56, 0.62]


def test_patterns_aligned_with_candles(api, yahoo, aapl):
    body = api.get("/v2/chart/AAPL?range=3mo&patterns=true").json()
    candles = body["candles"]
    assert len(body["patterns"]) == len(candles)
    assert body["patterns"] == detect_patterns(*([c[k] for c in candles]
                                                 for k in ("open", "high", "low", "close")))
    assert any(p is not None for p in body["patterns"])
    assert {p for p in body["patterns"] if p is not None} <= set(PATTERNS)


def test_paging_candles_and_patterns_together(api, yahoo, aapl):
    everything = api.get("/v2/chart/AAPL?range=3mo&patterns=true").json()
    first = api.get("/v2/chart/AAPL?range=3mo&patterns=true&limit=20").json()
    candles, patterns = first["candles"], first["patterns"]
    assert candles["nodes"] == everything["candles"][:20]
    assert patterns["nodes"] == everything["patterns"][:20]
    assert [e["cursor"] for e in candles["edges"]] == [e["cursor"] for e in patterns["edges"]]
    assert candles["pageInfo"] == patterns["pageInfo"]
    assert candles["pageInfo"]["hasNextPage"] is True
    cursor = candles["pageInfo"]["endCursor"]
    second = api.get(f"/v2/chart/AAPL?range=3mo&patterns=true&limit=20&cursor={cursor}").json()
    assert second["candles"]["nodes"] == everything["candles"][20:40]
    assert second["patterns"]["nodes"] == everything["patterns"][20:40]
    assert second["meta"] == everything["meta"]
    assert len(chart_calls(yahoo)) == 1


def test_fields(api, yahoo, aapl):
    body = api.get("/v2/chart/AAPL?range=3mo&fields=meta, candles,nonsense").json()
    assert list(body) == ["meta", "candles"]
    assert api.get("/v2/chart/AAPL?range=3mo&fields=symbol,events").json() == {
        "symbol": "AAPL", "events": None}
    assert len(api.get("/v2/chart/AAPL?range=3mo&fields=nonsense").json()) == 5


def test_absolute_window(api, yahoo, aapl):
    response = api.get("/v2/chart/AAPL?start=1598832000&end=1604707200&range=5d")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["range"] is None
    assert body["candles"] == recorded_candles(aapl)
    api.get("/v2/chart/AAPL?start=1598832000&end=1604707200")
    assert chart_calls(yahoo) == [{"period1": ["1598832000"], "period2": ["1604707200"],
                                   "interval": ["1d"], "includePrePost": ["false"],
                                   "events": ["div,split,capitalGain"]}]


def test_start_without_end_ends_now(api, yahoo, aapl):
    before = int(time.time())
    assert api.get("/v2/chart/AAPL?start=1598832000").status_code == 200
    (query,) = chart_calls(yahoo)
    assert before <= int(query["period2"][0]) <= int(time.time())


@pytest.mark.parametrize(("query", "message"), [
    ("end=1604707200", "`end` requires `start` to be set"),
    ("start=1604707200&end=1604707200", "`start` must be before `end` (which defaults to now)"),
    ("start=1604707200&end=1598832000", "`start` must be before `end` (which defaults to now)"),
    ("start=99999999999", "`start` must be before `end` (which defaults to now)"),
    ("start=1598832000&end=1599832000&interval=1m",
     "If interval is 1m, the window (`start` to `end`) must span at most 8 days"),
    ("start=-1", "start: Input should be greater than or equal to 0"),
    ("start=abc", "start: Input should be a valid integer, unable to parse string as an "
                  "integer"),
    ("interval=2h", "interval: Input should be '1m', '2m', '5m', '15m', '30m', '1h', '90m', "
                    "'1d', '5d', '1wk', '1mo' or '3mo'"),
    ("range=7y", "range: Input should be '1d', '5d', '1mo', '3mo', '6mo', '1y', '2y', '5y', "
                 "'10y', 'ytd' or 'max'"),
    ("interval=1m&range=1y", "If interval is 1m, range must be 1d, 5d"),
    ("range=max", "If range is max, interval must be 1mo"),
    ("events=maybe", None),
    ("limit=-1", "limit: Input should be greater than or equal to 0"),
    ("cursor=!!", "cursor: Invalid cursor"),
])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, query, message):
    response = api.get(f"/v2/chart/AAPL?{query}")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == 400
    if message is not None:
        assert body == {"error": message, "status": 400}
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


def test_null_volume_is_zero_and_missing_adjclose_is_null(api, yahoo):
    yahoo.chart("AAPL", chart_payload("AAPL", [1705415400, 1705415700, 1705416000], [
        (100.0, 101.0, 99.0, 100.5, None), (None, None, None, None, None),
        (100.5, 102.0, 100.0, 101.5, 2000)], granularity="5m"))
    body = api.get("/v2/chart/AAPL?interval=5m&range=1d").json()
    assert body["candles"] == [
        {"timestamp": 1705415400, "open": 100.0, "high": 101.0, "low": 99.0, "close": 100.5,
         "adjClose": None, "volume": 0},
        {"timestamp": 1705416000, "open": 100.5, "high": 102.0, "low": 100.0, "close": 101.5,
         "adjClose": None, "volume": 2000}]


def test_empty_window_is_an_empty_list(api, yahoo, recording):
    yahoo.chart("AAPL", recording(EMPTY_1M))
    response = api.get("/v2/chart/AAPL?interval=1m&range=1d&patterns=true")
    assert response.status_code == 200
    assert response.json()["candles"] == [] and response.json()["patterns"] == []


def test_fund_without_adjclose_or_volume(api, yahoo, recording):
    payload = recording(FUND)
    yahoo.chart("0P000071W8.TO", payload)
    body = api.get("/v2/chart/0P000071W8.TO?range=5d").json()
    assert body["candles"] == recorded_candles(payload)


def test_unknown_symbol_404(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v2/chart/ZZZZ")
    assert response.status_code == 404
    assert response.json() == {"error": "No data found for symbol ZZZZ", "status": 404}


@pytest.mark.parametrize("symbol", ["..", "AA PL", "A%2FB", "x" * 300, "%C5%BFpy"])
def test_malformed_symbol_404_without_upstream_call(api, yahoo, symbol):
    for path in (f"/v2/chart/{symbol}", f"/v2/capital-gains/{symbol}"):
        response = api.get(path)
        assert response.status_code == 404
        assert response.json()["status"] == 404
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures(api, yahoo, kind):
    fail_url(yahoo.mock, QUERY2 + "/v8/finance/chart/AAPL", kind)
    status, _ = FAILURES[kind]
    for path in ("/v2/chart/AAPL", "/v2/charts?symbols=AAPL", "/v2/capital-gains/AAPL",
                 "/v2/capital-gains?symbols=AAPL"):
        response = api.get(path)
        assert response.status_code == status, path
        body = response.json()
        assert body["status"] == status and body["provider"] == "yahoo" and body["error"]


def test_chart_through_the_sandbox(api, sandbox_upstream):
    response = api.get("/v2/chart/AAPL?range=10y&events=true&patterns=true")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["symbol"] == "AAPL" and body["meta"]["symbol"] == "AAPL"
    assert set(body["meta"]) == META_KEYS
    assert isinstance(body["meta"]["gmtOffset"], int)
    candles = body["candles"]
    assert len(candles) > 2000 and len(body["patterns"]) == len(candles)
    stamps = {c["timestamp"] for c in candles}
    events = body["events"]
    assert events["dividends"] and all(d["timestamp"] in stamps for d in events["dividends"])
    # AAPL's real 4:1 split of 2020-08-31 (its 7:1 of 2014 is before the ten years).
    (split,) = events["splits"]
    assert split["ratio"] == "4:1" and split["timestamp"] in stamps
    assert datetime.fromtimestamp(split["timestamp"], UTC).date() == date(2020, 8, 31)
    assert events["capitalGains"] == []
    window = api.get(f"/v2/chart/AAPL?start={split['timestamp'] - 5 * 86400}"
                     f"&end={split['timestamp'] + 5 * 86400}&events=true").json()
    assert window["range"] is None
    assert window["events"]["splits"] == [split]
    assert 5 <= len(window["candles"]) <= 8
    paged = api.get("/v2/chart/AAPL?range=1mo&patterns=true&limit=5").json()
    assert len(paged["candles"]["nodes"]) == len(paged["patterns"]["nodes"]) == 5


# ---- /v2/charts -------------------------------------------------------------------------------

def test_batch_request_order_errors_and_defaults(api, yahoo, recording):
    yahoo.chart("MSFT", recording(MSFT_DIVIDENDS))
    yahoo.chart("AAPL", recording(AAPL_SPLIT))
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v2/charts?symbols=msft,ZZZZ,AAPL,MSFT,A%20B")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [item["symbol"] for item in body["charts"]] == ["MSFT", "AAPL"]
    assert [e["symbol"] for e in body["errors"]] == ["ZZZZ", "A B"]
    assert all(e["message"] for e in body["errors"])
    aapl = body["charts"][1]["chart"]
    assert aapl["candles"] == recorded_candles(recording(AAPL_SPLIT))
    assert (aapl["interval"], aapl["range"]) == ("1d", "1mo")
    assert "patterns" not in aapl and "events" not in aapl
    for query in chart_calls(yahoo):
        assert query["range"] == ["1mo"] and query["interval"] == ["1d"]
    assert len(chart_calls(yahoo)) == 3  # the malformed symbol is never sent


def test_batch_fields_and_patterns(api, yahoo, aapl):
    body = api.get("/v2/charts?symbols=AAPL&patterns=true&fields=patterns,nonsense").json()
    (item,) = body["charts"]
    assert list(item) == ["symbol", "chart"]
    assert list(item["chart"]) == ["patterns"]
    assert len(item["chart"]["patterns"]) == len(recorded_candles(aapl))
    assert body["errors"] == []


def test_batch_paging_over_symbols_inner_candles_bare(api, yahoo, recording):
    for symbol in ("MSFT", "IBM", "AAPL"):
        yahoo.chart(symbol, recording(AAPL_SPLIT))
    first = api.get("/v2/charts?symbols=MSFT,IBM,AAPL&limit=2&fields=symbol,candles").json()
    page = first["charts"]
    assert [n["symbol"] for n in page["nodes"]] == ["MSFT", "IBM"]
    assert page["pageInfo"] == {"startCursor": "MA", "endCursor": "MQ", "hasNextPage": True,
                                "hasPreviousPage": False}
    assert isinstance(page["nodes"][0]["chart"]["candles"], list)
    second = api.get("/v2/charts?symbols=MSFT,IBM,AAPL&limit=2&cursor=MQ").json()
    assert [n["symbol"] for n in second["charts"]["nodes"]] == ["AAPL"]


@pytest.mark.parametrize(("query", "message"), [
    ("", "symbols: Field required"),
    ("symbols=" + ",".join(f"S{i}" for i in range(51)),
     "symbols: List should have at most 50 items after validation, not 51"),
    ("symbols=AAPL&interval=2h", "interval: Input should be '1m', '2m', '5m', '15m', '30m', "
                                 "'1h', '90m', '1d', '5d', '1wk', '1mo' or '3mo'"),
    ("symbols=AAPL&interval=1m&range=1y", "If interval is 1m, range must be 1d, 5d"),
    ("symbols=AAPL&patterns=perhaps", None),
])
def test_batch_bad_requests(api, yahoo, query, message):
    response = api.get(f"/v2/charts?{query}")
    assert response.status_code == 400
    if message is not None:
        assert response.json() == {"error": message, "status": 400}
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


def test_batch_partial_upstream_failure_is_listed_and_not_cached(api, yahoo, aapl):
    fail_url(yahoo.mock, QUERY2 + "/v8/finance/chart/MSFT", "timeout")
    response = api.get("/v2/charts?symbols=AAPL,MSFT")
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    assert [e["symbol"] for e in response.json()["errors"]] == ["MSFT"]


def test_batch_all_unknown_is_200_with_errors(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v2/charts?symbols=ZZZZ")
    assert response.status_code == 200
    assert response.json()["charts"] == []
    assert [e["symbol"] for e in response.json()["errors"]] == ["ZZZZ"]


def test_batch_through_the_sandbox(api, sandbox_upstream):
    response = api.get("/v2/charts?symbols=SPY,AAPL,NOTFOUNDX&range=5d&patterns=true")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [item["symbol"] for item in body["charts"]] == ["SPY", "AAPL"]
    assert [e["symbol"] for e in body["errors"]] == ["NOTFOUNDX"]
    for item in body["charts"]:
        chart = item["chart"]
        assert chart["symbol"] == item["symbol"] and chart["range"] == "5d"
        assert 4 <= len(chart["candles"]) <= 6
        assert len(chart["patterns"]) == len(chart["candles"])


# ---- /v2/capital-gains --------------------------------------------------------------------------

DAY = 86400


def fund_chart(symbol: str, gains: dict[int, float] | None, now: int) -> dict:
    """A monthly chart body in Yahoo's shape with capitalGains (and a dividend) events."""
    stamps = [now - 400 * DAY, now - 30 * DAY]
    body = chart_payload(symbol, stamps, [(10.0, 10.0, 10.0, 10.0, 0)] * 2,
                         adjclose=[9.5, 10.0], granularity="1mo")
    events = {"dividends": {str(now - 100 * DAY): {"amount": 0.3, "date": now - 100 * DAY}}}
    if gains is not None:
        events["capitalGains"] = {str(ts): {"amount": amount, "date": ts}
                                  for ts, amount in gains.items()}
    body["chart"]["result"][0]["events"] = events
    return body


@pytest.fixture
def fund(yahoo):
    now = int(time.time())
    gains = {now - 4000 * DAY: 0.11, now - 700 * DAY: 0.52, now - 20 * DAY: 0.25,
             now - 200 * DAY: 1.5}
    yahoo.chart("VFIAX", fund_chart("VFIAX", gains, now))
    return {"now": now, "gains": gains}


def test_capital_gains_all_history_ascending(api, yahoo, fund):
    response = api.get("/v2/capital-gains/vfiax")
    assert response.status_code == 200, response.content
    assert response.json() == [{"amount": fund["gains"][ts], "timestamp": ts}
                               for ts in sorted(fund["gains"])]
    assert chart_calls(yahoo) == [{"range": ["max"], "interval": ["1mo"],
                                   "includePrePost": ["false"],
                                   "events": ["div,split,capitalGain"]}]


@pytest.mark.parametrize(("range_", "days"), [("1mo", [20]), ("1y", [200, 20]),
                                             ("2y", [700, 200, 20]), ("5d", []),
                                             ("10y", [700, 200, 20]),
                                             ("max", [4000, 700, 200, 20])])
def test_capital_gains_range_cutoff(api, yahoo, fund, range_, days):
    body = api.get(f"/v2/capital-gains/VFIAX?range={range_}").json()
    assert [g["timestamp"] for g in body] == [fund["now"] - d * DAY for d in days]


def test_capital_gains_ytd(api, yahoo, fund):
    from datetime import UTC, datetime

    jan1 = datetime(datetime.now(UTC).year, 1, 1, tzinfo=UTC).timestamp()
    body = api.get("/v2/capital-gains/VFIAX?range=ytd").json()
    assert [g["timestamp"] for g in body] == sorted(ts for ts in fund["gains"] if ts >= jan1)


def test_capital_gains_fields_and_one_upstream_call_for_every_range(api, yahoo, fund):
    body = api.get("/v2/capital-gains/VFIAX?fields=amount").json()
    assert body == [{"amount": fund["gains"][ts]} for ts in sorted(fund["gains"])]
    api.get("/v2/capital-gains/VFIAX?range=1y")
    assert len(chart_calls(yahoo)) == 1


def test_fund_without_capital_gains_is_empty(api, yahoo, recording):
    yahoo.chart("0P000071W8.TO", recording(FUND))
    response = api.get("/v2/capital-gains/0P000071W8.TO")
    assert response.status_code == 200
    assert response.json() == []


def test_capital_gains_unknown_symbol_404(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v2/capital-gains/ZZZZ")
    assert response.status_code == 404
    assert response.json() == {"error": "No data found for symbol ZZZZ", "status": 404}


@pytest.mark.parametrize("path", ["/v2/capital-gains/VFIAX?range=7y",
                                  "/v2/capital-gains?symbols=VFIAX&range=7y",
                                  "/v2/capital-gains"])
def test_capital_gains_bad_requests(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 400
    assert response.json()["status"] == 400
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


def test_capital_gains_batch(api, yahoo, fund, recording):
    yahoo.chart("0P000071W8.TO", recording(FUND))
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v2/capital-gains?symbols=ZZZZ,vfiax,0P000071W8.TO&range=1y"
                       "&fields=timestamp")
    assert response.status_code == 200, response.content
    body = response.json()
    now = fund["now"]
    assert body == {
        "capitalGains": [
            {"symbol": "VFIAX", "capitalGains": [{"timestamp": now - 200 * DAY},
                                                 {"timestamp": now - 20 * DAY}]},
            {"symbol": "0P000071W8.TO", "capitalGains": []}],
        "errors": [{"symbol": "ZZZZ", "message": "No data found for symbol ZZZZ"}]}


def test_capital_gains_through_the_sandbox(api, sandbox_upstream):
    gains = api.get("/v2/capital-gains/VFIAX")
    assert gains.status_code == 200, gains.content
    history = gains.json()
    assert len(history) >= 3
    stamps = [g["timestamp"] for g in history]
    assert stamps == sorted(stamps)
    assert all(0 < g["amount"] for g in history)
    recent = api.get("/v2/capital-gains/VFIAX?range=5y").json()
    assert recent == [g for g in history if g["timestamp"] >= time.time() - 1825 * DAY]
    assert api.get("/v2/capital-gains/AAPL").json() == []
    assert api.get("/v2/capital-gains/NOTFOUNDX").status_code == 404
    batch = api.get("/v2/capital-gains?symbols=VFIAX,AAPL").json()
    assert batch == {"capitalGains": [{"symbol": "VFIAX", "capitalGains": history},
                                      {"symbol": "AAPL", "capitalGains": []}], "errors": []}
    # The chart's own events agree with the capital-gains endpoint.
    chart = api.get("/v2/chart/VFIAX?range=max&interval=1mo&events=true").json()
    assert chart["events"]["capitalGains"] == [
        {"timestamp": g["timestamp"], "amount": g["amount"]} for g in history]


# ---- the OpenAPI document describes the answers -------------------------------------------------

@pytest.mark.parametrize(("path", "url"), [
    ("/v2/chart/{symbol}", "/v2/chart/KO?range=1y&events=true&patterns=true"),
    ("/v2/chart/{symbol}", "/v2/chart/KO?range=1mo&patterns=true&limit=3&fields=candles,"
                           "patterns,range"),
    ("/v2/chart/{symbol}", "/v2/chart/KO?start=1589500000&end=1589900000"),
    ("/v2/charts", "/v2/charts?symbols=KO,NOTFOUNDX&range=5d&patterns=true"),
    ("/v2/charts", "/v2/charts?symbols=KO,SPY&range=5d&limit=1"),
    ("/v2/capital-gains/{symbol}", "/v2/capital-gains/VFIAX"),
    ("/v2/capital-gains", "/v2/capital-gains?symbols=VFIAX,AAPL,NOTFOUNDX"),
])
def test_answers_match_the_openapi_schema(api, sandbox_upstream, path, url):
    import jsonschema

    from tests.apps.test_schema_validation_api import openapi

    document = openapi()
    schema = document["paths"][path]["get"]["responses"]["200"]["content"][
        "application/json"]["schema"]
    response = api.get(url)
    assert response.status_code == 200, response.content
    jsonschema.Draft202012Validator({**schema, "components": document.get("components", {})}
                                    ).validate(response.json())
