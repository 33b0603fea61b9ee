"""GET /v2/worldnews/news/{symbol} through the real service process over loopback, with the
sandbox as a separate HTTP server standing in for Yahoo (the company name) and GDELT (the
articles), mapped through UPSTREAM_HOST_MAP as an operator would: articles with sentiment,
paging, a cached repeat, GDELT's plain-text throttle as a 429, ApiError bodies for bad input.

The service runs in live mode here, so its GDELT pacing is on (one call start every 5 s per
process): the module asks GDELT for two symbols only, and a request may wait for its turn.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.integration.servers import (
    get_json,
    http,
)

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("waits out the GDELT throttle's real interval")]
MEMBERS = {"title", "link", "source", "img", "time", "sentiment"}


@pytest.fixture(scope="module")
def stack(server_pool):
    return server_pool.stack()


_get = get_json


def _gdelt_calls(sandbox) -> int:
    _, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests?provider=gdelt")
    return json.loads(body)["count"]


def test_articles_with_sentiment_paged_and_cached(stack):
    service, sandbox = stack
    status, headers, items = _get(service, "/v2/worldnews/news/AAPL")
    assert status == 200, items
    assert headers.get("X-Data-Source") == "live"
    assert items and all(set(item) == MEMBERS for item in items)
    assert all(item["sentiment"]["label"] in ("positive", "negative", "neutral")
               for item in items)
    assert {item["sentiment"]["label"] for item in items} >= {"positive", "negative"}
    assert [item["time"] for item in items] == sorted((item["time"] for item in items),
                                                      reverse=True)
    status, _, page = _get(service, "/v2/worldnews/news/AAPL?limit=2&fields=title,time")
    assert status == 200 and page["nodes"] == [{"title": i["title"], "time": i["time"]}
                                               for i in items[:2]]
    _, headers, _ = _get(service, "/v2/worldnews/news/AAPL")
    assert headers.get("X-Cache") == "HIT"
    assert _gdelt_calls(sandbox) == 1, "one GDELT call for the symbol"


def test_throttle_is_a_429_naming_gdelt(stack):
    service, _ = stack
    started = time.monotonic()
    status, _, body = _get(service, "/v2/worldnews/news/RATELIMITED")
    assert status == 429 and body["provider"] == "gdelt" and body["status"] == 429, body
    assert time.monotonic() - started < 10, "paced within the request deadline"


@pytest.mark.parametrize("path, status", [
    ("/v2/worldnews/news/AAPL?limit=-1", 400),
    ("/v2/worldnews/news/AAPL?cursor=%%%", 400),
    ("/v2/worldnews/news/NOPE..X", 404),
    ("/v2/worldnews/news/NOTFOUNDX", 404),
])
def test_errors_are_api_errors(stack, path, status):
    service, _ = stack
    got, _, body = _get(service, path)
    assert got == status and body["status"] == status and body["error"], (path, body)
