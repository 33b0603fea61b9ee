"""GET /v2/risk/{symbol}: statuses, the real recordings and real daily prices through the
whole stack, date alignment against a benchmark, the sandbox, ``fields``.

Expected values come from empyrical-reloaded (dev only) or pandas on the same prices,
never from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tests.apps.payloads import (
    CHART_NOT_FOUND,
    FAILURES,
    QUERY2,
    chart_payload,
    fail_url,
    simple_chart,
)
from tests.conftest import calls_to
from tests.price_series import bokeh_bars

CHART = f"{QUERY2}/v8/finance/chart"
NVDA = "yahoo/v8-chart/historical-via-chart-NVDA-split-2021-02-01-to-2022-01-31.json"
MSFT = "yahoo/v8-chart/historical-via-chart-MSFT-dividends-2021-02-01-to-2022-01-31.json"
CONTEXT = ["symbol", "benchmark", "interval", "range", "priceBasis", "observations",
           "benchmarkObservations", "periodsPerYear", "start", "end"]
METRICS = ["volatility", "var95", "var99", "parametricVar95", "cvar95", "cvar99",
           "parametricCvar95", "omega", "kelly", "sharpe", "sortino", "calmar", "maxDrawdown",
           "maxDrawdownRecoveryPeriods", "ulcerIndex", "beta", "alpha", "trackingError",
           "informationRatio"]


class _Empyrical:
    """empyrical, the reference these tests compare with, imported when a test first uses
    it: with scipy under it, ~1 s of every test worker's collection otherwise."""

    def __getattr__(self, name: str):
        if name.startswith("_"):  # pytest's collection asks for __test__, its markers...:
            raise AttributeError(name)  # empyrical has none, and is not imported for them
        import empyrical

        return getattr(empyrical, name)


ep = _Empyrical()


def approx(value: float) -> object:
    return pytest.approx(value, rel=1e-9, abs=1e-15)


def recorded_closes(payload: dict) -> pd.Series:
    """The recording's adjusted closes by New York session date (null bars left out)."""
    result = payload["chart"]["result"][0]
    stamps = pd.to_datetime(result["timestamp"], unit="s", utc=True).tz_convert(
        result["meta"]["exchangeTimezoneName"]).date
    values = result["indicators"]["adjclose"][0]["adjclose"]
    return pd.Series(values, index=stamps, dtype="float64").dropna()


def test_a_real_year_against_a_real_benchmark(api, yahoo, recording):
    nvda, msft = recording(NVDA), recording(MSFT)
    yahoo.chart("NVDA", nvda)
    yahoo.chart("MSFT", msft)
    response = api.get("/v2/risk/nvda?benchmark=msft")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == set(CONTEXT + METRICS)
    a, b = recorded_closes(nvda), recorded_closes(msft)
    ra = a.pct_change().dropna().to_numpy()
    joined = pd.concat([a, b], axis=1, join="inner")
    ja, jb = (joined.iloc[:, i].pct_change().dropna().to_numpy() for i in (0, 1))
    assert body["symbol"] == "NVDA" and body["benchmark"] == "MSFT"
    assert body["interval"] == "1d" and body["range"] == "1y"
    assert body["priceBasis"] == "adjClose" and body["periodsPerYear"] == 252
    assert body["observations"] == len(ra) and body["benchmarkObservations"] == len(ja)
    assert body["start"] == nvda["chart"]["result"][0]["timestamp"][0]
    assert body["volatility"] == approx(ep.annual_volatility(ra))
    assert body["sharpe"] == approx(ep.sharpe_ratio(ra))
    assert body["sortino"] == approx(ep.sortino_ratio(ra))
    assert body["maxDrawdown"] == approx(-ep.max_drawdown(ra))
    assert body["calmar"] == approx(ep.calmar_ratio(ra))
    assert body["var95"] == approx(-ep.value_at_risk(ra, 0.05))
    assert body["cvar99"] == approx(-ep.conditional_value_at_risk(ra, 0.01))
    assert body["omega"] == approx(ep.omega_ratio(ra))
    assert body["beta"] == approx(ep.beta(ja, jb))
    assert body["alpha"] == approx(ep.alpha(ja, jb))
    assert body["informationRatio"] == approx(ep.excess_sharpe(ja, jb) * math.sqrt(252))
    assert body["trackingError"] == approx(float(np.std(ja - jb, ddof=1)) * math.sqrt(252))
    # Both charts were asked for the same window.
    (mine,) = calls_to(yahoo.mock, "/chart/NVDA")
    (theirs,) = calls_to(yahoo.mock, "/chart/MSFT")
    assert "range=1y" in mine.request.url and "range=1y" in theirs.request.url


