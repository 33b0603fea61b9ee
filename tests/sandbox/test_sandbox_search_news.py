"""The sandbox's Yahoo v1 search (quotes and news) and Algolia search: recorded shapes,
determinism, the clock, auth, filters; and /v1/search and /v1/news answering in sandbox mode
through the real client."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from marketdata.providers.algolia import parse_hits
from marketdata.providers.yahoo.news import about, parse_news
from marketdata.providers.yahoo.search import parse_search_quotes
from marketdata.sandbox import SandboxResponse, UpstreamSandbox

UPSTREAM = Path(__file__).resolve().parents[2].parent / "shared" / "upstream" / "yahoo"
needs_recordings = pytest.mark.skipif(not UPSTREAM.is_dir(), reason="no shared/upstream")

CLOCK = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)
Q1 = "query1.finance.yahoo.com"
ALGOLIA_HOST = "ztzoeclxbc-dsn.algolia.net"
AUTH = {"X-Algolia-Application-Id": "ZTZOECLXBC", "X-Algolia-API-Key": "search-key"}


def make(clock: datetime = CLOCK) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock)


def search(sb: UpstreamSandbox, **query: str) -> SandboxResponse:
    return sb.handle("GET", Q1, "/v1/finance/search", {k: [v] for k, v in query.items()}, {})


def algolia(sb: UpstreamSandbox, headers: dict[str, str] | None = None, path: str = "/1/indexes/"
            "stocks", method: str = "GET", body: bytes = b"", **query: str) -> SandboxResponse:
    return sb.handle(method, ALGOLIA_HOST, path, {k: [v] for k, v in query.items()},
                     AUTH if headers is None else headers, body)


def data(response: SandboxResponse) -> Any:
    return json.loads(response.body)


# -- Yahoo search: quotes ----------------------------------------------------------------------
@needs_recordings
def test_search_shape_follows_the_recording():
    recorded = json.loads((UPSTREAM / "v1-search" / "search-AAPL.json").read_text())
    response = search(make(), q="AAPL", quotesCount="6", newsCount="4")
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("application/json")
    payload = data(response)
    assert list(payload) == list(recorded)
    aapl = payload["quotes"][0]
    assert list(aapl) == list(recorded["quotes"][0])  # same keys, same order
    assert (aapl["symbol"], aapl["quoteType"], aapl["exchange"], aapl["shortname"],
            aapl["exchDisp"], aapl["typeDisp"]) == ("AAPL", "EQUITY", "NMS", "Apple Inc.",
                                                    "NASDAQ", "Equity")
    article = payload["news"][0]
    assert list(article) == list(recorded["news"][0])
    assert [r["tag"] for r in article["thumbnail"]["resolutions"]] == ["original", "140x140"]
    assert payload["count"] == len(payload["quotes"]) + len(payload["news"])


def test_quotes_match_symbol_then_names():
    sb = make()
    symbols = [q["symbol"] for q in data(search(sb, q="apple"))["quotes"]]
    assert symbols == ["AAPL"]
    spdr = data(search(sb, q="spdr", quotesCount="10"))["quotes"]
    assert {q["quoteType"] for q in spdr} == {"ETF"}
    assert "SPY" in [q["symbol"] for q in spdr]
    assert [q["symbol"] for q in data(search(sb, q="^gspc"))["quotes"]] == ["^GSPC"]


def test_a_plausible_unmatched_symbol_is_its_own_instrument():
    quotes = data(search(make(), q="xyzq"))["quotes"]
    assert [(q["symbol"], q["quoteType"]) for q in quotes] == [("XYZQ", "EQUITY")]


@pytest.mark.parametrize("query", ["ZZZZ", "AAPLNOTFOUND", "no such company at all"])
def test_unknown_queries_have_no_quotes(query):
    payload = data(search(make(), q=query))
    assert payload["quotes"] == []
    assert about(parse_news(payload), query) == []  # only filler news


def test_quotes_count_caps_quotes_and_news_count_caps_news():
    payload = data(search(make(), q="s", quotesCount="3", newsCount="7"))
    assert len(payload["quotes"]) == 3
    assert len(payload["news"]) == 7
    assert data(search(make(), q="s", quotesCount="0", newsCount="0"))["quotes"] == []


def test_missing_query_is_a_400():
    response = search(make(), quotesCount="3")
    assert response.status == 400
    assert data(response)["finance"]["error"]["code"] == "Bad Request"


def test_our_parser_reads_the_sandbox_quotes():
    parsed = parse_search_quotes(data(search(make(), q="spdr", quotesCount="10")))
    assert parsed and all(r["type"] == "etf" and r["exchange"] == "PCX" for r in parsed)
    spy = next(r for r in parsed if r["symbol"] == "SPY")
    assert spy["name"] == "SPDR S&P 500 ETF Trust"


# -- Yahoo search: news ------------------------------------------------------------------------
def test_news_is_deterministic_and_follows_the_clock():
    first = data(search(make(), q="AAPL", newsCount="5"))["news"]
    assert first == data(search(make(), q="AAPL", newsCount="5"))["news"]
    now = int(CLOCK.timestamp())
    times = [n["providerPublishTime"] for n in first]
    assert times == sorted(times, reverse=True)
    assert all(now - 7 * 86400 < t <= now for t in times)
    assert len({n["uuid"] for n in first}) == 5
    # a day later: newer articles on top, older ones keep their identity and time
    later = data(search(make(CLOCK + timedelta(days=1)), q="AAPL", newsCount="40"))["news"]
    by_uuid = {n["uuid"]: n for n in later}
    for article in first:
        assert by_uuid[article["uuid"]] == article
    assert later[0]["providerPublishTime"] > times[0]


def test_news_is_about_the_best_match():
    items = parse_news(data(search(make(), q="AAPL", newsCount="10")))
    assert len(about(items, "AAPL")) == 10
    assert all(i.link.startswith("https://finance.sandbox.invalid/") for i in items)
    assert any(i.img is None for i in parse_news(data(search(make(), q="MSFT",
                                                            newsCount="40"))))
    with_img = [i for i in items if i.img]
    assert all(i.img.startswith("https://img.sandbox.invalid/") for i in with_img)


# -- Algolia -----------------------------------------------------------------------------------
@pytest.mark.parametrize("headers", [{}, {"X-Algolia-Application-Id": "ZTZOECLXBC"},
                                     {"X-Algolia-API-Key": "k"},
                                     {**AUTH, "X-Algolia-API-Key": ""},
                                     {**AUTH, "X-Algolia-API-Key": "REVOKED-0123"}])
def test_algolia_without_valid_credentials_is_403(headers):
    response = algolia(make(), headers=headers, query="apple")
    assert response.status == 403
    assert data(response) == {"message": "Invalid Application-ID or API key", "status": 403}


def test_algolia_search_shape():
    payload = data(algolia(make(), query="apple", hitsPerPage="5",
                           attributesToRetrieve="name,symbol,exchangeShortName,type"))
    assert {"hits", "nbHits", "page", "nbPages", "hitsPerPage", "exhaustiveNbHits", "query",
            "params", "processingTimeMS"} <= set(payload)
    assert payload["hits"][0] == {"name": "Apple Inc.", "symbol": "AAPL",
                                  "exchangeShortName": "NASDAQ", "type": "stock",
                                  "objectID": "AAPL"}
    assert parse_hits(payload)[0] == {"name": "Apple Inc.", "symbol": "AAPL",
                                      "exchange": "NASDAQ", "type": "stock"}


def test_algolia_credentials_as_query_parameters_are_not_echoed():
    response = algolia(make(), headers={}, query="apple",
                       **{"x-algolia-application-id": "ZTZOECLXBC",
                          "x-algolia-api-key": "secret-search-key"})
    assert response.status == 200
    assert data(response)["params"] == "query=apple"
    assert b"secret-search-key" not in response.body


def test_algolia_facet_filters_and_paging():
    sb = make()
    etfs = data(algolia(sb, query="s", hitsPerPage="4", facetFilters='["type:etf"]'))
    assert len(etfs["hits"]) == 4 and etfs["nbHits"] > 4
    assert {h["type"] for h in etfs["hits"]} == {"etf"}
    comma = data(algolia(sb, query="s", hitsPerPage="4", facetFilters="type:etf"))
    assert comma["hits"] == etfs["hits"]
    either = data(algolia(sb, query="s", hitsPerPage="100",
                          facetFilters='[["type:trust", "type:stock"]]'))
    assert {h["type"] for h in either["hits"]} == {"trust", "stock"}
    not_etf = data(algolia(sb, query="s", hitsPerPage="100", facetFilters='["-type:etf"]'))
    assert "etf" not in {h["type"] for h in not_etf["hits"]}
    page1 = data(algolia(sb, query="s", hitsPerPage="4", page="1",
                         facetFilters='["type:etf"]'))
    assert page1["page"] == 1 and not set(map(str, page1["hits"])) & set(map(str, etfs["hits"]))


def test_algolia_post_query_with_a_params_string():
    params = urlencode({"query": "spdr", "hitsPerPage": 3, "facetFilters": '["type:etf"]'})
    response = algolia(make(), path="/1/indexes/stocks/query", method="POST",
                       body=json.dumps({"params": params}).encode())
    assert response.status == 200
    hits = data(response)["hits"]
    assert len(hits) == 3 and {h["type"] for h in hits} == {"etf"}


def test_algolia_keeps_only_securities():
    payload = data(algolia(make(), query="^GSPC"))
    assert payload["hits"] == []  # indices are not in a securities index
    payload = data(algolia(make(), query="BTC-USD"))
    assert payload["hits"] == []


def test_algolia_rejects_bad_parameters():
    response = algolia(make(), query="a", hitsPerPage="lots")
    assert response.status == 400
    assert data(response)["status"] == 400


# -- through the real client in sandbox mode ---------------------------------------------------
@pytest.fixture
def sandbox_mode(sandbox_upstream, settings):
    settings.SEARCH_APP_ID = "ZTZOECLXBC"
    settings.SEARCH_API_KEY = "sandbox-search-key"
    settings.SEARCH_INDEX = "stocks"
    return sandbox_upstream


def test_search_in_sandbox_mode(api, sandbox_mode):
    response = api.get("/v1/search?query=apple")
    assert response.status_code == 200
    assert response["X-Search-Provider"] == "algolia"
    assert response.json()[0] == {"name": "Apple Inc.", "symbol": "AAPL", "exchange": "NASDAQ",
                                  "type": "stock"}
    assert [e["path"] for e in sandbox_mode.requests_matching("/1/indexes/")] == [
        "/1/indexes/stocks"]
    etfs = api.get("/v1/search?query=spdr&hits=2&type=etf").json()
    assert len(etfs) == 2 and {r["type"] for r in etfs} == {"etf"}


def test_search_falls_back_in_sandbox_mode(api, sandbox_mode, settings):
    settings.SEARCH_API_KEY = "REVOKED-key"
    response = api.get("/v1/search?query=apple")
    assert response.status_code == 200
    assert response["X-Search-Provider"] == "yahoo"
    assert response.json()[0] == {"name": "Apple Inc.", "symbol": "AAPL", "exchange": "NMS",
                                  "type": "stock"}
    assert [e["status"] for e in sandbox_mode.requests_matching("/1/indexes/")] == [403]
    assert [e["status"] for e in sandbox_mode.requests_matching("/v1/finance/search")] == [200]
    direct = api.get("/v1/search?query=msft&use_primary_provider=false")
    assert direct["X-Search-Provider"] == "yahoo"
    assert direct.json()[0]["symbol"] == "MSFT"


def test_search_with_no_match_in_sandbox_mode(api, sandbox_mode):
    response = api.get("/v1/search?query=ZZZZ%20nothing")
    assert response.status_code == 200
    assert response.json() == []


def test_news_in_sandbox_mode(api, sandbox_mode):
    response = api.get("/v1/news?symbol=AAPL")
    assert response.status_code == 200
    body = response.json()
    assert body
    for item in body:
        assert set(item) == {"title", "link", "source", "img", "time"}
        assert item["link"].startswith("https://finance.sandbox.invalid/")
        assert item["time"] == "just now" or item["time"].endswith("ago")
    general = api.get("/v1/news")
    assert general.status_code == 200 and general.json()
    queries = sorted(e["query"]["q"][0] for e in sandbox_mode.requests_matching(
        "/v1/finance/search"))
    assert queries == ["AAPL", "^DJI", "^GSPC", "^IXIC"]


def test_news_unknown_symbol_in_sandbox_mode(api, sandbox_mode):
    response = api.get("/v1/news?symbol=ZZZZ")
    assert response.status_code == 404
    assert response.json() == {"detail": "No news found for ZZZZ"}


@pytest.mark.parametrize("raw", ["../../v1/test/getcrumb", "A/B", "A" * 500, "ÄAPL"])
def test_malformed_symbol_never_reaches_the_sandbox(api, sandbox_mode, raw):
    response = api.get("/v1/news?symbol=" + quote(raw, safe=""))
    assert response.status_code == 404
    assert sandbox_mode.requests_matching("/") == []
