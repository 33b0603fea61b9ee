"""UpstreamSandbox: the in-process simulator of the upstream providers (Yahoo, Algolia...).

Why: the market-data service must run offline through its real HTTP client and parsers.
``handle`` takes a plain request (method, host, path, query, headers, body) and returns a
``SandboxResponse``; the requests transport adapter and the HTTP server both call it.

Routing: the upstream host is the ``X-Upstream-Host`` header when present (the service's
client sends it when ``UPSTREAM_HOST_MAP`` rewrote the URL), else the request's host. If a
simulated provider owns that host, only its route table is used (a path outside it is that
provider's 404). Otherwise each provider's routes are tried by path in registry order
(Yahoo first), so host maps that send every host to one server keep working.
"""

from __future__ import annotations

import logging
import random
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import unquote

from marketdata.http import UPSTREAM_HOST_HEADER
from marketdata.sandbox.common import Request
from marketdata.sandbox.providers import (
    ProviderFactory,
    Route,
    SandboxOptions,
    SimulatedProvider,
    normalise_host,
)
from marketdata.sandbox.response import SandboxResponse

log = logging.getLogger("marketdata.sandbox")

# The request log keeps the most recent entries only (a ring): ~750 bytes each, so 20,000
# are ~15 MB (the 100,000 dicts of before were ~90 MB, held by every soak's sandbox server,
# and by the worker itself in sandbox mode). Tests and benchmarks read it a window at a
# time, far below this; ``recorded`` (exact) says how many requests were logged since the
# last reset, so a reader can tell when it was cut.
REQUEST_LOG_CAP = 20_000
_LOG_FIELDS = ("method", "host", "upstream_host", "provider", "path", "query", "status", "ts")
# (method, host, upstream_host, provider, path, query, status, ts): a tuple with the hosts
# interned costs ~20 % less than a dict per entry.
_LogEntry = tuple[str, str, str, str | None, str, dict[str, list[str]], int, float]


def _entry_dict(entry: _LogEntry) -> dict[str, Any]:
    """A log entry as the dict readers get (its own copy of the query)."""
    out = dict(zip(_LOG_FIELDS, entry, strict=True))
    out["query"] = {k: list(v) for k, v in entry[5].items()}
    return out


@dataclass(frozen=True)
class PathFault:
    """A fault on one upstream path: ``fail_rate`` of its requests answer 503, each after
    ``latency_ms``. A ``wss://`` prefix names streaming endpoints instead (see
    :meth:`UpstreamSandbox.streamer_refused`)."""

    path_prefix: str
    fail_rate: float = 1.0
    latency_ms: int = 0

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PathFault:
        prefix = data.get("path_prefix")
        if not isinstance(prefix, str) or not prefix.startswith(("/", "wss://")):
            raise ValueError("a fault needs a path_prefix starting with / (an HTTP path) "
                             "or wss:// (a streaming endpoint's URL)")
        return cls(prefix, float(data.get("fail_rate", 1.0)), int(data.get("latency_ms", 0)))

    def as_dict(self) -> dict[str, Any]:
        return {"path_prefix": self.path_prefix, "fail_rate": self.fail_rate,
                "latency_ms": self.latency_ms}


def _utc_now() -> datetime:
    return datetime.now(UTC)


