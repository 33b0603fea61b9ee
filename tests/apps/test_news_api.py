"""GET /v1/news: symbol news from Yahoo search news[] (recordings), general news (the major
indices merged), relative times against a fixed clock, 404/422 bodies, upstream failures and
malformed symbols."""

from __future__ import annotations

import json
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses

from apps.news import services
from marketdata.providers.yahoo.news import GENERAL_NEWS_QUERIES, NEWS_COUNT
from marketdata.providers.yahoo.search import SEARCH_URL
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import calls_to

AAPL_SEARCH = "yahoo/v1-search/search-AAPL.json"
# 2 h 59 min after the newest AAPL-tagged article (GuruFocus, 1740463258)
NOW = 1740463258 + 2 * 3600 + 59 * 60


@pytest.fixture
def frozen_now(monkeypatch):
    """The News ``time`` field is computed against this clock."""
    monkeypatch.setattr(services, "time", SimpleNamespace(time=lambda: NOW))
    return NOW


def search_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/v1/finance/search")


def _q(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


# -- symbol news -------------------------------------------------------------------------------
def test_symbol_news_from_recording(api, yahoo, recording, frozen_now):
    yahoo.get(SEARCH_URL, recording(AAPL_SEARCH))
    response = api.get("/v1/news?symbol=AAPL")
    assert response.status_code == 200
    assert response["X-Cache"] == "MISS"
    body = response.json()
    assert body[0] == {
        "title": "Why Trump could 'move fast' on Apple's $500B US investment plan",
        "link": "https://finance.yahoo.com/video/why-trump-could-move-fast-002000706.html",
        "source": "Yahoo Finance Video",
        "img": "https://s.yimg.com/uu/api/res/1.2/yxtbZ7npnBJnfUiHWfr7KQ--~B/aD0xMjE4O3c9Mj"
               "E2NzthcHBpZD15dGFjaHlvbg--/https://s.yimg.com/os/creatr-uploaded-images/"
               "2025-02/c6ea6a30-f2f7-11ef-aebf-86e657f87666",
        "time": "8 hours ago",
    }
    # Yahoo's order is kept; the Motley Fool article is tagged BRK-B only and is left out
    assert [(n["source"], n["time"]) for n in body] == [
        ("Yahoo Finance Video", "8 hours ago"),
        ("Bloomberg", "3 hours ago"),
        ("GuruFocus.com", "2 hours ago"),
    ]
    for item in body:
        assert set(item) == {"title", "link", "source", "img", "time"}
        assert all(isinstance(v, str) and v for v in item.values())
    (call,) = search_calls(yahoo)
    assert _q(call)["q"] == ["AAPL"]
    assert _q(call)["quotesCount"] == ["0"]
    assert _q(call)["newsCount"] == [str(NEWS_COUNT)]


def test_relative_times_age_with_the_clock(api, yahoo, recording, monkeypatch):
    yahoo.get(SEARCH_URL, recording(AAPL_SEARCH))
    published = [1740442800, 1740462887, 1740463258]
    monkeypatch.setattr(services, "time", SimpleNamespace(time=lambda: 1740463258 + 3 * 86400))
    times = [n["time"] for n in api.get("/v1/news?symbol=aapl").json()]
    assert times == ["3 days ago", "3 days ago", "3 days ago"]
    monkeypatch.setattr(services, "time", SimpleNamespace(time=lambda: published[2] + 61))
    # a different spelling skips the response cache; the data cache is still used
    times = [n["time"] for n in api.get("/v1/news?symbol=AAPL%20").json()]
    assert times == ["5 hours ago", "7 minutes ago", "1 minute ago"]
    assert len(search_calls(yahoo)) == 1


def test_symbol_is_upper_cased(api, yahoo, recording, frozen_now):
    yahoo.get(SEARCH_URL, recording("yahoo/v1-search/search-BTC-USD.json"))
    body = api.get("/v1/news?symbol=btc-usd").json()
    # the two MT Newswires stories have no tickers and no image: left out
    assert [n["title"] for n in body] == [
        "Berkshire Hathaway, Strategy, Domino's Pizza: Market Minute",
        "Strategy buys additional $2 billion worth of bitcoin",
    ]
    assert _q(search_calls(yahoo)[0])["q"] == ["BTC-USD"]


def test_no_news_tagged_with_the_symbol_is_404(api, yahoo, recording):
    # Yahoo answers a rare fund with unrelated headlines (Carter's, DeepSeek, Home Depot)
    yahoo.get(SEARCH_URL, recording("yahoo/v1-search/search-0P000071W8.TO.json"))
    response = api.get("/v1/news?symbol=0P000071W8.TO")
    assert response.status_code == 404
    assert response.json() == {"detail": "No news found for 0P000071W8.TO"}


def test_empty_news_is_404(api, yahoo, recording):
    yahoo.get(SEARCH_URL, recording("yahoo/v1-search/search-NO0010123060.json"))
    response = api.get("/v1/news?symbol=zzzz")
    assert response.status_code == 404
    assert response.json() == {"detail": "No news found for ZZZZ"}


def test_articles_without_images_are_left_out(api, yahoo, frozen_now):
    article = {"uuid": "u1", "title": "Only text", "publisher": "Wire", "type": "STORY",
               "link": "https://finance.yahoo.com/news/only-text.html",
               "providerPublishTime": NOW - 30, "relatedTickers": ["KO"]}
    yahoo.get(SEARCH_URL, {"quotes": [], "news": [article]})
    response = api.get("/v1/news?symbol=KO")
    assert response.status_code == 404
    assert response.json() == {"detail": "No news found for KO"}


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_and_never_sent(api, yahoo, raw):
    response = api.get(f"/v1/news?symbol={raw}")
    assert response.status_code in (404, 422), response.content
    body = response.json()
    if response.status_code == 404:
        assert set(body) == {"detail"}
        assert len(body["detail"]) < 200
    assert len(yahoo.mock.calls) == 0


def test_malformed_symbol_body(api, yahoo):
    response = api.get("/v1/news?symbol=..%2F..%2Fetc")
    assert response.status_code == 404
    assert response.json() == {"detail": "Symbol not found: '../../etc'"}
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("query", ["symbol=", "symbol=%20%20"])
def test_empty_symbol_is_422(api, yahoo, query):
    response = api.get(f"/v1/news?{query}")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request",
                               "errors": {"symbol": ["String should have at least 1 character"]}}
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize(("failure", "status", "code"), [
    (dict(status=500, body="<html>error</html>"), 502, "upstream_bad_response"),
    (dict(status=404, body="<html>gone</html>"), 502, "upstream_bad_response"),
    (dict(body=requests.exceptions.ConnectionError("refused")), 503, "upstream_unavailable"),
    (dict(body=requests.exceptions.ReadTimeout("slow")), 504, "upstream_timeout"),
    (dict(status=429, body="Too Many Requests"), 429, "upstream_rate_limited"),
])
def test_upstream_failure(api, yahoo, failure, status, code):
    if "status" in failure:
        yahoo.get(SEARCH_URL, failure["body"], status=failure["status"],
                  content_type="text/html")
    else:
        yahoo.mock.add("GET", SEARCH_URL, body=failure["body"])
    response = api.get("/v1/news?symbol=AAPL")
    assert response.status_code == status
    body = response.json()
    assert (body["provider"], body["code"]) == ("yahoo", code)
    assert set(body) == {"detail", "provider", "code"}


