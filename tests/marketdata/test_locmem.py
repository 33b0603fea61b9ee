"""marketdata.locmem: the local-memory cache bounded in bytes.

Byte accounting after every kind of write (set, overwrite, add, incr/decr, delete, expiry,
cull, clear), LRU eviction, entries without expiry kept last, refusal of oversize
entries, the drop-in API, the settings, and a thread-safety smoke test.
"""

from __future__ import annotations

import gc
import pickle
import random
import threading
import time
import tracemalloc
import uuid
from collections.abc import Iterator

import pytest
from django.core.cache.backends.locmem import LocMemCache
from django.core.exceptions import ImproperlyConfigured

from marketdata import locmem
from marketdata.locmem import ENTRY_OVERHEAD, ByteBoundedLocMemCache, entry_size

KB = 1024


@pytest.fixture
def make_cache() -> Iterator:
    """Caches with their own names (the store, lock and budget are shared per name);
    their module-level state is dropped afterwards."""
    from django.core.cache.backends import locmem as django_locmem

    names: list[str] = []

    def make(name: str | None = None, **options) -> ByteBoundedLocMemCache:
        name = name or f"test-{uuid.uuid4().hex}"
        names.append(name)
        return ByteBoundedLocMemCache(name, {"TIMEOUT": 300, "OPTIONS": options})

    yield make
    for name in names:
        for table in (django_locmem._caches, django_locmem._expire_info, django_locmem._locks,
                      locmem._budgets):
            table.pop(name, None)


def counted(cache: ByteBoundedLocMemCache) -> int:
    """What the entries in the store add up to, recomputed from scratch."""
    return sum(entry_size(key, pickled) for key, pickled in cache._cache.items())


def size_of(cache: ByteBoundedLocMemCache, key: str, value) -> int:
    return entry_size(cache.make_key(key), pickle.dumps(value, cache.pickle_protocol))


def check(cache: ByteBoundedLocMemCache) -> None:
    """The invariants: the running count is exact, within the budget, and the store and
    the expiry table hold the same keys."""
    with cache._lock:
        assert cache.bytes_used == counted(cache)
        assert cache.bytes_used <= cache.max_bytes
        assert set(cache._cache) == set(cache._expire_info)


# -- accounting --------------------------------------------------------------------------------
def test_set_overwrite_and_delete_are_counted_exactly(make_cache):
    cache = make_cache()
    assert cache.bytes_used == 0
    cache.set("a", "x" * 100)
    assert cache.bytes_used == size_of(cache, "a", "x" * 100)
    cache.set("b", {"k": list(range(50))})
    assert cache.bytes_used == size_of(cache, "a", "x" * 100) + \
        size_of(cache, "b", {"k": list(range(50))})
    cache.set("a", "y" * 5000)  # overwrite: the old bytes no longer count
    assert cache.bytes_used == size_of(cache, "a", "y" * 5000) + \
        size_of(cache, "b", {"k": list(range(50))})
    cache.set("a", "z")
    check(cache)
    assert cache.delete("a") is True
    assert cache.delete("a") is False
    assert cache.bytes_used == size_of(cache, "b", {"k": list(range(50))})
    cache.delete_many(["b", "missing"])
    assert cache.bytes_used == 0 and len(cache._cache) == 0


def test_entry_size_is_key_value_and_overhead(make_cache):
    cache = make_cache()
    cache.set("key", b"0123456789")
    key = cache.make_key("key")
    pickled = pickle.dumps(b"0123456789", cache.pickle_protocol)
    assert cache.bytes_used == len(key) + len(pickled) + ENTRY_OVERHEAD


def test_add_counts_only_what_it_stores(make_cache):
    cache = make_cache()
    assert cache.add("a", "first") is True
    assert cache.add("a", "second, longer" * 10) is False
    assert cache.get("a") == "first"
    assert cache.bytes_used == size_of(cache, "a", "first")


