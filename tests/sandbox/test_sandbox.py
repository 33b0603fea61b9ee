"""Tests of the Yahoo upstream sandbox: payload shapes, determinism, rules, faults, server."""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from marketdata.sandbox import SandboxResponse, UpstreamSandbox, get_sandbox
from marketdata.sandbox.core import REQUEST_LOG_CAP
from marketdata.sandbox.instruments import get_instrument, is_known_symbol
from marketdata.sandbox.yahoo.chart import RANGES
from tests.sandbox.servers import serving

UPSTREAM = Path(__file__).resolve().parents[2].parent / "shared" / "upstream" / "yahoo"
needs_recordings = pytest.mark.skipif(not UPSTREAM.is_dir(), reason="no shared/upstream")

Q1 = "query1.finance.yahoo.com"
Q2 = "query2.finance.yahoo.com"

# Fixed clocks (2026-11-20 is a Friday; New York is on EST, UTC-5).
REGULAR = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)  # 12:00 ET
PRE = datetime(2026, 11, 20, 13, 0, tzinfo=UTC)  # 08:00 ET
POST = datetime(2026, 11, 20, 22, 30, tzinfo=UTC)  # 17:30 ET
CLOSED = datetime(2026, 11, 21, 2, 30, tzinfo=UTC)  # 21:30 ET
WEEKEND = datetime(2026, 11, 22, 15, 0, tzinfo=UTC)  # Sunday


def make(clock: datetime = REGULAR, **kwargs: Any) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock, **kwargs)


def get(sb: UpstreamSandbox, path: str, host: str = Q2, headers: dict[str, str] | None = None,
        **query: str) -> SandboxResponse:
    return sb.handle("GET", host, path, {k: [v] for k, v in query.items()}, headers or {})


def body(resp: SandboxResponse) -> Any:
    return json.loads(resp.body)


def crumb_for(sb: UpstreamSandbox) -> tuple[str, str]:
    """Walk the handshake: (cookie header, crumb)."""
    first = get(sb, "/", host="fc.yahoo.com")
    cookie = first.headers["Set-Cookie"].split(";")[0]
    answer = get(sb, "/v1/test/getcrumb", host=Q1, headers={"Cookie": cookie})
    assert answer.status == 200
    return cookie, answer.body.decode()


def chart(sb: UpstreamSandbox, symbol: str, **query: str) -> dict[str, Any]:
    resp = get(sb, f"/v8/finance/chart/{symbol}", **query)
    assert resp.status == 200, resp.body
    return body(resp)["chart"]["result"][0]


def recording(*parts: str) -> Any:
    return json.loads((UPSTREAM.joinpath(*parts)).read_text())


# --- chart --------------------------------------------------------------------------------

@needs_recordings
def test_chart_keys_match_recording() -> None:
    rec = recording("v8-chart", "chart-AAPL-2020-01-01-to-2020-01-03.json")["chart"]
    got = chart(make(), "AAPL", period1="1577836800", period2="1578009600", interval="1d")
    want = rec["result"][0]
    assert set(got) == set(want)
    assert set(got["meta"]) == set(want["meta"])
    assert list(got["meta"]) == list(want["meta"])  # same key order too
    assert set(got["meta"]["currentTradingPeriod"]) == {"pre", "regular", "post"}
    assert set(got["indicators"]) == set(want["indicators"])
    assert set(got["indicators"]["quote"][0]) == set(want["indicators"]["quote"][0])
    # Same session grid as the recording: the one bar sits at the 2020-01-02 09:30 ET open.
    assert got["timestamp"] == want["timestamp"]
    assert got["meta"]["range"] == "" and got["meta"]["dataGranularity"] == "1d"


@needs_recordings
@pytest.mark.parametrize(("symbol", "name"), [
    ("BTC-USD", "chart-BTC-USD-2020-01-01-to-2020-01-03.json"),
    ("EURUSD=X", "chart-EURUSD_X-2020-01-01-to-2020-01-03.json"),
    ("GC=F", "chart-GC_F-2020-01-01-to-2020-01-03.json"),
])
def test_chart_meta_keys_per_quote_type(symbol: str, name: str) -> None:
    want = recording("v8-chart", name)["chart"]["result"][0]
    got = chart(make(), symbol, period1="1577836800", period2="1578009600", interval="1d")
    assert set(got["meta"]) == set(want["meta"])
    assert got["meta"]["instrumentType"] == want["meta"]["instrumentType"]
    assert got["meta"]["priceHint"] == want["meta"]["priceHint"]