def test_stale_news_is_served_when_yahoo_fails(api, yahoo, recording, cache_clock, frozen_now):
    yahoo.get(SEARCH_URL, recording(AAPL_SEARCH))
    first = api.get("/v1/news?symbol=AAPL").json()
    cache_clock.advance(301)  # past the 5-minute news TTL
    yahoo.mock.reset()
    yahoo.get(SEARCH_URL, "<html>error</html>", status=500, content_type="text/html")
    response = api.get("/v1/news?symbol=AAPL%20")
    assert response.status_code == 200
    assert response["X-Cache"] == "STALE"
    assert response.json() == first


# -- general news ------------------------------------------------------------------------------
def _article(uuid: str, ts: int, img: bool = True) -> dict:
    item = {"uuid": uuid, "title": f"Story {uuid}", "publisher": "Reuters", "type": "STORY",
            "link": f"https://finance.yahoo.com/news/{uuid}.html", "providerPublishTime": ts}
    if img:
        item["thumbnail"] = {"resolutions": [
            {"url": f"https://s.yimg.com/{uuid}.jpg", "width": 800, "height": 533,
             "tag": "original"}]}
    return item


def _by_query(yahoo, bodies: dict[str, object]) -> None:
    def answer(request):
        body = bodies[_q(SimpleNamespace(request=request))["q"][0]]
        if isinstance(body, Exception):
            raise body
        return 200, {"Content-Type": "application/json"}, json.dumps(body)

    yahoo.mock.add_callback(responses.GET, SEARCH_URL, callback=answer)


