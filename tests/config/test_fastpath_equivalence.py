"""The fast path answers a response-cache hit exactly as the Django path does, for every
endpoint: status, body and every header but ``date`` (the correlation id is the inbound
one on both). Both are driven in-process through config.asgi with the same ASGI scope, in
sandbox mode; with REDIS_URL set the cache and counters are Redis's (and the fast path
reads them through redis.asyncio)."""

from __future__ import annotations

import json

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
    "/v2/filings/AAPL/congressional-trades",
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


def _assert_same(fast, django, target):
    assert fast.answered_by_fast_path, f"{target}: the fast path did not answer a hit"
    assert fast.comparable() == django.comparable(), target


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
    assert django_path(target, CORRELATION).comparable() == stored.comparable()


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
