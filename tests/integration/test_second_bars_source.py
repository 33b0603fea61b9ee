"""The second source of daily bars through the real service process and the sandbox HTTP
server (every simulated provider's hosts mapped to it, Tiingo's included): with Yahoo's chart
path failing, historical prices, charts, indicators and backtests answer from Tiingo at daily
and longer intervals, intraday requests get Yahoo's failure, /v2/health says which source
answered, and the key appears in no log line, response or metric."""

from __future__ import annotations

import json

import pytest

from tests.integration.servers import configure_sandbox, get_json, http, service_on_sandbox

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("its own service with a Tiingo key")]

KEY = "tiingo-integration-key-5f0c2a9e"


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    with service_on_sandbox(tmp_path_factory.mktemp("second-bars"),
                            {"TIINGO_API_KEY": KEY}) as pair:
        _, sandbox = pair
        configure_sandbox(sandbox, faults=[
            {"path_prefix": "/v8/finance/chart", "fail_rate": 1.0}])
        yield pair


def _requests(sandbox, provider: str) -> int:
    _, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests?provider={provider}")
    return json.loads(body)["count"]


def test_historical_prices_answer_from_tiingo(stack):
    service, sandbox = stack
    status, _, body = get_json(service, "/v1/historical?symbol=AAPL&range=1mo&interval=1d")
    assert status == 200, body
    assert len(body) >= 15  # one HistoricalData per day
    assert set(next(iter(body.values()))) >= {"open", "high", "low", "close", "volume"}
    assert _requests(sandbox, "tiingo") >= 1


@pytest.mark.parametrize("interval", ["1d", "1wk", "1mo"])
def test_the_v2_chart_answers_at_daily_and_longer_intervals(stack, interval):
    service, _ = stack
    status, _, body = get_json(service, f"/v2/chart/MSFT?interval={interval}&range=1y")
    assert status == 200, body
    assert body["meta"]["symbol"] == "MSFT" and body["meta"]["currency"] == "USD"
    assert body["meta"]["dataGranularity"] == interval
    assert len(body["candles"]) >= {"1d": 240, "1wk": 50, "1mo": 12}[interval]


def test_charts_indicators_and_backtests_answer(stack):
    service, _ = stack
    status, _, body = get_json(service, "/v2/charts?symbols=AAPL,KO&interval=1d&range=6mo")
    assert status == 200, body
    status, _, body = get_json(service, "/v1/indicators?symbol=KO&functions=RSI")
    assert status == 200, body
    status, _, raw = http("POST", f"{service.base_url}/v2/backtest/KO",
                          {"strategy": "sma_crossover", "range": "2y", "interval": "1d"})
    assert status == 200, raw[:500]
    assert json.loads(raw)["symbol"] == "KO"


def test_intraday_and_symbols_tiingo_lacks_get_yahoos_failure(stack):
    service, _ = stack
    for path in ("/v2/chart/AAPL?interval=5m&range=1d", "/v2/chart/%5EGSPC?range=1mo"):
        status, _, body = get_json(service, path)
        assert status in (502, 503, 504), (path, body)
        assert "Yahoo" in json.dumps(body), (path, body)


def test_health_says_which_source_serves_bars(stack):
    service, _ = stack
    get_json(service, "/v2/chart/AAPL?interval=1d&range=5d")
    status, _, body = get_json(service, "/v2/health?fields=notices")
    assert status == 200
    bars = next(n for n in body["notices"] if n.startswith("Price history"))
    assert "Tiingo" in bars and "TIINGO_API_KEY set" in bars
    assert "the last answer came from Tiingo" in bars


def test_the_key_is_nowhere(stack):
    service, _ = stack
    status, _, metrics = http("GET", f"{service.base_url}/metrics")
    assert status == 200 and b"tiingo" in metrics
    for path in ("/v2/health", "/v1/health", "/openapi.json"):
        _, _, raw = http("GET", f"{service.base_url}{path}")
        assert KEY.encode() not in raw, path
    assert KEY.encode() not in metrics
    log = service.log()
    assert "api.tiingo.com" in log or "tiingo" in log
    assert KEY not in log
