"""v8 chart: the v1 view of Yahoo's bars on every recording, edge shapes, and the v1
candles of the price-history capability end to end."""

from __future__ import annotations

import copy
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.capabilities.bars import candles as fetch_candles
from marketdata.errors import BadRequest, NotFound, UpstreamBadResponse
from marketdata.providers.yahoo.chart import chart_policy, parse_bars
from marketdata.records.bars import check_range_interval
from tests.conftest import calls_to

from .helpers import recordings, wrap_numbers

CHARTS = recordings("yahoo/v8-chart")
EMPTY_1M = ("yahoo/v8-chart/"
            "chart-AAPL-2025-02-01-to-2025-02-02-includePrePost-false-interval-1m.json")
AAPL_3MO = "yahoo/v8-chart/chart-AAPL-2020-08-31-to-2020-11-07.json"
FIELDS = ("open", "high", "low", "close", "volume")


def parse_chart(payload, interval):
    """Yahoo's chart in the v1 view (Bars.candles)."""
    return parse_bars(payload, interval).candles()


def interval_of(path: str) -> str:
    return "1m" if "interval-1m" in path else "1d"


def expected_rows(payload) -> list[tuple]:
    """(ts, open, high, low, close, volume, adjclose) for rows without nulls, from the JSON."""
    result = payload["chart"]["result"][0]
    quote = result["indicators"]["quote"][0]
    adj = (result["indicators"].get("adjclose") or [{}])[0].get("adjclose")
    rows = []
    for i, ts in enumerate(result.get("timestamp") or []):
        values = [quote[f][i] for f in FIELDS]
        if ts is None or any(v is None for v in values):
            continue
        rows.append((ts, *values, adj[i] if adj else None))
    return sorted(rows)


@pytest.mark.parametrize("path", CHARTS)
def test_every_chart_recording(recording, path):
    payload = recording(path)
    rows = expected_rows(payload)
    if not rows:
        with pytest.raises(NotFound):
            parse_chart(payload, interval_of(path))
        return
    candles = parse_chart(payload, interval_of(path))
    meta = payload["chart"]["result"][0]["meta"]
    assert candles.symbol == meta["symbol"]
    assert candles.currency == meta["currency"]
    assert candles.exchange_timezone == meta["exchangeTimezoneName"]
    assert candles.price_hint == meta["priceHint"]
    assert candles.interval == "1d"
    assert len(candles) == len(rows)
    assert candles.timestamps[0] == rows[0][0]
    assert candles.timestamps[-1] == rows[-1][0]
    assert candles.close[0] == rows[0][4]
    assert candles.close[-1] == rows[-1][4]
    assert candles.timestamps == [r[0] for r in rows]
    assert candles.open == [r[1] for r in rows]
    assert candles.high == [r[2] for r in rows]
    assert candles.low == [r[3] for r in rows]
    assert candles.close == [r[4] for r in rows]
    assert candles.volume == [r[5] for r in rows]
    assert all(isinstance(v, int) for v in candles.volume)
    assert candles.adjclose == [r[6] for r in rows]


def test_only_the_1m_weekend_recording_has_no_rows(recording):
    recording(EMPTY_1M)  # skips when ../shared/upstream is absent
    empty = [p for p in CHARTS if not expected_rows(recording(p))]
    assert empty == [EMPTY_1M]


def test_1m_recording_without_rows_is_not_found(recording):
    with pytest.raises(NotFound) as info:
        parse_chart(recording(EMPTY_1M), "1m")
    assert info.value.status_code == 404
    assert info.value.detail == "No data returned for symbol"


class TestKnownValues:
    def test_aapl_2020_01_02(self, recording):
        candles = parse_chart(recording("yahoo/v8-chart/chart-AAPL-2020-01-01-to-2020-01-03.json"),
                              "1d")
        assert candles.timestamps == [1577975400]
        assert candles.open == [74.05999755859375]
        assert candles.close == [75.0875015258789]
        assert candles.volume == [135480400]
        assert candles.adjclose == [72.71607208251953]

    def test_aapl_three_months(self, recording):
        candles = parse_chart(recording(AAPL_3MO), "1d")
        assert len(candles) == 49
        assert candles.timestamps[-1] == 1604673000  # 2020-11-06 09:30 ET
        assert round(candles.close[-1], 2) == 118.69

    def test_fx_price_hint(self, recording):
        candles = parse_chart(
            recording("yahoo/v8-chart/chart-EURUSD_X-2020-01-01-to-2020-01-03.json"), "1d")
        assert candles.symbol == "EURUSD=X"
        assert candles.price_hint == 4
        assert len(candles) == 3

    def test_full_year(self, recording):
        path = "yahoo/v8-chart/historical-via-chart-NVDA-split-2021-02-01-to-2022-01-31.json"
        candles = parse_chart(recording(path), "1d")
        assert len(candles) == 252
        assert candles.timestamps == sorted(candles.timestamps)

    def test_lse_pence(self, recording):
        candles = parse_chart(
            recording("yahoo/v8-chart/chart-OCDO.L-2020-01-01-to-2020-01-03.json"), "1d")
        assert candles.currency == "GBp"