def test_incr_and_decr_recount_the_new_value(make_cache):
    cache = make_cache()
    cache.set("n", 1)
    small = cache.bytes_used
    assert cache.incr("n", 10**30) == 10**30 + 1  # a much longer pickle
    assert cache.bytes_used == size_of(cache, "n", 10**30 + 1) > small
    assert cache.decr("n", 10**30) == 1
    assert cache.bytes_used == small
    with pytest.raises(ValueError):
        cache.incr("missing")
    check(cache)


def test_expired_entries_are_uncounted_when_dropped(make_cache, monkeypatch):
    cache = make_cache()
    cache.set("short", "v" * 300, timeout=10)
    cache.set("long", "w" * 300, timeout=1000)
    cache.set("forever", "f", timeout=None)
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + 60)
    assert cache.get("short") is None  # dropped by the read
    assert cache.bytes_used == size_of(cache, "long", "w" * 300) + size_of(cache, "forever", "f")
    cache.set("gone", "g", timeout=10)
    monkeypatch.setattr(time, "time", lambda: now + 120)
    assert cache.has_key("gone") is False
    assert cache.touch("gone") is False
    with pytest.raises(ValueError):
        cache.incr("gone")
    cache.set("again", 1, timeout=10)
    monkeypatch.setattr(time, "time", lambda: now + 200)
    assert cache.add("again", "new value") is True  # over an expired entry
    assert cache.get("again") == "new value"
    check(cache)
    assert set(cache._cache) == {cache.make_key(k) for k in ("long", "forever", "again")}


def test_get_pickled_is_the_stored_object_as_get_reads_it(make_cache, monkeypatch):
    """What get() would unpickle, the very object stored (the same until a write), with
    get()'s expiry (dropped, uncounted) and LRU order."""
    cache = make_cache()
    cache.set("a", b"entry bytes", timeout=10)
    cache.set("b", b"other", timeout=10)
    first = cache.get_pickled("a")
    assert pickle.loads(first) == cache.get("a") == b"entry bytes"
    assert cache.get_pickled("a") is first
    assert next(iter(cache._cache)) == cache.make_key("a"), "read: the most recent"
    cache.set("a", b"entry bytes", timeout=10)
    assert cache.get_pickled("a") is not first, "a write: another object"
    assert cache.get_pickled("missing") is None
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + 60)
    assert cache.get_pickled("b") is None
    assert cache.make_key("b") not in cache._cache
    check(cache)


def test_timeout_zero_stores_an_expired_entry_counted_until_dropped(make_cache):
    cache = make_cache()
    cache.set("k", "v", timeout=0)
    check(cache)
    assert cache.get("k") is None
    assert cache.bytes_used == 0


def test_max_entries_cull_keeps_the_count_exact(make_cache):
    cache = make_cache(MAX_ENTRIES=9, CULL_FREQUENCY=3)
    for i in range(9):
        cache.set(f"k{i}", "v" * (i * 10))
    cache.get("k0")  # recently used: survives the cull
    cache.set("k9", "new")  # 9 entries reached: the 3 least recently used go
    check(cache)
    left = {k for k in (f"k{i}" for i in range(10)) if cache.has_key(k)}
    assert left == {"k0", "k4", "k5", "k6", "k7", "k8", "k9"}


def test_cull_frequency_zero_clears_everything(make_cache):
    cache = make_cache(MAX_ENTRIES=3, CULL_FREQUENCY=0)
    for i in range(4):
        cache.set(f"k{i}", i)
    check(cache)
    assert len(cache._cache) == 1 and cache.get("k3") == 3


def test_clear_resets_the_count(make_cache):
    cache = make_cache()
    cache.set_many({f"k{i}": "x" * i for i in range(20)})
    cache.clear()
    assert cache.bytes_used == 0 and len(cache._cache) == 0


def test_instances_of_one_name_share_the_store_and_the_count(make_cache):
    name = f"shared-{uuid.uuid4().hex}"
    one, two = make_cache(name), make_cache(name)  # as Django makes one per thread
    one.set("a", "x" * 1000)
    assert two.get("a") == "x" * 1000
    assert two.bytes_used == one.bytes_used == size_of(one, "a", "x" * 1000)
    two.delete("a")
    assert one.bytes_used == 0


