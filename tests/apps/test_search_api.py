"""GET /v1/search: the primary provider (Algolia), the automatic Yahoo fallback, 422 bodies,
caps and filters, caching, and the secrecy of the search key.

No Algolia recording exists: its answers are the hand-written ``ALGOLIA_BODY`` (Algolia's
documented response shape); Yahoo's are the recordings in ``yahoo/v1-search``.
"""

from __future__ import annotations

import dataclasses
import logging
from urllib.parse import parse_qs, quote, urlsplit

import pytest
import requests

from marketdata.providers import algolia
from marketdata.providers.yahoo.search import SEARCH_URL
from tests.conftest import calls_to, capture_logs
from tests.marketdata.providers.test_algolia import ALGOLIA_AAPL, ALGOLIA_BODY, ALGOLIA_URL

AAPL_SEARCH = "yahoo/v1-search/search-AAPL.json"
BMW_SEARCH = "yahoo/v1-search/search-Bayerische_Motoren_Werke_AG.json"
KEY = "k3y-search-only-0123456789abcdef"
YAHOO_AAPL = [
    {"name": "Apple Inc.", "symbol": "AAPL", "exchange": "NMS", "type": "stock"},
    {"name": "Direxion Daily AAPL Bull 2X Shares", "symbol": "AAPU", "exchange": "NGM",
     "type": "etf"},
]


@pytest.fixture(autouse=True)
def _fast_algolia_retries(monkeypatch):
    fast = dataclasses.replace(algolia.PROVIDER, backoff_seconds=0.001,
                               backoff_max_seconds=0.001)
    monkeypatch.setattr(algolia, "PROVIDER", fast)


@pytest.fixture(autouse=True)
def _credentials(settings):
    settings.SEARCH_APP_ID = "ZTZOECLXBC"
    settings.SEARCH_API_KEY = KEY
    settings.SEARCH_INDEX = "stocks"


def algolia_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "algolia.net")


def yahoo_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/v1/finance/search")


def _q(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


# -- primary provider ---------------------------------------------------------------------------
def test_primary_provider_answers(api, yahoo):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)
    response = api.get("/v1/search?query=apple")
    assert response.status_code == 200
    assert response["X-Search-Provider"] == "algolia"
    assert response["X-Cache"] == "MISS"
    body = response.json()
    assert body[0] == ALGOLIA_AAPL
    assert [r["symbol"] for r in body] == ["AAPL", "APLE", "AAPU", "AAPI", "FSPTX"]
    assert {r["type"] for r in body} == {"stock", "etf", "trust"}
    (call,) = algolia_calls(yahoo)
    assert _q(call)["hitsPerPage"] == ["50"]  # the default
    assert "facetFilters" not in _q(call)
    assert not yahoo_calls(yahoo)


def test_hits_and_type_reach_the_primary_provider(api, yahoo):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)
    response = api.get("/v1/search?query=apple&hits=1&type=stock")
    assert response.json() == [ALGOLIA_AAPL]
    (call,) = algolia_calls(yahoo)
    assert _q(call)["hitsPerPage"] == ["1"]
    assert _q(call)["facetFilters"] == ['["type:stock"]']


def test_results_never_exceed_hits_even_if_the_provider_sends_more(api, yahoo):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)  # five hits whatever hitsPerPage says
    assert len(api.get("/v1/search?query=apple&hits=2").json()) == 2


def test_no_match_is_an_empty_list(api, yahoo):
    yahoo.get(ALGOLIA_URL, {**ALGOLIA_BODY, "hits": [], "nbHits": 0, "nbPages": 0})
    response = api.get("/v1/search?query=qwxzv")
    assert response.status_code == 200
    assert response.json() == []
    assert response["X-Search-Provider"] == "algolia"
    assert not yahoo_calls(yahoo)  # an empty answer is an answer, not a failure


def test_query_is_trimmed_and_collapsed(api, yahoo):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)
    api.get("/v1/search?query=%20%20apple%20%20%20inc%20")
    assert _q(algolia_calls(yahoo)[0])["query"] == ["apple inc"]


