"""One ``redis.asyncio`` client per event loop, on the default cache's Redis.

The fast path (:mod:`apps.core.fastpath`) reads response-cache entries and takes rate-limit
decisions on the event loop; a client's connections belong to the loop that opened them,
so each loop gets its own client (a worker has one loop; tests start one per test). The
client uses the cache's URL and socket timeouts, and a blocking pool: a burst beyond
``max_connections`` waits for a free connection (up to the socket timeout) instead of
failing at once.

:func:`get` coalesces reads: the GETs asked for in one turn of the loop go to Redis as
one ``MGET`` (a key asked for twice is read once). :func:`evalsha` does the same for
scripts: one pipeline per turn (each script still runs atomically, one after the other,
so every decision is what it would be alone). Under load many requests arrive in the same
turn, and one round trip and far less client overhead (redis-py spends ~40 us of CPU per
command here, more than the round trip) then serve them all.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool

from marketdata.redis_config import RedisTarget

_MAX_BATCH = 256
# After a failed call, calls fail at once for this long instead of each waiting for the
# connect timeout again (the caller falls back: Django's path, or no rate-limit decision).
_PAUSE_AFTER_FAILURE = 1.0
# A pipelined script call: sha, source, number of keys, keys + args, the caller's future.
_Call = tuple[str, str, int, list[Any], asyncio.Future]


class _Loop:
    """A loop's client and its pending coalesced reads."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.client = connect()
        self.pending: dict[str, list[asyncio.Future]] = {}
        self.scripts: list[_Call] = []
        self.tasks: set[asyncio.Task] = set()
        self.down_until = 0.0

    def _unavailable(self) -> asyncio.Future | None:
        """A failed future while Redis is paused after a failure, else None."""
        if self.loop.time() >= self.down_until:
            return None
        future = self.loop.create_future()
        future.set_exception(ConnectionError("Redis unavailable (a call failed just now)"))
        return future

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, Exception):
            self.down_until = self.loop.time() + _PAUSE_AFTER_FAILURE

    def _spawn(self, coroutine: Any) -> None:
        task = self.loop.create_task(coroutine)
        self.tasks.add(task)  # keep a reference until it is done
        task.add_done_callback(self.tasks.discard)

    def get(self, key: str) -> asyncio.Future:
        failed = self._unavailable()
        if failed is not None:
            return failed
        future = self.loop.create_future()
        waiters = self.pending.get(key)
        if waiters is None:
            if not self.pending:
                self.loop.call_soon(self._flush)
            self.pending[key] = [future]
        else:
            waiters.append(future)
        return future

    def _flush(self) -> None:
        pending, self.pending = self.pending, {}
        keys = list(pending)
        for start in range(0, len(keys), _MAX_BATCH):
            self._spawn(self._read({key: pending[key] for key in keys[start:start + _MAX_BATCH]}))

    async def _read(self, batch: dict[str, list[asyncio.Future]]) -> None:
        try:
            values = await self.client.mget(list(batch))
        except BaseException as exc:  # every waiter gets the failure (or cancellation)
            self._failed(exc)
            _fail([f for waiters in batch.values() for f in waiters], exc)
            if not isinstance(exc, Exception):
                raise
            return
        for value, waiters in zip(values, batch.values(), strict=True):
            for future in waiters:
                if not future.done():
                    future.set_result(value)


    def evalsha(self, sha: str, source: str, keys: list[str], args: list[Any]
                ) -> asyncio.Future:
        failed = self._unavailable()
        if failed is not None:
            return failed
        future = self.loop.create_future()
        if not self.scripts:
            self.loop.call_soon(self._flush_scripts)
        self.scripts.append((sha, source, len(keys), [*keys, *args], future))
        return future

    def _flush_scripts(self) -> None:
        calls, self.scripts = self.scripts, []
        for start in range(0, len(calls), _MAX_BATCH):
            self._spawn(self._run(calls[start:start + _MAX_BATCH]))

    async def _run(self, calls: list[_Call]) -> None:
        from redis.exceptions import NoScriptError

        try:
            results = await self._pipeline(calls)
            missing = [i for i, r in enumerate(results) if isinstance(r, NoScriptError)]
            if missing:  # a restarted or flushed Redis: load, then run those again
                for source in {calls[i][1] for i in missing}:
                    await self.client.script_load(source)
                again = await self._pipeline([calls[i] for i in missing])
                for i, result in zip(missing, again, strict=True):
                    results[i] = result
        except BaseException as exc:
            self._failed(exc)
            _fail([call[4] for call in calls], exc)
            if not isinstance(exc, Exception):
                raise
            return
        for (*_call, future), result in zip(calls, results, strict=True):
            if future.done():
                continue
            if isinstance(result, Exception):
                future.set_exception(result)
            else:
                future.set_result(result)

    async def _pipeline(self, calls: list[_Call]) -> list[Any]:
        pipe = self.client.pipeline(transaction=False)
        for sha, _source, numkeys, argv, _future in calls:
            pipe.evalsha(sha, numkeys, *argv)
        return await pipe.execute(raise_on_error=False)