class UpstreamSandbox:
    """Deterministic simulator of every registered upstream provider (thread-safe).

    ``clock`` drives market data and market state (default: real UTC time); ``fail_rate``
    is the seeded fraction of requests answered 503 (auth handshakes are spared unless it
    is 1.0); ``latency_ms`` is slept before every answer; ``seed`` drives the fault
    sequence and the cookie/crumb tokens (prices depend on the symbol only);
    ``crumb_ttl_seconds`` expires issued crumbs after that many real seconds;
    ``providers`` replaces the registry's factories (tests); ``request_log_size`` is how
    many recent requests the log keeps.
    """

    def __init__(self, *, clock: Callable[[], datetime] | None = None, fail_rate: float = 0.0,
                 latency_ms: int = 0, seed: int = 0,
                 crumb_ttl_seconds: float | None = None,
                 providers: Iterable[ProviderFactory] | None = None,
                 request_log_size: int = REQUEST_LOG_CAP) -> None:
        self._clock_source: Callable[[], datetime] = clock or _utc_now
        # What every provider and request reads the time from: a stable callable, so that
        # set_clock can change the time of a running sandbox (tests, the control endpoint).
        self.clock: Callable[[], datetime] = self._now
        self.fail_rate = float(fail_rate)
        self.latency_ms = int(latency_ms)
        self.faults: list[PathFault] = []
        self.seed = seed
        if request_log_size < 1:
            raise ValueError("request_log_size must be >= 1")
        self._log: deque[_LogEntry] = deque(maxlen=request_log_size)
        self._recorded = 0  # requests logged since the last reset, dropped ones included
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        if providers is None:
            from marketdata.sandbox.registry import PROVIDERS

            providers = PROVIDERS
        options = SandboxOptions(seed=seed, crumb_ttl_seconds=crumb_ttl_seconds,
                                 clock=self.clock)
        self.providers: tuple[SimulatedProvider, ...] = tuple(f(options) for f in providers)
        if not self.providers:
            raise ValueError("a sandbox needs at least one provider")
        names = [p.name for p in self.providers]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate sandbox provider names: {names}")

    @property
    def provider_names(self) -> list[str]:
        return [p.name for p in self.providers]

    def provider(self, name: str) -> SimulatedProvider:
        for p in self.providers:
            if p.name == name:
                return p
        raise KeyError(name)

    def provider_for_host(self, host: str) -> SimulatedProvider | None:
        """The provider that owns ``host`` (first in registry order), None if none does."""
        host = normalise_host(host)
        return next((p for p in self.providers if host and p.serves(host)), None)

    # --- configuration -------------------------------------------------------------------
    def configure(self, *, fail_rate: float | None = None, latency_ms: int | None = None,
                  faults: list[PathFault] | None = None) -> None:
        """Change fault injection or latency while running (control endpoint, tests).

        ``faults`` replaces the per-path faults: each fails that fraction of the requests
        whose path starts with its prefix (503 in the provider's envelope, the handshake
        included) and/or adds latency to them, so one upstream endpoint can fail while
        the others stay healthy. ``[]`` clears them.
        """
        with self._lock:
            if faults is not None:
                self.faults = list(faults)
            if fail_rate is not None:
                self.fail_rate = float(fail_rate)
            if latency_ms is not None:
                self.latency_ms = int(latency_ms)

    def _now(self) -> datetime:
        return self._clock_source()

    def set_clock(self, clock: Callable[[], datetime] | None) -> None:
        """The sandbox's time from now on (None: real UTC time), e.g. a session replayed at
        60x (:func:`make_clock`) or one frozen instant."""
        self._clock_source = clock or _utc_now

    def reset_log(self) -> None:
        with self._lock:
            self._log.clear()
            self._recorded = 0

    @property
    def request_log(self) -> list[dict[str, Any]]:
        """A copy of the log: the most recent requests (at most ``log_capacity``), oldest
        first, as ``{"method", "host", "upstream_host", "provider", "path", "query",
        "status", "ts"}`` dicts."""
        with self._lock:
            entries = list(self._log)
        return [_entry_dict(e) for e in entries]

    def log_stats(self) -> dict[str, int]:
        """``entries`` kept, the ``capacity``, requests ``recorded`` since the last reset
        (exact) and how many of them were ``dropped`` (the oldest, past the capacity)."""
        with self._lock:
            kept, recorded = len(self._log), self._recorded
        return {"entries": kept, "capacity": self.log_capacity, "recorded": recorded,
                "dropped": recorded - kept}

    @property
    def log_capacity(self) -> int:
        return self._log.maxlen or 0

    def requests_matching(self, path_prefix: str = "",
                          provider: str | None = None) -> list[dict[str, Any]]:
        """A copy of the log entries whose path starts with ``path_prefix`` (and, when
        given, answered by ``provider``)."""
        with self._lock:
            entries = [e for e in self._log if e[4].startswith(path_prefix)
                       and (provider is None or e[3] == provider)]
        return [_entry_dict(e) for e in entries]

    # --- requests ------------------------------------------------------------------------
    def resolve(self, host: str, method: str, path: str
                ) -> tuple[SimulatedProvider | None, Route | None, dict[str, str]]:
        """(provider, route, path parameters) for a request meant for ``host``.

        A known host picks its provider (route None when the path is not in its table);
        an unknown host picks the first provider with a matching route, else (None, None).
        """
        owner = self.provider_for_host(host)
        if owner is not None:
            route, params = owner.match(method, path)
            return owner, route, params
        for candidate in self.providers:
            route, params = candidate.match(method, path)
            if route is not None:
                return candidate, route, params
        return None, None, {}

    def handle(self, method: str, host: str, path: str, query: dict[str, list[str]],
               headers: dict[str, str], body: bytes = b"") -> SandboxResponse:
        """Answer one upstream request like the provider it was meant for would."""
        method = method.upper()
        clean_path = unquote(path.split("?", 1)[0]) or "/"
        fault = self._fault_for(clean_path)
        latency_ms = max(self.latency_ms, fault.latency_ms if fault else 0)
        if latency_ms > 0:
            time.sleep(latency_ms / 1000.0)
        query = _as_lists(query)
        lowered = {k.lower(): v for k, v in (headers or {}).items()}
        connected = normalise_host(host)
        upstream = normalise_host(lowered.get(UPSTREAM_HOST_HEADER.lower())) or connected
        provider, route, params = self.resolve(upstream, method, clean_path)
        answering = provider or self.providers[0]
        req = Request(method, connected, clean_path, query, lowered, body or b"", self.clock,
                      upstream_host=upstream)
        if self._should_fail(route, fault):
            response = answering.unavailable(route)
        elif provider is None or route is None:
            response = answering.not_found()
        else:
            try:
                response = provider.dispatch(route, params, req)
            except Exception as exc:  # a sandbox bug must look like an upstream 500
                log.exception("sandbox %s handler failed for %s %s", provider.name, method,
                              clean_path)
                response = provider.error(route, 500, "Internal Server Error", str(exc))
        self._record(method, connected, upstream, provider, clean_path, query, response.status)
        return response

    def streamer_refused(self, url: str) -> bool:
        """Whether a simulated streaming endpoint (``url``) refuses its handshake, or drops
        an open connection, now: every request fails (``fail_rate`` 1.0) or a path fault
        whose prefix ``url`` starts with fails all its calls (no roll: the seeded fault
        sequence of the HTTP calls stays as it was)."""
        fault = self._fault_for(url)
        return self.fail_rate >= 1.0 or (fault is not None and fault.fail_rate >= 1.0)

    def _fault_for(self, path: str) -> PathFault | None:
        """The first configured path fault whose prefix the path starts with."""
        for fault in self.faults:
            if path.startswith(fault.path_prefix):
                return fault
        return None

    def _should_fail(self, route: Route | None, fault: PathFault | None) -> bool:
        """Inject a 503? The global ``fail_rate`` spares auth handshakes unless it is 1.0;
        a path fault applies to every request on its path."""
        rate = self.fail_rate
        spared = rate < 1.0 and route is not None and route.handshake
        return (not spared and self._roll(rate)) or \
            (fault is not None and self._roll(fault.fail_rate))

    def _roll(self, rate: float) -> bool:
        """True for ``rate`` of the calls, from the seeded sequence (no draw at 0 or 1)."""
        if rate >= 1.0 or rate <= 0.0:
            return rate >= 1.0
        with self._lock:
            return self._rng.random() < rate

    def _record(self, method: str, host: str, upstream_host: str,
                provider: SimulatedProvider | None, path: str, query: dict[str, list[str]],
                status: int) -> None:
        entry: _LogEntry = (method, sys.intern(host), sys.intern(upstream_host),
                            provider.name if provider is not None else None, path,
                            {k: list(v) for k, v in query.items()}, status, time.time())
        with self._lock:
            self._log.append(entry)  # the deque drops the oldest past its capacity
            self._recorded += 1


