"""The fast path (apps.core.fastpath) beyond plain hits: the cache key and entry format it
shares with the Django path, what it leaves to Django, headers derived from settings
(security, CORS, hosts), rate limits counted alike on both paths, the access line and
metrics. In-process, through config.asgi; with REDIS_URL set the response cache and the
counters are Redis's."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from types import SimpleNamespace
from urllib.parse import parse_qsl

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from apps.core import response_cache
from apps.core.response_cache import Entry, cache_key, decode, encode
from tests.config.fastpath_client import (
    django_path,
    fast_path,
    front,
    front_concurrently,
    run,
    scope,
)
from tests.conftest import capture_logs

QUOTES = "/v1/simple-quotes?symbols=AAPL"
V2_QUOTE = "/v2/quote/AAPL"
ADMIN_KEY = "fast-path-admin-key"


def _warm(target: str, headers=None) -> None:
    for _ in range(2):
        answer = django_path(target, headers)
    assert answer.header("x-cache") == "HIT", (target, answer.status, answer.body[:200])


def _same(fast, django) -> None:
    """Equal but for the correlation id (fresh on each) and the date."""
    def strip(answer):
        status, headers, body = answer.comparable()
        return status, [h for h in headers if h[0] != "x-correlation-id"], body

    assert fast.answered_by_fast_path
    assert strip(fast) == strip(django)


# -- the shared key ----------------------------------------------------------------------------
def test_key_rules():
    key = cache_key("GET", "/v1/quotes", "b=2&a=1")
    assert key == response_cache.PREFIX + "/v1/quotes?a=1&b=2"
    assert key == cache_key("GET", "/v1/quotes", "a=1&b=2")
    for method, path in (("HEAD", "/v1/quotes"), ("POST", "/v1/quotes"), ("GET", "/docs"),
                         ("GET", "/v1/health"), ("GET", "/v1/ping"),
                         ("GET", "/v1/stream/quotes")):
        assert cache_key(method, path, "") is None, (method, path)
    assert cache_key("GET", "/v1/holders/AAPL/major", "", encoded_slash=True) is None
    long = cache_key("GET", "/v2/quotes", "symbols=" + ",".join(["AAPL"] * 60))
    unsafe = cache_key("GET", "/v1/sectors/details/Basic Materials", "")
    for digested in (long, unsafe):
        assert len(digested) == len(response_cache.PREFIX) + 64


def test_accept_language_is_part_of_the_key_only_where_it_matters():
    fr, de = "fr-FR", "de-DE"
    assert cache_key("GET", V2_QUOTE, "", fr) != cache_key("GET", V2_QUOTE, "", de)
    assert cache_key("GET", "/v2/quotes", "symbols=AAPL", fr) != \
        cache_key("GET", "/v2/quotes", "symbols=AAPL", de)
    # lang wins over the header, so the header is no longer part of the key
    assert cache_key("GET", V2_QUOTE, "lang=it", fr) == cache_key("GET", V2_QUOTE, "lang=it", de)
    assert cache_key("GET", "/v2/chart/AAPL", "", fr) == cache_key("GET", "/v2/chart/AAPL", "",
                                                                   de)
    assert cache_key("GET", V2_QUOTE, "", " FR-fr ") == cache_key("GET", V2_QUOTE, "", "fr-fr")


_NAMES = st.sampled_from(["a", "b", "symbol", "sym%62ol", "a+b", "a%20b", "", "lang"])
_VALUES = st.sampled_from(["", "1", "2", "AAPL", "x%2Cy", "a+b"])


@hsettings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_NAMES, _VALUES), max_size=6), st.randoms())
def test_one_key_means_one_query(pairs, random):
    """Two queries share a key only when Django reads them alike: the same values, in the
    same order, for every name (a view reads a repeated name's last value)."""
    query = "&".join(f"{n}={v}" for n, v in pairs)
    shuffled = pairs[:]
    random.shuffle(shuffled)
    other = "&".join(f"{n}={v}" for n, v in shuffled)

    def read(q):
        values: dict[str, list[str]] = {}
        for name, value in parse_qsl(q, keep_blank_values=True):
            values.setdefault(name, []).append(value)
        return values

    if cache_key("GET", "/v1/quotes", query) == cache_key("GET", "/v1/quotes", other):
        assert read(query) == read(other), (query, other)


def test_repeated_parameters_in_another_order_are_another_answer(sandbox_upstream):
    """``symbols=AAPL&symbols=MSFT`` answers MSFT (the last one) and the reverse answers
    AAPL: a stored answer for one is never the answer for the other."""
    first, second = "/v1/simple-quotes?symbols=AAPL&symbols=MSFT", \
        "/v1/simple-quotes?symbols=MSFT&symbols=AAPL"
    _warm(first)
    assert fast_path(second).status == 0, "a miss: Django computes it"
    answer = front(second)
    assert json.loads(answer.body)[0]["symbol"] == "AAPL"
    assert json.loads(fast_path(first).body)[0]["symbol"] == "MSFT"
    # Parameters with different names may come in any order: one entry.
    _warm("/v1/similar?symbol=AAPL&limit=3")
    assert fast_path("/v1/similar?limit=3&symbol=AAPL").answered_by_fast_path


def test_another_language_is_never_served_the_stored_body(sandbox_upstream):
    _warm(V2_QUOTE, {"accept-language": "fr-FR"})
    assert fast_path(V2_QUOTE, {"accept-language": "fr-FR"}).answered_by_fast_path
    assert fast_path(V2_QUOTE, {"accept-language": "de-DE"}).status == 0
    assert fast_path(V2_QUOTE).status == 0
    # With lang in the query the header does not matter: one entry for all clients.
    _warm(V2_QUOTE + "?lang=it", {"accept-language": "fr-FR"})
    assert fast_path(V2_QUOTE + "?lang=it", {"accept-language": "de-DE"}).answered_by_fast_path


# -- the shared entry --------------------------------------------------------------------------
def test_entry_round_trip_and_garbage():
    entry = Entry(b'{"a":1}', (("Content-Type", "application/json"),
                               ("X-Search-Provider", "algolia")), time.time() + 5)
    assert decode(encode(entry)) == entry
    for blob in (None, b"", b"MDR1", b"MDR1" + b"\0" * 12 + b"[[", ("body", "type"),
                 encode(Entry(b"", (("X-Other", "x"),), 0.0))):
        assert decode(blob) is None


def test_an_entry_lives_exactly_as_long_as_its_data():
    """Stored for the data's remaining freshness to the millisecond (its Cache-Control in
    whole seconds): cut to whole seconds, the entry expired before its data, and until the
    data did every request was built by Django with nothing it could store."""
    from django.http import HttpResponse
    from django.test import RequestFactory

    from apps.core.middleware import ResponseCacheMiddleware
    from marketdata.cache_report import HIT, note

    def view(request):
        note(HIT, 5.7)
        return HttpResponse(b'{"fresh":true}', content_type="application/json")

    target = f"/v1/simple-quotes?symbols=AAPL&exact={time.monotonic_ns()}"
    before = time.time()
    response = ResponseCacheMiddleware(view)(RequestFactory().get(target))
    assert response["Cache-Control"] == "public, max-age=5"
    entry = response_cache.get_store().get(cache_key("GET", "/v1/simple-quotes",
                                                     target.partition("?")[2]))
    assert before + 5.7 <= entry.expires <= time.time() + 5.7


def test_a_local_entry_is_decoded_once_per_write():
    """The local store decodes a stored blob once: the same entry at every read until the
    key is written again; an expired one is a miss all the same."""
    from django.core.cache import caches

    from marketdata.locmem import ByteBoundedLocMemCache

    cache = caches["default"]
    if not isinstance(cache, ByteBoundedLocMemCache):
        pytest.skip("the response cache is Redis's")
    store = response_cache.LocalEntries(cache)
    key = f"{response_cache.PREFIX}/v1/test-decoded?{time.monotonic_ns()}"
    store.set(key, Entry(b'{"a":1}', (("Content-Type", "application/json"),),
                         time.time() + 30), 30)
    first = store.get(key)
    assert first is not None and first.body == b'{"a":1}'
    assert store.get(key) is first
    store.set(key, Entry(b'{"a":2}', (("Content-Type", "application/json"),),
                         time.time() + 30), 30)
    assert store.get(key).body == b'{"a":2}'
    store.set(key, Entry(b'{"a":3}', (("Content-Type", "application/json"),),
                         time.time() - 1), 30)
    assert store.get(key) is None
    cache.set(key, b"garbage", 30)
    assert store.get(key) is None and store.get(key) is None


def test_an_expired_entry_is_a_miss_on_both_paths(sandbox_upstream):
    _warm(QUOTES)
    key = cache_key("GET", "/v1/simple-quotes", "symbols=AAPL")
    store = response_cache.get_store()
    entry = store.get(key)
    store.set(key, Entry(entry.body, entry.headers, time.time() - 1), 60)
    assert store.get(key) is None
    assert fast_path(QUOTES).status == 0
    django_path(QUOTES)  # recomputed (from the data cache) and stored again
    assert store.get(key).expires > time.time()
    assert fast_path(QUOTES).answered_by_fast_path


def _expire(target: str) -> None:
    path, _, query = target.partition("?")
    key = cache_key("GET", path, query)
    store = response_cache.get_store()
    entry = store.get(key)
    store.set(key, Entry(entry.body, entry.headers, time.time() - 1), 60)
    assert store.get(key) is None


def test_misses_of_one_key_wait_for_one_computation(sandbox_upstream):
    """An entry expires under 20 clients: one request computes it in Django, the 19 others
    wait for it on the event loop and are served the entry it stored, as hits."""
    _warm(QUOTES)
    _expire(QUOTES)
    with capture_logs("apps.core.access", logging.INFO) as logs:
        answers = front_concurrently(QUOTES, 20)
    assert {a.status for a in answers} == {200}
    assert len({a.body for a in answers}) == 1
    lines = _access(logs.records(), "/v1/simple-quotes")
    assert sorted(line["module"] for line in lines) == ["fastpath"] * 19 + ["middleware"]
    assert sum(a.header("x-cache") == "HIT" for a in answers) >= 19
    from apps.core.fastpath import fast_path as answerer

    assert not answerer._leaders, "the leader is done"


def test_a_leader_that_stores_nothing_sends_its_followers_to_django(sandbox_upstream,
                                                                    monkeypatch):
    """The leader's answer was not stored (an error, a stale answer): the request behind
    it goes to Django, having spent its wait out of its stale budget, and the key's next
    misses go straight to Django until a hit shows its answers are stored again."""
    from apps.core.fastpath import MISSED_KEY
    from apps.core.fastpath import fast_path as answerer
    from apps.core.middleware import STALE_BUDGET_KEY

    target = f"{QUOTES}&leader={time.monotonic_ns()}"  # a key nothing has stored

    async def send(message):
        raise AssertionError("nothing is answered here")

    behind = answerer._behind_leader
    arrived = []

    async def counted(*args):
        arrived.append(time.monotonic())
        return await behind(*args)

    monkeypatch.setattr(answerer, "_behind_leader", counted)

    async def main():
        leader, follower = scope(target), scope(target)
        assert not await answerer(leader, None, send)
        assert MISSED_KEY in leader
        with answerer.leading(leader):
            waiting = asyncio.ensure_future(answerer(follower, None, send))
            while len(arrived) < 2:  # the follower's cache read (a round trip on Redis)
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.05)
            assert not waiting.done(), "it waits for the leader"
        started = time.monotonic()
        assert await waiting is False
        budget = follower[STALE_BUDGET_KEY]
        assert budget.started is not None and budget.started <= started - 0.04
        assert MISSED_KEY not in follower
        later = scope(target)
        assert not await answerer(later, None, send)
        assert MISSED_KEY not in later, "no leader for a key whose answers are not stored"

    run(main())
    key = cache_key("GET", "/v1/simple-quotes", target.partition("?")[2])
    assert key in answerer._unstored
    _warm(target)
    assert fast_path(target).answered_by_fast_path
    assert key not in answerer._unstored, "a hit: its misses wait for a leader again"


