"""GET /v2/positioning/cot/{symbol}: the spec's body on the real recording and on hand-made
disaggregated rows (the provider test says why those exist), the legacy fallback and its
nulls, paging and `fields`, every error status, the OpenAPI operation, the sandbox end to
end and a hypothesis paging property over the endpoint."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
import responses
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.positioning.views import V2CotView
from marketdata.providers import cftc
from marketdata.providers.cftc import CONTRACTS, LEGACY_NULL_MEMBERS, OBSERVATION_MEMBERS
from tests.apps.payloads import FAILURES, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.apps.test_v2_analysis_api import assert_api_error, follow_pages
from tests.marketdata.providers.test_cftc import (
    DISAGGREGATED_ROWS,
    DISAGGREGATED_URL,
    LEGACY_URL,
    RECORDING,
    disaggregated_row,
)

URL = "/v2/positioning/cot/{symbol}"
COT_MEMBERS = ("symbol", "contractMarketCode", "marketAndExchangeName", "observations")


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch):
    fast = dataclasses.replace(cftc.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001)
    monkeypatch.setattr(cftc.CftcProvider, "config", fast)


@pytest.fixture
def socrata():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def serve(mock: responses.RequestsMock, url: str, body: Any, status: int = 200) -> None:
    mock.add(responses.GET, re.compile(re.escape(url) + r"(\?.*)?$"), body=json.dumps(body),
             status=status, content_type="application/json;charset=utf-8")


def weekly_rows(count: int) -> list[dict[str, Any]]:
    """``count`` disaggregated weeks, newest first (open interest grows week by week)."""
    from datetime import date, timedelta

    newest = date(2026, 9, 29)
    return [disaggregated_row((newest - timedelta(weeks=i)).isoformat(), 300_000 + count - i)
            for i in range(count)]


# -- 200 ----------------------------------------------------------------------------------------
def test_recording_through_the_endpoint(api, socrata, recording):
    """M2K=F is a curated financial root: the legacy report is asked first (one call)."""
    serve(socrata, LEGACY_URL, recording(RECORDING))
    response = api.get(URL.format(symbol="m2k=f"))
    assert response.status_code == 200, response.content
    assert response.json() == {
        "symbol": "M2K=F", "contractMarketCode": "239747",
        "marketAndExchangeName": "MICRO E-MINI RUSSELL 2000 INDX - CHICAGO MERCANTILE EXCHANGE",
        "observations": [{
            "reportDate": "2024-08-20", "openInterest": 19404,
            "managedMoneyLong": None, "managedMoneyShort": None, "managedMoneySpread": None,
            "nonreportableLong": 11313, "nonreportableShort": 8624,
            "otherReportableLong": None, "otherReportableShort": None,
            "otherReportableSpread": None, "producerMerchantLong": None,
            "producerMerchantShort": None, "swapDealerLong": None, "swapDealerShort": None,
            "swapDealerSpread": None, "totalReportableLong": 8091,
            "totalReportableShort": 10780}]}
    assert [c.request.url.split("?")[0] for c in socrata.calls] == [LEGACY_URL]


def test_commodity_root_is_served_from_the_disaggregated_report(api, socrata):
    serve(socrata, DISAGGREGATED_URL, DISAGGREGATED_ROWS)
    body = api.get(URL.format(symbol="GC=F")).json()
    assert list(body) == list(COT_MEMBERS)
    assert body["symbol"] == "GC=F" and body["contractMarketCode"] == "088691"
    assert body["marketAndExchangeName"] == "GOLD - COMMODITY EXCHANGE INC."
    observations = body["observations"]
    assert [o["reportDate"] for o in observations] == ["2026-09-15", "2026-09-22",
                                                       "2026-09-29"]
    assert all(list(o) == list(OBSERVATION_MEMBERS) for o in observations)
    assert all(isinstance(o[m], int) for o in observations for m in OBSERVATION_MEMBERS[1:])
    assert observations[-1]["swapDealerShort"] == 240000
    assert len(socrata.calls) == 1


def test_a_code_outside_the_table_falls_back_to_the_legacy_report(api, socrata, recording):
    serve(socrata, DISAGGREGATED_URL, [])
    serve(socrata, LEGACY_URL, recording(RECORDING))
    body = api.get(URL.format(symbol="654321")).json()
    assert body["symbol"] == "654321"
    assert body["contractMarketCode"] == "239747"  # the newest row's own code
    [obs] = body["observations"]
    assert all(obs[m] is None for m in LEGACY_NULL_MEMBERS)
    assert obs["openInterest"] == 19404
    assert [c.request.url.split("?")[0] for c in socrata.calls] == [DISAGGREGATED_URL,
                                                                   LEGACY_URL]


def test_the_symbol_is_case_insensitive_and_cached(api, socrata):
    serve(socrata, DISAGGREGATED_URL, DISAGGREGATED_ROWS)
    first = api.get(URL.format(symbol="gc=f"))
    again = api.get(URL.format(symbol="GC=F"))
    assert first.json() == again.json()
    code = api.get(URL.format(symbol="088691")).json()
    assert code["observations"] == first.json()["observations"]
    assert len(socrata.calls) == 1, "one cache entry per (report, code)"


# -- paging and fields -----------------------------------------------------------------------
def test_paging_visits_every_observation_once(api, socrata):
    serve(socrata, DISAGGREGATED_URL, weekly_rows(30))
    path = URL.format(symbol="GC=F")
    everything = api.get(path).json()["observations"]
    assert isinstance(everything, list) and len(everything) == 30
    assert follow_pages(api, path, "observations", 7) == everything
    page = api.get(f"{path}?limit=2&cursor=MA").json()
    assert page["symbol"] == "GC=F" and page["contractMarketCode"] == "088691"
    connection = page["observations"]
    assert [n["reportDate"] for n in connection["nodes"]] == [everything[1]["reportDate"],
                                                             everything[2]["reportDate"]]
    assert connection["pageInfo"] == {"startCursor": "MQ", "endCursor": "Mg",
                                      "hasNextPage": True, "hasPreviousPage": True}
    empty = api.get(f"{path}?limit=0").json()["observations"]
    assert empty["nodes"] == [] and empty["pageInfo"]["hasNextPage"] is True
    past = api.get(f"{path}?cursor=OTk").json()["observations"]
    assert past["nodes"] == [] and past["pageInfo"]["hasNextPage"] is False
    assert len(socrata.calls) == 1


def test_fields_select_top_level_members(api, socrata):
    serve(socrata, DISAGGREGATED_URL, DISAGGREGATED_ROWS)
    path = URL.format(symbol="GC=F")
    assert api.get(f"{path}?fields=contractMarketCode").json() == {
        "contractMarketCode": "088691"}
    body = api.get(f"{path}?fields=observations, symbol,bogus&limit=1").json()
    assert set(body) == {"observations", "symbol"}
    assert len(body["observations"]["nodes"]) == 1
    assert set(api.get(f"{path}?fields=bogus").json()) == set(COT_MEMBERS)
    # A member name of an observation is not a top-level member.
    assert set(api.get(f"{path}?fields=openInterest").json()) == set(COT_MEMBERS)


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize("query", ["limit=-1", "limit=abc", "limit=1001", "limit=",
                                   "cursor=!!", "cursor=MB", "cursor="])
def test_bad_limit_or_cursor_is_400_before_any_upstream_call(api, socrata, query):
    body = assert_api_error(api.get(f"{URL.format(symbol='GC=F')}?{query}"), 400)
    assert body["error"].split(":")[0] in ("limit", "cursor")
    assert len(socrata.calls) == 0


@pytest.mark.parametrize("symbol", ["FOO=F", "GC", "AAPL", "08869", "0886911", "A88691",
                                    "088691%27", "%27%20OR%201=1", "EURUSD=X"])
def test_what_is_neither_a_code_nor_a_root_is_404_without_upstream_call(api, socrata, symbol):
    assert_api_error(api.get(URL.format(symbol=symbol)), 404)
    assert len(socrata.calls) == 0


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_without_upstream_call(api, socrata, raw):
    response = api.get(URL.format(symbol=raw))
    assert_api_error(response, 404)
    assert response["Content-Type"].startswith("application/json")
    assert len(socrata.calls) == 0


def test_a_code_with_no_rows_in_either_report_is_404(api, socrata):
    serve(socrata, DISAGGREGATED_URL, [])
    serve(socrata, LEGACY_URL, [])
    assert_api_error(api.get(URL.format(symbol="654321")), 404,
                     "No weekly positioning data found for '654321'")
    assert len(socrata.calls) == 2
    assert_api_error(api.get(URL.format(symbol="ES=F")), 404,
                     "No weekly positioning data found for 'ES=F' (CFTC contract market "
                     "code 13874A)")


@pytest.mark.parametrize("kind", list(FAILURES))
def test_upstream_failures_name_the_provider(api, socrata, kind):
    fail_url(socrata, DISAGGREGATED_URL, kind)
    body = assert_api_error(api.get(URL.format(symbol="GC=F")), FAILURES[kind][0])
    assert body["provider"] == "cftc"


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_socrata_refusing_the_query_is_502_without_its_words(api, socrata, status):
    """The SoQL is fixed: a 4xx means the dataset changed (a renamed column, a moved
    dataset) or Socrata refuses us, never an unknown symbol. Keyless, so no fallback: the
    one source's failure is the answer."""
    serve(socrata, DISAGGREGATED_URL, {"code": "query.soql.no-such-column", "error": True,
                                       "message": "No such column: hidden_detail"}, status)
    body = assert_api_error(api.get(URL.format(symbol="GC=F")), 502)
    assert body["provider"] == "cftc" and "hidden_detail" not in body["error"]