def _bokeh_chart(symbol: str, ticker: str, keep: slice | list[int] | None = None) -> dict:
    s = bokeh_bars(ticker, 300)
    index = list(range(len(s.timestamps)))[keep] if isinstance(keep, slice) else \
        (keep if keep is not None else list(range(len(s.timestamps))))
    rows = [(float(s.open[i]), float(s.high[i]), float(s.low[i]), float(s.close[i]),
             int(s.volume[i])) for i in index]
    # 14:30 UTC, 09:30 New York, as Yahoo stamps daily bars.
    stamps = [int(s.timestamps[i]) + 14 * 3600 + 1800 for i in index]
    return chart_payload(symbol, stamps, rows, adjclose=[float(s.adjclose[i]) for i in index])


def _bokeh_adjusted(ticker: str, keep: list[int] | None = None) -> pd.Series:
    s = bokeh_bars(ticker, 300)
    series = pd.Series(s.adjclose, index=pd.to_datetime(s.timestamps, unit="s").date)
    return series if keep is None else series.iloc[keep]


def test_benchmark_returns_are_taken_on_common_dates_only(api, yahoo):
    # The benchmark misses every 5th session, and the symbol's first 20: beta, alpha and
    # the others are computed between consecutive dates both have.
    kept = [i for i in range(300) if i % 5 != 2]
    yahoo.chart("AAPL", _bokeh_chart("AAPL", "AAPL", slice(20, None)))
    yahoo.chart("IBM", _bokeh_chart("IBM", "IBM", kept))
    body = api.get("/v2/risk/AAPL?benchmark=IBM&range=2y").json()
    a = _bokeh_adjusted("AAPL").iloc[20:]
    joined = pd.concat([a, _bokeh_adjusted("IBM", kept)], axis=1, join="inner")
    ja, jb = (joined.iloc[:, i].pct_change().dropna().to_numpy() for i in (0, 1))
    assert body["observations"] == 279 and body["benchmarkObservations"] == len(ja) == 223
    assert body["beta"] == approx(ep.beta(ja, jb))
    assert body["alpha"] == approx(ep.alpha(ja, jb))
    assert body["volatility"] == approx(ep.annual_volatility(a.pct_change().dropna()))


def test_a_benchmark_without_adjusted_closes_puts_both_on_closes(api, yahoo):
    yahoo.chart("AAPL", _bokeh_chart("AAPL", "AAPL"))
    plain = _bokeh_chart("IBM", "IBM")
    del plain["chart"]["result"][0]["indicators"]["adjclose"]
    yahoo.chart("IBM", plain)
    body = api.get("/v2/risk/AAPL?benchmark=IBM").json()
    closes = pd.Series(bokeh_bars("AAPL", 300).close)
    assert body["priceBasis"] == "close"
    assert body["volatility"] == approx(ep.annual_volatility(closes.pct_change().dropna()))


def test_periods_per_year_follow_the_interval(api, yahoo):
    yahoo.chart("AAPL", _bokeh_chart("AAPL", "AAPL"))
    for interval, periods in (("1wk", 52), ("1mo", 12), ("5d", 50.4)):
        body = api.get(f"/v2/risk/AAPL?interval={interval}&range=5y").json()
        assert body["periodsPerYear"] == periods
        returns = pd.Series(bokeh_bars("AAPL", 300).adjclose).pct_change().dropna()
        assert body["volatility"] == approx(ep.annual_volatility(returns,
                                                                 annualization=periods))


def test_intraday_uses_closes_and_the_session_length(api, yahoo):
    body = simple_chart("AAPL", "1h")
    result = body["chart"]["result"][0]
    result["timestamp"].append(result["timestamp"][-1] + 3600)
    for member in ("open", "high", "low", "close", "volume"):
        column = result["indicators"]["quote"][0][member]
        column.append(column[-1])
    result["indicators"]["quote"][0]["close"][-1] = 99.0
    yahoo.chart("AAPL", body)
    answer = api.get("/v2/risk/AAPL?interval=1h&range=5d").json()
    assert answer["priceBasis"] == "close" and answer["periodsPerYear"] == 252 * 7
    r = np.array([101.5 / 100.5 - 1, 99.0 / 101.5 - 1])
    assert answer["volatility"] == approx(float(np.std(r, ddof=1)) * math.sqrt(252 * 7))


def test_fields_select_members(api, yahoo):
    yahoo.chart("AAPL", _bokeh_chart("AAPL", "AAPL"))
    body = api.get("/v2/risk/AAPL?fields=sharpe,beta,periodsPerYear,nope").json()
    assert list(body) == ["periodsPerYear", "sharpe", "beta"]
    assert body["beta"] is None and body["periodsPerYear"] == 252