def test_the_fast_path_reads_the_entries_the_django_path_writes(sandbox_upstream, settings):
    from apps.ratelimit.counters import is_redis

    store = response_cache.get_store()
    from django.core.cache import caches

    expected = response_cache.RedisEntries if is_redis(caches["default"]) else \
        response_cache.LocalEntries
    assert isinstance(store, expected)
    _warm("/v1/search?query=apple&hits=5")
    answer = fast_path("/v1/search?query=apple&hits=5")
    assert answer.header("x-search-provider"), "headers that describe the body travel with it"


# -- what goes to Django -----------------------------------------------------------------------
@pytest.mark.parametrize(("target", "kwargs"), [
    (QUOTES, {"method": "HEAD"}),
    (QUOTES, {"method": "POST"}),
    (QUOTES, {"headers": {"content-length": "5"}}),
    (QUOTES, {"headers": {"transfer-encoding": "chunked"}}),
    (QUOTES, {"headers": [("host", "a"), ("host", "b")]}),  # "a,b" is no host
    ("/docs", {}),
    ("/v1/simple-quotes?symbols=MSFT", {}),  # a miss
])
def test_falls_through(sandbox_upstream, target, kwargs):
    _warm(QUOTES)
    assert fast_path(target, **kwargs).status == 0


def test_falls_through_for_a_host_django_refuses(sandbox_upstream, settings):
    _warm(QUOTES)
    settings.ALLOWED_HOSTS = ["api.example"]
    assert fast_path(QUOTES, {"host": "evil.example"}).status == 0
    assert django_path(QUOTES, {"host": "evil.example"}).status == 400
    assert fast_path(QUOTES, {"host": "api.example"}).answered_by_fast_path


