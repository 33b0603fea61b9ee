"""The one upstream HTTP client. Every provider call goes through :func:`get_client`
(usually through a :class:`marketdata.providers.base.Provider`).

What it does for every call:
- pooled keep-alive sessions, one per provider (so one provider's cookies never reach
  another), with separate connect and read timeouts;
- the request deadline (:mod:`marketdata.deadline`): each attempt's timeouts shrink to the
  time left, and no attempt, retry or backoff starts past it;
- retries with jittered exponential backoff on transport errors and 5xx only; a 4xx is an
  answer, never retried. :func:`single_attempt` turns retries off for a block (the cache
  does when it holds a stale copy: the stale copy is served as soon as one attempt fails);
- a circuit breaker per (provider, upstream endpoint): Yahoo's chart, quote,
  quoteSummary, sector, screener, search... each its own, so one failing upstream path
  never refuses calls to the healthy ones. Only answers that say the upstream is
  unhealthy count (connection errors, timeouts, 5xx, 429); a 404 or other 4xx is a
  healthy answer. After N consecutive failed calls the endpoint is not called for a while
  and callers get a 503 at once; after the pause one trial call decides. (pybreaker holds
  one lock for the whole duration of every call, which would serialise all concurrent
  calls, and ``circuitbreaker`` does not check the state in ``call()``; hence the small
  :class:`CircuitBreaker` below.);
- lanes (:mod:`marketdata.lanes`): a call occupies its endpoint's lane and its provider's,
  each with a bounded number of calls in flight (an endpoint gets at most three quarters of
  its provider's slots) and a bounded share of the threads (below the pool's size); a
  call that finds a share full parks its request (no thread held) or gets a 503, so a
  hanging endpoint holds a bounded number of threads and sockets and leaves the rest to
  its provider's other endpoints and to the other providers. A provider's own lanes (the
  Yahoo handshake) stand outside its lane;
- ``UPSTREAM_HOST_MAP`` rewrites named hosts (``host=http://127.0.0.1:9000``, ``*.yahoo.com``
  wildcards allowed) for proxies, replay and load tests; a rewritten call carries
  ``X-Upstream-Host: <original host>`` so one replay server or sandbox can tell providers
  apart;
- in sandbox mode a transport adapter answers from the in-process simulator, so the same
  URLs, parsers and error paths run offline (settings name it, ``UPSTREAM_TRANSPORTS``:
  this module never imports the simulator, which the production image does not ship);
- one structured log line per attempt: provider, endpoint, status, duration, attempt,
  outcome. The query string and headers are never logged (they carry crumbs and keys).
"""

from __future__ import annotations

import contextvars
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson
import requests
from requests.adapters import HTTPAdapter

from marketdata import deadline, lanes, metrics
from marketdata.errors import (
    DeadlineExceeded,
    UpstreamBadResponse,
    UpstreamBusy,
    UpstreamCircuitOpen,
    UpstreamError,
    UpstreamRateLimited,
    UpstreamTimeout,
    UpstreamUnavailable,
    says_nothing_about_upstream,
)
from marketdata.logs import get_logger

log = get_logger("marketdata.http")

DEFAULT_USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)


@dataclass(frozen=True)
class ProviderConfig:
    """Per-provider transport policy.

    ``max_concurrency`` None means the client's default (``UPSTREAM_MAX_CONCURRENCY``).
    ``hosts`` are the hosts (``*.`` patterns allowed) the provider's URLs use, for operators
    writing an ``UPSTREAM_HOST_MAP``. Endpoints whose name starts with one of
    ``own_lanes`` (a handshake every other call depends on) get a lane of their own,
    outside the provider's, so they never queue behind its other calls.
    """

    name: str
    display_name: str
    connect_timeout: float = 3.0
    read_timeout: float = 10.0
    max_attempts: int = 3
    backoff_seconds: float = 0.2
    backoff_max_seconds: float = 2.0
    breaker_fail_max: int = 5
    breaker_reset_seconds: float = 30.0
    max_concurrency: int | None = None
    hosts: tuple[str, ...] = ()
    own_lanes: tuple[str, ...] = ()

    def bad_answer(self, detail: str, status: int | None = None) -> UpstreamBadResponse:
        """The 502 for an answer of this provider that cannot be used, in its words:
        ``"<display name> <detail>"`` (every provider module's one error helper)."""
        return UpstreamBadResponse(self.name, f"{self.display_name} {detail}", status)