def test_neither_the_soql_nor_credentials_reach_responses_or_logs(api, socrata, logs):
    serve(socrata, DISAGGREGATED_URL, DISAGGREGATED_ROWS)
    response = api.get(URL.format(symbol="GC=F"))
    assert response.status_code == 200
    text = logs.text()
    assert "/resource/72hh-3qpy.json" in text  # the call is logged, by path only
    assert "cftc_contract_market_code" not in text and "$where" not in text
    [call] = socrata.calls
    assert "app_token" not in call.request.url and "X-App-Token" not in call.request.headers


# -- documentation ---------------------------------------------------------------------------
def openapi() -> dict[str, Any]:
    """The served document, built once per test process (tests/openapi_validation.py)."""
    from tests.openapi_validation import served_document

    return served_document()


def test_openapi_operation():
    op = openapi()["paths"]["/v2/positioning/cot/{symbol}"]["get"]
    assert op["operationId"] == "get_cot" and op["tags"] == ["Positioning (v2)"]
    assert {p["name"] for p in op["parameters"]} >= {"symbol", "fields", "cursor", "limit"}
    body = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert set(body["properties"]) == set(COT_MEMBERS)
    item = body["properties"]["observations"]["oneOf"][0]["items"]
    assert list(item["properties"]) == list(OBSERVATION_MEMBERS)
    assert {"400", "404", "429", "502", "503", "504"} <= op["responses"].keys()
    assert "72hh-3qpy" in op["description"] and "6dca-aqww" in op["description"]