def test_falls_through_for_the_ssl_redirect(sandbox_upstream, settings):
    _warm(QUOTES)
    settings.SECURE_SSL_REDIRECT = True
    assert fast_path(QUOTES).status == 0
    assert django_path(QUOTES).status == 301
    assert fast_path(QUOTES, scheme="https").answered_by_fast_path


def test_off_when_switched_off_or_the_middleware_is_unknown(sandbox_upstream, settings):
    from apps.core.fastpath import fast_path as answerer

    _warm(QUOTES)
    assert answerer.setup().enabled, answerer.setup().reason
    settings.FAST_PATH_ENABLED = False
    assert fast_path(QUOTES).status == 0
    settings.FAST_PATH_ENABLED = True
    settings.MIDDLEWARE = ["django.middleware.gzip.GZipMiddleware", *settings.MIDDLEWARE]
    assert not answerer.setup().enabled
    assert fast_path(QUOTES).status == 0


def test_off_without_the_response_cache_but_ping_still_answers(sandbox_upstream, settings):
    _warm(QUOTES)
    settings.RESPONSE_CACHE_ENABLED = False
    assert fast_path(QUOTES).status == 0
    assert fast_path("/v1/ping").answered_by_fast_path


def test_ping_answers_while_every_thread_is_busy(monkeypatch):
    """The existing liveness guarantee, now from the loop itself."""
    import config.asgi as asgi

    async def stuck(*_args):  # pragma: no cover - must not be reached
        raise AssertionError("ping went to a thread pool")

    monkeypatch.setattr(asgi, "django_wsgi_ping", stuck)
    monkeypatch.setattr(asgi, "django_wsgi", stuck)
    assert front("/v1/ping").status == 200