@dataclass
class UpstreamResponse:
    """What a caller gets back: status, headers and body, already read."""

    provider: ProviderConfig
    status: int
    headers: Mapping[str, str]
    content: bytes
    url: str
    cookies: dict[str, str]

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        try:
            return orjson.loads(self.content)
        except orjson.JSONDecodeError as exc:
            raise UpstreamBadResponse(
                self.provider.name,
                f"{self.provider.display_name} returned a body that is not JSON",
                self.status,
            ) from exc


class CircuitOpen(Exception):
    """The breaker refused the call."""


@dataclass(frozen=True)
class BreakerState:
    """A breaker as shown in ``/v1/health`` and the admin's cache page."""

    provider: str
    endpoint: str
    state: str
    consecutive_failures: int
    retry_in_seconds: float | None

    def as_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "endpoint": self.endpoint, "state": self.state,
                "consecutive_failures": self.consecutive_failures,
                "retry_in_seconds": self.retry_in_seconds}


class CircuitBreaker:
    """Consecutive-failure breaker: closed -> open (for ``reset_seconds``) -> half-open.

    In half-open state exactly one trial call goes through; its outcome closes or
    re-opens the circuit. The lock guards only state changes, never the call itself.
    """

    CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"

    def __init__(self, name: str, fail_max: int, reset_seconds: float,
                 endpoint: str = "") -> None:
        self.name = name
        self.endpoint = endpoint
        self.fail_max = fail_max
        self.reset_seconds = reset_seconds
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at = 0.0
        self._state = self.CLOSED
        self._trial_running = False

    @property
    def state(self) -> str:
        if self._state == self.OPEN and time.monotonic() - self._opened_at >= self.reset_seconds:
            return self.HALF_OPEN
        return self._state

    def snapshot(self) -> BreakerState:
        state = self.state
        retry_in = None
        if state == self.OPEN:
            retry_in = round(max(0.0, self._opened_at + self.reset_seconds
                                 - time.monotonic()), 1)
        return BreakerState(self.name, self.endpoint, state, self._failures, retry_in)

    def before_call(self) -> None:
        """Raise CircuitOpen unless a call may go ahead now."""
        with self._lock:
            state = self.state
            if state == self.CLOSED:
                return
            if state == self.HALF_OPEN and not self._trial_running:
                self._trial_running = True
                return
            raise CircuitOpen(self.name)

    def cancel(self) -> None:
        """The permitted call was not made (no time left): free the half-open trial."""
        with self._lock:
            self._trial_running = False

    def record(self, success: bool) -> None:
        with self._lock:
            self._trial_running = False
            old = self._state
            if success:
                self._failures = 0
                self._state = self.CLOSED
            else:
                self._failures += 1
                if self._failures >= self.fail_max or old == self.OPEN:
                    self._state = self.OPEN
                    self._opened_at = time.monotonic()
            new = self._state
        if new != old:
            log.warning("upstream circuit state change", provider=self.name,
                        endpoint=self.endpoint, old_state=old, new_state=new)

    def reset(self) -> None:
        with self._lock:
            self._failures, self._state, self._trial_running = 0, self.CLOSED, False


class _Retryable(Exception):
    """Raised inside the retry loop for outcomes worth another attempt."""

    def __init__(self, error: UpstreamError) -> None:
        super().__init__(error.detail)
        self.error = error
        # A failure this server imposed (deadline, full lanes) says nothing of the
        # upstream's health: the breaker does not count it.
        self.counts = not says_nothing_about_upstream(error)


# Retries off for a block (see single_attempt).
_max_attempts: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "upstream_max_attempts", default=None)


@contextmanager
def single_attempt() -> Iterator[None]:
    """Calls in the block make one attempt each, no retries (a stale copy is at hand)."""
    token = _max_attempts.set(1)
    try:
        yield
    finally:
        _max_attempts.reset(token)


# The least time worth starting an attempt with: below it the call is refused as a
# deadline timeout without touching the upstream.
MIN_ATTEMPT_SECONDS = 0.05


def parse_host_map(text: str) -> dict[str, str]:
    """``'a.com=http://127.0.0.1:9000, *.b.com=http://h:1'`` -> {host: base URL}."""
    mapping: dict[str, str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        host, sep, target = item.partition("=")
        if not sep or not host.strip() or not target.strip():
            raise ValueError(f"UPSTREAM_HOST_MAP entry {item!r} is not host=URL")
        target = target.strip().rstrip("/")
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"UPSTREAM_HOST_MAP target {target!r} needs http(s)://host[:port]")
        mapping[host.strip().lower()] = target
    return mapping


