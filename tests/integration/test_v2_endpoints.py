"""Every v2 endpoint of the v2 part-1 issue through the real service process over loopback,
with the sandbox as a separate HTTP server standing in for Yahoo (mapped through
UPSTREAM_HOST_MAP, as an operator would point it): a 200 with the spec's members, a cached
repeat, ApiError bodies for bad input, and the response cache kept apart per language."""

from __future__ import annotations

import json

import pytest

from tests.integration.servers import http

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("the first test waits for the worker's shared servers to start")]


@pytest.fixture(scope="module")
def stack(server_pool):
    return server_pool.service()


def _get(service, path: str, headers: dict[str, str] | None = None):
    status, out_headers, body = http("GET", f"{service.base_url}{path}", headers=headers)
    assert "json" in out_headers.get("Content-Type", ""), (path, out_headers)
    return status, out_headers, json.loads(body)


# path -> members the 200 body (or its first item) must have
OK = {
    "/v2/quote/AAPL": {"symbol", "regularMarketPrice", "marketCap", "longName", "trailingPe"},
    "/v2/quote/AAPL?format=pretty&fields=regularMarketPrice,symbol": {"regularMarketPrice",
                                                                      "symbol"},
    "/v2/quotes?symbols=AAPL,MSFT": {"quotes", "errors"},
    "/v2/quote-type/AAPL": {"symbol", "quoteType", "exchange", "timeZoneFullName"},
    "/v2/chart/AAPL": {"symbol", "interval", "range", "meta", "candles"},
    "/v2/chart/AAPL?events=true&patterns=true&limit=5": {"candles", "events", "patterns"},
    "/v2/charts?symbols=AAPL,MSFT&limit=1": {"charts", "errors"},
    "/v2/capital-gains/SPY": None,
    "/v2/capital-gains?symbols=SPY,AAPL": {"capitalGains", "errors"},
    "/v2/analysis/AAPL/recommendations": {"trend"},
    "/v2/analysis/AAPL/earnings-history": {"history"},
    "/v2/holders/AAPL/institutional?limit=2": {"ownershipList"},
    "/v2/holders/AAPL/major": {"institutionsPercentHeld"},
    "/v2/hours?region=GB": {"markets"},
    "/v2/calendar?symbols=AAPL,MSFT&range=3mo": None,
    "/v2/indicators?symbols=AAPL&fields=rsi14": {"indicators", "errors"},
}


@pytest.mark.parametrize("path", OK)
def test_each_endpoint_answers_through_the_server(stack, path):
    status, headers, body = _get(stack, path)
    assert status == 200, (path, body)
    members = OK[path]
    if members is None:
        assert isinstance(body, list), body
    else:
        assert members <= set(body), (path, sorted(body))
    assert headers.get("X-Data-Source") == "live"


def test_a_repeat_is_a_response_cache_hit(stack):
    _get(stack, "/v2/quote-type/MSFT")
    status, headers, _ = _get(stack, "/v2/quote-type/MSFT")
    assert status == 200 and headers.get("X-Cache") == "HIT"


@pytest.mark.parametrize("path, status", [
    ("/v2/quote/AAPL?format=fancy", 400),
    ("/v2/chart/AAPL?interval=7m", 400),
    ("/v2/chart/AAPL?end=1700000000", 400),
    ("/v2/charts?symbols=AAPL&limit=-1", 400),
    ("/v2/analysis/AAPL/esg", 400),
    ("/v2/holders/AAPL/major?cursor=%%%", 400),
    ("/v2/hours?region=XX", 400),
    ("/v2/calendar", 400),
    ("/v2/quote/NOPE..X", 404),
    ("/v2/nothing-here", 404),
])
def test_errors_are_api_errors(stack, path, status):
    got, _, body = _get(stack, path)
    assert got == status and body["status"] == status and body["error"], (path, body)


def test_language_is_part_of_the_response_cache_key(stack):
    path = "/v2/quote/AAPL?fields=symbol"
    for _ in range(2):
        _get(stack, path, {"Accept-Language": "de-DE"})
    _, headers, _ = _get(stack, path, {"Accept-Language": "fr-FR"})
    assert headers.get("X-Cache") != "HIT"  # a French client never gets the German answer
    _, headers, _ = _get(stack, path, {"Accept-Language": "de-DE"})
    assert headers.get("X-Cache") == "HIT"
