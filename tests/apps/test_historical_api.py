"""GET /v1/historical: the range x interval matrix, keys, values, rounding and every status."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from tests.apps.payloads import (
    CHART_NOT_FOUND,
    QUERY2,
    chart_payload,
    half_up,
    simple_chart,
    url_pattern,
)
from tests.conftest import calls_to

AAPL_3MO = "yahoo/v8-chart/chart-AAPL-2020-08-31-to-2020-11-07.json"
EURUSD = "yahoo/v8-chart/chart-EURUSD_X-2020-01-01-to-2020-01-03.json"
AAPL_1M_EMPTY = ("yahoo/v8-chart/"
                 "chart-AAPL-2025-02-01-to-2025-02-02-includePrePost-false-interval-1m.json")

RANGES = ["1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y", "2y", "5y", "10y", "max"]
INTERVALS = ["1m", "5m", "15m", "30m", "1h", "1d", "1wk", "1mo"]
INTRADAY = {"1m", "5m", "15m", "30m", "1h"}
RANGE_MESSAGE = ("Input should be '1d', '5d', '1mo', '3mo', '6mo', 'ytd', '1y', '2y', '5y', "
                 "'10y' or 'max'")
INTERVAL_MESSAGE = "Input should be '1m', '5m', '15m', '30m', '1h', '1d', '1wk' or '1mo'"
BOOL_MESSAGE = "Input should be a valid boolean, unable to interpret input"

DAILY_KEY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
INTRADAY_KEY = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")


def expected_400(range_: str, interval: str) -> str | None:
    """The spec's compatibility table (reference notes 2.3), written out independently."""
    if range_ == "max" and interval != "1mo":
        return "If range is max, interval must be 1mo"
    if interval == "1m" and range_ not in ("1d", "5d"):
        return "If interval is 1m, range must be 1d, 5d"
    if interval in ("5m", "15m", "30m") and range_ not in ("1d", "5d", "1mo"):
        return f"If interval is {interval}, range must be 1d, 5d, 1mo"
    if interval == "1h" and range_ not in ("1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y"):
        return "If interval is 1h, range must be 1d, 5d, 1mo, 3mo, 6mo, ytd, 1y"
    return None


MATRIX = [(r, i) for r in RANGES for i in INTERVALS]


def test_matrix_size_and_split():
    compatible = [pair for pair in MATRIX if expected_400(*pair) is None]
    assert len(MATRIX) == 88
    # 1m: 2, 5m/15m/30m: 3 each, 1h: 7, 1d/1wk: 10 each, 1mo: 11
    assert len(compatible) == 2 + 3 * 3 + 7 + 10 + 10 + 11


@pytest.mark.parametrize(("range_", "interval"), MATRIX)
def test_range_interval_matrix(api, yahoo, range_, interval):
    yahoo.chart("AAPL", simple_chart("AAPL", interval))
    response = api.get(f"/v1/historical?symbol=AAPL&range={range_}&interval={interval}")
    message = expected_400(range_, interval)
    if message is not None:
        assert response.status_code == 400
        assert response.json() == {"detail": message}
        assert len(yahoo.mock.calls) == 0, "an incompatible pair must not reach Yahoo"
        return
    assert response.status_code == 200, response.content
    calls = calls_to(yahoo.mock, "/v8/finance/chart/AAPL")
    assert len(calls) == 1
    query = parse_qs(urlsplit(calls[0].request.url).query)
    assert query["range"] == [range_]
    assert query["interval"] == [interval]
    body = response.json()
    assert len(body) == 2
    pattern = INTRADAY_KEY if interval in INTRADAY else DAILY_KEY
    assert all(pattern.match(key) for key in body), list(body)
    assert list(body) == sorted(body, reverse=True)


# -- 200: values from a recording ------------------------------------------------------------
def test_daily_from_recording_all_bars_newest_first(api, yahoo, recording):
    payload = recording(AAPL_3MO)
    yahoo.chart("AAPL", payload)
    response = api.get("/v1/historical?symbol=AAPL&range=3mo&interval=1d")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    result = payload["chart"]["result"][0]
    assert len(body) == len(result["timestamp"]) == 49
    keys = list(body)
    assert keys == sorted(keys, reverse=True)
    assert keys[0] == "2020-11-06"
    assert keys[-1] == "2020-08-31"
    assert all(DAILY_KEY.match(k) for k in keys)


