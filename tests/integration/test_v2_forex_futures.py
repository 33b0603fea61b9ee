"""/v2/forex/{from}/{to} and /v2/futures/{symbol} through the real service process over
loopback, with the sandbox HTTP server standing in for Yahoo and Frankfurter (every
simulated provider's hosts mapped through UPSTREAM_HOST_MAP, as an operator would): Yahoo's
quote first, the ECB reference rate when Yahoo's quote endpoint fails, ApiError bodies for
bad input, and a cached repeat."""

from __future__ import annotations

import json

import pytest

from tests.integration.servers import configure_sandbox, get_json, http

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("the first test waits for the worker's shared servers to start")]

FOREX_MEMBERS = ["symbol", "baseCurrency", "quoteCurrency", "price", "bid", "ask", "change",
                 "changePercent", "timestamp"]
FUTURES_MEMBERS = ["symbol", "name", "exchange", "underlying", "expirationDate", "price",
                   "change", "changePercent", "openInterest", "volume", "timestamp"]


@pytest.fixture(scope="module")
def stack(server_pool):
    return server_pool.stack()


_get = get_json


def _requests(sandbox, provider: str) -> int:
    _, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests?provider={provider}")
    return json.loads(body)["count"]


def test_forex_from_yahoo(stack):
    service, sandbox = stack
    status, headers, body = _get(service, "/v2/forex/eur/usd")
    assert status == 200, body
    assert list(body) == FOREX_MEMBERS
    assert (body["symbol"], body["baseCurrency"], body["quoteCurrency"]) == (
        "EURUSD", "EUR", "USD")
    assert body["bid"] is not None and body["ask"] is not None
    assert headers.get("X-Data-Source") == "live"
    assert _requests(sandbox, "frankfurter") == 0


def test_forex_from_the_ecb_when_yahoos_quote_fails(stack):
    service, sandbox = stack
    configure_sandbox(sandbox, faults=[{"path_prefix": "/v7/finance/quote", "fail_rate": 1.0}])
    try:
        status, headers, body = _get(service, "/v2/forex/GBP/JPY?fields=price,bid,timestamp")
    finally:
        configure_sandbox(sandbox, faults=[])
    assert status == 200, body
    assert body["bid"] is None and body["price"] > 0 and body["timestamp"] % 86400 == 0
    assert headers.get("Cache-Control") == "no-store"
    assert _requests(sandbox, "frankfurter") >= 1


def test_futures(stack):
    service, _ = stack
    status, _, body = _get(service, "/v2/futures/GC")
    assert status == 200, body
    assert list(body) == FUTURES_MEMBERS and body["symbol"] == "GC=F"
    assert None not in body.values()
    status, headers, again = _get(service, "/v2/futures/GC")
    assert status == 200 and headers.get("X-Cache") == "HIT" and again == body


@pytest.mark.parametrize(("path", "status"), [
    ("/v2/forex/EURO/USD", 400),
    ("/v2/forex/EUR/XYZ", 404),
    ("/v2/futures/EURUSD=X", 404),
    ("/v2/futures/NOPE..X", 404),
])
def test_errors_are_api_errors(stack, path, status):
    service, _ = stack
    got, _, body = _get(service, path)
    assert got == status and body["status"] == status and body["error"], (path, body)
