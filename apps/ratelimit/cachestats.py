"""The cache statistics read model behind the admin page.

Two parts:
- the hit/miss/stale/error counts :mod:`marketdata.cache` keeps per provider and endpoint
  group (``stats.snapshot()``, which flushes this process's pending counts first), as rows
  with provider totals and a grand total;
- facts about the default cache backend: for django-redis the key counts and the server's
  ``INFO`` (memory, eviction policy, version, keyspace hits/misses); for the local-memory
  cache the number of entries of this process;
- the circuit breakers of this process (``breaker_rows()``): one per provider and upstream
  endpoint called so far, kept in memory by each process's upstream client;
- the upstream lanes of this process (``lane_rows()``): the threads each provider and
  endpoint holds, its calls in flight and the requests parked on it.

Reading never raises: a failing backend (Redis down, ``INFO`` disabled by the host) is
reported in ``error`` and shown on the page.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import caches

from apps.ratelimit.counters import is_redis
from marketdata.cache import stats
from marketdata.http import BreakerState, get_client
from marketdata.lanes import LaneState

# A full SCAN of a large shared Redis costs one round trip per SCAN_COUNT keys; stop after
# this many keys examined and report a lower bound instead.
SCAN_LIMIT = 100_000
SCAN_COUNT = 1_000
DASH = "\u2014"


@dataclass(frozen=True)
class StatRow:
    """Counts of one provider and endpoint group (``group`` is empty on a totals row)."""

    provider: str
    group: str
    hits: int = 0
    misses: int = 0
    stale: int = 0
    errors: int = 0

    @property
    def served(self) -> int:
        """Answers served from or through the cache (errors excluded: nothing was served)."""
        return self.hits + self.misses + self.stale

    @property
    def hit_ratio(self) -> float | None:
        """hits / (hits + misses + stale), None when nothing was served."""
        return self.hits / self.served if self.served else None

    @property
    def hit_ratio_display(self) -> str:
        ratio = self.hit_ratio
        return DASH if ratio is None else f"{ratio * 100:.1f}%"


def total_of(rows: list[StatRow], provider: str = "") -> StatRow:
    """A totals row (empty group) summing ``rows``."""
    return StatRow(provider, "", sum(r.hits for r in rows), sum(r.misses for r in rows),
                   sum(r.stale for r in rows), sum(r.errors for r in rows))


@dataclass(frozen=True)
class ProviderStats:
    provider: str
    rows: list[StatRow]
    total: StatRow


@dataclass(frozen=True)
class BackendFacts:
    """What the admin page says about the default cache backend."""

    backend: str  # dotted class path
    kind: str  # "redis" | "locmem" | "other"
    facts: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class CacheStatistics:
    providers: list[ProviderStats]
    total: StatRow
    backend: BackendFacts
    error: str | None = None


def describe(exc: BaseException) -> str:
    """An exception as shown on the page: its class and message."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def stat_rows(snapshot: dict[str, dict[str, dict[str, int]]]) -> list[ProviderStats]:
    """Rows per provider (sorted by provider, then group) with each provider's total."""
    providers = []
    for provider in sorted(snapshot):
        rows = [StatRow(provider, group, hits=int(counts.get("hit", 0)),
                        misses=int(counts.get("miss", 0)), stale=int(counts.get("stale", 0)),
                        errors=int(counts.get("error", 0)))
                for group, counts in sorted(snapshot[provider].items())]
        providers.append(ProviderStats(provider, rows, total_of(rows, provider)))
    return providers


def read_statistics(alias: str = "default") -> CacheStatistics:
    """The counts (all processes sharing the cache) and the backend facts, never raising."""
    error = None
    try:
        snapshot = stats.snapshot()
    except Exception as exc:  # noqa: BLE001 - shown on the page
        snapshot, error = {}, describe(exc)
    providers = stat_rows(snapshot)
    return CacheStatistics(providers, total_of([p.total for p in providers]),
                           backend_facts(alias), error)


# -- circuit breakers ----------------------------------------------------------------------
@dataclass(frozen=True)
class BreakerRows:
    rows: list[BreakerState]
    error: str | None = None
    pid: int = field(default_factory=os.getpid)  # the process whose breakers these are


def breaker_rows() -> BreakerRows:
    """This process's breakers by provider and endpoint (no upstream call), never raising."""
    try:
        states = get_client().breaker_states()
    except Exception as exc:  # noqa: BLE001 - shown on the page
        return BreakerRows([], describe(exc))
    return BreakerRows(states)


# -- upstream lanes ------------------------------------------------------------------------
@dataclass(frozen=True)
class LaneRows:
    rows: list[LaneState]
    error: str | None = None
    pid: int = field(default_factory=os.getpid)


def lane_rows() -> LaneRows:
    """This process's upstream lanes (threads held per provider and endpoint, calls in
    flight, parked requests), never raising."""
    try:
        states = get_client().lane_states()
    except Exception as exc:  # noqa: BLE001 - shown on the page
        return LaneRows([], describe(exc))
    return LaneRows(states)


