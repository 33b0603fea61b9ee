"""A Redis outage under requests: the real django-redis cache (and the fast path's
redis.asyncio client) pointed at a port nothing listens on. Every request still answers
(no cache, no response cache, limits let through), and the log gets one line for the
outage, not a warning with a traceback per failed call (issue 39: 4,597 warnings and
16.6 MB in 10 s)."""

from __future__ import annotations

import logging
import time

import pytest
from django.test import override_settings
from prometheus_client import REGISTRY

from tests.config.fastpath_client import front

DEAD_REDIS = {"default": {
    "BACKEND": "django_redis.cache.RedisCache",
    "LOCATION": "redis://127.0.0.1:1/0",
    "KEY_PREFIX": "outage-test",
    "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
}}


def _forget_redis_stores() -> None:
    """The per-backend stores made while the dead Redis was configured."""
    from django_redis.cache import RedisCache

    from apps.core import response_cache
    from apps.ratelimit import counters

    for stores in (response_cache._stores, counters._stores, counters._async_stores):
        stores.pop(RedisCache, None)


@pytest.fixture
def dead_redis():
    # A context manager, not the `settings` fixture: the cache is back before the shared
    # clean-up clears it.
    _forget_redis_stores()
    try:
        with override_settings(CACHES=DEAD_REDIS, V2_RATE_LIMIT_CAPACITY=1000):
            yield
    finally:
        _forget_redis_stores()


def _fallbacks() -> float:
    return REGISTRY.get_sample_value("marketdata_dependency_fallbacks_total",
                                     {"dependency": "redis"}) or 0.0


@pytest.mark.slow("200 requests, each waiting out a dead Redis's connect timeout")
def test_200_requests_against_a_dead_redis_log_the_outage_once(api, sandbox_upstream,
                                                                dead_redis, caplog):
    targets = ["/v2/quote/AAPL", "/v1/simple-quotes?symbols=MSFT", "/v2/quote/MSFT?lang=en",
               "/v2/quote-type/AAPL"]
    before = _fallbacks()
    started = time.monotonic()
    with caplog.at_level(logging.WARNING):
        statuses = [api.get(targets[n % 4]).status_code for n in range(100)]
        # The ASGI front: the fast path's response-cache read and limits fail too.
        statuses += [front(targets[n % 4]).status for n in range(100)]
    elapsed = time.monotonic() - started
    assert statuses == [200] * 200
    # Every request fell back at least once (cache reads and writes, limits).
    assert _fallbacks() - before >= 200
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING
             # slow-request lines of a loaded machine are the access log's, not the outage's
             and r.name != "apps.core.access"]
    outage = [r for r in lines if r.name == "marketdata.outages"]
    assert lines == outage, [r.getMessage()[:200] for r in lines if r not in outage][:5]
    events = [r.msg.get("outage") if isinstance(r.msg, dict) else None for r in outage]
    assert events.count("started") == 1
    # A summary at most every 30 s while it lasts: bounded by the time, not the requests.
    assert len(outage) <= 1 + int(elapsed // 30) + 1, (len(outage), elapsed)
    assert not any(r.exc_info for r in outage)  # a refused connection: no traceback
    assert REGISTRY.get_sample_value("marketdata_dependency_down", {"dependency": "redis"}) == 1
