"""No thread starvation, through the real service (bin/serve, one worker, 16 threads) in front
of the sandbox upstream as its own HTTP server with per-path faults:

- stalled request bodies hold no thread: with more stalled uploads than threads, cold
  requests are answered, and every stalled connection is answered 408 and closed at the
  body deadline;
- a hanging upstream endpoint holds at most its share of the threads: other providers and
  the provider's other endpoints answer meanwhile, and the hanging requests (in the lane
  or parked past it) are answered by their deadline with a JSON 503/504 naming the
  provider;
- a slow endpoint leaves its provider's other endpoints and the Yahoo handshake alone.

The bounds are generous (a loaded CI machine); the numbers are in bench/README.md
(bench/starvation.py).
"""

from __future__ import annotations

import json
import socket
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from marketdata.sandbox.fred.series import OTHER_SERIES
from tests.integration.servers import (
    configure_sandbox,
    http,
    sandbox_host_map,
    start_sandbox,
    start_service,
)

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("a fresh service per test, saturated by hanging upstream calls")]

DEADLINE = 4.0
# A request behind the stalled bodies would wait for their deadline (3.7 s after the stall
# began); the others are bound at 2.5 s: room for a CI machine's stall (1.8 s seen there
# for a 20 ms request, with a 2 s body deadline and a 1.5 s bound).
BODY_DEADLINE = 4.0
SLOW_CHART_SECONDS = 9.0  # under the default 10 s deadline: the first charts answer
# These tests time requests on a fresh process: warmed up at its start, as in production
# (the other test servers build what they need on first use: tests/integration/servers.py).
WARM = {"MARKETDATA_WARM_UP": "eager"}


def _symbol(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:5].upper()}"


def _timed(url: str) -> tuple[int, float, bytes]:
    started = time.monotonic()
    status, _, body = http("GET", url, timeout=30)
    return status, time.monotonic() - started, body


@pytest.fixture
def stack(tmp_path):
    sandbox = start_sandbox(tmp_path)
    service = start_service(tmp_path, {
        "MARKETDATA_UPSTREAM": "live", "UPSTREAM_HOST_MAP": sandbox_host_map(sandbox.base_url),
        "WEB_CONCURRENCY": "1", "WEB_THREADS": "16", **WARM,
        "REQUEST_DEADLINE_SECONDS": str(DEADLINE),
        "REQUEST_BODY_TIMEOUT_SECONDS": str(BODY_DEADLINE)})
    try:
        yield service, sandbox
    finally:
        service.stop()
        sandbox.stop()


def _fault(sandbox, prefix: str, latency_ms: int) -> None:
    configure_sandbox(sandbox, faults=[{"path_prefix": prefix, "fail_rate": 0.0,
                                        "latency_ms": latency_ms}])


def _series() -> str:
    """A FRED id of the sandbox's catalogue (any other is unknown there), picked at random
    so the request is most likely cold."""
    ids = sorted(OTHER_SERIES)
    return ids[uuid.uuid4().int % len(ids)]


def _others(service) -> list[str]:
    """Cold requests to other providers and to Yahoo's other endpoints."""
    return [f"{service.base_url}{path}" for path in (
        f"/v2/macro/series/{_series()}?limit=2",
        f"/v2/macro/treasury-yields?limit=2&year={2000 + int(uuid.uuid4().int % 20)}",
        f"/v2/quote/{_symbol('Q')}",
        f"/v1/search?query={_symbol('q').lower()}&hits=2",
    )]


