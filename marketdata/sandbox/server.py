"""Serve an UpstreamSandbox over HTTP (stdlib ThreadingHTTPServer, HTTP/1.1 keep-alive).

Why: load and fault tests run the real service against a separate upstream process over
loopback (``UPSTREAM_HOST_MAP`` points the Yahoo and Algolia hosts here). The provider is
chosen by the ``X-Upstream-Host`` header the service's client adds to rewritten requests,
else by the ``Host`` header, else by path (see core.py). Besides the providers' paths the
server has control endpoints, which are not logged:

- ``GET  /__sandbox__/requests[?path_prefix=/v8/finance/chart][&provider=yahoo]``
  -> {"count", "requests", "recorded", "dropped"}: the matching entries of the log, which
  keeps the most recent requests (``REQUEST_LOG_CAP``); ``recorded`` counts every request
  logged since the last reset (exact), ``dropped`` those no longer kept
- ``POST /__sandbox__/reset``  clears the request log
- ``GET  /__sandbox__/stats``  -> what holds the server's memory: its RSS and threads, the
  request log's size, and the entries of every cache of the simulator (with
  ``PYTHONTRACEMALLOC`` set, also the top allocation sites)
- ``POST /__sandbox__/config`` with {"fail_rate": 1.0, "latency_ms": 0} changes behaviour;
  ``"faults": [{"path_prefix": "/v1/finance/sectors/", "fail_rate": 1.0, "latency_ms": 0}]``
  makes one upstream path fail or hang while the others stay healthy (``[]`` clears);
  ``{"path_prefix": "wss://", "fail_rate": 1.0}`` refuses and drops the price streamer;
  ``"clock": {"start": "2026-11-24T14:31:00Z", "speed": 60}`` replays a session at 60x
  (as ``--clock-start``/``--clock-speed``), ``"clock": null`` goes back to real time

A WebSocket upgrade for ``streamer.finance.yahoo.com`` (by ``X-Upstream-Host`` or ``Host``)
is the simulated price streamer (marketdata.sandbox.yahoo.streamer); any other is a 404.
"""

from __future__ import annotations

import logging
import select
import socket
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from marketdata.http import UPSTREAM_HOST_HEADER
from marketdata.sandbox.common import json_response
from marketdata.sandbox.core import PathFault, UpstreamSandbox, make_clock, parse_instant
from marketdata.sandbox.providers import normalise_host
from marketdata.sandbox.response import SandboxResponse

log = logging.getLogger("marketdata.sandbox.server")

CONTROL_PREFIX = "/__sandbox__/"


def handle_control(sandbox: UpstreamSandbox, method: str, path: str,
                   query: dict[str, list[str]], body: bytes) -> SandboxResponse:
    """The control endpoints (request log, reset, run-time configuration)."""
    action = path[len(CONTROL_PREFIX):].strip("/")
    if action == "requests" and method == "GET":
        prefix = (query.get("path_prefix") or [""])[-1]
        provider = (query.get("provider") or [""])[-1] or None
        entries = sandbox.requests_matching(prefix, provider=provider)
        stats = sandbox.log_stats()
        return json_response({"count": len(entries), "requests": entries,
                              "recorded": stats["recorded"], "dropped": stats["dropped"]})
    if action == "stats" and method == "GET":
        return json_response(memory_stats(sandbox))
    if action == "reset" and method == "POST":
        sandbox.reset_log()
        return json_response({"ok": True})
    if action == "config" and method == "POST":
        try:
            conf = orjson.loads(body or b"{}")
            fail_rate = conf.get("fail_rate")
            latency_ms = conf.get("latency_ms")
            faults = conf.get("faults")
            clock = _clock(conf["clock"]) if "clock" in conf else None
            sandbox.configure(fail_rate=None if fail_rate is None else float(fail_rate),
                              latency_ms=None if latency_ms is None else int(latency_ms),
                              faults=None if faults is None
                              else [PathFault.from_dict(f) for f in faults])
            if "clock" in conf:
                sandbox.set_clock(clock)
        except (orjson.JSONDecodeError, AttributeError, TypeError, ValueError) as exc:
            return json_response({"ok": False, "error": str(exc)}, 400)
        return json_response({"ok": True, "fail_rate": sandbox.fail_rate,
                              "latency_ms": sandbox.latency_ms,
                              "faults": [f.as_dict() for f in sandbox.faults]})
    return json_response({"ok": False, "error": f"unknown control endpoint {method} {path}"},
                         404)


