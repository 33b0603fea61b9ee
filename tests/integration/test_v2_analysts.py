"""The v2 analyst endpoints through the real service process over loopback, with the sandbox
as a separate HTTP server standing in for Yahoo and FMP (every simulated host mapped through
UPSTREAM_HOST_MAP): one service with an FMP key, one with a key the sandbox refuses (the
keyless fallback), 200s with the spec's members, paging, ApiError bodies, and the key kept
out of responses and logs."""

from __future__ import annotations

import json

import pytest

from tests.integration.servers import get_json, http

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("the first test waits for the keyed and refused services to start")]

GOOD_KEY = "integration-fmp-key-0123456789"
REFUSED_KEY = "integration-INVALID-key-9876543210"


@pytest.fixture(scope="module")
def stacks(server_pool):
    return (server_pool.sandbox(), server_pool.service({"FMP_API_KEY": GOOD_KEY}),
            server_pool.service({"FMP_API_KEY": REFUSED_KEY}))


_get = get_json


def _fmp_requests(sandbox) -> list[dict]:
    _, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests?provider=fmp")
    return json.loads(body)["requests"]


ACTION = {"date", "symbol", "gradingCompany", "newGrade", "previousGrade"}
CONSENSUS = {"symbol", "targetConsensus", "targetHigh", "targetLow", "targetMedian"}
SUMMARY = {"symbol", "lastMonthCount", "lastMonthAvg", "lastQuarterCount", "lastQuarterAvg",
           "lastYearCount", "lastYearAvg", "allTimeCount", "allTimeAvg"}


def test_keyed_service_answers_from_fmp(stacks):
    sandbox, keyed, _ = stacks
    status, _, actions = _get(keyed, "/v2/grading-actions/AAPL")
    assert status == 200 and actions and set(actions[0]) == ACTION
    status, _, consensus = _get(keyed, "/v2/price-target-consensus/AAPL")
    assert status == 200 and set(consensus) == CONSENSUS
    status, _, summary = _get(keyed, "/v2/price-target-summary/AAPL")
    assert status == 200 and set(summary) == SUMMARY and summary["allTimeCount"] > 0
    paths = {entry["path"] for entry in _fmp_requests(sandbox)}
    assert {"/stable/grades", "/stable/price-target-consensus",
            "/stable/price-target-summary"} <= paths


def test_paging_and_fields_through_the_server(stacks):
    _, keyed, _ = stacks
    _, _, everything = _get(keyed, "/v2/grading-actions/MSFT?fields=date,newGrade")
    status, _, first = _get(keyed, "/v2/grading-actions/MSFT?limit=3&fields=date,newGrade")
    assert status == 200 and first["nodes"] == everything[:3]
    cursor = first["pageInfo"]["endCursor"]
    _, _, second = _get(keyed, f"/v2/grading-actions/MSFT?limit=3&cursor={cursor}"
                               "&fields=date,newGrade")
    assert second["nodes"] == everything[3:6]


def test_refused_key_falls_back_to_yahoo(stacks):
    sandbox, keyed, refused = stacks
    status, _, fallback = _get(refused, "/v2/grading-actions/NVDA")
    assert status == 200 and fallback
    _, _, from_fmp = _get(keyed, "/v2/grading-actions/NVDA")
    assert fallback == from_fmp  # the sandbox's FMP and Yahoo tell the same story
    refused_calls = [entry for entry in _fmp_requests(sandbox)
                     if entry["query"].get("apikey") == [REFUSED_KEY]]
    assert refused_calls and {entry["status"] for entry in refused_calls} == {401}
    # Keyless, the summary is computed from Yahoo's rating-change price targets.
    status, _, body = _get(refused, "/v2/price-target-summary/NVDA")
    assert status == 200 and body["allTimeCount"] > 0


@pytest.mark.parametrize(("path", "status"), [
    ("/v2/grading-actions/AAPL?limit=-1", 400),
    ("/v2/grading-actions/AAPL?cursor=%%%", 400),
    ("/v2/grading-actions/ZZZZZZ", 404),
    ("/v2/price-target-consensus/NOPE..X", 404),
    ("/v2/price-target-summary/SPY", 404),
])
def test_errors_are_api_errors(stacks, path, status):
    _, keyed, _ = stacks
    got, _, body = _get(keyed, path)
    assert got == status and body["status"] == status and body["error"], (path, body)


def test_keys_never_reach_responses_or_logs(stacks):
    _, keyed, refused = stacks
    for service, key in ((keyed, GOOD_KEY), (refused, REFUSED_KEY)):
        for path in ("/v2/grading-actions/KO", "/v2/price-target-consensus/KO",
                     "/v2/price-target-summary/KO"):
            _, _, body = _get(service, path)
            assert key not in json.dumps(body)
        assert key not in service.log()