# The original name (Yahoo was the only provider); kept for existing code and tests.


def _as_lists(query: dict[str, Any]) -> dict[str, list[str]]:
    """parse_qs-style values; a bare string value is accepted as a one-item list."""
    return {k: [v] if isinstance(v, str) else list(v) for k, v in (query or {}).items()}


_singleton: UpstreamSandbox | None = None
_singleton_lock = threading.Lock()


def parse_instant(text: str) -> datetime:
    """An ISO 8601 instant (``Z`` allowed); without a zone, UTC."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def make_clock(start: datetime | None, speed: float = 1.0) -> Callable[[], datetime] | None:
    """A sandbox clock starting at ``start`` and running ``speed`` times real time (None:
    the real clock). For demos and load tests that need prices to move now: a session's
    minute paths at 60x give every symbol a new price every second."""
    if start is None and speed == 1.0:
        return None
    if speed <= 0:
        raise ValueError("--clock-speed must be positive")
    origin, launched = start or datetime.now(UTC), time.monotonic()
    return lambda: origin + timedelta(seconds=(time.monotonic() - launched) * speed)


def get_sandbox() -> UpstreamSandbox:
    """The process-wide sandbox (created on first use)."""
    global _singleton
    if _singleton is None:
        with _singleton_lock:
            if _singleton is None:
                _singleton = UpstreamSandbox()
    return _singleton