def test_every_member_is_present_without_a_benchmark(api, yahoo):
    yahoo.chart("AAPL", _bokeh_chart("AAPL", "AAPL"))
    body = api.get("/v2/risk/AAPL").json()
    assert set(body) == set(CONTEXT + METRICS)
    assert body["benchmark"] is body["benchmarkObservations"] is None
    assert body["beta"] is body["alpha"] is body["trackingError"] is None
    assert body["informationRatio"] is None
    assert all(isinstance(body[m], float) for m in ("volatility", "var95", "ulcerIndex"))
    assert len(calls_to(yahoo.mock, "/v8/finance/chart")) == 1


def test_fewer_than_two_returns_is_a_400(api, yahoo):
    yahoo.chart("AAPL", simple_chart())  # two bars: one return
    response = api.get("/v2/risk/AAPL")
    assert response.status_code == 400
    assert response.json() == {
        "error": "Not enough data to compute risk metrics: they need at least 2 returns (3 "
                 "prices); AAPL has 2 priced bars for range 1y and interval 1d",
        "status": 400}


@pytest.mark.parametrize("query", ["interval=2d", "range=7y", "range=max",
                                   "interval=1m&range=1mo", "interval=1h&range=2y"])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, query):
    response = api.get(f"/v2/risk/AAPL?{query}")
    assert response.status_code == 400 and response.json()["status"] == 400
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


def test_unknown_symbol_404(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v2/risk/ZZZZ")
    assert response.status_code == 404 and response.json()["status"] == 404


def test_unknown_benchmark_404_names_it(api, yahoo):
    yahoo.chart("AAPL", _bokeh_chart("AAPL", "AAPL"))
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v2/risk/AAPL?benchmark=zzzz")
    assert response.status_code == 404
    assert response.json() == {"error": "Benchmark not found: 'ZZZZ'", "status": 404}


@pytest.mark.parametrize("text", ["..", "AA PL"])
def test_malformed_benchmark_404_without_an_upstream_call(api, yahoo, text):
    response = api.get("/v2/risk/AAPL", {"benchmark": text})
    assert response.status_code == 404
    assert response.json()["error"] == f"Benchmark not found: '{text}'"
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


@pytest.mark.parametrize("text", ["", "  "])
def test_a_blank_benchmark_is_a_400(api, yahoo, text):
    response = api.get("/v2/risk/AAPL", {"benchmark": text})
    assert response.status_code == 400 and response.json()["status"] == 400
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


@pytest.mark.parametrize("kind", sorted(FAILURES))
@pytest.mark.parametrize("failing", ["AAPL", "SPY"])
def test_upstream_failures_name_the_provider(api, yahoo, kind, failing):
    other = "SPY" if failing == "AAPL" else "AAPL"
    yahoo.chart(other, _bokeh_chart(other, "MSFT"))
    fail_url(yahoo.mock, f"{CHART}/{failing}", kind)
    status, _ = FAILURES[kind]
    response = api.get("/v2/risk/AAPL?benchmark=SPY")
    assert response.status_code == status
    body = response.json()
    assert body["status"] == status and body["provider"] == "yahoo" and body["error"]


@pytest.mark.parametrize(("path", "periods"), [
    ("/v2/risk/AAPL", 252),
    ("/v2/risk/SPY?benchmark=%5EGSPC&range=2y", 252),
    ("/v2/risk/SAP.DE?benchmark=%5EGDAXI", 252),
    ("/v2/risk/7203.T?interval=5m&range=5d", 252 * 66),  # TSE 09:00-11:30, 12:30-15:30
    ("/v2/risk/SAP.DE?interval=1h&range=1mo", 252 * 9),  # Xetra 09:00-17:30
    ("/v2/risk/BTC-USD?range=6mo", 365),
])
def test_through_the_sandbox(api, sandbox_upstream, path, periods):
    response = api.get(path)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["periodsPerYear"] == periods and body["observations"] > 20
    assert 0 < body["volatility"] < 3 and 0 <= body["maxDrawdown"] < 1
    assert body["var99"] >= body["var95"] and body["cvar95"] >= body["var95"]
    if body["benchmark"] is not None:
        assert body["benchmarkObservations"] > 20 and body["beta"] is not None
        assert body["trackingError"] > 0


def test_the_operation_is_described(api):
    operation = api.get("/openapi.json").json()["paths"]["/v2/risk/{symbol}"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert {"symbol", "interval", "range", "benchmark", "fields"} <= set(params)
    assert params["range"]["schema"]["default"] == "1y"
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert set(schema["properties"]) == set(CONTEXT + METRICS)
    assert all(p.get("description") for p in schema["properties"].values())
