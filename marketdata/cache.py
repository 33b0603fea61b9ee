"""Cache-through for provider calls, on Django's cache (local memory or Redis).

- Keys: ``md:<version>:<provider>:<call>:<sorted params>``; callers pass normalised values
  (upper-cased symbols), so ``aapl`` and ``AAPL`` share one entry.
- TTLs: a policy table keyed by call kind, market-hours aware (:mod:`marketdata.markets`):
  short while US markets trade, longer in pre/post hours, long when closed; a TTL never
  runs past the next phase change by more than the open-market TTL.
- Single-flight: concurrent misses for one key make one upstream call. Threads of a process
  queue on a lock of that key; processes sharing Redis elect one leader with ``cache.add`` (SET
  NX) and the others poll for the result, so a stampede costs one call per key.
- Stale-on-error: entries outlive their freshness by ``CACHE_MAX_STALE_SECONDS``; when the
  upstream fails and a stale copy exists it is served and the request is marked STALE.
  Failures are remembered for a moment (``:err``) so waiters don't all retry a dead upstream,
  and "not found" answers are cached like data (negative caching).
- Every outcome is counted per provider and endpoint group, and noted on the request's
  :class:`CacheReport`, from which the response gets ``X-Cache: HIT|MISS|STALE``.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache as django_cache

from marketdata import deadline, lanes, markets, metrics, outages
from marketdata.cache_report import (  # noqa: F401  re-exported for callers
    HIT,
    MISS,
    STALE,
    CacheReport,
    end_report,
    note_incomplete,
    start_report,
)
from marketdata.cache_report import note as _note
from marketdata.concurrency import LazyPool
from marketdata.errors import (
    DeadlineExceeded,
    MarketDataError,
    NotFound,
    UpstreamBusy,
    UpstreamError,
    error_from_dict,
    says_nothing_about_upstream,
)
from marketdata.http import get_client, single_attempt
from marketdata.logs import get_logger

log = get_logger("marketdata.cache")
T = TypeVar("T")

# Raised when what the entries hold changes shape, so a deploy never reads an older one's
# pickles as its own: "2" since the providers' dicts became records that describe
# themselves (issue 43: option chains, filings, quotes, search answers...). The data cache
# starts cold after such a deploy (and its statistics with it).
KEY_VERSION = "2"
_ERROR_HOLD_SECONDS = 2
_NEGATIVE_TTL_MAX = 300


@dataclass(frozen=True)
class TTLPolicy:
    """Freshness of one kind of upstream answer, by US market phase (seconds)."""

    name: str
    open: int
    extended: int
    closed: int
    market_aware: bool = True

    def ttl(self, now_phase: markets.MarketPhase | None = None) -> int:
        if not self.market_aware:
            seconds = self.open
        else:
            phase = now_phase or markets.market_phase()
            seconds = {markets.MarketPhase.OPEN: self.open, markets.MarketPhase.PRE: self.extended,
                       markets.MarketPhase.POST: self.extended}.get(phase, self.closed)
            if seconds > self.open:
                # Don't carry closed-market data deep into the next session.
                seconds = int(min(seconds, max(markets.seconds_until_phase_change(),
                                               self.open)))
        cap = getattr(settings, "CACHE_TTL_CAP_SECONDS", None)
        return max(1, min(seconds, cap) if cap else seconds)


# The policy table. Names are what providers pass as ``policy``.
POLICIES: dict[str, TTLPolicy] = {p.name: p for p in (
    TTLPolicy("quote", open=10, extended=30, closed=600),
    TTLPolicy("quote_summary", open=15, extended=60, closed=900),
    TTLPolicy("chart_intraday", open=30, extended=120, closed=1800),
    TTLPolicy("chart_daily", open=60, extended=300, closed=3600),
    TTLPolicy("chart_weekly", open=300, extended=900, closed=7200),
    TTLPolicy("movers", open=15, extended=60, closed=3600),
    TTLPolicy("indices", open=15, extended=60, closed=180),
    TTLPolicy("sectors", open=300, extended=900, closed=3600),
    TTLPolicy("similar", open=15, extended=60, closed=600),
    TTLPolicy("search", open=3600, extended=3600, closed=3600, market_aware=False),
    TTLPolicy("news", open=300, extended=300, closed=300, market_aware=False),
    TTLPolicy("general_news", open=900, extended=900, closed=900, market_aware=False),
    TTLPolicy("analysis", open=3600, extended=3600, closed=3600, market_aware=False),
    TTLPolicy("holders", open=3600, extended=3600, closed=3600, market_aware=False),
    TTLPolicy("earnings_calls", open=86400, extended=86400, closed=86400, market_aware=False),
    TTLPolicy("fundamentals", open=86400, extended=86400, closed=86400, market_aware=False),
    TTLPolicy("transcript", open=604800, extended=604800, closed=604800, market_aware=False),
)}


# -- statistics -----------------------------------------------------------------------------
class CacheStats:
    """Hit/miss/stale/error counters per provider and group.

    Counted in process memory and added to shared counters in the cache backend every few
    seconds, so a cache hit costs no extra round trip; ``snapshot`` flushes first.
    """

    FLUSH_SECONDS = 5.0
    PREFIX = f"md:{KEY_VERSION}:stats:"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: Counter[str] = Counter()
        self._last_flush = time.monotonic()

    def record(self, provider: str, group: str, outcome: str) -> None:
        metrics.record_cache(provider, group, outcome)
        with self._lock:
            self._pending[f"{provider}|{group}|{outcome}"] += 1
            due = time.monotonic() - self._last_flush >= self.FLUSH_SECONDS
        if due:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, Counter()
            self._last_flush = time.monotonic()
        for name, count in pending.items():
            key = self.PREFIX + name
            try:
                django_cache.add(key, 0, timeout=None)
                django_cache.incr(key, count)
            except Exception as exc:  # noqa: BLE001 - reported as an outage
                outages.failed(exc, "cache stats flush")
                return
        if pending:
            known = set(_safe_get(self.PREFIX + "_index") or ())
            if not set(pending) <= known:
                _safe_set(self.PREFIX + "_index", sorted(known | set(pending)), None)

    def snapshot(self) -> dict[str, dict[str, dict[str, int]]]:
        """{provider: {group: {outcome: count}}} across all processes sharing the cache."""
        self.flush()
        names = _safe_get(self.PREFIX + "_index") or []
        values = _safe_get_many([self.PREFIX + n for n in names])
        out: dict[str, dict[str, dict[str, int]]] = {}
        for name in names:
            provider, group, outcome = name.split("|")
            out.setdefault(provider, {}).setdefault(group, {})[outcome] = int(
                values.get(self.PREFIX + name) or 0)
        return out


stats = CacheStats()


# -- backend access that never fails a request ----------------------------------------------
# A failure is reported to the backend's outage tracker (marketdata.outages), which logs an
# outage once when it starts, a summary every 30 s and once when it ends: never a line
# (let alone a traceback) per failed call, which flooded the log when Redis went away.
def _safe_get(key: str) -> Any:
    try:
        value = django_cache.get(key)
    except Exception as exc:  # noqa: BLE001 - reported as an outage
        outages.failed(exc, "cache get")
        return None
    outages.succeeded("cache get")
    return value


def _safe_get_many(keys: list[str]) -> dict[str, Any]:
    try:
        values = django_cache.get_many(keys)
    except Exception as exc:  # noqa: BLE001 - reported as an outage
        outages.failed(exc, "cache get_many")
        return {}
    outages.succeeded("cache get_many")
    return values


def _safe_set(key: str, value: Any, timeout: float | None) -> None:
    try:
        django_cache.set(key, value, timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - reported as an outage
        outages.failed(exc, "cache set")
        return
    outages.succeeded("cache set")


def _safe_add(key: str, value: Any, timeout: float) -> bool:
    try:
        added = bool(django_cache.add(key, value, timeout=timeout))
    except Exception as exc:  # noqa: BLE001 - reported as an outage
        outages.failed(exc, "cache add")
        return True
    outages.succeeded("cache add")
    return added


def _safe_delete(key: str) -> None:
    try:
        django_cache.delete(key)
    except Exception as exc:  # noqa: BLE001 - reported as an outage
        outages.failed(exc, "cache delete")
        return
    outages.succeeded("cache delete")


# -- keys and entries -----------------------------------------------------------------------
def cache_key(provider: str, call: str, params: Mapping[str, Any] | None = None) -> str:
    """Deterministic key; long parameter strings are hashed to keep keys short."""
    params = params or {}
    parts = "&".join(f"{k}={params[k]}" for k in sorted(params))
    if len(parts) > 160:
        parts = hashlib.sha256(parts.encode()).hexdigest()
    return f"md:{KEY_VERSION}:{provider}:{call}:{parts}"


@dataclass
class _Entry:
    """What is stored: the value (or a remembered not-found error) and its freshness."""

    value: Any
    error: dict[str, Any] | None
    fresh_until: float
    stored_at: float

    @property
    def remaining(self) -> float:
        return self.fresh_until - time.time()

    @property
    def fresh(self) -> bool:
        return self.remaining > 0

    def result(self) -> Any:
        if self.error is not None:
            raise error_from_dict(self.error)
        return self.value

    def stale_copy(self) -> _Entry | None:
        """This entry marked stale (served when the upstream fails); None for an error."""
        return None if self.error is not None else _Entry(self.value, None, 0.0, self.stored_at)


def _stale_copies(entries: Mapping[str, _Entry]) -> dict[str, _Entry]:
    return {k: copy for k, e in entries.items() if (copy := e.stale_copy()) is not None}


def _account(provider: str, group: str, entry: _Entry, produced: bool) -> None:
    """Count one served entry and note it on the request's cache report."""
    if not entry.fresh and entry.error is None:
        stats.record(provider, group, "stale")
        _note(STALE, None)
    elif produced:
        stats.record(provider, group, "miss")
        _note(MISS, entry.remaining)
    else:
        stats.record(provider, group, "hit")
        _note(HIT, entry.remaining)