# -- headers derived from settings -------------------------------------------------------------
def test_security_headers_follow_the_settings(sandbox_upstream, settings):
    _warm(QUOTES)
    settings.SECURE_HSTS_SECONDS = 3600
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_REFERRER_POLICY = "no-referrer"
    settings.SECURE_CROSS_ORIGIN_OPENER_POLICY = None
    settings.X_FRAME_OPTIONS = "SAMEORIGIN"
    for headers in ({"x-forwarded-proto": "https"}, {"x_forwarded_proto": "https"},
                    {"x-forwarded-proto": "http"}, {}):
        fast, django = fast_path(QUOTES, headers), django_path(QUOTES, headers)
        _same(fast, django)
        secure = headers.get("x-forwarded-proto", headers.get("x_forwarded_proto")) == "https"
        assert (fast.header("strict-transport-security") ==
                "max-age=3600; includeSubDomains") is secure
        assert fast.header("referrer-policy") == "no-referrer"
        assert fast.header("cross-origin-opener-policy") is None
        assert fast.header("x-frame-options") == "SAMEORIGIN"


@pytest.mark.parametrize("origin", ["https://allowed.example", "https://other.example",
                                    "null", "not a url", None])
def test_cors_with_restricted_origins(sandbox_upstream, settings, origin):
    settings.CORS_ALLOW_ALL_ORIGINS = False
    settings.CORS_ALLOWED_ORIGINS = ["https://allowed.example"]
    _warm(QUOTES)
    headers = {} if origin is None else {"origin": origin}
    fast, django = fast_path(QUOTES, headers), django_path(QUOTES, headers)
    _same(fast, django)
    allowed = fast.header("access-control-allow-origin")
    assert allowed == ("https://allowed.example" if origin == "https://allowed.example"
                       else None)


