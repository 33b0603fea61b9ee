"""The 28 service checks of /v1/health and the report built from them.

Each check calls the service function an endpoint would call (through the data cache, so a
check can be answered from the cache like any request), with the reference's arguments. A
check succeeds when it returns a non-empty answer; an exception, an empty answer or a
missed deadline is a failure with a short reason. Checks never raise.

The checks run on a dedicated bounded pool (``DeadlinePool``), not on the shared upstream
pool: several checks fan out on the shared pool themselves (indices, sectors, quotes), and a
check waiting on tasks queued behind it on the same pool could deadlock. The batch ends at
one deadline (``HEALTH_CHECK_TIMEOUT_SECONDS`` after it starts), so the endpoint answers in
bounded time even when every upstream hangs (an upstream call alone may take its 10 s read
timeout times its retries).
"""

from __future__ import annotations

import re
import time
import typing
import uuid
from collections.abc import Callable, Mapping, Sized
from dataclasses import dataclass, make_dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any, Literal, TypeAlias

from django.conf import settings
from django.core.cache import cache as django_cache

from apps.analysis.services import analysis_data
from apps.financials.services import financial_statement
from apps.historical.services import historical_prices
from apps.holders.services import holders_data
from apps.indicators.services import latest_indicators
from apps.indices.services import market_indices
from apps.movers.services import market_movers
from apps.news.services import market_news, news_for_symbol
from apps.quotes.services import full_quotes, simple_quotes
from apps.search.services import search_securities
from apps.sectors.services import all_sectors, details_for, sector_for_symbol
from apps.similar.services import similar_quotes
from apps.stream.hub import stream_stats
from apps.transcripts.services import earnings_transcript
from marketdata import cache as md_cache
from marketdata import lanes, outages
from marketdata.capabilities.fundamentals import earnings_calls
from marketdata.concurrency import BatchTimeout, DeadlinePool
from marketdata.errors import MarketDataError, UpstreamError
from marketdata.http import get_client
from marketdata.logs import get_logger
from marketdata.markets import market_status
from marketdata.records.members import DATE_TIME, DOUBLE, from_members, member

log = get_logger("apps.health")

SUCCEEDED = "succeeded"
FAILED = "failed"
HEALTHY = "healthy"
DEGRADED = "degraded"
UNHEALTHY = "unhealthy"

_MAX_REASON = 300
# One health request's 28 checks run at once; a request that finds the pool still busy with
# an earlier request's abandoned checks queues, and its queued checks are cancelled at its
# deadline (reported as never started).
_POOL = DeadlinePool(max_workers=32, thread_name_prefix="health")

_QUOTE_SYMBOLS = ["NVDA", "QQQ", "GTLOX"]


@dataclass(frozen=True)
class Check:
    name: str
    call: Callable[[], Any]
    # False for a check computed locally (Market Hours): its success says nothing about
    # whether the service can serve data.
    upstream: bool = True


# In the spec's order, with the reference's arguments. The lambdas look the service
# functions up when called, so a test can replace one in this module.
CHECKS: tuple[Check, ...] = (
    Check("Indices", lambda: market_indices()),
    Check("Market Actives", lambda: market_movers("actives", 50)),
    Check("Market Losers", lambda: market_movers("losers", 50)),
    Check("Market Gainers", lambda: market_movers("gainers", 50)),
    Check("Market Sectors", lambda: all_sectors()),
    Check("Sector for a symbol", lambda: sector_for_symbol("NVDA")),
    Check("Detailed Sector", lambda: details_for("Technology")),
    Check("General News", lambda: market_news()),
    Check("News for equity", lambda: news_for_symbol("NVDA")),
    Check("News for ETF", lambda: news_for_symbol("QQQ")),
    Check("Full Quotes", lambda: full_quotes(list(_QUOTE_SYMBOLS))),
    Check("Simple Quotes", lambda: simple_quotes(list(_QUOTE_SYMBOLS))),
    Check("Similar Equities", lambda: similar_quotes("NVDA", 10)),
    Check("Similar ETFs", lambda: similar_quotes("QQQ", 10)),
    Check("Historical day prices", lambda: historical_prices("NVDA", "1d", "1m")),
    # "month" is year-to-date, as in the reference.
    Check("Historical month prices", lambda: historical_prices("NVDA", "ytd", "1d")),
    Check("Historical year prices", lambda: historical_prices("NVDA", "1y", "1d")),
    Check("Historical five year prices", lambda: historical_prices("NVDA", "5y", "1mo")),
    Check("Search", lambda: search_securities("NVDA", 10)[0]),
    Check("Technical Indicators", lambda: latest_indicators("NVDA", "1d")),
    Check("Market Hours", lambda: market_status(), upstream=False),
    Check("Annual Income Statement", lambda: financial_statement("NVDA", "income", "annual")),
    Check("Quarterly Balance Sheet",
          lambda: financial_statement("NVDA", "balance", "quarterly")),
    Check("Institutional Holders", lambda: holders_data("NVDA", "institutional")),
    Check("Analyst Recommendations", lambda: analysis_data("NVDA", "recommendations")),
    Check("Price Targets", lambda: analysis_data("NVDA", "price_targets")),
    Check("Earnings Calls List", lambda: earnings_calls("AAPL")),
    Check("Earnings Transcript", lambda: earnings_transcript("AAPL")),
)


