"""Dependency outages (marketdata.outages): one line when an outage starts, a summary at
most every interval while it lasts, one line when it ends, and the counters in /metrics.
A fake clock drives the tracker: no sleeping, no timing."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest
from prometheus_client import REGISTRY
from redis.exceptions import ConnectionError as RedisConnectionError

from marketdata import outages
from tests.conftest import capture_logs


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _fallbacks(dependency: str) -> float:
    return REGISTRY.get_sample_value("marketdata_dependency_fallbacks_total",
                                     {"dependency": dependency}) or 0.0


def _sample(name: str, dependency: str) -> float | None:
    return REGISTRY.get_sample_value(name, {"dependency": dependency})


@pytest.fixture
def tracked():
    clock = Clock()
    tracker = outages.OutageTracker("fake-redis", summary_seconds=30, settle_seconds=1,
                                    clock=clock)
    with capture_logs("marketdata.outages", logging.INFO) as logs:
        yield tracker, clock, logs


def test_an_outage_is_one_start_line_bounded_summaries_and_one_end_line(tracked):
    tracker, clock, logs = tracked
    before = _fallbacks("fake-redis")
    outages_before = _sample("marketdata_dependency_outages_total", "fake-redis") or 0.0
    error = RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
    # 1,000 failures over 125 s (one every 0.125 s), from three kinds of call.
    for n in range(1000):
        tracker.failed(error, ("cache get", "cache set", "rate-limit counters")[n % 3])
        if n == 0:
            assert _sample("marketdata_dependency_down", "fake-redis") == 1.0
        clock.now += 0.125
    records = logs.records()
    started = [r for r in records if r["outage"] == "started"]
    summaries = [r for r in records if r["outage"] == "ongoing"]
    assert len(started) == 1 and len(summaries) == 4  # every 30 s: never more often
    [line] = started
    assert line["level"] == "WARNING" and line["dependency"] == "fake-redis"
    assert line["operation"] == "cache get"
    assert line["error"] == ("ConnectionError: Error 111 connecting to 127.0.0.1:6379. "
                             "Connection refused.")
    assert "exc_info" not in line and "Traceback" not in logs.text()  # a connection error
    assert [s["down_seconds"] for s in summaries] == [30.0, 60.0, 90.0, 120.0]
    assert [s["fallbacks_total"] for s in summaries] == [241, 481, 721, 961]
    assert [s["fallbacks"] for s in summaries] == [240] * 4
    assert summaries[0]["by_operation"] == {"cache get": 80, "cache set": 80,
                                            "rate-limit counters": 80}
    # A success within the settle time after the last failure does not end it; one after
    # it does, once, with the duration and the count.
    clock.now += 0.5
    tracker.succeeded("cache get")
    assert tracker.down
    clock.now += 1.0
    tracker.succeeded("cache get")
    tracker.succeeded("cache get")
    assert not tracker.down
    ended = [r for r in logs.records() if r["outage"] == "ended"]
    assert len(ended) == 1
    assert ended[0]["down_seconds"] == 126.5 and ended[0]["fallbacks_total"] == 1000
    assert len(logs.records()) == 6
    assert _fallbacks("fake-redis") - before == 1000
    assert _sample("marketdata_dependency_outages_total", "fake-redis") - outages_before == 1
    assert _sample("marketdata_dependency_down", "fake-redis") == 0.0


def test_a_success_of_another_operation_does_not_end_the_outage(tracked):
    """A Redis that refuses writes (a read-only replica) but serves reads: one outage of
    the writes, not a start and an end line per request."""
    tracker, clock, logs = tracked
    for _ in range(50):
        tracker.failed(RedisConnectionError("READONLY"), "cache set")
        clock.now += 2
        tracker.succeeded("cache get")
    assert tracker.down
    assert [r["outage"] for r in logs.records()] == ["started", "ongoing", "ongoing", "ongoing"]


def test_an_unexpected_error_logs_one_traceback_at_most(tracked):
    tracker, clock, logs = tracked
    for _ in range(20):
        try:
            raise TypeError("cannot pickle '_thread.lock' object")
        except TypeError as exc:
            tracker.failed(exc, "cache set")
        clock.now += 0.1
    [line] = logs.records()
    assert line["error"] == "TypeError: cannot pickle '_thread.lock' object"
    assert logs.text().count("Traceback") == 1


def test_a_wrapped_connection_error_is_a_connection_error():
    from django_redis.exceptions import ConnectionInterrupted

    try:
        try:
            raise RedisConnectionError("Error 111 connecting to 127.0.0.1:1.")
        except RedisConnectionError as cause:
            raise ConnectionInterrupted(connection=None) from cause
    except ConnectionInterrupted as exc:
        assert outages._connection_error(exc)
        assert outages.describe(exc) == ("ConnectionInterrupted: Redis ConnectionError: "
                                         "Error 111 connecting to 127.0.0.1:1.")
    assert not outages._connection_error(ValueError("x"))


def test_threads_and_the_event_loop_share_one_outage(tracked):
    tracker, _clock, logs = tracked
    error = ConnectionRefusedError(111, "Connection refused")

    def fail_many() -> None:
        for _ in range(500):
            tracker.failed(error, "cache get")

    async def fail_on_the_loop() -> None:
        for _ in range(500):
            tracker.failed(error, "response cache get")

    threads = [threading.Thread(target=fail_many) for _ in range(8)]
    for thread in threads:
        thread.start()
    asyncio.run(fail_on_the_loop())
    for thread in threads:
        thread.join()
    assert tracker.fallbacks == 4500
    assert [r["outage"] for r in logs.records()] == ["started"]


def test_one_tracker_per_dependency_and_process():
    assert outages.tracker() is outages.tracker("redis")
    assert outages.tracker("redis") is not outages.tracker("other")
