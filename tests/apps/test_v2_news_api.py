"""GET /v2/news and /v2/news/{symbol}: the search recordings through the endpoints (values
exact: absolute times, images, the relatedTickers filter, sentiment with Bullish/Bearish/
Neutral labels), unknown symbols, count, paging and fields, every error status, and the
sandbox for an equity, an ETF and a non-US listing."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.apps.payloads import FAILURES, QUERY1, fail_url
from tests.conftest import calls_to

DIR = "yahoo/v1-search"
URL = f"{QUERY1}/v1/finance/search"
MEMBERS = ["title", "link", "source", "img", "time", "providerPublishTime", "sentiment"]


def original_image(article):
    return next(r["url"] for r in article["thumbnail"]["resolutions"] if r["tag"] == "original")


@pytest.fixture
def aapl(yahoo, recording):
    payload = recording(f"{DIR}/search-AAPL.json")
    yahoo.get(URL, payload)
    return payload


def test_symbol_news_exactly_as_recorded(api, yahoo, aapl):
    response = api.get("/v2/news/aapl")
    assert response.status_code == 200, response.content
    body = response.json()
    tagged = [n for n in aapl["news"] if "AAPL" in n["relatedTickers"]]
    assert len(body) == len(tagged) == 3  # the Berkshire article (BRK-B only) is left out
    for item, article in zip(body, tagged, strict=True):
        assert list(item) == MEMBERS
        assert item["title"] == article["title"] and item["link"] == article["link"]
        assert item["source"] == article["publisher"]
        assert item["img"] == original_image(article)
        assert item["providerPublishTime"] == article["providerPublishTime"]
    assert body[0]["time"] == "2025-02-25T00:20:00Z"  # 1740442800
    assert body[0]["source"] == "Yahoo Finance Video"
    assert [i["sentiment"] for i in body] == [
        {"label": "Neutral", "score": 0.0, "confidence": 1.0},
        {"label": "Bearish", "score": -0.2732, "confidence": 0.2732},
        {"label": "Bullish", "score": 0.5106, "confidence": 0.5106}]
    (call,) = calls_to(yahoo.mock, "/v1/finance/search")
    sent = parse_qs(urlsplit(call.request.url).query)
    assert sent["q"] == ["AAPL"] and sent["newsCount"] == ["20"]


def test_count_paging_and_fields(api, yahoo, aapl):
    assert len(api.get("/v2/news/AAPL?count=2").json()) == 2
    first = api.get("/v2/news/AAPL?limit=2").json()
    assert [n["providerPublishTime"] for n in first["nodes"]] == [1740442800, 1740462887]
    after = first["pageInfo"]["endCursor"]
    second = api.get(f"/v2/news/AAPL?limit=2&cursor={after}").json()
    assert [n["providerPublishTime"] for n in second["nodes"]] == [1740463258]
    assert second["pageInfo"]["hasNextPage"] is False
    assert api.get("/v2/news/AAPL?count=1&fields=time,sentiment,nope").json() == [
        {"time": "2025-02-25T00:20:00Z",
         "sentiment": {"label": "Neutral", "score": 0.0, "confidence": 1.0}}]
    assert len(calls_to(yahoo.mock, "/v1/finance/search")) == 1  # one cached search


def test_articles_without_an_image_are_kept_with_null(api, yahoo, recording):
    yahoo.get(URL, recording(f"{DIR}/search-BTC-USD.json"))
    body = api.get("/v2/news/BTC-USD").json()
    assert [i["title"] for i in body] == [
        "Berkshire Hathaway, Strategy, Domino's Pizza: Market Minute",
        "Strategy buys additional $2 billion worth of bitcoin"]
    assert body[1]["sentiment"] == {"label": "Bullish", "score": 0.2263, "confidence": 0.2263}
    assert all(i["img"] for i in body)


def test_a_listed_symbol_without_tagged_news_is_empty(api, yahoo, recording):
    # Yahoo lists the fund, and fills news[] with unrelated full-text matches
    yahoo.get(URL, recording(f"{DIR}/search-0P000071W8.TO.json"))
    response = api.get("/v2/news/0P000071W8.TO")
    assert response.status_code == 200 and response.json() == []


def test_a_listed_index_without_news_is_empty(api, yahoo, recording):
    yahoo.get(URL, recording(f"{DIR}/search-idx_VXAPL.json"))
    assert api.get("/v2/news/%5EVXAPL").json() == []


def test_unknown_symbol_404(api, yahoo, recording):
    yahoo.get(URL, recording(f"{DIR}/search-NO0010123060.json"))
    response = api.get("/v2/news/NO0010123060")
    assert response.status_code == 404
    assert response.json() == {"error": "No news found for NO0010123060", "status": 404}


def test_market_news_merged_newest_first(api, yahoo, recording):
    payloads = {"^GSPC": recording(f"{DIR}/search-AAPL.json"),
                "^DJI": recording(f"{DIR}/search-BTC-USD.json"),
                "^IXIC": recording(f"{DIR}/search-AAPL.json")}  # duplicates: removed
    for query, payload in payloads.items():
        yahoo.mock.get(URL, json=payload, match=[_query_is(query)])
    response = api.get("/v2/news?count=50")
    assert response.status_code == 200, response.content
    body = response.json()
    stamps = [i["providerPublishTime"] for i in body]
    assert len(body) == 8 and stamps == sorted(stamps, reverse=True)
    assert stamps[0] == 1740477120 and body[0]["time"] == "2025-02-25T09:52:00Z"
    assert body[0]["title"] == ("Warren Buffett Just Gave Investors 3 Big Warnings About the "
                                "Stock Market")
    assert body[0]["sentiment"] == {"label": "Bearish", "score": -0.296, "confidence": 0.296}
    no_image = next(i for i in body if i["title"].startswith("Top Cryptocurrencies Fall"))
    assert no_image["img"] is None
    assert api.get("/v2/news").json() == body  # the default count (10) leaves none out
    assert api.get("/v2/news?count=5").json() == body[:5]
    assert [i["providerPublishTime"] for i in api.get("/v2/news?count=3&limit=1").json()[
        "nodes"]] == stamps[:1]


def _query_is(query):
    def match(request):
        sent = parse_qs(urlsplit(request.url).query).get("q")
        return (sent == [query], f"q is {sent}")
    return match


@pytest.mark.parametrize("path", ["/v2/news?count=0", "/v2/news?count=51",
                                  "/v2/news?count=abc", "/v2/news/AAPL?limit=-1",
                                  "/v2/news/AAPL?cursor=!!", "/v2/news?limit=5000"])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 400 and response.json()["status"] == 400
    assert not calls_to(yahoo.mock, "/v1/finance/search")


@pytest.mark.parametrize("symbol", ["..", "AA PL", "x" * 300])
def test_malformed_symbols_404_without_an_upstream_call(api, yahoo, symbol):
    response = api.get(f"/v2/news/{symbol}")
    assert response.status_code == 404 and response.json()["status"] == 404
    assert not calls_to(yahoo.mock, "/v1/finance/search")


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, URL, kind)
    status, _ = FAILURES[kind]
    for path in ("/v2/news/AAPL", "/v2/news"):
        response = api.get(path)
        assert response.status_code == status, path
        body = response.json()
        assert body["status"] == status and body["provider"] == "yahoo" and body["error"]


@pytest.mark.parametrize("symbol", ["AAPL", "SPY", "SAP.DE", "7203.T"])
def test_symbol_news_through_the_sandbox(api, sandbox_upstream, symbol):
    response = api.get(f"/v2/news/{symbol}?count=5")
    assert response.status_code == 200, response.content
    body = response.json()
    assert len(body) == 5
    stamps = [i["providerPublishTime"] for i in body]
    assert stamps == sorted(stamps, reverse=True)
    for item in body:
        assert list(item) == MEMBERS and item["time"].endswith("Z")
        assert item["link"].startswith("https://finance.sandbox.invalid/")
        assert item["sentiment"]["label"] in {"Bullish", "Bearish", "Neutral"}
    assert api.get(f"/v2/news/{symbol}?count=5").json() == body  # deterministic


def test_unknown_symbol_and_market_news_through_the_sandbox(api, sandbox_upstream):
    assert api.get("/v2/news/ZZZZ").status_code == 404
    body = api.get("/v2/news?count=20").json()
    assert len(body) == 20
    stamps = [i["providerPublishTime"] for i in body]
    assert stamps == sorted(stamps, reverse=True) and len(set(stamps)) == 20


def test_the_operations_are_described(api):
    paths = api.get("/openapi.json").json()["paths"]
    names = {p["name"] for p in paths["/v2/news/{symbol}"]["get"]["parameters"]}
    assert {"symbol", "count", "fields", "cursor", "limit"} <= names
    assert {"count", "fields"} <= {p["name"] for p in paths["/v2/news"]["get"]["parameters"]}
