"""Atomic counters in the cache backend: daily quotas and token buckets.

Two stores with one interface:
- :class:`RedisStore` (when the default cache is django-redis): every decision is one Lua
  script, so it is exact across threads, processes and hosts sharing the Redis, and
  survives a restart of the web process. The bucket reads Redis's clock (``TIME``), so
  hosts with skewed clocks still agree.
- :class:`LocalStore` (the embedded local-memory cache): the same decisions under one
  process-wide lock; exact within the process, which is all the quick start runs.

The fast path (:mod:`apps.core.fastpath`) takes the same two decisions on the event loop
through :func:`get_async_store`: on Redis with ``redis.asyncio`` running the very scripts,
keys and arguments of :class:`RedisStore` (so a client's count is exact whichever path
served it, across processes); on local memory with :class:`LocalStore` itself (its
critical sections are microseconds, so the loop takes the lock directly).

Keys go through the cache's ``make_key`` (``KEY_PREFIX`` and version), so the admin, tests
and ``cache.clear()``/``delete_pattern`` see the same entries the middleware writes.
A rejected request is never counted: the quota's count stops at its limit.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from django.core.cache import caches


@dataclass(frozen=True)
class QuotaTake:
    """Outcome of one request against a quota: allowed or not, and the count after it."""

    allowed: bool
    count: int


@dataclass(frozen=True)
class BucketTake:
    """Outcome of one request against a token bucket.

    ``tokens`` is the level after the decision; ``wait_seconds`` (0 when allowed) is how long
    until one whole token is back, if nobody else takes it first.
    """

    allowed: bool
    tokens: float
    wait_seconds: float

    @property
    def retry_after(self) -> int:
        """Whole seconds a client should wait: at least 1, never less than the real wait,
        so a retry after it finds a token."""
        return max(1, math.ceil(self.wait_seconds - 1e-9))


def bucket_ttl(capacity: float, refill_per_second: float, tokens: float) -> float:
    """How long a bucket's state must be kept: after this it is full again, which is what a
    missing state means."""
    return (capacity - tokens) / refill_per_second + 1.0


class CounterStore(Protocol):
    def take_quota(self, key: str, index_key: str, member: str, limit: int,
                   ttl: int) -> QuotaTake: ...

    def quota_counts(self, keys: dict[str, str]) -> dict[str, int]: ...

    def members(self, index_key: str) -> list[str]: ...

    def reset(self, index_key: str, members: dict[str, str]) -> None: ...

    def take_token(self, key: str, index_key: str, member: str, capacity: float,
                   refill_per_second: float, cost: float = 1.0) -> BucketTake: ...

    def bucket_level(self, key: str, capacity: float, refill_per_second: float) -> float: ...


def _refill(tokens: float, elapsed: float, capacity: float, rate: float) -> float:
    return min(capacity, tokens + max(0.0, elapsed) * rate)


def _wait(tokens: float, rate: float, cost: float = 1.0) -> float:
    return 0.0 if tokens >= cost else (cost - tokens) / rate


class OwnBucket:
    """A token bucket its owner keeps in memory (a stream connection's frames): the shared
    buckets' arithmetic without a store or a lock, for state only one event loop touches."""

    def __init__(self, capacity: float, refill_per_second: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity, self.rate, self.clock = capacity, refill_per_second, clock
        self.tokens, self.stamp = float(capacity), clock()

    def take(self, cost: float = 1.0) -> BucketTake:
        """Take ``cost`` tokens if there are that many; else nothing, and the wait until
        there will be (never, past the capacity: ``inf``)."""
        now = self.clock()
        self.tokens = _refill(self.tokens, now - self.stamp, self.capacity, self.rate)
        self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return BucketTake(True, self.tokens, 0.0)
        wait = math.inf if cost > self.capacity else (cost - self.tokens) / self.rate
        return BucketTake(False, self.tokens, wait)


# -- Redis ---------------------------------------------------------------------------------
# KEYS: counter, index set. ARGV: limit, ttl seconds, index member.
_QUOTA_LUA = """
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then
  return {0, count}
end
count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  redis.call('SADD', KEYS[2], ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[2])
end
return {1, count}
"""

# KEYS: bucket hash, index set. ARGV: capacity, refill per second, index member.
# Returns {allowed, tokens after, seconds until a whole token} (numbers as strings: Lua
# numbers would be truncated to integers on the way out).
_BUCKET_LUA = """
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local stamp = tonumber(state[2])
if tokens == nil or stamp == nil then
  tokens = capacity
  stamp = now
end
tokens = math.min(capacity, tokens + math.max(0, now - stamp) * rate)
local cost = tonumber(ARGV[4])
local allowed = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.9f', tokens),
           'ts', string.format('%.6f', now))
redis.call('PEXPIRE', KEYS[1], math.ceil(((capacity - tokens) / rate + 1) * 1000))
if ARGV[3] ~= '' then
  redis.call('SADD', KEYS[2], ARGV[3])
  redis.call('EXPIRE', KEYS[2], 86400)
end
local wait = 0
if tokens < cost then wait = (cost - tokens) / rate end
return {allowed, string.format('%.9f', tokens), string.format('%.9f', wait)}
"""


def _quota_call(make_key: Any, key: str, index_key: str, member: str, limit: int,
                ttl: int) -> tuple[list[str], list[Any]]:
    """KEYS and ARGV of the quota script (both stores' one definition)."""
    return [make_key(key), make_key(index_key)], [limit, max(1, int(ttl)), member]


def _quota_result(raw: Any) -> QuotaTake:
    allowed, count = raw
    return QuotaTake(bool(allowed), int(count))


def _bucket_call(make_key: Any, key: str, index_key: str, member: str, capacity: float,
                 refill_per_second: float, cost: float = 1.0) -> tuple[list[str], list[Any]]:
    """KEYS and ARGV of the bucket script (both stores' one definition)."""
    return ([make_key(key), make_key(index_key)],
            [repr(float(capacity)), repr(float(refill_per_second)), member, repr(float(cost))])


def _bucket_result(raw: Any) -> BucketTake:
    allowed, tokens, wait = raw
    return BucketTake(bool(allowed), float(tokens), float(wait))


class RedisStore:
    """Counters in the django-redis backend, one Lua script per decision."""

    def __init__(self, cache: Any) -> None:
        from django_redis import get_redis_connection

        self.cache = cache
        self.client = get_redis_connection("default")
        self._quota = self.client.register_script(_QUOTA_LUA)
        self._bucket = self.client.register_script(_BUCKET_LUA)

    def _key(self, name: str) -> str:
        return self.cache.make_key(name)

    def take_quota(self, key: str, index_key: str, member: str, limit: int,
                   ttl: int) -> QuotaTake:
        keys, args = _quota_call(self._key, key, index_key, member, limit, ttl)
        return _quota_result(self._quota(keys=keys, args=args))

    def members(self, index_key: str) -> list[str]:
        return sorted(m.decode() for m in self.client.smembers(self._key(index_key)))

    def quota_counts(self, keys: dict[str, str]) -> dict[str, int]:
        members = list(keys)
        values = self.client.mget([self._key(keys[m]) for m in members]) if members else []
        return {m: int(v) for m, v in zip(members, values, strict=True) if v is not None}

    def reset(self, index_key: str, members: dict[str, str]) -> None:
        if not members:
            return
        pipe = self.client.pipeline()
        pipe.delete(*(self._key(k) for k in members.values()))
        pipe.srem(self._key(index_key), *members)
        pipe.execute()

    def take_token(self, key: str, index_key: str, member: str, capacity: float,
                   refill_per_second: float, cost: float = 1.0) -> BucketTake:
        keys, args = _bucket_call(self._key, key, index_key, member, capacity,
                                  refill_per_second, cost)
        return _bucket_result(self._bucket(keys=keys, args=args))

    def bucket_level(self, key: str, capacity: float, refill_per_second: float) -> float:
        tokens, stamp = self.client.hmget(self._key(key), "tokens", "ts")
        if tokens is None or stamp is None:
            return float(capacity)
        seconds, micros = self.client.time()
        return _refill(float(tokens), seconds + micros / 1e6 - float(stamp), capacity,
                       refill_per_second)


# -- local memory --------------------------------------------------------------------------
class LocalStore:
    """The same decisions on the local-memory cache, serialised by one process-wide lock."""

    _lock = threading.Lock()

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def take_quota(self, key: str, index_key: str, member: str, limit: int,
                   ttl: int) -> QuotaTake:
        with self._lock:
            count = int(self.cache.get(key) or 0)
            if count >= limit:
                return QuotaTake(False, count)
            count += 1
            self.cache.set(key, count, timeout=max(1, int(ttl)))
            if count == 1:
                self._index_add(index_key, member, ttl)
            return QuotaTake(True, count)

    def _index_add(self, index_key: str, member: str, ttl: float) -> None:
        index = set(self.cache.get(index_key) or ())
        if member not in index:
            index.add(member)
            self.cache.set(index_key, index, timeout=max(1, int(ttl)))

    def members(self, index_key: str) -> list[str]:
        return sorted(self.cache.get(index_key) or ())

    def quota_counts(self, keys: dict[str, str]) -> dict[str, int]:
        values = self.cache.get_many(list(keys.values()))
        return {m: int(values[k]) for m, k in keys.items() if k in values}

    def reset(self, index_key: str, members: dict[str, str]) -> None:
        with self._lock:
            self.cache.delete_many(list(members.values()))
            index = set(self.cache.get(index_key) or ()) - set(members)
            self.cache.set(index_key, index, timeout=86400)

    def take_token(self, key: str, index_key: str, member: str, capacity: float,
                   refill_per_second: float, cost: float = 1.0) -> BucketTake:
        with self._lock:
            now = time.time()
            tokens, stamp = self.cache.get(key) or (capacity, now)
            tokens = _refill(tokens, now - stamp, capacity, refill_per_second)
            allowed = tokens >= cost
            if allowed:
                tokens -= cost
            self.cache.set(key, (tokens, now),
                           timeout=math.ceil(bucket_ttl(capacity, refill_per_second, tokens)))
            if member:
                self._index_add(index_key, member, 86400)
            return BucketTake(allowed, tokens, _wait(tokens, refill_per_second, cost))

    def bucket_level(self, key: str, capacity: float, refill_per_second: float) -> float:
        state = self.cache.get(key)
        if state is None:
            return float(capacity)
        tokens, stamp = state
        return _refill(tokens, time.time() - stamp, capacity, refill_per_second)


# -- the event loop's side ---------------------------------------------------------------
class AsyncCounterStore(Protocol):
    async def take_quota(self, key: str, index_key: str, member: str, limit: int,
                         ttl: int) -> QuotaTake: ...

    async def take_token(self, key: str, index_key: str, member: str, capacity: float,
                         refill_per_second: float, cost: float = 1.0) -> BucketTake: ...


class _Script:
    """A Lua script run with EVALSHA on the running loop's client (loaded on NOSCRIPT;
    pipelined with the loop's other scripts of the same turn, see
    :func:`marketdata.redis_async.evalsha`)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()  # noqa: S324 - Redis names scripts so

    async def __call__(self, keys: list[str], args: list[Any]) -> Any:
        from marketdata import redis_async

        return await redis_async.evalsha(self.sha, self.source, keys, args)


class AsyncRedisStore:
    """:class:`RedisStore`'s decisions on ``redis.asyncio``: same scripts, keys, arguments
    and result parsing, so both paths count into the same counters exactly."""

    _quota = _Script(_QUOTA_LUA)
    _bucket = _Script(_BUCKET_LUA)

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    async def take_quota(self, key: str, index_key: str, member: str, limit: int,
                         ttl: int) -> QuotaTake:
        keys, args = _quota_call(self.cache.make_key, key, index_key, member, limit, ttl)
        return _quota_result(await self._quota(keys, args))

    async def take_token(self, key: str, index_key: str, member: str, capacity: float,
                         refill_per_second: float, cost: float = 1.0) -> BucketTake:
        keys, args = _bucket_call(self.cache.make_key, key, index_key, member, capacity,
                                  refill_per_second, cost)
        return _bucket_result(await self._bucket(keys, args))


class AsyncLocalStore:
    """:class:`LocalStore`'s decisions, called directly from the loop (no thread hop)."""

    def __init__(self, store: LocalStore) -> None:
        self.store = store

    async def take_quota(self, key: str, index_key: str, member: str, limit: int,
                         ttl: int) -> QuotaTake:
        return self.store.take_quota(key, index_key, member, limit, ttl)

    async def take_token(self, key: str, index_key: str, member: str, capacity: float,
                         refill_per_second: float, cost: float = 1.0) -> BucketTake:
        return self.store.take_token(key, index_key, member, capacity, refill_per_second,
                                     cost)


_stores: dict[type, CounterStore] = {}
_async_stores: dict[type, AsyncCounterStore] = {}


def get_store() -> CounterStore:
    """The store for the default cache backend, one per process.

    Django hands each thread its own cache object, but they share the storage (the
    local-memory dict, the Redis connection pool), so one store per backend class serves all.
    """
    cache = caches["default"]
    kind = type(cache)
    store = _stores.get(kind)
    if store is None:
        store = RedisStore(cache) if is_redis(cache) else LocalStore(cache)
        _stores[kind] = store
    return store


def get_async_store() -> AsyncCounterStore:
    """The event loop's store for the default cache backend, one per process (callers on
    the loop keep it: looking up ``caches["default"]`` there is per task)."""
    cache = caches["default"]
    kind = type(cache)
    store = _async_stores.get(kind)
    if store is None:
        sync = get_store()
        store = AsyncRedisStore(cache) if is_redis(cache) else AsyncLocalStore(sync)
        _async_stores[kind] = store
    return store


def is_redis(cache: Any) -> bool:
    """Whether ``cache`` is the django-redis backend (shared by processes and hosts)."""
    from django_redis.cache import RedisCache

    return isinstance(cache, RedisCache)
