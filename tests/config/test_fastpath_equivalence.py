"""The fast path answers a response-cache hit exactly as the Django path does, for every
endpoint: status, body and every header but ``date`` (the correlation id is the inbound
one on both). Both are driven in-process through config.asgi with the same ASGI scope, in
sandbox mode; with REDIS_URL set the cache and counters are Redis's (and the fast path
reads them through redis.asyncio)."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import get_resolver

from tests.config.fastpath_client import django_path, fast_path

CORRELATION = {"x-correlation-id": "equivalence-0001"}
ORIGIN = {"origin": "https://dashboard.example"}

# One request per GET route under /v1/ and /v2/, each answerable in sandbox mode.
SAMPLES = [
    "/v1/historical?symbol=AAPL&range=1mo&interval=1d",
    "/v1/quotes?symbols=AAPL,MSFT",
    "/v1/simple-quotes?symbols=AAPL",
    "/v1/actives",
    "/v1/gainers?count=25",
    "/v1/losers",
    "/v1/indices?index=snp&index=dax",
    "/v1/sectors",
    "/v1/sectors/symbol/AAPL",
    "/v1/sectors/details/Technology",
    "/v1/search?query=apple&hits=5",
    "/v1/similar?symbol=AAPL&limit=3",
    "/v1/news?symbol=AAPL",
    "/v1/analysis/AAPL?analysis_type=recommendations",
    "/v1/analysis/AAPL/price-targets",
    "/v1/holders/AAPL?holder_type=institutional",
    "/v1/holders/AAPL/institutional",
    "/v1/financials/AAPL?statement=income",
    "/v1/earnings-transcript/AAPL",
    "/v1/indicator?function=SMA&symbol=AAPL",
    "/v1/indicators?symbol=MSFT&functions=RSI,OBV",
    "/v2/health",
    "/v2/quote/AAPL",
    "/v2/quotes?symbols=AAPL,MSFT",
    "/v2/quote-type/AAPL",
    "/v2/analysis/AAPL/recommendations",
    "/v2/holders/AAPL/major",
    "/v2/indicators?symbols=AAPL&fields=rsi14",
    "/v2/indicators/AAPL?fields=obv,vwap",
    "/v2/chart/AAPL",
    "/v2/charts?symbols=AAPL,MSFT&limit=1",
    "/v2/capital-gains?symbols=SPY,AAPL",
    "/v2/capital-gains/SPY",
    "/v2/dividends?symbols=KO,SPY&limit=1",
    "/v2/dividends/KO?range=5y",
    "/v2/splits?symbols=AAPL,KO",
    "/v2/splits/KO",
    "/v2/ping",
    "/v2/options/AAPL?limit=2",
    "/v2/options?symbols=AAPL,SPY",
    "/v2/options/AAPL/greeks?moneyness=0.95,1.05",
    "/v2/options/SPY/surface?expirations=2",
    "/v2/recommendations/AAPL",
    "/v2/recommendations?symbols=AAPL,KO&pageLimit=1",
    "/v2/earnings-surprises/AAPL",
    "/v2/company-profile/AAPL",
    "/v2/earnings-transcript/AAPL?fields=quarter,year",
    "/v2/transcripts/AAPL?quarter=Q1",
    "/v2/transcripts/AAPL/all?limit=2",
    "/v2/financials/AAPL/income?metrics=TotalRevenue,NetIncome",
    "/v2/financials?symbols=AAPL,MSFT&statement=balance&frequency=quarterly",
    "/v2/currencies",
    "/v2/trending?region=UK",
    "/v2/market-summary?format=pretty",
    "/v2/indices?region=europe",
    "/v2/spark?symbols=AAPL,SPY,7203.T&range=5d",
    "/v2/calendar?symbols=AAPL,MSFT&range=3mo",
    "/v2/calendars/earnings?start=2025-01-20&end=2025-01-31",
    "/v2/calendars/dividends?symbols=AAPL,KO&start=2025-01-01&end=2025-03-31",
    "/v2/calendars/splits?start=2020-08-25&end=2020-09-05",
    "/v2/calendars/ipos?start=2025-03-03&end=2025-03-14&limit=3",
    "/v2/calendars/economic?start=2025-03-03&end=2025-03-14&country=US",
    "/v2/hours?region=US",
    "/v2/exchanges?fields=suffix",
    "/v2/sectors/tech?format=pretty",
    "/v2/industries/semiconductors?fields=name,topCompanies",
    "/v2/macro/series/CPIAUCSL",
    "/v2/macro/treasury-yields",
    "/v2/positioning/cot/GC=F",
    "/v2/worldnews/news/AAPL",
    "/v2/news?count=5",
    "/v2/news/AAPL?limit=2",
    "/v2/feeds?sources=bloomberg,federal-reserve&limit=3",
    "/v2/forex/news?limit=5",
    "/v2/crypto/news?pageLimit=2",
    "/v2/fear-and-greed",
    "/v2/search?q=apple&news=2",
    "/v2/lookup?q=SPY&type=etf",
    "/v2/forex/EUR/USD",
    "/v2/crypto/coins?count=3&vsCurrency=eur",
    "/v2/crypto/coins/bitcoin",
    "/v2/crypto/global",
    "/v2/crypto/trending?limit=2",
    "/v2/crypto/search?query=eth",
    "/v2/futures/GC",
    "/v2/grading-actions/AAPL",
    "/v2/price-target-consensus/AAPL",
    "/v2/price-target-summary/AAPL",
    "/v2/press-releases/AAPL",
    "/v2/filings/AAPL?limit=2",
    "/v2/filings/AAPL/facts?concepts=Revenues,Assets&limit=2",
    "/v2/filings/AAPL/cik",
    "/v2/filings/search?q=apple&size=2",
    "/v2/filings/AAPL/fails-to-deliver?months=1&limit=2",
    "/v2/filings/AAPL/insiders?start=2024-01-01&end=2025-06-30&limit=2",
    "/v2/filings/AAPL/congressional-trades",
    "/v2/etf/SPY/holdings?limit=5&top=3",
    "/v2/short/AAPL/volume?limit=3",
    "/v2/short/AAPL/interest?fields=sharesShort&limit=2",
    "/v2/filings/1067983/13f?period=2024-06-30&limit=2",
    "/v2/filings/13f/search?name=capital",
    "/v2/index-constituents/%5EDJI",
    "/v2/screeners/gainers?count=5&format=both",
    "/v2/screeners/custom",
    "/v2/backtest/AAPL",
    "/v2/risk/AAPL?benchmark=SPY",
]
# Never stored by the response cache (so never a fast-path hit): the Django path answers.
NEVER_CACHED = {"/v2/hours?region=US",  # computed from the clock, not from cached data
                "/v2/exchanges?fields=suffix",  # a table in the code, no provider data
                "/v2/health",  # built from no cached provider answer
                "/v2/ping",  # no provider answer either
                "/v2/backtest/AAPL",  # POST only: a GET is a 405
                "/v2/screeners/custom",  # POST only: a GET is a 405
                # Without FMP_API_KEY (the samples run keyless): a 501, never stored.
                "/v2/filings/AAPL/congressional-trades",
                }
# Routes without a sample: answered by the fast path without the cache, or never offered.
SPECIAL_ROUTES = {"v1/ping",  # test_ping_is_the_django_answer
                  "v1/health",  # uncacheable: test_health_is_never_a_fast_path_answer
                  "v1/stream/quotes"}  # config.asgi routes streams to Django's ASGI handler


def _route(target: str) -> str:
    from urllib.parse import unquote

    from django.urls import resolve

    return resolve(unquote(target.split("?")[0])).route


def test_the_samples_cover_every_get_route():
    def routes(resolver, prefix=""):
        for pattern in resolver.url_patterns:
            if hasattr(pattern, "url_patterns"):
                yield from routes(pattern, prefix + str(pattern.pattern))
            else:
                yield prefix + str(pattern.pattern)

    api = {r for r in routes(get_resolver()) if r.startswith(("v1/", "v2/"))}
    assert {_route(target) for target in SAMPLES} | SPECIAL_ROUTES == api


_MAX_AGE = re.compile(r"max-age=(\d+)")
_BUCKET_LEVEL = re.compile(r";r=\d+;t=\d+$")


def _normalised(answer):
    """``comparable()`` without what changes between two requests by nature: the seconds
    left in the entry (checked apart: at most one apart) and the v2 bucket's level."""
    status, headers, body = answer.comparable()
    out = []
    for name, value in headers:
        if name == "cache-control":
            value = _MAX_AGE.sub("max-age=N", value)
        elif name == "ratelimit":
            value = _BUCKET_LEVEL.sub(";r=N;t=N", value)
        out.append((name, value))
    return status, out, body


