"""GET /v1/indicator, /v1/indicators, /v2/indicators and /v2/indicators/{symbol}.

Yahoo is mocked with real prices (bokeh-sampledata AAPL daily bars, rebuilt into Yahoo's
chart shape); expected values come from TA-Lib or plain pandas, never from the code under
test.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pandas as pd
import pytest
import talib

from tests.apps.payloads import CHART_NOT_FOUND, FAILURES, QUERY2, chart_payload, fail_url
from tests.conftest import calls_to
from tests.price_series import bokeh_bars

BARS = 400
DAILY_KEY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def chart_from_bokeh(symbol: str = "AAPL", bars: int = BARS, ticker: str = "AAPL") -> dict:
    series = bokeh_bars(ticker, bars)
    rows = list(zip(series.open.tolist(), series.high.tolist(), series.low.tolist(),
                    series.close.tolist(), [int(v) for v in series.volume], strict=True))
    # Session timestamps at 14:30 UTC (09:30 New York) like Yahoo's daily bars.
    stamps = [int(t) + 14 * 3600 + 1800 for t in series.timestamps]
    return chart_payload(symbol, stamps, rows, adjclose=series.adjclose.tolist())


@pytest.fixture
def aapl(yahoo):
    yahoo.chart("AAPL", chart_from_bokeh())
    return yahoo


def ohlcv(bars: int = BARS):
    s = bokeh_bars("AAPL", bars)
    return s.open, s.high, s.low, s.close, s.volume


def dates(bars: int = BARS) -> list[str]:
    """Session dates of the last ``bars`` bokeh AAPL bars, as the service keys them."""
    s = bokeh_bars("AAPL", bars)
    return [pd.Timestamp(int(t) + 14 * 3600 + 1800, unit="s", tz="UTC")
            .tz_convert("America/New_York").strftime("%Y-%m-%d") for t in s.timestamps]


def series_of(body: dict, member: str) -> dict[str, float]:
    return {k: v[member] for k, v in body["Technical Analysis"].items() if member in v}


def expected(values: np.ndarray) -> dict[str, float]:
    """Oracle values keyed by date, warm-up (NaN) left out."""
    return {d: float(v) for d, v in zip(dates(), values, strict=True) if not np.isnan(v)}


def assert_close(got: dict[str, float], want: dict[str, float]) -> None:
    assert list(got) == sorted(got, reverse=True), "newest first"
    if len(want) == 150:  # compared on the last bars only (ADX)
        got = {k: v for k, v in got.items() if k in want}
    assert list(got) == sorted(want, reverse=True), "same bars"
    for key, value in want.items():
        # Rounded to 2 places by the service; the oracle is unrounded.
        assert got[key] == pytest.approx(value, abs=0.005 + 1e-9), key


def _stoch_k_d(h, lo, c):
    """Full stochastic from TA-Lib's raw %K; TA-Lib's STOCH would start %K with %D."""
    raw, _ = talib.STOCHF(h, lo, c, fastk_period=14, fastd_period=1)
    k = talib.SMA(raw, 3)
    return k, talib.SMA(k, 3)


def _adx_after_convergence(h, lo, c):
    """TA-Lib's ADX seeds its DM/TR averages with one bar fewer than Wilder's worksheet
    (indicators README); the difference decays below 1e-6 after ~200 bars, so only the
    last 150 bars are compared with it (the bar count is checked separately)."""
    out = talib.ADX(h, lo, c, 14)
    out[:-150] = np.nan
    return out


ORACLES = {
    "SMA": lambda o, h, lo, c, v: {"value": talib.SMA(c, 10)},
    "EMA": lambda o, h, lo, c, v: {"value": talib.EMA(c, 10)},
    "WMA": lambda o, h, lo, c, v: {"value": talib.WMA(c, 10)},
    "VWMA": lambda o, h, lo, c, v: {"value": talib.VWMA(c, v, 20)},
    "RSI": lambda o, h, lo, c, v: {"value": talib.RSI(c, 14)},
    "CCI": lambda o, h, lo, c, v: {"value": talib.CCI(h, lo, c, 20)},
    "OBV": lambda o, h, lo, c, v: {"value": talib.OBV(c, v)},
    "ADX": lambda o, h, lo, c, v: {"value": _adx_after_convergence(h, lo, c)},
    "STOCH": lambda o, h, lo, c, v: dict(zip(("k", "d"), _stoch_k_d(h, lo, c), strict=True)),
    "BBANDS": lambda o, h, lo, c, v: dict(zip(("upper_band", "middle_band", "lower_band"),
                                              talib.BBANDS(c, 20, 2, 2), strict=True)),
    "AROON": lambda o, h, lo, c, v: dict(zip(("aroon_down", "aroon_up"),
                                             talib.AROON(h, lo, 25), strict=True)),
    "MACD": lambda o, h, lo, c, v: {"value": talib.EMA(c, 12) - talib.EMA(c, 26),
                                    "signal": _macd_signal(c)},
}


def _macd_signal(c):
    """EMA(9) of the MACD line, started where the line starts (bar 25)."""
    line = talib.EMA(c, 12) - talib.EMA(c, 26)
    out = np.full(c.size, np.nan)
    out[25:] = talib.EMA(line[25:], 9)
    return out


@pytest.mark.parametrize("function", sorted(ORACLES))
def test_history_matches_talib(api, aapl, function):
    response = api.get(f"/v1/indicator?function={function}&symbol=AAPL")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["type"] == function
    assert all(DAILY_KEY.match(k) for k in body["Technical Analysis"])
    query = parse_qs(urlsplit(calls_to(aapl.mock, "/v8/finance/chart/AAPL")[0]
                              .request.url).query)
    assert query["range"] == ["2y"] and query["interval"] == ["1d"]
    for member, values in ORACLES[function](*ohlcv()).items():
        assert_close(series_of(body, member), expected(values))


def test_every_spec_function_answers_with_its_members(api, aapl):
    members = {
        "SMA": {"value"}, "EMA": {"value"}, "WMA": {"value"}, "VWMA": {"value"},
        "RSI": {"value"}, "CCI": {"value"}, "OBV": {"value"}, "ADX": {"value"},
        "SRSI": {"k", "d"}, "STOCH": {"k", "d"}, "MACD": {"value", "signal"},
        "AROON": {"aroon_up", "aroon_down"},
        "BBANDS": {"upper_band", "middle_band", "lower_band"},
        "SUPERTREND": {"value", "trend"},
        "ICHIMOKU": {"tenkan_sen", "kijun_sen", "chikou_span", "senkou_span_a",
                     "senkou_span_b"},
    }
    for function, names in members.items():
        body = api.get(f"/v1/indicator?function={function}&symbol=AAPL").json()
        rows = list(body["Technical Analysis"].values())
        assert rows, function
        # The newest complete bar has every member (Ichimoku's lagging span excepted: it
        # is the close kijun bars later, so the newest 26 bars have none).
        union = set().union(*rows)
        assert union == names, function
        assert all(row for row in rows), "no empty objects"
        if function == "SUPERTREND":
            assert all(row["trend"] in ("up", "down", "neutral") for row in rows)
            assert all("value" in row for row in rows)


def test_adx_starts_at_bar_2p_minus_1(api, aapl):
    body = api.get("/v1/indicator?function=ADX&symbol=AAPL").json()
    assert list(body["Technical Analysis"])[-1] == dates()[27]


def test_warm_up_bars_are_left_out(api, aapl):
    body = api.get("/v1/indicator?function=SMA&symbol=AAPL&lookBackPeriod=50").json()
    assert len(body["Technical Analysis"]) == BARS - 49
    assert list(body["Technical Analysis"])[-1] == dates()[49]


def test_parameters_by_alias_and_by_name(api, aapl):
    by_alias = api.get("/v1/indicator?function=SMA&symbol=AAPL&lookBackPeriod=5").json()
    by_name = api.get("/v1/indicator?function=SMA&symbol=AAPL&period=5").json()
    assert by_alias == by_name
    assert_close(series_of(by_alias, "value"), expected(talib.SMA(ohlcv()[3], 5)))
    bands = api.get("/v1/indicator?function=BBANDS&symbol=AAPL&stdDev=3&lookBackPeriod=10")
    upper, _, _ = talib.BBANDS(ohlcv()[3], 10, 3, 3)
    assert_close(series_of(bands.json(), "upper_band"), expected(upper))


def test_function_name_is_case_insensitive(api, aapl):
    body = api.get("/v1/indicator?function=ema&symbol=aapl").json()
    assert body["type"] == "EMA"


def test_epoch_keys(api, aapl):
    body = api.get("/v1/indicator?function=SMA&symbol=AAPL&epoch=true").json()
    keys = list(body["Technical Analysis"])
    assert all(k.isdigit() for k in keys)
    assert [int(k) for k in keys] == sorted((int(k) for k in keys), reverse=True)


def test_obv_sma_periods_smooths_the_line(api, aapl):
    body = api.get("/v1/indicator?function=OBV&symbol=AAPL&smaPeriods=10").json()
    *_, c, v = ohlcv()
    assert_close(series_of(body, "value"), expected(talib.SMA(talib.OBV(c, v), 10)))


def _invalid(response) -> dict:
    assert response.status_code == 422, response.content
    body = response.json()
    assert body["detail"] == "Invalid request"
    return body["errors"]


@pytest.mark.parametrize(("query", "errors"), [
    ("symbol=AAPL", {"function": ["Field required"]}),
    ("function=FOO&symbol=AAPL", {"function": [
        "Input should be 'SMA', 'EMA', 'WMA', 'VWMA', 'RSI', 'SRSI', 'STOCH', 'CCI', 'OBV', "
        "'BBANDS', 'AROON', 'ADX', 'MACD', 'SUPERTREND' or 'ICHIMOKU'"]}),
    ("function=SMA", {"symbol": ["Field required"]}),
    ("function=SMA&symbol=AAPL&lookBackPeriod=ten", {"period": [
        "Input should be a valid integer, unable to parse string as an integer"]}),
    ("function=SMA&symbol=AAPL&lookBackPeriod=2.5", {"period": [
        "Input should be a valid integer, unable to parse string as an integer"]}),
    ("function=SMA&symbol=AAPL&lookBackPeriod=0", {"period": [
        "Input should be greater than or equal to 1"]}),
    ("function=SMA&symbol=AAPL&lookBackPeriod=-3", {"period": [
        "Input should be greater than or equal to 1"]}),
    ("function=SMA&symbol=AAPL&lookBackPeriod=1001", {"period": [
        "Input should be less than or equal to 1000"]}),
    ("function=BBANDS&symbol=AAPL&stdDev=11", {"std_dev": [
        "Input should be less than or equal to 10"]}),
    ("function=SMA&symbol=AAPL&stdDev=2", {"std_dev": [
        "Not a parameter of SMA (it takes lookBackPeriod)"]}),
    ("function=OBV&symbol=AAPL&lookBackPeriod=2", {"period": [
        "Not a parameter of OBV (it takes smaPeriods)"]}),
    ("function=MACD&symbol=AAPL&fastPeriod=30", {"fast_period": [
        "Input should be less than slow_period (26)"]}),
    ("function=ICHIMOKU&symbol=AAPL&tenkanPeriod=x&multiplier=2", {
        "tenkan_period": [
            "Input should be a valid integer, unable to parse string as an integer"],
        "multiplier": ["Not a parameter of ICHIMOKU (it takes tenkanPeriod, kijunPeriod, "
                       "senkouPeriod)"]}),
    ("function=SRSI&symbol=AAPL&stochPeriod=0&signalPeriod=0&smooth=0", {
        "stoch_period": ["Input should be greater than or equal to 1"],
        "signal_period": ["Input should be greater than or equal to 1"],
        "smooth": ["Input should be greater than or equal to 1"]}),
    ("function=SMA&symbol=AAPL&range=2w", {"range": [
        "Input should be '1d', '5d', '1mo', '3mo', '6mo', 'ytd', '1y', '2y', '5y', '10y' or "
        "'max'"]}),
])
def test_invalid_parameters_422(api, yahoo, query, errors):
    assert _invalid(api.get(f"/v1/indicator?{query}")) == errors
    assert not calls_to(yahoo.mock, "/v8/finance/chart"), "nothing reaches Yahoo"


_NOT_AN_INTEGER = ["Input should be a valid integer, unable to parse string as an integer"]
_ABOVE_MAX = ["Input should be less than or equal to 1000"]
_BELOW_MIN = ["Input should be greater than or equal to 1"]


@pytest.mark.parametrize(("value", "errors"), [
    ("9" * 4400, _NOT_AN_INTEGER),  # past Python's int() digit limit: was a 500
    ("1" + "0" * 4299, _ABOVE_MAX),  # a digit string int() still takes: out of range
    ("%EF%BC%91%EF%BC%92", _NOT_AN_INTEGER),  # full-width 12: int() would read 12
    ("1e5", _NOT_AN_INTEGER),
    ("1_0", _NOT_AN_INTEGER),  # int() would read 10
    ("NaN", _NOT_AN_INTEGER),
    ("inf", _NOT_AN_INTEGER),
    ("%E2%80%8310", _NOT_AN_INTEGER),  # a Unicode space before the digits
    ("-0", _BELOW_MIN),
])
def test_non_integer_periods_are_the_endpoints_422(api, yahoo, value, errors):
    """Issue 13 item 3: every bad integer is the endpoint's own 422, keyed by python name,
    before any upstream call; never a 500."""
    response = api.get(f"/v1/indicator?function=SMA&symbol=AAPL&lookBackPeriod={value}")
    assert _invalid(response) == {"period": errors}
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


@pytest.mark.parametrize("value", ["%2B5", "%205%20", "05"])
def test_integer_spellings_accepted(api, aapl, value):
    """'+5', ' 5 ' and '05' are the integer 5."""
    five = api.get("/v1/indicator?function=SMA&symbol=AAPL&lookBackPeriod=5").json()
    response = api.get(f"/v1/indicator?function=SMA&symbol=AAPL&lookBackPeriod={value}")
    assert response.status_code == 200, response.content
    assert response.json() == five


def test_incompatible_interval_and_range_400(api, yahoo):
    response = api.get("/v1/indicator?function=SMA&symbol=AAPL&interval=1m")
    assert response.status_code == 400
    assert response.json() == {"detail": "If interval is 1m, range must be 1d, 5d"}
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


def test_period_longer_than_the_history_400(api, aapl):
    response = api.get("/v1/indicator?function=SMA&symbol=AAPL&lookBackPeriod=500")
    assert response.status_code == 400
    assert response.json() == {"detail": (
        "Not enough data to compute SMA: it needs at least 500 bars; AAPL has 400 for range "
        "2y and interval 1d")}


@pytest.mark.parametrize("function", ["SMA", "RSI", "MACD", "ICHIMOKU", "SUPERTREND"])
def test_single_bar_is_400_not_500(api, yahoo, function):
    yahoo.chart("AAPL", chart_from_bokeh(bars=1))
    response = api.get(f"/v1/indicator?function={function}&symbol=AAPL")
    assert response.status_code == 400
    assert response.json()["detail"].startswith(f"Not enough data to compute {function}")


def test_unknown_symbol_404(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v1/indicator?function=SMA&symbol=ZZZZ")
    assert response.status_code == 404
    assert set(response.json()) == {"detail"}


@pytest.mark.parametrize("symbol", ["../etc", "AA PL", "A%2FB", "x" * 300])
def test_malformed_symbol_404_without_upstream_call(api, yahoo, symbol):
    response = api.get(f"/v1/indicator?function=SMA&symbol={symbol}")
    assert response.status_code == 404
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures(api, yahoo, kind):
    fail_url(yahoo.mock, QUERY2 + "/v8/finance/chart/AAPL", kind)
    status, code = FAILURES[kind]
    for url in ("/v1/indicator?function=SMA&symbol=AAPL", "/v1/indicators?symbol=AAPL"):
        response = api.get(url)
        assert response.status_code == status
        assert response.json()["provider"] == "yahoo"
        assert response.json()["code"] == code


# ---- /v1/indicators -------------------------------------------------------------------

SPEC_LABELS = [
    "SMA(10)", "SMA(20)", "SMA(50)", "SMA(100)", "SMA(200)",
    "EMA(10)", "EMA(20)", "EMA(50)", "EMA(100)", "EMA(200)",
    "WMA(10)", "WMA(20)", "WMA(50)", "WMA(100)", "WMA(200)",
    "VWMA(20)", "RSI(14)", "SRSI(3,3,14,14)", "STOCH %K(14,3,3)", "CCI(20)", "BBANDS(20,2)",
    "Aroon(25)", "ADX(14)", "MACD(12,26)", "Super Trend", "Ichimoku Cloud",
]


def test_latest_default_set_is_every_spec_label(api, aapl):
    response = api.get("/v1/indicators?symbol=AAPL")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == SPEC_LABELS
    _, h, lo, c, _ = ohlcv()
    assert body["SMA(200)"] == {"SMA": pytest.approx(talib.SMA(c, 200)[-1], abs=0.005)}
    assert body["EMA(50)"]["EMA"] == pytest.approx(talib.EMA(c, 50)[-1], abs=0.005)
    assert body["WMA(100)"]["WMA"] == pytest.approx(talib.WMA(c, 100)[-1], abs=0.005)
    assert body["RSI(14)"]["RSI"] == pytest.approx(talib.RSI(c, 14)[-1], abs=0.005)
    assert body["ADX(14)"]["ADX"] == pytest.approx(talib.ADX(h, lo, c, 14)[-1], abs=0.005)
    k, d = _stoch_k_d(h, lo, c)
    assert body["STOCH %K(14,3,3)"] == {"%K": pytest.approx(k[-1], abs=0.005),
                                        "%D": pytest.approx(d[-1], abs=0.005)}
    upper, middle, lower = talib.BBANDS(c, 20, 2, 2)
    assert body["BBANDS(20,2)"] == {"Upper Band": pytest.approx(upper[-1], abs=0.005),
                                    "Middle Band": pytest.approx(middle[-1], abs=0.005),
                                    "Lower Band": pytest.approx(lower[-1], abs=0.005)}
    down, up = talib.AROON(h, lo, 25)
    assert body["Aroon(25)"] == {"Aroon Up": pytest.approx(up[-1], abs=0.005),
                                 "Aroon Down": pytest.approx(down[-1], abs=0.005)}
    assert set(body["MACD(12,26)"]) == {"MACD", "Signal"}
    assert set(body["SRSI(3,3,14,14)"]) == {"%K", "%D"}
    assert set(body["Super Trend"]) == {"Super Trend", "Trend"}
    assert body["Super Trend"]["Trend"] in ("UP", "DOWN")
    cloud = body["Ichimoku Cloud"]
    assert set(cloud) == {"Conversion Line", "Base Line", "Lagging Span", "Leading Span A",
                          "Leading Span B"}
    assert cloud["Lagging Span"] == pytest.approx(c[-1], abs=0.005)
    assert cloud["Conversion Line"] == pytest.approx(
        (h[-9:].max() + lo[-9:].min()) / 2, abs=0.005)
    assert cloud["Leading Span B"] == pytest.approx(
        (h[-78:-26].max() + lo[-78:-26].min()) / 2, abs=0.005)
    assert all(isinstance(v, float) for label in body.values() for k, v in label.items()
               if k != "Trend")


@pytest.mark.parametrize(("interval", "range_"), [
    ("1m", "5d"), ("5m", "1mo"), ("15m", "1mo"), ("30m", "1mo"), ("1h", "6mo"),
    ("1d", "5y"), ("1wk", "10y"), ("1mo", "max")])
def test_latest_history_range_follows_the_interval(api, aapl, interval, range_):
    assert api.get(f"/v1/indicators?symbol=AAPL&interval={interval}").status_code == 200
    query = parse_qs(urlsplit(calls_to(aapl.mock, "/v8/finance/chart/AAPL")[0]
                              .request.url).query)
    assert query["range"] == [range_] and query["interval"] == [interval]


def test_latest_functions_select_in_request_order(api, aapl):
    body = api.get("/v1/indicators?symbol=AAPL&functions=rsi, macd,SMA,RSI").json()
    assert list(body) == ["RSI(14)", "MACD(12,26)", "SMA(10)", "SMA(20)", "SMA(50)",
                          "SMA(100)", "SMA(200)"]


def test_latest_obv_only_when_asked_and_reference_alias(api, aapl):
    body = api.get("/v1/indicators?symbol=AAPL&functions=OBV,SUPER_TREND").json()
    *_, c, v = ohlcv()
    assert body["OBV"] == {"OBV": pytest.approx(talib.OBV(c, v)[-1])}
    assert list(body) == ["OBV", "Super Trend"]


def test_latest_unknown_functions_422_names_them(api, yahoo):
    errors = _invalid(api.get("/v1/indicators?symbol=AAPL&functions=SMA,FOO,bar"))
    assert list(errors) == ["functions"]
    assert [m.split(":")[0] for m in errors["functions"]] == [
        "Unknown indicator 'FOO'", "Unknown indicator 'BAR'"]
    assert _invalid(api.get("/v1/indicators?symbol=AAPL&functions=,")) == {
        "functions": ["String should have at least 1 character"]}
    assert _invalid(api.get("/v1/indicators")) == {"symbol": ["Field required"]}
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


def test_latest_short_history_gives_nulls(api, yahoo):
    yahoo.chart("AAPL", chart_from_bokeh(bars=60))
    body = api.get("/v1/indicators?symbol=AAPL").json()
    assert list(body) == SPEC_LABELS
    assert body["SMA(200)"] == {"SMA": None}
    assert body["SMA(50)"]["SMA"] is not None
    assert body["RSI(14)"]["RSI"] is not None


def test_latest_unknown_symbol_404(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    assert api.get("/v1/indicators?symbol=ZZZZ").status_code == 404


# ---- /v2/indicators ---------------------------------------------------------------------

def test_v2_batch_sorted_with_errors_and_defaults(api, yahoo):
    yahoo.chart("MSFT", chart_from_bokeh("MSFT", 300, "MSFT"))
    yahoo.chart("AAPL", chart_from_bokeh("AAPL", 300))
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v2/indicators?symbols=msft,ZZZZ,AAPL")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [item["symbol"] for item in body["indicators"]] == ["AAPL", "MSFT"]
    assert [e["symbol"] for e in body["errors"]] == ["ZZZZ"]
    assert body["errors"][0]["message"]
    for call in calls_to(yahoo.mock, "/v8/finance/chart/"):
        query = parse_qs(urlsplit(call.request.url).query)
        assert query["range"] == ["1y"] and query["interval"] == ["1d"]
    c = bokeh_bars("AAPL", 300).close
    aapl_set = body["indicators"][0]["indicators"]
    assert aapl_set["sma200"] == pytest.approx(talib.SMA(c, 200)[-1], rel=1e-12)
    assert aapl_set["rsi14"] == pytest.approx(talib.RSI(c, 14)[-1], rel=1e-9)
    assert aapl_set["wma10"] == pytest.approx(talib.WMA(c, 10)[-1], rel=1e-9)


def test_v2_fields_select_members(api, yahoo):
    yahoo.chart("AAPL", chart_from_bokeh("AAPL", 300))
    body = api.get("/v2/indicators?symbols=AAPL&fields=rsi14, macd,nonsense").json()
    assert body["indicators"] == [{"symbol": "AAPL", "indicators": {
        "macd": body["indicators"][0]["indicators"]["macd"],
        "rsi14": body["indicators"][0]["indicators"]["rsi14"]}}]
    assert set(body["indicators"][0]["indicators"]["macd"]) == {"macd", "signal", "histogram"}
    every = api.get("/v2/indicators?symbols=AAPL&fields=nonsense").json()
    assert len(every["indicators"][0]["indicators"]) == 57


def test_v2_pagination_over_symbols(api, yahoo):
    for symbol in ("AAPL", "IBM", "MSFT"):
        yahoo.chart(symbol, chart_from_bokeh(symbol, 120, symbol))
    first = api.get("/v2/indicators?symbols=MSFT,IBM,AAPL&limit=2&fields=sma10").json()
    page = first["indicators"]
    assert [n["symbol"] for n in page["nodes"]] == ["AAPL", "IBM"]
    assert page["pageInfo"] == {"startCursor": "MA", "endCursor": "MQ", "hasNextPage": True,
                                "hasPreviousPage": False}
    assert [e["cursor"] for e in page["edges"]] == ["MA", "MQ"]
    second = api.get("/v2/indicators?symbols=MSFT,IBM,AAPL&limit=2&fields=sma10&cursor=MQ")
    page = second.json()["indicators"]
    assert [n["symbol"] for n in page["nodes"]] == ["MSFT"]
    assert page["pageInfo"]["hasNextPage"] is False
    assert page["pageInfo"]["hasPreviousPage"] is True
    bad = api.get("/v2/indicators?symbols=AAPL&cursor=!!")
    assert bad.status_code == 400
    assert bad.json() == {"error": "cursor: Invalid cursor", "status": 400}


def _cursor(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@pytest.mark.parametrize("cursor", [
    _cursor(b"[" * 5000),  # json.loads recursed: was a RecursionError 500
    _cursor(b"9" * 5000),
    _cursor(b"1.0"), _cursor(b"-1"), _cursor(b"true"), _cursor(b'"1"'), _cursor(b" 1"),
    _cursor(b"01"), _cursor(b"\xff"), "MB", "M" * 25, "MQ%3D%3D%3D", "M", "M+",
    "%EF%BC%AD%EF%BC%B1",
])
def test_v2_bad_cursor_is_400_before_any_upstream_call(api, yahoo, cursor):
    """Issue 13 item 3: the cursor is decoded with bounded work (no JSON parser) while the
    query is validated, so a bad one is a 400 ApiError and Yahoo is never asked."""
    response = api.get(f"/v2/indicators?symbols=AAPL,MSFT&cursor={cursor}")
    assert response.status_code == 400, response.content
    assert response.json() == {"error": "cursor: Invalid cursor", "status": 400}
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


@pytest.mark.parametrize("limit", ["9" * 4400, "%EF%BC%91", "1e3", "NaN", "2.5"])
def test_v2_bad_limit_is_400_before_any_upstream_call(api, yahoo, limit):
    response = api.get(f"/v2/indicators?symbols=AAPL&limit={limit}")
    assert response.status_code == 400, response.content
    assert response.json() == {"error": "limit: Input should be a valid integer, unable to "
                                        "parse string as an integer", "status": 400}
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


def test_v2_padded_cursor_is_accepted(api, yahoo):
    for symbol in ("AAPL", "IBM", "MSFT"):
        yahoo.chart(symbol, chart_from_bokeh(symbol, 120, symbol))
    page = api.get("/v2/indicators?symbols=MSFT,IBM,AAPL&fields=sma10&cursor=MQ%3D%3D")
    assert page.status_code == 200, page.content
    assert [n["symbol"] for n in page.json()["indicators"]["nodes"]] == ["MSFT"]


def test_v2_non_ascii_symbols_are_not_upper_cased_into_others(api, yahoo):
    """Issue 13 item 4: 'spy' spelt with a long s (U+017F) upper-cases to SPY; it is an
    invalid symbol, listed in `errors` as typed, and never fetched."""
    yahoo.chart("AAPL", chart_from_bokeh("AAPL", 120))
    response = api.get("/v2/indicators?symbols=%C5%BFpy,AAPL,%C5%BFPY")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [n["symbol"] for n in body["indicators"]] == ["AAPL"]
    assert {e["symbol"] for e in body["errors"]} == {"\u017fpy", "\u017fPY"}
    assert [urlsplit(c.request.url).path for c in calls_to(yahoo.mock, "/v8/finance/chart")] \
        == ["/v8/finance/chart/AAPL"]


@pytest.mark.parametrize(("query", "message"), [
    ("", "symbols: Field required"),
    ("symbols=AAPL&interval=2h", "interval: Input should be '1m', '2m', '5m', '15m', '30m', "
                                 "'1h', '90m', '1d', '5d', '1wk', '1mo' or '3mo'"),
    ("symbols=AAPL&limit=-1", "limit: Input should be greater than or equal to 0"),
    ("symbols=AAPL&interval=1m&range=1y", "If interval is 1m, range must be 1d, 5d"),
])
def test_v2_bad_requests_are_api_errors(api, yahoo, query, message):
    response = api.get(f"/v2/indicators?{query}")
    assert response.status_code == 400
    assert response.json() == {"error": message, "status": 400}
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


def test_v2_all_symbols_failing_upstream_is_the_upstream_status(api, yahoo):
    fail_url(yahoo.mock, QUERY2 + "/v8/finance/chart/AAPL", "yahoo_500")
    response = api.get("/v2/indicators?symbols=AAPL")
    assert response.status_code == 502
    body = response.json()
    assert body["status"] == 502 and body["provider"] == "yahoo" and body["error"]


def test_v2_partial_upstream_failure_is_listed_and_not_cached(api, yahoo):
    yahoo.chart("AAPL", chart_from_bokeh("AAPL", 120))
    fail_url(yahoo.mock, QUERY2 + "/v8/finance/chart/MSFT", "timeout")
    response = api.get("/v2/indicators?symbols=AAPL,MSFT")
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    assert [e["symbol"] for e in response.json()["errors"]] == ["MSFT"]


def test_v2_single_symbol_set(api, yahoo):
    yahoo.chart("AAPL", chart_from_bokeh("AAPL", 300))
    response = api.get("/v2/indicators/AAPL")
    assert response.status_code == 200
    body = response.json()
    assert len(body) == 57
    assert body["supertrend"]["trend"] in ("up", "down")
    assert body["heikinAshi"]["timestamp"] == int(bokeh_bars("AAPL", 300).timestamps[-1]) \
        + 14 * 3600 + 1800
    assert api.get("/v2/indicators/AAPL?fields=obv,vwap").json().keys() == {"obv", "vwap"}


def test_v2_single_unknown_symbol_404(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v2/indicators/ZZZZ")
    assert response.status_code == 404
    assert response.json()["status"] == 404 and response.json()["error"]


# ---- edge cases through the API ---------------------------------------------------------

def _flat_chart(bars: int, price: float = 50.0, volume: int = 0) -> dict:
    stamps = [1704205800 + 86400 * i for i in range(bars)]
    rows = [(price, price, price, price, volume)] * bars
    return chart_payload("AAPL", stamps, rows)


def test_constant_prices_and_zero_volume(api, yahoo):
    yahoo.chart("AAPL", _flat_chart(60))
    rsi = api.get("/v1/indicator?function=RSI&symbol=AAPL").json()["Technical Analysis"]
    assert rsi and all(v == {"value": 50.0} for v in rsi.values())
    cci = api.get("/v1/indicator?function=CCI&symbol=AAPL").json()["Technical Analysis"]
    assert all(v == {"value": 0.0} for v in cci.values())
    bands = api.get("/v1/indicator?function=BBANDS&symbol=AAPL").json()["Technical Analysis"]
    assert all(v == {"upper_band": 50.0, "middle_band": 50.0, "lower_band": 50.0}
               for v in bands.values())
    # No traded volume: a VWMA does not exist, so the answer is the not-enough-data 400.
    vwma = api.get("/v1/indicator?function=VWMA&symbol=AAPL")
    assert vwma.status_code == 400
    latest = api.get("/v1/indicators?symbol=AAPL&functions=VWMA,STOCH").json()
    assert latest == {"VWMA(20)": {"VWMA": None},
                      "STOCH %K(14,3,3)": {"%K": 50.0, "%D": 50.0}}
    v2 = api.get("/v2/indicators/AAPL?fields=vwma20,rsi14,mfi14,obv").json()
    assert v2 == {"vwma20": None, "rsi14": 50.0, "mfi14": 50.0, "obv": 0.0}


def test_gaps_are_dropped_before_computing(api, yahoo):
    body = chart_from_bokeh(bars=60)
    quote = body["chart"]["result"][0]["indicators"]["quote"][0]
    for column in ("open", "high", "low", "close", "volume"):
        quote[column][30] = None  # Yahoo pads a missing session with nulls
    yahoo.chart("AAPL", body)
    rows = api.get("/v1/indicator?function=SMA&symbol=AAPL&lookBackPeriod=5").json()
    series = rows["Technical Analysis"]
    close = np.delete(bokeh_bars("AAPL", 60).close, 30)
    keys = dates(60)
    del keys[30]
    assert len(series) == 59 - 4
    want = talib.SMA(close, 5)
    for key, value in zip(keys, want, strict=True):
        if not np.isnan(value):
            assert series[key]["value"] == pytest.approx(value, abs=0.005 + 1e-9)


def test_v2_unknown_route_and_slash_in_symbol_are_api_errors(api, yahoo):
    for path in ("/v2/indicators/A%2FB", "/v2/nothing-here"):
        response = api.get(path)
        assert response.status_code == 404
        assert response.json() == {"error": "Not Found", "status": 404}
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


def test_v2_set_members_are_declared_once_in_the_answers_order():
    """The set's members, declared on IndicatorSet, are the answer's in alphabetical order;
    the schema lists them so, each object member with its lines' record as properties."""
    from apps.indicators.views import V2IndicatorsView, V2IndicatorView
    from marketdata.indicators.indicator_set import IndicatorSet, MacdLines
    from marketdata.records.members import member_names

    names = member_names(IndicatorSet)
    assert len(names) == 57 and list(names) == sorted(names)
    schema = V2IndicatorView.response_schema
    assert list(schema["properties"]) == list(names)
    macd = schema["properties"]["macd"]
    assert macd["type"] == ["object", "null"] and "required" not in macd
    assert list(macd["properties"]) == list(member_names(MacdLines)) == [
        "macd", "signal", "histogram"]
    assert macd["description"].startswith("MACD (12, 26, 9)")
    assert schema["properties"]["sma200"] == {
        "type": ["number", "null"], "format": "double",
        "description": "Simple moving average of the close over 200 bars, in the series' "
                       "currency"}
    assert V2IndicatorView.output.members == V2IndicatorsView.output.members == names