def _clock(conf: Any) -> Callable[[], datetime] | None:
    """``{"start": ISO instant, "speed": 60}`` as a clock (:func:`make_clock`); null: the
    real clock."""
    if conf is None:
        return None
    if not isinstance(conf, dict) or set(conf) - {"start", "speed"}:
        raise ValueError('clock: null or {"start": "2026-11-24T14:31:00Z", "speed": 60}')
    start = conf.get("start")
    return make_clock(None if start is None else parse_instant(str(start)),
                      float(conf.get("speed", 1.0)))


def _rss_mib() -> float | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def cache_stats() -> dict[str, dict[str, int | None]]:
    """Entries and bound of every ``functools`` cache in the simulator's modules, and of
    the price series caches."""
    out: dict[str, dict[str, int | None]] = {}
    for name, module in sorted(sys.modules.items()):
        if not name.startswith("marketdata.sandbox") or module is None:
            continue
        for attr, value in sorted(vars(module).items()):
            info = getattr(value, "cache_info", None)
            if callable(info) and getattr(value, "__module__", None) == name:
                stats = info()
                out[f"{name.removeprefix('marketdata.sandbox.')}.{attr}"] = {
                    "entries": stats.currsize, "maxsize": stats.maxsize}
    prices = sys.modules.get("marketdata.sandbox.prices")
    if prices is not None:
        for attr, bound in (("_series_cache", "SERIES_CACHE_SIZE"),
                            ("_minute_cache", "MINUTE_CACHE_SIZE")):
            table = getattr(prices, attr, None)
            if table is not None:
                out[f"prices.{attr}"] = {"entries": len(table),
                                         "maxsize": getattr(prices, bound, None)}
    return out


def memory_stats(sandbox: UpstreamSandbox) -> dict[str, Any]:
    """The control endpoint ``/__sandbox__/stats``."""
    out: dict[str, Any] = {"rss_mib": _rss_mib(), "threads": threading.active_count(),
                           "request_log": sandbox.log_stats(), "caches": cache_stats()}
    if tracemalloc.is_tracing():
        snapshot = tracemalloc.take_snapshot()
        out["traced_mib"] = round(tracemalloc.get_traced_memory()[0] / 2**20, 1)
        out["top"] = [f"{s.size / 2**20:.1f} MiB in {s.count} blocks: {s.traceback}"
                      for s in snapshot.statistics("lineno")[:25]]
    return out