def test_daily_bar_values_and_adjclose_from_recording(api, yahoo, recording):
    payload = recording(AAPL_3MO)
    yahoo.chart("AAPL", payload)
    body = api.get("/v1/historical?symbol=AAPL&range=3mo&interval=1d").json()
    assert body["2020-11-06"] == {"open": 118.32, "high": 119.2, "low": 116.13, "close": 118.69,
                                  "adjClose": 115.93, "volume": 114457900}
    assert body["2020-11-05"] == {"open": 117.95, "high": 119.62, "low": 116.87, "close": 119.03,
                                  "adjClose": 116.07, "volume": 126387100}
    # every bar: values are the recording's, rounded to 2 dp; adjClose from indicators.adjclose
    result = payload["chart"]["result"][0]
    quote = result["indicators"]["quote"][0]
    adj = result["indicators"]["adjclose"][0]["adjclose"]
    for i in range(len(result["timestamp"])):
        bar = list(body.values())[len(body) - 1 - i]
        assert bar == {"open": half_up(quote["open"][i]), "high": half_up(quote["high"][i]),
                       "low": half_up(quote["low"][i]), "close": half_up(quote["close"][i]),
                       "adjClose": half_up(adj[i]), "volume": quote["volume"][i]}
        assert isinstance(bar["volume"], int)


def test_epoch_keys_are_epoch_strings(api, yahoo, recording):
    payload = recording(AAPL_3MO)
    yahoo.chart("AAPL", payload)
    response = api.get("/v1/historical?symbol=AAPL&range=3mo&interval=1d&epoch=true")
    assert response.status_code == 200
    body = response.json()
    stamps = payload["chart"]["result"][0]["timestamp"]
    assert list(body) == [str(ts) for ts in sorted(stamps, reverse=True)]
    assert body["1604673000"]["close"] == 118.69


@pytest.mark.parametrize("value", ["false", "False", "0"])
def test_epoch_false_values_give_date_keys(api, yahoo, recording, value):
    yahoo.chart("AAPL", recording(AAPL_3MO))
    body = api.get(f"/v1/historical?symbol=AAPL&range=3mo&interval=1d&epoch={value}").json()
    assert next(iter(body)) == "2020-11-06"


def test_price_hint_4_keeps_four_decimals(api, yahoo, recording):
    # The chart URL carries the symbol percent-encoded or not; accept both.
    yahoo.mock.add(responses.GET,
                   re.compile(re.escape(QUERY2) + r"/v8/finance/chart/EURUSD(=|%3D)X(\?.*)?$"),
                   json=recording(EURUSD))
    response = api.get("/v1/historical?symbol=EURUSD%3DX&range=5d&interval=1d")
    assert response.status_code == 200, response.content
    body = response.json()
    # Daily bars are dated by the exchange's session day (Europe/London for FX).
    assert list(body) == ["2020-01-03", "2020-01-02", "2020-01-01"]
    assert body["2020-01-03"] == {"open": 1.1171, "high": 1.1181, "low": 1.1126,
                                  "close": 1.1171, "adjClose": 1.1171, "volume": 0}
    assert body["2020-01-01"] == {"open": 1.1221, "high": 1.1228, "low": 1.1159,
                                  "close": 1.1221, "adjClose": 1.1221, "volume": 0}


# -- 200: generated bodies (intraday, nulls, rounding) ----------------------------------------
# epoch -> US/Eastern wall time, worked out by hand (EST = UTC-5, EDT = UTC-4).
INTRADAY_BARS = {
    1705415400: "2024-01-16 09:30:00",  # 14:30 UTC, winter (EST)
    1705415700: "2024-01-16 09:35:00",
    1709908200: "2024-03-08 09:30:00",  # Friday before the March DST switch: 14:30 UTC
    1710050400: "2024-03-10 01:00:00",  # 06:00 UTC, the DST night, still EST
    1710054000: "2024-03-10 03:00:00",  # 07:00 UTC, one hour later: clocks jumped to EDT
    1710163800: "2024-03-11 09:30:00",  # Monday after the switch: 13:30 UTC (EDT)
    1719863700: "2024-07-01 15:55:00",  # 19:55 UTC, summer (EDT)
    1730467800: "2024-11-01 09:30:00",  # 13:30 UTC, EDT
    1730730600: "2024-11-04 09:30:00",  # 14:30 UTC, after the fall switch (EST)
}


def _intraday_chart() -> dict:
    stamps = sorted(INTRADAY_BARS)
    rows = [(10.0 + i, 11.0 + i, 9.0 + i, 10.5 + i, 100 * (i + 1)) for i in range(len(stamps))]
    return chart_payload("AAPL", stamps, rows, granularity="1h")


def test_intraday_keys_are_us_eastern_wall_time_across_dst(api, yahoo):
    yahoo.chart("AAPL", _intraday_chart())
    response = api.get("/v1/historical?symbol=AAPL&range=1y&interval=1h")
    assert response.status_code == 200
    body = response.json()
    assert list(body) == [INTRADAY_BARS[ts] for ts in sorted(INTRADAY_BARS, reverse=True)]


