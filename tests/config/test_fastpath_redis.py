"""The fast path's Redis side (marketdata.redis_async and the async counters): reads and
scripts of one loop turn are coalesced, every caller still gets its own exact answer, and
a Redis outage makes callers fall back at once. Needs REDIS_URL (db 14 here)."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest

from tests.config.fastpath_client import run

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"),
                                reason="needs REDIS_URL: these talk to Redis")


def test_reads_of_one_turn_are_one_mget(monkeypatch):
    from marketdata import redis_async

    prefix = f"t-ra-{uuid.uuid4().hex[:8]}:"

    async def scenario():
        client = redis_async.get_client()
        await client.mset({f"{prefix}{i}": f"v{i}" for i in range(5)})
        calls = []
        real = client.mget

        async def spy(keys):
            calls.append(list(keys))
            return await real(keys)

        monkeypatch.setattr(client, "mget", spy)
        keys = [f"{prefix}{i % 6}" for i in range(30)]  # 6 distinct, one missing
        values = await asyncio.gather(*(redis_async.get(k) for k in keys))
        await client.delete(*(f"{prefix}{i}" for i in range(5)))
        return calls, values

    calls, values = run(scenario())
    assert len(calls) == 1 and sorted(calls[0]) == sorted({f"{prefix}{i}" for i in range(6)})
    assert values == [None if i % 6 == 5 else f"v{i % 6}".encode() for i in range(30)]


def test_a_cancelled_reader_leaves_the_others_their_answer():
    from marketdata import redis_async

    key = f"t-ra-{uuid.uuid4().hex[:8]}"

    async def scenario():
        await redis_async.get_client().set(key, b"x", ex=30)
        tasks = [asyncio.create_task(redis_async.get(key)) for _ in range(5)]
        await asyncio.sleep(0)
        tasks[0].cancel()
        done = await asyncio.gather(*tasks, return_exceptions=True)
        return [type(r).__name__ if isinstance(r, BaseException) else r for r in done]

    assert run(scenario()) == ["CancelledError"] + [b"x"] * 4


def test_pipelined_scripts_are_exact_and_load_themselves(settings):
    """60 concurrent quota takes against a limit of 40 in one pipeline: 40 allowed with the
    counts 1..40 once each, 20 refused; then the sync path agrees. A script Redis has not
    seen (a fresh source, so a fresh sha) is loaded on NOSCRIPT within the batch."""
    from apps.ratelimit import limits
    from marketdata import redis_async

    settings.APP_RATE_LIMIT_PER_DAY = 40
    client_ip = f"198.51.100.{uuid.uuid4().int % 250}"

    async def scenario():
        takes = await asyncio.gather(*(limits.take_daily_async(client_ip) for _ in range(60)))
        source = f"-- {uuid.uuid4().hex}\nreturn tonumber(ARGV[1]) + 1"
        import hashlib

        sha = hashlib.sha1(source.encode()).hexdigest()
        fresh = await asyncio.gather(*(redis_async.evalsha(sha, source, [], [i])
                                       for i in range(3)))
        return takes, fresh

    takes, fresh = run(scenario())
    allowed = sorted(state.count for ok, state in takes if ok)
    assert allowed == list(range(1, 41))
    assert [ok for ok, _ in takes].count(False) == 20
    assert limits.take_daily(client_ip)[0] is False
    assert fresh == [1, 2, 3]
    limits.reset_counters([client_ip])


def test_an_outage_fails_fast_and_the_hit_falls_through(monkeypatch, sandbox_upstream):
    from apps.core.fastpath import fast_path as answerer
    from marketdata import redis_async
    from tests.config.fastpath_client import _call, django_path, scope

    for _ in range(2):
        django_path("/v1/simple-quotes?symbols=AAPL")

    async def scenario():
        client = redis_async.get_client()

        async def down(keys):
            raise ConnectionError("connection refused")

        monkeypatch.setattr(client, "mget", down)
        first = await _call(answerer, scope("/v1/simple-quotes?symbols=AAPL"))
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(ConnectionError, match="failed just now"):
            await redis_async.get("anything")
        return first, loop.time() - started

    first, waited = run(scenario())
    assert first.status == 0, "a cache outage: Django decides"
    assert waited < 0.05
