"""POST /v2/backtest/{symbol} through the real service process over loopback, with the
sandbox as a separate HTTP server standing in for Yahoo (mapped through UPSTREAM_HOST_MAP):
every strategy answers 200, the chart is fetched once for a chart and two backtests, and
bad requests are ApiErrors."""

from __future__ import annotations

import json

import pytest

from marketdata.backtest.strategies import STRATEGIES
from tests.integration.servers import (
    http,
)

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("backtests computed by a service process")]

MEMBERS = {"symbol", "strategyName", "startTimestamp", "endTimestamp", "initialCapital",
           "finalEquity", "maxLeverageUsed", "diagnostics", "equityCurve", "trades", "metrics"}


@pytest.fixture(scope="module")
def stack(server_pool):
    return server_pool.stack({"V2_RATE_LIMIT_CAPACITY": "0"})


def _call(service, method: str, path: str, body=None):
    status, headers, raw = http(method, f"{service.base_url}{path}", body, timeout=60)
    assert "json" in headers.get("Content-Type", ""), (path, headers)
    return status, headers, json.loads(raw)


def _chart_requests(sandbox, symbol: str) -> int:
    _, _, raw = http("GET", f"{sandbox.base_url}/__sandbox__/requests?path_prefix="
                            f"/v8/finance/chart/{symbol}")
    return json.loads(raw)["count"]


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_every_strategy_through_the_server(stack, name):
    service, _ = stack
    status, headers, body = _call(service, "POST", "/v2/backtest/AAPL", {
        "strategy": name, "range": "2y", "equityLimit": 10, "tradesLimit": 5,
        "params": {"allowShort": True}})
    assert status == 200, body
    assert set(body) == MEMBERS
    assert body["strategyName"] == STRATEGIES[name].title
    assert len(body["equityCurve"]["nodes"]) == 10
    assert body["trades"]["nodes"], body["diagnostics"]
    assert headers.get("X-Data-Source") == "live"


def test_the_history_is_fetched_once(stack):
    service, sandbox = stack
    before = _chart_requests(sandbox, "MSFT")
    status, _, chart = _call(service, "GET", "/v2/chart/MSFT?range=1y")
    assert status == 200
    for strategy in ("sma_crossover", "donchian_breakout"):
        status, _, body = _call(service, "POST", "/v2/backtest/MSFT",
                                {"strategy": strategy, "fields": "equityCurve"})
        assert status == 200
        assert [p["timestamp"] for p in body["equityCurve"]] == \
            [c["timestamp"] for c in chart["candles"]]
    assert _chart_requests(sandbox, "MSFT") - before == 1


@pytest.mark.parametrize(("method", "path", "body", "status"), [
    ("GET", "/v2/backtest/AAPL", None, 405),
    ("POST", "/v2/backtest/AAPL", {"strategy": "martingale"}, 400),
    ("POST", "/v2/backtest/AAPL", {"strategy": "sma_crossover", "params": {"period": -3}}, 400),
    ("POST", "/v2/backtest/AAPL", {"strategy": "rsi_reversal", "interval": "1m"}, 400),
    ("POST", "/v2/backtest/NOPE..X", {"strategy": "buy_and_hold"}, 404),
])
def test_errors_are_api_errors(stack, method, path, body, status):
    service, _ = stack
    got, _, answer = _call(service, method, path, body)
    assert got == status and answer["status"] == status and answer["error"], answer