def _max_age(answer):
    found = _MAX_AGE.search(answer.header("cache-control") or "")
    return int(found.group(1)) if found else None


def _assert_same(fast, django, target):
    assert fast.answered_by_fast_path, f"{target}: the fast path did not answer a hit"
    assert _normalised(fast) == _normalised(django), target
    ages = (_max_age(fast), _max_age(django))
    assert None in ages or abs(ages[0] - ages[1]) <= 1, (target, ages)


@pytest.mark.parametrize("target", SAMPLES)
def test_a_hit_is_the_django_answer(sandbox_upstream, target):
    first = django_path(target, CORRELATION)
    stored = django_path(target, CORRELATION)
    if target in NEVER_CACHED:
        assert stored.header("x-cache") != "HIT", (target, stored.status)
        assert fast_path(target, CORRELATION).status == 0, "a miss falls through"
        return
    assert first.status == 200, (target, first.status, first.body[:300])
    assert stored.header("x-cache") == "HIT", (target, stored.headers)
    for headers in (CORRELATION, {**CORRELATION, **ORIGIN}):
        django = django_path(target, headers)
        _assert_same(fast_path(target, headers), django, target)
    # The Django path still answers the same after the fast path served it.
    assert _normalised(django_path(target, CORRELATION)) == _normalised(stored)


