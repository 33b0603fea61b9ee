"""The one upstream HTTP client. Every provider call goes through :func:`get_client`.

What it does for every call:
- pooled keep-alive sessions, one per provider (so one provider's cookies never reach
  another), with separate connect and read timeouts;
- retries with jittered exponential backoff (tenacity) on transport errors and 5xx only;
  a 4xx is an answer, never retried;
- a circuit breaker per provider: after N consecutive failed calls the provider is not
  called for a while and callers get a 503 at once; after the pause one trial call
  decides. (pybreaker holds one lock for the whole duration of every call, which would
  serialise all concurrent calls to a provider, and ``circuitbreaker`` does not check the
  state in ``call()``; hence the small :class:`CircuitBreaker` below.);
- ``UPSTREAM_HOST_MAP`` rewrites named hosts (``host=http://127.0.0.1:9000``, ``*.yahoo.com``
  wildcards allowed) for proxies, replay and load tests;
- in sandbox mode a transport adapter answers from the in-process simulator, so the same
  URLs, parsers and error paths run offline;
- one structured log line per attempt: provider, endpoint, status, duration, attempt,
  outcome. The query string is never logged (it carries crumbs and keys).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson
import requests
from requests.adapters import HTTPAdapter
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_random_exponential

from marketdata.errors import (
    UpstreamBadResponse,
    UpstreamCircuitOpen,
    UpstreamError,
    UpstreamRateLimited,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from marketdata.logs import get_logger

log = get_logger("marketdata.http")

DEFAULT_USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)


@dataclass(frozen=True)
class ProviderConfig:
    """Per-provider transport policy."""

    name: str
    display_name: str
    connect_timeout: float = 3.0
    read_timeout: float = 10.0
    max_attempts: int = 3
    backoff_seconds: float = 0.2
    backoff_max_seconds: float = 2.0
    breaker_fail_max: int = 5
    breaker_reset_seconds: float = 30.0


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


class CircuitBreaker:
    """Consecutive-failure breaker: closed -> open (for ``reset_seconds``) -> half-open.

    In half-open state exactly one trial call goes through; its outcome closes or
    re-opens the circuit. The lock guards only state changes, never the call itself.
    """

    CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"

    def __init__(self, name: str, fail_max: int, reset_seconds: float) -> None:
        self.name = name
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
                        old_state=old, new_state=new)

    def reset(self) -> None:
        with self._lock:
            self._failures, self._state, self._trial_running = 0, self.CLOSED, False


class _Retryable(Exception):
    """Raised inside the retry loop for outcomes worth another attempt."""

    def __init__(self, error: UpstreamError) -> None:
        super().__init__(error.detail)
        self.error = error


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


def rewrite_url(url: str, host_map: Mapping[str, str]) -> str:
    """Send ``url`` to the base URL its host is mapped to (exact host, then ``*.`` patterns)."""
    if not host_map:
        return url
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    target = host_map.get(host)
    if target is None:
        for pattern, base in host_map.items():
            if pattern.startswith("*.") and (host.endswith(pattern[1:]) or host == pattern[2:]):
                target = base
                break
    if target is None:
        return url
    base = urlsplit(target)
    path = base.path.rstrip("/") + parts.path
    return urlunsplit((base.scheme, base.netloc, path, parts.query, parts.fragment))


class UpstreamClient:
    """Thread-safe client shared by all requests of a process."""

    def __init__(self, host_map: Mapping[str, str] | None = None,
                 transport: requests.adapters.BaseAdapter | None = None,
                 pool_size: int = 64) -> None:
        self.host_map = dict(host_map or {})
        self._transport = transport
        self._pool_size = pool_size
        self._providers: dict[str, ProviderConfig] = {}
        self._sessions: dict[str, requests.Session] = {}
        self._breakers: dict[str, CircuitBreaker] = {}
        self._lock = threading.Lock()

    # -- setup -------------------------------------------------------------------------
    def register(self, provider: ProviderConfig) -> ProviderConfig:
        known = self._providers.get(provider.name)
        if known is not None:  # the common case: no lock on the request path
            return known
        with self._lock:
            if provider.name not in self._providers:
                self._sessions[provider.name] = self._new_session()
                self._breakers[provider.name] = CircuitBreaker(
                    provider.name, provider.breaker_fail_max, provider.breaker_reset_seconds)
                # Published last: the lock-free fast path above (and request()) must never
                # see a provider whose session or breaker is not there yet.
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
            # Retries are ours (tenacity), so urllib3's stay off.
            adapter = HTTPAdapter(pool_connections=16, pool_maxsize=self._pool_size,
                                  max_retries=0)
            session.mount("https://", adapter)
            session.mount("http://", adapter)
        return session

    def session(self, provider: str) -> requests.Session:
        return self._sessions[provider]

    def breaker_state(self, provider: str) -> str:
        return self._breakers[provider].state

    def reset(self) -> None:
        """Close breakers and drop cookies (tests, and after a config change)."""
        for name, breaker in self._breakers.items():
            breaker.reset()
            self._sessions[name].cookies.clear()

    # -- calls -------------------------------------------------------------------------
    def rewrite(self, url: str) -> str:
        """Apply UPSTREAM_HOST_MAP to ``url``."""
        return rewrite_url(url, self.host_map)

    def request(self, provider: str, endpoint: str, url: str, *, method: str = "GET",
                params: Mapping[str, Any] | None = None, data: Mapping[str, Any] | None = None,
                headers: Mapping[str, str] | None = None, allow_redirects: bool = True,
                timeout: tuple[float, float] | None = None) -> UpstreamResponse:
        """Call ``url`` for ``provider``; ``endpoint`` is a short name for logs and stats.

        Returns any 2xx-4xx answer except 429. Raises UpstreamRateLimited (429),
        UpstreamTimeout (504), UpstreamUnavailable (503: unreachable or circuit open)
        or UpstreamBadResponse (502: 5xx after retries).
        """
        config = self._providers[provider]
        breaker = self._breakers[provider]
        try:
            breaker.before_call()
        except CircuitOpen as exc:
            log.warning("upstream circuit open", provider=provider, endpoint=endpoint)
            raise UpstreamCircuitOpen(
                provider, f"{config.display_name} is unavailable (circuit open after repeated "
                f"failures); retry later") from exc
        try:
            response = self._with_retries(config, endpoint, url, method, params, data, headers,
                                          allow_redirects, timeout)
        except _Retryable as exc:
            breaker.record(success=False)
            raise exc.error from exc
        except BaseException:
            breaker.record(success=False)
            raise
        breaker.record(success=True)
        if response.status == 429:
            raise UpstreamRateLimited(provider, f"{config.display_name} rate limit exceeded",
                                      429)
        return response

    def _with_retries(self, config: ProviderConfig, endpoint: str, url: str, method: str,
                      params: Mapping[str, Any] | None, data: Mapping[str, Any] | None,
                      headers: Mapping[str, str] | None, allow_redirects: bool,
                      timeout: tuple[float, float] | None) -> UpstreamResponse:
        target = self.rewrite(url)
        retrying = Retrying(
            stop=stop_after_attempt(config.max_attempts),
            wait=wait_random_exponential(multiplier=config.backoff_seconds,
                                         max=config.backoff_max_seconds),
            retry=retry_if_exception_type(_Retryable),
            reraise=True,
        )
        for attempt in retrying:
            with attempt:
                return self._once(config, endpoint, target, method, params, data, headers,
                                  allow_redirects, timeout,
                                  attempt.retry_state.attempt_number)
        raise AssertionError("unreachable")  # pragma: no cover

    def _once(self, config: ProviderConfig, endpoint: str, url: str, method: str,
              params: Mapping[str, Any] | None, data: Mapping[str, Any] | None,
              headers: Mapping[str, str] | None, allow_redirects: bool,
              timeout: tuple[float, float] | None, attempt: int) -> UpstreamResponse:
        session = self._sessions[config.name]
        started = time.perf_counter()
        status: int | None = None
        outcome = "ok"
        try:
            raw = session.request(method, url, params=params, data=data, headers=headers,
                                  allow_redirects=allow_redirects,
                                  timeout=timeout or (config.connect_timeout,
                                                      config.read_timeout))
            status = raw.status_code
            response = UpstreamResponse(config, status, raw.headers, raw.content, raw.url,
                                        raw.cookies.get_dict())
        except requests.Timeout as exc:
            outcome = "timeout"
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
        if status >= 500:
            raise _Retryable(UpstreamBadResponse(
                config.name, f"{config.display_name} answered HTTP {status}", status))
        return response


_client: UpstreamClient | None = None
_client_lock = threading.Lock()


def build_client() -> UpstreamClient:
    """A client configured from Django settings (host map, sandbox transport)."""
    from django.conf import settings

    transport = None
    if settings.MARKETDATA_UPSTREAM == "sandbox":
        from marketdata.sandbox.transport import SandboxTransport

        transport = SandboxTransport()
    return UpstreamClient(host_map=parse_host_map(settings.UPSTREAM_HOST_MAP),
                          transport=transport)


def get_client() -> UpstreamClient:
    """The process-wide client (built on first use)."""
    global _client
    if _client is None:
        with _client_lock:
            if _client is None:
                _client = build_client()
    return _client


def reset_client() -> None:
    """Forget the process-wide client so the next call rebuilds it from settings (tests)."""
    global _client
    with _client_lock:
        _client = None
