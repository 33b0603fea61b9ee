"""GET /v2/recommendations/{symbol} and /v2/recommendations: the recordings through the
endpoints (scores exact), `limit` as a count, the batch paged with pageCursor/pageLimit,
every error status, and the sandbox."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.apps.payloads import FAILURES, QUERY2, fail_url
from tests.conftest import calls_to

DIR = "yahoo/v6-recommendationsbysymbol"
URL = f"{QUERY2}/v6/finance/recommendationsbysymbol"


@pytest.fixture
def aapl(yahoo, recording):
    payload = recording(f"{DIR}/AAPL.json")
    yahoo.get(f"{URL}/AAPL", payload)
    return payload["finance"]["result"][0]["recommendedSymbols"]


def test_recommendations_exactly_as_recorded(api, yahoo, aapl):
    response = api.get("/v2/recommendations/aapl")
    assert response.status_code == 200, response.content
    assert response.json() == {"symbol": "AAPL", "recommendations": aapl,
                               "providerId": "Yahoo"}
    (call,) = calls_to(yahoo.mock, "/v6/finance/recommendationsbysymbol/AAPL")
    assert "count=5" in call.request.url and "crumb=" in call.request.url


def test_limit_is_a_count_and_fields_select(api, yahoo, aapl):
    body = api.get("/v2/recommendations/AAPL?limit=2&fields=recommendations").json()
    assert body == {"recommendations": aapl[:2]}


@pytest.mark.parametrize("name", ["EURUSD_X.json", "WSKT.JK.json", "0P000071W8.TO.json"])
def test_other_recordings(api, yahoo, recording, name):
    payload = recording(f"{DIR}/{name}")
    symbol = payload["finance"]["result"][0]["symbol"] if payload["finance"]["result"] \
        else name.removesuffix(".json").replace("_", "=")
    yahoo.get(f"{URL}/{quote(symbol, safe='')}", payload)
    response = api.get(f"/v2/recommendations/{symbol}")
    assert response.status_code == 200, response.content
    expected = [r for result in payload["finance"]["result"]
                for r in result["recommendedSymbols"]][:5]
    assert response.json()["recommendations"] == expected


def test_batch_in_request_order_paged_over_symbols(api, yahoo, aapl, recording):
    yahoo.get(f"{URL}/WSKT.JK", recording(f"{DIR}/WSKT.JK.json"))
    body = api.get("/v2/recommendations?symbols=AAPL,..,wskt.jk&fields=providerId").json()
    assert body == {"recommendations": [{"symbol": "AAPL", "providerId": "Yahoo"},
                                        {"symbol": "WSKT.JK", "providerId": "Yahoo"}],
                    "errors": [{"symbol": "..", "message": body["errors"][0]["message"]}]}
    paged = api.get("/v2/recommendations?symbols=AAPL,WSKT.JK&pageLimit=1&limit=3").json()
    nodes = paged["recommendations"]["nodes"]
    assert [n["symbol"] for n in nodes] == ["AAPL"] and nodes[0]["recommendations"] == aapl[:3]
    after = paged["recommendations"]["pageInfo"]["endCursor"]
    rest = api.get(f"/v2/recommendations?symbols=AAPL,WSKT.JK&pageLimit=1&limit=3"
                   f"&pageCursor={after}").json()["recommendations"]["nodes"]
    assert [n["symbol"] for n in rest] == ["WSKT.JK"]


@pytest.mark.parametrize("path", ["/v2/recommendations/AAPL?limit=0",
                                  "/v2/recommendations/AAPL?limit=51",
                                  "/v2/recommendations", "/v2/recommendations?symbols=AAPL"
                                  "&pageLimit=-1", "/v2/recommendations?symbols=A&pageCursor=x"])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 400 and response.json()["status"] == 400
    assert not calls_to(yahoo.mock, "/recommendationsbysymbol")


def test_malformed_symbol_404_and_unknown_is_empty(api, yahoo):
    assert api.get("/v2/recommendations/AA%20PL").status_code == 404
    yahoo.get(f"{URL}/ZZZZ", {"finance": {"result": [], "error": None}})
    assert api.get("/v2/recommendations/ZZZZ").json()["recommendations"] == []


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, f"{URL}/AAPL", kind)
    status, _ = FAILURES[kind]
    for path in ("/v2/recommendations/AAPL", "/v2/recommendations?symbols=AAPL"):
        response = api.get(path)
        assert response.status_code == status, path
        assert response.json()["provider"] == "yahoo"


@pytest.mark.parametrize("symbol", ["AAPL", "SPY", "7203.T"])
def test_through_the_sandbox(api, sandbox_upstream, symbol):
    body = api.get(f"/v2/recommendations/{symbol}?limit=3").json()
    assert body["symbol"] == symbol and len(body["recommendations"]) <= 3
    scores = [r["score"] for r in body["recommendations"]]
    assert scores == sorted(scores, reverse=True)