def test_ping_is_the_django_answer(sandbox_upstream):
    for headers in (CORRELATION, {**CORRELATION, **ORIGIN}, {**CORRELATION, "accept": "*/*"}):
        django = django_path("/v1/ping", headers)
        fast = fast_path("/v1/ping", headers)
        assert fast.answered_by_fast_path
        without_time = [(a.status, a.headers, {k: v for k, v in json.loads(a.body).items()
                                               if k != "timestamp"})
                        for a in (fast, django)]
        assert sorted(without_time[0][1]) != [], fast.headers
        fast_c, django_c = fast.comparable(), django.comparable()
        lengths = {"content-length"}
        assert [h for h in fast_c[1] if h[0] not in lengths] == \
            [h for h in django_c[1] if h[0] not in lengths]
        assert without_time[0][0] == without_time[1][0] == 200
        assert without_time[0][2] == without_time[1][2] == {"status": "healthy"}
        assert fast.header("content-length") == str(len(fast.body))


def test_ping_with_an_unusual_accept_goes_to_django(sandbox_upstream):
    assert fast_path("/v1/ping", {"accept": "text/html"}).status == 0


def test_health_is_never_a_fast_path_answer(sandbox_upstream):
    assert fast_path("/v1/health").status == 0


# -- encodings, conditional GETs, lifetimes, Vary (HttpCachingMiddleware) ---------------------
CACHED = [t for t in SAMPLES if t not in NEVER_CACHED]
ENCODINGS = [{"accept-encoding": "gzip, deflate, br"}, {"accept-encoding": "gzip"},
             {"accept-encoding": "br;q=0.5, gzip;q=0.9, identity;q=0.1"},
             {"accept-encoding": "*;q=0"}, {"accept-encoding": "identity"}]


def _decoded(answer) -> bytes:
    import gzip

    import brotli

    coding = answer.header("content-encoding")
    if coding is None:
        return answer.body
    return gzip.decompress(answer.body) if coding == "gzip" else brotli.decompress(answer.body)


@pytest.mark.parametrize("target", CACHED)
def test_encodings_and_304s_are_the_django_answer(sandbox_upstream, target):
    django_path(target, CORRELATION)
    identity = django_path(target, CORRELATION)
    assert identity.header("x-cache") == "HIT", target
    etag = identity.header("etag")
    assert etag and etag.startswith('"') and "-" not in etag[-4:], (target, etag)
    seen = {}
    for extra in ENCODINGS:
        headers = {**CORRELATION, **extra}
        fast = fast_path(target, headers)
        _assert_same(fast, django_path(target, headers), (target, extra))
        assert _decoded(fast) == identity.body, (target, extra)
        assert fast.header("content-length") == str(len(fast.body))
        seen[fast.header("content-encoding")] = fast.header("etag")
        # A 304 for its own tag (in a list, weak or not), with no body, on both paths.
        for condition in (fast.header("etag"), f'"other", W/{fast.header("etag")}', "*"):
            conditional = {**headers, "if-none-match": condition}
            fast_304 = fast_path(target, conditional)
            _assert_same(fast_304, django_path(target, conditional), (target, condition))
            assert fast_304.status == 304 and fast_304.body == b"", (target, condition)
            assert fast_304.header("content-type") is None
            assert fast_304.header("etag") == fast.header("etag")
            assert fast_304.header("vary") == fast.header("vary")
        # Another tag (another encoding's, an old body's): the whole answer.
        stale = {**headers, "if-none-match": '"not-this-one"'}
        assert fast_path(target, stale).status == 200
    # Encodings of one body never share a strong tag; all come from the identity's digest.
    assert len(set(seen.values())) == len(seen), (target, seen)
    assert all(tag[1:-1].startswith(etag[1:-1]) for tag in seen.values())
    big = len(identity.body) >= 1024
    assert (("br" in seen and "gzip" in seen) if big else set(seen) == {None}), (target, seen)
    assert ("Accept-Encoding" in (identity.header("vary") or "")) == big, target