class TestEdgeShapes:
    def test_rows_with_nulls_dropped(self, recording):
        payload = recording(AAPL_3MO)
        result = payload["chart"]["result"][0]
        quote = result["indicators"]["quote"][0]
        stamps = result["timestamp"]
        dropped = {stamps[0], stamps[3], stamps[5], stamps[7], stamps[48]}
        quote["open"][0] = None
        quote["close"][3] = None
        quote["volume"][5] = None
        quote["high"][7] = None
        quote["low"][48] = None
        candles = parse_chart(payload, "1d")
        assert len(candles) == 44
        assert dropped.isdisjoint(candles.timestamps)
        assert candles.timestamps == [t for t in stamps if t not in dropped]
        kept = [i for i, t in enumerate(stamps) if t not in dropped]
        assert candles.close == [quote["close"][i] for i in kept]

    def test_null_timestamp_dropped(self, recording):
        payload = recording(AAPL_3MO)
        payload["chart"]["result"][0]["timestamp"][2] = None
        assert len(parse_chart(payload, "1d")) == 48

    def test_null_adjclose_keeps_the_row(self, recording):
        payload = recording(AAPL_3MO)
        payload["chart"]["result"][0]["indicators"]["adjclose"][0]["adjclose"][4] = None
        candles = parse_chart(payload, "1d")
        assert len(candles) == 49
        assert candles.adjclose[4] is None

    def test_no_adjclose_block(self, recording):
        payload = recording(AAPL_3MO)
        del payload["chart"]["result"][0]["indicators"]["adjclose"]
        assert parse_chart(payload, "1h").adjclose is None

    def test_short_columns(self, recording):
        payload = recording(AAPL_3MO)
        payload["chart"]["result"][0]["indicators"]["quote"][0]["close"].pop()
        candles = parse_chart(payload, "1d")
        assert len(candles) == 48

    def test_all_rows_null_is_not_found(self, recording):
        payload = recording(AAPL_3MO)
        quote = payload["chart"]["result"][0]["indicators"]["quote"][0]
        quote["close"] = [None] * len(quote["close"])
        with pytest.raises(NotFound):
            parse_chart(payload, "1d")

    def test_unsorted_and_duplicate_timestamps(self, recording):
        payload = recording("yahoo/v8-chart/chart-BTC-USD-2020-01-01-to-2020-01-03.json")
        result = payload["chart"]["result"][0]
        original = copy.deepcopy(result)
        result["timestamp"].reverse()
        for column in result["indicators"]["quote"][0].values():
            column.reverse()
        result["indicators"]["adjclose"][0]["adjclose"].reverse()
        candles = parse_chart(payload, "1d")
        assert candles.timestamps == sorted(original["timestamp"])
        assert candles.close == original["indicators"]["quote"][0]["close"]
        # a repeated timestamp keeps the last row
        result["timestamp"].append(result["timestamp"][0])
        for name, column in result["indicators"]["quote"][0].items():
            column.append(column[0] * 2 if name != "volume" else 7)
        result["indicators"]["adjclose"][0]["adjclose"].append(1.0)
        candles = parse_chart(payload, "1d")
        assert len(candles) == 3
        assert candles.volume[-1] == 7

    @pytest.mark.parametrize("path", CHARTS)
    def test_raw_fmt_shape_parses_to_the_same_values(self, recording, path):
        payload = recording(path)
        wrapped = copy.deepcopy(payload)
        result = wrapped["chart"]["result"][0]
        result["meta"]["priceHint"] = wrap_numbers(result["meta"]["priceHint"])
        result["indicators"] = wrap_numbers(result["indicators"])
        if not expected_rows(payload):
            with pytest.raises(NotFound):
                parse_chart(wrapped, interval_of(path))
            return
        assert parse_chart(wrapped, "1d") == parse_chart(payload, "1d")

    def test_not_found_error(self):
        payload = {"chart": {"result": None, "error": {
            "code": "Not Found", "description": "No data found, symbol may be delisted"}}}
        with pytest.raises(NotFound) as info:
            parse_chart(payload, "1d")
        assert info.value.detail == "No data found, symbol may be delisted"

    def test_other_error_is_bad_response(self):
        payload = {"chart": {"result": None, "error": {
            "code": "Bad Request",
            "description": "Invalid input - interval=1m is not supported for range=1y"}}}
        with pytest.raises(UpstreamBadResponse) as info:
            parse_chart(payload, "1m")
        assert info.value.status_code == 502
        assert "interval=1m is not supported" in info.value.detail

    def test_empty_result_is_not_found(self):
        with pytest.raises(NotFound):
            parse_chart({"chart": {"result": [], "error": None}}, "1d")

    @pytest.mark.parametrize("payload", [None, [], "x", {}, {"chart": None}, {"chart": []}])
    def test_not_a_chart(self, payload):
        with pytest.raises(UpstreamBadResponse):
            parse_chart(payload, "1d")