@dataclass(frozen=True)
class HealthCheck:
    """The outcome of one check: its member of the report's ``services``."""

    check: Check  # which check (not a member: the report names it)
    status: str = member("succeeded | failed")
    duration_ms: float = member(name="duration_ms", schema=DOUBLE)
    error: str | None = member(
        "Failed checks only: a short reason naming the error class ('UpstreamTimeout: ... "
        "(yahoo)', 'timed out after 8.0 s', 'empty answer')", optional=True, default=None)

    @classmethod
    def of(cls, check: Check, duration_ms: float, error: str | None = None) -> HealthCheck:
        return cls(check, SUCCEEDED if error is None else FAILED, duration_ms, error)

    @property
    def ok(self) -> bool:
        return self.error is None


@cache
def services_record(checks: tuple[Check, ...]) -> type:
    """The report's ``services``: the count, then one member per check, named as the check
    (names with spaces: ``Market Actives``); made from the checks, as they are."""
    return make_dataclass("HealthServices", [
        ("status", str, member("'<n>/28 succeeded'")),
        *((re.sub(r"\W+", "_", check.name.lower()), HealthCheck, member(name=check.name))
          for check in checks)], frozen=True)


if typing.TYPE_CHECKING:
    HealthServices: TypeAlias = Any
else:
    HealthServices = services_record(CHECKS)


@dataclass(frozen=True)
class CacheStatus:
    status: str = member("healthy | unhealthy")
    latency_ms: float = member("Write, read and delete of a probe key", name="latency_ms",
                               schema=DOUBLE)


@dataclass(frozen=True)
class CircuitStatus:
    provider: str = member("Upstream provider (yahoo, algolia)")
    endpoint: str = member("Upstream endpoint the breaker guards (chart, sector, "
                           "quoteSummary, search, ...)")
    state: Literal["closed", "open", "half_open"] = member(
        "closed: calls go through; open: calls are refused at once (503) after consecutive "
        "failures, until `retry_in_seconds` runs out; half_open: the wait is over and the "
        "next call is a trial whose outcome closes or re-opens the breaker")
    consecutive_failures: int = member("Failed calls in a row (0 after a success)",
                                       name="consecutive_failures")
    retry_in_seconds: float | None = member(
        "Open only: seconds until a trial call is let through; null otherwise",
        name="retry_in_seconds", schema=DOUBLE)


@dataclass(frozen=True)
class StreamStatus:
    """The stream's counters (:func:`apps.stream.hub.stream_stats`): the documented ones,
    its others passed through where they come."""

    connections: int = member("Open quote streams")
    pollers: int = member("Active symbols, one poller each")
    leading: int = member("Pollers this process leads (the others' quotes come from another "
                          "process)")
    subscriptions: int = member("Symbol subscriptions of open streams")
    extras: Mapping[str, Any] = member(extras=True)
    interval_seconds: float = member(name="interval_seconds", schema=DOUBLE)
    pid: int = member("The process that answered (counts are its own)")


@dataclass(frozen=True)
class HealthStatus:
    """The /v1/health report."""

    status: str = member("healthy | degraded | unhealthy")
    timestamp: str = member(schema=DATE_TIME)
    upstream: str = member("live | sandbox")
    cache: CacheStatus = member()
    services: HealthServices = member()
    cache_stats: dict[str, Any] = member(
        "{provider: {group: {hit, miss, stale, error}}} counters ({} when the cache does not "
        "answer)", name="cache_stats")
    circuits: list[CircuitStatus] = member(
        "The circuit breakers of the process that answered (each worker process has its "
        "own), one per provider and upstream endpoint it has called, by provider and "
        "endpoint; [] before its first upstream call. Informational: `status` follows the "
        "checks")
    stream: StreamStatus = member("The quote stream in the process that answered")


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, Sized) and len(value) == 0)


def failure_reason(exc: BaseException) -> str:
    """A short human reason naming the exception class. Only the service's own errors show
    their message; anything else is an unexpected error whose text stays in the logs."""
    if isinstance(exc, BatchTimeout):
        reason = str(exc)
    elif isinstance(exc, UpstreamError):
        reason = f"{type(exc).__name__}: {exc.detail} ({exc.provider})"
    elif isinstance(exc, MarketDataError):
        reason = f"{type(exc).__name__}: {exc.detail}"
    else:
        reason = f"{type(exc).__name__}: unexpected error (logged)"
    return reason if len(reason) <= _MAX_REASON else reason[:_MAX_REASON - 3] + "..."


