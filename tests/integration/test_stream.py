"""The quote stream over loopback, against the production server command (bin/serve) with
the sandbox HTTP server as upstream: events, spacing and headers for a browser-style client,
error events that keep the stream open, clients killed at once, shutdown, and (with Redis)
one upstream batch per cycle for two server processes."""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.client import HTTPConnection, HTTPException, HTTPResponse
from urllib.parse import urlsplit

import pytest

from tests.clocks import eventually
from tests.integration.servers import (
    Process,
    configure_sandbox,
    http,
)
from tests.sse import SseParser

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("stream cycles of the service's real interval (1 s), two processes")]

STREAM_FIELDS = {"symbol", "name", "price", "change", "percentChange", "logo"}


@dataclass
class Event:
    name: str
    data: object
    at: float


@dataclass
class Stream:
    """A browser-style SSE client (Accept: text/event-stream) reading one stream."""

    response: HTTPResponse
    conn: HTTPConnection
    opened: float
    comments: list[str] = field(default_factory=list)
    retry: int | None = None
    parser: SseParser = field(default_factory=SseParser)

    def next_event(self, timeout: float = 15.0) -> Event:
        """The next named event, timed when its last line arrived (read line by line)."""
        self.conn.sock.settimeout(timeout)
        while True:
            line = self.response.readline()
            if not line:
                raise EOFError("stream ended")
            for block in self.parser.feed(line.decode()):
                self.comments += block.comments
                if block.retry is not None:
                    self.retry = int(block.retry)
                if block.event is not None:
                    return Event(block.event, json.loads(block.data or "null"),
                                 time.monotonic())

    def events(self, count: int, name: str = "quote", timeout: float = 15.0) -> list[Event]:
        found = []
        while len(found) < count:
            event = self.next_event(timeout)
            if event.name == name:
                found.append(event)
        return found

    def close(self) -> None:
        self.conn.close()


def open_stream(base_url: str, symbols: str) -> Stream:
    url = urlsplit(base_url)
    conn = HTTPConnection(url.hostname, url.port, timeout=30)
    opened = time.monotonic()
    conn.request("GET", f"/v1/stream/quotes?symbols={symbols}",
                 headers={"Accept": "text/event-stream", "Accept-Encoding": "gzip"})
    return Stream(conn.getresponse(), conn, opened)


def stream_stats(service: Process) -> dict:
    status, _, body = http("GET", f"{service.base_url}/v1/health", timeout=60)
    assert status == 200
    return json.loads(body)["stream"]


def _service(server_pool, **env: str) -> Process:
    """A service process of the test's own, on the worker's shared sandbox."""
    return server_pool.own_service({"USE_SECURITY": "false", "WEB_CONCURRENCY": "1", **env})


@pytest.fixture
def stack(server_pool):
    # TTL cap 1 s and no stale serving: every cycle's poll reaches the sandbox, and a
    # failed poll is a failure (not yesterday's quote).
    service, sandbox = server_pool.stack({
        "USE_SECURITY": "false", "WEB_CONCURRENCY": "1", "STREAM_INTERVAL_SECONDS": "1",
        "CACHE_TTL_CAP_SECONDS": "1", "CACHE_MAX_STALE_SECONDS": "0",
        "STREAM_HEARTBEAT_SECONDS": "15",
        "STREAM_MAX_CONNECTIONS_PER_ADDRESS": "1000"})  # hundreds of clients, one address
    configure_sandbox(sandbox, latency_ms=5)
    return sandbox, service


def test_browser_client_gets_quote_events_every_interval(stack):
    _, service = stack
    stream = open_stream(service.base_url, "AAPL,MSFT,NOTFOUND1")
    try:
        response = stream.response
        assert response.status == 200, response.read()
        assert response.getheader("Content-Type") == "text/event-stream"
        assert response.getheader("Cache-Control") == "no-cache"
        assert response.getheader("X-Accel-Buffering") == "no"
        assert response.getheader("Content-Encoding") is None, "never compressed"
        assert response.getheader("X-Cache") is None, "a stream is not a cached response"
        events = stream.events(4)
    finally:
        stream.close()
    assert stream.retry == 1000
    assert events[0].at - stream.opened < 5, "the first event comes at once"
    for event in events:
        assert [q["symbol"] for q in event.data] == ["AAPL", "MSFT"]  # unknown left out
        assert all({"symbol", "name", "price", "change", "percentChange"} <= set(q)
                   and set(q) <= STREAM_FIELDS for q in event.data)
    # One event per interval from the connection's own start, the first one included (the
    # shared pollers' cycles do not set the pace; 0.1 s allows for delivery jitter).
    gaps = [b.at - a.at for a, b in itertools.pairwise(events)]
    assert all(0.9 < gap < 1.5 for gap in gaps), gaps


def test_errors_before_the_stream_are_json(stack):
    _, service = stack
    for query, status in (("", 422), ("?symbols=", 422), ("?symbols=ZZZZ1,ZZZZ2", 404)):
        code, headers, body = http("GET", f"{service.base_url}/v1/stream/quotes{query}",
                                   headers={"Accept": "text/event-stream"})
        assert code == status, body
        assert headers["Content-Type"] == "application/json"
        assert "detail" in json.loads(body)