# -- eviction and refusal ----------------------------------------------------------------------
def test_over_the_budget_the_least_recently_used_go(make_cache):
    value = "v" * 900
    per_entry = None
    cache = make_cache(MAX_BYTES=10 * KB, MAX_ENTRY_BYTES=2 * KB)
    for i in range(8):
        cache.set(f"k{i}", value)
        per_entry = per_entry or cache.bytes_used
    assert per_entry is not None and 8 * per_entry <= 10 * KB < 12 * per_entry
    cache.get("k0")  # k0 is now the most recently used
    cache.touch("k1")  # touch changes the expiry only, not the order (as LocMemCache)
    for i in range(8, 12):
        cache.set(f"k{i}", value)
    check(cache)
    kept = [i for i in range(12) if cache.has_key(f"k{i}")]
    assert 0 in kept and 1 not in kept
    assert kept == [0, *range(13 - len(kept), 12)]
    assert cache.usage()["evictions"] == 12 - len(kept)


def test_entries_without_expiry_are_evicted_last(make_cache):
    cache = make_cache(MAX_BYTES=8 * KB, MAX_ENTRY_BYTES=2 * KB)
    cache.set("stats:index", ["a", "b"], timeout=None)
    cache.add("stats:a", 0, timeout=None)
    cache.incr("stats:a", 5)
    for i in range(40):
        cache.set(f"data{i}", "d" * 700, timeout=300)
    check(cache)
    assert cache.get("stats:index") == ["a", "b"] and cache.get("stats:a") == 5
    assert cache.has_key("data39") and not cache.has_key("data0")


def test_entries_without_expiry_go_too_when_nothing_else_is_left(make_cache):
    cache = make_cache(MAX_BYTES=4 * KB, MAX_ENTRY_BYTES=2 * KB)
    for i in range(10):
        cache.set(f"p{i}", "p" * 600, timeout=None)
    check(cache)
    assert cache.has_key("p9") and not cache.has_key("p0")


def test_an_oversize_entry_is_refused_and_evicts_nothing(make_cache):
    cache = make_cache(MAX_BYTES=64 * KB)
    assert cache.max_entry_bytes == 4 * KB  # 1/16 of the budget by default
    for i in range(10):
        cache.set(f"k{i}", "v" * 1000)
    before = dict(cache._cache)
    cache.set("big", "b" * 5000)
    assert cache.get("big") is None
    assert dict(cache._cache) == before
    assert cache.add("big", "b" * 5000) is False
    assert cache.set_many({"big": "b" * 5000, "small": "s"}) == ["big"]
    assert cache.get("small") == "s" and not cache.has_key("big")
    cache.delete("small")
    assert cache.usage()["refused"] == 3
    # A refused overwrite deletes the old value: it must not be served as the new one.
    cache.set("k3", "c" * 5000)
    assert cache.get("k3") is None
    check(cache)
    cache.set("fits", "f" * 3000)
    assert cache.get("fits") == "f" * 3000


def test_bad_options_are_refused(make_cache):
    with pytest.raises(ImproperlyConfigured):
        make_cache(MAX_BYTES=0)
    with pytest.raises(ImproperlyConfigured):
        make_cache(MAX_BYTES="lots")
    with pytest.raises(ImproperlyConfigured):
        make_cache(MAX_BYTES=100, MAX_ENTRY_BYTES=200)


def test_usage_reports_the_state(make_cache):
    cache = make_cache(MAX_BYTES=1 << 20, MAX_ENTRIES=500)
    cache.set("a", 1)
    assert cache.usage() == {"entries": 1, "bytes": size_of(cache, "a", 1),
                             "max_bytes": 1 << 20, "max_entry_bytes": 1 << 16,
                             "max_entries": 500, "evictions": 0, "refused": 0}