def test_chart_intraday_has_no_adjclose_and_daily_has_it() -> None:
    sb = make()
    intraday = chart(sb, "AAPL", range="1d", interval="5m")
    daily = chart(sb, "AAPL", range="1mo", interval="1d")
    assert "adjclose" not in intraday["indicators"]
    assert len(daily["indicators"]["adjclose"][0]["adjclose"]) == len(daily["timestamp"])
    assert {"previousClose", "scale", "tradingPeriods"} <= set(intraday["meta"])


def test_chart_is_deterministic_and_prefix_stable() -> None:
    a = get(make(), "/v8/finance/chart/MSFT", range="1y", interval="1d")
    b = get(make(), "/v8/finance/chart/MSFT", range="1y", interval="1d")
    assert a.body == b.body
    # The same day has the same bar whatever the range or the clock (past days only).
    short = chart(make(), "MSFT", range="1mo", interval="1d")
    later = chart(make(datetime(2027, 3, 1, 18, 0, tzinfo=UTC)), "MSFT", range="2y",
                  interval="1d")
    rows = {}
    for res in (short, later):
        q = res["indicators"]["quote"][0]
        for k, ts in enumerate(res["timestamp"]):
            rows.setdefault(ts, []).append(tuple(q[c][k] for c in ("open", "high", "low",
                                                                   "close", "volume")))
    shared = [ts for ts, seen in rows.items() if len(seen) == 2]
    assert len(shared) > 15
    # The last bar of `short` is the forming one (market open at REGULAR): skip it.
    for ts in shared[:-1]:
        assert rows[ts][0] == rows[ts][1]


def test_weekly_bars_do_not_depend_on_range() -> None:
    sb = make()
    three = chart(sb, "AAPL", range="3mo", interval="1wk")
    year = chart(sb, "AAPL", range="1y", interval="1wk")
    q3, qy = three["indicators"]["quote"][0], year["indicators"]["quote"][0]
    index = {ts: k for k, ts in enumerate(year["timestamp"])}
    for k, ts in enumerate(three["timestamp"]):
        j = index[ts]
        assert [q3[c][k] for c in ("open", "high", "low", "close", "volume")] == \
               [qy[c][j] for c in ("open", "high", "low", "close", "volume")]
    # Weekly bars start on Monday 00:00 New York time.
    for ts in year["timestamp"]:
        local = datetime.fromtimestamp(ts, ZoneInfo("America/New_York"))
        assert local.weekday() == 0 and local.hour == 0


# Which intraday ranges Yahoo serves: 1m 8 days back, 5m..30m 60 days, 1h 730 days.
ALLOWED = {
    "1m": {"1d", "5d"}, "5m": {"1d", "5d", "1mo"}, "15m": {"1d", "5d", "1mo"},
    "30m": {"1d", "5d", "1mo"},
    "1h": {"1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y"},
}


@pytest.mark.parametrize("symbol", ["AAPL", "BTC-USD"])
@pytest.mark.parametrize("interval", ["1m", "5m", "15m", "30m", "1h", "1d", "1wk", "1mo"])
def test_range_interval_matrix(symbol: str, interval: str) -> None:
    sb = make()
    for range_ in RANGES:
        resp = get(sb, f"/v8/finance/chart/{symbol}", range=range_, interval=interval)
        allowed = ALLOWED.get(interval, set(RANGES))
        if range_ not in allowed:
            assert resp.status == 422, (range_, interval)
            err = body(resp)["chart"]
            assert err["result"] is None and err["error"]["code"] == "Unprocessable Entity"
            assert f"{interval} data not available for startTime=" in \
                err["error"]["description"]
            continue
        assert resp.status == 200, (range_, interval, resp.body[:200])
        res = body(resp)["chart"]["result"][0]
        ts = res["timestamp"]
        assert ts, (range_, interval)
        assert all(b > a for a, b in itertools.pairwise(ts)), (range_, interval)
        quote = res["indicators"]["quote"][0]
        assert all(len(quote[c]) == len(ts) for c in ("open", "high", "low", "close",
                                                      "volume"))
        assert res["meta"]["range"] == range_ and res["meta"]["dataGranularity"] == interval


def test_one_minute_error_text() -> None:
    resp = get(make(), "/v8/finance/chart/AAPL", range="1mo", interval="1m")
    assert resp.status == 422
    text = body(resp)["chart"]["error"]["description"]
    assert text.endswith("Only 7 days worth of 1m granularity data are allowed to be fetched "
                         "per request.")


def test_intraday_rows_sometimes_null_and_bars_are_sane() -> None:
    res = chart(make(), "AAPL", range="5d", interval="1m")
    q = res["indicators"]["quote"][0]
    nulls = [k for k, c in enumerate(q["close"]) if c is None]
    assert 0 < len(nulls) < 0.02 * len(q["close"])
    for k in nulls:
        assert all(q[c][k] is None for c in ("open", "high", "low", "volume"))
    for k, c in enumerate(q["close"]):
        if c is not None:
            assert q["low"][k] <= min(q["open"][k], c) <= max(q["open"][k], c) <= q["high"][k]
    assert q["close"][-1] is not None  # the newest bar is never nulled