def test_the_lifetime_goes_down_on_both_paths(sandbox_upstream):
    import time

    from apps.core import response_cache

    target = "/v2/quote/AAPL?lang=en"
    first = django_path(target, CORRELATION)
    ttl = _max_age(first)
    assert ttl is not None and ttl >= 1 and "public" in first.header("cache-control")
    key = response_cache.cache_key("GET", "/v2/quote/AAPL", "lang=en")
    store = response_cache.get_store()
    entry = store.get(key)
    for left in (30, 10, 2):
        store.set(key, response_cache.Entry(entry.body, entry.headers, time.time() + left,
                                            entry.etag, entry.encoded), 60)
        fast, django = fast_path(target, CORRELATION), django_path(target, CORRELATION)
        _assert_same(fast, django, left)
        assert left - 1 <= _max_age(fast) <= left and left - 1 <= _max_age(django) <= left


def test_vary_names_what_the_answer_depends_on(sandbox_upstream, settings):
    # v2 quotes without lang: the language; with it, not.
    for target, language in (("/v2/quote/AAPL", True), ("/v2/quote/AAPL?lang=de", False),
                             ("/v1/sectors", False)):
        django_path(target, CORRELATION)
        fast = fast_path(target, {**CORRELATION, **ORIGIN})
        _assert_same(fast, django_path(target, {**CORRELATION, **ORIGIN}), target)
        vary = [v.strip() for v in fast.header("vary").split(",")]
        assert ("Accept-Language" in vary) == language, (target, vary)
        assert "origin" in vary and len(vary) == len({v.lower() for v in vary}), vary
    # Restricted origins: CORS's Vary merged with ours, the same on both paths.
    settings.CORS_ALLOWED_ORIGINS = ["https://dashboard.example"]
    settings.CORS_ALLOW_ALL_ORIGINS = False
    target = "/v2/quote/AAPL"
    for origin in ("https://dashboard.example", "https://elsewhere.example"):
        headers = {**CORRELATION, "origin": origin, "accept-encoding": "br"}
        django_path(target, headers)
        _assert_same(fast_path(target, headers), django_path(target, headers), origin)


def test_a_stored_vary_is_merged_not_repeated(sandbox_upstream, monkeypatch):
    """A body that varies on more (an entry replaying its own Vary, as a CSV answer does)
    gets one Vary header listing everything, the same on both paths."""
    import time

    from apps.core import response_cache

    target = "/v1/sectors"
    django_path(target, CORRELATION)
    key = response_cache.cache_key("GET", "/v1/sectors", "")
    store = response_cache.get_store()
    entry = store.get(key)
    store.set(key, response_cache.new_entry(entry.body, entry.content_type,
                                            (("Vary", "Accept"),), 60), 60)
    for headers in (CORRELATION, {**CORRELATION, "accept-encoding": "gzip"}):
        fast = fast_path(target, headers)
        _assert_same(fast, django_path(target, headers), headers)
        assert [n for n, _ in fast.headers].count("vary") == 1
        assert fast.header("vary").startswith("Accept, origin")
    assert time.time() < store.get(key).expires


COOKIE = {"cookie": "sessionid=abc123; csrftoken=x", "accept": "application/json"}


