"""GET /v1/similar: Yahoo's recommended peers as simple quotes; limit rules, 404/422 bodies,
upstream failures, caching and symbol safety.

Recommendations come from the recordings. No v7 recording quotes AAPL's recorded peers, so
their quote body is the AAPL v7 recording with the symbol, name and prices replaced.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.apps.payloads import EMPTY_QUOTE_RESPONSE, FAILURES, fail_url
from tests.apps.test_malformed_symbols_api import MALFORMED
from tests.conftest import QUERY2, calls_to

RECS = "yahoo/v6-recommendationsbysymbol"
RECS_URL = f"{QUERY2}/v6/finance/recommendationsbysymbol/"
AAPL_QUOTE = "yahoo/v7-quote/quote-AAPL.json"
# symbol -> (name, price, change, percent change); AAPL's recorded peers, invented prices
PEERS = {
    "AMZN": ("Amazon.com, Inc.", 216.58, -1.12, -0.5145),
    "TSLA": ("Tesla, Inc.", 355.84, 19.33, 5.7443),
    "GOOG": ("Alphabet Inc.", 187.0, 0.0, 0.0),
    "META": ("Meta Platforms, Inc.", 736.67, 8.11, 1.1131),
    "MSFT": ("Microsoft Corporation", 408.43, -2.11, -0.5139),
}


def v7_body(recording, symbols: list[str]) -> dict[str, Any]:
    """The AAPL v7 recording with one cloned result per symbol (no extended-hours trade)."""
    template = recording(AAPL_QUOTE)["quoteResponse"]["result"][0]
    rows = []
    for symbol in symbols:
        name, price, change, pct = PEERS[symbol]
        row = copy.deepcopy(template)
        for key in [k for k in row if k.startswith(("preMarket", "postMarket"))]:
            del row[key]
        row.update(symbol=symbol, longName=name, shortName=name, regularMarketPrice=price,
                   regularMarketChange=change, regularMarketChangePercent=pct)
        rows.append(row)
    return {"quoteResponse": {"result": rows, "error": None}}


def recs_body(symbol: str, peers: list[str]) -> dict[str, Any]:
    return {"finance": {"result": [{"symbol": symbol, "recommendedSymbols": [
        {"symbol": p, "score": round(0.3 - i / 100, 6)} for i, p in enumerate(peers)]}],
        "error": None}}


def quoted_symbols(yahoo) -> list[list[str]]:
    return [parse_qs(urlsplit(c.request.url).query)["symbols"][0].split(",")
            for c in calls_to(yahoo.mock, "/v7/finance/quote")]


def rec_calls(yahoo) -> list[Any]:
    return calls_to(yahoo.mock, "/v6/finance/recommendationsbysymbol/")


def test_similar_aapl(api, yahoo, recording):
    yahoo.get(RECS_URL + "AAPL", recording(f"{RECS}/AAPL.json"))
    yahoo.quote(v7_body(recording, list(PEERS)))
    response = api.get("/v1/similar?symbol=AAPL")
    assert response.status_code == 200
    body = response.json()
    assert [q["symbol"] for q in body] == ["AMZN", "TSLA", "GOOG", "META", "MSFT"]
    assert body[0] == {"symbol": "AMZN", "name": "Amazon.com, Inc.", "price": "216.58",
                       "change": "-1.12", "percentChange": "-0.51%"}
    assert body[2]["change"] == "+0.00"
    calls = rec_calls(yahoo)
    assert len(calls) == 1
    query = parse_qs(urlsplit(calls[0].request.url).query)
    assert query == {"count": ["11"], "crumb": ["haT3oykhHqZ"]}  # default limit 10, plus one
    assert quoted_symbols(yahoo) == [["AMZN", "TSLA", "GOOG", "META", "MSFT"]]


def test_limit_caps_the_answer(api, yahoo, recording):
    yahoo.get(RECS_URL + "AAPL", recording(f"{RECS}/AAPL.json"))  # Yahoo sends 5 anyway
    yahoo.quote(v7_body(recording, ["AMZN", "TSLA", "GOOG"]))
    response = api.get("/v1/similar?symbol=aapl&limit=2")
    assert response.status_code == 200
    assert [q["symbol"] for q in response.json()] == ["AMZN", "TSLA"]
    assert parse_qs(urlsplit(rec_calls(yahoo)[0].request.url).query)["count"] == ["3"]
    assert urlsplit(rec_calls(yahoo)[0].request.url).path.endswith("/AAPL")
    assert quoted_symbols(yahoo) == [["AMZN", "TSLA", "GOOG"]]  # one spare only


def test_the_symbol_itself_is_never_listed(api, yahoo, recording):
    yahoo.get(RECS_URL + "MSFT", recs_body("MSFT", ["MSFT", "AMZN", "msft", "TSLA"]))
    yahoo.quote(v7_body(recording, ["AMZN", "TSLA"]))
    response = api.get("/v1/similar?symbol=MSFT&limit=2")
    assert response.status_code == 200
    assert [q["symbol"] for q in response.json()] == ["AMZN", "TSLA"]
    assert quoted_symbols(yahoo) == [["AMZN", "TSLA"]]


def test_peers_that_do_not_quote_are_left_out(api, yahoo, recording):
    yahoo.get(RECS_URL + "AAPL", recording(f"{RECS}/AAPL.json"))
    yahoo.quote(v7_body(recording, ["TSLA", "META"]))  # Yahoo drops the others
    response = api.get("/v1/similar?symbol=AAPL&limit=5")
    assert [q["symbol"] for q in response.json()] == ["TSLA", "META"]


def test_malformed_peer_symbols_are_ignored(api, yahoo, recording):
    yahoo.get(RECS_URL + "MSFT", recs_body("MSFT", ["../x", "AMZN"]))
    yahoo.quote(v7_body(recording, ["AMZN"]))
    response = api.get("/v1/similar?symbol=MSFT")
    assert [q["symbol"] for q in response.json()] == ["AMZN"]
    assert quoted_symbols(yahoo) == [["AMZN"]]


def test_fx_symbol_is_encoded(api, yahoo, recording):
    yahoo.get(RECS_URL + "EURUSD%3DX", recording(f"{RECS}/EURUSD_X.json"))
    yahoo.quote(recording("yahoo/v7-quote/quote-EURUSD_X.json"))  # only EURUSD=X itself
    response = api.get("/v1/similar?symbol=eurusd=x")
    # GBPUSD=X, JPY=X... are asked for, but this body quotes none of them
    assert response.status_code == 404
    assert response.json() == {"detail": "No similar stocks found for EURUSD=X."}
    assert quoted_symbols(yahoo) == [["GBPUSD=X", "JPY=X", "EURGBP=X", "AUDUSD=X", "^TNX"]]
    assert urlsplit(rec_calls(yahoo)[0].request.url).path.endswith("/EURUSD%3DX")


# -- 404 --------------------------------------------------------------------------------------
def test_no_recommendations_404(api, yahoo, recording):
    yahoo.get(RECS_URL + "WSKT.JK", recording(f"{RECS}/WSKT.JK.json"))
    response = api.get("/v1/similar?symbol=WSKT.JK")
    assert response.status_code == 404
    assert response.json() == {"detail": "No similar stocks found for WSKT.JK."}
    assert calls_to(yahoo.mock, "/v7/finance/quote") == []


def test_only_itself_recommended_404(api, yahoo):
    yahoo.get(RECS_URL + "KO", recs_body("KO", ["KO"]))
    response = api.get("/v1/similar?symbol=KO")
    assert response.status_code == 404
    assert response.json() == {"detail": "No similar stocks found for KO."}


def test_yahoo_404_is_404(api, yahoo):
    yahoo.get(RECS_URL + "ZZZZ", {"finance": {"result": None, "error": {
        "code": "Not Found", "description": "HTTP 404 Not Found"}}}, status=404)
    response = api.get("/v1/similar?symbol=ZZZZ")
    assert response.status_code == 404
    assert set(response.json()) == {"detail"}


def test_no_peer_quotes_404(api, yahoo, recording):
    yahoo.get(RECS_URL + "AAPL", recording(f"{RECS}/AAPL.json"))
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    response = api.get("/v1/similar?symbol=AAPL")
    assert response.status_code == 404
    assert response.json() == {"detail": "No similar stocks found for AAPL."}


@pytest.mark.parametrize("raw", [value for _, value in MALFORMED],
                         ids=[name for name, _ in MALFORMED])
def test_malformed_symbol_never_reaches_yahoo(api, yahoo, raw):
    response = api.get(f"/v1/similar?symbol={raw}")
    assert response.status_code in (404, 422), response.content
    assert "detail" in response.json()
    assert len(yahoo.mock.calls) == 0


# -- 422 --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("query", "errors"), [
    ("", {"symbol": ["Field required"]}),
    ("limit=5", {"symbol": ["Field required"]}),
    ("symbol=", {"symbol": ["String should have at least 1 character"]}),
    ("symbol=AAPL&limit=50", {"limit": ["Input should be less than or equal to 20"]}),
    ("symbol=AAPL&limit=21", {"limit": ["Input should be less than or equal to 20"]}),
    ("symbol=AAPL&limit=0", {"limit": ["Input should be greater than or equal to 1"]}),
    ("symbol=AAPL&limit=-3", {"limit": ["Input should be greater than or equal to 1"]}),
    ("symbol=AAPL&limit=abc", {"limit": [
        "Input should be a valid integer, unable to parse string as an integer"]}),
    ("limit=50", {"symbol": ["Field required"],
                  "limit": ["Input should be less than or equal to 20"]}),
])
def test_invalid_parameters_422(api, yahoo, query, errors):
    response = api.get(f"/v1/similar?{query}")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": errors}
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("limit", ["1", "20"])
def test_limit_bounds_accepted(api, yahoo, recording, limit):
    yahoo.get(RECS_URL + "AAPL", recording(f"{RECS}/AAPL.json"))
    yahoo.quote(v7_body(recording, list(PEERS)))
    response = api.get(f"/v1/similar?symbol=AAPL&limit={limit}")
    assert response.status_code == 200
    assert len(response.json()) == min(int(limit), 5)


# -- upstream failures and cache --------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_recommendations_failure(api, yahoo, kind):
    fail_url(yahoo.mock, RECS_URL + "AAPL", kind)
    response = api.get("/v1/similar?symbol=AAPL")
    status, code = FAILURES[kind]
    assert response.status_code == status
    assert response.json() == {"detail": response.json()["detail"], "provider": "yahoo",
                               "code": code}


def test_quote_failure_after_recommendations(api, yahoo, recording):
    yahoo.get(RECS_URL + "AAPL", recording(f"{RECS}/AAPL.json"))
    yahoo.quote("<html>oops</html>", status=500, content_type="text/html")
    response = api.get("/v1/similar?symbol=AAPL")
    assert response.status_code == 502
    assert response.json()["provider"] == "yahoo"


def test_cached(api, yahoo, recording):
    yahoo.get(RECS_URL + "AAPL", recording(f"{RECS}/AAPL.json"))
    yahoo.quote(v7_body(recording, list(PEERS)))
    first = api.get("/v1/similar?symbol=AAPL&limit=3")
    assert first["X-Cache"] == "MISS"
    second = api.get("/v1/similar?symbol=AAPL&limit=3")
    assert second.json() == first.json()
    assert second["X-Cache"] == "HIT"
    # another spelling of the same request: data cache, no new upstream call
    third = api.get("/v1/similar?limit=3&symbol=aapl")
    assert third.json() == first.json()
    assert len(rec_calls(yahoo)) == 1
    assert len(calls_to(yahoo.mock, "/v7/finance/quote")) == 1