def test_inbound_correlation_ids(sandbox_upstream):
    _warm(QUOTES)
    kept = fast_path(QUOTES, {"x-correlation-id": "trace-abc-123"})
    assert kept.header("x-correlation-id") == "trace-abc-123"
    fresh = fast_path(QUOTES, {"x-correlation-id": "bad id!"})
    assert len(fresh.header("x-correlation-id")) == 16


def test_data_source_header(sandbox_upstream):
    _warm(QUOTES)
    assert fast_path(QUOTES).header("x-data-source") == "sandbox"


# -- rate limits -------------------------------------------------------------------------------
@pytest.fixture
def limited(settings, sandbox_upstream, monkeypatch):
    """A quota of 6 a day, its clock stopped: each answer's reset is the seconds left in the
    UTC day, read at one instant, so the two paths' answers compare equal (a second apart
    they differed by one: a flake, in two tests of this file on loaded machines)."""
    from apps.ratelimit import limits

    settings.USE_SECURITY = True
    settings.APP_RATE_LIMIT_PER_DAY = 6
    settings.ADMIN_API_KEY = ADMIN_KEY
    settings.TRUSTED_PROXIES = ""
    moment = time.time()
    monkeypatch.setattr(limits, "time", SimpleNamespace(time=lambda: moment))
    return settings


def test_the_daily_quota_counts_both_paths_alike(limited):
    from apps.ratelimit import limits

    _warm(QUOTES)  # two requests counted
    remaining = []
    for i in range(4):
        answer = fast_path(QUOTES) if i % 2 else django_path(QUOTES)
        assert answer.status == 200 and answer.header("x-cache") == "HIT"
        remaining.append(answer.header("x-ratelimit-remaining"))
    assert remaining == ["3", "2", "1", "0"]
    assert answer.header("ratelimit-policy") == '"daily";q=6;w=86400'
    assert answer.header("ratelimit") == \
        f'"daily";r=0;t={answer.header("x-ratelimit-reset")}'
    fast, django = fast_path(QUOTES), django_path(QUOTES)
    assert fast.status == django.status == 429
    _same(fast, django)
    body = json.loads(fast.body)
    assert body["rate_limit_info"]["count"] == 6
    assert fast.header("retry-after") == str(body["rate_limit_info"]["reset_in"])
    # A refused request was not counted, on either path.
    [row] = limits.today_counters()
    assert row.count == 6


def test_the_quota_with_origin_and_forwarded_clients(limited):
    limited.TRUSTED_PROXIES = "127.0.0.1"
    _warm(QUOTES)
    headers = {"x-forwarded-for": "1.2.3.4, 203.0.113.9", "origin": "https://a.example"}
    seen = [fast_path(QUOTES, headers) if i % 2 else django_path(QUOTES, headers)
            for i in range(6)]
    assert [a.status for a in seen] == [200] * 6
    assert [a.header("x-ratelimit-remaining") for a in seen] == ["5", "4", "3", "2", "1", "0"]
    _same(fast_path(QUOTES, headers), django_path(QUOTES, headers))