class SandboxRequestHandler(BaseHTTPRequestHandler):
    """Passes every request to the sandbox and writes its answer."""

    protocol_version = "HTTP/1.1"
    server_version = "MarketDataSandbox/1.0"
    sandbox: UpstreamSandbox  # set on the subclass made by make_server

    def _serve(self) -> None:
        if (self.headers.get("Upgrade") or "").lower() == "websocket":
            self._websocket()
            return
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        query = parse_qs(parts.query, keep_blank_values=True)
        if parts.path.startswith(CONTROL_PREFIX):
            answer = handle_control(self.sandbox, self.command, parts.path, query, body)
        else:
            # The Host header as sent (port included): the sandbox normalises it.
            host = self.headers.get("Host") or ""
            answer = self.sandbox.handle(self.command, host, parts.path, query,
                                         dict(self.headers.items()), body)
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            if name.lower() != "content-length":
                self.send_header(name, value)
        payload = b"" if self.command == "HEAD" else answer.body
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        if payload:
            self.wfile.write(payload)

    def _websocket(self) -> None:
        """A WebSocket upgrade: the simulated streamer for its host, else a 404."""
        from marketdata.sandbox.yahoo import streamer

        host = self.headers.get(UPSTREAM_HOST_HEADER) or self.headers.get("Host") or ""
        key = self.headers.get("Sec-WebSocket-Key")
        if normalise_host(host) != streamer.STREAMER_HOST or not key:
            self._plain(404, b"no WebSocket endpoint here")
            return
        if self.sandbox.streamer_refused(streamer.STREAMER_URL):
            self._plain(503, b"streamer unavailable")
            return
        # websockets' sans-I/O server: the handshake answer and the framing, over this socket.
        # The head BaseHTTPRequestHandler already read is handed back as bytes: the protocol's
        # parser reads the request before the frames.
        protocol = ServerProtocol()
        head = f"GET {self.path} HTTP/1.1\r\n" + "".join(
            f"{name}: {value}\r\n" for name, value in self.headers.items()) + "\r\n"
        protocol.receive_data(head.encode("latin-1"))
        request = protocol.events_received()[0]
        assert isinstance(request, Request)  # the head parsed: the first event is it
        response = protocol.accept(request)
        protocol.send_response(response)
        self.wfile.write(b"".join(protocol.data_to_send()))
        self.wfile.flush()
        self.close_connection = True
        if response.status_code == 101:
            serve_streamer(self.connection, protocol,
                           streamer.StreamerSession(self.sandbox.clock),
                           lambda: self.sandbox.streamer_refused(streamer.STREAMER_URL))

    def _plain(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    # BaseHTTPRequestHandler dispatches on these stdlib-mandated names.
    do_GET = _serve  # noqa: N815
    do_POST = _serve  # noqa: N815
    do_HEAD = _serve  # noqa: N815
    do_PUT = _serve  # noqa: N815
    do_DELETE = _serve  # noqa: N815

    def log_message(self, format: str, *args: object) -> None:
        log.debug("%s - %s", self.address_string(), format % args)


def serve_streamer(sock: socket.socket, protocol: ServerProtocol, session: Any,
                   refused: Any) -> None:
    """Run one streamer connection after its handshake: client text frames feed
    ``session``; every tick period its due frames go out; ends when the client closes or
    leaves, or ``refused()`` (closed with 1011)."""
    from marketdata.sandbox.yahoo.streamer import TICK_PERIOD_SECONDS

    def flush() -> None:
        for data in protocol.data_to_send():
            if data:
                sock.sendall(data)

    # Ticks at whole multiples of the period of the wall clock: a load test on the same
    # machine can tell each frame's lag from its arrival time alone.
    next_tick = (time.time() // TICK_PERIOD_SECONDS + 1) * TICK_PERIOD_SECONDS
    try:
        while protocol.state is not State.CLOSED:
            wait = max(0.0, next_tick - time.time())
            readable, _, _ = select.select([sock], [], [], wait)
            if readable:
                chunk = sock.recv(65536)
                if chunk:
                    protocol.receive_data(chunk)
                else:
                    protocol.receive_eof()
                for event in protocol.events_received():
                    if isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                        session.receive(bytes(event.data).decode("utf-8", "replace"))
                flush()  # pongs, the answer to a close
                if protocol.close_expected() or not chunk:
                    return
            if time.time() >= next_tick:
                next_tick = (time.time() // TICK_PERIOD_SECONDS + 1) * TICK_PERIOD_SECONDS
                if refused():
                    protocol.send_close(1011)
                    flush()
                    return
                for text in session.due():
                    protocol.send_text(text.encode())
                flush()
    except OSError:
        return


def make_server(host: str, port: int, sandbox: UpstreamSandbox) -> ThreadingHTTPServer:
    """A threaded HTTP server for the sandbox (port 0 = pick a free one)."""
    handler = type("BoundSandboxRequestHandler", (SandboxRequestHandler,), {"sandbox": sandbox})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server