def _fail(futures: list[asyncio.Future], exc: BaseException) -> None:
    for future in futures:
        if not future.done():
            future.set_exception(exc if isinstance(exc, Exception)
                                 else ConnectionError("Redis call cancelled"))


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Loop] = \
    weakref.WeakKeyDictionary()


class _BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """The primary found through Sentinel, with the blocking pool's wait for a free
    connection (the sentinel pool alone refuses at once past ``max_connections``)."""


def connect() -> Redis:
    """A new client on the default cache's Redis, with the cache's socket timeouts and a
    blocking pool: at its URL, or at the primary its sentinels name (asked again after a
    connection fails, so a failover needs no restart; marketdata.redis_config)."""
    url, kwargs = _options()
    config: dict[str, Any] = settings.CACHES["default"]
    options: dict[str, Any] = config.get("OPTIONS", {})
    sentinels = options.get("SENTINELS")
    if not sentinels:
        return Redis(connection_pool=BlockingConnectionPool.from_url(url, **kwargs))
    target = RedisTarget(url=url, sentinels=tuple((h, int(p)) for h, p in sentinels),
                         service=urlsplit(url).hostname or "")
    manager = Sentinel(target.sentinels, sentinel_kwargs=options.get("SENTINEL_KWARGS"))
    client: Redis = manager.master_for(target.service, connection_pool_class=_BlockingSentinelPool,
                                       **kwargs, **target.primary_kwargs())
    return client


def _options() -> tuple[str, dict[str, Any]]:
    config: dict[str, Any] = settings.CACHES["default"]
    location = config["LOCATION"]
    if isinstance(location, list | tuple):
        location = location[0]
    options = config.get("OPTIONS", {})
    timeout = float(options.get("SOCKET_TIMEOUT", 2))
    pool = options.get("CONNECTION_POOL_KWARGS", {})
    return location, {"max_connections": int(pool.get("max_connections", 100)),
                      "timeout": timeout, "socket_timeout": timeout,
                      "socket_connect_timeout": float(options.get("SOCKET_CONNECT_TIMEOUT",
                                                                  timeout))}


def _state() -> _Loop:
    loop = asyncio.get_running_loop()
    state = _loops.get(loop)
    if state is None:
        state = _loops[loop] = _Loop(loop)
    return state


def get_client() -> Redis:
    """The running loop's client (created on first use)."""
    return _state().client


async def get(key: str) -> bytes | None:
    """``GET key``, coalesced with the other reads of this turn of the loop."""
    return await _state().get(key)


async def evalsha(sha: str, source: str, keys: list[str], args: list[Any]) -> Any:
    """``EVALSHA`` of the script ``source`` (loaded on NOSCRIPT), pipelined with the other
    scripts of this turn of the loop."""
    return await _state().evalsha(sha, source, keys, args)


async def close_client() -> None:
    """Close the running loop's client, if it has one (tests, before their loop ends)."""
    state = _loops.pop(asyncio.get_running_loop(), None)
    if state is not None:
        await asyncio.gather(*state.tasks, return_exceptions=True)
        await state.client.aclose(close_connection_pool=True)