# Sent on a call UPSTREAM_HOST_MAP rewrote: the host the URL named before the rewrite.
UPSTREAM_HOST_HEADER = "X-Upstream-Host"


def host_matches(host: str, pattern: str) -> bool:
    """``pattern`` is a host or ``*.domain``, which also matches the bare domain (the rule
    of ``UPSTREAM_HOST_MAP``, and of the sandbox's provider hosts)."""
    if pattern.startswith("*."):
        return host == pattern[2:] or host.endswith(pattern[1:])
    return host == pattern


def rewrite_url(url: str, host_map: Mapping[str, str]) -> str:
    """Send ``url`` to the base URL its host is mapped to (exact host, then ``*.`` patterns)."""
    if not host_map:
        return url
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    target = host_map.get(host)
    if target is None:
        target = next((base for pattern, base in host_map.items()
                       if pattern.startswith("*.") and host_matches(host, pattern)), None)
    if target is None:
        return url
    base = urlsplit(target)
    path = base.path.rstrip("/") + parts.path
    return urlunsplit((base.scheme, base.netloc, path, parts.query, parts.fragment))


class UpstreamClient:
    """Thread-safe client shared by all requests of a process."""

    def __init__(self, host_map: Mapping[str, str] | None = None,
                 transport: requests.adapters.BaseAdapter | None = None,
                 pool_size: int = 64, max_concurrency: int = 32,
                 lane_policy: lanes.LanePolicy | None = None) -> None:
        self.host_map = dict(host_map or {})
        self._transport = transport
        # A transport answers in process (the simulator): no upstream to spare, so the
        # providers that pace their calls for an upstream's sake don't (see Provider.paced).
        self.in_process = transport is not None
        self._pool_size = pool_size
        self._max_concurrency = max_concurrency
        self._providers: dict[str, ProviderConfig] = {}
        self._sessions: dict[str, requests.Session] = {}
        self._breakers: dict[tuple[str, str], CircuitBreaker] = {}
        # Shares default to "never full" for a client built outside the server (scripts,
        # unit tests); build_client() sizes them from the thread pool.
        self.lanes = lanes.LaneSet(lane_policy or lanes.LanePolicy(
            endpoint_share=1 << 30, provider_share=1 << 30))
        self._lock = threading.Lock()

    # -- setup -------------------------------------------------------------------------
    def register(self, provider: ProviderConfig) -> ProviderConfig:
        known = self._providers.get(provider.name)
        if known is not None:  # the common case: no lock on the request path
            return known
        with self._lock:
            if provider.name not in self._providers:
                self._sessions[provider.name] = self._new_session()
                # Published last: the lock-free fast path above (and request()) must never
                # see a provider whose session is not there yet.
                self._providers[provider.name] = provider
        return self._providers[provider.name]

    def _new_session(self) -> requests.Session:
        session = requests.Session()
        session.headers.update({"User-Agent": DEFAULT_USER_AGENT,
                                "Accept": "application/json,text/plain,*/*",
                                "Accept-Language": "en-US,en;q=0.9"})
        if self._transport is not None:
            session.mount("https://", self._transport)
            session.mount("http://", self._transport)
        else:
            # Retries are ours, so urllib3's stay off.
            adapter = HTTPAdapter(pool_connections=16, pool_maxsize=self._pool_size,
                                  max_retries=0)
            session.mount("https://", adapter)
            session.mount("http://", adapter)
        return session

    def display_name(self, provider: str) -> str:
        """A registered provider's display name (for messages); its name when unknown."""
        config = self._providers.get(provider)
        return config.display_name if config is not None else provider

    def session(self, provider: str) -> requests.Session:
        return self._sessions[provider]

    def breaker(self, provider: str, endpoint: str) -> CircuitBreaker:
        """The breaker of one upstream endpoint (created on first use)."""
        key = (provider, endpoint)
        breaker = self._breakers.get(key)
        if breaker is None:
            config = self._providers[provider]
            with self._lock:
                breaker = self._breakers.get(key)
                if breaker is None:
                    breaker = CircuitBreaker(provider, config.breaker_fail_max,
                                             config.breaker_reset_seconds, endpoint)
                    self._breakers[key] = breaker
        return breaker

    def breaker_state(self, provider: str, endpoint: str | None = None) -> str:
        """One endpoint's breaker state; without ``endpoint`` the worst of the provider's
        (open, then half_open, then closed)."""
        if endpoint is not None:
            return self.breaker(provider, endpoint).state
        states = {b.state for (p, _), b in list(self._breakers.items()) if p == provider}
        for state in (CircuitBreaker.OPEN, CircuitBreaker.HALF_OPEN):
            if state in states:
                return state
        return CircuitBreaker.CLOSED

    def capacity(self, config: ProviderConfig) -> int:
        """Calls of ``config``'s provider in flight at once (per process)."""
        return config.max_concurrency or self._max_concurrency

    def lanes_for(self, provider: str, endpoint: str) -> tuple[lanes.Lane, ...]:
        """The lanes a call to ``endpoint`` occupies."""
        config = self._providers[provider]
        own = endpoint.startswith(config.own_lanes) if config.own_lanes else False
        return self.lanes.for_call(provider, config.display_name, endpoint,
                                   self.capacity(config), own)

    @contextmanager
    def waiting(self, provider: str) -> Iterator[None]:
        """Occupy ``provider``'s lane while this thread waits for another thread's answer
        (a single-flight leader's, a handshake's): such waiters hold threads too. Raises
        like a call that finds the lane full. No-op for a provider never registered."""
        config = self._providers.get(provider)
        if config is None:
            yield
            return
        lane = self.lanes.provider_lane(provider, config.display_name, self.capacity(config))
        with lanes.enter(lane):
            yield

    def lane_states(self) -> list[lanes.LaneState]:
        """Every lane this process has used."""
        return self.lanes.states()

    def breaker_states(self) -> list[BreakerState]:
        """Every breaker this process has used, by provider and endpoint."""
        return sorted((b.snapshot() for b in list(self._breakers.values())),
                      key=lambda b: (b.provider, b.endpoint))

    def reset(self) -> None:
        """Close breakers and drop cookies (tests, and after a config change)."""
        for breaker in list(self._breakers.values()):
            breaker.reset()
        for session in self._sessions.values():
            session.cookies.clear()

    # -- calls -------------------------------------------------------------------------
    def rewrite(self, url: str) -> str:
        """Apply UPSTREAM_HOST_MAP to ``url``."""
        return rewrite_url(url, self.host_map)

    def request(self, provider: str, endpoint: str, url: str, *, method: str = "GET",
                params: Mapping[str, Any] | None = None,
                data: Mapping[str, Any] | bytes | None = None,
                headers: Mapping[str, str] | None = None, allow_redirects: bool = True,
                timeout: tuple[float, float] | None = None) -> UpstreamResponse:
        """Call ``url`` for ``provider``; ``endpoint`` names the upstream endpoint (its
        breaker, logs and stats). ``data``: a form (a mapping) or a body as sent (bytes,
        with its Content-Type in ``headers``: a JSON POST).

        Returns any 2xx-4xx answer except 429. Raises UpstreamRateLimited (429),
        UpstreamTimeout (504: the upstream or the request deadline), UpstreamUnavailable
        (503: unreachable, circuit open, a full lane, or no slot in time) or
        UpstreamBadResponse (502: 5xx after retries); :class:`lanes.LaneFull` when a lane is
        full and the request may be parked.
        """
        config = self._providers[provider]
        # Lanes first: a call refused there never reached the breaker or the upstream.
        with lanes.enter(*self.lanes_for(provider, endpoint)) as ticket:
            return self._request(config, endpoint, url, ticket, method=method, params=params,
                                 data=data, headers=headers, allow_redirects=allow_redirects,
                                 timeout=timeout)

    def _request(self, config: ProviderConfig, endpoint: str, url: str,
                 ticket: lanes.Ticket, *, method: str,
                 params: Mapping[str, Any] | None, data: Mapping[str, Any] | bytes | None,
                 headers: Mapping[str, str] | None, allow_redirects: bool,
                 timeout: tuple[float, float] | None) -> UpstreamResponse:
        provider = config.name
        breaker = self.breaker(provider, endpoint)
        try:
            breaker.before_call()
        except CircuitOpen as exc:
            log.warning("upstream circuit open", provider=provider, endpoint=endpoint)
            metrics.record_upstream(provider, endpoint, "circuit_open")
            raise UpstreamCircuitOpen(
                provider, f"{config.display_name} is unavailable (circuit open after repeated "
                f"failures of {endpoint}); retry later") from exc
        finish = deadline.current()
        if finish is None:  # outside a request: bound the call by the default budget
            finish = time.monotonic() + deadline.default_seconds()
        else:  # a request: its answer must still be sent by the deadline
            finish -= deadline.ANSWER_MARGIN_SECONDS
        try:
            response = self._with_retries(config, endpoint, url, ticket, method, params, data,
                                          headers, allow_redirects, timeout, finish)
        except _Retryable as exc:
            if exc.counts:
                breaker.record(success=False)
            else:
                breaker.cancel()
            raise exc.error from exc
        except BaseException:
            breaker.record(success=False)
            raise
        if response.status == 429:
            breaker.record(success=False)
            raise UpstreamRateLimited(provider, f"{config.display_name} rate limit exceeded",
                                      429)
        breaker.record(success=True)
        return response

    def _with_retries(self, config: ProviderConfig, endpoint: str, url: str,
                      ticket: lanes.Ticket, method: str,
                      params: Mapping[str, Any] | None, data: Mapping[str, Any] | bytes | None,
                      headers: Mapping[str, str] | None, allow_redirects: bool,
                      timeout: tuple[float, float] | None, finish: float) -> UpstreamResponse:
        target = self.rewrite(url)
        if target != url:
            headers = {**(headers or {}), UPSTREAM_HOST_HEADER: urlsplit(url).hostname or ""}
        attempts = min(config.max_attempts, _max_attempts.get() or config.max_attempts)
        last: _Retryable | None = None
        for attempt in range(1, attempts + 1):
            left = finish - time.monotonic()
            if left < MIN_ATTEMPT_SECONDS:
                break
            try:
                return self._once(config, endpoint, target, ticket, method, params, data,
                                  headers, allow_redirects, timeout, attempt, finish)
            except _Retryable as exc:
                last = exc
            if attempt < attempts:
                ceiling = min(config.backoff_max_seconds,
                              config.backoff_seconds * 2 ** (attempt - 1))
                pause = random.uniform(0, ceiling)
                if time.monotonic() + pause + MIN_ATTEMPT_SECONDS >= finish:
                    break
                time.sleep(pause)
        # The last attempt's failure; none when the deadline left no time for an attempt.
        raise last or _not_called(config)

    def _once(self, config: ProviderConfig, endpoint: str, url: str, ticket: lanes.Ticket,
              method: str,
              params: Mapping[str, Any] | None, data: Mapping[str, Any] | bytes | None,
              headers: Mapping[str, str] | None, allow_redirects: bool,
              timeout: tuple[float, float] | None, attempt: int,
              finish: float) -> UpstreamResponse:
        session = self._sessions[config.name]

        def no_slot() -> _Retryable:
            return _Retryable(UpstreamBusy(
                config.name, f"{config.display_name} is busy (too many calls in flight from "
                f"this server to {endpoint}); retry later"))

        with ticket.slots(finish, no_slot):
            connect, read = timeout or (config.connect_timeout, config.read_timeout)
            left = finish - time.monotonic()
            if left < MIN_ATTEMPT_SECONDS:
                raise _not_called(config)
            # A timeout only says the upstream is unhealthy when the attempt had a fair
            # share of the provider's own read timeout.
            fair = left >= read / 2
            connect, read = min(connect, left), min(read, left)
            started = time.perf_counter()
            status: int | None = None
            outcome = "ok"
            try:
                raw = session.request(method, url, params=params, data=data, headers=headers,
                                      allow_redirects=allow_redirects, timeout=(connect, read))
                status = raw.status_code
                response = UpstreamResponse(config, status, raw.headers, raw.content, raw.url,
                                            raw.cookies.get_dict())
            except requests.Timeout as exc:
                outcome = "timeout"
                if not fair:
                    raise _Retryable(DeadlineExceeded(
                        config.name, f"{config.display_name} did not answer within the "
                        "request deadline")) from exc
                raise _Retryable(UpstreamTimeout(
                    config.name, f"{config.display_name} did not answer in time")) from exc
            except requests.RequestException as exc:
                outcome = "unreachable"
                raise _Retryable(UpstreamUnavailable(
                    config.name, f"{config.display_name} could not be reached")) from exc
            finally:
                duration_ms = round((time.perf_counter() - started) * 1000, 2)
                if status is not None and status >= 500:
                    outcome = "server_error"
                elif status is not None and status >= 400:
                    outcome = "client_error"
                log_method = log.info if outcome in ("ok", "client_error") else log.warning
                log_method("upstream call", provider=config.name, endpoint=endpoint,
                           method=method, path=urlsplit(url).path, status=status,
                           duration_ms=duration_ms, attempt=attempt, outcome=outcome)
                metrics.record_upstream(config.name, endpoint, outcome, duration_ms / 1000)
        if status >= 500:
            raise _Retryable(UpstreamBadResponse(
                config.name, f"{config.display_name} answered HTTP {status}", status))
        return response


