"""Yahoo's chart into Bars (the v2 view): every recording (values exactly as recorded),
events, edge shapes, the absolute-window rules, and the price-history capability end to
end (query, cache keys)."""

from __future__ import annotations

import copy
import time
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.capabilities.bars import chart as fetch_chart
from marketdata.errors import BadRequest, NotFound, UpstreamBadResponse
from marketdata.providers.yahoo.chart import parse_bars, parse_events
from marketdata.records.bars import META_KINDS, META_MEMBERS, check_window, typed_meta_value
from tests.apps.payloads import chart_payload
from tests.conftest import calls_to

from .helpers import recordings, wrap_numbers

CHARTS = recordings("yahoo/v8-chart")
AAPL_SPLIT = "yahoo/v8-chart/chart-AAPL-2020-08-31-to-2020-11-07.json"
MSFT_DIVIDENDS = "yahoo/v8-chart/historical-via-chart-MSFT-dividends-2021-02-01-to-2022-01-31.json"
NVDA_SPLIT = "yahoo/v8-chart/historical-via-chart-NVDA-split-2021-02-01-to-2022-01-31.json"
EMPTY_1M = ("yahoo/v8-chart/"
            "chart-AAPL-2025-02-01-to-2025-02-02-includePrePost-false-interval-1m.json")
FIELDS = ("open", "high", "low", "close")


def parse_chart_v2(payload, interval="1d"):
    return parse_bars(payload, interval)


def parse_chart(payload, interval):
    """The v1 view."""
    return parse_bars(payload, interval).candles()


def expected_rows(payload) -> list[tuple]:
    """(ts, open, high, low, close, volume, adjclose) straight from the JSON: rows with a null
    price left out, a null volume as 0."""
    result = payload["chart"]["result"][0]
    quote = result["indicators"]["quote"][0]
    adj = (result["indicators"].get("adjclose") or [{}])[0].get("adjclose")
    rows = []
    for i, ts in enumerate(result.get("timestamp") or []):
        prices = [quote[f][i] for f in FIELDS]
        if any(v is None for v in prices):
            continue
        rows.append((ts, *prices, quote["volume"][i] or 0, adj[i] if adj else None))
    return sorted(rows)


def rows_of(chart) -> list[tuple]:
    adj = chart.adjclose or [None] * len(chart)
    return list(zip(chart.timestamps, chart.open, chart.high, chart.low, chart.close,
                    chart.volumes(), adj, strict=True))


@pytest.mark.parametrize("path", CHARTS)
def test_every_recording_exactly(recording, path):
    payload = recording(path)
    chart = parse_chart_v2(payload)
    assert rows_of(chart) == expected_rows(payload)
    # Same JSON values, same types: nothing was rounded or converted.
    for got, want in zip(rows_of(chart), expected_rows(payload), strict=True):
        assert [type(v) for v in got] == [type(v) for v in want]
    # The meta under the spec's names, typed; Yahoo's `gmtoffset` is `gmtOffset`.
    sent = payload["chart"]["result"][0]["meta"]
    assert list(chart.meta) == list(META_MEMBERS)
    for name in META_MEMBERS:
        value = sent.get("gmtoffset" if name == "gmtOffset" else name)
        assert chart.meta[name] == typed_meta_value(value, META_KINDS[name]), name
    has_adj = "adjclose" in payload["chart"]["result"][0]["indicators"]
    assert (chart.adjclose is not None) == has_adj


def test_split_and_dividend_events(recording):
    events = parse_chart_v2(recording(AAPL_SPLIT)).events
    assert events.dividends == [(1604673000, 0.205)]
    assert events.splits == [(1598880600, 4, 1, "4:1")]
    assert events.capital_gains == []


def test_dividends_sorted(recording):
    payload = recording(MSFT_DIVIDENDS)
    events = parse_chart_v2(payload).events
    recorded = payload["chart"]["result"][0]["events"]["dividends"]
    assert events.dividends == sorted((item["date"], item["amount"])
                                      for item in recorded.values())
    assert [ts for ts, _ in events.dividends] == [1613572200, 1621431000, 1629293400,
                                                  1637159400]


def test_nvda_split(recording):
    payload = recording(NVDA_SPLIT)
    recorded = payload["chart"]["result"][0]["events"]["splits"]
    (item,) = recorded.values()
    assert parse_chart_v2(payload).events.splits == [
        (item["date"], item["numerator"], item["denominator"], item["splitRatio"])]


