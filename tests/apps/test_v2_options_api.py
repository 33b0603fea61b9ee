"""GET /v2/options/{symbol} and /v2/options: the recordings through the endpoints (values
exact), paging of both sides together, fields, the batch, every error status, and the
sandbox for an equity, an ETF and a non-US listing."""

from __future__ import annotations

from itertools import pairwise

import pytest

from tests.apps.payloads import FAILURES, QUERY2, fail_url
from tests.conftest import calls_to

DIR = "yahoo/v7-options"
URL = f"{QUERY2}/v7/finance/options"
MEMBERS = ["symbol", "expirationDates", "expirationDate", "strikes", "calls", "puts"]


@pytest.fixture
def aapl(yahoo, recording):
    payload = recording(f"{DIR}/options-AAPL.json")
    yahoo.get(f"{URL}/AAPL", payload)
    return payload["optionChain"]["result"][0]


def test_chain_exactly_as_recorded(api, yahoo, aapl):
    response = api.get("/v2/options/aapl")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == MEMBERS
    assert body["expirationDates"] == aapl["expirationDates"]
    assert body["expirationDate"] == 1740700800 and body["strikes"] == aapl["strikes"]
    recorded = sorted(aapl["options"][0]["puts"], key=lambda c: c["strike"])
    assert [{k: v for k, v in c.items() if v is not None} for c in body["puts"]] == recorded


def test_both_sides_paged_together_and_fields(api, yahoo, aapl):
    strikes = sorted(c["strike"] for c in aapl["options"][0]["calls"])
    first = api.get("/v2/options/AAPL?limit=3").json()
    assert [c["strike"] for c in first["calls"]["nodes"]] == strikes[:3]
    assert len(first["puts"]["nodes"]) == 3
    after = first["calls"]["pageInfo"]["endCursor"]
    assert after == first["puts"]["pageInfo"]["endCursor"]
    second = api.get(f"/v2/options/AAPL?limit=2&cursor={after}").json()
    assert [c["strike"] for c in second["calls"]["nodes"]] == strikes[3:5]
    assert api.get("/v2/options/AAPL?fields=expirationDate,strikes").json() == {
        "expirationDate": 1740700800, "strikes": aapl["strikes"]}
    assert len(calls_to(yahoo.mock, "/v7/finance/options/")) == 1  # one cached chain


def test_a_date_is_sent_and_an_unlisted_one_is_empty(api, yahoo, recording):
    yahoo.get(f"{URL}/AAPL", recording(f"{DIR}/options-AAPL-expire-2022-03-01.json"))
    body = api.get("/v2/options/AAPL?date=1646092800").json()
    assert body["expirationDate"] == 1646092800 and body["calls"] == body["puts"] == []
    (call,) = calls_to(yahoo.mock, "/v7/finance/options/AAPL")
    assert "date=1646092800" in call.request.url


def test_no_options_is_an_empty_chain(api, yahoo, recording):
    yahoo.get(f"{URL}/BTC-USD", recording(f"{DIR}/options-BTC-USD.json"))
    assert api.get("/v2/options/BTC-USD").json() == {
        "symbol": "BTC-USD", "expirationDates": [], "expirationDate": None, "strikes": [],
        "calls": [], "puts": []}


def test_batch(api, yahoo, aapl, recording):
    yahoo.get(f"{URL}/BTC-USD", recording(f"{DIR}/options-BTC-USD.json"))
    yahoo.get(f"{URL}/ZZZZ", {"optionChain": {"result": [], "error": None}})
    response = api.get("/v2/options?symbols=zzzz,AAPL,BTC-USD&fields=expirationDate")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "options": [{"symbol": "AAPL", "options": {"expirationDate": 1740700800}},
                    {"symbol": "BTC-USD", "options": {"expirationDate": None}}],
        "errors": [{"symbol": "ZZZZ", "message": "No options data found for symbol ZZZZ"}]}
    paged = api.get("/v2/options?symbols=AAPL,BTC-USD&limit=1").json()["options"]
    assert [n["symbol"] for n in paged["nodes"]] == ["AAPL"]
    assert isinstance(paged["nodes"][0]["options"]["calls"], list)  # inner sides bare


@pytest.mark.parametrize("path", ["/v2/options/AAPL?date=abc", "/v2/options/AAPL?date=-1",
                                  "/v2/options/AAPL?limit=5000", "/v2/options",
                                  "/v2/options?symbols=AAPL&cursor=!!"])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 400 and response.json()["status"] == 400
    assert not calls_to(yahoo.mock, "/v7/finance/options")


@pytest.mark.parametrize("symbol", ["..", "AA PL", "x" * 300])
def test_malformed_symbols_404_without_an_upstream_call(api, yahoo, symbol):
    response = api.get(f"/v2/options/{symbol}")
    assert response.status_code == 404 and response.json()["status"] == 404
    assert not calls_to(yahoo.mock, "/v7/finance/options")


def test_unknown_symbol_404(api, yahoo):
    yahoo.get(f"{URL}/ZZZZ", {"optionChain": {"result": [], "error": None}})
    response = api.get("/v2/options/ZZZZ")
    assert response.status_code == 404
    assert response.json() == {"error": "No options data found for symbol ZZZZ",
                               "status": 404}


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, f"{URL}/AAPL", kind)
    status, _ = FAILURES[kind]
    for path in ("/v2/options/AAPL", "/v2/options?symbols=AAPL"):
        response = api.get(path)
        assert response.status_code == status, path
        body = response.json()
        assert body["status"] == status and body["provider"] == "yahoo" and body["error"]


@pytest.mark.parametrize("symbol", ["AAPL", "SPY"])
def test_chains_through_the_sandbox(api, sandbox_upstream, symbol):
    response = api.get(f"/v2/options/{symbol}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["expirationDate"] == body["expirationDates"][0]
    assert body["strikes"] == sorted(body["strikes"]) and len(body["calls"]) == len(
        body["strikes"])
    calls = body["calls"]
    assert all(a["lastPrice"] >= b["lastPrice"] for a, b in pairwise(calls))
    puts = body["puts"]
    assert all(a["lastPrice"] <= b["lastPrice"] for a, b in pairwise(puts))
    assert all(c["bid"] <= c["ask"] and 0 < c["impliedVolatility"] < 5 for c in calls + puts)
    later = body["expirationDates"][3]
    other = api.get(f"/v2/options/{symbol}?date={later}").json()
    assert other["expirationDate"] == later and other["calls"][0]["expiration"] == later


def test_a_non_us_listing_has_no_chain_in_the_sandbox(api, sandbox_upstream):
    body = api.get("/v2/options/7203.T").json()
    assert body["expirationDates"] == [] and body["calls"] == []


def test_the_operations_are_described(api):
    paths = api.get("/openapi.json").json()["paths"]
    names = {p["name"] for p in paths["/v2/options/{symbol}"]["get"]["parameters"]}
    assert {"symbol", "date", "fields", "cursor", "limit"} <= names
    assert "symbols" in {p["name"] for p in paths["/v2/options"]["get"]["parameters"]}