def test_the_admin_key_is_not_counted_on_the_fast_path(limited, monkeypatch):
    from apps.ratelimit import limits

    compared = []
    real = limits.hmac.compare_digest
    monkeypatch.setattr(limits.hmac, "compare_digest",
                        lambda a, b: compared.append(1) or real(a, b))
    _warm(QUOTES, {"x-api-key": ADMIN_KEY})
    for _ in range(8):
        answer = fast_path(QUOTES, {"x-api-key": ADMIN_KEY})
        assert answer.status == 200 and answer.header("x-ratelimit-limit") is None
    assert compared
    assert fast_path(QUOTES, {"x-api-key": "wrong"}).header("x-ratelimit-remaining") == "5"
    # a2wsgi folds x_api_key into the same header as x-api-key: so does the fast path
    assert fast_path(QUOTES, {"x_api_key": ADMIN_KEY}).header("x-ratelimit-limit") is None


def test_the_v2_bucket_counts_both_paths_alike(sandbox_upstream, settings):
    settings.V2_RATE_LIMIT_CAPACITY = 5
    settings.V2_RATE_LIMIT_REFILL_PER_SECOND = 0.01
    _warm(V2_QUOTE)  # two tokens
    answers = [fast_path(V2_QUOTE) if i % 2 else django_path(V2_QUOTE) for i in range(4)]
    assert [a.status for a in answers] == [200, 200, 200, 429]
    # The IETF pair on successes and refusals, on both paths: 5 tokens, 500 s to refill.
    assert {a.header("ratelimit-policy") for a in answers} == {'"bucket";q=5;w=500'}
    assert [a.header("ratelimit").split(";t=")[0] for a in answers] == [
        '"bucket";r=2', '"bucket";r=1', '"bucket";r=0', '"bucket";r=0']
    fast, django = fast_path(V2_QUOTE), django_path(V2_QUOTE)
    assert fast.status == 429 and fast.header("cache-control") == "no-store"
    assert fast.header("ratelimit") == f'"bucket";r=0;t={fast.header("retry-after")}'
    _same(fast, django)
    body = json.loads(fast.body)
    assert set(body) == {"error", "message", "retryAfterSeconds"}
    assert fast.header("retry-after") == str(body["retryAfterSeconds"])


def test_counters_unavailable_let_the_hit_through(sandbox_upstream, settings, monkeypatch):
    from apps.core.fastpath import fast_path as answerer

    settings.V2_RATE_LIMIT_CAPACITY = 5
    _warm(V2_QUOTE)

    class Down:
        async def take_token(self, *args):
            raise ConnectionError("redis is down")

    setup = answerer.setup()
    monkeypatch.setattr(setup, "counters", Down())
    with capture_logs("", logging.WARNING) as logs:
        answers = [fast_path(V2_QUOTE, {"x-correlation-id": "counters-down"})
                   for _ in range(3)]
    assert [a.status for a in answers] == [200] * 3
    # One line for the outage (marketdata.outages), not one per request.
    [line] = logs.records()
    assert (line["logger"], line["outage"]) == ("marketdata.outages", "started")
    assert line["operation"] == "rate-limit counters"
    assert line["error"] == "ConnectionError: redis is down"
    assert line["correlation_id"] == "counters-down"


# -- the access line and metrics -------------------------------------------------------------
def _access(records, path):
    return [r for r in records if r.get("api_response") and r.get("path") == path]


def test_the_access_line_has_the_django_lines_keys(sandbox_upstream):
    _warm(QUOTES + "&apikey=s3cr3t")
    with capture_logs("", logging.INFO) as logs:
        django = django_path(QUOTES + "&apikey=s3cr3t", {"x-correlation-id": "django-line"})
        fast = fast_path(QUOTES + "&apikey=s3cr3t", {"x-correlation-id": "fast-line"})
    assert fast.answered_by_fast_path and django.status == 200
    django_line, fast_line = _access(logs.records(), "/v1/simple-quotes")
    assert list(fast_line) == list(django_line)
    assert fast_line["correlation_id"] == "fast-line"
    assert fast_line["module"] == "fastpath" and django_line["module"] == "middleware"
    assert fast_line["params"] == "symbols=AAPL&apikey=REDACTED"
    assert fast_line["message"].startswith("API response sent - GET /v1/simple-quotes (200) [")
    assert "s3cr3t" not in logs.text()
    for volatile in ("asctime", "duration_ms", "message", "correlation_id", "module"):
        fast_line.pop(volatile), django_line.pop(volatile)
    assert fast_line == django_line


