"""The counter stores: exact under concurrent threads, for the local-memory store always and
for the Redis store when the default cache is Redis (CI)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.clocks import local_cache_expiry, move_time


def _stores() -> list:
    return [pytest.param("local", id="local"), pytest.param("redis", id="redis")]


@pytest.fixture(params=_stores())
def store(request):
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    from apps.ratelimit import counters

    if request.param == "redis":
        cache = caches["default"]
        if not counters.is_redis(cache):
            pytest.skip("the default cache is not Redis (set REDIS_URL)")
        return counters.RedisStore(cache)
    return counters.LocalStore(LocMemCache("ratelimit-tests", {}))


@pytest.fixture
def elapse(store, monkeypatch):
    """Let ``seconds`` pass for ``store``: the local store's clock and its cache's expiry
    are moved; Redis counts on its own clock (``TIME``, key expiry), so for the Redis store
    the wall clock is what is tested and this sleeps."""
    from apps.ratelimit import counters

    if not isinstance(store, counters.LocalStore):
        return time.sleep
    return move_time(monkeypatch, counters, *local_cache_expiry())


def _hammer(fn, calls: int, threads: int = 32) -> list:
    barrier = threading.Barrier(threads)

    def worker(n: int) -> list:
        barrier.wait()
        return [fn() for _ in range(n)]

    per_thread = [calls // threads + (1 if i < calls % threads else 0) for i in range(threads)]
    with ThreadPoolExecutor(threads) as pool:
        return [r for rs in pool.map(worker, per_thread) for r in rs]


def test_quota_is_exact_under_32_threads(store):
    limit = 200
    results = _hammer(lambda: store.take_quota("t:quota:a", "t:quota:_idx", "a", limit, 60),
                      limit + 150)
    allowed = [r for r in results if r.allowed]
    assert len(allowed) == limit
    assert sorted(r.count for r in allowed) == list(range(1, limit + 1))
    assert all(r.count == limit for r in results if not r.allowed)
    assert store.quota_counts({"a": "t:quota:a"}) == {"a": limit}
    assert store.members("t:quota:_idx") == ["a"]


def test_quota_reset_forgets_count_and_member(store):
    for _ in range(3):
        store.take_quota("t:q:b", "t:q:_idx", "b", 5, 60)
    store.take_quota("t:q:c", "t:q:_idx", "c", 5, 60)
    store.reset("t:q:_idx", {"b": "t:q:b"})
    assert store.members("t:q:_idx") == ["c"]
    assert store.quota_counts({"b": "t:q:b", "c": "t:q:c"}) == {"c": 1}
    assert store.take_quota("t:q:b", "t:q:_idx", "b", 5, 60).count == 1


def test_quota_counter_expires_with_its_window(store, elapse):
    store.take_quota("t:q:exp", "t:q:_exp", "x", 5, 1)
    elapse(1.2)
    assert store.take_quota("t:q:exp", "t:q:_exp", "x", 5, 1).count == 1


def test_bucket_is_exact_under_32_threads(store):
    capacity = 50
    results = _hammer(lambda: store.take_token("t:bucket", "t:b:_idx", "", capacity, 0.001),
                      capacity + 100)
    assert sum(r.allowed for r in results) == capacity
    refused = [r for r in results if not r.allowed]
    assert all(r.wait_seconds > 0 and r.retry_after >= 1 for r in refused)
    assert store.bucket_level("t:bucket", capacity, 0.001) < 1


def test_bucket_refills_continuously_and_caps_at_capacity(store, elapse):
    for _ in range(4):
        assert store.take_token("t:refill", "t:b:_idx", "", 4, 10.0).allowed
    refused = store.take_token("t:refill", "t:b:_idx", "", 4, 10.0)
    assert not refused.allowed
    assert 0 < refused.wait_seconds <= 0.1
    elapse(0.25)
    level = store.bucket_level("t:refill", 4, 10.0)
    assert 1.5 < level < 4
    elapse(0.5)
    assert store.bucket_level("t:refill", 4, 10.0) == 4


def test_a_cost_is_taken_all_at_once_or_not_at_all(store):
    """A GraphQL query's cost: ``cost`` tokens in one decision; short, nothing is taken and
    the wait is for the whole cost."""
    first = store.take_token("t:cost", "t:b:_idx", "", 10, 1.0, cost=7)
    assert first.allowed and 2.9 < first.tokens <= 3.1
    refused = store.take_token("t:cost", "t:b:_idx", "", 10, 1.0, cost=5)
    assert not refused.allowed and 1.8 < refused.wait_seconds <= 2.1
    assert store.take_token("t:cost", "t:b:_idx", "", 10, 1.0, cost=3).allowed


@pytest.mark.slow("on Redis, waits for the bucket to refill on Redis's own clock")
def test_a_retry_after_the_advertised_wait_succeeds(store, elapse):
    for _ in range(2):
        store.take_token("t:honest", "t:b:_idx", "", 2, 0.8)
    refused = store.take_token("t:honest", "t:b:_idx", "", 2, 0.8)
    assert not refused.allowed and refused.retry_after == 2  # 1 token at 0.8/s: 1.25 s
    elapse(refused.retry_after)
    assert store.take_token("t:honest", "t:b:_idx", "", 2, 0.8).allowed


def test_per_client_buckets_are_indexed(store):
    store.take_token("t:ip:a", "t:ip:_idx", "198.51.100.1", 3, 1.0)
    store.take_token("t:ip:b", "t:ip:_idx", "198.51.100.2", 3, 1.0)
    assert store.members("t:ip:_idx") == ["198.51.100.1", "198.51.100.2"]


@pytest.mark.parametrize(("wait", "seconds"), [
    (0.0, 1), (0.001, 1), (0.999, 1), (1.0, 1), (1.0000001, 2), (2.5, 3), (59.0, 59),
])
def test_retry_after_is_whole_seconds_never_short(wait, seconds):
    from apps.ratelimit.counters import BucketTake

    assert BucketTake(False, 0.0, wait).retry_after == seconds


def test_an_own_bucket_takes_refills_and_says_how_long_to_wait():
    from apps.ratelimit.counters import OwnBucket

    now = [0.0]
    bucket = OwnBucket(3, 2.0, clock=lambda: now[0])
    assert [bucket.take().allowed for _ in range(4)] == [True, True, True, False]
    refused = bucket.take(2)
    assert not refused.allowed and refused.wait_seconds == pytest.approx(1.0)
    now[0] = 1.0
    assert bucket.take(2).allowed
    assert bucket.take(4).wait_seconds == float("inf")  # more than it ever holds
    now[0] = 100.0
    assert bucket.take(0).tokens == 3  # never past the capacity
