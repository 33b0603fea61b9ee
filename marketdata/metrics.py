"""Prometheus metrics (``GET /metrics``), correct across gunicorn's worker processes.

Under gunicorn, ``config/gunicorn.conf.py`` sets ``PROMETHEUS_MULTIPROC_DIR`` (under
``MARKETDATA_VAR_DIR``, emptied at every start) before any worker starts: each process then
writes its samples to memory-mapped files there and a scrape, whichever worker answers it,
adds up every process's files. Without the variable (``manage.py runserver``, tests, one
process) the samples live in this process's memory. The variable must be set before
``prometheus_client`` is first imported, which is why it is set in the master.

What is counted, and where:
- requests: by route (the URL pattern, never the raw path), method and status, with a
  latency histogram by route and method; ``record_request`` is called by
  ``apps.health.middleware.MetricsMiddleware`` and by the ASGI fast path for the requests
  it answers itself;
- upstream calls (each attempt, and calls refused by an open breaker) by provider,
  endpoint and outcome, with latency: ``marketdata.http``;
- data-cache outcomes (hit, miss, stale, error) by provider and endpoint group:
  ``marketdata.cache``;
- rate-limit refusals by limit: the metrics middleware (a 429 that never got past the
  rate-limit middleware);
- event-loop lag (how late the loop runs a timer due every few milliseconds):
  ``marketdata.loop_lag``, started by the worker (``config.workers``);
- dependency outages (Redis): calls that failed and fell back, outages started, and
  whether one is in progress: ``marketdata.outages``;
- sampled every few seconds in each process and at every scrape: circuit-breaker states
  (how many live processes have each breaker in each state), open quote streams and
  pollers (summed over live processes). Samplers are registered by the apps that know
  these numbers (``register_sampler``), so this module depends on nothing above it.

Recording never raises: a metrics failure is logged once and the request goes on.
"""

from __future__ import annotations

import hmac
import os
import threading
import time
from collections.abc import Callable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess
from prometheus_client import values as _values

from marketdata.logs import get_logger

log = get_logger("marketdata.metrics")

def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


_MULTIPROCESS_DIR = multiprocess_dir()
_pid = os.getpid()


def _after_fork_in_child() -> None:
    global _pid
    _pid = os.getpid()


def _process_id() -> int:
    """This process's id, as of its start or its fork (prometheus_client asked the system
    at every increment, three to four system calls per request)."""
    return _pid


if _MULTIPROCESS_DIR is not None:
    # Every metric below opens its file there at once: a missing directory (a variable
    # set by hand, a var/ cleaned under a running server) must not stop the process.
    os.makedirs(_MULTIPROCESS_DIR, exist_ok=True)
    os.register_at_fork(after_in_child=_after_fork_in_child)
    # Before the first metric is made (each file is its process's: two value classes in
    # one process would write one file twice).
    _values.ValueClass = _values.MultiProcessValue(process_identifier=_process_id)

CONTENT_TYPE = CONTENT_TYPE_LATEST
SAMPLE_SECONDS = 5.0
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# Cache hits answer in well under a millisecond, misses wait on an upstream for seconds.
_REQUEST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                    10.0, 30.0)
_UPSTREAM_BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUESTS = Counter("marketdata_http_requests", "HTTP requests answered, by route (URL "
                   "pattern), method and status", ["route", "method", "status"])
REQUEST_SECONDS = Histogram("marketdata_http_request_duration_seconds",
                            "Time to answer an HTTP request, by route and method",
                            ["route", "method"], buckets=_REQUEST_BUCKETS)
UPSTREAM_CALLS = Counter("marketdata_upstream_requests", "Upstream calls: each attempt by "
                         "outcome (ok, client_error, server_error, timeout, unreachable), "
                         "and calls an open circuit breaker refused (circuit_open)",
                         ["provider", "endpoint", "outcome"])
UPSTREAM_SECONDS = Histogram("marketdata_upstream_request_duration_seconds",
                             "Duration of one upstream attempt", ["provider", "endpoint"],
                             buckets=_UPSTREAM_BUCKETS)
CACHE_LOOKUPS = Counter("marketdata_cache_lookups", "Data-cache outcomes (hit, miss, stale, "
                        "error) by provider and endpoint group", ["provider", "group", "outcome"])
RATE_LIMITED = Counter("marketdata_rate_limited", "Requests refused with 429 by the "
                       "service's own rate limits (v1_daily, v1_health, v2_bucket)", ["limit"])
BREAKERS = Gauge("marketdata_circuit_breakers", "Live worker processes whose circuit breaker "
                 "for (provider, endpoint) is in this state (closed, open, half_open); each "
                 "process keeps its own breakers", ["provider", "endpoint", "state"],
                 multiprocess_mode="livesum")