def test_intraday_bars_have_no_adjclose(api, yahoo):
    yahoo.chart("AAPL", _intraday_chart())
    body = api.get("/v1/historical?symbol=AAPL&range=1y&interval=1h").json()
    assert body["2024-03-10 03:00:00"] == {"open": 14.0, "high": 15.0, "low": 13.0,
                                           "close": 14.5, "volume": 500}
    assert all("adjClose" not in bar for bar in body.values())


def test_intraday_epoch_keys(api, yahoo):
    yahoo.chart("AAPL", _intraday_chart())
    body = api.get("/v1/historical?symbol=AAPL&range=1y&interval=1h&epoch=true").json()
    assert list(body) == [str(ts) for ts in sorted(INTRADAY_BARS, reverse=True)]


def test_one_minute_bars_from_the_1m_recording_shape(api, yahoo):
    stamps = [1705415400, 1705415460, 1705415520]
    rows = [(1.0, 2.0, 0.5, 1.5, 10), (1.5, 2.5, 1.0, 2.0, 20), (2.0, 3.0, 1.5, 2.5, 30)]
    yahoo.chart("AAPL", chart_payload("AAPL", stamps, rows, granularity="1m"))
    body = api.get("/v1/historical?symbol=AAPL&range=1d&interval=1m").json()
    assert body == {
        "2024-01-16 09:32:00": {"open": 2.0, "high": 3.0, "low": 1.5, "close": 2.5, "volume": 30},
        "2024-01-16 09:31:00": {"open": 1.5, "high": 2.5, "low": 1.0, "close": 2.0, "volume": 20},
        "2024-01-16 09:30:00": {"open": 1.0, "high": 2.0, "low": 0.5, "close": 1.5, "volume": 10},
    }


@pytest.mark.parametrize("null_at", [0, 1, 2, 3, 4])
def test_rows_with_a_null_are_dropped(api, yahoo, null_at):
    stamps = [1705329000, 1705415400, 1705501800]  # 2024-01-15/16/17 09:30 ET
    rows = [[100.0, 101.0, 99.0, 100.5, 1000], [100.5, 102.0, 100.0, 101.5, 2000],
            [101.5, 103.0, 101.0, 102.5, 3000]]
    rows[1][null_at] = None
    yahoo.chart("AAPL", chart_payload("AAPL", stamps, [tuple(r) for r in rows],
                                      adjclose=[100.5, 101.5, 102.5]))
    response = api.get("/v1/historical?symbol=AAPL&range=5d&interval=1d")
    assert response.status_code == 200
    body = response.json()
    assert list(body) == ["2024-01-17", "2024-01-15"]
    assert all(v is not None for bar in body.values() for v in bar.values())


def test_null_timestamp_row_and_all_null_padding_dropped(api, yahoo):
    stamps = [1705329000, 1705415400]
    rows = [(None, None, None, None, None), (100.5, 102.0, 100.0, 101.5, 2000)]
    yahoo.chart("AAPL", chart_payload("AAPL", stamps, rows, adjclose=[None, 101.5]))
    body = api.get("/v1/historical?symbol=AAPL&range=5d&interval=1d").json()
    assert body == {"2024-01-16": {"open": 100.5, "high": 102.0, "low": 100.0, "close": 101.5,
                                   "adjClose": 101.5, "volume": 2000}}


def test_rounding_two_decimals_half_up(api, yahoo):
    # Binary floats: Python's round() gives 2.0, 2.67, 1.11 and 0.12 for these.
    stamps = [1705329000]
    rows = [(2.005, 2.675, 1.115, 0.125, 7)]
    yahoo.chart("AAPL", chart_payload("AAPL", stamps, rows, adjclose=[1.005]))
    body = api.get("/v1/historical?symbol=AAPL&range=5d&interval=1d").json()
    assert body == {"2024-01-15": {"open": 2.01, "high": 2.68, "low": 1.12, "close": 0.13,
                                   "adjClose": 1.01, "volume": 7}}


def test_rounding_four_decimals_with_price_hint_4(api, yahoo):
    stamps = [1705329000]
    rows = [(1.00005, 1.23456789, 1.11115, 1.0, 0)]
    yahoo.chart("AAPL", chart_payload("AAPL", stamps, rows, adjclose=[1.99995],
                                      price_hint=4))
    body = api.get("/v1/historical?symbol=AAPL&range=5d&interval=1d").json()
    assert body == {"2024-01-15": {"open": 1.0001, "high": 1.2346, "low": 1.1112, "close": 1.0,
                                   "adjClose": 2.0, "volume": 0}}