def test_a_429_is_logged_at_warning(limited):
    limited.APP_RATE_LIMIT_PER_DAY = 2
    _warm(QUOTES)
    with capture_logs("", logging.INFO) as logs:
        assert fast_path(QUOTES).status == 429
    [line] = _access(logs.records(), "/v1/simple-quotes")
    assert (line["level"], line["status_code"]) == ("WARNING", 429)


def test_slow_answers_are_flagged(sandbox_upstream, settings):
    settings.PERFORMANCE_THRESHOLD_MS = 0
    with capture_logs("", logging.INFO) as logs:
        answer = fast_path("/v1/ping", {"x-correlation-id": "slow-ping"})
    assert answer.answered_by_fast_path
    [slow] = [r for r in logs.records() if r["message"].startswith("Slow operation detected")]
    assert slow["level"] == "WARNING" and slow["correlation_id"] == "slow-ping"
    assert slow["threshold_ms"] == 0


def test_text_log_format():
    from marketdata.logs import build_logging_config, emit

    config = dict(build_logging_config("INFO", "text")["formatters"]["structured"])
    formatter = config.pop("()")(**config)
    logger = logging.getLogger("apps.core.access")
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger.addHandler(handler)
    try:
        emit(logger, logging.WARNING, "API response sent - GET /v1/x (429) [1.0ms]",
             {"correlation_id": "abc", "status_code": 429}, __file__)
    finally:
        logger.removeHandler(handler)
    line = formatter.format(records[0])
    assert " - apps.core.access - WARNING - [abc] - API response sent" in line
    assert line.endswith("status_code=429")


def test_metrics_count_fast_path_answers(sandbox_upstream, settings):
    metrics = pytest.importorskip("marketdata.metrics")
    from apps.core.fastpath import METRICS_MIDDLEWARE

    if METRICS_MIDDLEWARE not in settings.MIDDLEWARE:
        pytest.skip("no metrics middleware configured")
    _warm(V2_QUOTE)

    def count(route, status):
        return metrics.REQUESTS.labels(route, "GET", str(status))._value.get()

    before = count("v2/quote/<str:symbol>", 200), count("v1/ping", 200)
    assert fast_path(V2_QUOTE).answered_by_fast_path
    assert fast_path("/v1/ping").answered_by_fast_path
    assert (count("v2/quote/<str:symbol>", 200), count("v1/ping", 200)) == \
        (before[0] + 1, before[1] + 1)


def test_a_hits_headers_are_remembered_per_second_and_hold_no_entry(sandbox_upstream,
                                                                     monkeypatch):
    """A hit's headers but the per-request ones are made once per (entry, coding, origin,
    secure) and second: the next second's Cache-Control is the next second's, as Django's;
    the memo holds its entry weakly (no body kept alive past its cache entry)."""
    import weakref

    from apps.core import fastpath

    _warm(QUOTES)
    first, second = fast_path(QUOTES), fast_path(QUOTES)
    assert first.header("cache-control") == second.header("cache-control")
    memo = fastpath.fast_path.setup().hit_headers
    assert memo and all(isinstance(value[0], weakref.ref) for value in memo.values())
    now = time.time()
    monkeypatch.setattr(response_cache.time, "time", lambda: now + 1.0)
    later = fast_path(QUOTES)
    assert later.status == 200
    _same(later, django_path(QUOTES))
    age = int(first.header("cache-control").rsplit("=", 1)[1])
    later_age = int(later.header("cache-control").rsplit("=", 1)[1])
    assert later_age in (age - 1, age - 2) or age <= 1  # (a real second may pass too)