PARKED = Counter("marketdata_requests_parked", "Times a request was parked on the event loop "
                 "(no thread held) because an upstream lane held its share of the threads; "
                 "lane is the upstream endpoint, empty for the provider's whole lane",
                 ["provider", "lane"])
LANES = Gauge("marketdata_upstream_lane_threads", "Threads in an upstream lane (calls in "
              "flight and waiting: occupants), calls in flight, and parked requests, per "
              "(provider, lane), summed over live processes", ["provider", "lane", "kind"],
              multiprocess_mode="livesum")
STREAMS = Gauge("marketdata_stream_connections", "Open quote streams (SSE)",
                multiprocess_mode="livesum")
POLLERS = Gauge("marketdata_stream_pollers", "Active quote-stream pollers (one per symbol "
                "and process)", multiprocess_mode="livesum")
STREAM_SUBSCRIPTIONS = Gauge("marketdata_stream_subscriptions", "Symbol subscriptions of "
                             "open quote streams", multiprocess_mode="livesum")
GRAPHQL_FIELDS = Counter("marketdata_graphql_fields", "Served fields of GraphQL queries "
                         "answered (one per REST request a field may make), by field "
                         "(``ticker.chart``, ``search``) and operation type",
                         ["field", "operation"])
DEPENDENCY_FALLBACKS = Counter("marketdata_dependency_fallbacks", "Calls to a dependency "
                               "(redis: cache, response cache, rate-limit counters, stream "
                               "locks and layer) that failed and fell back: the request went "
                               "on without it (marketdata.outages)", ["dependency"])
DEPENDENCY_OUTAGES = Counter("marketdata_dependency_outages", "Outages of a dependency seen "
                             "by a process (each starts at its first failed call and ends at "
                             "a call that works after the failures stopped)", ["dependency"])
DEPENDENCY_DOWN = Gauge("marketdata_dependency_down", "1 while an outage of the dependency "
                        "is in progress in at least one live process, else 0",
                        ["dependency"], multiprocess_mode="livemax")
# A timer of the event loop due every LOOP_LAG_INTERVAL_SECONDS (marketdata.loop_lag): an
# idle loop wakes within its millisecond resolution, a stall shows as a lag as long as itself.
_LOOP_LAG_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0,
                     5.0)
LOOP_LAG = Histogram("marketdata_event_loop_lag_seconds", "How late the worker's event loop "
                     "ran a timer due every LOOP_LAG_INTERVAL_SECONDS: the time a request "
                     "answered on the loop (cache hits, pings, streams) waited behind other "
                     "work", buckets=_LOOP_LAG_BUCKETS)
STREAM_LEADING = Gauge("marketdata_stream_leading_symbols", "Symbols whose upstream polling "
                       "this instance leads (one leader per symbol across a fleet)",
                       multiprocess_mode="livesum")


_failed_once = False


def _report_failure() -> None:
    """Log the exception being handled, the first time one is (per process)."""
    global _failed_once
    if not _failed_once:
        _failed_once = True
        log.error("metrics recording failed (logged once per process)", exc_info=True)


def _guard(record: Callable[[], None]) -> None:
    """Run one recording; a failure is logged the first time and never raised."""
    try:
        record()
    except Exception:  # noqa: BLE001 - metrics must never fail a request (logged once)
        _report_failure()


def record_request(method: str, route: str, status: int, seconds: float) -> None:
    """One answered HTTP request. ``route`` is the URL pattern (``v2/quote/<str:symbol>``),
    never the raw path, so the number of series stays bounded."""
    method = method if method in _METHODS else "other"

    def record() -> None:
        REQUESTS.labels(route, method, str(status)).inc()
        REQUEST_SECONDS.labels(route, method).observe(seconds)

    _guard(record)


def observe_loop_lag(seconds: float) -> None:
    """One tick of the loop-lag monitor: how late the loop ran it."""
    _guard(lambda: LOOP_LAG.observe(seconds))


class RequestRecorder:
    """:func:`record_request` for a caller that records the same few series again and
    again (the fast path: a route, GET, 200): the labelled series of each (route, method,
    status) are kept, so a request costs its increments only, not prometheus_client's
    label lookup (a lock, a tuple and a dict per series). At most ``SERIES`` kept."""

    SERIES = 1024

    def __init__(self) -> None:
        self._series: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}

    def __call__(self, method: str, route: str, status: int, seconds: float) -> None:
        series = self._series.get((route, method, status))
        try:
            if series is None:
                label = method if method in _METHODS else "other"
                series = (REQUESTS.labels(route, label, str(status)),
                          REQUEST_SECONDS.labels(route, label))
                if len(self._series) >= self.SERIES:
                    self._series.clear()
                self._series[(route, method, status)] = series
            series[0].inc()
            series[1].observe(seconds)
        except Exception:  # noqa: BLE001 - as _guard: logged once, never raised
            _report_failure()


