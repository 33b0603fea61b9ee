"""Serve a YahooSandbox over HTTP (stdlib ThreadingHTTPServer, HTTP/1.1 keep-alive).

Why: load and fault tests run the real service against a separate upstream process over
loopback (``UPSTREAM_HOST_MAP`` points the Yahoo hosts here). Besides Yahoo's paths the
server has control endpoints, which are not logged:

- ``GET  /__sandbox__/requests[?path_prefix=/v8/finance/chart]`` -> {"count", "requests"}
- ``POST /__sandbox__/reset``  clears the request log
- ``POST /__sandbox__/config`` with {"fail_rate": 1.0, "latency_ms": 0} changes behaviour
"""

from __future__ import annotations

import logging
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import orjson

from marketdata.sandbox.core import YahooSandbox
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import json_response

log = logging.getLogger("marketdata.sandbox.server")

CONTROL_PREFIX = "/__sandbox__/"


def handle_control(sandbox: YahooSandbox, method: str, path: str,
                   query: dict[str, list[str]], body: bytes) -> SandboxResponse:
    """The control endpoints (request log, reset, run-time configuration)."""
    action = path[len(CONTROL_PREFIX):].strip("/")
    if action == "requests" and method == "GET":
        prefix = (query.get("path_prefix") or [""])[-1]
        entries = sandbox.requests_matching(prefix)
        return json_response({"count": len(entries), "requests": entries})
    if action == "reset" and method == "POST":
        sandbox.reset_log()
        return json_response({"ok": True})
    if action == "config" and method == "POST":
        try:
            conf = orjson.loads(body or b"{}")
            fail_rate = conf.get("fail_rate")
            latency_ms = conf.get("latency_ms")
            sandbox.configure(fail_rate=None if fail_rate is None else float(fail_rate),
                              latency_ms=None if latency_ms is None else int(latency_ms))
        except (orjson.JSONDecodeError, AttributeError, TypeError, ValueError) as exc:
            return json_response({"ok": False, "error": str(exc)}, 400)
        return json_response({"ok": True, "fail_rate": sandbox.fail_rate,
                              "latency_ms": sandbox.latency_ms})
    return json_response({"ok": False, "error": f"unknown control endpoint {method} {path}"},
                         404)


class SandboxRequestHandler(BaseHTTPRequestHandler):
    """Passes every request to the sandbox and writes its answer."""

    protocol_version = "HTTP/1.1"
    server_version = "YahooSandbox/1.0"
    sandbox: YahooSandbox  # set on the subclass made by make_server

    def _serve(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        query = parse_qs(parts.query, keep_blank_values=True)
        if parts.path.startswith(CONTROL_PREFIX):
            answer = handle_control(self.sandbox, self.command, parts.path, query, body)
        else:
            host = (self.headers.get("Host") or "").split(":")[0]
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

    # BaseHTTPRequestHandler dispatches on these stdlib-mandated names.
    do_GET = _serve  # noqa: N815
    do_POST = _serve  # noqa: N815
    do_HEAD = _serve  # noqa: N815
    do_PUT = _serve  # noqa: N815
    do_DELETE = _serve  # noqa: N815

    def log_message(self, format: str, *args: object) -> None:
        log.debug("%s - %s", self.address_string(), format % args)


def make_server(host: str, port: int, sandbox: YahooSandbox) -> ThreadingHTTPServer:
    """A threaded HTTP server for the sandbox (port 0 = pick a free one)."""
    handler = type("BoundSandboxRequestHandler", (SandboxRequestHandler,), {"sandbox": sandbox})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server