def _max_stale() -> int:
    return int(getattr(settings, "CACHE_MAX_STALE_SECONDS", 86400))


def _store(key: str, value: Any, ttl: int, error: MarketDataError | None = None) -> _Entry:
    now = time.time()
    entry = _Entry(value, error.to_dict() if error else None, now + ttl, now)
    # Remembered errors are not kept past freshness: there is nothing stale to serve.
    _safe_set(key, entry, ttl if error else ttl + _max_stale())
    log.debug("cache write", cache_key=key[-40:], ttl=ttl)
    return entry


class _KeyLocks:
    """A lock per key, alive while some thread uses it.

    Not striped: with a lock shared by many keys, a leader hanging on one upstream (for up
    to the deadline) held every other key of its stripe too, whatever its provider, so an
    unrelated cold request could wait its whole deadline behind it.
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}

    @contextlib.contextmanager
    def lock(self, key: str) -> Iterator[threading.Lock]:
        with self._guard:
            lock, users = self._locks.get(key) or (threading.Lock(), 0)
            self._locks[key] = (lock, users + 1)
        try:
            yield lock
        finally:
            with self._guard:
                lock, users = self._locks[key]
                if users == 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)


_key_locks = _KeyLocks()


def _lock_timeout() -> float:
    return float(getattr(settings, "CACHE_FLIGHT_TIMEOUT_SECONDS", 30))


_refresh_pool = LazyPool(max_workers=32, thread_name_prefix="refresh")


def _single_flight(provider: str, flight_key: str, check: Callable[[], T | None],
                   produce: Callable[[], T], stale: T | None = None) -> tuple[T, bool]:
    """Run ``produce`` once for all concurrent callers of ``flight_key``.

    Returns (result, produced_here). ``check`` returns the result when another caller has
    already produced it (or raises a remembered error), else None.

    Waiting is bounded by the request deadline. With a ``stale`` copy in hand it is also
    bounded by the request's stale budget (``STALE_GRACE_SECONDS`` from its first wait with
    a stale copy, shared by every call of the answer: :func:`marketdata.deadline.
    stale_wait_until`): the leader's upstream call then runs in the background with a
    single attempt (no retries), and the stale copy is returned as soon as that attempt
    fails or the budget runs out; a late answer still refreshes the cache.
    Without a deadline (work outside a request) a waiter that outlasts
    ``CACHE_FLIGHT_TIMEOUT_SECONDS`` calls the upstream itself, as before.

    A waiter holds a thread, so it occupies the provider's lane while it waits
    (:meth:`marketdata.http.UpstreamClient.waiting`): when the lane is full it gets the
    stale copy at once, else it is refused like a call (parked, or a 503).
    """
    started = time.monotonic()
    limit = deadline.current()
    if stale is not None:
        grace_end = deadline.stale_wait_until(started)
        limit = grace_end if limit is None else min(limit, grace_end)
    wait_until = limit if limit is not None else started + _lock_timeout()
    with _key_locks.lock(flight_key) as key_lock:
        return _single_flight_locked(provider, flight_key, key_lock, check, produce, stale,
                                     limit, wait_until)


def _single_flight_locked(provider: str, flight_key: str, key_lock: threading.Lock,
                          check: Callable[[], T | None], produce: Callable[[], T],
                          stale: T | None, limit: float | None,
                          wait_until: float) -> tuple[T, bool]:
    """:func:`_single_flight` with ``flight_key``'s lock in hand (not yet acquired)."""
    if not key_lock.acquire(blocking=False):
        try:
            with get_client().waiting(provider):
                acquired = key_lock.acquire(timeout=max(0.0, wait_until - time.monotonic()))
        except (lanes.LaneFull, UpstreamBusy):
            if stale is not None:
                return stale, False
            raise
        if not acquired:
            return _gave_up(provider, flight_key, stale, limit)
    waiting = contextlib.ExitStack()
    try:
        result = check()
        if result is not None:
            return result, False
        lock_key = f"{flight_key}:flight"
        token = uuid.uuid4().hex
        delay = 0.005
        counted = False  # whether this waiter occupies the provider's lane

        def release() -> None:
            if _safe_get(lock_key) == token:
                _safe_delete(lock_key)

        while True:
            if _safe_add(lock_key, token, _lock_timeout()):
                waiting.close()  # a leader waits for nobody: its call occupies the lanes
                handed_off = False  # the background call releases the lock itself
                try:
                    # A leader elsewhere may have stored and released just before our SET NX.
                    result = check()
                    if result is not None:
                        return result, False
                    if stale is None:
                        return produce(), True
                    handed_off = True
                    return _produce_within_grace(produce, release, stale, wait_until)
                finally:
                    if not handed_off:
                        release()
            # Another process leads: wait for its result instead of calling upstream too.
            if not counted:
                try:
                    waiting.enter_context(get_client().waiting(provider))
                except (lanes.LaneFull, UpstreamBusy):
                    if stale is not None:
                        return stale, False
                    raise
                counted = True
            time.sleep(min(delay, max(0.0, wait_until - time.monotonic())))
            delay = min(delay * 2, 0.05)
            result = check()
            if result is not None:
                return result, False
            if time.monotonic() >= wait_until:
                if stale is None and limit is None:
                    log.warning("single-flight wait timed out", cache_key=flight_key[-40:])
                    waiting.close()
                    return produce(), True
                return _gave_up(provider, flight_key, stale, limit)
    finally:
        waiting.close()
        key_lock.release()