def test_general_news_merges_the_major_indices(api, yahoo, frozen_now):
    _by_query(yahoo, {
        "^GSPC": {"news": [_article("a", NOW - 7200), _article("b", NOW - 60)]},
        "^DJI": {"news": [_article("b", NOW - 60), _article("c", NOW - 90000)]},
        "^IXIC": {"news": [_article("d", NOW - 600, img=False), _article("e", NOW - 5)]},
    })
    response = api.get("/v1/news")
    assert response.status_code == 200
    assert response.json() == [
        {"title": "Story e", "link": "https://finance.yahoo.com/news/e.html", "source": "Reuters",
         "img": "https://s.yimg.com/e.jpg", "time": "just now"},
        {"title": "Story b", "link": "https://finance.yahoo.com/news/b.html", "source": "Reuters",
         "img": "https://s.yimg.com/b.jpg", "time": "1 minute ago"},
        {"title": "Story a", "link": "https://finance.yahoo.com/news/a.html", "source": "Reuters",
         "img": "https://s.yimg.com/a.jpg", "time": "2 hours ago"},
        {"title": "Story c", "link": "https://finance.yahoo.com/news/c.html", "source": "Reuters",
         "img": "https://s.yimg.com/c.jpg", "time": "1 day ago"},
    ]
    calls = search_calls(yahoo)
    assert sorted(_q(c)["q"][0] for c in calls) == sorted(GENERAL_NEWS_QUERIES)
    assert all(_q(c)["quotesCount"] == ["0"] for c in calls)


def test_general_news_from_recordings_keeps_untagged_articles(api, yahoo, recording,
                                                              frozen_now):
    body = recording("yahoo/v1-search/search-0P000071W8.TO.json")
    _by_query(yahoo, {q: body for q in GENERAL_NEWS_QUERIES})
    titles = [n["title"] for n in api.get("/v1/news").json()]
    # newest first, once each; "Issue of Debt" has no image
    assert titles == [
        "Carter’s, Inc. Reports Fourth Quarter and Fiscal Year 2024 Results",
        "DeepSeek rushes to launch new AI model as China goes all in",
        "Home Depot forecasts annual same-store sales growth below estimates",
    ]


def test_general_news_with_one_index_failing(api, yahoo, frozen_now):
    _by_query(yahoo, {"^GSPC": {"news": [_article("a", NOW - 120)]},
                      "^DJI": requests.exceptions.ConnectionError("refused"),
                      "^IXIC": {"news": []}})
    response = api.get("/v1/news")
    assert response.status_code == 200
    assert [n["title"] for n in response.json()] == ["Story a"]
    assert response["Cache-Control"] == "no-store"  # a partial list is never kept whole


def test_general_news_with_every_index_failing(api, yahoo):
    _by_query(yahoo, {q: requests.exceptions.ConnectionError("refused")
                      for q in GENERAL_NEWS_QUERIES})
    response = api.get("/v1/news")
    assert response.status_code == 503
    assert response.json()["provider"] == "yahoo"
    assert response.json()["code"] == "upstream_unavailable"


def test_no_general_news_is_an_empty_list(api, yahoo):
    _by_query(yahoo, {q: {"news": []} for q in GENERAL_NEWS_QUERIES})
    response = api.get("/v1/news")
    assert response.status_code == 200
    assert response.json() == []