def test_intraday_aggregates_to_the_daily_bar() -> None:
    sb = make(POST)
    minutes = chart(sb, "NVDA", range="1d", interval="1m")
    day = chart(sb, "NVDA", range="5d", interval="1d")
    mq, dq = minutes["indicators"]["quote"][0], day["indicators"]["quote"][0]
    rows = [k for k, c in enumerate(mq["close"]) if c is not None]
    assert len(minutes["timestamp"]) == 390
    assert minutes["timestamp"][0] == day["timestamp"][-1]  # 09:30 ET session open
    assert max(mq["high"][k] for k in rows) <= dq["high"][-1]
    assert min(mq["low"][k] for k in rows) >= dq["low"][-1]
    assert mq["open"][0] in (dq["open"][-1], None)
    assert mq["close"][-1] == dq["close"][-1]


def test_daily_timestamps_follow_the_exchange() -> None:
    sb = make()
    us = chart(sb, "AAPL", range="1mo", interval="1d")["timestamp"]
    for ts in us:
        local = datetime.fromtimestamp(ts, ZoneInfo("America/New_York"))
        assert (local.hour, local.minute) == (9, 30) and local.weekday() < 5
    # 2026-11-26 is Thanksgiving: no session.
    later = make(datetime(2026, 12, 10, 18, 0, tzinfo=UTC))
    p1 = int(datetime(2026, 11, 23, tzinfo=UTC).timestamp())
    p2 = int(datetime(2026, 11, 28, tzinfo=UTC).timestamp())
    nov = chart(later, "AAPL", period1=str(p1), period2=str(p2), interval="1d")
    days = {datetime.fromtimestamp(t, UTC).date().isoformat() for t in nov["timestamp"]}
    assert days == {"2026-11-23", "2026-11-24", "2026-11-25", "2026-11-27"}
    crypto = chart(make(WEEKEND), "BTC-USD", range="5d", interval="1d")["timestamp"]
    assert len(crypto) == 5 and all(t % 86400 == 0 for t in crypto)
    fx = chart(make(WEEKEND), "EURUSD=X", range="1mo", interval="1d")["timestamp"]
    assert all(datetime.fromtimestamp(t, UTC).weekday() < 5 for t in fx)


def test_dividend_events() -> None:
    res = chart(make(), "AAPL", range="2y", interval="1d", events="div,split")
    dividends = res["events"]["dividends"]
    assert 6 <= len(dividends) <= 9
    for key, item in dividends.items():
        assert int(key) == item["date"] and item["date"] in res["timestamp"]
        assert 0 < item["amount"] < 5
    assert list(res) == ["meta", "timestamp", "events", "indicators"]
    assert "events" not in chart(make(), "AAPL", range="2y", interval="1d")


def test_chart_unknown_symbol_and_bad_input() -> None:
    sb = make()
    for symbol in ("INVALIDSYM", "ZZZZ1", "FOO-NOTFOUND", "ab$%"):
        resp = get(sb, f"/v8/finance/chart/{symbol}", range="1d", interval="1d")
        assert resp.status == 404
        assert body(resp) == {"chart": {"result": None, "error": {
            "code": "Not Found", "description": "No data found, symbol may be delisted"}}}
    bad = get(sb, "/v8/finance/chart/AAPL", range="1d", interval="7m")
    assert bad.status == 400 and body(bad)["chart"]["error"]["code"] == "Bad Request"


def test_empty_window_shape() -> None:
    # A weekend window: no bars, Yahoo answers meta plus an empty quote object.
    res = chart(make(), "AAPL", period1="1795478400", period2="1795564800", interval="1d")
    assert "timestamp" not in res and res["indicators"] == {"quote": [{}]}


# --- v7 quote -------------------------------------------------------------------------------

CORE_QUOTE_KEYS = {
    "symbol", "shortName", "longName", "quoteType", "currency", "exchange", "fullExchangeName",
    "marketState", "regularMarketPrice", "regularMarketChange", "regularMarketChangePercent",
    "regularMarketPreviousClose", "regularMarketOpen", "regularMarketDayHigh",
    "regularMarketDayLow", "regularMarketVolume", "regularMarketTime", "fiftyTwoWeekHigh",
    "fiftyTwoWeekLow", "averageDailyVolume3Month", "marketCap", "priceHint",
    "exchangeTimezoneName", "gmtOffSetMilliseconds",
}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def quotes(sb: UpstreamSandbox, symbols: str, **query: str) -> SandboxResponse:
    _, crumb = crumb_for(sb)
    return get(sb, "/v7/finance/quote", host=Q1, symbols=symbols, crumb=crumb, **query)


