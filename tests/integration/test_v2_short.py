"""GET /v2/short/{symbol}/volume and /interest through the real service process over
loopback, with the sandbox HTTP server standing in for FINRA's CDN and Query API (mapped by
UPSTREAM_HOST_MAP, as an operator would point it): the default window of trading days (no
weekend asked for), a class share, `venue=all`, a cached repeat, the POST the service really
sent, and ApiError bodies."""

from __future__ import annotations

import json
import re
from datetime import date

import pytest

from tests.integration.servers import http

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("the first test waits for the worker's shared servers to start")]


@pytest.fixture(scope="module")
def stack(server_pool):
    return server_pool.stack()


def _get(base_url: str, path: str):
    status, headers, body = http("GET", f"{base_url}{path}")
    return status, headers, json.loads(body)


def _finra_log(sandbox, prefix: str) -> list[dict]:
    _, _, log = _get(sandbox.base_url, f"/__sandbox__/requests?path_prefix={prefix}")
    return [r for r in log["requests"] if r["provider"] == "finra"]


def test_the_default_window_asks_trading_days_only(stack):
    service, sandbox = stack
    status, headers, body = _get(service.base_url, "/v2/short/AAPL/volume")
    assert status == 200, body
    assert headers.get("X-Data-Source") == "live" and body["venue"] == "consolidated"
    unpublished = [n for n in body["notices"] if "not published" in n]
    assert len(body["rows"]) + len(unpublished) == 20  # today's file may not be out yet
    assert all(0 < row["ratio"] < 1 for row in body["rows"])
    calls = _finra_log(sandbox, "/equity/regsho/daily/CNMSshvol")
    days = {re.search(r"(\d{8})\.txt", c["path"]).group(1) for c in calls}
    assert len(days) >= 20
    assert all(date(int(d[:4]), int(d[4:6]), int(d[6:])).weekday() < 5 for d in days)
    assert all(c["upstream_host"] == "cdn.finra.org" for c in calls)


def test_a_class_share_every_venue_and_a_cached_repeat(stack):
    service, _ = stack
    path = "/v2/short/BRK-B/volume?venue=all&limit=5&fields=totalVolume"
    status, _, body = _get(service.base_url, path)
    assert status == 200, body
    assert body["symbol"] == "BRK-B" and len(body["rows"]["nodes"]) == 5
    assert all(set(node) == {"date", "totalVolume"} for node in body["rows"]["nodes"])
    status, headers, _ = _get(service.base_url, path)
    assert status == 200 and headers.get("X-Cache") == "HIT"


def test_short_interest_posts_the_query(stack):
    service, sandbox = stack
    status, _, body = _get(service.base_url, "/v2/short/MSFT/interest?limit=3")
    assert status == 200, body
    nodes = body["settlements"]["nodes"]
    assert len(nodes) == 3 and nodes[0]["settlementDate"] > nodes[1]["settlementDate"]
    calls = _finra_log(sandbox, "/data/group/otcMarket/name/consolidatedShortInterest")
    assert calls and all(c["method"] == "POST" and c["upstream_host"] == "api.finra.org"
                         for c in calls)


@pytest.mark.parametrize(("path", "status"), [
    ("/v2/short/ZZZZ/volume", 404),  # in no file
    ("/v2/short/ZZZZ/interest", 404),  # no settlement
    ("/v2/short/AAPL/volume?start=2024-01-01&end=2024-12-31", 400),  # over 90 days
    ("/v2/short/AAPL/volume?venue=nasdaq", 400),
])
def test_errors_are_api_errors(stack, path, status):
    service, _ = stack
    got, _, body = _get(service.base_url, path)
    assert got == status and body["status"] == status and body["error"], body
