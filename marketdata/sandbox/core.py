"""YahooSandbox: the in-process simulator of the Yahoo Finance upstream.

Why: the market-data service must run offline through its real HTTP client and parsers.
``handle`` takes a plain request (method, host, path, query, headers, body) and returns a
``SandboxResponse``; the requests transport adapter and the HTTP server both call it.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote

from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo import auth, router
from marketdata.sandbox.yahoo.common import Request, error_response, service_unavailable

log = logging.getLogger("marketdata.sandbox")

REQUEST_LOG_CAP = 100_000


def _utc_now() -> datetime:
    return datetime.now(UTC)


class YahooSandbox:
    """Deterministic Yahoo Finance simulator (thread-safe).

    ``clock`` drives market data and market state (default: real UTC time); ``fail_rate``
    is the seeded fraction of requests answered 503 (the cookie/crumb handshake is spared
    unless it is 1.0); ``latency_ms`` is slept before every answer; ``seed`` drives the
    fault sequence and the cookie/crumb tokens (prices depend on the symbol only);
    ``crumb_ttl_seconds`` expires issued crumbs after that many real seconds.
    """

    def __init__(self, *, clock: Callable[[], datetime] | None = None, fail_rate: float = 0.0,
                 latency_ms: int = 0, seed: int = 0,
                 crumb_ttl_seconds: float | None = None) -> None:
        self.clock: Callable[[], datetime] = clock or _utc_now
        self.fail_rate = float(fail_rate)
        self.latency_ms = int(latency_ms)
        self.seed = seed
        self.request_log: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        self.auth = auth.AuthState(seed, crumb_ttl_seconds)
        self.routes = router.build_routes(self.auth)

    # --- configuration -------------------------------------------------------------------
    def configure(self, *, fail_rate: float | None = None, latency_ms: int | None = None) -> None:
        """Change fault injection or latency while running (control endpoint, tests)."""
        with self._lock:
            if fail_rate is not None:
                self.fail_rate = float(fail_rate)
            if latency_ms is not None:
                self.latency_ms = int(latency_ms)

    def reset_log(self) -> None:
        with self._lock:
            self.request_log.clear()

    def requests_matching(self, path_prefix: str = "") -> list[dict[str, Any]]:
        """A copy of the log entries whose path starts with ``path_prefix``."""
        with self._lock:
            return [dict(e) for e in self.request_log if e["path"].startswith(path_prefix)]

    # --- requests ------------------------------------------------------------------------
    def handle(self, method: str, host: str, path: str, query: dict[str, list[str]],
               headers: dict[str, str], body: bytes = b"") -> SandboxResponse:
        """Answer one upstream request like Yahoo would."""
        if self.latency_ms > 0:
            time.sleep(self.latency_ms / 1000.0)
        method = method.upper()
        clean_path = unquote(path.split("?", 1)[0]) or "/"
        query = _as_lists(query)
        req = Request(method, host or "", clean_path, query,
                      {k.lower(): v for k, v in headers.items()}, body or b"", self.clock)
        route, _ = router.match(self.routes, method, clean_path)
        if self._should_fail(route):
            response = service_unavailable(route.wrapper if route else "finance")
        else:
            try:
                response = router.dispatch(self.routes, req, self.auth)
            except Exception as exc:  # a sandbox bug must look like an upstream 500
                log.exception("sandbox handler failed for %s %s", method, clean_path)
                response = error_response(route.wrapper if route else "finance",
                                          "Internal Server Error", str(exc), 500)
        self._record(method, host, clean_path, query, response.status)
        return response

    def _should_fail(self, route: router.Route | None) -> bool:
        with self._lock:
            rate = self.fail_rate
            if rate >= 1.0:
                return True
            if rate <= 0.0 or (route is not None and route.handshake):
                return False
            return self._rng.random() < rate

    def _record(self, method: str, host: str, path: str, query: dict[str, list[str]],
                status: int) -> None:
        entry = {"method": method, "host": host, "path": path,
                 "query": {k: list(v) for k, v in query.items()}, "status": status,
                 "ts": time.time()}
        with self._lock:
            self.request_log.append(entry)
            overflow = len(self.request_log) - REQUEST_LOG_CAP
            if overflow > 0:
                del self.request_log[:overflow]


def _as_lists(query: dict[str, Any]) -> dict[str, list[str]]:
    """parse_qs-style values; a bare string value is accepted as a one-item list."""
    return {k: [v] if isinstance(v, str) else list(v) for k, v in (query or {}).items()}


_singleton: YahooSandbox | None = None
_singleton_lock = threading.Lock()


def get_sandbox() -> YahooSandbox:
    """The process-wide sandbox (created on first use)."""
    global _singleton
    if _singleton is None:
        with _singleton_lock:
            if _singleton is None:
                _singleton = YahooSandbox()
    return _singleton