def test_docstring_lists_every_root_and_the_legacy_nulls():
    text = " ".join((V2CotView.__doc__ or "").split())
    for contract in CONTRACTS.values():
        assert f"{contract.root} {contract.code}" in text
    for member in LEGACY_NULL_MEMBERS:
        assert f"`{member}`" in text
    assert "oldest first" in text and "260" in text


# -- sandbox ------------------------------------------------------------------------------------
def test_sandbox_serves_a_commodity_end_to_end(api, sandbox_upstream):
    body = api.get(URL.format(symbol="GC=F")).json()
    assert body["marketAndExchangeName"] == "GOLD - COMMODITY EXCHANGE INC."
    observations = body["observations"]
    assert len(observations) == cftc.WEEKS
    days = [o["reportDate"] for o in observations]
    assert days == sorted(days) and len(set(days)) == len(days)
    for o in observations:
        longs = sum(o[m] for m in ("producerMerchantLong", "swapDealerLong",
                                   "managedMoneyLong", "otherReportableLong",
                                   "nonreportableLong"))
        spreads = o["swapDealerSpread"] + o["managedMoneySpread"] + o["otherReportableSpread"]
        assert longs + spreads == o["openInterest"]
        assert o["totalReportableLong"] + o["nonreportableLong"] == o["openInterest"]
    [call] = sandbox_upstream.requests_matching("/resource/", provider="cftc")
    assert call["path"] == "/resource/72hh-3qpy.json"
    assert call["query"]["$where"] == ["cftc_contract_market_code='088691'"]


def test_sandbox_serves_a_financial_root_from_the_legacy_report(api, sandbox_upstream):
    body = api.get(URL.format(symbol="ES=F") + "?limit=3").json()
    assert body["marketAndExchangeName"] == "E-MINI S&P 500 - CHICAGO MERCANTILE EXCHANGE"
    for node in body["observations"]["nodes"]:
        assert all(node[m] is None for m in LEGACY_NULL_MEMBERS)
        assert node["totalReportableShort"] + node["nonreportableShort"] == node["openInterest"]


def test_sandbox_unknown_code_is_404_after_both_reports(api, sandbox_upstream):
    assert_api_error(api.get(URL.format(symbol="999999")), 404)
    paths = [e["path"] for e in sandbox_upstream.requests_matching("/resource/")]
    assert paths == ["/resource/72hh-3qpy.json", "/resource/6dca-aqww.json"]


_SETTINGS = settings(max_examples=12, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("symbol", ["GC=F", "ES=F"])
@_SETTINGS
@given(limit=st.integers(min_value=1, max_value=97))
@pytest.mark.slow("walks a contract's whole weekly history page by page")
def test_following_end_cursor_visits_every_observation_once(api, sandbox_upstream, symbol,
                                                            limit):
    path = URL.format(symbol=symbol)
    everything = api.get(path).json()["observations"]
    assert follow_pages(api, path, "observations", limit) == everything


@_SETTINGS
@given(asked=st.lists(st.sampled_from((*COT_MEMBERS, "bogus", "", "openInterest")),
                      min_size=1, max_size=5))
def test_fields_never_returns_an_unrequested_member(api, sandbox_upstream, asked):
    body = api.get(URL.format(symbol="CL=F") + "?limit=2&fields=" + ",".join(asked)).json()
    known = set(asked) & set(COT_MEMBERS)
    assert set(body) == (known or set(COT_MEMBERS))