def test_lower_case_symbol_is_canonicalised(api, yahoo, recording):
    yahoo.chart("AAPL", recording(AAPL_3MO))
    response = api.get("/v1/historical?symbol=aapl&range=3mo&interval=1d")
    assert response.status_code == 200
    assert len(calls_to(yahoo.mock, "/v8/finance/chart/AAPL")) == 1


# -- 404 ---------------------------------------------------------------------------------------
def test_yahoo_404_chart_body_is_404(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v1/historical?symbol=ZZZZ&range=1mo&interval=1d")
    assert response.status_code == 404
    body = response.json()
    assert set(body) == {"detail"}
    assert isinstance(body["detail"], str)
    assert "ZZZZ" in body["detail"]


def test_yahoo_not_found_error_with_200_status_is_404(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=200)
    response = api.get("/v1/historical?symbol=ZZZZ&range=1mo&interval=1d")
    assert response.status_code == 404
    assert response.json() == {"detail": "No data found, symbol may be delisted"}


def test_empty_result_from_recording_is_404(api, yahoo, recording):
    yahoo.chart("AAPL", recording(AAPL_1M_EMPTY))
    response = api.get("/v1/historical?symbol=AAPL&range=1d&interval=1m")
    assert response.status_code == 404
    assert response.json() == {"detail": "No data returned for symbol"}


def test_empty_result_list_is_404(api, yahoo):
    yahoo.chart("AAPL", {"chart": {"result": [], "error": None}})
    response = api.get("/v1/historical?symbol=AAPL&range=1d&interval=1d")
    assert response.status_code == 404
    assert response.json() == {"detail": "No data returned for symbol"}


def test_all_rows_null_is_404(api, yahoo):
    yahoo.chart("AAPL", chart_payload("AAPL", [1705329000], [(None, None, None, None, None)]))
    response = api.get("/v1/historical?symbol=AAPL&range=1d&interval=1d")
    assert response.status_code == 404
    assert response.json() == {"detail": "No data returned for symbol"}


def test_not_found_is_remembered(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    assert api.get("/v1/historical?symbol=ZZZZ&range=1mo&interval=1d").status_code == 404
    assert api.get("/v1/historical?symbol=ZZZZ&range=1mo&interval=1d").status_code == 404
    assert len(calls_to(yahoo.mock, "/chart/ZZZZ")) == 1


# -- 502 on a body that is not a chart ---------------------------------------------------------
def test_non_json_chart_body_is_502(api, yahoo):
    yahoo.mock.add(responses.GET, url_pattern(QUERY2 + "/v8/finance/chart/AAPL"),
                   body="<html>oops</html>", content_type="text/html")
    response = api.get("/v1/historical?symbol=AAPL&range=1mo&interval=1d")
    assert response.status_code == 502
    body = response.json()
    assert set(body) == {"detail", "provider", "code"}
    assert body["provider"] == "yahoo"
    assert body["code"] == "upstream_bad_response"


# -- 422 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("query", "errors"), [
    ("", {"symbol": ["Field required"], "range": ["Field required"],
          "interval": ["Field required"]}),
    ("range=1y&interval=1d", {"symbol": ["Field required"]}),
    ("symbol=AAPL&interval=1d", {"range": ["Field required"]}),
    ("symbol=AAPL&range=1y", {"interval": ["Field required"]}),
    ("symbol=&range=1y&interval=1d", {"symbol": ["String should have at least 1 character"]}),
    ("symbol=AAPL&range=2d&interval=1d", {"range": [RANGE_MESSAGE]}),
    ("symbol=AAPL&range=1Y&interval=1d", {"range": [RANGE_MESSAGE]}),
    ("symbol=AAPL&range=1y&interval=3mo", {"interval": [INTERVAL_MESSAGE]}),
    ("symbol=AAPL&range=1y&interval=", {"interval": [INTERVAL_MESSAGE]}),
    ("symbol=AAPL&range=1y&interval=1d&epoch=maybe", {"epoch": [BOOL_MESSAGE]}),
    ("symbol=AAPL&range=1y&interval=1d&epoch=2", {"epoch": [BOOL_MESSAGE]}),
    ("symbol=AAPL&range=forever&interval=1s&epoch=x",
     {"range": [RANGE_MESSAGE], "interval": [INTERVAL_MESSAGE], "epoch": [BOOL_MESSAGE]}),
])
def test_invalid_parameters_422(api, yahoo, query, errors):
    response = api.get(f"/v1/historical?{query}")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": errors}
    assert len(yahoo.mock.calls) == 0