def record_graphql(operation: str, served: dict[str, int] | None) -> None:
    """One answered GraphQL query's served fields (the schema's, a bounded set: never the
    client's operation name)."""
    def record() -> None:
        for name, count in (served or {}).items():
            GRAPHQL_FIELDS.labels(name, operation).inc(count)

    _guard(record)


def record_upstream(provider: str, endpoint: str, outcome: str,
                    seconds: float | None = None) -> None:
    """One upstream attempt (with its duration) or one refused call (``seconds`` None)."""
    def record() -> None:
        UPSTREAM_CALLS.labels(provider, endpoint, outcome).inc()
        if seconds is not None:
            UPSTREAM_SECONDS.labels(provider, endpoint).observe(seconds)

    _guard(record)


def record_cache(provider: str, group: str, outcome: str) -> None:
    _guard(lambda: CACHE_LOOKUPS.labels(provider, group, outcome).inc())


def record_rate_limited(limit: str) -> None:
    _guard(lambda: RATE_LIMITED.labels(limit).inc())


def record_parked(provider: str, lane: str) -> None:
    _guard(lambda: PARKED.labels(provider, lane).inc())


def record_dependency_fallback(dependency: str) -> None:
    _guard(lambda: DEPENDENCY_FALLBACKS.labels(dependency).inc())


def record_dependency_outage(dependency: str) -> None:
    _guard(lambda: DEPENDENCY_OUTAGES.labels(dependency).inc())


def set_dependency_down(dependency: str, down: bool) -> None:
    _guard(lambda: DEPENDENCY_DOWN.labels(dependency).set(1 if down else 0))


# -- sampled gauges ---------------------------------------------------------------------------
_samplers: list[Callable[[], None]] = []
_sampler_lock = threading.Lock()
_sampler_thread: threading.Thread | None = None
_sampler_pid = 0


def register_sampler(sampler: Callable[[], None]) -> None:
    """Add a function that sets gauges from this process's state (called every
    ``SAMPLE_SECONDS`` and before each scrape); registering twice is a no-op."""
    with _sampler_lock:
        if sampler not in _samplers:
            _samplers.append(sampler)


def sample_now() -> None:
    for sampler in list(_samplers):
        _guard(sampler)


def _sample_forever() -> None:
    while True:
        time.sleep(SAMPLE_SECONDS)
        sample_now()


def start_sampling() -> None:
    """Start this process's sampler thread once (again in a forked child, whose parent's
    thread did not survive the fork)."""
    global _sampler_thread, _sampler_pid
    with _sampler_lock:
        if _sampler_thread is not None and _sampler_pid == os.getpid():
            return
        _sampler_pid = os.getpid()
        _sampler_thread = threading.Thread(target=_sample_forever, name="metrics-sampler",
                                           daemon=True)
        _sampler_thread.start()


def set_breaker_states(states: list[tuple[str, str, str]]) -> None:
    """This process's breakers as (provider, endpoint, state): one series per state, 1 for
    the breaker's state and 0 for the others, so a scrape sums the processes per state."""
    for provider, endpoint, current in states:
        for state in ("closed", "open", "half_open"):
            BREAKERS.labels(provider, endpoint, state).set(1 if state == current else 0)


def set_lane_states(states: list[tuple[str, str, int, int, int]]) -> None:
    """This process's lanes as (provider, lane, occupants, in flight, parked)."""
    for provider, lane, occupants, in_flight, parked in states:
        LANES.labels(provider, lane, "occupants").set(occupants)
        LANES.labels(provider, lane, "in_flight").set(in_flight)
        LANES.labels(provider, lane, "parked").set(parked)


# -- exposition -------------------------------------------------------------------------------
def render() -> bytes:
    """The text exposition of every process's metrics (this process's after a fresh
    sample)."""
    sample_now()
    path = multiprocess_dir()
    if path is None:
        return generate_latest(REGISTRY)
    registry = CollectorRegistry()
    _multiprocess.MultiProcessCollector(registry, path=path)
    return generate_latest(registry)


def token_matches(expected: str, authorization: str) -> bool:
    """``Authorization: Bearer <METRICS_TOKEN>``, compared in constant time."""
    scheme, _, given = authorization.partition(" ")
    if scheme.lower() != "bearer" or not given:
        return False
    return hmac.compare_digest(given.strip().encode("utf-8", "surrogateescape"),
                               expected.encode("utf-8", "surrogateescape"))