def test_empty_window_is_an_empty_chart_not_404(recording):
    payload = recording(EMPTY_1M)
    chart = parse_chart_v2(payload)
    assert len(chart) == 0 and chart.adjclose is None
    assert chart.meta["symbol"] == "AAPL"
    with pytest.raises(NotFound):  # v1 keeps its rule
        parse_chart(payload, "1m")


def test_wrapped_numbers_give_the_same_chart(recording):
    payload = recording(AAPL_SPLIT)
    wrapped = copy.deepcopy(payload)
    result = wrapped["chart"]["result"][0]
    result["indicators"] = wrap_numbers(result["indicators"])
    result["events"] = wrap_numbers(result["events"], skip=frozenset({"splitRatio"}))
    assert parse_chart_v2(wrapped) == parse_chart_v2(payload)


def _payload(rows, adj=None, events=None):
    quote = {name: [r[i] for r in rows] for i, name in
             enumerate(("open", "high", "low", "close", "volume"))}
    indicators = {"quote": [quote]}
    if adj is not None:
        indicators["adjclose"] = [{"adjclose": adj}]
    result = {"meta": {"symbol": "X"}, "timestamp": [100 + i for i in range(len(rows))],
              "indicators": indicators}
    if events is not None:
        result["events"] = events
    return {"chart": {"result": [result], "error": None}}


def test_null_volume_zero_null_price_dropped_negative_volume_clamped():
    chart = parse_chart_v2(_payload([
        (1.0, 2.0, 0.5, 1.5, None),
        (1.0, 2.0, 0.5, None, 10),
        (None, None, None, None, None),
        (1.1, 2.1, 0.6, 1.6, -5),
        (1.2, 2.2, 0.7, 1.7, 7),
    ], adj=[1.4, None, None, None, 1.65]))
    assert chart.timestamps == [100, 103, 104]
    assert chart.volumes() == [0, 0, 7]
    assert chart.volume == [None, -5, 7]  # as sent
    assert chart.adjclose == [1.4, None, 1.65]
    # v1 is unchanged: a row without volume is no price there.
    assert parse_chart(_payload([(1.0, 2.0, 0.5, 1.5, None), (1.2, 2.2, 0.7, 1.7, 7)]),
                       "1d").timestamps == [101]


def test_events_edge_shapes():
    events = parse_events({"events": {
        "dividends": {"300": {"amount": 0.5, "date": 300}, "200": {"amount": 0.4},
                      "bad": {"amount": 1.0}, "400": {"date": 400}},
        "splits": {"500": {"date": 500, "numerator": 3, "denominator": 2},
                   "600": {"date": 600, "numerator": 1.5, "denominator": 1,
                           "splitRatio": ""},
                   "700": {"date": 700, "numerator": None, "denominator": 1}},
        "capitalGains": {"800": {"amount": 1.25, "date": 800}},
    }})
    assert events.dividends == [(200, 0.4), (300, 0.5)]
    assert events.splits == [(500, 3, 2, "3:2"), (600, 1.5, 1, "1.5:1")]
    assert events.capital_gains == [(800, 1.25)]
    empty = parse_events({"events": None})
    assert (empty.dividends, empty.splits, empty.capital_gains) == ([], [], [])


def test_unknown_symbol_and_bad_bodies():
    with pytest.raises(NotFound):
        parse_chart_v2({"chart": {"result": None, "error": {
            "code": "Not Found", "description": "No data found, symbol may be delisted"}}})
    with pytest.raises(UpstreamBadResponse):
        parse_chart_v2({"nothing": 1})
    with pytest.raises(UpstreamBadResponse):
        parse_chart_v2({"chart": {"result": ["x"], "error": None}})


class TestCheckWindow:
    NOW = 1_800_000_000

    @pytest.mark.parametrize(("interval", "start", "end", "message"), [
        ("1d", NOW, NOW, "`start` must be before `end`"),
        ("1d", NOW + 1, NOW, "`start` must be before `end`"),
        ("1m", NOW - 9 * 86400, NOW, "If interval is 1m, the window (`start` to `end`) must "
                                     "span at most 8 days"),
        ("1m", NOW - 31 * 86400, NOW - 30 * 86400, "If interval is 1m, `start` must be "
                                                   "within the last 30 days"),
        ("5m", NOW - 61 * 86400, NOW, "If interval is 5m, `start` must be within the last "
                                      "60 days"),
        ("1h", NOW - 731 * 86400, NOW, "If interval is 1h, `start` must be within the last "
                                       "730 days"),
    ])
    def test_refused(self, interval, start, end, message):
        with pytest.raises(BadRequest) as info:
            check_window(interval, start, end, self.NOW)
        assert info.value.detail == message

    @pytest.mark.parametrize(("interval", "start"), [
        ("1d", 0), ("1wk", 86400), ("1m", NOW - 7 * 86400), ("1h", NOW - 700 * 86400)])
    def test_accepted(self, interval, start):
        check_window(interval, start, self.NOW, self.NOW)