class TestRangeInterval:
    @pytest.mark.parametrize(("range_", "interval", "message"), [
        ("max", "1d", "If range is max, interval must be 1mo"),
        ("max", "1wk", "If range is max, interval must be 1mo"),
        ("1mo", "1m", "If interval is 1m, range must be 1d, 5d"),
        ("1y", "5m", "If interval is 5m, range must be 1d, 5d, 1mo"),
        ("3mo", "15m", "If interval is 15m, range must be 1d, 5d, 1mo"),
        ("6mo", "30m", "If interval is 30m, range must be 1d, 5d, 1mo"),
        ("2y", "1h", "If interval is 1h, range must be 1d, 5d, 1mo, 3mo, 6mo, ytd, 1y"),
    ])
    def test_incompatible(self, range_, interval, message):
        with pytest.raises(BadRequest) as info:
            check_range_interval(range_, interval)
        assert info.value.detail == message
        assert info.value.status_code == 400

    @pytest.mark.parametrize(("range_", "interval"), [
        ("max", "1mo"), ("1d", "1m"), ("5d", "1m"), ("1mo", "5m"), ("1y", "1h"),
        ("ytd", "1h"), ("10y", "1wk"), ("2y", "1d"), ("5y", "1mo"),
    ])
    def test_compatible(self, range_, interval):
        check_range_interval(range_, interval)

    @pytest.mark.parametrize(("interval", "policy"), [
        ("1m", "chart_intraday"), ("1h", "chart_intraday"), ("1d", "chart_daily"),
        ("1wk", "chart_weekly"), ("1mo", "chart_weekly"),
    ])
    def test_policy(self, interval, policy):
        assert chart_policy(interval) == policy


class TestFetchCandles:
    def test_through_the_cache(self, yahoo, recording):
        yahoo.chart("AAPL", recording(AAPL_3MO))
        first = fetch_candles("AAPL", "3mo", "1d")
        second = fetch_candles("AAPL", "3mo", "1d")
        assert first == second
        assert len(first) == 49
        calls = calls_to(yahoo.mock, "/v8/finance/chart/")
        assert len(calls) == 1
        params = parse_qs(urlsplit(calls[0].request.url).query)
        assert params == {"range": ["3mo"], "interval": ["1d"], "includePrePost": ["false"],
                          "events": ["div,split,capitalGain"]}
        assert calls_to(yahoo.mock, "getcrumb") == []

    @pytest.mark.parametrize(("symbol", "encoded"), [("^GSPC", "%5EGSPC"),
                                                     ("EURUSD=X", "EURUSD%3DX")])
    def test_symbol_is_url_encoded(self, yahoo, recording, symbol, encoded):
        yahoo.chart(encoded, recording(
            "yahoo/v8-chart/chart-EURUSD_X-2020-01-01-to-2020-01-03.json"))
        fetch_candles(symbol, "5d", "1d")
        assert f"/v8/finance/chart/{encoded}?" in yahoo.mock.calls[0].request.url

    def test_bad_combination_makes_no_call(self, yahoo):
        with pytest.raises(BadRequest):
            fetch_candles("AAPL", "1y", "1m")
        assert len(yahoo.mock.calls) == 0

    def test_404_is_not_found_and_remembered(self, yahoo):
        yahoo.chart("ZZZZ", {"chart": {"result": None, "error": {
            "code": "Not Found", "description": "No data found, symbol may be delisted"}}},
            status=404)
        for _ in range(2):
            with pytest.raises(NotFound) as info:
                fetch_candles("ZZZZ", "1mo", "1d")
            assert info.value.detail == "No data found for symbol ZZZZ"
        assert len(calls_to(yahoo.mock, "/v8/finance/chart/")) == 1

    def test_empty_intraday_is_not_found(self, yahoo, recording):
        yahoo.chart("AAPL", recording(EMPTY_1M))
        with pytest.raises(NotFound):
            fetch_candles("AAPL", "1d", "1m")