def _run_one(check: Check) -> HealthCheck:
    """One check in the pool (in a copy of the request's context). Its own cache report,
    so the checks' cache statuses and partial answers do not mark the health response."""
    _, token = md_cache.start_report()
    started = time.perf_counter()
    try:
        # A check reports a full lane as busy; it never parks the health request.
        with lanes.parking(False):
            value = check.call()
    except BaseException as exc:  # a check never fails the endpoint (logged below)
        result = HealthCheck.of(check, _ms(started), failure_reason(exc))
        if isinstance(exc, MarketDataError):
            log.warning("health check failed", check=check.name, reason=result.error,
                        duration_ms=result.duration_ms)
        else:
            log.error("health check raised an unexpected error", check=check.name,
                      reason=result.error, duration_ms=result.duration_ms, exc_info=exc)
        return result
    finally:
        md_cache.end_report(token)
    if _empty(value):
        log.warning("health check failed", check=check.name, reason="empty answer")
        return HealthCheck.of(check, _ms(started), "empty answer")
    return HealthCheck.of(check, _ms(started))


def cache_round_trip() -> CacheStatus:
    """Write, read and delete a probe key: a real round trip to the cache backend."""
    key = f"md:health:{uuid.uuid4().hex}"
    started = time.perf_counter()
    try:
        django_cache.set(key, "ok", timeout=10)
        ok = django_cache.get(key) == "ok"
        django_cache.delete(key)
    except Exception as exc:  # noqa: BLE001 - reported, and logged once per outage
        outages.failed(exc, "health cache probe")
        ok = False
    else:
        if ok:
            outages.succeeded("health cache probe")
    latency = round((time.perf_counter() - started) * 1000, 2)
    return CacheStatus(HEALTHY if ok else UNHEALTHY, latency)


def circuit_states() -> list[CircuitStatus]:
    """The answering process's circuit breakers (one per provider and upstream endpoint
    used so far). Reads the breakers only: no upstream call,
    and never raises (``[]`` when they cannot be read; logged)."""
    try:
        return [CircuitStatus(state.provider, state.endpoint, state.state,
                              state.consecutive_failures, state.retry_in_seconds)
                for state in get_client().breaker_states()]
    except Exception:  # reported as no breakers (and logged), never a failed health answer
        log.warning("health could not read the circuit breakers", exc_info=True)
        return []


def overall_status(cache_ok: bool, results: list[HealthCheck]) -> str:
    """``healthy``: the cache answers and every check succeeded; ``unhealthy``: no check
    that needs an upstream succeeded (the service cannot serve data; Market Hours is
    computed locally and does not count); otherwise ``degraded`` (some checks failed, or
    the cache is unreachable: requests still work without it)."""
    if cache_ok and all(r.ok for r in results):
        return HEALTHY
    if not any(r.ok for r in results if r.check.upstream):
        return UNHEALTHY
    return DEGRADED


def health_report(checks: tuple[Check, ...] | None = None, timeout: float | None = None,
                  cache_probe: Callable[[], CacheStatus] = cache_round_trip
                  ) -> HealthStatus:
    """The /v1/health report. The cache probe (milliseconds when the cache answers, a couple
    of socket timeouts when it does not), then the checks on the health pool; the deadline
    (``timeout``, default ``HEALTH_CHECK_TIMEOUT_SECONDS``) counts from the start, so the
    whole report takes about ``timeout`` seconds at most."""
    checks = CHECKS if checks is None else checks
    timeout = float(settings.HEALTH_CHECK_TIMEOUT_SECONDS if timeout is None else timeout)
    deadline = time.monotonic() + timeout
    started = time.perf_counter()
    cache_status = cache_probe()
    batch = _POOL.start([lambda c=c: _run_one(c) for c in checks], timeout, deadline)
    results: list[HealthCheck] = []
    for check, outcome in zip(checks, batch.results(), strict=True):
        if isinstance(outcome, HealthCheck):
            results.append(outcome)
            continue
        # A missed deadline (or, defensively, an error outside the check's own guard).
        result = HealthCheck.of(check, _ms(started), failure_reason(outcome))
        log.warning("health check failed", check=check.name, reason=result.error,
                    duration_ms=result.duration_ms)
        results.append(result)
    cache_ok = cache_status.status == HEALTHY
    succeeded = sum(r.ok for r in results)
    return HealthStatus(
        overall_status(cache_ok, results), datetime.now(UTC).isoformat(),
        settings.MARKETDATA_UPSTREAM, cache_status,
        services_record(checks)(f"{succeeded}/{len(results)} succeeded", *results),
        # The counters live in the cache backend: not read when it does not answer.
        md_cache.stats.snapshot() if cache_ok else {},
        # Read after the checks, so it includes what they just did. Per process; does not
        # change ``status`` (the checks already report the calls a breaker refused).
        circuit_states(),
        from_members(StreamStatus, stream_stats()))