# -- drop-in ---------------------------------------------------------------------------------
def test_the_rest_of_the_cache_api_behaves_as_locmem(make_cache):
    cache = make_cache()
    assert isinstance(cache, LocMemCache)
    cache.set_many({"a": 1, "b": [1, 2], "c": None})
    assert cache.get_many(["a", "b", "c", "d"]) == {"a": 1, "b": [1, 2], "c": None}
    assert cache.get("d", "default") == "default"
    assert cache.get_or_set("e", lambda: "made") == "made"
    assert cache.touch("a", timeout=None) is True
    assert cache.incr("a") == 2 and cache.decr("a", 2) == 0
    assert cache.has_key("b") and not cache.has_key("zz")
    cache.set("v", "one", version=1)
    cache.set("v", "two", version=2)
    assert cache.get("v", version=1) == "one" and cache.get("v", version=2) == "two"
    cache.incr_version("v", version=2)
    assert cache.get("v", version=3) == "two" and cache.get("v", version=2) is None
    check(cache)


def test_settings_use_it_without_redis():
    from django.conf import settings
    from django.core.cache import caches

    from apps.core.response_cache import LocalEntries, get_store
    from tests.conftest import REDIS_URL

    if REDIS_URL:
        pytest.skip("the default cache is Redis")
    default = settings.CACHES["default"]
    assert default["BACKEND"] == "marketdata.locmem.ByteBoundedLocMemCache"
    assert default["OPTIONS"]["MAX_BYTES"] == settings.LOCMEM_MAX_BYTES > 0
    cache = caches["default"]
    assert isinstance(cache, ByteBoundedLocMemCache) and isinstance(cache, LocMemCache)
    assert cache.max_bytes == settings.LOCMEM_MAX_BYTES
    assert isinstance(get_store(), LocalEntries)


def test_the_overhead_constant_covers_what_an_entry_really_costs(make_cache):
    """tracemalloc: the memory an entry adds beyond its key and pickled value (the store's
    slot and node, the expiry, the objects' headers) is at most ENTRY_OVERHEAD."""
    cache = make_cache(MAX_ENTRIES=100_000, MAX_BYTES=1 << 30)
    n = 5000
    values = [b"x" * 300 for _ in range(n)]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i, value in enumerate(values):
            cache.set(f"md:1:yahoo:quote:item=S{i:06d}", value)
        gc.collect()
        added = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    per_entry = (added - (cache.bytes_used - n * ENTRY_OVERHEAD)) / n
    assert ENTRY_OVERHEAD / 2 < per_entry <= ENTRY_OVERHEAD, per_entry


# -- threads ---------------------------------------------------------------------------------
def test_threads_keep_the_count_exact_and_within_the_budget(make_cache):
    name = f"threads-{uuid.uuid4().hex}"
    budget = 64 * KB
    caches = [make_cache(name, MAX_BYTES=budget, MAX_ENTRIES=300) for _ in range(8)]
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(caches))

    def worker(cache: ByteBoundedLocMemCache, seed: int) -> None:
        rng = random.Random(seed)
        barrier.wait(10)
        try:
            for _ in range(3000):
                key = f"k{rng.randrange(400)}"
                op = rng.random()
                if op < 0.4:
                    cache.set(key, "v" * rng.randrange(0, 6000),
                              timeout=rng.choice((None, 0, 1, 300)))
                elif op < 0.6:
                    cache.get(key)
                elif op < 0.7:
                    cache.add(f"n{rng.randrange(20)}", 0, timeout=rng.choice((None, 300)))
                    try:
                        cache.incr(f"n{rng.randrange(20)}", rng.randrange(1, 10**12))
                    except ValueError:
                        pass
                elif op < 0.8:
                    cache.delete(key)
                elif op < 0.9:
                    cache.get_many([f"k{rng.randrange(400)}" for _ in range(5)])
                else:
                    cache.touch(key, rng.choice((None, 300)))
                if rng.random() < 0.01:
                    check(cache)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(c, i)) for i, c in enumerate(caches)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    check(caches[0])
    assert 0 < caches[0].bytes_used <= budget
    assert caches[0].usage()["evictions"] > 0
