"""GET /v2/feeds, /v2/crypto/news, /v2/forex/news and /v2/fear-and-greed: RSS and Atom
documents written here read through feedparser (values exact), merging and the real time
order, failing sources, every status, fields and paging, FMP first with its key (and the
feeds when it refuses), the sandbox for every publisher, and the routes' resolution next
to /v2/forex/{from}/{to} and the /v2/crypto routes."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import datetime

import pytest
import responses
from django.urls import resolve

from apps.feeds import views
from marketdata.capabilities import table as sources
from marketdata.providers import alternative, feeds, fmp
from marketdata.records.feeds import PUBLISHERS, publisher
from marketdata.records.gauges import FEAR_AND_GREED_LABELS
from tests.apps.payloads import FAILURES, fail_url
from tests.conftest import calls_to

FED = publisher("federal-reserve").url
BLOOMBERG = publisher("bloomberg").url
COINDESK = publisher("coindesk").url
COINTELEGRAPH = publisher("cointelegraph").url
FNG_URL = "https://api.alternative.me/fng/"
FMP_CRYPTO = "https://financialmodelingprep.com/stable/news/crypto-latest"
KEY = "fmp-k3y-SECRET"

# RSS 2.0 with RFC 2822 dates in -0500: 14:00-0500 is 19:00Z, later than the Atom entry
# at 18:30Z although "2025-03-04T20:30:00+02:00" sorts after it as text.
RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Fed</title><link>https://www.federalreserve.gov</link>
<item><title>Federal Reserve issues FOMC statement</title>
<link>https://www.federalreserve.gov/newsevents/pressreleases/monetary20250304a.htm</link>
<pubDate>Tue, 04 Mar 2025 14:00:00 -0500</pubDate>
<description><![CDATA[<p>The Committee decided to maintain the target range.</p>]]></description>
</item>
<item><title>Board announces stress test scenarios</title>
<link>https://www.federalreserve.gov/newsevents/pressreleases/bcreg20250301a.htm</link>
<pubDate>Sat, 01 Mar 2025 10:00:00 -0500</pubDate>
</item>
<item><title>An item without a link is dropped</title></item>
<item><title>Undated notice</title><link>https://www.federalreserve.gov/undated.htm</link></item>
</channel></rss>"""