def test_response_cache_replays_the_provider_header(api, yahoo):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)
    first = api.get("/v1/search?query=apple")
    again = api.get("/v1/search?query=apple")  # the same URL: the stored response
    assert again.content == first.content
    assert again["X-Cache"] == "HIT"
    assert again["X-Search-Provider"] == "algolia"
    assert len(algolia_calls(yahoo)) == 1


def test_search_results_are_cached_per_normalised_query(api, yahoo):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)
    first = api.get("/v1/search?query=Apple")
    # another spelling of the same search: a data-cache hit (not the response cache)
    second = api.get("/v1/search?query=%20apple")
    assert second.json() == first.json()
    assert second["X-Cache"] == "HIT"
    assert second["X-Search-Provider"] == "algolia"
    assert len(algolia_calls(yahoo)) == 1
    api.get("/v1/search?query=apple&hits=10")  # another cap is another search
    assert len(algolia_calls(yahoo)) == 2


# -- fallback -------------------------------------------------------------------------------------
FAILURES = {
    "revoked_key": dict(body={"message": "Invalid Application-ID or API key", "status": 403},
                        status=403),
    "unknown_index": dict(body={"message": "Index does not exist", "status": 404}, status=404),
    "server_error": dict(body={"message": "Internal error"}, status=500),
    "rate_limited": dict(body={"message": "Too many requests"}, status=429),
    "not_json": dict(body="<html>proxy error</html>", status=200),
    "no_hits_list": dict(body={"message": "ok?"}, status=200),
    "connection_error": dict(body=requests.exceptions.ConnectionError("refused")),
    "timeout": dict(body=requests.exceptions.ReadTimeout("slow")),
}


def _register_algolia(yahoo, kind: str) -> None:
    spec = FAILURES[kind]
    if isinstance(spec["body"], Exception):
        yahoo.mock.add("GET", ALGOLIA_URL, body=spec["body"])
    else:
        yahoo.get(ALGOLIA_URL, spec["body"], status=spec["status"])


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_primary_failure_falls_back_to_yahoo(api, yahoo, recording, kind):
    _register_algolia(yahoo, kind)
    yahoo.get(SEARCH_URL, recording(AAPL_SEARCH))
    with capture_logs("marketdata.providers.algolia", logging.WARNING) as logs:
        response = api.get("/v1/search?query=AAPL&hits=5")
    assert response.status_code == 200, response.content
    assert response["X-Search-Provider"] == "yahoo"
    assert response.json() == YAHOO_AAPL
    # a fallback answer is not kept as a whole response: the next request tries the primary
    assert response["Cache-Control"] == "no-store"
    (call,) = yahoo_calls(yahoo)
    assert _q(call)["q"] == ["AAPL"]
    assert _q(call)["quotesCount"] == ["5"]
    assert _q(call)["newsCount"] == ["0"]
    (record,) = [r for r in logs.records() if "falling back" in r["message"]]
    assert record["level"] == "WARNING"
    assert record["provider"] == "algolia" and record["fallback"] == "yahoo"
    assert record["reason"].startswith("Search provider (Algolia)")


def test_misconfigured_app_id_falls_back_without_calling_another_host(api, yahoo, recording,
                                                                     settings):
    settings.SEARCH_APP_ID = "evil.example.com/x"
    yahoo.get(SEARCH_URL, recording(AAPL_SEARCH))
    response = api.get("/v1/search?query=AAPL")
    assert response["X-Search-Provider"] == "yahoo"
    assert len(yahoo.mock.calls) == 1  # only Yahoo's search: nothing sent to the bad host


def test_use_primary_provider_false_asks_yahoo_directly(api, yahoo, recording):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)
    yahoo.get(SEARCH_URL, recording(AAPL_SEARCH))
    response = api.get("/v1/search?query=AAPL&use_primary_provider=false")
    assert response.status_code == 200
    assert response["X-Search-Provider"] == "yahoo"
    assert response.json() == YAHOO_AAPL
    assert not algolia_calls(yahoo)
    (call,) = yahoo_calls(yahoo)
    assert _q(call)["quotesCount"] == ["50"]