# -- backend facts --------------------------------------------------------------------------
def _class_path(obj: Any) -> str:
    kind = type(obj)
    return f"{kind.__module__}.{kind.__qualname__}"


def _is_locmem(cache: Any) -> bool:
    from django.core.cache.backends.locmem import LocMemCache

    return isinstance(cache, LocMemCache)


def is_per_process(alias: str = "default") -> bool:
    """Whether the cache (so the counters and statistics) is local to each process."""
    return _is_locmem(caches[alias])


def backend_facts(alias: str = "default") -> BackendFacts:
    try:
        cache = caches[alias]
    except Exception as exc:  # noqa: BLE001 - shown on the page
        return BackendFacts("?", "other", error=describe(exc))
    backend = _class_path(cache)
    if is_redis(cache):
        try:
            from django_redis import get_redis_connection

            connection = get_redis_connection(alias)
            facts = redis_facts(connection, deployment_pattern(cache))
        except Exception as exc:  # noqa: BLE001 - any Redis failure is shown, never a 500
            return BackendFacts(backend, "redis", error=describe(exc))
        return BackendFacts(backend, "redis", facts, notes=[
            "Shared by every process and host using this Redis: the rate-limit counters "
            "and cache statistics on these pages are those of the whole deployment."])
    if _is_locmem(cache):
        return BackendFacts(backend, "locmem", locmem_facts(cache), notes=[
            "Local memory is per process: every worker process has its own cache, rate-limit "
            "counters and statistics, and these pages show those of the process that served "
            "them. Set REDIS_URL to share them across processes and hosts."])
    return BackendFacts(backend, "other")


def locmem_facts(cache: Any) -> list[tuple[str, str]]:
    facts = []
    entries = getattr(cache, "_cache", None)
    if entries is not None:
        facts.append(("Entries (this process)", f"{len(entries):,}"))
    max_entries = getattr(cache, "_max_entries", None)
    if max_entries is not None:
        facts.append(("Maximum entries", f"{max_entries:,}"))
    usage = getattr(cache, "usage", None)  # marketdata.locmem: bounded in bytes too
    if callable(usage):
        counts = usage()
        facts.append(("Bytes (this process)", f"{counts['bytes']:,} of {counts['max_bytes']:,}"))
        facts.append(("Evicted to stay under the bytes", f"{counts['evictions']:,}"))
        facts.append(("Not kept (an entry over the largest size)", f"{counts['refused']:,}"))
    return facts


_GLOB_SPECIAL = re.compile(r"([*?[\]\\])")


def deployment_pattern(cache: Any) -> str:
    """A SCAN pattern matching this deployment's keys: the cache's key prefix and version
    (``make_key('*')``), with glob characters of the prefix escaped."""
    full = cache.make_key("*")
    head = str(full)[:-1]
    return _GLOB_SPECIAL.sub(r"\\\1", head) + "*"


def count_keys(connection: Any, pattern: str, limit: int = SCAN_LIMIT,
               count: int = SCAN_COUNT) -> tuple[int, bool]:
    """(keys matching ``pattern``, whether the count is complete). SCAN stops once about
    ``limit`` keys have been examined; the count is then a lower bound."""
    cursor, matched, examined = 0, 0, 0
    while True:
        cursor, keys = connection.scan(cursor=cursor, match=pattern, count=count)
        matched += len(keys)
        examined += count
        if int(cursor) == 0:
            return matched, True
        if examined >= limit:
            return matched, False


def redis_facts(connection: Any, pattern: str) -> list[tuple[str, str]]:
    """Facts from one Redis connection: db size, this deployment's keys, INFO fields."""
    info = connection.info()
    kwargs = getattr(getattr(connection, "connection_pool", None), "connection_kwargs", {})
    facts: list[tuple[str, str]] = []
    if "db" in kwargs:
        facts.append(("Redis database", str(kwargs["db"])))
    facts.append(("Keys in the database (DBSIZE)", f"{int(connection.dbsize()):,}"))
    matched, complete = count_keys(connection, pattern)
    facts.append((f"Keys of this deployment ({pattern})",
                  f"{matched:,}" if complete else
                  f"at least {matched:,} (SCAN stopped after ~{SCAN_LIMIT:,} keys)"))
    for label, name in (("Used memory", "used_memory_human"),
                        ("Peak memory", "used_memory_peak_human"),
                        ("Max memory", "maxmemory_human"),
                        ("Eviction policy (maxmemory-policy)", "maxmemory_policy"),
                        ("Redis version", "redis_version")):
        if name in info:
            value = str(info[name])
            if name == "maxmemory_human" and str(info.get("maxmemory", "")) == "0":
                value = "no limit"
            facts.append((label, value))
    if "keyspace_hits" in info or "keyspace_misses" in info:
        hits = int(info.get("keyspace_hits", 0))
        misses = int(info.get("keyspace_misses", 0))
        ratio = f"{hits / (hits + misses) * 100:.1f}%" if hits + misses else DASH
        facts.append(("Keyspace hits / misses (server, since start)",
                      f"{hits:,} / {misses:,} (hit ratio {ratio})"))
    return facts