def test_upstream_failure_is_an_error_event_and_the_stream_goes_on(stack):
    sandbox, service = stack
    stream = open_stream(service.base_url, "NVDA")
    try:
        stream.events(1)
        http("POST", f"{sandbox.base_url}/__sandbox__/config", {"fail_rate": 1.0})
        try:
            error = stream.events(1, name="error", timeout=30)[0]
        finally:
            http("POST", f"{sandbox.base_url}/__sandbox__/config", {"fail_rate": 0.0})
        # after recovery (at most the breaker's 30 s reset), quotes come again on the
        # same connection
        recovered = stream.events(1, timeout=45)[0]
    finally:
        stream.close()
    assert error.data["symbols"] == ["NVDA"]
    assert error.data["provider"] == "yahoo"
    assert error.data["status"] in (502, 503, 504)
    assert [q["symbol"] for q in recovered.data] == ["NVDA"]


def test_killing_many_clients_leaves_no_poller_behind(stack):
    _, service = stack
    symbols = [f"K{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(40)]
    streams = [open_stream(service.base_url, ",".join(symbols[i % 40:i % 40 + 3]))
               for i in range(200)]
    try:
        for stream in streams:
            stream.events(1)
        during = stream_stats(service)
    finally:
        for stream in streams:  # abrupt: RST instead of a polite close
            stream.conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                        b"\x01\x00\x00\x00\x00\x00\x00\x00")
            stream.close()
    assert during["connections"] >= 200 and during["pollers"] >= 40
    after = eventually(lambda: (s := stream_stats(service))["connections"] == 0
                       and s["pollers"] == 0 and s, seconds=15, interval=0.25)
    assert after, stream_stats(service)
    assert after["subscriptions"] == 0 and after["leading"] == 0


def test_shutdown_closes_open_streams_within_two_seconds(server_pool):
    sandbox = server_pool.sandbox()
    configure_sandbox(sandbox, latency_ms=5)
    service = None
    try:  # a process of its own: the test stops it
        service = _service(server_pool, STREAM_INTERVAL_SECONDS="1")
        streams = [open_stream(service.base_url, "AAPL") for _ in range(20)]
        for stream in streams:
            stream.events(1)
        ended: list[float] = []

        def read_to_end(stream: Stream) -> None:
            try:
                while True:
                    stream.next_event(timeout=10)
            except (EOFError, OSError, HTTPException):
                ended.append(time.monotonic())

        readers = [threading.Thread(target=read_to_end, args=(s,)) for s in streams]
        for reader in readers:
            reader.start()
        signalled = time.monotonic()
        os.killpg(service.proc.pid, signal.SIGTERM)
        for reader in readers:
            reader.join(timeout=10)
        service.proc.wait(timeout=10)
        exited = time.monotonic()
    finally:
        if service is not None:
            service.stop()
    assert len(ended) == 20
    assert max(ended) - signalled < 2.0, f"streams ended {max(ended) - signalled:.2f} s after"
    assert exited - signalled < 5.0


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")
def test_two_processes_share_one_poller_per_symbol_through_redis(server_pool):
    sandbox = server_pool.sandbox()
    configure_sandbox(sandbox, latency_ms=5)
    shared = {"REDIS_URL": os.environ["REDIS_URL"],
              "CACHE_KEY_PREFIX": f"it-stream-{uuid.uuid4().hex[:8]}",
              "STREAM_INTERVAL_SECONDS": "1", "CACHE_TTL_CAP_SECONDS": "1"}
    first = second = None
    streams: list[Stream] = []
    symbols = "AAPL,MSFT,NVDA,AMZN"
    try:  # two processes of their own: a fresh key prefix, so no leader from before
        first = _service(server_pool, **shared)
        second = _service(server_pool, **shared)
        streams = [open_stream(first.base_url, symbols), open_stream(second.base_url, symbols)]
        for stream in streams:
            stream.events(2)
        http("POST", f"{sandbox.base_url}/__sandbox__/reset")
        started = time.time()
        received = [stream.events(5) for stream in streams]
        elapsed = time.time() - started
        _, _, body = http(
            "GET", f"{sandbox.base_url}/__sandbox__/requests?path_prefix=/v7/finance/quote")
        calls = json.loads(body)["count"]
        leading = [stream_stats(first)["leading"], stream_stats(second)["leading"]]
    finally:
        for stream in streams:
            stream.close()
        for server in (first, second):
            if server is not None:
                server.stop()
    cycles = elapsed / 1.0
    # both processes' clients got every cycle, yet upstream saw about one call per cycle
    # (two if the lock changed hands mid-way), not one per process
    assert all(len(events) == 5 for events in received)
    assert calls <= cycles + 2, (calls, cycles)
    assert sorted(leading) in ([0, 4], [1, 3], [2, 2]) and sum(leading) == 4, leading