@pytest.mark.parametrize("value", ["true", "True", "1", "yes"])
def test_use_primary_provider_true_spellings(api, yahoo, value):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)
    response = api.get(f"/v1/search?query=apple&use_primary_provider={value}")
    assert response["X-Search-Provider"] == "algolia"


def test_yahoo_type_filter_comes_before_the_cap(api, yahoo, recording):
    yahoo.get(SEARCH_URL, recording("yahoo/v1-search/search-AAPL-finance-query-2026.json"))
    body = api.get("/v1/search?query=AAPL&hits=2&type=stock&use_primary_provider=false").json()
    assert [r["symbol"] for r in body] == ["AAPL", "AAPL.NE"]


def test_yahoo_results_never_exceed_hits(api, yahoo, recording):
    yahoo.get(SEARCH_URL, recording(BMW_SEARCH))  # six equities
    body = api.get("/v1/search?query=bmw&hits=3&use_primary_provider=false").json()
    assert [r["symbol"] for r in body] == ["BMW.DE", "BMW.SG", "BAMXF"]
    assert body[0] == {"name": "Bayerische Motoren Werke Aktiengesellschaft",
                       "symbol": "BMW.DE", "exchange": "GER", "type": "stock"}


def test_yahoo_with_no_security_is_an_empty_list(api, yahoo, recording):
    yahoo.get(SEARCH_URL, recording("yahoo/v1-search/search-EUR.json"))  # currencies only
    response = api.get("/v1/search?query=EUR&use_primary_provider=false")
    assert response.status_code == 200
    assert response.json() == []


@pytest.mark.parametrize(("failure", "status", "code"), [
    (dict(status=500, body="<html>error</html>"), 502, "upstream_bad_response"),
    (dict(body=requests.exceptions.ConnectionError("refused")), 503, "upstream_unavailable"),
    (dict(body=requests.exceptions.ReadTimeout("slow")), 504, "upstream_timeout"),
    (dict(status=429, body="Too Many Requests"), 429, "upstream_rate_limited"),
])
def test_both_providers_failing_returns_yahoos_error(api, yahoo, failure, status, code):
    _register_algolia(yahoo, "revoked_key")
    if "status" in failure:
        yahoo.get(SEARCH_URL, failure["body"], status=failure["status"],
                  content_type="text/html")
    else:
        yahoo.mock.add("GET", SEARCH_URL, body=failure["body"])
    response = api.get("/v1/search?query=AAPL")
    assert response.status_code == status
    body = response.json()
    assert body["provider"] == "yahoo"
    assert body["code"] == code
    assert set(body) == {"detail", "provider", "code"}
    assert KEY not in response.content.decode()


def test_yahoo_failing_when_asked_directly(api, yahoo):
    yahoo.get(SEARCH_URL, "<html>error</html>", status=500, content_type="text/html")
    response = api.get("/v1/search?query=AAPL&use_primary_provider=false")
    assert response.status_code == 502
    assert response.json() == {"detail": "Yahoo Finance answered HTTP 500",
                               "provider": "yahoo", "code": "upstream_bad_response"}
    assert not algolia_calls(yahoo)


def test_the_search_key_is_never_logged(api, yahoo, recording):
    _register_algolia(yahoo, "revoked_key")  # first call: 403 ...
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)  # ... then answers (responses replays in order)
    yahoo.get(SEARCH_URL, recording(AAPL_SEARCH))
    with capture_logs("", logging.DEBUG) as logs:
        assert api.get("/v1/search?query=AAPL")["X-Search-Provider"] == "yahoo"
        assert api.get("/v1/search?query=apple")["X-Search-Provider"] == "algolia"
    text = logs.text()
    assert "algolia" in text and "falling back" in text
    assert KEY not in text


# -- 422 -------------------------------------------------------------------------------------------
def _invalid(**errors: list[str]) -> dict:
    return {"detail": "Invalid request", "errors": errors}


