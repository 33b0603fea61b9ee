"""GET /v2/positioning/cot/{symbol} through the real service process over loopback, with the
sandbox HTTP server standing in for CFTC Public Reporting (mapped by UPSTREAM_HOST_MAP, as an
operator would point it): 200s from both reports, paging and `fields`, ApiError bodies, a
cached repeat, and the SoQL the service really sent."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from marketdata.providers.cftc import LEGACY_NULL_MEMBERS, OBSERVATION_MEMBERS, WEEKS
from tests.integration.servers import (
    http,
)

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("the first test waits for the worker's shared servers to start")]


@pytest.fixture(scope="module")
def stack(server_pool):
    return server_pool.stack()


def _get(base_url: str, path: str):
    status, headers, body = http("GET", f"{base_url}{path}")
    return status, headers, json.loads(body)


def test_commodity_from_the_disaggregated_report(stack):
    service, sandbox = stack
    status, headers, body = _get(service.base_url, "/v2/positioning/cot/CL=F")
    assert status == 200, body
    assert headers.get("X-Data-Source") == "live"
    assert body["contractMarketCode"] == "067651"
    assert body["marketAndExchangeName"] == "WTI-PHYSICAL - NEW YORK MERCANTILE EXCHANGE"
    observations = body["observations"]
    assert len(observations) == WEEKS
    assert [o["reportDate"] for o in observations] == sorted(o["reportDate"]
                                                             for o in observations)
    assert all(list(o) == list(OBSERVATION_MEMBERS) for o in observations)
    assert all(o["managedMoneyLong"] is not None for o in observations)
    _, _, log = _get(sandbox.base_url, "/__sandbox__/requests?path_prefix=/resource/")
    [call] = [r for r in log["requests"]
              if r["query"].get("$where") == ["cftc_contract_market_code='067651'"]]
    assert call["path"] == "/resource/72hh-3qpy.json" and call["provider"] == "cftc"
    assert call["upstream_host"] == "publicreporting.cftc.gov"
    assert call["query"]["$order"] == ["report_date_as_yyyy_mm_dd DESC"]
    assert call["query"]["$limit"] == [str(WEEKS)]


def test_financial_root_from_the_legacy_report_paged_and_filtered(stack):
    service, _ = stack
    status, _, body = _get(service.base_url,
                           "/v2/positioning/cot/6e=f?limit=3&fields=observations,symbol")
    assert status == 200, body
    assert set(body) == {"symbol", "observations"} and body["symbol"] == "6E=F"
    page = body["observations"]
    assert len(page["nodes"]) == 3 and page["pageInfo"]["hasNextPage"] is True
    for node in page["nodes"]:
        assert all(node[m] is None for m in LEGACY_NULL_MEMBERS)
        assert node["totalReportableLong"] + node["nonreportableLong"] == node["openInterest"]
    cursor = page["pageInfo"]["endCursor"]
    status, _, following = _get(service.base_url,
                                f"/v2/positioning/cot/6E=F?limit=3&cursor={cursor}")
    assert status == 200
    assert following["observations"]["nodes"][0]["reportDate"] > page["nodes"][-1]["reportDate"]


def test_a_repeat_is_a_cache_hit(stack):
    service, _ = stack
    _get(service.base_url, "/v2/positioning/cot/ZN=F")
    status, headers, _ = _get(service.base_url, "/v2/positioning/cot/ZN=F")
    assert status == 200 and headers.get("X-Cache") == "HIT"


@pytest.mark.parametrize("path, status", [
    ("/v2/positioning/cot/999999", 404),  # no rows in either report
    ("/v2/positioning/cot/FOO=F", 404),  # not in the table, never sent upstream
    ("/v2/positioning/cot/" + quote("0' OR '1'='1", safe=""), 404),
    ("/v2/positioning/cot/GC=F?limit=-1", 400),
    ("/v2/positioning/cot/GC=F?cursor=%%%", 400),
])
def test_errors_are_api_errors(stack, path, status):
    service, _ = stack
    got, _, body = _get(service.base_url, path)
    assert got == status and body["status"] == status and body["error"], (path, body)