ATOM = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Bloomberg</title><id>urn:b</id>
<updated>2025-03-04T20:30:00+02:00</updated>
<entry><title>Stocks rally as strong earnings lift shares</title>
<link rel="alternate" href="https://www.bloomberg.com/news/articles/2025-03-04/stocks"/>
<id>urn:b:1</id><published>2025-03-04T20:30:00+02:00</published>
<summary type="html">&lt;b&gt;Rally&lt;/b&gt; in tech</summary></entry>
<entry><title>Duplicate of the Fed statement</title>
<link href="https://www.federalreserve.gov/newsevents/pressreleases/monetary20250304a.htm"/>
<id>urn:b:2</id><updated>2025-03-03T09:00:00Z</updated></entry>
</feed>"""


@pytest.fixture(autouse=True)
def _fast(settings, monkeypatch):
    settings.FMP_API_KEY = ""
    sources.reset_warnings()
    for module, cls in ((feeds, feeds.FeedsProvider), (alternative,
                        alternative.AlternativeProvider), (fmp, fmp.FmpProvider)):
        fast = dataclasses.replace(module.PROVIDER, backoff_seconds=0.001,
                                   backoff_max_seconds=0.001)
        monkeypatch.setattr(cls, "config", fast)


def serve(mock, url: str, body: str, content_type: str = "application/rss+xml",
          status: int = 200) -> None:
    mock.add(responses.GET, re.compile(re.escape(url.split("?")[0]) + r"(\?.*)?$"),
             body=body, status=status, content_type=content_type)


def serve_json(mock, url: str, body, status: int = 200) -> None:
    serve(mock, url, json.dumps(body), "application/json", status)


# -- /v2/feeds ------------------------------------------------------------------------------
def test_feeds_merge_rss_and_atom_newest_first(api, yahoo):
    serve(yahoo.mock, FED, RSS)
    serve(yahoo.mock, BLOOMBERG, ATOM, "application/atom+xml")
    response = api.get("/v2/feeds?sources=federal-reserve,bloomberg")
    assert response.status_code == 200, response.content
    assert "X-Feed-Errors" not in response
    body = response.json()
    assert [(e["url"].rsplit("/", 1)[-1], e["published"], e["source"]) for e in body] == [
        ("monetary20250304a.htm", "2025-03-04T14:00:00-05:00", "Federal Reserve"),
        ("stocks", "2025-03-04T20:30:00+02:00", "Bloomberg"),
        ("bcreg20250301a.htm", "2025-03-01T10:00:00-05:00", "Federal Reserve"),
        ("undated.htm", None, "Federal Reserve"),
    ]
    first, rally = body[0], body[1]
    assert first["title"] == "Federal Reserve issues FOMC statement"
    assert first["summary"] == "<p>The Committee decided to maintain the target range.</p>"
    assert rally["summary"] == "<b>Rally</b> in tech"
    assert body[2]["summary"] is None
    assert set(first) == {"title", "url", "published", "summary", "source", "sentiment"}
    assert rally["sentiment"]["label"] == "Bullish" and rally["sentiment"]["score"] > 0
    assert first["sentiment"]["label"] in ("Bullish", "Neutral", "Bearish")


def test_feeds_default_sources_and_failing_source_named(api, yahoo):
    serve(yahoo.mock, FED, RSS)
    serve(yahoo.mock, BLOOMBERG, ATOM, "application/atom+xml")
    fail_url(yahoo.mock, publisher("sec").url, "yahoo_500")
    fail_url(yahoo.mock, publisher("marketwatch").url, "connection_error")
    response = api.get("/v2/feeds")
    assert response.status_code == 200, response.content
    header = response["X-Feed-Errors"]
    assert header.startswith("sec: News feeds ") and "; marketwatch: " in header
    assert {e["source"] for e in response.json()} == {"Federal Reserve", "Bloomberg"}


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_feeds_every_source_failing_is_the_failure(api, yahoo, kind):
    fail_url(yahoo.mock, FED, kind)
    response = api.get("/v2/feeds?sources=Federal_Reserve")
    status, _ = FAILURES[kind]
    assert response.status_code == status
    assert response.json()["status"] == status
    assert "News feeds" in response.json()["error"]


def test_feeds_gone_feed_and_not_a_feed_are_502(api, yahoo):
    serve(yahoo.mock, FED, "<html>gone</html>", "text/html", status=404)
    assert api.get("/v2/feeds?sources=federal-reserve").status_code == 502
    serve(yahoo.mock, BLOOMBERG, '{"not": "a feed"}', "application/json")
    response = api.get("/v2/feeds?sources=bloomberg")
    assert response.status_code == 502
    assert response.json()["error"] == ("News feeds returned a body that is not an RSS or "
                                        "Atom feed for Bloomberg")


def test_feeds_unknown_source_is_400_before_any_call(api, yahoo):
    response = api.get("/v2/feeds?sources=fed,bloomberg")
    assert response.status_code == 400
    error = response.json()["error"]
    assert "Unknown feed source: 'fed'. Valid sources: federal-reserve, sec, " in error
    assert "ritholtz" in error
    assert not calls_to(yahoo.mock, "bloomberg")


@pytest.mark.parametrize("query", ["sources=,", "formType=%3Cscript%3E", "limit=-1",
                                   "cursor=%%%"])
def test_feeds_bad_parameters_are_400(api, yahoo, query):
    response = api.get(f"/v2/feeds?{query}")
    assert response.status_code == 400
    assert response.json()["status"] == 400


def test_feeds_fields_and_paging(api, yahoo):
    serve(yahoo.mock, FED, RSS)
    response = api.get("/v2/feeds?sources=federal-reserve&fields=title,published&limit=2")
    assert response.status_code == 200
    body = response.json()
    assert body["nodes"] == [
        {"title": "Federal Reserve issues FOMC statement",
         "published": "2025-03-04T14:00:00-05:00"},
        {"title": "Board announces stress test scenarios",
         "published": "2025-03-01T10:00:00-05:00"}]
    assert body["pageInfo"]["hasNextPage"] is True
    after = api.get(f"/v2/feeds?sources=federal-reserve&limit=2&cursor="
                    f"{body['pageInfo']['endCursor']}").json()
    assert [n["title"] for n in after["nodes"]] == ["Undated notice"]


def test_feeds_aliases_and_sec_form_type(api, sandbox_upstream):
    response = api.get("/v2/feeds?sources=HN,Financial_Times,SEC-Filings&formType=8-K")
    assert response.status_code == 200, response.content
    body = response.json()
    assert {e["source"] for e in body} == {"Hacker News", "Financial Times",
                                          "SEC EDGAR (8-K)"}
    filings = [e for e in body if e["source"] == "SEC EDGAR (8-K)"]
    assert filings and all(e["title"].startswith("8-K - ") for e in filings)


def test_feeds_sandbox_answers_every_publisher(api, sandbox_upstream):
    everything = ",".join(p.slug for p in PUBLISHERS)
    response = api.get(f"/v2/feeds?sources={everything}")
    assert response.status_code == 200, response.content
    assert "X-Feed-Errors" not in response
    body = response.json()
    assert {e["source"] for e in body} == {p.display_name() for p in PUBLISHERS}
    moments = [datetime.fromisoformat(e["published"]) for e in body]
    assert moments == sorted(moments, reverse=True)
    assert len({e["url"] for e in body}) == len(body)
    again = api.get(f"/v2/feeds?sources={everything}").json()
    assert again == body


def test_feeds_sandbox_documents_are_rss_and_atom(sandbox_upstream):
    from marketdata.sandbox.feeds import documents

    now = datetime.fromisoformat("2025-03-04T12:34:00+00:00")
    bloomberg, fed = publisher("bloomberg"), publisher("federal-reserve")
    atom = documents.atom(bloomberg, documents.entries(bloomberg, now, "10-K"), "10-K")
    rss = documents.rss(fed, documents.entries(fed, now, "10-K"))
    assert "bloomberg" in documents._ATOM and "federal-reserve" not in documents._ATOM
    parsed_atom = feeds.parse_feed(atom.encode(), "Bloomberg")
    parsed_rss = feeds.parse_feed(rss.encode(), "Federal Reserve")
    assert len(parsed_atom) == len(parsed_rss) == documents.ENTRIES
    assert parsed_rss[0].published.utcoffset().total_seconds() == -5 * 3600


# -- /v2/crypto/news, /v2/forex/news ----------------------------------------------------------
def test_crypto_news_without_key_reads_the_crypto_feeds(api, yahoo):
    serve(yahoo.mock, COINDESK, RSS.replace("federalreserve.gov", "coindesk.com"))
    serve(yahoo.mock, COINTELEGRAPH, ATOM, "application/atom+xml")
    response = api.get("/v2/crypto/news?limit=2")
    assert response.status_code == 200, response.content
    assert response.json() == [
        {"title": "Federal Reserve issues FOMC statement",
         "link": "https://www.coindesk.com/newsevents/pressreleases/monetary20250304a.htm",
         "source": "CoinDesk", "img": None, "time": "2025-03-04T14:00:00-05:00",
         "sentiment": response.json()[0]["sentiment"]},
        {"title": "Stocks rally as strong earnings lift shares",
         "link": "https://www.bloomberg.com/news/articles/2025-03-04/stocks",
         "source": "CoinTelegraph", "img": None, "time": "2025-03-04T20:30:00+02:00",
         "sentiment": response.json()[1]["sentiment"]}]
    assert not calls_to(yahoo.mock, "financialmodelingprep")


FMP_ROWS = [
    {"symbol": "BTCUSD", "publishedDate": "2025-03-04 16:05:00", "publisher": "CoinDesk",
     "title": "Bitcoin surges to record high", "image": "https://img.example/btc.jpg",
     "site": "coindesk.com", "text": "Bitcoin rose.", "url": "https://www.coindesk.com/a"},
    {"symbol": "ETHUSD", "publishedDate": "2025-03-04 15:00:00", "publisher": "Decrypt",
     "title": "Ether slides", "image": None, "site": "", "text": "",
     "url": "https://decrypt.co/b"},
]


def test_crypto_news_from_fmp_with_key(api, yahoo, settings):
    settings.FMP_API_KEY = KEY
    serve_json(yahoo.mock, FMP_CRYPTO, FMP_ROWS)
    response = api.get("/v2/crypto/news?limit=5&fields=title,source,img,time")
    assert response.status_code == 200, response.content
    assert response.json() == [
        {"title": "Bitcoin surges to record high", "source": "coindesk.com",
         "img": "https://img.example/btc.jpg", "time": "2025-03-04T16:05:00"},
        {"title": "Ether slides", "source": "Decrypt", "img": None,
         "time": "2025-03-04T15:00:00"}]
    call = calls_to(yahoo.mock, "crypto-latest")[0].request.url
    assert "limit=5" in call and "page=0" in call


def test_crypto_news_falls_back_to_feeds_when_fmp_refuses(api, yahoo, settings):
    settings.FMP_API_KEY = KEY
    serve_json(yahoo.mock, FMP_CRYPTO, {"Error Message": "Invalid API KEY."}, status=401)
    serve(yahoo.mock, COINDESK, RSS)
    fail_url(yahoo.mock, COINTELEGRAPH, "yahoo_500")
    response = api.get("/v2/crypto/news")
    assert response.status_code == 200, response.content
    assert {item["source"] for item in response.json()} == {"CoinDesk"}


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_forex_news_failures(api, yahoo, kind):
    for slug in ("federal-reserve", "ecb", "boe", "investing"):
        fail_url(yahoo.mock, publisher(slug).url, kind)
    response = api.get("/v2/forex/news")
    assert response.status_code == FAILURES[kind][0]


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "pageLimit=-1", "pageCursor=%%"])
def test_market_news_bad_parameters(api, yahoo, query):
    for route in ("/v2/forex/news", "/v2/crypto/news"):
        response = api.get(f"{route}?{query}")
        assert response.status_code == 400, (route, query)


def test_market_news_sandbox_with_and_without_key(api, sandbox_upstream, settings):
    forex = api.get("/v2/forex/news?limit=6&pageLimit=4")
    assert forex.status_code == 200, forex.content
    body = forex.json()
    assert len(body["nodes"]) == 4 and body["pageInfo"]["hasNextPage"] is True
    assert {n["source"] for n in body["nodes"]} <= {
        "Federal Reserve", "European Central Bank", "Bank of England", "Investing.com"}
    crypto = api.get("/v2/crypto/news?limit=3").json()
    assert {n["source"] for n in crypto} <= {"CoinDesk", "CoinTelegraph"}
    settings.FMP_API_KEY = KEY
    keyed = api.get("/v2/forex/news?limit=3").json()
    assert len(keyed) == 3
    assert all(n["source"].endswith(".example.com") and n["img"] for n in keyed)
    assert [n["time"] for n in keyed] == sorted((n["time"] for n in keyed), reverse=True)


# -- /v2/fear-and-greed -----------------------------------------------------------------------
FNG = {"name": "Fear and Greed Index", "data": [
    {"value": "72", "value_classification": "Greed", "timestamp": "1741046400",
     "time_until_update": "3600"}], "metadata": {"error": None}}


def test_fear_and_greed(api, yahoo):
    serve_json(yahoo.mock, FNG_URL, FNG)
    response = api.get("/v2/fear-and-greed")
    assert response.status_code == 200, response.content
    assert response.json() == {"value": 72, "classification": "Greed",
                               "timestamp": 1741046400, "market": "crypto"}
    call = calls_to(yahoo.mock, "alternative.me")[0].request.url
    assert "limit=1" in call and "format=json" in call
    assert api.get("/v2/fear-and-greed?fields=value").json() == {"value": 72}


@pytest.mark.parametrize("row", [
    {"value": "72", "value_classification": "Very Greedy", "timestamp": "1741046400"},
    {"value": "101", "value_classification": "Extreme Greed", "timestamp": "1741046400"},
    {"value": "x", "value_classification": "Greed", "timestamp": "1741046400"},
    {"value": "50", "value_classification": "Neutral"},
])
def test_fear_and_greed_unusable_reading_is_502(api, yahoo, row):
    serve_json(yahoo.mock, FNG_URL, {"data": [row], "metadata": {"error": None}})
    response = api.get("/v2/fear-and-greed")
    assert response.status_code == 502
    assert response.json()["error"].startswith("alternative.me ")


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_fear_and_greed_failures(api, yahoo, kind):
    fail_url(yahoo.mock, FNG_URL, kind)
    response = api.get("/v2/fear-and-greed")
    assert response.status_code == FAILURES[kind][0]
    assert "alternative.me" in response.json()["error"]


def test_fear_and_greed_sandbox(api, sandbox_upstream):
    body = api.get("/v2/fear-and-greed").json()
    assert set(body) == {"value", "classification", "timestamp", "market"}
    assert 0 <= body["value"] <= 100 and body["classification"] in FEAR_AND_GREED_LABELS
    assert body["market"] == "crypto" and body["timestamp"] % 86400 == 0
    assert api.get("/v2/fear-and-greed").json() == body


# -- routing ----------------------------------------------------------------------------------
def test_routes_resolve_to_this_app():
    assert resolve("/v2/forex/news").func.view_class is views.V2ForexNewsView
    assert resolve("/v2/crypto/news").func.view_class is views.V2CryptoNewsView
    assert resolve("/v2/forex/EUR/USD").func.view_class is not views.V2ForexNewsView
    assert resolve("/v2/feeds").func.view_class is views.V2FeedsView
    assert resolve("/v2/fear-and-greed").func.view_class is views.V2FearAndGreedView