class TestFetchChart:
    def test_range_query_and_cache(self, yahoo, recording):
        yahoo.chart("AAPL", recording(AAPL_SPLIT))
        first = fetch_chart("AAPL", "1d", "3mo")
        assert fetch_chart("AAPL", "1d", "3mo") == first
        calls = calls_to(yahoo.mock, "/v8/finance/chart/")
        assert len(calls) == 1
        assert parse_qs(urlsplit(calls[0].request.url).query) == {
            "range": ["3mo"], "interval": ["1d"], "includePrePost": ["false"],
            "events": ["div,split,capitalGain"]}

    def test_absolute_window_query_and_own_cache_key(self, yahoo, recording):
        yahoo.chart("AAPL", recording(AAPL_SPLIT))
        for _ in range(2):
            fetch_chart("AAPL", "1d", start=1598832000, end=1604707200)
        fetch_chart("AAPL", "1d", "3mo")
        calls = calls_to(yahoo.mock, "/v8/finance/chart/")
        assert len(calls) == 2
        assert parse_qs(urlsplit(calls[0].request.url).query) == {
            "period1": ["1598832000"], "period2": ["1604707200"], "interval": ["1d"],
            "includePrePost": ["false"], "events": ["div,split,capitalGain"]}

    def test_open_ended_window_ends_now(self, yahoo, recording):
        yahoo.chart("AAPL", recording(AAPL_SPLIT))
        before = int(time.time())
        fetch_chart("AAPL", "1d", start=1598832000)
        query = parse_qs(urlsplit(yahoo.mock.calls[-1].request.url).query)
        assert "range" not in query
        assert before <= int(query["period2"][0]) <= int(time.time())

    def test_bad_window_makes_no_call(self, yahoo):
        with pytest.raises(BadRequest):
            fetch_chart("AAPL", "1d", start=200, end=100)
        with pytest.raises(BadRequest):
            fetch_chart("AAPL", "1m", "1y")
        assert not calls_to(yahoo.mock, "/v8/finance/chart/")


# -- previousClose on daily charts ------------------------------------------------------------
def _daily(regular_market_time, stamps, closes, **meta):
    rows = [(c, c + 1, c - 1, c, 1000) for c in closes]
    payload = chart_payload("AAPL", stamps, rows)
    payload["chart"]["result"][0]["meta"].update(regularMarketTime=regular_market_time, **meta)
    return payload


# Sessions of 2026-11-23 .. 11-25 (bars stamped 09:30 New York, 14:30 UTC), closing 21:00 UTC.
SESSIONS = [1795444200, 1795530600, 1795617000]


def test_previous_close_is_the_close_before_the_last_session():
    """Yahoo sends none on daily charts: the close of the bar before the session of
    regularMarketTime, whether the session is over (21:00 UTC) or running."""
    for market_time in (1795640400, 1795627800):
        bars = parse_bars(_daily(market_time, SESSIONS, [100.0, 101.5, 99.25]), "1d")
        assert bars.meta["previousClose"] == 101.5


def test_previous_close_unknown_when_the_chart_ends_earlier_or_is_not_daily():
    # The last bar is not the session of regularMarketTime (a window in the past).
    assert parse_bars(_daily(1795640400 + 86400, SESSIONS, [100.0, 101.5, 99.25]),
                      "1d").meta["previousClose"] is None
    # Weekly bars, or a single bar: no session before the last one in the chart.
    assert parse_bars(_daily(1795640400, SESSIONS, [100.0, 101.5, 99.25]),
                      "1wk").meta["previousClose"] is None
    assert parse_bars(_daily(1795640400, SESSIONS[-1:], [99.25]), "1d").meta[
        "previousClose"] is None


def test_previous_close_yahoo_sends_is_kept():
    payload = _daily(1795640400, SESSIONS, [100.0, 101.5, 99.25], previousClose=101.49)
    assert parse_bars(payload, "1d").meta["previousClose"] == 101.49