def _produce_within_grace(produce: Callable[[], T], release: Callable[[], None], stale: T,
                          wait_until: float) -> tuple[T, bool]:
    """The leader's upstream call, one attempt, in the background; the stale copy when it
    has not answered by ``wait_until``."""

    def run() -> T:
        try:
            # Nobody waits for this call beyond the grace: a full lane is a plain refusal.
            with single_attempt(), lanes.parking(False):
                return produce()
        finally:
            release()

    future = _refresh_pool.submit(run)
    try:
        return future.result(timeout=max(0.0, wait_until - time.monotonic())), True
    except FutureTimeout:
        log.warning("serving stale while the upstream is slow",
                    grace_seconds=deadline.stale_grace_seconds())
        return stale, False


def _gave_up(provider: str, flight_key: str, stale: T | None,
             limit: float | None) -> tuple[T, bool]:
    """Out of time waiting for another caller's upstream call: the stale copy, else a
    deadline error (504)."""
    if stale is not None:
        return stale, False
    log.warning("single-flight wait ended at the request deadline", provider=provider,
                cache_key=flight_key[-40:])
    raise DeadlineExceeded(provider, f"{_provider_label(provider)} did not answer within the "
                           "request deadline")


def _provider_label(provider: str) -> str:
    """A provider's display name for messages (its name when unknown)."""
    return get_client().display_name(provider)


