"""marketdata.cache: cache-through, X-Cache report, negative caching, stale-on-error,
remembered errors, single-flight, batches and stats.

These run on whatever cache the session configured: local memory by default, Redis when
REDIS_URL is set (``REDIS_URL=redis://127.0.0.1:6379/15 pytest tests/marketdata``).
"""

from __future__ import annotations

import threading
import time

import pytest
from django.core.cache import cache as django_cache

from marketdata import cache as md_cache
from marketdata.cache import (
    HIT,
    MISS,
    STALE,
    TTLPolicy,
    cache_key,
    end_report,
    fetch_many_through,
    fetch_through,
    start_report,
)
from marketdata.errors import (
    NotFound,
    UpstreamBadResponse,
    UpstreamRateLimited,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from tests.clocks import eventually, local_cache_expiry, move_time
from tests.conftest import REDIS_URL
from tests.marketdata.threads import run_threads

FIXED = TTLPolicy("fixed", open=60, extended=60, closed=60, market_aware=False)
LONG = TTLPolicy("long", open=3600, extended=3600, closed=3600, market_aware=False)
PARAMS = {"symbol": "AAPL"}


class Fetch:
    """A fetch callable that counts calls; ``outcomes`` are returned/raised in turn."""

    def __init__(self, *outcomes, delay: float = 0.0) -> None:
        self.outcomes = list(outcomes) or ["value"]
        self.delay = delay
        self.calls = 0
        self.args: list = []
        self._lock = threading.Lock()
        # A call from the second on waits for ``gate`` (when set) instead of sleeping: a
        # slow upstream the test ends when it wants to (a hung one never ends in time).
        self.gate: threading.Event | None = None

    def __call__(self, *args):
        with self._lock:
            index = min(self.calls, len(self.outcomes) - 1)
            self.calls += 1
            self.args.append(args)
        if self.gate is not None and index:
            assert self.gate.wait(10), "the test never let the slow call end"
        if self.delay:
            time.sleep(self.delay)
        outcome = self.outcomes[index]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


def get(fetch, params=PARAMS, policy=FIXED, call="thing", group=None):
    return fetch_through("t", call, params, fetch, policy, group=group)


@pytest.fixture
def report():
    """Collect the cache report of everything done inside the test (one 'request')."""
    rep, token = start_report()
    yield rep
    end_report(token)


@pytest.fixture
def clock(monkeypatch):
    """Move the cache module's wall clock forward (freshness), leaving real expiry alone."""
    return move_time(monkeypatch, md_cache)


@pytest.fixture
def expiry(monkeypatch):
    """Move time forward for the cache module and for the cache's own expiry: the
    in-process backend's clock is moved; Redis expires keys on its own clock, so on Redis
    the wall clock is what is tested and this sleeps."""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    if not isinstance(caches["default"], LocMemCache):
        return time.sleep
    return move_time(monkeypatch, md_cache, *local_cache_expiry())


def unavailable() -> UpstreamUnavailable:
    return UpstreamUnavailable("t", "Test provider could not be reached")


# -- keys ---------------------------------------------------------------------------------------
class TestKeys:
    def test_sorted_params(self):
        assert cache_key("yahoo", "chart", {"symbol": "AAPL", "range": "1d"}) \
            == cache_key("yahoo", "chart", {"range": "1d", "symbol": "AAPL"}) \
            == "md:2:yahoo:chart:range=1d&symbol=AAPL"

    def test_no_params(self):
        assert cache_key("yahoo", "x") == "md:2:yahoo:x:"

    def test_long_params_hashed(self):
        params = {"symbols": ",".join(f"S{i}" for i in range(100))}
        key = cache_key("yahoo", "quote", params)
        assert len(key) < 100
        assert key == cache_key("yahoo", "quote", dict(params))
        assert key != cache_key("yahoo", "quote", {"symbols": params["symbols"] + ",X"})


# -- hit / miss / report ---------------------------------------------------------------------------
class TestFetchThrough:
    def test_miss_then_hit(self):
        fetch = Fetch({"price": 1.5})
        assert get(fetch) == {"price": 1.5}
        assert get(fetch) == {"price": 1.5}
        assert fetch.calls == 1

    def test_params_and_calls_are_separate_entries(self):
        fetch = Fetch("a", "b", "c")
        assert get(fetch, {"symbol": "AAPL"}) == "a"
        assert get(fetch, {"symbol": "MSFT"}) == "b"
        assert get(fetch, {"symbol": "AAPL"}, call="other") == "c"
        assert get(fetch, {"symbol": "AAPL"}) == "a"
        assert fetch.calls == 3

    def test_expired_entry_is_fetched_again(self, clock):
        fetch = Fetch("old", "new")
        assert get(fetch) == "old"
        clock(61)
        assert get(fetch) == "new"
        assert get(fetch) == "new"
        assert fetch.calls == 2

    def test_ttl_from_policy(self, settings):
        settings.CACHE_TTL_CAP_SECONDS = None
        get(Fetch("v"), policy=LONG)
        entry = django_cache.get(cache_key("t", "thing", PARAMS))
        assert entry.fresh_until - entry.stored_at == pytest.approx(3600)

    def test_report_miss_then_hit(self):
        fetch = Fetch("v")
        first, token = start_report()
        get(fetch)
        end_report(token)
        assert first.statuses == [MISS]
        assert first.header == MISS
        assert first.min_ttl == pytest.approx(60, abs=1)
        second, token = start_report()
        get(fetch)
        end_report(token)
        assert second.statuses == [HIT]
        assert second.header == HIT
        assert 0 < second.min_ttl <= 60

    def test_report_worst_status_wins(self, report):
        get(Fetch("a"), {"symbol": "A"})
        get(Fetch("a"), {"symbol": "A"})
        assert report.header == MISS
        assert report.statuses == [MISS, HIT]

    def test_empty_report_has_no_header(self, report):
        assert report.header is None

    def test_no_report_outside_a_request(self):
        assert get(Fetch("v")) == "v"  # nothing to note on, and no error


# -- negative caching ----------------------------------------------------------------------------
class TestNegativeCaching:
    def test_not_found_is_remembered(self, report):
        fetch = Fetch(NotFound("Symbol ZZZZ not found"))
        with pytest.raises(NotFound, match="ZZZZ"):
            get(fetch)
        with pytest.raises(NotFound, match="ZZZZ") as info:
            get(fetch)
        assert info.value.status_code == 404
        assert fetch.calls == 1
        assert report.statuses == [MISS, HIT]

    def test_negative_ttl_is_bounded(self, settings):
        settings.CACHE_TTL_CAP_SECONDS = None
        with pytest.raises(NotFound):
            get(Fetch(NotFound("x")), policy=LONG)
        entry = django_cache.get(cache_key("t", "thing", PARAMS))
        assert entry.value is None and entry.error["cls"] == "NotFound"
        assert entry.fresh_until - entry.stored_at == pytest.approx(300)

    def test_not_found_is_never_served_as_stale(self, clock):
        fetch = Fetch(NotFound("gone"), unavailable())
        with pytest.raises(NotFound):
            get(fetch)
        clock(61)
        with pytest.raises(UpstreamUnavailable):
            get(fetch)
        assert fetch.calls == 2


# -- stale-on-error and remembered errors ----------------------------------------------------------
class TestStaleOnError:
    def test_stale_copy_served_when_upstream_fails(self, clock):
        fetch = Fetch({"price": 1}, unavailable(), {"price": 2})
        assert get(fetch) == {"price": 1}
        clock(61)
        rep, token = start_report()
        assert get(fetch) == {"price": 1}
        end_report(token)
        assert rep.header == STALE
        assert rep.statuses == [STALE]
        assert fetch.calls == 2

    def test_stale_again_within_the_error_hold_without_calling(self, clock, report):
        fetch = Fetch("v1", unavailable(), "v2")
        get(fetch)
        clock(61)
        assert get(fetch) == "v1"
        assert get(fetch) == "v1"
        assert fetch.calls == 2
        assert report.statuses == [MISS, STALE, STALE]

    def test_recovery_after_the_hold(self, clock):
        fetch = Fetch("v1", unavailable(), "v2")
        get(fetch)
        clock(61)
        assert get(fetch) == "v1"
        django_cache.delete(cache_key("t", "thing", PARAMS) + ":err")  # the 2 s hold is over
        rep, token = start_report()
        assert get(fetch) == "v2"
        end_report(token)
        assert rep.header == MISS
        assert fetch.calls == 3

    @pytest.mark.parametrize("error", [
        UpstreamUnavailable("t", "down"), UpstreamTimeout("t", "slow"),
        UpstreamBadResponse("t", "HTTP 500", 500), UpstreamRateLimited("t", "429", 429),
    ])
    def test_every_upstream_error_falls_back_to_stale(self, clock, error):
        fetch = Fetch("v1", error)
        get(fetch)
        clock(61)
        assert get(fetch) == "v1"

    def test_with_real_expiry(self, settings, report, expiry):
        """CACHE_TTL_CAP_SECONDS=1: the entry really goes stale and is still served."""
        settings.CACHE_TTL_CAP_SECONDS = 1
        fetch = Fetch("v1", unavailable())
        assert get(fetch) == "v1"
        expiry(1.1)
        assert get(fetch) == "v1"
        assert fetch.calls == 2
        assert report.statuses == [MISS, STALE]

    @pytest.mark.slow("on Redis, waits for Redis's own expiry")
    def test_staleness_is_bounded(self, settings, expiry):
        settings.CACHE_TTL_CAP_SECONDS = 1
        settings.CACHE_MAX_STALE_SECONDS = 1
        fetch = Fetch("v1", unavailable())
        get(fetch)
        expiry(2.1)  # fresh 1 s + stale 1 s, then gone
        with pytest.raises(UpstreamUnavailable):
            get(fetch)

    def test_no_stale_copy_error_propagates(self):
        fetch = Fetch(unavailable())
        with pytest.raises(UpstreamUnavailable) as info:
            get(fetch)
        assert info.value.status_code == 503
        assert info.value.provider == "t"

    @pytest.mark.parametrize("error", [
        UpstreamUnavailable("t", "down"), UpstreamTimeout("t", "slow"),
        UpstreamBadResponse("t", "HTTP 500", 500),
    ])
    def test_remembered_error_prevents_a_second_call(self, error):
        fetch = Fetch(error, "late")
        with pytest.raises(type(error)):
            get(fetch)
        with pytest.raises(type(error)) as info:
            get(fetch)
        assert fetch.calls == 1
        assert info.value.detail == error.detail
        assert info.value.provider == "t"
        assert info.value.status_code == error.status_code
        assert info.value.upstream_status == error.upstream_status

    @pytest.mark.slow("on Redis, waits for Redis's own expiry")
    def test_remembered_error_expires(self, expiry):
        fetch = Fetch(unavailable(), "ok")
        with pytest.raises(UpstreamUnavailable):
            get(fetch)
        expiry(md_cache._ERROR_HOLD_SECONDS + 0.1)
        assert get(fetch) == "ok"
        assert fetch.calls == 2

    def test_unexpected_exceptions_are_not_cached(self):
        fetch = Fetch(KeyError("parser bug"), "ok")
        with pytest.raises(KeyError):
            get(fetch)
        assert get(fetch) == "ok"
        assert fetch.calls == 2


# -- single-flight ---------------------------------------------------------------------------------
class TestSingleFlight:
    def test_50_threads_one_cold_key_one_fetch(self):
        fetch = Fetch({"price": 42}, delay=0.3)
        results = run_threads(50, lambda: get(fetch))
        assert fetch.calls == 1
        assert results == [("ok", {"price": 42})] * 50

    def test_stampede_reports_one_miss(self):
        fetch = Fetch("v", delay=0.2)
        headers: list = []
        lock = threading.Lock()

        def one_request():
            rep, token = start_report()
            try:
                return get(fetch)
            finally:
                end_report(token)
                with lock:
                    headers.append(rep.header)

        run_threads(20, one_request)
        assert sorted(headers) == [HIT] * 19 + [MISS]
        assert md_cache.stats.snapshot()["t"]["thing"] == {"miss": 1, "hit": 19}

    def test_stampede_on_a_failing_upstream_makes_one_call(self):
        fetch = Fetch(unavailable(), delay=0.2)
        results = run_threads(20, lambda: get(fetch))
        assert fetch.calls == 1
        assert all(kind == "error" and isinstance(exc, UpstreamUnavailable)
                   for kind, exc in results)

    def test_stampede_on_not_found_makes_one_call(self):
        fetch = Fetch(NotFound("nope"), delay=0.2)
        results = run_threads(20, lambda: get(fetch))
        assert fetch.calls == 1
        assert all(kind == "error" and isinstance(exc, NotFound) for kind, exc in results)

    def test_stampede_on_a_stale_key_makes_one_call(self, clock):
        fetch = Fetch("v1", "v2")
        get(fetch)
        clock(61)
        fetch.delay = 0.2
        results = run_threads(20, lambda: get(fetch))
        assert fetch.calls == 2
        assert results == [("ok", "v2")] * 20

    def test_different_keys_do_not_wait_for_each_other(self):
        a, b = {"symbol": "AAA"}, {"symbol": "BBB"}
        both_inside = threading.Barrier(2)

        def fetch_that_needs_the_other_running():
            both_inside.wait(3)  # BrokenBarrierError if the two fetches were serialised
            return "v"

        results = run_threads(2, lambda: None)  # warm threads machinery
        assert results == [("ok", None)] * 2
        out: dict = {}

        def call(params, name):
            out[name] = get(fetch_that_needs_the_other_running, params)

        threads = [threading.Thread(target=call, args=(a, "a")),
                   threading.Thread(target=call, args=(b, "b"))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert out == {"a": "v", "b": "v"}
        assert len(md_cache._key_locks) == 0  # a key's lock lives while it is in use

    def test_keys_never_share_a_lock(self):
        """A leader holding its key (an upstream hanging until the deadline) holds no
        other key: every key has a lock of its own, whatever its hash."""
        from marketdata.cache import _KeyLocks

        locks = _KeyLocks()
        with locks.lock("a") as first, locks.lock("b") as second, locks.lock("a") as again:
            assert first is again and first is not second
            assert len(locks) == 2
        assert len(locks) == 0

    def test_waits_for_another_process_that_holds_the_flight_lock(self, report):
        key = cache_key("t", "thing", PARAMS)
        assert django_cache.add(f"{key}:flight", "other-process", 30)

        def other_process_finishes():
            time.sleep(0.2)
            md_cache._store(key, "from-other", 60)
            django_cache.delete(f"{key}:flight")

        helper = threading.Thread(target=other_process_finishes)
        helper.start()
        fetch = Fetch("mine")
        try:
            assert get(fetch) == "from-other"
        finally:
            helper.join(5)
        assert fetch.calls == 0
        assert report.statuses == [HIT]

    def test_gives_up_waiting_on_a_dead_leader(self, settings):
        settings.CACHE_FLIGHT_TIMEOUT_SECONDS = 0.3
        key = cache_key("t", "thing", PARAMS)
        assert django_cache.add(f"{key}:flight", "dead-process", 30)
        fetch = Fetch("mine")
        started = time.monotonic()
        assert get(fetch) == "mine"
        assert 0.25 <= time.monotonic() - started < 5
        assert fetch.calls == 1
        assert django_cache.get(f"{key}:flight") == "dead-process"  # not ours to delete

    def test_flight_lock_released_after_fetch(self):
        get(Fetch("v"))
        with pytest.raises(UpstreamUnavailable):
            get(Fetch(unavailable()), {"symbol": "X"})
        assert django_cache.get(cache_key("t", "thing", PARAMS) + ":flight") is None
        assert django_cache.get(cache_key("t", "thing", {"symbol": "X"}) + ":flight") is None

    def test_leader_rechecks_after_winning_the_lock(self, monkeypatch):
        """Another process may finish (store + release) between our check and our SET NX:
        the new leader must look again instead of calling upstream a second time."""
        key = cache_key("t", "thing", PARAMS)
        real_add = md_cache._safe_add
        raced = []

        def add_after_other_process_finished(lock_key, token, timeout):
            if lock_key == f"{key}:flight" and not raced:
                raced.append(True)
                md_cache._store(key, "from-other", 60)  # the other leader's result...
            return real_add(lock_key, token, timeout)  # ...and its lock is already gone

        monkeypatch.setattr(md_cache, "_safe_add", add_after_other_process_finished)
        fetch = Fetch("mine")
        assert get(fetch) == "from-other"
        assert fetch.calls == 0


# -- batches ---------------------------------------------------------------------------------------
def many(items, fetch_batch, policy=FIXED, params=None):
    return fetch_many_through("t", "quote", items, fetch_batch, policy, group="quotes",
                              params=params)


class TestFetchMany:
    def test_one_batch_call_order_kept_unknown_dropped(self, report):
        batch = Fetch({"AAPL": 1, "MSFT": 2})
        result = many(["MSFT", "GOOG", "AAPL", "MSFT"], batch)
        assert list(result.items()) == [("MSFT", 2), ("AAPL", 1)]
        assert batch.calls == 1
        assert batch.args == [(["MSFT", "GOOG", "AAPL"],)]
        assert report.header == MISS

    def test_only_missing_items_fetched_unknown_remembered(self):
        many(["AAPL", "MSFT", "GOOG"], Fetch({"AAPL": 1, "MSFT": 2}))
        batch = Fetch({"NEW": 3, "GOOG": 9})
        rep, token = start_report()
        result = many(["GOOG", "AAPL", "NEW", "MSFT"], batch)
        end_report(token)
        assert list(result.items()) == [("AAPL", 1), ("NEW", 3), ("MSFT", 2)]
        assert batch.args == [(["NEW"],)]  # GOOG is remembered as unknown
        assert sorted(rep.statuses) == sorted([HIT, HIT, MISS, HIT])

    def test_all_cached_no_call(self, report):
        many(["AAPL", "MSFT"], Fetch({"AAPL": 1, "MSFT": 2}))
        batch = Fetch({})
        assert many(["MSFT", "AAPL"], batch) == {"MSFT": 2, "AAPL": 1}
        assert list(many(["MSFT", "AAPL"], batch)) == ["MSFT", "AAPL"]
        assert batch.calls == 0
        assert report.statuses == [MISS, MISS, HIT, HIT, HIT, HIT]

    def test_items_share_entries_across_batches(self):
        many(["AAPL", "MSFT"], Fetch({"AAPL": 1, "MSFT": 2}))
        batch = Fetch({"TSLA": 3})
        assert many(["TSLA", "AAPL"], batch) == {"TSLA": 3, "AAPL": 1}
        assert batch.args == [(["TSLA"],)]

    def test_extra_items_in_the_answer_are_ignored(self):
        assert many(["AAPL"], Fetch({"AAPL": 1, "EXTRA": 2})) == {"AAPL": 1}

    def test_params_separate_entries(self):
        batch = Fetch({"AAPL": 1}, {"AAPL": 2})
        assert many(["AAPL"], batch) == {"AAPL": 1}
        assert many(["AAPL"], batch, params={"region": "GB"}) == {"AAPL": 2}
        assert batch.calls == 2

    def test_empty(self):
        batch = Fetch({})
        assert many([], batch) == {}
        assert batch.calls == 0

    def test_stale_path(self, clock):
        many(["AAPL", "MSFT"], Fetch({"AAPL": 1, "MSFT": 2}))
        clock(61)
        batch = Fetch(unavailable())
        rep, token = start_report()
        result = many(["MSFT", "AAPL"], batch)
        again = many(["MSFT", "AAPL"], batch)  # within the error hold: no second call
        end_report(token)
        assert list(result.items()) == [("MSFT", 2), ("AAPL", 1)]
        assert again == result
        assert batch.calls == 1
        assert rep.header == STALE
        assert rep.statuses == [STALE] * 4

    def test_error_without_stale_propagates_and_is_remembered(self):
        batch = Fetch(UpstreamTimeout("t", "slow"), {"AAPL": 1})
        with pytest.raises(UpstreamTimeout):
            many(["AAPL", "MSFT"], batch)
        with pytest.raises(UpstreamTimeout):
            many(["MSFT", "AAPL"], batch)
        assert batch.calls == 1

    def test_single_flight_for_a_batch(self):
        batch = Fetch({"AAPL": 1, "MSFT": 2}, delay=0.3)
        results = run_threads(30, lambda: many(["AAPL", "MSFT"], batch))
        assert batch.calls == 1
        assert results == [("ok", {"AAPL": 1, "MSFT": 2})] * 30


# -- stats -----------------------------------------------------------------------------------------
class TestStats:
    def test_snapshot_counts(self, clock):
        fetch = Fetch("v1", unavailable())
        get(fetch, group="grp")          # miss
        get(fetch, group="grp")          # hit
        get(fetch, group="grp")          # hit
        with pytest.raises(NotFound):
            get(Fetch(NotFound("x")), {"symbol": "ZZ"}, group="grp")  # miss
        with pytest.raises(UpstreamUnavailable):
            get(Fetch(unavailable()), {"symbol": "DOWN"}, group="grp")  # error
        clock(61)
        get(fetch, group="grp")          # stale
        many(["AAPL", "GONE"], Fetch({"AAPL": 1}))  # 2 misses in 'quotes'
        many(["AAPL"], Fetch({}))                   # 1 hit in 'quotes'
        snap = md_cache.stats.snapshot()
        assert snap == {"t": {"grp": {"miss": 2, "hit": 2, "error": 1, "stale": 1},
                              "quotes": {"miss": 2, "hit": 1}}}

    def test_group_defaults_to_call(self):
        get(Fetch("v"), call="chart")
        assert md_cache.stats.snapshot() == {"t": {"chart": {"miss": 1}}}

    def test_snapshot_accumulates_across_flushes(self):
        get(Fetch("v"))
        assert md_cache.stats.snapshot()["t"]["thing"] == {"miss": 1}
        get(Fetch("v"))
        get(Fetch("v"))
        assert md_cache.stats.snapshot()["t"]["thing"] == {"miss": 1, "hit": 2}


# -- Redis-only checks -----------------------------------------------------------------------------
@pytest.mark.redis
@pytest.mark.skipif(not REDIS_URL, reason="needs a real Redis (set REDIS_URL)")
class TestOnRedis:
    def test_session_really_uses_redis(self):
        from django.core.cache import caches

        assert type(caches["default"]).__module__.startswith("django_redis")

    def test_server_side_expiry_keeps_the_stale_copy(self, settings):
        settings.CACHE_TTL_CAP_SECONDS = None
        settings.CACHE_MAX_STALE_SECONDS = 500
        get(Fetch("v"))
        key = cache_key("t", "thing", PARAMS)
        assert 555 <= django_cache.ttl(key) <= 560  # 60 s fresh + 500 s stale

    def test_remembered_error_and_negative_entry_ttls(self, settings):
        settings.CACHE_TTL_CAP_SECONDS = None
        with pytest.raises(UpstreamUnavailable):
            get(Fetch(unavailable()))
        assert 0 < django_cache.ttl(cache_key("t", "thing", PARAMS) + ":err") <= 2
        with pytest.raises(NotFound):
            get(Fetch(NotFound("x")), {"symbol": "ZZ"}, policy=LONG)
        assert 295 <= django_cache.ttl(cache_key("t", "thing", {"symbol": "ZZ"})) <= 300


# -- the request deadline and the stale grace -------------------------------------------------
class TestDeadlineAndGrace:
    def test_a_slow_upstream_serves_stale_after_the_grace_and_refreshes_later(
            self, clock, settings):
        settings.STALE_GRACE_SECONDS = 0.2
        fetch = Fetch("v1", "v2")
        get(fetch)
        clock(61)
        fetch.gate = threading.Event()  # the refresh hangs until the test lets it end
        rep, token = start_report()
        started = time.monotonic()
        assert get(fetch) == "v1"
        end_report(token)
        assert 0.15 < time.monotonic() - started < 1.5  # the grace, not the hung call
        assert rep.header == STALE
        fetch.gate.set()  # the background call finishes and stores its answer
        assert eventually(lambda: get(fetch) == "v2")
        assert fetch.calls == 2

    def test_with_a_stale_copy_the_upstream_gets_one_attempt(self, clock):
        from marketdata import http as md_http

        attempts_caps = []

        def fetch():
            attempts_caps.append(md_http._max_attempts.get())
            raise unavailable()

        get(Fetch("v1"))
        clock(61)
        started = time.monotonic()
        assert get(fetch) == "v1"
        assert time.monotonic() - started < 1.5  # at once, not after the 2 s grace
        assert attempts_caps == [1]

    def test_without_a_stale_copy_retries_stay_on(self):
        from marketdata import http as md_http

        caps = []
        get(lambda: caps.append(md_http._max_attempts.get()) or "v")
        assert caps == [None]

    def test_a_waiter_without_a_stale_copy_gives_up_at_the_deadline(self):
        from marketdata import deadline
        from marketdata.errors import DeadlineExceeded

        key = cache_key("t", "thing", PARAMS)
        assert django_cache.add(f"{key}:flight", "other-process", 30)
        fetch = Fetch("mine")
        started = time.monotonic()
        with deadline.within(0.3), pytest.raises(DeadlineExceeded) as info:
            get(fetch)
        assert 0.25 <= time.monotonic() - started < 3.0  # not the 30 s flight timeout
        assert info.value.status_code == 504
        assert fetch.calls == 0

    def test_a_waiter_with_a_stale_copy_gets_it_after_the_grace(self, clock, settings):
        settings.STALE_GRACE_SECONDS = 0.2
        get(Fetch("v1"))
        clock(61)
        key = cache_key("t", "thing", PARAMS)
        assert django_cache.add(f"{key}:flight", "other-process", 30)
        fetch = Fetch("mine")
        started = time.monotonic()
        assert get(fetch) == "v1"
        assert time.monotonic() - started < 3.0  # the grace, not the 30 s flight timeout
        assert fetch.calls == 0

    def test_a_deadline_failure_is_not_remembered(self):
        """A request that ran out of time must not make the next one fail for 2 s."""
        from marketdata.errors import DeadlineExceeded

        fetch = Fetch(DeadlineExceeded("t", "no time left"), "v")
        with pytest.raises(DeadlineExceeded):
            get(fetch)
        assert get(fetch) == "v"
        assert fetch.calls == 2

    def test_one_stale_budget_for_every_call_of_an_answer(self, clock, settings,
                                                          monkeypatch):
        """An answer built from many upstream calls that each have a stale copy, with the
        upstream hanging: every call's wait ends with the request's one stale budget, in
        sequence and in a fan-out, instead of a grace per call (issue 39: press releases
        took 6.5 s and 9.9 s, trending and filings 4 s, where one call takes 2 s)."""
        from marketdata import deadline
        from marketdata.concurrency import gather_partial

        settings.STALE_GRACE_SECONDS = 0.2
        names = [f"S{n}" for n in range(3)] + [f"F{n}" for n in range(4)]
        for name in names:
            get(Fetch("old"), {"symbol": name})
        clock(61)
        hang = threading.Event()
        waits = []
        original = md_cache._produce_within_grace

        def recording(produce, release, stale, wait_until):
            waits.append(wait_until)
            return original(produce, release, stale, wait_until)

        def hanging():  # the upstream answers once released
            hang.wait(10)
            return "new"

        monkeypatch.setattr(md_cache, "_produce_within_grace", recording)
        try:
            with deadline.stale_budget() as budget:
                served = [get(hanging, {"symbol": name}) for name in names[:3]]
                fanned = gather_partial(lambda name: get(hanging, {"symbol": name}),
                                        names[3:])
        finally:
            hang.set()
        assert served == ["old"] * 3 and [v for _, v in fanned.values] == ["old"] * 4
        assert len(waits) == 7
        assert set(waits) == {budget.started + 0.2}  # one budget waited, not seven

    def test_outside_a_request_each_wait_has_its_own_grace(self, settings):
        """No budget (a stream poller, a command): each wait gets the grace from its own
        start; with one (a request), every wait ends at the first one's end."""
        from marketdata import deadline

        settings.STALE_GRACE_SECONDS = 0.05
        assert deadline.current_stale_budget() is None
        assert deadline.stale_wait_until(100.0) == 100.05
        assert deadline.stale_wait_until(200.0) == 200.05
        with deadline.stale_budget() as budget:
            waits = [deadline.stale_wait_until(t) for t in (100.0, 150.0, 300.0)]
        assert waits == [100.05] * 3 and budget.started == 100.0

    def test_a_batch_with_every_item_stale_serves_them_after_the_grace(self, clock, settings):
        settings.STALE_GRACE_SECONDS = 0.2
        calls = []
        refresh = threading.Event()

        def batch(items):
            calls.append(list(items))
            if len(calls) > 1:  # the refresh hangs until the test lets it end
                assert refresh.wait(10)
            return {i: f"{i}-{len(calls)}" for i in items}

        assert fetch_many_through("t", "q", ["A", "B"], batch, FIXED) == {"A": "A-1",
                                                                          "B": "B-1"}
        clock(61)
        started = time.monotonic()
        assert fetch_many_through("t", "q", ["A", "B"], batch, FIXED) == {"A": "A-1",
                                                                          "B": "B-1"}
        assert time.monotonic() - started < 1.5  # the grace, not the hung call
        refresh.set()  # the background call finishes and stores its answers
        assert eventually(lambda: fetch_many_through("t", "q", ["A", "B"], batch, FIXED)
                          == {"A": "A-2", "B": "B-2"})
        assert len(calls) == 2