NEWER_QUOTE_KEYS = ("allTimeHigh", "allTimeLow")


@needs_recordings
def test_quote_keys_and_types_match_recording() -> None:
    want = recording("v7-quote", "quote-AAPL.json")["quoteResponse"]["result"][0]
    resp = quotes(make(CLOSED), "AAPL")
    assert resp.status == 200 and resp.headers["Content-Type"].startswith("application/json")
    payload = body(resp)
    assert set(payload["quoteResponse"]) == {"result", "error"}
    got = payload["quoteResponse"]["result"][0]
    assert CORE_QUOTE_KEYS <= set(got)
    assert set(want) <= set(got), set(want) - set(got)
    # Same key order, and the members today's Yahoo added after the recording (2025-02).
    assert [k for k in got if k not in NEWER_QUOTE_KEYS] == [k for k in want if k in got]
    for key, value in want.items():
        assert _kind(got[key]) == _kind(value), key
    assert all(_kind(got[key]) == "number" for key in NEWER_QUOTE_KEYS)
    assert got["allTimeLow"] <= got["fiftyTwoWeekLow"] <= got["fiftyTwoWeekHigh"] \
        <= got["allTimeHigh"]
    for key in ("regularMarketTime", "regularMarketVolume", "postMarketTime", "marketCap",
                "sharesOutstanding", "firstTradeDateMilliseconds", "gmtOffSetMilliseconds"):
        assert isinstance(got[key], int), key


@needs_recordings
@pytest.mark.parametrize(("symbol", "name"), [
    ("QQQ", "quote-QQQ.json"), ("EURUSD=X", "quote-EURUSD_X.json"),
    ("BTC-USD", "quote-BTC-USD.json"), ("^VXAPL", "quote-idx_VXAPL.json"),
    ("0P000071W8.TO", "quote-0P000071W8.TO.json"), ("GC=F", "quote-GC_F.json"),
])
def test_quote_shapes_per_quote_type(symbol: str, name: str) -> None:
    want = recording("v7-quote", name)["quoteResponse"]["result"][0]
    got = body(quotes(make(CLOSED), symbol))["quoteResponse"]["result"][0]
    assert got["quoteType"] == want["quoteType"] and got["symbol"] == symbol
    missing = set(want) - set(got)
    assert not missing, missing
    assert [k for k in got if k in want] == [k for k in want if k in got]


def test_quote_batch_order_unknown_and_fields() -> None:
    sb = make()
    symbols = ["MSFT", "INVALID1", "BTC-USD", "^GSPC", "EURUSD=X", "ZZZZTOP", "SPY", "msft"]
    result = body(quotes(sb, ",".join(symbols)))["quoteResponse"]["result"]
    assert [q["symbol"] for q in result] == ["MSFT", "BTC-USD", "^GSPC", "EURUSD=X", "SPY"]
    assert {q["quoteType"] for q in result} == {"EQUITY", "CRYPTOCURRENCY", "INDEX", "CURRENCY",
                                                "ETF"}
    fx = result[3]
    assert fx["priceHint"] == 4 and 0.5 < fx["regularMarketPrice"] < 2
    only = body(quotes(sb, "TSLA", fields="symbol,shortName"))["quoteResponse"]["result"][0]
    assert "shortName" in only and "marketCap" not in only and "regularMarketPrice" in only
    assert quotes(sb, "").status == 400


def test_market_state_and_extended_hours() -> None:
    expected = {PRE: "PRE", REGULAR: "REGULAR", POST: "POST", CLOSED: "CLOSED",
                WEEKEND: "CLOSED"}
    for clock, state in expected.items():
        q = body(quotes(make(clock), "AAPL"))["quoteResponse"]["result"][0]
        assert q["marketState"] == state
        assert ("preMarketPrice" in q) == (state == "PRE")
        # After a session Yahoo keeps showing its post-market trade, pre-market included.
        assert ("postMarketPrice" in q) == (state != "REGULAR")
    btc = body(quotes(make(WEEKEND), "BTC-USD"))["quoteResponse"]["result"][0]
    assert btc["marketState"] == "REGULAR"