def _error_key(key: str) -> str:
    """Where the failure of ``key``'s upstream call is remembered."""
    return f"{key}:err"


def _remembered_error(key: str) -> dict[str, Any] | None:
    return _safe_get(_error_key(key))


def _remember_error(key: str, error: MarketDataError) -> None:
    _safe_set(_error_key(key), error.to_dict(), _ERROR_HOLD_SECONDS)


def _policy(policy: str | TTLPolicy) -> TTLPolicy:
    return policy if isinstance(policy, TTLPolicy) else POLICIES[policy]


def _negative_ttl(ttl: int) -> int:
    return max(1, min(ttl, _NEGATIVE_TTL_MAX))


# -- public API -----------------------------------------------------------------------------
def fetch_through(provider: str, call: str, params: Mapping[str, Any],
                  fetch: Callable[[], T], policy: str | TTLPolicy,
                  group: str | None = None) -> T:
    """Return the cached answer for (provider, call, params), fetching it at most once.

    ``fetch`` may raise :class:`NotFound` (remembered like data) or an UpstreamError (the
    stale copy is served if there is one, else the error propagates).
    """
    ttl_policy = _policy(policy)
    group = group or call
    key = cache_key(provider, call, params)
    entry: _Entry | None = _safe_get(key)
    if entry is not None and entry.fresh:
        _account(provider, group, entry, produced=False)
        log.debug("cache hit", cache_key=key[-40:], cache_hit=True)
        return entry.result()

    def check() -> _Entry | None:
        # The entry and its remembered error in one round trip (Redis: one MGET).
        found = _safe_get_many([key, _error_key(key)])
        current: _Entry | None = found.get(key)
        if current is not None and current.fresh:
            return current
        remembered: dict[str, Any] | None = found.get(_error_key(key))
        if remembered is not None:
            stale = current.stale_copy() if current is not None else None
            if stale is not None:
                return stale
            raise error_from_dict(remembered)
        return None

    def produce() -> _Entry:
        ttl = ttl_policy.ttl()
        try:
            value = fetch()
        except NotFound as exc:
            return _store(key, None, _negative_ttl(ttl), error=exc)
        except UpstreamError as exc:
            if not says_nothing_about_upstream(exc):
                _remember_error(key, exc)
            current: _Entry | None = _safe_get(key)
            stale = current.stale_copy() if current is not None else None
            if stale is not None:
                log.warning("serving stale after upstream error", provider=provider,
                            cache_key=key[-40:], error=exc.detail)
                return stale
            stats.record(provider, group, "error")
            raise
        return _store(key, value, ttl)

    log.debug("cache miss", cache_key=key[-40:], cache_hit=False)
    stale = entry.stale_copy() if entry is not None else None
    try:
        result, produced = _single_flight(provider, key, check, produce, stale)
    except UpstreamError:
        note_incomplete()
        raise
    _account(provider, group, result, produced)
    return result.result()