def _not_called(config: ProviderConfig) -> _Retryable:
    return _Retryable(DeadlineExceeded(
        config.name, f"{config.display_name} was not called: the request deadline passed"))


_client: UpstreamClient | None = None
_client_lock = threading.Lock()


def build_client() -> UpstreamClient:
    """A client configured from Django settings (host map, the upstream mode's transport:
    ``UPSTREAM_TRANSPORTS[MARKETDATA_UPSTREAM]``, a dotted class path, none for live)."""
    from django.conf import settings
    from django.utils.module_loading import import_string

    transport = None
    path = getattr(settings, "UPSTREAM_TRANSPORTS", {}).get(settings.MARKETDATA_UPSTREAM)
    if path:
        transport = import_string(path)()
    return UpstreamClient(host_map=parse_host_map(settings.UPSTREAM_HOST_MAP),
                          transport=transport,
                          max_concurrency=settings.UPSTREAM_MAX_CONCURRENCY,
                          lane_policy=lanes.LanePolicy(
                              endpoint_share=settings.UPSTREAM_ENDPOINT_SHARE,
                              provider_share=settings.UPSTREAM_PROVIDER_SHARE))


def get_client() -> UpstreamClient:
    """The process-wide client (built on first use)."""
    global _client
    if _client is None:
        with _client_lock:
            if _client is None:
                _client = build_client()
    return _client