@pytest.mark.parametrize("target", ["/v1/sectors", "/v2/quote/AAPL", "/v2/filings/AAPL"])
def test_the_first_requesters_cookie_never_reaches_later_hits(sandbox_upstream, target):
    """The request that fills an entry carries a Cookie (the CSRF and session middleware
    then add ``Vary: Cookie`` to its answer): a later hit's Vary, on either path, is the
    endpoint's own (what a fresh answer to a cookie-less request says), and the stored
    entry keeps no per-request header."""
    from django.core.cache import cache

    from apps.core import response_cache
    from tests.conftest import clear_cache

    own = django_path(target, CORRELATION).header("vary")  # computed, not a stored hit
    clear_cache(cache)
    first = django_path(target, {**CORRELATION, **COOKIE})
    assert first.status == 200 and "Cookie" in first.header("vary"), first.header("vary")
    key = response_cache.cache_key("GET", target, "")
    store = response_cache.get_store()
    entry = store.get(key)
    stored = [(n, v) for n, v in entry.headers if n.lower() == "vary"]
    assert all("cookie" not in v.lower() for _, v in stored), stored
    if target == "/v2/filings/AAPL":  # a tabular view: its own Vary is kept
        assert stored == [("Vary", "Accept")]
    fast = fast_path(target, CORRELATION)
    assert fast.answered_by_fast_path and fast.header("vary") == own, fast.header("vary")
    # The Django path's hit: a marked body proves the answer is the stored entry.
    store.set(key, response_cache.Entry(b'{"stored":1}', entry.headers, entry.expires,
                                        "", entry.encoded), 60)
    hit = django_path(target, CORRELATION)
    assert hit.body == b'{"stored":1}' and hit.header("vary") == own, hit.header("vary")


def test_an_entry_stored_with_a_requesters_vary_serves_the_endpoints(sandbox_upstream):
    """An entry written before the fix (``Vary: Accept, Cookie``) is read without the
    per-request member on both paths."""
    from apps.core import response_cache

    target = "/v1/sectors"
    django_path(target, CORRELATION)
    key = response_cache.cache_key("GET", target, "")
    store = response_cache.get_store()
    entry = store.get(key)
    store.set(key, response_cache.Entry(entry.body, (*entry.headers, ("Vary", "Accept, Cookie")),
                                        entry.expires, entry.etag, entry.encoded), 60)
    assert store.get(key).headers[-1] == ("Vary", "Accept")
    for path in (fast_path, django_path):
        hit = path(target, CORRELATION)
        assert hit.header("x-cache") == "HIT"
        assert hit.header("vary").startswith("Accept, origin"), hit.header("vary")


# -- CSV (apps.core.tabular): its own entries, replayed with Vary and Link ---------------------
CSV_SAMPLES = [
    "/v1/historical?symbol=AAPL&range=1mo&interval=1d",
    "/v2/chart/AAPL?range=5d&patterns=true&limit=2",
    "/v2/dividends?symbols=KO,SPY&limit=1",
    "/v2/splits/KO",
    "/v2/macro/series/CPIAUCSL?limit=3",
    "/v2/macro/treasury-yields?format=csv",
    "/v2/screeners/gainers?count=5&format=both",
    "/v2/financials/AAPL/income?metrics=TotalRevenue,NetIncome",
    "/v2/crypto/coins?count=3",
]
CSV_HEADERS = {**CORRELATION, "accept": "text/csv"}


@pytest.mark.parametrize("target", CSV_SAMPLES)
def test_a_csv_hit_is_the_django_answer(sandbox_upstream, target):
    django_path(target, CORRELATION)  # the JSON entry first: the CSV must not be served it
    first = django_path(target, CSV_HEADERS)
    assert first.status == 200 and first.header("content-type").startswith("text/csv"), \
        (target, first.status, first.body[:200])
    stored = django_path(target, CSV_HEADERS)
    assert stored.header("x-cache") == "HIT" and stored.body == first.body, target
    for headers in (CSV_HEADERS, {**CSV_HEADERS, **ORIGIN},
                    {**CSV_HEADERS, "accept-encoding": "gzip, br"}):
        _assert_same(fast_path(target, headers), django_path(target, headers), target)
    fast = fast_path(target, CSV_HEADERS)
    assert fast.body == first.body and "Accept" in fast.header("vary")
    assert fast.header("link") == first.header("link")
    assert ("limit=" in target and "treasury" not in target) == (fast.header("link")
                                                                 is not None), target
    # The JSON of the same URL is still its own entry, on both paths (format=csv: the query
    # asks for CSV whatever the header).
    as_json = fast_path(target, CORRELATION)
    assert as_json.header("content-type") == ("text/csv; charset=utf-8; header=present"
                                              if "format=csv" in target else "application/json")
    _assert_same(as_json, django_path(target, CORRELATION), target)