def test_stalled_bodies_hold_no_thread(stack):
    service, _ = stack
    port = int(service.base_url.rsplit(":", 1)[1])
    # The worker's own first requests (imports, connections, the upstream handshake: up to
    # ~0.7 s each on a fresh process) are not what this measures: made before the stall.
    for url in _others(service):
        assert _timed(url)[0] == 200, url
    stalled = []
    for _ in range(40):  # more than the 16 threads
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(b"POST /v2/backtest/AAPL HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     b"application/json\r\nContent-Length: 100000\r\n\r\n{\"str")
        stalled.append(sock)
    try:
        time.sleep(0.3)
        for url in _others(service):
            status, seconds, body = _timed(url)
            assert status == 200, (url, body)
            assert seconds < BODY_DEADLINE - 1.5, (url, seconds)
        # Every stalled connection is answered 408 and closed at the body deadline.
        for sock in stalled:
            sock.settimeout(10)
            received = b""
            while chunk := sock.recv(4096):
                received += chunk
            assert received.startswith(b"HTTP/1.1 408 "), received[:100]
    finally:
        for sock in stalled:
            sock.close()


def test_a_hanging_endpoint_holds_only_its_share(stack):
    service, sandbox = stack
    assert _timed(f"{service.base_url}/v2/quote/{_symbol('W')}")[0] == 200  # handshake done
    _fault(sandbox, "/v8/finance/chart", 60_000)
    hanging_urls = [f"{service.base_url}/v2/chart/{_symbol('H')}?range=5d" for _ in range(40)]
    with ThreadPoolExecutor(len(hanging_urls)) as pool:
        hanging = [pool.submit(_timed, url) for url in hanging_urls]
        time.sleep(0.5)
        for _ in range(2):
            for url in _others(service):
                status, seconds, body = _timed(url)
                assert status == 200, (url, body)
                assert seconds < 1.5, (url, seconds)
        results = [f.result() for f in hanging]
    for status, seconds, body in results:
        assert status in (503, 504), body
        assert json.loads(body)["provider"] == "yahoo"
        assert seconds < DEADLINE + 1.5, seconds
    # Past the chart lane's share (8 of 16 threads) the requests were parked, not run.
    metrics = http("GET", f"{service.base_url}/metrics")[2].decode()
    parked = [line for line in metrics.splitlines()
              if line.startswith('marketdata_requests_parked_total{lane="chart"')]
    assert parked and float(parked[0].rsplit(" ", 1)[1]) > 0, parked


def test_a_slow_endpoint_leaves_the_others_and_the_handshake_alone(tmp_path):
    sandbox = start_sandbox(tmp_path)
    service = start_service(tmp_path, {
        "MARKETDATA_UPSTREAM": "live", "UPSTREAM_HOST_MAP": sandbox_host_map(sandbox.base_url),
        "WEB_CONCURRENCY": "1", "WEB_THREADS": "16", "UPSTREAM_MAX_CONCURRENCY": "4", **WARM})
    try:
        # The worker's first request of all (imports, connections) is not what this
        # measures: made before the load, and on another provider (the handshake stays cold).
        assert _timed(f"{service.base_url}/v2/macro/series/{_series()}?limit=2")[0] == 200
        _fault(sandbox, "/v8/finance/chart", int(SLOW_CHART_SECONDS * 1000))
        slow_urls = [f"{service.base_url}/v2/chart/{_symbol('C')}?range=5d"
                     for _ in range(60)]
        with ThreadPoolExecutor(len(slow_urls)) as pool:
            slow = [pool.submit(_timed, url) for url in slow_urls]
            time.sleep(0.5)
            # The first quote needs the cookie/crumb handshake: it runs now, under the load.
            # Starved, it would wait behind a chart call, 8.5 s at least; 6.5 s leaves room
            # for a CI machine whose two cores are busy with the other tests (4 s, then
            # 5.7 s seen there on a cold worker).
            for _ in range(3):
                status, seconds, body = _timed(f"{service.base_url}/v2/quote/{_symbol('Q')}")
                assert status == 200, body
                assert seconds < SLOW_CHART_SECONDS - 2.5, seconds
            results = [f.result() for f in slow]
        assert sum(status == 200 for status, _, _ in results) >= 3
        assert all(status in (200, 503, 504) for status, _, _ in results)
    finally:
        service.stop()
        sandbox.stop()