_on_reset: list[Callable[[], None]] = []


def on_client_reset(callback: Callable[[], None]) -> None:
    """Call ``callback`` whenever the process-wide client is forgotten (the provider
    registry forgets the providers bound to it): the client knows no provider module."""
    _on_reset.append(callback)


def reset_client() -> None:
    """Forget the process-wide client so the next call rebuilds it from settings (tests),
    and with it every provider bound to it (credentials are read again)."""
    global _client
    with _client_lock:
        _client = None
    for callback in list(_on_reset):
        callback()


def open_websocket(url: str, *, headers: Mapping[str, str] | None = None,
                   open_timeout: float = 10.0) -> Any:
    """An upstream WebSocket, as an async context manager yielding a connection with
    ``send(text)`` and ``recv()`` (websockets' client, or the mode's in-process one).

    The rules of the HTTP calls apply: ``UPSTREAM_HOST_MAP`` rewrites the host (``ws://``
    for an ``http://`` target) and adds ``X-Upstream-Host``; the sandbox mode's
    ``UPSTREAM_WEBSOCKETS`` entry (a dotted path) answers in process instead.
    """
    from django.conf import settings
    from django.utils.module_loading import import_string

    path = getattr(settings, "UPSTREAM_WEBSOCKETS", {}).get(settings.MARKETDATA_UPSTREAM)
    if path:
        return import_string(path)(url)
    headers = dict(headers or {})
    # The host map's targets are http(s) bases: the WebSocket scheme follows the target's.
    rewritten = get_client().rewrite(url)
    target = rewritten.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
    if target != url:
        headers[UPSTREAM_HOST_HEADER] = urlsplit(url).hostname or ""
    from websockets.asyncio.client import connect

    return connect(target, additional_headers=headers, user_agent_header=DEFAULT_USER_AGENT,
                   open_timeout=open_timeout, max_size=1 << 20, ping_interval=20,
                   ping_timeout=20, close_timeout=2)


# The settings the client is built from: a test (override_settings) that changes one gets
# a client built from the new value on its next call.
_CLIENT_SETTINGS = frozenset({"MARKETDATA_UPSTREAM", "UPSTREAM_TRANSPORTS", "UPSTREAM_HOST_MAP",
                              "UPSTREAM_MAX_CONCURRENCY", "UPSTREAM_ENDPOINT_SHARE",
                              "UPSTREAM_PROVIDER_SHARE"})


def _on_setting_changed(setting: str, **kwargs: Any) -> None:
    if setting in _CLIENT_SETTINGS:
        reset_client()


try:
    from django.test.signals import setting_changed

    setting_changed.connect(_on_setting_changed, dispatch_uid="marketdata.http")
except ImportError:  # pragma: no cover - Django is always installed here
    pass