@pytest.mark.parametrize(("query", "expected"), [
    ("", _invalid(query=["Field required"])),
    ("query=", _invalid(query=["String should have at least 1 character"])),
    ("query=%20%20", _invalid(query=["String should have at least 1 character"])),
    ("query=" + "a" * 201, _invalid(query=["String should have at most 200 characters"])),
    ("query=a&hits=0", _invalid(hits=["Input should be greater than or equal to 1"])),
    ("query=a&hits=101", _invalid(hits=["Input should be less than or equal to 100"])),
    ("query=a&hits=-5", _invalid(hits=["Input should be greater than or equal to 1"])),
    ("query=a&hits=abc", _invalid(hits=[
        "Input should be a valid integer, unable to parse string as an integer"])),
    ("query=a&hits=2.5", _invalid(hits=[
        "Input should be a valid integer, unable to parse string as an integer"])),
    ("query=a&type=bond", _invalid(type=["Input should be 'stock', 'etf' or 'trust'"])),
    ("query=a&type=ETF", _invalid(type=["Input should be 'stock', 'etf' or 'trust'"])),
    ("query=a&use_primary_provider=maybe", _invalid(use_primary_provider=[
        "Input should be a valid boolean, unable to interpret input"])),
    ("hits=abc&type=bond&use_primary_provider=maybe", _invalid(
        query=["Field required"],
        hits=["Input should be a valid integer, unable to parse string as an integer"],
        type=["Input should be 'stock', 'etf' or 'trust'"],
        use_primary_provider=["Input should be a valid boolean, unable to interpret input"])),
])
def test_invalid_parameters(api, yahoo, query, expected):
    response = api.get(f"/v1/search?{query}")
    assert response.status_code == 422
    assert response.json() == expected
    assert len(yahoo.mock.calls) == 0
    assert "X-Search-Provider" not in response


def test_hits_bounds_are_inclusive(api, yahoo):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)
    assert api.get("/v1/search?query=apple&hits=1").status_code == 200
    assert api.get("/v1/search?query=apple&hits=100").status_code == 200
    assert [_q(c)["hitsPerPage"] for c in algolia_calls(yahoo)] == [["1"], ["100"]]


def test_empty_optional_parameters_are_invalid_not_defaults(api, yahoo):
    # As the OpenAPI schema says: an empty value is a value; only leaving a parameter out
    # gives its default.
    response = api.get("/v1/search?query=apple&hits=&type=&use_primary_provider=")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": {
        "hits": ["Input should be a valid integer, unable to parse string as an integer"],
        "type": ["Input should be 'stock', 'etf' or 'trust'"],
        "use_primary_provider": ["Input should be a valid boolean, unable to interpret input"],
    }}
    assert algolia_calls(yahoo) == []


def test_left_out_optional_parameters_take_their_defaults(api, yahoo):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)
    response = api.get("/v1/search?query=apple")
    assert response.status_code == 200
    assert response["X-Search-Provider"] == "algolia"
    (call,) = algolia_calls(yahoo)
    assert _q(call)["hitsPerPage"] == ["50"]
    assert "facetFilters" not in _q(call)


# -- safety: the query only ever travels as a query-string value ---------------------------------
@pytest.mark.parametrize("text", ["../../etc/passwd", "A/B", "AAPL?x=1&hitsPerPage=1000",
                                  "%00", "ÄAPL Société", "a" * 200,
                                  "AAPL%0D%0AX-Evil:1", "AAPL\r\nX-Evil: 1", "#frag"])
def test_any_query_text_stays_a_parameter(api, yahoo, recording, text):
    _register_algolia(yahoo, "revoked_key")
    yahoo.get(SEARCH_URL, recording(AAPL_SEARCH))
    response = api.get("/v1/search?query=" + quote(text, safe=""))
    assert response.status_code == 200, response.content
    expected = " ".join(text.split())
    for call in algolia_calls(yahoo):
        assert urlsplit(call.request.url).path == "/1/indexes/stocks"
        assert _q(call)["query"] == [expected]
        assert _q(call)["hitsPerPage"] == ["50"]
    for call in yahoo_calls(yahoo):
        assert urlsplit(call.request.url).path == "/v1/finance/search"
        assert _q(call)["q"] == [expected]
    assert len(yahoo.mock.calls) == 2


def test_a_nul_character_is_422(api, yahoo):
    response = api.get("/v1/search?query=A%00B")
    assert response.status_code == 422
    assert response.json() == _invalid(query=["Null characters are not allowed."])
    assert len(yahoo.mock.calls) == 0
