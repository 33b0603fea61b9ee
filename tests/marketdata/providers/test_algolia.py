"""The primary search provider (Algolia REST): request, parsing, errors, secrecy of the key.

No Algolia recording exists: ``ALGOLIA_BODY`` is hand-written in Algolia's documented search
response shape (``hits, nbHits, page, nbPages, hitsPerPage, exhaustiveNbHits, query, params,
processingTimeMS``), with the attributes this service retrieves from the securities index.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from marketdata.errors import UpstreamBadResponse, UpstreamTimeout, UpstreamUnavailable
from marketdata.providers import algolia
from marketdata.providers.algolia import (
    parse_hits,
    search_params,
    search_securities,
    search_url,
)
from tests.conftest import calls_to, capture_logs

APP_ID = "ZTZOECLXBC"
ALGOLIA_URL = f"https://{APP_ID.lower()}-dsn.algolia.net/1/indexes/stocks"

ALGOLIA_BODY = {
    "hits": [
        {"name": "Apple Inc.", "symbol": "AAPL", "exchangeShortName": "NASDAQ", "type": "stock",
         "objectID": "AAPL",
         "_highlightResult": {"name": {"value": "<em>Apple</em> Inc.", "matchLevel": "full",
                                       "fullyHighlighted": False, "matchedWords": ["apple"]}}},
        {"name": "Apple Hospitality REIT, Inc.", "symbol": "APLE", "exchangeShortName": "NYSE",
         "type": "stock", "objectID": "APLE"},
        {"name": "Direxion Daily AAPL Bull 2X Shares", "symbol": "AAPU",
         "exchangeShortName": "NASDAQ", "type": "etf", "objectID": "AAPU"},
        {"name": "Apple iSports Group, Inc.", "symbol": "AAPI", "exchangeShortName": "OTC",
         "type": "stock", "objectID": "AAPI"},
        {"name": "Fidelity Select Technology Portfolio", "symbol": "FSPTX",
         "exchangeShortName": "NASDAQ", "type": "trust", "objectID": "FSPTX"},
    ],
    "nbHits": 5,
    "page": 0,
    "nbPages": 1,
    "hitsPerPage": 50,
    "exhaustiveNbHits": True,
    "exhaustiveTypo": True,
    "exhaustive": {"nbHits": True, "typo": True},
    "query": "apple",
    "params": "query=apple&hitsPerPage=50&attributesToRetrieve=name%2Csymbol%2C"
              "exchangeShortName%2Ctype",
    "processingTimeMS": 1,
}
ALGOLIA_AAPL = {"name": "Apple Inc.", "symbol": "AAPL", "exchange": "NASDAQ", "type": "stock"}


@pytest.fixture(autouse=True)
def _fast_algolia_retries(monkeypatch):
    fast = dataclasses.replace(algolia.PROVIDER, backoff_seconds=0.001,
                               backoff_max_seconds=0.001)
    monkeypatch.setattr(algolia, "PROVIDER", fast)


@pytest.fixture(autouse=True)
def _credentials(settings):
    settings.SEARCH_APP_ID = APP_ID
    settings.SEARCH_API_KEY = "k3y-search-only-0123456789abcdef"
    settings.SEARCH_INDEX = "stocks"


# -- parsing ----------------------------------------------------------------------------------
def test_parse_hits_maps_every_hit_in_order():
    assert parse_hits(ALGOLIA_BODY) == [
        ALGOLIA_AAPL,
        {"name": "Apple Hospitality REIT, Inc.", "symbol": "APLE", "exchange": "NYSE",
         "type": "stock"},
        {"name": "Direxion Daily AAPL Bull 2X Shares", "symbol": "AAPU", "exchange": "NASDAQ",
         "type": "etf"},
        {"name": "Apple iSports Group, Inc.", "symbol": "AAPI", "exchange": "OTC",
         "type": "stock"},
        {"name": "Fidelity Select Technology Portfolio", "symbol": "FSPTX",
         "exchange": "NASDAQ", "type": "trust"},
    ]


def test_parse_hits_caps_and_refilters():
    assert [r["symbol"] for r in parse_hits(ALGOLIA_BODY, hits=2)] == ["AAPL", "APLE"]
    assert [r["symbol"] for r in parse_hits(ALGOLIA_BODY, hits=5, security_type="etf")] == [
        "AAPU"]
    assert [r["symbol"] for r in parse_hits(ALGOLIA_BODY, 1, "trust")] == ["FSPTX"]


def test_incomplete_or_foreign_hits_are_left_out():
    body = {"hits": [
        {"name": "No symbol", "exchangeShortName": "NYSE", "type": "stock"},
        {"symbol": "NONAME", "exchangeShortName": "NYSE", "type": "stock"},
        {"name": "No exchange", "symbol": "NOEX", "exchangeShortName": None, "type": "stock"},
        {"name": "A bond", "symbol": "BOND", "exchangeShortName": "NYSE", "type": "bond"},
        {"name": "No type", "symbol": "NOTYPE", "exchangeShortName": "NYSE"},
        "garbage",
        {"name": "  Kept   Corp ", "symbol": "KEPT", "exchangeShortName": "NYSE", "type": "ETF"},
    ]}
    assert parse_hits(body) == [{"name": "Kept Corp", "symbol": "KEPT", "exchange": "NYSE",
                                 "type": "etf"}]


@pytest.mark.parametrize("payload", [{"message": "x"}, {"hits": "x"}, [1], "text", None])
def test_a_body_without_hits_is_a_bad_answer(payload):
    with pytest.raises(UpstreamBadResponse) as info:
        parse_hits(payload)
    assert info.value.provider == "algolia"


def test_empty_hits_is_no_result():
    assert parse_hits({**ALGOLIA_BODY, "hits": [], "nbHits": 0}) == []


# -- the request --------------------------------------------------------------------------------
def test_search_params_encode_arrays_as_algolia_documents():
    assert search_params("apple", 50, None) == {
        "query": "apple", "hitsPerPage": "50",
        "attributesToRetrieve": "name,symbol,exchangeShortName,type"}
    assert search_params("apple", 5, "etf")["facetFilters"] == '["type:etf"]'


def test_search_url():
    assert search_url("ZTZOECLXBC", "stocks") == ALGOLIA_URL
    assert search_url("abc123", "my index/x").endswith("/1/indexes/my%20index%2Fx")


@pytest.mark.parametrize("app_id", ["", "evil.com/x", "a" * 40, "app id", "x@y"])
def test_a_malformed_app_id_never_becomes_a_host(app_id):
    with pytest.raises(UpstreamBadResponse) as info:
        search_url(app_id, "stocks")
    assert "misconfigured" in info.value.detail


def test_search_securities_request(yahoo):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)
    assert search_securities("apple", 50, "stock") == [
        r for r in parse_hits(ALGOLIA_BODY) if r["type"] == "stock"]
    (call,) = calls_to(yahoo.mock, "algolia.net")
    parts = urlsplit(call.request.url)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https", "ztzoeclxbc-dsn.algolia.net", "/1/indexes/stocks")
    query = parse_qs(parts.query)
    assert query == {"query": ["apple"], "hitsPerPage": ["50"],
                     "attributesToRetrieve": ["name,symbol,exchangeShortName,type"],
                     "facetFilters": ['["type:stock"]']}
    assert call.request.headers["X-Algolia-Application-Id"] == APP_ID
    assert call.request.headers["X-Algolia-API-Key"] == "k3y-search-only-0123456789abcdef"
    assert "k3y-search-only" not in call.request.url


def test_search_securities_is_cached(yahoo):
    yahoo.get(ALGOLIA_URL, ALGOLIA_BODY)
    first = search_securities("Apple", 50)
    assert search_securities("apple", 50) == first
    assert len(calls_to(yahoo.mock, "algolia.net")) == 1


@pytest.mark.parametrize("status", [400, 403, 404])
def test_client_errors_are_bad_answers(yahoo, status):
    yahoo.get(ALGOLIA_URL, {"message": "Invalid Application-ID or API key", "status": status},
              status=status)
    with pytest.raises(UpstreamBadResponse) as info:
        search_securities("apple", 50)
    assert info.value.provider == "algolia"
    assert info.value.upstream_status == status
    assert info.value.detail == f"Search provider (Algolia) answered HTTP {status}"
    assert len(calls_to(yahoo.mock, "algolia.net")) == 1  # a 4xx is an answer: no retry


def test_server_errors_are_retried_once_then_bad_answers(yahoo):
    yahoo.get(ALGOLIA_URL, {"message": "oops"}, status=500)
    with pytest.raises(UpstreamBadResponse):
        search_securities("apple", 50)
    assert len(calls_to(yahoo.mock, "algolia.net")) == algolia.PROVIDER.max_attempts == 2


@pytest.mark.parametrize(("error", "expected"), [
    (requests.exceptions.ConnectionError("refused"), UpstreamUnavailable),
    (requests.exceptions.ReadTimeout("slow"), UpstreamTimeout),
])
def test_transport_failures(yahoo, error, expected):
    yahoo.mock.add("GET", ALGOLIA_URL, body=error)
    with pytest.raises(expected) as info:
        search_securities("apple", 50)
    assert info.value.provider == "algolia"


def test_a_body_that_is_not_json_is_a_bad_answer(yahoo):
    yahoo.get(ALGOLIA_URL, "<html>captive portal</html>")
    with pytest.raises(UpstreamBadResponse):
        search_securities("apple", 50)


def test_the_key_never_reaches_logs_or_errors(yahoo, settings):
    key = settings.SEARCH_API_KEY
    yahoo.get(ALGOLIA_URL, {"message": f"Invalid key {key}", "status": 403}, status=403)
    with capture_logs("", logging.DEBUG) as logs:
        with pytest.raises(UpstreamBadResponse) as info:
            search_securities("apple", 50)
    assert key not in json.dumps(info.value.to_dict())
    assert key not in info.value.detail
    text = logs.text()
    assert "algolia" in text  # the upstream call was logged...
    assert key not in text  # ...without the key