def test_quote_agrees_with_chart() -> None:
    for clock in (REGULAR, POST, PRE):
        sb = make(clock)
        q = body(quotes(sb, "AMZN"))["quoteResponse"]["result"][0]
        daily = chart(sb, "AMZN", range="5d", interval="1d")
        dq = daily["indicators"]["quote"][0]
        assert q["regularMarketPrice"] == dq["close"][-1] == daily["meta"]["regularMarketPrice"]
        assert q["regularMarketPreviousClose"] == dq["close"][-2]
        assert q["regularMarketDayHigh"] == dq["high"][-1]
        assert q["regularMarketVolume"] == dq["volume"][-1]
        change = q["regularMarketPrice"] - q["regularMarketPreviousClose"]
        assert q["regularMarketChangePercent"] == pytest.approx(
            change / q["regularMarketPreviousClose"] * 100, rel=1e-4)
    sb = make(REGULAR)
    minutes = chart(sb, "AMZN", range="1d", interval="1m")
    q = body(quotes(sb, "AMZN"))["quoteResponse"]["result"][0]
    assert minutes["indicators"]["quote"][0]["close"][-1] == q["regularMarketPrice"]
    assert q["regularMarketTime"] == int(REGULAR.timestamp())


# --- v10 quoteSummary -------------------------------------------------------------------------

MODULES = ("assetProfile,price,summaryDetail,defaultKeyStatistics,calendarEvents,"
           "quoteUnadjustedPerformanceOverview,quoteType,summaryProfile")


def summary(sb: UpstreamSandbox, symbol: str, modules: str = MODULES,
            **query: str) -> SandboxResponse:
    _, crumb = crumb_for(sb)
    return get(sb, f"/v10/finance/quoteSummary/{symbol}", modules=modules, crumb=crumb,
               **query)


