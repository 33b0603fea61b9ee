"""The real service process (bin/serve -> gunicorn) against the sandbox upstream as a
separate HTTP server, over loopback. With REDIS_URL / DATABASE_URL set (CI), the service
uses them, and runs one worker process per core, so single-flight is tested across
processes."""

from __future__ import annotations

import json
import os
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.integration.servers import configure_sandbox, http, start_service

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("200 concurrent requests, make run's whole path, a real TTL")]


@pytest.fixture
def stack(server_pool):
    """(sandbox, service): the worker's shared pair, the sandbox answering after 50 ms (so
    concurrent misses overlap; set back after each test)."""
    service, sandbox = server_pool.stack()
    configure_sandbox(sandbox, latency_ms=50)
    return sandbox, service


def _sandbox_calls(sandbox, prefix: str) -> int:
    status, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests?path_prefix={prefix}")
    assert status == 200
    return json.loads(body)["count"]


def _symbol(prefix: str) -> str:
    # A fresh symbol per test run: cold in any cache, plausible to the sandbox.
    return f"{prefix}{uuid.uuid4().hex[:4].upper()}"


def test_endpoints_over_loopback(stack):
    _, service = stack
    status, headers, body = http("GET", f"{service.base_url}/v1/historical?symbol=AAPL&range=1mo"
                                        "&interval=1d")
    assert status == 200, body
    bars = json.loads(body)
    assert 15 <= len(bars) <= 24
    keys = list(bars)
    assert keys == sorted(keys, reverse=True)
    first = bars[keys[0]]
    assert set(first) == {"open", "high", "low", "close", "adjClose", "volume"}
    assert first["low"] <= first["close"] <= first["high"]
    assert headers["X-Data-Source"] == "live"
    assert headers["X-Correlation-ID"]

    status, _, body = http("GET", f"{service.base_url}/v1/quotes?symbols=AAPL,MSFT")
    assert status == 200, body
    quotes = json.loads(body)
    assert [q["symbol"] for q in quotes] == ["AAPL", "MSFT"]
    assert quotes[0]["name"] == "Apple Inc."
    assert quotes[0]["percentChange"][0] in "+-"

    status, _, body = http("GET", f"{service.base_url}/v1/simple-quotes?symbols=msft,AAPL,msft")
    assert status == 200, body
    assert [q["symbol"] for q in json.loads(body)] == ["MSFT", "AAPL"]

    status, _, body = http("GET", f"{service.base_url}/v1/simple-quotes?symbols=ZZZZNOPE")
    assert status == 404
    assert "detail" in json.loads(body)

    status, _, body = http("GET", f"{service.base_url}/v1/historical?symbol=AAPL&range=max"
                                  "&interval=1d")
    assert status == 400
    assert json.loads(body) == {"detail": "If range is max, interval must be 1mo"}

    for path in ("/docs", "/redoc", "/openapi.json", "/v1/ping", "/v1/health"):
        status, _, body = http("GET", f"{service.base_url}{path}")
        assert status == 200, (path, body[:200])
    status, _, body = http("GET", f"{service.base_url}/static/drf_spectacular_sidecar/"
                                  "swagger-ui-dist/swagger-ui-bundle.js")
    assert status == 200 and len(body) > 100_000  # docs work offline


def test_stampede_makes_one_upstream_call(stack):
    sandbox, service = stack
    symbol = _symbol("STMP")
    url = f"{service.base_url}/v1/historical?symbol={symbol}&range=1mo&interval=1d"
    with ThreadPoolExecutor(max_workers=200) as pool:
        results = list(pool.map(lambda _: http("GET", url, timeout=60), range(200)))
    statuses = [status for status, _, _ in results]
    bodies = {body for _, _, body in results}
    assert statuses == [200] * 200
    assert len(bodies) == 1
    assert _sandbox_calls(sandbox, f"/v8/finance/chart/{symbol}") == 1


def test_make_run_path_falls_back_to_sandbox(tmp_path):
    """No MARKETDATA_UPSTREAM and no reachable Yahoo: bin/serve picks the sandbox, says so
    in the banner, the X-Data-Source header and /v1/health."""
    service = start_service(tmp_path, {"UPSTREAM_HOST_MAP": "*.yahoo.com=http://127.0.0.1:9"},
                            own_var_dir=True)  # make run's whole path: prepare included
    try:
        status, headers, body = http("GET", f"{service.base_url}/v1/historical?symbol=AAPL"
                                            "&range=1mo&interval=1d")
        assert status == 200, body
        assert headers["X-Data-Source"] == "sandbox"
        status, _, body = http("GET", f"{service.base_url}/v1/health")
        assert json.loads(body)["upstream"] == "sandbox"
        assert "UPSTREAM MODE: SANDBOX" in service.log()
    finally:
        service.stop()


def test_failing_upstream_serves_stale_or_names_yahoo(server_pool):
    service, sandbox = server_pool.stack({"CACHE_TTL_CAP_SECONDS": "1"})
    symbol = _symbol("STAL")
    quote_url = f"{service.base_url}/v1/simple-quotes?symbols={symbol}"
    chart_url = f"{service.base_url}/v1/historical?symbol={symbol}&range=5d&interval=1d"
    fresh_quote = http("GET", quote_url)
    fresh_chart = http("GET", chart_url)
    assert fresh_quote[0] == 200 and fresh_chart[0] == 200

    configure_sandbox(sandbox, fail_rate=1.0)
    time.sleep(1.5)  # past every (capped) TTL: the service's own clock, in its process

    status, headers, body = http("GET", quote_url)
    assert status == 200 and headers["X-Cache"] == "STALE"
    assert body == fresh_quote[2]
    status, headers, body = http("GET", chart_url)
    assert status == 200 and headers["X-Cache"] == "STALE"
    assert body == fresh_chart[2]

    status, headers, body = http("GET", f"{service.base_url}/v1/historical?symbol="
                                        f"{_symbol('COLD')}&range=5d&interval=1d")
    assert status in (502, 503), body
    error = json.loads(body)
    assert error["provider"] == "yahoo"
    assert "Yahoo Finance" in error["detail"]
    assert b"Traceback" not in body
    assert headers["X-Correlation-ID"]


@pytest.mark.skipif(not os.environ.get("DATABASE_URL"), reason="DATABASE_URL not set")
@pytest.mark.django_db
def test_database_is_the_configured_one():
    from django.db import connection

    expected = "postgresql" if os.environ["DATABASE_URL"].startswith("postgres") else None
    assert expected is None or connection.vendor == expected
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