def fetch_many_through(provider: str, call: str, items: Iterable[str],
                       fetch_batch: Callable[[list[str]], Mapping[str, T]],
                       policy: str | TTLPolicy, group: str | None = None,
                       params: Mapping[str, Any] | None = None) -> dict[str, T]:
    """Per-item cache for batch upstream calls (e.g. one quote call for many symbols).

    Items missing from the cache are fetched in ONE ``fetch_batch`` call; items the batch
    does not return are remembered as not found. Returns {item: value} for found items, in
    the order given.
    """
    ttl_policy = _policy(policy)
    group = group or call
    items = list(dict.fromkeys(items))
    keys = {item: cache_key(provider, call, {**(params or {}), "item": item}) for item in items}
    found: dict[str, _Entry] = {}

    def read(wanted: list[str]) -> dict[str, _Entry]:
        got = _safe_get_many([keys[i] for i in wanted])
        return {i: got[keys[i]] for i in wanted if keys[i] in got}

    entries = read(items)
    missing = [i for i in items if not (i in entries and entries[i].fresh)]
    for item in items:
        if item not in missing:
            found[item] = entries[item]
            _account(provider, group, entries[item], produced=False)

    if missing:
        flight_key = cache_key(provider, call + ":batch", {**(params or {}),
                                                           "items": ",".join(sorted(missing))})

        def check() -> dict[str, _Entry] | None:
            current = read(missing)
            if all(i in current and current[i].fresh for i in missing):
                return current
            remembered = _remembered_error(flight_key)
            if remembered is not None:
                stale = _stale_copies(current)
                if stale:
                    return stale
                raise error_from_dict(remembered)
            return None

        def produce() -> dict[str, _Entry]:
            ttl = ttl_policy.ttl()
            try:
                fetched = fetch_batch(missing)
            except UpstreamError as exc:
                if not says_nothing_about_upstream(exc):
                    _remember_error(flight_key, exc)
                stale = _stale_copies(read(missing))
                if stale:
                    log.warning("serving stale after upstream error", provider=provider,
                                error=exc.detail)
                    return stale
                stats.record(provider, group, "error")
                raise
            out: dict[str, _Entry] = {}
            for item in missing:
                if item in fetched:
                    out[item] = _store(keys[item], fetched[item], ttl)
                else:
                    out[item] = _store(keys[item], None, _negative_ttl(ttl),
                                       error=NotFound(f"{item} not found"))
            return out

        # Waiting ends at the grace only when every missing item has a stale copy: a
        # partial stale answer would silently drop the others.
        stale_all = _stale_copies({i: entries[i] for i in missing if i in entries})
        try:
            result, produced = _single_flight(provider, flight_key, check, produce,
                                              stale_all if len(stale_all) == len(missing)
                                              else None)
        except UpstreamError:
            note_incomplete()
            raise
        for item in missing:
            entry = result.get(item)
            if entry is not None:
                _account(provider, group, entry, produced)
                found[item] = entry

    return {i: found[i].value for i in items if i in found and found[i].error is None}