def test_quote_summary_formatted_and_raw_agree() -> None:
    sb = make(PRE)
    raw = body(summary(sb, "AAPL", formatted="false"))["quoteSummary"]
    pretty = body(summary(sb, "AAPL", formatted="true"))["quoteSummary"]
    default = body(summary(sb, "AAPL"))["quoteSummary"]
    assert raw["error"] is None and default == pretty
    r, p = raw["result"][0], pretty["result"][0]
    assert list(r) == MODULES.split(",") and list(p) == list(r)
    for module in r:
        assert list(r[module]) == list(p[module]), module
    price_r, price_p = r["price"], p["price"]
    assert isinstance(price_r["regularMarketPrice"], float)
    assert price_p["regularMarketPrice"]["raw"] == price_r["regularMarketPrice"]
    assert re.fullmatch(r"[\d,]+\.\d\d", price_p["regularMarketPrice"]["fmt"])
    assert re.fullmatch(r"\d+\.\d\d[TBM]", price_p["marketCap"]["fmt"])
    assert price_p["marketCap"]["longFmt"] == f"{price_r['marketCap']:,}"
    assert re.fullmatch(r"-?\d+\.\d\d%", price_p["regularMarketChangePercent"]["fmt"])
    assert price_p["regularMarketTime"] == price_r["regularMarketTime"]  # times stay bare
    ex = p["summaryDetail"]["exDividendDate"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", ex["fmt"])
    assert datetime.fromtimestamp(ex["raw"], UTC).strftime("%Y-%m-%d") == ex["fmt"]
    dates = p["calendarEvents"]["earnings"]["earningsDate"]
    assert dates and all(set(d) == {"raw", "fmt"} for d in dates)
    perf = r["quoteUnadjustedPerformanceOverview"]
    assert perf["maxAge"] == 1
    assert set(perf["performanceOverview"]) == {
        "asOfDate", "fiveDaysReturn", "oneMonthReturn", "threeMonthReturn", "sixMonthReturn",
        "ytdReturnPct", "oneYearTotalReturn", "threeYearTotalReturn", "fiveYearTotalReturn",
        "tenYearTotalReturn", "maxReturn"}
    assert abs(perf["performanceOverview"]["oneMonthReturn"]) < 1.0  # a fraction


@needs_recordings
@pytest.mark.parametrize("module", ["price", "summaryDetail", "defaultKeyStatistics",
                                    "calendarEvents", "quoteType", "assetProfile",
                                    "summaryProfile"])
def test_quote_summary_keys_cover_recording(module: str) -> None:
    want = recording("v10-quoteSummary", module, "AAPL.json")["quoteSummary"]["result"][0][module]
    got = body(summary(make(PRE), "AAPL", module, formatted="false"))
    got = got["quoteSummary"]["result"][0][module]
    assert set(want) <= set(got), set(want) - set(got)
    for key, value in want.items():
        if value is not None and got[key] is not None:
            assert _kind(got[key]) == _kind(value), key


@needs_recordings
def test_quote_summary_fund_shapes() -> None:
    got = body(summary(make(PRE), "QQQ", "summaryDetail,defaultKeyStatistics,assetProfile",
                       formatted="false"))["quoteSummary"]["result"][0]
    for module in ("summaryDetail", "defaultKeyStatistics", "assetProfile"):
        want = recording("v10-quoteSummary", module, "QQQ.json")["quoteSummary"]["result"][0]
        assert set(want[module]) <= set(got[module]), module
    assert {"totalAssets", "navPrice", "yield"} <= set(got["summaryDetail"])
    assert {"category", "fundInceptionDate", "annualReportExpenseRatio",
            "morningStarOverallRating"} <= set(got["defaultKeyStatistics"])
    assert "sector" not in got["assetProfile"]


def test_quote_summary_errors() -> None:
    sb = make()
    missing = summary(sb, "NOTFOUNDCO")
    assert missing.status == 404
    assert body(missing) == {"quoteSummary": {"result": None, "error": {
        "code": "Not Found", "description": "Quote not found for symbol: NOTFOUNDCO"}}}
    bad = summary(sb, "AAPL", "price,bogusModule")
    assert bad.status == 400
    assert body(bad)["quoteSummary"]["error"] == {"code": "Bad Request",
                                                  "description": "Invalid Module: bogusModule"}
    # Known Yahoo modules that do not apply are left out; none left -> 404.
    fx = body(summary(sb, "EURUSD=X", "price,assetProfile,financialData"))
    assert list(fx["quoteSummary"]["result"][0]) == ["price"]
    assert summary(sb, "^GSPC", "assetProfile").status == 404


# --- auth, routing, faults ------------------------------------------------------------------

def test_crumb_required_on_quote_endpoints_only() -> None:
    sb = make()
    invalid = {"finance": {"result": None, "error": {"code": "Unauthorized",
                                                     "description": "Invalid Crumb"}}}
    for path, query in (("/v7/finance/quote", {"symbols": "AAPL"}),
                        ("/v10/finance/quoteSummary/AAPL", {"modules": "price"})):
        assert body(get(sb, path, **query)) == invalid
        resp = get(sb, path, crumb="wrongcrumb1", **query)
        assert resp.status == 401 and body(resp) == invalid
    assert get(sb, "/v8/finance/chart/AAPL", range="1d", interval="1d").status == 200


def test_handshake_cookie_and_crumb() -> None:
    sb = make()
    first = get(sb, "/", host="fc.yahoo.com")
    assert first.status == 404 and first.headers["Content-Type"].startswith("text/html")
    assert "Domain=.yahoo.com" in first.headers["Set-Cookie"]
    local = get(sb, "/", host="127.0.0.1")
    assert "Domain" not in local.headers["Set-Cookie"] and "Secure" not in \
        local.headers["Set-Cookie"]
    assert get(sb, "/v1/test/getcrumb", host=Q1).status == 401
    cookie, crumb = crumb_for(sb)
    assert re.fullmatch(r"[A-Za-z0-9]{11}", crumb)
    assert crumb_for(sb) == (cookie, crumb)  # stable while valid
    assert crumb_for(make()) == (cookie, crumb)  # deterministic for a seed
    assert crumb_for(make(seed=7))[1] != crumb


def test_crumb_ttl_forces_refresh() -> None:
    sb = make(crumb_ttl_seconds=0.5)
    chart(sb, "AAPL", range="1d", interval="1d")  # warm the caches before the clock runs
    cookie, crumb = crumb_for(sb)
    assert get(sb, "/v7/finance/quote", symbols="AAPL", crumb=crumb).status == 200
    time.sleep(0.6)
    assert get(sb, "/v7/finance/quote", symbols="AAPL", crumb=crumb).status == 401
    fresh = get(sb, "/v1/test/getcrumb", headers={"Cookie": cookie}).body.decode()
    assert fresh != crumb
    assert get(sb, "/v7/finance/quote", symbols="AAPL", crumb=fresh).status == 200


def test_consent_flow() -> None:
    sb = make()
    form = get(sb, "/consent", host="guce.yahoo.com")
    text = form.body.decode()
    csrf = re.search(r'name="csrfToken"\s+value="([^"]*)"', text)
    session = re.search(r'name="sessionId"\s+value="([^"]*)"', text)
    assert form.status == 200 and csrf and session
    posted = sb.handle("POST", "consent.yahoo.com", "/v2/collectConsent",
                       {"sessionId": [session.group(1)]}, {},
                       f"csrfToken={csrf.group(1)}&agree=agree".encode())
    assert posted.status == 302
    assert posted.headers["Location"].endswith(f"/copyConsent?sessionId={session.group(1)}")
    copied = get(sb, "/copyConsent", host="guce.yahoo.com", sessionId=session.group(1))
    assert copied.status in (200, 302) and copied.headers["Set-Cookie"].startswith("A3=")


def test_unknown_path() -> None:
    resp = get(make(), "/v99/finance/nothing")
    assert resp.status == 404
    assert body(resp) == {"finance": {"result": None, "error": {
        "code": "Not Found", "description": "HTTP 404 Not Found"}}}


def test_fail_rate() -> None:
    sb = make(fail_rate=1.0)
    for path in ("/v8/finance/chart/AAPL", "/v1/test/getcrumb", "/"):
        assert get(sb, path, range="1d", interval="1d").status == 503
    assert body(get(sb, "/v8/finance/chart/AAPL"))["chart"]["error"]["code"] == \
        "Service Unavailable"
    half = make(fail_rate=0.5, seed=3)
    statuses = [get(half, "/v8/finance/chart/AAPL", range="1d", interval="1d").status
                for _ in range(200)]
    assert 60 < statuses.count(503) < 140 and set(statuses) == {200, 503}
    assert all(get(half, "/", host="fc.yahoo.com").status == 404 for _ in range(50))
    again = make(fail_rate=0.5, seed=3)
    assert [get(again, "/v8/finance/chart/AAPL", range="1d", interval="1d").status
            for _ in range(200)] == statuses
    half.configure(fail_rate=0.0)
    assert get(half, "/v8/finance/chart/AAPL", range="1d", interval="1d").status == 200


def test_request_log_and_latency() -> None:
    sb = make(latency_ms=30)
    start = time.perf_counter()
    get(sb, "/v8/finance/chart/AAPL", range="1d", interval="1d")
    assert time.perf_counter() - start >= 0.03
    entry = sb.request_log[-1]
    assert set(entry) == {"method", "host", "upstream_host", "provider", "path", "query",
                          "status", "ts"}
    assert entry["provider"] == "yahoo"
    assert entry["path"] == "/v8/finance/chart/AAPL" and entry["status"] == 200
    sb.reset_log()
    assert sb.request_log == []
    assert get_sandbox() is get_sandbox()


def test_request_log_keeps_the_most_recent_and_counts_them_all() -> None:
    sb = make(request_log_size=3)
    for symbol in ("A", "B", "C", "D", "E"):
        get(sb, f"/v8/finance/chart/{symbol}", range="1d", interval="1d")
    assert [e["path"].rsplit("/", 1)[1] for e in sb.request_log] == ["C", "D", "E"]
    assert sb.log_stats() == {"entries": 3, "capacity": 3, "recorded": 5, "dropped": 2}
    assert [e["path"] for e in sb.requests_matching("/v8/finance/chart/E")] == [
        "/v8/finance/chart/E"]
    # Readers get copies: changing one changes nothing in the log.
    sb.request_log[-1]["query"]["range"].append("5d")
    sb.requests_matching()[-1]["query"].clear()
    assert sb.request_log[-1]["query"] == {"range": ["1d"], "interval": ["1d"]}
    sb.reset_log()
    assert sb.log_stats() == {"entries": 0, "capacity": 3, "recorded": 0, "dropped": 0}
    assert make().log_capacity == REQUEST_LOG_CAP
    with pytest.raises(ValueError):
        make(request_log_size=0)


def test_request_log_from_many_threads() -> None:
    sb = make(request_log_size=50)

    def hammer() -> None:
        for _ in range(40):
            get(sb, "/v8/finance/chart/AAPL", range="1d", interval="1d")

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sb.log_stats() == {"entries": 50, "capacity": 50, "recorded": 320, "dropped": 270}
    assert len(sb.request_log) == 50


def test_symbol_rule() -> None:
    for symbol in ("AAPL", "^GSPC", "BRK-B", "EURUSD=X", "BTC-USD", "GC=F", "OCDO.L", "M&M.NS",
                   "0P000071W8.TO"):
        assert is_known_symbol(symbol) and get_instrument(symbol) is not None, symbol
    for symbol in ("INVALID", "XNOTFOUNDX", "UNKNOWN.L", "ZZZZ", "^ZZZZA", "", "A B",
                   "TOOLONGSYMBOL12345"):
        assert not is_known_symbol(symbol), symbol
    kinds = {s: get_instrument(s).kind for s in ("VFIAX", "GTLOX", "IWM", "XYZ", "^DJI")}
    assert kinds == {"VFIAX": "MUTUALFUND", "GTLOX": "MUTUALFUND", "IWM": "ETF",
                     "XYZ": "EQUITY", "^DJI": "INDEX"}
    london = get_instrument("VOD.L")
    assert (london.currency, london.exchange.code, london.tz) == ("GBp", "LSE",
                                                                  "Europe/London")


# --- HTTP server ----------------------------------------------------------------------------

@pytest.fixture
def server() -> Iterator[tuple[str, UpstreamSandbox]]:
    sb = make()
    with serving(sb) as port:
        yield f"http://127.0.0.1:{port}", sb


def _http(url: str, data: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def test_http_server_serves_and_counts(server: tuple[str, UpstreamSandbox]) -> None:
    base, sb = server
    status, headers, raw = _http(f"{base}/v8/finance/chart/AAPL?range=5d&interval=1d")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert int(headers["Content-Length"]) == len(raw)
    assert len(json.loads(raw)["chart"]["result"][0]["timestamp"]) == 5
    status, _, raw = _http(f"{base}/v8/finance/chart/%5EGSPC?range=1d&interval=5m")
    assert status == 200 and json.loads(raw)["chart"]["result"][0]["meta"]["symbol"] == "^GSPC"
    status, _, raw = _http(f"{base}/__sandbox__/requests?path_prefix=/v8/finance/chart")
    log = json.loads(raw)
    assert status == 200 and log["count"] == 2 and len(log["requests"]) == 2
    assert log["recorded"] == 2 and log["dropped"] == 0
    assert log["requests"][0]["path"] == "/v8/finance/chart/AAPL"
    assert _http(f"{base}/__sandbox__/reset", b"")[0] == 200
    assert json.loads(_http(f"{base}/__sandbox__/requests")[2])["count"] == 0
    assert _http(f"{base}/__sandbox__/config", b'{"fail_rate": 1.0, "latency_ms": 0}')[0] == 200
    assert sb.fail_rate == 1.0
    assert _http(f"{base}/v8/finance/chart/AAPL?range=1d&interval=1d")[0] == 503
    _http(f"{base}/__sandbox__/config", b'{"fail_rate": 0}')
    assert _http(f"{base}/v8/finance/chart/AAPL?range=1d&interval=1d")[0] == 200


def test_the_clock_changes_at_run_time(server: tuple[str, UpstreamSandbox]) -> None:
    base, sb = server
    start = datetime(2026, 11, 24, 14, 31, tzinfo=UTC)
    body = b'{"clock": {"start": "2026-11-24T14:31:00Z", "speed": 60}}'
    assert _http(f"{base}/__sandbox__/config", body)[0] == 200
    first = sb.clock()
    assert start <= first < datetime(2026, 11, 24, 14, 41, tzinfo=UTC)
    chart = json.loads(_http(f"{base}/v8/finance/chart/AAPL?range=1d&interval=1m")[2])
    last_bar = chart["chart"]["result"][0]["timestamp"][-1]
    assert last_bar <= sb.clock().timestamp(), "the data is the replayed session's"
    assert _http(f"{base}/__sandbox__/config", b'{"clock": {"start": "tomorrow"}}')[0] == 400
    assert _http(f"{base}/__sandbox__/config", b'{"clock": {"speed": 0}}')[0] == 400
    assert _http(f"{base}/__sandbox__/config", b'{"clock": null}')[0] == 200
    assert abs((sb.clock() - datetime.now(UTC)).total_seconds()) < 5


def test_http_server_reports_its_memory(server: tuple[str, UpstreamSandbox]) -> None:
    base, _ = server
    assert _http(f"{base}/v8/finance/chart/MSFT?range=5d&interval=1d")[0] == 200
    status, _, raw = _http(f"{base}/__sandbox__/stats")
    stats = json.loads(raw)
    assert status == 200 and stats["rss_mib"] > 0 and stats["threads"] >= 1
    assert stats["request_log"] == {"entries": 1, "capacity": REQUEST_LOG_CAP, "recorded": 1,
                                    "dropped": 0}
    caches = stats["caches"]
    assert caches["instruments.get_instrument"]["maxsize"] > 0
    assert caches["prices._series_cache"]["entries"] >= 1
    assert all(set(c) == {"entries", "maxsize"} for c in caches.values())
    assert "top" not in stats  # only when tracemalloc traces
    assert json.loads(_http(f"{base}/__sandbox__/requests")[2])["count"] == 1  # not logged


def test_http_server_handshake_with_cookie_jar(server: tuple[str, UpstreamSandbox]) -> None:
    requests = pytest.importorskip("requests")
    base, _ = server
    with requests.Session() as session:
        assert session.get(f"{base}/").status_code == 404
        crumb = session.get(f"{base}/v1/test/getcrumb")
        assert crumb.status_code == 200, "the A3 cookie must come back over plain HTTP"
        quote = session.get(f"{base}/v7/finance/quote",
                            params={"symbols": "AAPL,MSFT", "crumb": crumb.text})
        assert quote.status_code == 200
        assert len(quote.json()["quoteResponse"]["result"]) == 2


def test_suffixed_index_symbols_are_indices_with_real_names():
    """/v1/indices asks for some national indices without '^' (MOEX.ME, DX-Y.NYB...): the
    sandbox must not invent companies for them."""
    from marketdata.sandbox.instruments import INDEX, SUFFIXED_INDICES, get_instrument

    for symbol, name in SUFFIXED_INDICES.items():
        instrument = get_instrument(symbol)
        assert instrument is not None and instrument.kind == INDEX, symbol
        assert instrument.long_name == name
