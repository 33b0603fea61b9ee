"""What one test leaves in the cache does not reach the next (tests/conftest.py
``_clean_state``), whichever Redis client of the process wrote it: the cache API, or a
redis.asyncio client of its own (as the fast path and the channel layer have). On Redis the
teardown skips its SCAN of the shared database when no client of the process sent a command,
so these tests pin that every way of writing is noticed. (A file's tests run in order, on one
worker.)"""

from __future__ import annotations

import asyncio
import os

from django.core.cache import cache


def test_a_cache_write_is_left_behind():
    cache.set("isolation-sync", 1, 60)
    assert cache.get("isolation-sync") == 1


def test_the_next_test_does_not_see_it():
    assert cache.get("isolation-sync") is None


def test_an_asyncio_client_write_is_left_behind():
    if not os.environ.get("REDIS_URL"):
        cache.set("isolation-async", 1, 60)
        return
    import redis.asyncio

    async def write() -> bytes | None:
        client = redis.asyncio.from_url(os.environ["REDIS_URL"])
        try:
            key = cache.make_key("isolation-async")
            await client.set(key, 1, ex=60)  # an int: what the cache stores as is
            return await client.get(key)
        finally:
            await client.aclose()

    # Only this client talks to Redis in this test (no cache call: it would be noticed).
    assert asyncio.run(write()) == b"1"


def test_the_next_test_does_not_see_that_either():
    assert cache.get("isolation-async") is None
